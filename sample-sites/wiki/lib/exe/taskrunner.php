<?php
/**
 * The "web bug" every page embeds (like DokuWiki's taskrunner/indexer):
 * answers a 1x1 transparent GIF at once, then does housekeeping for the
 * page given in ?id=... : it (re)builds the page's word index in
 * data/index/<md5(id)>.idx when the page is newer than that index, and
 * records the run in data/cache/taskrunner.last.
 *
 * Query: ?id=<page>&<unix time of the render> (the number only defeats
 * caches; it is ignored).
 */

define('WIKI_ENTRY', 1);
require_once __DIR__ . '/../../inc/init.php';

$gif = base64_decode('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7');
header('Content-Type: image/gif');
header('Content-Length: ' . strlen($gif));
header('Cache-Control: no-store, no-cache, must-revalidate');
echo $gif;
flush();

$id = clean_id(is_string($_GET['id'] ?? null) ? $_GET['id'] : '');
if ($id === '' || !is_file(wiki_fn($id))) {
    exit;
}
$idx = WIKI_INDEX . '/' . md5($id) . '.idx';
if (!is_file($idx) || filemtime($idx) < filemtime(wiki_fn($id))) {
    // Word frequencies of the page, one "word count" per line.
    $words = str_word_count(strtolower(raw_wiki($id)), 1);
    $freq = array_count_values(array_filter($words, function ($w) {
        return strlen($w) > 2;
    }));
    ksort($freq, SORT_STRING);
    $lines = $id . "\n";
    foreach ($freq as $w => $n) {
        $lines .= $w . ' ' . $n . "\n";
    }
    io_save($idx, $lines);
}
io_save(WIKI_CACHE . '/taskrunner.last', $id . ' ' . time() . "\n");
