<?php
/**
 * Deterministic content generator for the sample blog.
 *
 *   php bin/seed.php [--posts N] [--site-url URL] [--dir BLOGDIR]
 *
 * Wipes and recreates BLOGDIR/wp-content/database.sqlite (posts, tags,
 * post_tags, comments), BLOGDIR/wp-content/uploads/ (PNG images) and
 * BLOGDIR/wp-config.php (site URL). The random generator has a fixed seed
 * and all dates are fixed (2019-01 .. 2025-12), so the same arguments
 * always produce the same content.
 */
if (PHP_SAPI !== 'cli') {
    exit;
}

// ---------------------------------------------------------------- options
$opts = ['posts' => 500, 'site-url' => 'http://localhost:8080', 'dir' => dirname(__DIR__)];
for ($i = 1; $i < $argc; $i++) {
    $arg = $argv[$i];
    if (preg_match('/^--(posts|site-url|dir)(?:=(.*))?$/', $arg, $m)) {
        $opts[$m[1]] = isset($m[2]) ? $m[2] : ($argv[++$i] ?? fail("missing value for --$m[1]"));
    } elseif ($arg === '-h' || $arg === '--help') {
        fwrite(STDOUT, "usage: php bin/seed.php [--posts N] [--site-url URL] [--dir BLOGDIR]\n");
        exit(0);
    } else {
        fail("unknown argument: $arg");
    }
}
if (!ctype_digit((string) $opts['posts']) || (int) $opts['posts'] < 1) {
    fail('--posts must be a positive integer');
}
$n_posts = (int) $opts['posts'];
$site_url = rtrim($opts['site-url'], '/');
if (!preg_match('~^https?://[A-Za-z0-9.\-\[\]:]+$~', $site_url)) {
    fail("--site-url must look like http://host[:port] (no path): $site_url");
}
$dir = rtrim($opts['dir'], '/');
if (!is_dir("$dir/wp-content")) {
    fail("not a blog directory (no wp-content/): $dir");
}

define('ABSPATH', $dir . '/');
require __DIR__ . '/../wp-includes/load.php';

function fail(string $msg): never
{
    fwrite(STDERR, "seed.php: $msg\n");
    exit(2);
}

$t0 = microtime(true);
mt_srand(20190101);

/** Uniform pick from a list. */
function pick(array $a)
{
    return $a[mt_rand(0, count($a) - 1)];
}

/** True with probability $p. */
function chance(float $p): bool
{
    return mt_rand(0, 999999) < $p * 1000000;
}

// ------------------------------------------------------------- word lists
const ADJECTIVES = ['small', 'fast', 'slow', 'static', 'dynamic', 'lazy', 'stale', 'fresh', 'quiet', 'broken',
    'hidden', 'simple', 'careful', 'boring', 'tiny', 'old', 'strange', 'reliable', 'forgotten', 'portable',
    'honest', 'noisy', 'sparse', 'frugal', 'patient', 'clumsy', 'elegant', 'stubborn', 'gentle', 'hungry'];
const NOUNS = ['caches', 'sockets', 'pipelines', 'compilers', 'databases', 'schedulers', 'kernels', 'allocators',
    'parsers', 'templates', 'buffers', 'queues', 'indexes', 'journals', 'checksums', 'signals', 'threads',
    'processes', 'locks', 'timers', 'crawlers', 'snapshots', 'redirects', 'headers', 'cookies', 'sessions',
    'feeds', 'archives', 'permalinks', 'sitemaps', 'proxies', 'routers', 'certificates', 'logs', 'metrics',
    'backups', 'migrations', 'shells', 'editors', 'terminals', 'fonts', 'layouts', 'grids', 'gardens',
    'bicycles', 'kitchens', 'trains', 'mountains', 'rivers', 'notebooks', 'cameras', 'maps', 'watchers',
    'inodes', 'daemons', 'benchmarks', 'patches', 'releases', 'packets', 'tables'];
const VERBS = ['caching', 'rewriting', 'measuring', 'debugging', 'serving', 'testing', 'shipping', 'refactoring',
    'profiling', 'tracing', 'replacing', 'building', 'watching', 'snapshotting', 'porting', 'tuning',
    'deleting', 'documenting', 'untangling', 'rethinking'];
const FILLER = ['the', 'a', 'every', 'some', 'our', 'that', 'this', 'one', 'no', 'each'];
const TITLE_FORMS = ['Notes on {A} {N}', '{V} {N} Without Tears', 'Why {N} Are {A}', 'A {A} Look at {N}',
    '{V} the {A} {N}', 'What I Learned {V} {N}', '{N}, {N} and {N}', 'The Case for {A} {N}',
    '{A} {N} in Practice', 'On {V} {N}', 'Lessons From {V} {N}', '{V} {N} With {N}',
    'Ten Years of {A} {N}', 'Field Notes: {N} and {N}', 'Against {A} {N}', 'Weekend Project: {V} {N}'];
const SENTENCE_FORMS = [
    'The {n} were {a} until we started {v} {f} {n}.',
    'I spent {f} afternoon {v} {n}, and it was {a}.',
    'Nobody expects {n} to be {a}, yet here we are.',
    "It's {a} how often {n} end up {v} {n}.",
    'We measured {f} {n} twice -- once before and once after {v} them.',
    'The "{a}" {n} turned out to be the {a} part...',
    'If your {n} feel {a}, try {v} the {n} first.',
    'There is a {a} lesson in {v} {n}: keep the {n} {a}.',
    "Don't underestimate {a} {n}; they outlive {f} {n}.",
    'After {v} {f} {n} we replaced 3x4 {n} with a single one.',
    'Most {n} are {a}, some are {a}, and a few are simply {a}.',
    '{V} {n} is {a} work, but {v} {n} is worse.',
];
const TAGS = [
    ['php', 'PHP'], ['sqlite', 'SQLite'], ['caching', 'Caching'], ['linux', 'Linux'], ['networking', 'Networking'],
    ['http', 'HTTP'], ['css', 'CSS'], ['javascript', 'JavaScript'], ['performance', 'Performance'],
    ['security', 'Security'], ['databases', 'Databases'], ['testing', 'Testing'], ['debugging', 'Debugging'],
    ['tooling', 'Tooling'], ['c', 'C'], ['rust', 'Rust'], ['python', 'Python'], ['shell', 'Shell'], ['git', 'Git'],
    ['containers', 'Containers'], ['inotify', 'inotify'], ['filesystems', 'Filesystems'], ['compilers', 'Compilers'],
    ['web-design', 'Web Design'], ['accessibility', 'Accessibility'], ['typography', 'Typography'],
    ['photography', 'Photography'], ['travel', 'Travel'], ['cooking', 'Cooking'], ['books', 'Books'],
];
const AUTHORS = ['admin', 'Jane Doe', 'Sam Rivera'];
const COMMENTERS = ['Alice', 'Bob', 'Carol', 'Dave', 'Erin', 'Frank', 'Grace', 'Heidi', 'Ivan', 'Judy',
    'Mallory', 'Niaj', 'Olivia', 'Peggy', 'Rupert', 'Sybil', 'Trent', 'Victor', 'Walter', 'Yasmin'];
const EXTERNAL = ['https://www.php.net/manual/en/', 'https://www.sqlite.org/lang.html',
    'https://en.wikipedia.org/wiki/Common_Gateway_Interface', 'https://example.org/notes/static-sites',
    'https://example.com/blog/2020/inotify-tricks', 'https://man7.org/linux/man-pages/man7/inotify.7.html'];

/** Fill a template: {A}/{N}/{V} capitalised, {a}/{n}/{v}/{f} lower case. */
function fill(string $form): string
{
    return preg_replace_callback('/\{([ANVanvf])\}/', static function ($m) {
        $word = match (strtolower($m[1])) {
            'a' => pick(ADJECTIVES), 'n' => pick(NOUNS), 'v' => pick(VERBS), 'f' => pick(FILLER),
        };
        return ctype_upper($m[1]) ? ucfirst($word) : $word;
    }, $form);
}

function sentence(): string
{
    if (chance(0.6)) {
        return fill(pick(SENTENCE_FORMS));
    }
    $words = [];
    for ($i = mt_rand(6, 14); $i > 0; $i--) {
        $words[] = fill(pick(['{a}', '{n}', '{v}', '{f}', '{f}', '{n}']));
    }
    return ucfirst(implode(' ', $words)) . '.';
}

// ----------------------------------------------------------------- posts
// Fixed date range; timestamps sorted so ids follow publication order.
$from = gmmktime(0, 0, 0, 1, 1, 2019);
$to = gmmktime(23, 59, 59, 12, 31, 2025);
$times = [];
for ($i = 0; $i < $n_posts; $i++) {
    $times[] = mt_rand($from, $to);
}
sort($times);

$posts = [];
$slugs = [];
foreach ($times as $i => $ts) {
    $title = fill(pick(TITLE_FORMS));
    $slug = $base = slugify($title);
    for ($k = 2; isset($slugs[$slug]); $k++) {
        $slug = "$base-$k";        // unique like wp_unique_post_slug()
    }
    $slugs[$slug] = true;
    $published = gmdate('Y-m-d H:i:s', $ts);
    $posts[] = [
        'id' => $i + 1, 'slug' => $slug, 'title' => $title,
        'author' => pick(AUTHORS), 'published_at' => $published,
        'updated_at' => chance(0.1) ? gmdate('Y-m-d H:i:s', $ts + mt_rand(3600, 30 * 86400)) : $published,
    ];
}

/** Markup link to another post, pretty or legacy ?p= form. */
function post_link(array $target): string
{
    $path = chance(0.4) ? '/?p=' . $target['id']
        : '/' . substr($target['published_at'], 0, 4) . '/' . substr($target['published_at'], 5, 2) . '/' . $target['slug'] . '/';
    return '[' . strtolower($target['title']) . "]($path)";
}

/** One paragraph with occasional inline markup and links. */
function paragraph(array $posts): string
{
    $out = [];
    for ($s = mt_rand(3, 7); $s > 0; $s--) {
        $sentence = sentence();
        $r = mt_rand(0, 99);
        if ($r < 8) {
            $sentence .= ' See also ' . post_link(pick($posts)) . '.';
        } elseif ($r < 12) {
            $sentence .= ' More in [the reference](' . pick(EXTERNAL) . ').';
        } elseif ($r < 14) {
            $sentence .= ' Background: ' . pick(EXTERNAL);
        } elseif ($r < 20) {
            $sentence = preg_replace('/\b(' . implode('|', NOUNS) . ')\b/', '`$1_' . pick(VERBS) . '()`', $sentence, 1);
        } elseif ($r < 26) {
            $sentence = preg_replace('/\b(' . implode('|', ADJECTIVES) . ')\b/', chance(0.5) ? '**$1**' : '*$1*', $sentence, 1);
        }
        $out[] = $sentence;
    }
    // A hard line break now and then (becomes <br>).
    return chance(0.1) ? implode("\n", $out) : implode(' ', $out);
}

$images = [];   // relative path => [w, h, colour1, colour2]

/** Body of a post: 3-8 paragraphs plus headings, lists, quotes, code, images. */
function body(array $post, array $posts, array &$images): string
{
    $blocks = [];
    $paragraphs = mt_rand(3, 8);
    $image_at = chance(0.18) ? mt_rand(0, $paragraphs - 1) : -1;
    for ($p = 0; $p < $paragraphs; $p++) {
        if ($p > 0 && chance(0.15)) {
            $blocks[] = '## ' . fill(pick(['{V} the {N}', 'Why {N}', 'More {A} {N}', 'The {A} Part']));
        }
        $blocks[] = paragraph($posts);
        if ($p === $image_at) {
            $blocks[] = image_shortcode($post, $images);
        }
        $r = mt_rand(0, 99);
        if ($r < 7) {
            $ordered = chance(0.5);
            $items = [];
            for ($k = 1, $count = mt_rand(3, 5); $k <= $count; $k++) {
                $items[] = ($ordered ? "$k. " : '- ') . fill('{V} {f} {a} {n}');
            }
            $blocks[] = implode("\n", $items);
        } elseif ($r < 11) {
            $blocks[] = '> ' . sentence() . "\n> -- " . pick(COMMENTERS);
        } elseif ($r < 15) {
            $fn = pick(VERBS) . '_' . pick(NOUNS);
            $blocks[] = "```" . pick(['php', 'c', 'sh']) . "\n$fn(\$x) {\n    return \$x < 3 && \$x > 1;\n\n}\n```";
        }
    }
    return implode("\n\n", $blocks);
}

/** An [image] shortcode for a new upload in the post's month. */
function image_shortcode(array $post, array &$images): string
{
    $month = substr($post['published_at'], 0, 4) . '/' . substr($post['published_at'], 5, 2);
    $name = $base = rtrim(pick(ADJECTIVES) . '-' . pick(NOUNS), 's');
    for ($k = 2; isset($images["$month/$name.png"]); $k++) {
        $name = "$base-$k";
    }
    $w = mt_rand(6, 24) * 10;
    $h = mt_rand(4, 18) * 10;
    $images["$month/$name.png"] = [$w, $h, [mt_rand(0, 255), mt_rand(0, 255), mt_rand(0, 255)],
        [mt_rand(0, 255), mt_rand(0, 255), mt_rand(0, 255)]];
    $caption = chance(0.6) ? ' caption="' . ucfirst(fill('{a} {n}, {v} {f} {n}')) . '"' : '';
    return "[image src=\"$month/$name.png\" width=\"$w\" height=\"$h\" alt=\"" . fill('{a} {n}') . "\"$caption]";
}

foreach ($posts as $i => $post) {
    $posts[$i]['body'] = body($post, $posts, $images);
}

// --------------------------------------------------------------- database
$final = blog_db_path($dir);
$tmp = dirname($final) . '/.database.sqlite.new';
@unlink($tmp);
$db = new PDO('sqlite:' . $tmp, null, null, [PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION]);
// Built in a scratch file and renamed into place, so no journaling needed.
$db->exec('PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;');
$db->exec(<<<'SQL'
CREATE TABLE posts (
    id           INTEGER PRIMARY KEY,
    slug         TEXT NOT NULL UNIQUE,
    title        TEXT NOT NULL,
    body         TEXT NOT NULL,              -- light markup, see wp-includes/formatting.php
    author       TEXT NOT NULL,
    status       TEXT NOT NULL DEFAULT 'publish',   -- 'publish' or 'draft'
    published_at TEXT NOT NULL,              -- 'YYYY-MM-DD HH:MM:SS', UTC
    updated_at   TEXT NOT NULL
);
CREATE INDEX posts_by_date ON posts (status, published_at);
CREATE TABLE tags (
    id   INTEGER PRIMARY KEY,
    slug TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL
);
CREATE TABLE post_tags (
    post_id INTEGER NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    tag_id  INTEGER NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
    PRIMARY KEY (post_id, tag_id)
);
CREATE INDEX post_tags_by_tag ON post_tags (tag_id);
CREATE TABLE comments (
    id           INTEGER PRIMARY KEY,
    post_id      INTEGER NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    parent_id    INTEGER REFERENCES comments (id),   -- NULL for top-level comments
    author       TEXT NOT NULL,
    author_email TEXT NOT NULL DEFAULT '',
    author_url   TEXT NOT NULL DEFAULT '',
    body         TEXT NOT NULL,              -- plain text
    created_at   TEXT NOT NULL,
    approved     INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX comments_by_post ON comments (post_id, approved);
SQL);

$db->beginTransaction();
$st = $db->prepare('INSERT INTO tags (id, slug, name) VALUES (?, ?, ?)');
foreach (TAGS as $k => [$slug, $name]) {
    $st->execute([$k + 1, $slug, $name]);
}
$st_post = $db->prepare('INSERT INTO posts (id, slug, title, body, author, status, published_at, updated_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
$st_tag = $db->prepare('INSERT INTO post_tags (post_id, tag_id) VALUES (?, ?)');
$st_comment = $db->prepare('INSERT INTO comments (id, post_id, parent_id, author, author_email, author_url, body, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
$comment_id = 0;
foreach ($posts as $post) {
    $st_post->execute([$post['id'], $post['slug'], $post['title'], $post['body'], $post['author'], 'publish',
        $post['published_at'], $post['updated_at']]);

    // 1-4 tags; squaring the random number favours the first tags so the
    // tag cloud has big and small entries.
    $tag_ids = [];
    for ($k = mt_rand(1, 4); $k > 0; $k--) {
        $tag_ids[1 + (int) (count(TAGS) * (mt_rand(0, 9999) / 10000) ** 2)] = true;
    }
    ksort($tag_ids);
    foreach (array_keys($tag_ids) as $tag_id) {
        $st_tag->execute([$post['id'], $tag_id]);
    }

    // 0-8 comments, some replying to an earlier comment of the same post.
    $ids = [];
    $when = strtotime($post['published_at'] . ' UTC');
    for ($k = mt_rand(0, 8); $k > 0; $k--) {
        $when += mt_rand(600, 5 * 86400);
        $who = pick(COMMENTERS);
        $text = [];
        for ($q = mt_rand(1, 3); $q > 0; $q--) {
            $text[] = sentence() . (chance(0.5) ? ' ' . sentence() : '') . (chance(0.05) ? ' ' . pick(EXTERNAL) : '');
        }
        $parent = ($ids && chance(0.25)) ? pick($ids) : null;
        $ids[] = ++$comment_id;
        $st_comment->execute([$comment_id, $post['id'], $parent, $who, strtolower($who) . '@example.net',
            chance(0.3) ? 'https://example.com/~' . strtolower($who) : '', implode("\n\n", $text),
            gmdate('Y-m-d H:i:s', $when)]);
    }
}
$db->commit();
$db = null;
rename($tmp, $final);

// ------------------------------------------------------------------ images
/** A valid RGB PNG: vertical gradient from $c1 to $c2 with a darker frame. */
function png(int $w, int $h, array $c1, array $c2): string
{
    $raw = '';
    $frame = pack('C3', ...array_map(static fn($v) => intdiv($v, 2), $c1));
    for ($y = 0; $y < $h; $y++) {
        $t = $h > 1 ? $y / ($h - 1) : 0;
        $px = pack('C3', ...array_map(static fn($a, $b) => (int) round($a + ($b - $a) * $t), $c1, $c2));
        $edge = $y < 2 || $y >= $h - 2;
        // Filter byte 0 (None) before each scanline.
        $raw .= "\0" . ($edge ? str_repeat($frame, $w) : $frame . $frame . str_repeat($px, $w - 4) . $frame . $frame);
    }
    $chunk = static fn(string $type, string $data) =>
        pack('N', strlen($data)) . $type . $data . pack('N', crc32($type . $data));
    return "\x89PNG\r\n\x1a\n"
        . $chunk('IHDR', pack('NNCCCCC', $w, $h, 8, 2, 0, 0, 0))   // 8-bit truecolour
        . $chunk('IDAT', gzcompress($raw, 9))
        . $chunk('IEND', '');
}

/** Remove a directory tree (only ever called on wp-content/uploads). */
function rmtree(string $path): void
{
    if (!is_dir($path)) {
        return;
    }
    foreach (new RecursiveIteratorIterator(new RecursiveDirectoryIterator($path, FilesystemIterator::SKIP_DOTS),
                 RecursiveIteratorIterator::CHILD_FIRST) as $f) {
        $f->isDir() ? rmdir($f->getPathname()) : unlink($f->getPathname());
    }
    rmdir($path);
}

$uploads = "$dir/wp-content/uploads";
rmtree($uploads);
foreach ($images as $rel => [$w, $h, $c1, $c2]) {
    $file = "$uploads/$rel";
    is_dir(dirname($file)) || mkdir(dirname($file), 0777, true);
    file_put_contents($file, png($w, $h, $c1, $c2));
    file_put_contents(substr($file, 0, -4) . '-2x.png', png(2 * $w, 2 * $h, $c1, $c2));
}

// ----------------------------------------------------------------- config
file_put_contents("$dir/wp-config.php", "<?php\n"
    . "// Written by bin/seed.php (see wp-config.sample.php). BLOG_SITE_URL in the\n"
    . "// environment overrides WP_HOME at request time.\n"
    . 'define(\'WP_HOME\', ' . var_export($site_url, true) . ");\n"
    . "define('BLOG_NAME', 'Plain Notes');\n"
    . "define('BLOG_DESCRIPTION', 'Notes on building and running small web things');\n");

printf("seeded %d posts, %d comments, %d images (+2x) into %s for %s in %.2fs\n",
    $n_posts, $comment_id, count($images), $dir, $site_url, microtime(true) - $t0);
