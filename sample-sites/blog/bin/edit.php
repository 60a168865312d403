<?php
/**
 * Change the blog's database from the command line (for tests that need
 * the site to change under a watcher).
 *
 *   php bin/edit.php [--dir BLOGDIR] --post ID [changes...]
 *   php bin/edit.php [--dir BLOGDIR] --new --title T [--body TEXT] [--date D] [--tags a,b]
 *
 * Changes for --post:
 *   --title TEXT          new title (the slug, hence the URL, stays)
 *   --slug SLUG           new slug (the post moves; the old URL becomes 404)
 *   --body TEXT | --body-file FILE   replace the body (light markup)
 *   --append TEXT         add a paragraph at the end of the body
 *   --date "YYYY-MM-DD HH:MM:SS"    new publication date (moves the post)
 *   --status publish|draft          drafts vanish from every page
 *   --add-tag SLUG / --remove-tag SLUG   (repeatable; the tag must exist)
 *   --add-comment TEXT [--author NAME]   add an approved comment
 *   --delete              delete the post with its tags and comments
 *
 * Prints "ID PATH" of the post afterwards (PATH like /2025/03/slug/), and
 * "was OLDPATH" first when the change moved it. Exit status 2 on errors.
 * Each run is one SQLite transaction (rollback journal next to the DB).
 */
if (PHP_SAPI !== 'cli') {
    exit;
}

function fail(string $msg): never
{
    fwrite(STDERR, "edit.php: $msg\n");
    exit(2);
}

// ------------------------------------------------------------- arguments
$flags = ['new' => false, 'delete' => false];
$single = ['dir', 'post', 'title', 'slug', 'body', 'body-file', 'append', 'date', 'status', 'tags', 'add-comment', 'author'];
$o = ['add-tag' => [], 'remove-tag' => []];
for ($i = 1; $i < $argc; $i++) {
    if (!preg_match('/^--([a-z-]+)(?:=(.*))?$/s', $argv[$i], $m)) {
        fail("unexpected argument: {$argv[$i]}");
    }
    $name = $m[1];
    if (isset($flags[$name])) {
        $flags[$name] = true;
        continue;
    }
    if (!in_array($name, $single, true) && !isset($o[$name])) {
        fail("unknown option --$name (see the comment at the top of bin/edit.php)");
    }
    $value = isset($m[2]) ? $m[2] : ($argv[++$i] ?? fail("missing value for --$name"));
    if (is_array($o[$name] ?? null)) {
        $o[$name][] = $value;          // repeatable option
    } else {
        $o[$name] = $value;
    }
}

define('ABSPATH', rtrim($o['dir'] ?? dirname(__DIR__), '/') . '/');
require __DIR__ . '/../wp-includes/load.php';

$db = new PDO('sqlite:' . (is_file(blog_db_path()) ? blog_db_path() : fail('no database at ' . blog_db_path())), null, null, [
    PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION,
    PDO::ATTR_DEFAULT_FETCH_MODE => PDO::FETCH_ASSOC,
    PDO::ATTR_TIMEOUT => 5,
]);
$db->exec('PRAGMA foreign_keys = ON');

$now = gmdate('Y-m-d H:i:s');
if (isset($o['date']) && !preg_match('/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/', $o['date'])) {
    fail('--date must be "YYYY-MM-DD HH:MM:SS"');
}
if (isset($o['status']) && !in_array($o['status'], ['publish', 'draft'], true)) {
    fail('--status must be publish or draft');
}
if (isset($o['body-file'])) {
    $o['body'] = @file_get_contents($o['body-file']);
    if ($o['body'] === false) {
        fail("cannot read {$o['body-file']}");
    }
}

function post_path_of(array $p): string
{
    return '/' . substr($p['published_at'], 0, 4) . '/' . substr($p['published_at'], 5, 2) . '/' . $p['slug'] . '/';
}

function load_post(PDO $db, int $id): array
{
    $st = $db->prepare('SELECT * FROM posts WHERE id = ?');
    $st->execute([$id]);
    return $st->fetch() ?: fail("no post with id $id");
}

function tag_id(PDO $db, string $slug): int
{
    $st = $db->prepare('SELECT id FROM tags WHERE slug = ?');
    $st->execute([$slug]);
    return (int) ($st->fetchColumn() ?: fail("no tag '$slug'"));
}

function unique_slug(PDO $db, string $slug, int $except): string
{
    $slug = slugify($slug) ?: fail('empty slug');
    $st = $db->prepare('SELECT 1 FROM posts WHERE slug = ? AND id <> ?');
    for ($base = $slug, $k = 2; $st->execute([$slug, $except]) && $st->fetchColumn(); $k++) {
        $slug = "$base-$k";
    }
    return $slug;
}

$db->beginTransaction();

if ($flags['new']) {
    if (!isset($o['title'])) {
        fail('--new needs --title');
    }
    $date = $o['date'] ?? $now;
    $db->prepare("INSERT INTO posts (slug, title, body, author, status, published_at, updated_at)
        VALUES (?, ?, ?, 'admin', ?, ?, ?)")
        ->execute([unique_slug($db, $o['title'], 0), $o['title'], $o['body'] ?? 'A new post.', $o['status'] ?? 'publish', $date, $now]);
    $id = (int) $db->lastInsertId();
    foreach (array_filter(explode(',', $o['tags'] ?? '')) as $slug) {
        $db->prepare('INSERT OR IGNORE INTO post_tags (post_id, tag_id) VALUES (?, ?)')->execute([$id, tag_id($db, trim($slug))]);
    }
} else {
    if (!isset($o['post']) || !ctype_digit($o['post'])) {
        fail('need --post ID or --new');
    }
    $id = (int) $o['post'];
    $before = load_post($db, $id);

    if ($flags['delete']) {
        $db->prepare('DELETE FROM comments WHERE post_id = ?')->execute([$id]);
        $db->prepare('DELETE FROM post_tags WHERE post_id = ?')->execute([$id]);
        $db->prepare('DELETE FROM posts WHERE id = ?')->execute([$id]);
        $db->commit();
        echo "deleted $id " . post_path_of($before) . "\n";
        exit(0);
    }

    $set = [];
    if (isset($o['title'])) {
        $set['title'] = $o['title'];
    }
    if (isset($o['slug'])) {
        $set['slug'] = unique_slug($db, $o['slug'], $id);
    }
    if (isset($o['body'])) {
        $set['body'] = $o['body'];
    }
    if (isset($o['append'])) {
        $set['body'] = ($set['body'] ?? $before['body']) . "\n\n" . $o['append'];
    }
    if (isset($o['date'])) {
        $set['published_at'] = $o['date'];
    }
    if (isset($o['status'])) {
        $set['status'] = $o['status'];
    }
    $set['updated_at'] = $now;
    $cols = implode(', ', array_map(static fn($c) => "$c = ?", array_keys($set)));
    $db->prepare("UPDATE posts SET $cols WHERE id = ?")->execute([...array_values($set), $id]);

    foreach ($o['add-tag'] as $slug) {
        $db->prepare('INSERT OR IGNORE INTO post_tags (post_id, tag_id) VALUES (?, ?)')->execute([$id, tag_id($db, $slug)]);
    }
    foreach ($o['remove-tag'] as $slug) {
        $db->prepare('DELETE FROM post_tags WHERE post_id = ? AND tag_id = ?')->execute([$id, tag_id($db, $slug)]);
    }
    if (isset($o['add-comment'])) {
        $author = $o['author'] ?? 'Tester';
        $db->prepare("INSERT INTO comments (post_id, parent_id, author, author_email, author_url, body, created_at)
            VALUES (?, NULL, ?, ?, '', ?, ?)")
            ->execute([$id, $author, strtolower(slugify($author)) . '@example.net', $o['add-comment'], $now]);
    }
}

$db->commit();
$after = load_post($db, $id);
if (isset($before) && post_path_of($before) !== post_path_of($after)) {
    echo 'was ' . post_path_of($before) . "\n";
}
echo $id . ' ' . post_path_of($after) . "\n";
