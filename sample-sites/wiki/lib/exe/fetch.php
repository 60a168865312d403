<?php
/**
 * Media delivery, like DokuWiki's lib/exe/fetch.php:
 * ?media=ns:file.png serves data/media/ns/file.png with its MIME type.
 * Files are long-cacheable; a missing file is a 404.
 */

define('WIKI_ENTRY', 1);
require_once __DIR__ . '/../../inc/init.php';

$types = [
    'png' => 'image/png', 'gif' => 'image/gif', 'jpg' => 'image/jpeg',
    'jpeg' => 'image/jpeg', 'webp' => 'image/webp', 'svg' => 'image/svg+xml',
    'pdf' => 'application/pdf', 'txt' => 'text/plain',
];

$id = clean_id(is_string($_GET['media'] ?? null) ? $_GET['media'] : '', true);
$ext = strtolower(pathinfo($id, PATHINFO_EXTENSION));
$fn = media_fn($id);
if ($id === '' || !isset($types[$ext]) || !is_file($fn)) {
    http_response_code(404);
    header('Content-Type: text/plain; charset=utf-8');
    echo "Not Found\n";
    exit;
}
$mtime = (int) filemtime($fn);
$etag = '"' . md5($id . $mtime . filesize($fn)) . '"';
header('Content-Type: ' . $types[$ext]);
header('Last-Modified: ' . gmdate('D, d M Y H:i:s', $mtime) . ' GMT');
header('ETag: ' . $etag);
header('Cache-Control: public, proxy-revalidate, no-transform, max-age=' . 7 * 86400);
if (trim($_SERVER['HTTP_IF_NONE_MATCH'] ?? '') === $etag) {
    http_response_code(304);
    exit;
}
header('Content-Length: ' . filesize($fn));
readfile($fn);
