/*
 * Plain theme script: marks the document as scripted (<html class="js">)
 * and moves the comment form under the comment being replied to, like
 * WordPress's comment-reply.js. Without JavaScript the reply links
 * (?replytocom=ID, rel="nofollow") load the post with the form set up.
 */
(function () {
    'use strict';
    var root = document.documentElement;
    root.className = root.className.replace(/\bno-js\b/, 'js');

    document.addEventListener('click', function (event) {
        var link = event.target.closest ? event.target.closest('.comment-reply-link') : null;
        var form = document.getElementById('respond');
        var parent = document.getElementById('comment_parent');
        if (!link || !form || !parent) {
            return;
        }
        event.preventDefault();
        var comment = document.getElementById('comment-' + link.getAttribute('data-commentid'));
        comment.querySelector('.comment-body').appendChild(form);
        parent.value = link.getAttribute('data-commentid');
        document.getElementById('comment').focus();
    });
}());
