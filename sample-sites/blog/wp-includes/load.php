<?php
/**
 * Bootstrap shared by the front controller and the bin/ tools:
 * configuration, database access and small helpers.
 */
defined('ABSPATH') || exit;

date_default_timezone_set('UTC');

const BLOG_VERSION   = '1.0';
const POSTS_PER_PAGE = 10;
const FEED_ITEMS     = 20;
const THEME_DIR      = 'wp-content/themes/plain';

/** Path of the SQLite database inside a blog directory. */
function blog_db_path(string $dir = ABSPATH): string
{
    return rtrim($dir, '/') . '/wp-content/database.sqlite';
}

/**
 * Load wp-config.php (written by bin/seed.php) and fill in defaults for
 * anything it does not define, so the site also runs without it.
 */
function blog_load_config(): void
{
    if (is_file(ABSPATH . 'wp-config.php')) {
        require_once ABSPATH . 'wp-config.php';
    }
    defined('WP_HOME')          || define('WP_HOME', 'http://localhost:8080');
    defined('BLOG_NAME')        || define('BLOG_NAME', 'Plain Notes');
    defined('BLOG_DESCRIPTION') || define('BLOG_DESCRIPTION', 'Notes on building and running small web things');
}

/**
 * The absolute site URL without trailing slash. BLOG_SITE_URL in the
 * environment wins over wp-config.php so one seeded copy can be served
 * under any origin.
 */
function site_url(): string
{
    static $url = null;
    if ($url === null) {
        $env = getenv('BLOG_SITE_URL');
        $url = rtrim(($env !== false && $env !== '') ? $env : WP_HOME, '/');
    }
    return $url;
}

/** Absolute URL of a site path ("/tag/php/" -> "http://host/tag/php/"). */
function home_url(string $path = '/'): string
{
    return site_url() . $path;
}

/**
 * Open the database. Page renders open it read-only: a read in SQLite's
 * default rollback-journal mode writes nothing, so serving pages never
 * touches files under the site directory (a file watcher sees only the
 * writes made by bin/ tools and comment posts).
 */
function db(bool $writable = false): PDO
{
    static $handles = [];
    $key = $writable ? 'rw' : 'ro';
    if (!isset($handles[$key])) {
        $file = blog_db_path();
        if (!is_file($file)) {
            throw new RuntimeException("database missing: $file (run php bin/seed.php)");
        }
        $handles[$key] = new PDO('sqlite:' . $file, null, null, [
            PDO::ATTR_ERRMODE            => PDO::ERRMODE_EXCEPTION,
            PDO::ATTR_DEFAULT_FETCH_MODE => PDO::FETCH_ASSOC,
            PDO::ATTR_TIMEOUT            => 5,   // wait for a concurrent writer
            PDO::SQLITE_ATTR_OPEN_FLAGS  => $writable
                ? PDO::SQLITE_OPEN_READWRITE
                : PDO::SQLITE_OPEN_READONLY,
        ]);
    }
    return $handles[$key];
}

/** Run a prepared query and return all rows. */
function db_all(string $sql, array $args = [], bool $writable = false): array
{
    $st = db($writable)->prepare($sql);
    $st->execute($args);
    return $st->fetchAll();
}

/** Run a prepared query and return the first row or null. */
function db_row(string $sql, array $args = []): ?array
{
    $st = db()->prepare($sql);
    $st->execute($args);
    $row = $st->fetch();
    return $row === false ? null : $row;
}

/** Run a prepared query and return the first column of the first row. */
function db_value(string $sql, array $args = [])
{
    $st = db()->prepare($sql);
    $st->execute($args);
    return $st->fetchColumn();
}

/** HTML-escape text for element content and attribute values. */
function esc(string $s): string
{
    return htmlspecialchars($s, ENT_QUOTES | ENT_SUBSTITUTE | ENT_HTML5, 'UTF-8');
}

/** Lowercase ASCII slug: "Notes on C11!" -> "notes-on-c11". */
function slugify(string $s): string
{
    $s = strtolower(trim($s));
    $s = preg_replace('/[^a-z0-9]+/', '-', $s);
    return trim($s, '-');
}
