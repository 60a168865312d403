<?php
/**
 * Front controller of the sample blog. Every URL that is not a static file
 * arrives here with REQUEST_URI set to the original URL, either from a
 * CGI runner (php-cgi) or as the router script of `php -S`.
 */
define('ABSPATH', __DIR__ . '/');

if (PHP_SAPI === 'cli-server') {
    // Router mode: let the built-in server deliver existing static files
    // (CSS, JS, uploads). PHP sources, the database and dotfiles are never
    // served; those requests fall through to the 404 page.
    $p = rawurldecode((string) parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH));
    $file = realpath(__DIR__ . $p);
    if ($file !== false && is_file($file) && str_starts_with($file, __DIR__ . '/')
        && !preg_match('~(\.php|\.sqlite\S*|\.md)$|/\.|^/bin/~i', substr($file, strlen(__DIR__)))) {
        return false;
    }
}

require ABSPATH . 'wp-includes/load.php';
require ABSPATH . 'wp-includes/query.php';
require ABSPATH . 'wp-includes/formatting.php';
require ABSPATH . 'wp-includes/template.php';
require ABSPATH . 'wp-includes/router.php';

blog_main();
