<?php
/**
 * HTML templates of the "plain" theme. Every function returns a string;
 * render_layout() wraps a page body in the header, sidebar and footer.
 * All links are absolute (home_url()), as WordPress writes them.
 */
defined('ABSPATH') || exit;

/**
 * Full HTML document.
 * $page keys: title (document title, '' for the home page), body_class,
 * head (extra <head> lines), main (the main column HTML).
 */
function render_layout(array $page): string
{
    $title = $page['title'] === '' ? esc(BLOG_NAME) . ' &#8211; ' . esc(BLOG_DESCRIPTION)
                                   : esc($page['title']) . ' &#8211; ' . esc(BLOG_NAME);
    $css  = home_url('/' . THEME_DIR . '/style.css?ver=' . BLOG_VERSION);
    $js   = home_url('/' . THEME_DIR . '/script.js?ver=' . BLOG_VERSION);
    $feed = home_url('/feed/');
    $head = implode("\n", $page['head'] ?? []);
    $home = esc(home_url('/'));
    $name = esc(BLOG_NAME);
    $desc = esc(BLOG_DESCRIPTION);
    $search = search_form();
    $sidebar = render_sidebar();

    return <<<HTML
<!DOCTYPE html>
<html lang="en-US" class="no-js">
<head>
<meta charset="UTF-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>$title</title>
<link rel="stylesheet" id="plain-style-css" href="{$css}" media="all">
<link rel="alternate" type="application/rss+xml" title="$name &raquo; Feed" href="$feed">
$head
<script src="$js" id="plain-script-js" defer></script>
</head>
<body class="{$page['body_class']}">
<div id="page" class="site">
<a class="skip-link screen-reader-text" href="#main">Skip to content</a>
<header id="masthead" class="site-header">
<p class="site-title"><a href="$home" rel="home">$name</a></p>
<p class="site-description">$desc</p>
<nav class="main-navigation" aria-label="Primary"><ul><li><a href="$home">Home</a></li><li><a href="$feed">RSS</a></li></ul></nav>
</header>
<div id="content" class="site-content">
<main id="main" class="site-main">
{$page['main']}
</main>
<aside id="secondary" class="widget-area">
$search
$sidebar
</aside>
</div>
<footer id="colophon" class="site-footer">
<p>&copy; $name &middot; Proudly powered by PHP and SQLite &middot; <a href="$feed">Entries feed</a></p>
</footer>
</div>
</body>
</html>

HTML;
}

/** GET form to /?s=term; the only way to reach search results. */
function search_form(string $value = ''): string
{
    return '<form role="search" method="get" class="search-form" action="' . esc(home_url('/')) . '">'
        . '<label><span class="screen-reader-text">Search for:</span>'
        . '<input type="search" class="search-field" name="s" value="' . esc($value) . '" placeholder="Search &hellip;"></label>'
        . '<button type="submit" class="search-submit">Search</button></form>';
}

/** Sidebar widgets: recent posts, tag cloud with counts, monthly archives. */
function render_sidebar(): string
{
    $html = "<section class=\"widget widget_recent_entries\"><h2 class=\"widget-title\">Recent Posts</h2>\n<ul>\n";
    foreach (recent_posts(5) as $p) {
        $html .= '<li><a href="' . esc(post_url($p)) . '">' . esc($p['title']) . "</a></li>\n";
    }
    $html .= "</ul></section>\n";

    // Font size scales linearly with the count, 8pt .. 22pt (wp_tag_cloud).
    $tags = tag_cloud();
    $counts = array_column($tags, 'n');
    $min = $counts ? min($counts) : 0;
    $spread = $counts ? max(max($counts) - $min, 1) : 1;
    $html .= "<section class=\"widget widget_tag_cloud\"><h2 class=\"widget-title\">Tags</h2>\n<div class=\"tagcloud\">\n";
    foreach ($tags as $t) {
        $size = round(8 + ($t['n'] - $min) * 14 / $spread, 3);
        $html .= '<a href="' . esc(home_url('/tag/' . $t['slug'] . '/')) . '" class="tag-cloud-link tag-link-' . esc($t['slug'])
            . '" style="font-size: ' . $size . 'pt;" aria-label="' . esc($t['name']) . ' (' . $t['n'] . ' items)">'
            . esc($t['name']) . '<span class="tag-link-count"> (' . $t['n'] . ")</span></a>\n";
    }
    $html .= "</div></section>\n";

    $html .= "<section class=\"widget widget_archive\"><h2 class=\"widget-title\">Archives</h2>\n<ul>\n";
    foreach (month_archive() as $m) {
        $html .= '<li><a href="' . esc(home_url('/' . str_replace('-', '/', $m['month']) . '/')) . '">'
            . format_month($m['month']) . '</a>&nbsp;(' . $m['n'] . ")</li>\n";
    }
    return $html . "</ul></section>";
}

/** Tag links of a post. */
function render_tag_links(array $tags): string
{
    $links = array_map(static fn($t) => '<a href="' . esc(home_url('/tag/' . $t['slug'] . '/')) . '" rel="tag">'
        . esc($t['name']) . '</a>', $tags);
    return $links ? '<span class="tags-links">Tagged ' . implode(', ', $links) . '</span>' : '';
}

/** "No Comments" / "1 Comment" / "N Comments" */
function comments_label(int $n): string
{
    return $n === 0 ? 'No Comments' : ($n === 1 ? '1 Comment' : "$n Comments");
}

/** One post in a list (home, archives, search): title, meta, excerpt. */
function render_summary(array $post): string
{
    $url  = esc(post_url($post));
    $n    = comment_count((int) $post['id']);
    $tags = render_tag_links(post_tags((int) $post['id']));
    return '<article id="post-' . $post['id'] . '" class="post type-post hentry">'
        . '<header class="entry-header"><h2 class="entry-title"><a href="' . $url . '" rel="bookmark">' . esc($post['title']) . '</a></h2>'
        . '<div class="entry-meta"><time class="entry-date published" datetime="' . esc(date('c', strtotime($post['published_at'] . ' UTC'))) . '">'
        . format_date($post['published_at']) . '</time> by <span class="author">' . esc($post['author']) . '</span></div></header>'
        . '<div class="entry-summary"><p>' . post_excerpt($post['body']) . '</p>'
        . '<a class="more-link" href="' . $url . '">Continue reading<span class="screen-reader-text"> ' . esc($post['title']) . '</span></a></div>'
        . '<footer class="entry-footer">' . $tags . ' <span class="comments-link"><a href="' . $url . '#comments">' . comments_label($n) . '</a></span></footer>'
        . "</article>\n";
}

/** Absolute URL of page $n of a paged list whose first page is $base ("/tag/php/"). */
function paged_url(string $base, int $n): string
{
    return home_url($n <= 1 ? $base : $base . 'page/' . $n . '/');
}

/**
 * Numbered pagination like paginate_links(): first and last page, two
 * around the current one, ellipses between; plus newer/older links.
 */
function render_pagination(string $base, int $page, int $pages): string
{
    if ($pages <= 1) {
        return '';
    }
    $items = [];
    if ($page > 1) {
        $items[] = '<a class="prev page-numbers" href="' . esc(paged_url($base, $page - 1)) . '">&laquo; Newer posts</a>';
    }
    $dots = false;
    for ($i = 1; $i <= $pages; $i++) {
        if ($i === $page) {
            $items[] = '<span aria-current="page" class="page-numbers current">' . $i . '</span>';
            $dots = true;
        } elseif ($i === 1 || $i === $pages || abs($i - $page) <= 2) {
            $items[] = '<a class="page-numbers" href="' . esc(paged_url($base, $i)) . '">' . $i . '</a>';
            $dots = true;
        } elseif ($dots) {
            $items[] = '<span class="page-numbers dots">&hellip;</span>';
            $dots = false;
        }
    }
    if ($page < $pages) {
        $items[] = '<a class="next page-numbers" href="' . esc(paged_url($base, $page + 1)) . '">Older posts &raquo;</a>';
    }
    return '<nav class="navigation pagination" aria-label="Posts"><div class="nav-links">' . implode("\n", $items) . "</div></nav>\n";
}

/** <link rel="prev/next"> lines for a paged list. */
function pagination_head(string $base, int $page, int $pages): array
{
    $head = ['<link rel="canonical" href="' . esc(paged_url($base, $page)) . '">'];
    if ($page > 1) {
        $head[] = '<link rel="prev" href="' . esc(paged_url($base, $page - 1)) . '">';
    }
    if ($page < $pages) {
        $head[] = '<link rel="next" href="' . esc(paged_url($base, $page + 1)) . '">';
    }
    return $head;
}

/** A paged list page (home, tag, month). */
function render_list_page(string $title, string $heading, string $body_class, array $posts,
                          string $base, int $page, int $pages): string
{
    $main = $heading !== '' ? '<header class="page-header"><h1 class="page-title">' . $heading . "</h1></header>\n" : '';
    foreach ($posts as $post) {
        $main .= render_summary($post);
    }
    $main .= render_pagination($base, $page, $pages);
    if ($page > 1) {
        $title = ($title === '' ? BLOG_NAME : $title) . " \u{2013} Page $page";
        $body_class .= ' paged paged-' . $page;
    }
    return render_layout([
        'title' => $title, 'body_class' => $body_class,
        'head' => pagination_head($base, $page, $pages), 'main' => $main,
    ]);
}

/** Threaded comment list; $children maps parent id => child comments. */
function render_comment_tree(array $post, array $children, int $parent, int $depth): string
{
    if (empty($children[$parent])) {
        return '';
    }
    $html = $parent === 0 ? "<ol class=\"comment-list\">\n" : "<ol class=\"children\">\n";
    foreach ($children[$parent] as $c) {
        $author = esc($c['author']);
        if ($c['author_url'] !== '' && $c['author_url'] !== null) {
            $author = '<a href="' . esc($c['author_url']) . '" class="url" rel="external nofollow ugc">' . $author . '</a>';
        }
        $permalink = esc(post_url($post) . '#comment-' . $c['id']);
        $reply = esc(post_url($post) . '?replytocom=' . $c['id'] . '#respond');
        $html .= '<li id="comment-' . $c['id'] . '" class="comment depth-' . $depth . '">'
            . '<article class="comment-body"><footer class="comment-meta"><b class="fn">' . $author . '</b> '
            . '<a class="comment-date" href="' . $permalink . '"><time datetime="' . esc(date('c', strtotime($c['created_at'] . ' UTC'))) . '">'
            . format_date($c['created_at']) . ' at ' . date('g:i a', strtotime($c['created_at'] . ' UTC')) . '</time></a></footer>'
            . '<div class="comment-content">' . render_comment($c['body']) . '</div>'
            . '<div class="reply"><a rel="nofollow" class="comment-reply-link" href="' . $reply . '" data-commentid="' . $c['id']
            . '" aria-label="Reply to ' . esc($c['author']) . '">Reply</a></div></article>'
            . render_comment_tree($post, $children, (int) $c['id'], $depth + 1)
            . "</li>\n";
    }
    return $html . "</ol>\n";
}

/** Comment form posting to /wp-comments-post.php. */
function render_comment_form(array $post, ?array $reply_to): string
{
    $author = esc((string) ($_SESSION['comment_author'] ?? ''));
    $title = $reply_to ? 'Leave a Reply to ' . esc($reply_to['author'])
        . ' <small><a rel="nofollow" id="cancel-comment-reply-link" href="' . esc(post_url($post)) . '#respond">Cancel reply</a></small>'
        : 'Leave a Reply';
    return '<div id="respond" class="comment-respond"><h3 id="reply-title" class="comment-reply-title">' . $title . '</h3>'
        . '<form action="' . esc(home_url('/wp-comments-post.php')) . '" method="post" id="commentform" class="comment-form">'
        . '<p class="comment-form-comment"><label for="comment">Comment</label><textarea id="comment" name="comment" cols="45" rows="6" required></textarea></p>'
        . '<p class="comment-form-author"><label for="author">Name</label><input id="author" name="author" type="text" value="' . $author . '" required></p>'
        . '<p class="comment-form-email"><label for="email">Email</label><input id="email" name="email" type="email" value=""></p>'
        . '<p class="comment-form-url"><label for="url">Website</label><input id="url" name="url" type="url" value=""></p>'
        . '<p class="form-submit"><input name="submit" type="submit" id="submit" class="submit" value="Post Comment">'
        . '<input type="hidden" name="comment_post_ID" value="' . $post['id'] . '" id="comment_post_ID">'
        . '<input type="hidden" name="comment_parent" id="comment_parent" value="' . ($reply_to['id'] ?? 0) . '"></p>'
        . "</form></div>\n";
}

/** "Related posts" box of a single post. */
function render_related(int $post_id): string
{
    $items = '';
    foreach (related_posts($post_id, 3) as $p) {
        $items .= '<li><a href="' . esc(post_url($p)) . '">' . esc($p['title']) . '</a> <time>'
            . format_date($p['published_at']) . "</time></li>\n";
    }
    return $items === '' ? '' : "<section class=\"related-posts\"><h2>Related posts</h2>\n<ul>\n$items</ul></section>\n";
}

/** Single post page. $reply_to is the comment named by ?replytocom=. */
function render_single(array $post, ?array $reply_to): string
{
    $id = (int) $post['id'];
    $url = post_url($post);
    $comments = post_comments($id);
    $n = comment_count($id);
    $children = [];
    foreach ($comments as $c) {
        $children[(int) $c['parent_id']][] = $c;
    }

    $nav = '';
    if ($older = adjacent_post($post, true)) {
        $nav .= '<div class="nav-previous"><a href="' . esc(post_url($older)) . '" rel="prev"><span class="meta-nav">Previous Post</span> '
            . esc($older['title']) . '</a></div>';
    }
    if ($newer = adjacent_post($post, false)) {
        $nav .= '<div class="nav-next"><a href="' . esc(post_url($newer)) . '" rel="next"><span class="meta-nav">Next Post</span> '
            . esc($newer['title']) . '</a></div>';
    }

    $main = '<article id="post-' . $id . '" class="post type-post hentry">'
        . '<header class="entry-header"><h1 class="entry-title">' . esc($post['title']) . '</h1>'
        . '<div class="entry-meta"><time class="entry-date published" datetime="' . esc(date('c', strtotime($post['published_at'] . ' UTC'))) . '">'
        . format_date($post['published_at']) . '</time> by <span class="author">' . esc($post['author']) . '</span></div></header>'
        . "<div class=\"entry-content\">\n" . render_markup($post['body']) . "\n</div>"
        . '<footer class="entry-footer">' . render_tag_links(post_tags($id)) . "</footer></article>\n"
        . render_related($id)
        . '<nav class="navigation post-navigation" aria-label="Posts"><div class="nav-links">' . $nav . "</div></nav>\n"
        . '<div id="comments" class="comments-area"><h2 class="comments-title" data-count="' . $n . '">' . comments_label($n)
        . ' on &#8220;' . esc($post['title']) . "&#8221;</h2>\n"
        . render_comment_tree($post, $children, 0, 1)
        . render_comment_form($post, $reply_to) . "</div>\n";

    return render_layout([
        'title' => $post['title'],
        'body_class' => 'post-template-default single single-post postid-' . $id,
        'head' => [
            '<link rel="canonical" href="' . esc($url) . '">',
            '<link rel="shortlink" href="' . esc(home_url('/?p=' . $id)) . '">',
        ],
        'main' => $main,
    ]);
}

/** The 404 page: normal layout, "Nothing found". */
function render_not_found(): string
{
    return render_layout([
        'title' => 'Page not found', 'body_class' => 'error404',
        'head' => ['<meta name="robots" content="noindex, follow">'],
        'main' => '<section class="error-404 not-found"><header class="page-header"><h1 class="page-title">Nothing found</h1></header>'
            . '<div class="page-content"><p>It looks like nothing was found at this location. Maybe try a search?</p>'
            . search_form() . "</div></section>\n",
    ]);
}

/** Search results for /?s=term (not linked anywhere but the form). */
function render_search(string $term): string
{
    $posts = $term === '' ? [] : search_posts($term, 20);
    $main = '<header class="page-header"><h1 class="page-title">Search Results for: <span>' . esc($term) . "</span></h1></header>\n";
    foreach ($posts as $post) {
        $main .= render_summary($post);
    }
    if (!$posts) {
        $main .= '<section class="no-results not-found"><h2>Nothing found</h2><p>Sorry, but nothing matched your search terms.</p>'
            . search_form($term) . "</section>\n";
    }
    return render_layout([
        'title' => 'Search Results for “' . $term . '”', 'body_class' => 'search search-results',
        'head' => ['<meta name="robots" content="noindex, follow">'], 'main' => $main,
    ]);
}

/** RSS 2.0 feed of the latest posts. */
function render_feed(): string
{
    $cdata = static fn(string $s) => '<![CDATA[' . str_replace(']]>', ']]]]><![CDATA[>', $s) . ']]>';
    $x = static fn(string $s) => htmlspecialchars($s, ENT_XML1 | ENT_QUOTES | ENT_SUBSTITUTE, 'UTF-8');
    $out = '<?xml version="1.0" encoding="UTF-8"?>' . "\n"
        . '<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/"'
        . ' xmlns:atom="http://www.w3.org/2005/Atom" xmlns:slash="http://purl.org/rss/1.0/modules/slash/">' . "\n<channel>\n"
        . '<title>' . $x(BLOG_NAME) . "</title>\n"
        . '<atom:link href="' . $x(home_url('/feed/')) . '" rel="self" type="application/rss+xml"/>' . "\n"
        . '<link>' . $x(home_url('/')) . "</link>\n"
        . '<description>' . $x(BLOG_DESCRIPTION) . "</description>\n"
        . '<lastBuildDate>' . format_rfc2822(last_modified() ?: '2019-01-01 00:00:00') . "</lastBuildDate>\n"
        . "<language>en-US</language>\n<generator>cgisnap sample blog " . BLOG_VERSION . "</generator>\n";
    foreach (latest_posts(0, FEED_ITEMS) as $post) {
        $id = (int) $post['id'];
        $url = post_url($post);
        $out .= "<item>\n<title>" . $x($post['title']) . "</title>\n"
            . '<link>' . $x($url) . "</link>\n"
            . '<comments>' . $x($url . '#comments') . "</comments>\n"
            . '<dc:creator>' . $cdata($post['author']) . "</dc:creator>\n"
            . '<pubDate>' . format_rfc2822($post['published_at']) . "</pubDate>\n";
        foreach (post_tags($id) as $t) {
            $out .= '<category>' . $cdata($t['name']) . "</category>\n";
        }
        $out .= '<guid isPermaLink="false">' . $x(home_url('/?p=' . $id)) . "</guid>\n"
            . '<description>' . $cdata(post_excerpt($post['body'])) . "</description>\n"
            . '<content:encoded>' . $cdata(render_markup($post['body'])) . "</content:encoded>\n"
            . '<slash:comments>' . comment_count($id) . "</slash:comments>\n</item>\n";
    }
    return $out . "</channel>\n</rss>\n";
}
