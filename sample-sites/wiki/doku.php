<?php
/**
 * Entry point of the wiki: doku.php?id=ns:page[&do=action][&rev=ts]
 *
 * Actions: show (default), edit, revisions, export_raw, backlink,
 * index, recent. See README.md.
 */

define('WIKI_ENTRY', 1);
require_once __DIR__ . '/inc/init.php';
require_once __DIR__ . '/inc/parser.php';
require_once __DIR__ . '/inc/pages.php';
require_once __DIR__ . '/inc/template.php';

// Like DokuWiki, every request opens a session (Set-Cookie: PHPSESSID)
// and is marked uncacheable (Cache-Control: no-store, no-cache, ...).
session_cache_limiter('nocache');
if ($conf['sessiondir'] !== '') {
    @mkdir($conf['sessiondir'], 0700, true);
    session_save_path($conf['sessiondir']);
}
session_start();

$ID = clean_id(is_string($_REQUEST['id'] ?? null) ? $_REQUEST['id'] : '');
if ($ID === '') {
    $ID = $conf['start'];
}
$ACT = $_REQUEST['do'] ?? 'show';
if (is_array($ACT)) {               // <button name="do[save]"> style
    $ACT = (string) key($ACT);
}
$ACT = strtolower((string) $ACT);
$actions = ['show', 'edit', 'revisions', 'export_raw', 'backlink', 'index', 'recent', 'save'];
if (!in_array($ACT, $actions, true)) {
    $ACT = 'show';
}
$REV = (int) ($_GET['rev'] ?? 0);
$EXISTS = page_exists($ID);
$FILE = str_replace(':', '/', $ID) . '.txt';
$LASTMOD = $EXISTS ? (int) filemtime(wiki_fn($ID)) : 0;

// Breadcrumbs ("Trace") live in the session, as in DokuWiki.
if ($ACT === 'show' && $EXISTS) {
    $bc = array_values(array_diff($_SESSION['bc'] ?? [], [$ID]));
    $bc[] = $ID;
    $_SESSION['bc'] = array_slice($bc, -10);
}

if ($ACT === 'export_raw') {
    header('Content-Type: text/plain; charset=utf-8');
    if (!$EXISTS) {
        http_response_code(404);
    }
    echo raw_wiki($ID);
    exit;
}

$page = [
    'id' => $ID,
    'action' => $ACT,
    'lastmod' => $LASTMOD,
    'file' => $FILE,
    'robots' => 'noindex,nofollow',
];

switch ($ACT) {
    case 'edit':
    case 'save':
        $page = act_edit($page);
        break;
    case 'revisions':
        $page = act_revisions($page);
        break;
    case 'backlink':
        $page = act_backlink($page);
        break;
    case 'index':
        $page = act_index($page);
        break;
    case 'recent':
        $page = act_recent($page);
        break;
    default:
        $page = act_show($page);
}
tpl_page($page);

/** The page itself, an old revision of it, or the 404 text. */
function act_show(array $p): array
{
    global $conf, $REV, $EXISTS, $LASTMOD;
    $id = $p['id'];
    $text = $REV ? raw_revision($id, $REV) : ($EXISTS ? raw_wiki($id) : '');
    if ($text === '' && !$EXISTS || $REV && $text === '') {
        http_response_code(404);
        $p['title'] = no_ns($id);
        $p['robots'] = 'noindex,follow';
        $p['content'] = "<h1 class=\"sectionedit1\" id=\"this_topic_does_not_exist_yet\">This topic does not exist yet</h1>\n"
            . "<div class=\"level1\">\n<p>You've followed a link to a topic that doesn't exist yet. "
            . 'If permissions allow, you may create it by clicking on <a href="' . wl($id, ['do' => 'edit'])
            . '" rel="nofollow">Create this page</a>.</p>' . "\n</div>\n";
        return $p;
    }
    [$html, $r] = render_page($id, $text, !$REV);
    $p['title'] = page_title($id, $text);
    if ($REV) {
        $html = '<div class="noteclassic">This is an old revision of the document, from '
            . wiki_date($REV) . '.</div>' . "\n" . $html;
        $p['lastmod'] = $REV;
    } else {
        // indexdelay: fresh pages are kept out of search engines for a while.
        $p['robots'] = time() - $LASTMOD >= $conf['indexdelay'] ? 'index,follow' : 'noindex,nofollow';
    }
    $p['content'] = $r->toc() . $html;
    return $p;
}

/** Edit form. Saving is not implemented: this is a read-only sample. */
function act_edit(array $p): array
{
    global $EXISTS;
    $id = $p['id'];
    $p['title'] = $EXISTS ? no_ns($id) : 'Create this page';
    $notice = $_SERVER['REQUEST_METHOD'] === 'POST'
        ? '<div class="error">Saving is disabled on this sample wiki.</div>' . "\n" : '';
    $p['content'] = '<h1 class="sectionedit1" id="edit_page">' . ($EXISTS ? 'Edit page' : 'Create this page') . "</h1>\n"
        . $notice
        . "<div class=\"level1\">\n<p>Edit the page and hit <em>Save</em>. See "
        . tpl_pagelink('wiki:syntax') . " for wiki syntax.</p>\n</div>\n"
        . '<form id="dw__editform" method="post" action="' . wiki_base() . 'doku.php" accept-charset="utf-8"><div class="no">' . "\n"
        . '<input type="hidden" name="id" value="' . hsc($id) . '">' . "\n"
        . '<input type="hidden" name="sectok" value="' . md5(session_id()) . '">' . "\n"
        . '<textarea name="wikitext" id="wiki__text" class="edit" cols="80" rows="20">' . "\n" . hsc(raw_wiki($id)) . "</textarea>\n"
        . '<label>Edit summary: <input type="text" name="summary" size="50"></label>' . "\n"
        . '<button type="submit" name="do[save]" value="1">Save</button> '
        . '<button type="submit" name="do[show]" value="1">Cancel</button>' . "\n"
        . "</div></form>\n";
    return $p;
}

/** Current version plus the attic's old revisions. */
function act_revisions(array $p): array
{
    global $EXISTS, $LASTMOD;
    $id = $p['id'];
    $p['title'] = no_ns($id) . ' - Old revisions';
    $html = "<h1 class=\"sectionedit1\" id=\"old_revisions\">Old revisions</h1>\n<div class=\"level1\">\n"
        . "<p>These are the older revisions of the current document.</p>\n</div>\n<ul class=\"revisions\">\n";
    if ($EXISTS) {
        $html .= '<li><span class="date">' . wiki_date($LASTMOD) . '</span> <a href="' . wl($id)
            . '" class="wikilink1">' . hsc($id) . "</a> <span class=\"current\">(current)</span></li>\n";
    }
    $revs = revisions($id);
    foreach ($revs as $rev) {
        $html .= '<li><span class="date">' . wiki_date($rev) . '</span> <a href="' . wl($id, ['rev' => $rev])
            . '" class="wikilink1" rel="nofollow">' . hsc($id) . "</a></li>\n";
    }
    if (!$EXISTS && !$revs) {
        $html .= "<li>No revisions.</li>\n";
    }
    $p['content'] = $html . "</ul>\n";
    return $p;
}

/** Pages linking here, found by scanning every page source. */
function act_backlink(array $p): array
{
    $id = $p['id'];
    $p['title'] = no_ns($id) . ' - Backlinks';
    $html = "<h1 class=\"sectionedit1\" id=\"backlinks\">Backlinks</h1>\n<div class=\"level1\">\n"
        . "<p>This is a list of pages that seem to link back to the current page.</p>\n</div>\n";
    $links = backlinks($id);
    if (!$links) {
        $html .= "<div class=\"level1\"><p>Nothing was found.</p></div>\n";
    } else {
        $html .= "<ul class=\"idx backlinks\">\n";
        foreach ($links as $b) {
            $html .= '<li class="level1"><div class="li">' . tpl_pagelink($b) . "</div></li>\n";
        }
        $html .= "</ul>\n";
    }
    $p['content'] = $html;
    return $p;
}

/** Sitemap: every page, grouped by namespace, from a directory scan. */
function act_index(array $p): array
{
    $p['title'] = 'Sitemap';
    $p['robots'] = 'noindex,follow';
    // Build a tree: namespace => ['pages' => [...], 'ns' => [...]].
    $tree = ['pages' => [], 'ns' => []];
    foreach (list_pages() as $id => $mtime) {
        $node = &$tree;
        $parts = explode(':', $id);
        $name = array_pop($parts);
        foreach ($parts as $part) {
            $node['ns'][$part] = $node['ns'][$part] ?? ['pages' => [], 'ns' => []];
            $node = &$node['ns'][$part];
        }
        $node['pages'][] = $id;
        unset($node);
    }
    $p['content'] = "<h1 class=\"sectionedit1\" id=\"sitemap\">Sitemap</h1>\n<div class=\"level1\">\n"
        . "<p>This is a sitemap over all available pages ordered by namespaces.</p>\n</div>\n"
        . "<div id=\"index__tree\" class=\"index__tree\">\n" . index_tree($tree, '', 1) . "</div>\n";
    return $p;
}

function index_tree(array $node, string $prefix, int $level): string
{
    $html = "<ul class=\"idx\">\n";
    ksort($node['ns'], SORT_STRING);
    foreach ($node['ns'] as $name => $child) {
        $html .= '<li class="open level' . $level . '"><div class="li"><strong class="ns">'
            . hsc($prefix . $name) . "</strong></div>\n"
            . index_tree($child, $prefix . $name . ':', $level + 1) . "</li>\n";
    }
    foreach ($node['pages'] as $id) {
        $html .= '<li class="level' . $level . '"><div class="li">' . tpl_pagelink($id, no_ns($id))
            . "</div></li>\n";
    }
    return $html . "</ul>\n";
}

/** Recent changes: pages by file mtime, newest first. */
function act_recent(array $p): array
{
    global $conf;
    $p['title'] = 'Recent Changes';
    $pages = list_pages();
    $ids = array_keys($pages);
    // Newest first; equal times in id order so the list is stable.
    usort($ids, function ($a, $b) use ($pages) {
        return $pages[$b] <=> $pages[$a] ?: strcmp($a, $b);
    });
    $html = "<h1 class=\"sectionedit1\" id=\"recent_changes\">Recent Changes</h1>\n<div class=\"level1\">\n"
        . "<p>The following pages were changed recently.</p>\n</div>\n<ul class=\"recent\">\n";
    foreach (array_slice($ids, 0, $conf['recent']) as $id) {
        $html .= '<li><span class="date">' . wiki_date($pages[$id]) . '</span> '
            . tpl_pagelink($id) . "</li>\n";
    }
    $p['content'] = $html . "</ul>\n";
    return $p;
}
