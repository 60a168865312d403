<?php
/**
 * Request handling: maps REQUEST_URI to a page, a redirect or a 404.
 *
 *   /                           home, page 1          /page/N/          older posts
 *   /YYYY/MM/slug/              single post           /feed/            RSS 2.0
 *   /tag/NAME/[page/N/]         tag archive           /YYYY/MM/[page/N/] month archive
 *   /?p=ID                      301 to the post's pretty URL
 *   /?s=term                    search results
 *   POST /wp-comments-post.php  add a comment, 302 back to the post
 * A path without trailing slash whose slash form is a page answers 301 to
 * it; /page/1/ forms answer 301 to the list's first page; everything else
 * is a 404 with the normal layout.
 */
defined('ABSPATH') || exit;

/** Entry point for one request. */
function blog_main(): void
{
    blog_load_config();
    start_session();
    // Replaces the Cache-Control that session_cache_limiter('nocache') set;
    // its Expires and Pragma headers stay.
    header('Cache-Control: no-cache');

    $uri = (string) ($_SERVER['REQUEST_URI'] ?? '/');
    [$raw_path, $qs] = array_pad(explode('?', $uri, 2), 2, '');
    $path = rawurldecode($raw_path === '' ? '/' : $raw_path);
    // php-cgi fills $_GET from QUERY_STRING; fall back to REQUEST_URI's
    // query for runners that only set the latter.
    $query = $_GET;
    if (!$query && $qs !== '') {
        parse_str($qs, $query);
    }

    try {
        dispatch($path, $qs, $query, strtoupper((string) ($_SERVER['REQUEST_METHOD'] ?? 'GET')));
    } catch (PDOException | RuntimeException $e) {
        error_log('blog: ' . $e->getMessage());
        send_html('<!DOCTYPE html><html><head><meta charset="UTF-8"><title>Database Error</title></head>'
            . '<body><h1>Error establishing a database connection</h1></body></html>', 500);
    }
}

/**
 * Use the session directory from BLOG_SESSION_DIR when given, else PHP's
 * configured one, else the temp dir (so an unwritable default does not
 * break every page). Each first visit writes one (empty) session file.
 */
function start_session(): void
{
    $dir = getenv('BLOG_SESSION_DIR');
    if ($dir !== false && $dir !== '') {
        is_dir($dir) || @mkdir($dir, 0700, true);
        session_save_path($dir);
    } else {
        // session.save_path may be "N;MODE;/dir": the directory is the last part.
        $parts = explode(';', session_save_path());
        $configured = end($parts);
        if ($configured === '' || !is_dir($configured) || !is_writable($configured)) {
            session_save_path(sys_get_temp_dir());
        }
    }
    session_start();
}

function send_html(string $html, int $status = 200): void
{
    http_response_code($status);
    header('Content-Type: text/html; charset=UTF-8');
    echo $html;
}

/** Permanent (or other) redirect to an absolute URL, empty body. */
function redirect(string $url, int $status = 301): void
{
    http_response_code($status);
    header('Content-Type: text/html; charset=UTF-8');
    header('Location: ' . $url);
}

function dispatch(string $path, string $qs, array $query, string $method): void
{
    if ($path === '/wp-comments-post.php') {
        if ($method !== 'POST') {
            header('Allow: POST');
            send_html(render_not_found(), 405);
            return;
        }
        handle_comment_post();
        return;
    }
    if ($path === '/index.php') {
        redirect(home_url('/') . ($qs !== '' ? '?' . $qs : ''));
        return;
    }
    if ($path === '/' && isset($query['p'])) {
        // Legacy ?p=ID links (old posts still contain them).
        $p = is_string($query['p']) && ctype_digit($query['p']) ? post_by_id((int) $query['p']) : null;
        $p ? redirect(post_url($p)) : send_html(render_not_found(), 404);
        return;
    }
    if ($path === '/' && isset($query['s'])) {
        send_html(render_search(is_string($query['s']) ? trim($query['s']) : ''));
        return;
    }

    $route = resolve($path);
    if ($route === null && !str_ends_with($path, '/')) {
        // WordPress canonical redirect: add the missing trailing slash,
        // but only where that leads to a page.
        $slashed = resolve($path . '/');
        if ($slashed !== null && $slashed[0] !== 'redirect') {
            $route = ['redirect', home_url($path . '/') . ($qs !== '' ? '?' . $qs : '')];
        }
    }
    if ($route === null) {
        send_html(render_not_found(), 404);
        return;
    }

    switch ($route[0]) {
        case 'redirect':
            redirect($route[1]);
            return;
        case 'feed':
            header('Content-Type: application/rss+xml; charset=UTF-8');
            echo render_feed();
            return;
        case 'single':
            $reply_to = null;
            if (isset($query['replytocom']) && is_string($query['replytocom']) && ctype_digit($query['replytocom'])) {
                $c = comment_by_id((int) $query['replytocom']);
                $reply_to = ($c && (int) $c['post_id'] === (int) $route[1]['id']) ? $c : null;
            }
            send_html(render_single($route[1], $reply_to));
            return;
        case 'list':
            [, $title, $heading, $class, $base, $page, $pages, $posts] = $route;
            send_html(render_list_page($title, $heading, $class, $posts, $base, $page, $pages));
            return;
    }
}

/**
 * Resolve a decoded path. Returns null (404), ['redirect', url],
 * ['feed'], ['single', post] or
 * ['list', title, heading-html, body-class, base path, page, pages, posts].
 * Lookups hit the database so that "is this a page" is answered for real:
 * unknown slugs, empty tags/months and out-of-range pages are null.
 */
function resolve(string $path): ?array
{
    if ($path === '/feed/') {
        return ['feed'];
    }
    if (preg_match('~^/(?:page/(\d+)/)?$~', $path, $m)) {
        return paged_list('/', $m[1] ?? '', count_published(),
            static fn($off) => latest_posts($off, POSTS_PER_PAGE),
            '', '', 'home blog');
    }
    if (preg_match('~^/tag/([a-z0-9-]+)/(?:page/(\d+)/)?$~', $path, $m)) {
        $tag = tag_by_slug($m[1]);
        if (!$tag) {
            return null;
        }
        return paged_list('/tag/' . $tag['slug'] . '/', $m[2] ?? '', count_by_tag((int) $tag['id']),
            static fn($off) => posts_by_tag((int) $tag['id'], $off, POSTS_PER_PAGE),
            $tag['name'], 'Tag: <span>' . esc($tag['name']) . '</span>', 'archive tag tag-' . $tag['slug']);
    }
    if (preg_match('~^/(\d{4})/(\d{2})/(?:page/(\d+)/)?$~', $path, $m)) {
        $month = $m[1] . '-' . $m[2];
        return paged_list("/$m[1]/$m[2]/", $m[3] ?? '', count_by_month($month),
            static fn($off) => posts_by_month($month, $off, POSTS_PER_PAGE),
            format_month($month), 'Month: <span>' . format_month($month) . '</span>', 'archive date');
    }
    if (preg_match('~^/(\d{4})/(\d{2})/([a-z0-9-]+)/$~', $path, $m)) {
        $post = post_by_slug($m[3]);
        if (!$post) {
            return null;
        }
        // Right slug, wrong date part: redirect to the canonical URL.
        if (post_path($post) !== $path) {
            return ['redirect', post_url($post)];
        }
        return ['single', $post];
    }
    return null;
}

/**
 * A paged list. $page_str is the N of ".../page/N/" ('' for the first
 * page). Lists with no posts do not exist, except the home page.
 */
function paged_list(string $base, string $page_str, int $total, callable $fetch,
                    string $title, string $heading, string $class): ?array
{
    if ($total === 0 && $base !== '/') {
        return null;
    }
    $pages = max(1, (int) ceil($total / POSTS_PER_PAGE));
    if ($page_str === '') {
        $page = 1;
    } else {
        $page = (int) $page_str;
        if ($page === 1 && $page_str === '1') {
            return ['redirect', home_url($base)];   // /page/1/ -> first page
        }
        if ($page < 2 || $page > $pages || $page_str[0] === '0') {
            return null;
        }
    }
    return ['list', $title, $heading, $class, $base, $page, $pages, $fetch(($page - 1) * POSTS_PER_PAGE)];
}

/** POST /wp-comments-post.php: store an approved comment, back to the post. */
function handle_comment_post(): void
{
    $post = ctype_digit((string) ($_POST['comment_post_ID'] ?? '')) ? post_by_id((int) $_POST['comment_post_ID']) : null;
    $body = trim((string) ($_POST['comment'] ?? ''));
    $author = trim((string) ($_POST['author'] ?? ''));
    $email = trim((string) ($_POST['email'] ?? ''));
    $url = trim((string) ($_POST['url'] ?? ''));
    $parent = (int) ($_POST['comment_parent'] ?? 0);

    if (!$post || $body === '' || $author === '' || strlen($body) > 65525 || strlen($author) > 245) {
        send_html(render_layout([
            'title' => 'Comment Submission Failure', 'body_class' => 'error',
            'head' => ['<meta name="robots" content="noindex">'],
            'main' => '<p><strong>Error:</strong> please type your name and a comment on an existing post.</p>',
        ]), 400);
        return;
    }
    if ($parent !== 0) {
        $c = comment_by_id($parent);
        $parent = ($c && (int) $c['post_id'] === (int) $post['id']) ? $parent : 0;
    }
    if (!preg_match('~^https?://[^\s"<>]+$~', $url)) {
        $url = '';
    }
    $db = db(true);
    $st = $db->prepare('INSERT INTO comments (post_id, parent_id, author, author_email, author_url, body, created_at, approved)
        VALUES (?, ?, ?, ?, ?, ?, ?, 1)');
    $st->execute([$post['id'], $parent ?: null, $author, $email, $url, $body, gmdate('Y-m-d H:i:s')]);
    $_SESSION['comment_author'] = $author;   // pre-fills the form next time
    redirect(post_url($post) . '#comment-' . $db->lastInsertId(), 302);
}
