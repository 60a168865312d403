<?php
// profiles/wordpress-boot.php - the start the wordpress profile's helpers
// share (wordpress-siteurl.php, -archives.php, -sources.php): each is run
// by cgisnap with php-cli in --root, and asks WordPress one question.
//
// The caller's steps, at file scope: WordPress must be loaded there, since
// wp-config.php sets globals ($table_prefix) that a function would hide.
//
//     define('SHORTINIT', true);                // optional: the database layer only
//     require __DIR__ . '/wordpress-boot.php';  // sets $root, holds the output
//     require "$root/wp-load.php";
//     ... ask WordPress ...
//     wordpress_boot_done();                    // what loading printed goes to stderr
//
// It checks that the working directory holds a WordPress, and fills the
// request's $_SERVER from the environment: Debian's wp-config.php picks
// /etc/wordpress/config-HOST.php by HTTP_HOST (wordpress_boot_host below
// when none is set). Until wordpress_boot_done() it holds what
// WordPress prints: a wp_die() page while loading (no wp-config.php, "error
// establishing a database connection") ends the script, and is no answer,
// so its text goes to stderr as one line, "NAME: WordPress did not load:
// TEXT", and the exit status is 1. Nothing else ever reaches stdout, which
// is the helper's answer.

ini_set('display_errors', 'stderr');
$wordpress_boot_name = basename(get_included_files()[0]);
$wordpress_boot_loaded = false;
$root = getcwd();
if (!is_file("$root/wp-load.php") || !is_file("$root/wp-includes/version.php")) {
	fwrite(STDERR, "$wordpress_boot_name: no WordPress in '$root' (no wp-load.php)\n");
	exit(1);
}
// The host: cgisnap sets HTTP_HOST to the site URL's for --seed-command and
// --source-command. --site-url-command runs before there is one: then the
// one config-HOST.php under /etc/wordpress names it, as on a Debian server
// with one blog (CGISNAP_WORDPRESS_ETC: another directory, for the tests);
// with none or several, localhost, and Debian's config-default.php.
function wordpress_boot_host()
{
	$etc = getenv('CGISNAP_WORDPRESS_ETC') !== false ? getenv('CGISNAP_WORDPRESS_ETC') : '/etc/wordpress';
	$hosts = array();
	foreach ((array)glob("$etc/config-*.php") as $file) {
		$host = substr(basename($file), strlen('config-'), -strlen('.php'));
		if ($host !== 'default' && $host !== '')
			$hosts[] = $host;
	}
	return count($hosts) === 1 ? $hosts[0] : 'localhost';
}
if (getenv('HTTP_HOST') === false) {
	$host = wordpress_boot_host();
	putenv("HTTP_HOST=$host");
	putenv('SERVER_NAME=' . preg_replace('/:[0-9]+$/', '', $host));
}
foreach (array('HTTP_HOST' => 'localhost', 'SERVER_NAME' => 'localhost', 'REQUEST_URI' => '/',
	       'SERVER_PROTOCOL' => 'HTTP/1.1', 'REQUEST_METHOD' => 'GET') as $k => $v) {
	if (!isset($_SERVER[$k]))
		$_SERVER[$k] = getenv($k) !== false ? getenv($k) : $v;
}

register_shutdown_function(function () {
	if ($GLOBALS['wordpress_boot_loaded'])
		return;
	// The page's text: no head, style or script.
	$page = preg_replace('#<(head|style|script)\b.*?</\1>#si', '', (string)ob_get_clean());
	$page = trim(preg_replace('/\s+/', ' ', strip_tags($page)));
	fwrite(STDERR, $GLOBALS['wordpress_boot_name'] . ": WordPress did not load" .
		($page !== '' ? ': ' . substr($page, 0, 300) : '') . "\n");
	exit(1);
});
ob_start();

// wordpress_boot_done: WordPress answered; what it printed meanwhile (a
// notice, a plugin's noise) goes to stderr, and an exit is the helper's own.
function wordpress_boot_done()
{
	$noise = ob_get_clean();
	$GLOBALS['wordpress_boot_loaded'] = true;
	if ($noise !== '')
		fwrite(STDERR, $noise);
}
