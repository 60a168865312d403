<?php
/**
 * Common setup for every entry point (doku.php, lib/exe/*.php):
 * paths, configuration, id handling and URL building.
 *
 * The wiki mimics DokuWiki's habits on purpose (session on every page,
 * no-cache headers, render cache written under data/, web bug image,
 * indexdelay robots meta) because cgisnap has to cope with them.
 */

// Files under inc/ may be requested directly by a web server that executes
// every *.php (php -S does); they must then do nothing.
if (!defined('WIKI_ENTRY')) {
    http_response_code(404);
    exit;
}

define('WIKI_ROOT', dirname(__DIR__));
define('WIKI_DATA', WIKI_ROOT . '/data');
define('WIKI_PAGES', WIKI_DATA . '/pages');
define('WIKI_ATTIC', WIKI_DATA . '/attic');
define('WIKI_MEDIA', WIKI_DATA . '/media');
define('WIKI_CACHE', WIKI_DATA . '/cache');
define('WIKI_INDEX', WIKI_DATA . '/index');

$conf = [
    'title'      => 'cgisnap sample wiki',
    'tagline'    => 'A flat-file wiki',
    'start'      => 'start',
    'sidebar'    => 'sidebar',
    'template'   => 'dokuwiki',
    'indexdelay' => 5 * 86400,   // pages younger than this get noindex
    'recent'     => 50,          // entries on the recent changes page
    'timezone'   => 'UTC',
    'sessiondir' => '',          // '' = PHP's session.save_path
    'license'    => 'CC Attribution-Share Alike 4.0 International',
];
if (is_file(WIKI_ROOT . '/conf/local.php')) {
    include WIKI_ROOT . '/conf/local.php';
}
date_default_timezone_set($conf['timezone']);

/**
 * Base URL path of the wiki, always ending in '/', derived from the
 * directory of SCRIPT_NAME. $depth is how many directories the running
 * script sits below the wiki root (0 for doku.php, 2 for lib/exe/*.php).
 * All links are root-relative so the site works on any host and port.
 */
function wiki_base(int $depth = 0): string
{
    static $cache = [];
    if (isset($cache[$depth])) {
        return $cache[$depth];
    }
    $script = $_SERVER['SCRIPT_NAME'] ?? '/doku.php';
    // php -S reports "/" style paths with index.php already resolved; a
    // script name without a slash would be odd, treat it as at the root.
    $dir = str_replace('\\', '/', dirname($script));
    for ($i = 0; $i < $depth; $i++) {
        $dir = dirname($dir);
    }
    $dir = rtrim($dir, '/.') . '/';
    return $cache[$depth] = $dir;
}

/** HTML escape for text and attribute values. */
function hsc(string $s): string
{
    return htmlspecialchars($s, ENT_QUOTES | ENT_SUBSTITUTE | ENT_HTML5, 'UTF-8');
}

/**
 * Clean a page or media id the way DokuWiki does: lowercase, ';' and '/'
 * become ':', any other character outside [a-z0-9:_.-] becomes '_',
 * separators are collapsed and no id part starts or ends with . _ or -.
 * A trailing ':' means the namespace's start page.
 */
function clean_id($raw, bool $media = false): string
{
    global $conf;
    $id = strtolower(trim((string) $raw));
    $id = strtr($id, ';/', '::');
    $ns_start = !$media && substr($id, -1) === ':';
    $id = preg_replace('#[^a-z0-9:_.\-]+#', '_', $id);
    $id = preg_replace('#_{2,}#', '_', $id);
    $id = preg_replace('#:+#', ':', $id);
    $id = preg_replace('#:[:._\-]+#', ':', $id);
    $id = preg_replace('#[:._\-]+:#', ':', $id);
    $id = trim($id, ':._-');
    if ($ns_start) {
        $id = ($id === '' ? '' : $id . ':') . $conf['start'];
    }
    return $id;
}

/** Namespace of an id ('' for the root). */
function get_ns(string $id): string
{
    $p = strrpos($id, ':');
    return $p === false ? '' : substr($id, 0, $p);
}

/** Last part of an id. */
function no_ns(string $id): string
{
    $p = strrpos($id, ':');
    return $p === false ? $id : substr($id, $p + 1);
}

/**
 * Resolve a link target relative to the namespace of the page it is on,
 * like DokuWiki: ':a:b' is absolute, '.:x' and '..:x' are relative, a
 * bare name without ':' lives in the current namespace, 'a:b' is absolute.
 */
function resolve_id(string $ns, string $target, bool $media = false): string
{
    $target = trim($target);
    if ($target === '') {
        return '';
    }
    if ($target[0] === ':') {
        return clean_id($target, $media);
    }
    if ($target[0] === '.') {
        $parts = $ns === '' ? [] : explode(':', $ns);
        while (preg_match('/^(\.\.?)(?::|$)/', $target, $m)) {
            if ($m[1] === '..') {
                array_pop($parts);
            }
            $target = (string) substr($target, strlen($m[0]));
        }
        $parts[] = $target === '' ? ':' : $target;
        return clean_id(implode(':', $parts), $media);
    }
    if (strpos($target, ':') === false && $ns !== '') {
        return clean_id($ns . ':' . $target, $media);
    }
    return clean_id($target, $media);
}

/** Source file of a page. */
function wiki_fn(string $id): string
{
    return WIKI_PAGES . '/' . str_replace(':', '/', $id) . '.txt';
}

/** File of a media item. */
function media_fn(string $id): string
{
    return WIKI_MEDIA . '/' . str_replace(':', '/', $id);
}

/**
 * Does a page exist? Memoised: a render asks many times. file_exists(),
 * as DokuWiki's page_exists() does: PHP answers it with access(2).
 */
function page_exists(string $id): bool
{
    static $known = [];
    if ($id === '') {
        return false;
    }
    return $known[$id] ??= file_exists(wiki_fn($id));
}

/**
 * URL of a page view (or action), root-relative. Parameters are joined
 * with $sep; HTML output uses '&amp;', headers and plain text use '&'.
 * Ids keep their ':' unescaped, like DokuWiki's default links.
 */
function wl(string $id, array $params = [], string $sep = '&amp;'): string
{
    $q = 'id=' . id_urlencode($id);
    foreach ($params as $k => $v) {
        $q .= $sep . rawurlencode((string) $k) . ($v === null ? '' : '=' . rawurlencode((string) $v));
    }
    return wiki_base() . 'doku.php?' . $q;
}

/** Encode an id for a query string but keep ':' readable. */
function id_urlencode(string $id): string
{
    return str_replace('%3A', ':', rawurlencode($id));
}

/** Absolute URL built from the Host header, as DokuWiki's canonical link. */
function wl_abs(string $id): string
{
    $host = $_SERVER['HTTP_HOST'] ?? ($_SERVER['SERVER_NAME'] ?? 'localhost');
    $https = !empty($_SERVER['HTTPS']) && $_SERVER['HTTPS'] !== 'off';
    return ($https ? 'https://' : 'http://') . $host . wl($id, [], '&');
}

/** Read a page source ('' when missing). */
function raw_wiki(string $id): string
{
    $fn = wiki_fn($id);
    return is_file($fn) ? (string) file_get_contents($fn) : '';
}

/** Human date used in footers and lists. */
function wiki_date(int $ts): string
{
    return date('Y/m/d H:i', $ts);
}

/**
 * Write a file atomically (temporary name in the same directory, then
 * rename) so a reader never sees a half-written cache file.
 */
function io_save(string $fn, string $content): bool
{
    $dir = dirname($fn);
    if (!is_dir($dir) && !@mkdir($dir, 0777, true) && !is_dir($dir)) {
        return false;
    }
    $tmp = $fn . '.' . getmypid() . '.tmp';
    if (@file_put_contents($tmp, $content) === false) {
        return false;
    }
    return @rename($tmp, $fn);
}
