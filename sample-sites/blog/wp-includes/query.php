<?php
/**
 * Data access: every read the templates need, as plain SQL.
 * Only posts with status 'publish' are visible anywhere on the site.
 */
defined('ABSPATH') || exit;

const POST_COLUMNS = 'p.id, p.slug, p.title, p.body, p.author, p.published_at, p.updated_at';

/** Site path of a post: /YYYY/MM/slug/ */
function post_path(array $post): string
{
    return '/' . substr($post['published_at'], 0, 4) . '/' . substr($post['published_at'], 5, 2)
        . '/' . $post['slug'] . '/';
}

/** Absolute permalink of a post. */
function post_url(array $post): string
{
    return home_url(post_path($post));
}

function count_published(): int
{
    return (int) db_value("SELECT COUNT(*) FROM posts WHERE status = 'publish'");
}

/** Newest-first page of all published posts. */
function latest_posts(int $offset, int $limit): array
{
    return db_all('SELECT ' . POST_COLUMNS . " FROM posts p WHERE p.status = 'publish'
        ORDER BY p.published_at DESC, p.id DESC LIMIT ? OFFSET ?", [$limit, $offset]);
}

function tag_by_slug(string $slug): ?array
{
    return db_row('SELECT id, slug, name FROM tags WHERE slug = ?', [$slug]);
}

function count_by_tag(int $tag_id): int
{
    return (int) db_value("SELECT COUNT(*) FROM posts p JOIN post_tags pt ON pt.post_id = p.id
        WHERE pt.tag_id = ? AND p.status = 'publish'", [$tag_id]);
}

function posts_by_tag(int $tag_id, int $offset, int $limit): array
{
    return db_all('SELECT ' . POST_COLUMNS . " FROM posts p JOIN post_tags pt ON pt.post_id = p.id
        WHERE pt.tag_id = ? AND p.status = 'publish'
        ORDER BY p.published_at DESC, p.id DESC LIMIT ? OFFSET ?", [$tag_id, $limit, $offset]);
}

/** $month is "YYYY-MM". */
function count_by_month(string $month): int
{
    return (int) db_value("SELECT COUNT(*) FROM posts
        WHERE status = 'publish' AND substr(published_at, 1, 7) = ?", [$month]);
}

function posts_by_month(string $month, int $offset, int $limit): array
{
    return db_all('SELECT ' . POST_COLUMNS . " FROM posts p
        WHERE p.status = 'publish' AND substr(p.published_at, 1, 7) = ?
        ORDER BY p.published_at DESC, p.id DESC LIMIT ? OFFSET ?", [$month, $limit, $offset]);
}

function post_by_slug(string $slug): ?array
{
    return db_row('SELECT ' . POST_COLUMNS . " FROM posts p WHERE p.slug = ? AND p.status = 'publish'", [$slug]);
}

function post_by_id(int $id): ?array
{
    return db_row('SELECT ' . POST_COLUMNS . " FROM posts p WHERE p.id = ? AND p.status = 'publish'", [$id]);
}

/**
 * The published post just before ($older = true) or after a post in
 * date order; ties on the timestamp are broken by id.
 */
function adjacent_post(array $post, bool $older): ?array
{
    $cmp   = $older ? '<' : '>';
    $order = $older ? 'DESC' : 'ASC';
    return db_row('SELECT ' . POST_COLUMNS . " FROM posts p WHERE p.status = 'publish'
        AND (p.published_at $cmp ? OR (p.published_at = ? AND p.id $cmp ?))
        ORDER BY p.published_at $order, p.id $order LIMIT 1",
        [$post['published_at'], $post['published_at'], $post['id']]);
}

function post_tags(int $post_id): array
{
    return db_all('SELECT t.id, t.slug, t.name FROM tags t JOIN post_tags pt ON pt.tag_id = t.id
        WHERE pt.post_id = ? ORDER BY t.name', [$post_id]);
}

function comment_count(int $post_id): int
{
    return (int) db_value('SELECT COUNT(*) FROM comments WHERE post_id = ? AND approved = 1', [$post_id]);
}

/**
 * Up to $n published posts sharing the most tags with a post (newest
 * first among equals), for the "Related posts" box.
 */
function related_posts(int $post_id, int $n): array
{
    return db_all("SELECT p.id, p.slug, p.title, p.published_at, COUNT(*) AS shared
        FROM post_tags a JOIN post_tags b ON b.tag_id = a.tag_id AND b.post_id <> a.post_id
        JOIN posts p ON p.id = b.post_id AND p.status = 'publish'
        WHERE a.post_id = ? GROUP BY p.id ORDER BY shared DESC, p.published_at DESC, p.id DESC LIMIT ?",
        [$post_id, $n]);
}

/** Approved comments of a post, oldest first. */
function post_comments(int $post_id): array
{
    return db_all('SELECT id, parent_id, author, author_url, body, created_at FROM comments
        WHERE post_id = ? AND approved = 1 ORDER BY created_at, id', [$post_id]);
}

function comment_by_id(int $id): ?array
{
    return db_row('SELECT id, post_id, author FROM comments WHERE id = ? AND approved = 1', [$id]);
}

/** Tags that have published posts, alphabetically, with their counts. */
function tag_cloud(): array
{
    return db_all("SELECT t.slug, t.name, COUNT(*) AS n FROM tags t
        JOIN post_tags pt ON pt.tag_id = t.id JOIN posts p ON p.id = pt.post_id
        WHERE p.status = 'publish' GROUP BY t.id ORDER BY t.name");
}

/** Months with published posts, newest first: [["month" => "2025-03", "n" => 7], ...] */
function month_archive(): array
{
    return db_all("SELECT substr(published_at, 1, 7) AS month, COUNT(*) AS n FROM posts
        WHERE status = 'publish' GROUP BY month ORDER BY month DESC");
}

/** Newest published posts (id, slug, title, date only). */
function recent_posts(int $n): array
{
    return db_all("SELECT id, slug, title, published_at FROM posts WHERE status = 'publish'
        ORDER BY published_at DESC, id DESC LIMIT ?", [$n]);
}

/** Simple LIKE search over titles and bodies, newest first. */
function search_posts(string $term, int $limit): array
{
    $like = '%' . strtr($term, ['\\' => '\\\\', '%' => '\%', '_' => '\_']) . '%';
    return db_all('SELECT ' . POST_COLUMNS . " FROM posts p WHERE p.status = 'publish'
        AND (p.title LIKE ? ESCAPE '\\' OR p.body LIKE ? ESCAPE '\\')
        ORDER BY p.published_at DESC, p.id DESC LIMIT ?", [$like, $like, $limit]);
}

/** Latest modification time of published content (for the feed). */
function last_modified(): string
{
    return (string) db_value("SELECT MAX(updated_at) FROM posts WHERE status = 'publish'");
}
