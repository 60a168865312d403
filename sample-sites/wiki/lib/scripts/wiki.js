/*
 * Small client-side helpers (static file).
 *  - marks the document as JS-capable (html.no-js -> html.js)
 *  - makes the table of contents collapsible
 */
(function () {
    'use strict';
    var root = document.documentElement;
    root.className = root.className.replace(/\bno-js\b/, 'js');

    document.addEventListener('DOMContentLoaded', function () {
        var toc = document.getElementById('dw__toc');
        if (!toc) {
            return;
        }
        var head = toc.querySelector('h3');
        head.style.cursor = 'pointer';
        head.addEventListener('click', function () {
            toc.classList.toggle('closed');
        });
    });
}());
