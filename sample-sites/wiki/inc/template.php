<?php
/**
 * The page layout: header, sidebar, content, page tools, footer.
 */

if (!defined('WIKI_ENTRY')) {
    http_response_code(404);
    exit;
}

/** An internal link with DokuWiki's existence classes. */
function tpl_pagelink(string $id, ?string $text = null): string
{
    $text = $text ?? $id;
    if (page_exists($id)) {
        return '<a href="' . wl($id) . '" class="wikilink1" title="' . hsc($id) . '">' . hsc($text) . '</a>';
    }
    return '<a href="' . wl($id) . '" class="wikilink2" title="' . hsc($id) . '" rel="nofollow">'
        . hsc($text) . '</a>';
}

/**
 * The stylesheet's cache buster, like DokuWiki's tseed: a hash of the
 * stylesheets' mtimes, so the URL changes whenever a style changes.
 */
function tpl_tseed(): string
{
    $stamp = '';
    foreach (glob(WIKI_ROOT . '/lib/styles/*.css') ?: [] as $f) {
        $stamp .= basename($f) . filemtime($f) . ';';
    }
    return md5($stamp);
}

/** Sidebar: the rendered page "sidebar", or a default; then site tools. */
function tpl_sidebar(): string
{
    global $conf;
    $sb = $conf['sidebar'];
    if ($sb !== '' && page_exists($sb)) {
        [$html] = render_page($sb, raw_wiki($sb));
    } else {
        $html = "<h3>Navigation</h3>\n<ul>\n<li><div class=\"li\">" . tpl_pagelink($conf['start'], 'Start')
            . "</div></li>\n</ul>\n";
    }
    // Always reachable with plain links, so a crawler finds every page.
    $html .= "<div class=\"sitetools\">\n<h3>Site Tools</h3>\n<ul>\n"
        . '<li><a href="' . wl($conf['start']) . '" class="action home">Start</a></li>' . "\n"
        . '<li><a href="' . wl($conf['start'], ['do' => 'index']) . '" class="action index" accesskey="x">Sitemap</a></li>' . "\n"
        . '<li><a href="' . wl($conf['start'], ['do' => 'recent']) . '" class="action recent" accesskey="r">Recent Changes</a></li>' . "\n"
        . "</ul>\n</div>\n";
    return $html;
}

/** "You are here": the page's namespaces, each through its start page. */
function tpl_youarehere(string $id): string
{
    global $conf;
    $out = [tpl_pagelink($conf['start'], 'start')];
    $parts = explode(':', $id);
    $name = array_pop($parts);
    $ns = '';
    foreach ($parts as $p) {
        $ns .= $p . ':';
        $out[] = tpl_pagelink($ns . $conf['start'], $p);
    }
    if ($id !== $conf['start']) {
        $out[] = tpl_pagelink($id, $name);
    }
    return '<div class="youarehere"><span class="bchead">You are here: </span>'
        . implode(' <span class="sep">&raquo;</span> ', $out) . '</div>';
}

/**
 * "Trace": the pages this visitor saw, kept in the PHP session like
 * DokuWiki's breadcrumbs. Without a cookie it is just the current page;
 * a client that keeps cookies sees it change from request to request.
 */
function tpl_trace(): string
{
    $crumbs = $_SESSION['bc'] ?? [];
    if (!$crumbs) {
        return '';
    }
    $out = [];
    foreach ($crumbs as $cid) {
        $out[] = tpl_pagelink($cid, no_ns($cid));
    }
    return '<div class="trace"><span class="bchead">Trace: </span>'
        . implode(' <span class="sep">&bull;</span> ', $out) . '</div>';
}

/**
 * Print a complete HTML page.
 *
 * $p: id, title, content (HTML), robots, action, lastmod (0 if none),
 *     file (page file name for the footer, '' if none).
 */
function tpl_page(array $p): void
{
    global $conf;
    $id = $p['id'];
    $base = wiki_base();
    $tools = [
        ['edit', 'Edit this page', true],
        ['revisions', 'Old revisions', true],
        ['export_raw', 'Raw source', true],
        ['backlink', 'Backlinks', false],
    ];
    header('Content-Type: text/html; charset=utf-8');
    ?>
<!DOCTYPE html>
<html lang="en" dir="ltr" class="no-js">
<head>
<meta charset="utf-8">
<title><?= hsc($p['title']) ?> [<?= hsc($conf['title']) ?>]</title>
<meta name="generator" content="cgisnap sample wiki">
<meta name="robots" content="<?= hsc($p['robots']) ?>">
<meta name="viewport" content="width=device-width,initial-scale=1">
<link rel="start" href="<?= $base ?>">
<link rel="contents" href="<?= wl($conf['start'], ['do' => 'index']) ?>" title="Sitemap">
<?php if ($p['action'] === 'show' && empty($_GET['rev'])) { /* as DokuWiki: a page's own view only */ ?>
<link rel="canonical" href="<?= hsc(wl_abs($id)) ?>">
<?php } ?>
<link rel="stylesheet" href="<?= $base ?>lib/exe/css.php?t=<?= hsc($conf['template']) ?>&amp;tseed=<?= tpl_tseed() ?>">
<script src="<?= $base ?>lib/scripts/wiki.js"></script>
<link rel="shortcut icon" href="<?= $base ?>lib/images/favicon.ico">
<link rel="apple-touch-icon" href="<?= $base ?>lib/images/logo.png">
</head>
<body>
<div id="dokuwiki__site"><div id="dokuwiki__top" class="site dokuwiki mode_<?= hsc($p['action']) ?>">
<div id="dokuwiki__header"><div class="pad group">
<div class="headings group">
<h1 class="logo"><a href="<?= wl($conf['start']) ?>" accesskey="h" title="Home [h]"><img src="<?= $base ?>lib/images/logo.png" width="64" height="64" alt=""> <span><?= hsc($conf['title']) ?></span></a></h1>
<p class="claim"><?= hsc($conf['tagline']) ?></p>
</div>
<div class="breadcrumbs">
<?= tpl_youarehere($id) ?>

<?= tpl_trace() ?>

</div>
</div></div>
<div class="wrapper group">
<div id="dokuwiki__aside"><div class="pad aside include group">
<?= tpl_sidebar() ?>
</div></div>
<div id="dokuwiki__content"><div class="pad group">
<div class="pageId"><span><?= hsc($id) ?></span></div>
<div class="page group">
<?= $p['content'] ?>
</div>
</div></div>
<div id="dokuwiki__pagetools">
<h3 class="a11y">Page Tools</h3>
<ul>
<?php foreach ($tools as [$do, $label, $nofollow]) { ?>
<li><a href="<?= wl($id, ['do' => $do]) ?>" class="action <?= $do ?>"<?= $nofollow ? ' rel="nofollow"' : '' ?>><?= $label ?></a></li>
<?php } ?>
<li><a href="#dokuwiki__top" class="action top" accesskey="t">Back to top</a></li>
</ul>
</div>
</div>
<div id="dokuwiki__footer"><div class="pad">
<?php if ($p['lastmod']) { ?>
<div class="docInfo"><bdi><?= hsc($p['file']) ?></bdi> &middot; Last modified: <?= wiki_date($p['lastmod']) ?></div>
<?php } ?>
<div class="license">Except where otherwise noted, content on this wiki is licensed under the following license: <bdi><?= hsc($conf['license']) ?></bdi></div>
</div></div>
</div></div>
<div class="no"><img src="<?= $base ?>lib/exe/taskrunner.php?id=<?= id_urlencode($id) ?>&amp;<?= time() ?>" width="2" height="1" alt=""></div>
</body>
</html>
<?php
}
