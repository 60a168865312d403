<?php
/**
 * Sample configuration. bin/seed.php writes wp-config.php next to this file
 * (git-ignored); when wp-config.php is missing the site uses the values
 * below as defaults, so copying this file is optional.
 *
 * WP_HOME is the absolute site URL (scheme://host[:port], no trailing
 * slash) every generated link starts with. The environment variable
 * BLOG_SITE_URL, when set and non-empty, overrides it at request time.
 */
define('WP_HOME', 'http://localhost:8080');
define('BLOG_NAME', 'Plain Notes');
define('BLOG_DESCRIPTION', 'Notes on building and running small web things');
