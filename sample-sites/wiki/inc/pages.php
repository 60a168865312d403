<?php
/**
 * Page storage: listing, rendering (with the render cache), backlinks,
 * revisions. All of it reads data/ on every request, like DokuWiki does
 * when its caches are cold; that is where a page's cost comes from.
 */

if (!defined('WIKI_ENTRY')) {
    http_response_code(404);
    exit;
}

/**
 * All pages below data/pages, found by a recursive directory scan.
 * Returns id => mtime, sorted by id.
 */
function list_pages(): array
{
    $pages = [];
    $walk = function (string $dir, string $ns) use (&$walk, &$pages) {
        $entries = @scandir($dir);
        if ($entries === false) {
            return;
        }
        foreach ($entries as $e) {
            if ($e[0] === '.') {
                continue;
            }
            $path = $dir . '/' . $e;
            if (is_dir($path)) {
                $walk($path, $ns . $e . ':');
            } elseif (substr($e, -4) === '.txt') {
                $pages[$ns . substr($e, 0, -4)] = (int) filemtime($path);
            }
        }
    };
    $walk(WIKI_PAGES, '');
    ksort($pages, SORT_STRING);
    return $pages;
}

/**
 * Render a page source to XHTML and store the result in the render cache
 * data/cache/<md5(id)>.xhtml. The cache is written on every render but
 * never read back here: whether a link is red or blue depends on other
 * pages, which a single mtime comparison cannot see (DokuWiki has the same
 * trouble). The write is what matters: renders modify data/, so anything
 * watching data/ must tell its own renders from real edits.
 *
 * Returns [html, WikiRenderer].
 */
function render_page(string $id, string $text, bool $cache = true): array
{
    $r = new WikiRenderer($id);
    $html = $r->render($text);
    if ($cache) {
        io_save(WIKI_CACHE . '/' . md5($id) . '.xhtml', $html);
    }
    return [$html, $r];
}

/**
 * Pages linking to $id, found by scanning the source of every page for
 * [[...]] links and resolving them relative to each page's namespace.
 */
function backlinks(string $id): array
{
    $found = [];
    foreach (list_pages() as $pid => $mtime) {
        if ($pid === $id) {
            continue;
        }
        $text = (string) @file_get_contents(wiki_fn($pid));
        if (!preg_match_all('/\[\[([^\]|#]*)[^\]]*\]\]/', $text, $m)) {
            continue;
        }
        $ns = get_ns($pid);
        foreach ($m[1] as $target) {
            if ($target === '' || preg_match('#^[a-z]+://#i', $target)) {
                continue;
            }
            if (resolve_id($ns, $target) === $id) {
                $found[] = $pid;
                break;
            }
        }
    }
    return $found;
}

/**
 * Old revisions of a page: data/attic/<ns>/<name>.<timestamp>.txt.gz.
 * Returns timestamps, newest first.
 */
function revisions(string $id): array
{
    $dir = WIKI_ATTIC . '/' . str_replace(':', '/', get_ns($id));
    $name = no_ns($id);
    $revs = [];
    foreach ((array) @scandir($dir) as $e) {
        if (preg_match('/^' . preg_quote($name, '/') . '\.(\d+)\.txt\.gz$/', (string) $e, $m)) {
            $revs[] = (int) $m[1];
        }
    }
    rsort($revs);
    return $revs;
}

/** Text of an old revision ('' when there is none). */
function raw_revision(string $id, int $rev): string
{
    $fn = WIKI_ATTIC . '/' . str_replace(':', '/', $id) . '.' . $rev . '.txt.gz';
    if (!is_file($fn)) {
        return '';
    }
    return (string) @gzdecode((string) file_get_contents($fn));
}

/** Title of a page: its first heading, else its id's last part. */
function page_title(string $id, string $text): string
{
    if (preg_match('/^\s*={2,6}(.+?)={2,6}\s*$/m', $text, $m)) {
        return trim($m[1]);
    }
    return no_ns($id);
}
