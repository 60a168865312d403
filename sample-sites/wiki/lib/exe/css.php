<?php
/**
 * Stylesheet dispatcher, like DokuWiki's lib/exe/css.php: concatenates
 * lib/styles/*.css in name order, turns relative url()s into root-relative
 * ones, minifies the result and serves it as text/css.
 *
 * The built stylesheet is cached in data/cache/<hash>.css and reused
 * while it is newer than every source stylesheet (and this script).
 * Query: ?t=<template>&tseed=<hash of the styles' mtimes>; tseed only
 * busts browser caches, the answer does not depend on it.
 */

define('WIKI_ENTRY', 1);
require_once __DIR__ . '/../../inc/init.php';

$files = glob(WIKI_ROOT . '/lib/styles/*.css') ?: [];
sort($files, SORT_STRING);
$base = wiki_base(2);                      // this script is lib/exe/css.php
$lastmod = (int) filemtime(__FILE__);
foreach ($files as $f) {
    $lastmod = max($lastmod, (int) filemtime($f));
}

$cachefile = WIKI_CACHE . '/' . md5($base . '|' . implode('|', $files)) . '.css';
if (is_file($cachefile) && filemtime($cachefile) >= $lastmod) {
    $css = (string) file_get_contents($cachefile);
} else {
    $css = '';
    foreach ($files as $f) {
        $css .= css_fix_urls((string) file_get_contents($f), $base . 'lib/styles/') . "\n";
    }
    $css = css_compress($css);
    io_save($cachefile, $css);
}

$etag = '"' . md5($css) . '"';
header('Content-Type: text/css; charset=utf-8');
header('Cache-Control: public, max-age=3600');
header('Last-Modified: ' . gmdate('D, d M Y H:i:s', $lastmod) . ' GMT');
header('ETag: ' . $etag);
if (trim($_SERVER['HTTP_IF_NONE_MATCH'] ?? '') === $etag) {
    http_response_code(304);
    exit;
}
echo $css;

/**
 * Make relative url(...) references root-relative: they were written
 * relative to the stylesheet's own directory ($dir, a URL path).
 */
function css_fix_urls(string $css, string $dir): string
{
    return preg_replace_callback('/url\(\s*([\'"]?)([^\'")]+)\1\s*\)/', function ($m) use ($dir) {
        $url = $m[2];
        if (preg_match('#^(?:[a-z]+:|/|\#)#i', $url)) {
            return $m[0];                  // absolute, data: or fragment
        }
        $parts = [];
        foreach (explode('/', $dir . $url) as $seg) {
            if ($seg === '..') {
                array_pop($parts);
            } elseif ($seg !== '.') {
                $parts[] = $seg;
            }
        }
        return 'url(' . implode('/', $parts) . ')';
    }, $css);
}

/** A simple CSS minifier (the same tricks DokuWiki's css_compress uses). */
function css_compress(string $css): string
{
    $css = preg_replace('#/\*.*?\*/#s', '', $css);                 // comments
    $css = preg_replace('/\s+/', ' ', $css);                        // whitespace
    $css = preg_replace('/ ?([{};,>]) ?/', '$1', $css);             // around punctuation
    $css = preg_replace('/([{;]) ?([a-z\-]+) ?: ?/', '$1$2:', $css); // "prop : value"
    $css = str_replace(';}', '}', $css);                            // last semicolon
    $css = preg_replace('/([\s:,(])0\.(\d)/', '$1.$2', $css);       // 0.5em -> .5em
    $css = preg_replace('/([\s:])#([0-9a-f])\2([0-9a-f])\3([0-9a-f])\4(?![0-9a-f])/i', '$1#$2$3$4', $css);
    return trim($css) . "\n";
}
