<?php
// profiles/wordpress-siteurl.php - print a WordPress site's address, for
// the wordpress profile's --site-url-command: run by cgisnap (php-cli, in
// --root) when no --site-url is given, its one line taken as --site-url.
//
// The address is the 'home' option (Settings > General, "Site Address"),
// not 'siteurl' ("WordPress Address"): every link to a page of the site -
// permalinks, archives, feeds, the front page, ?p=N shortlinks - is built
// by home_url(); siteurl (site_url()) only names where WordPress's own
// files are: wp-includes/ and wp-content/ assets, wp-admin, wp-login.php.
// The two are the same URL unless WordPress was given its own directory,
// and the pages of a static copy are where home says. WP_HOME in
// wp-config.php overrides the option, as it does for WordPress.
//
// Only the database layer is loaded (SHORTINIT): no plugin or theme runs.
// Debian's wp-config.php picks /etc/wordpress/config-HOST.php by the
// request's host: HTTP_HOST in the environment says which; without it (this
// command runs before the site URL is known), the one config-HOST.php there,
// else "localhost" (then Debian's config-default.php): wordpress-boot.php.
//
// Prints the URL and exits 0, or says why on stderr and exits 1; nothing
// else ever reaches stdout.

define('SHORTINIT', true);
require __DIR__ . '/wordpress-boot.php';
require "$root/wp-load.php";
$home = get_option('home');
wordpress_boot_done();
if (!is_string($home) || $home === '') {
	fwrite(STDERR, "wordpress-siteurl.php: WordPress has no 'home' option (is it installed?)\n");
	exit(1);
}
// home has no final slash; the site is its directory (home_url('/')).
echo rtrim($home, '/'), "/\n";
