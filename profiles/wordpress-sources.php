<?php
// profiles/wordpress-sources.php - the wordpress profile's watch sources:
// run by 'cgisnap watch' (--source-command, php-cli, in --root), it prints
// what a WordPress site's pages are made of besides its database, one path
// a line: the content directory (WP_CONTENT_DIR: themes, plugins,
// must-use plugins, uploads; Debian's package moves it to
// /var/lib/wordpress/wp-content), the plugin directories when
// wp-config.php puts them elsewhere (WP_PLUGIN_DIR, WPMU_PLUGIN_DIR), and
// the configuration files loaded (wp-config.php and what it includes, such
// as Debian's /etc/wordpress/config-HOST.php). The database's changes
// reach watch through 'cgisnap notify' (profiles/wordpress-mu-plugin.php).
//
// Only the configuration and the database layer are loaded (SHORTINIT): no
// plugin or theme runs. Debian's wp-config.php picks its file by the
// request's host: HTTP_HOST in the environment says which; default
// localhost. Exit status 1, with a line on stderr, when WordPress does not
// load or a directory is missing.

ini_set('display_errors', 'stderr');
$root = getcwd();
if (!is_file("$root/wp-load.php") || !is_file("$root/wp-includes/version.php")) {
	fwrite(STDERR, "wordpress-sources.php: no WordPress in '$root' (no wp-load.php)\n");
	exit(1);
}
foreach (array('HTTP_HOST' => 'localhost', 'SERVER_NAME' => 'localhost', 'REQUEST_URI' => '/',
	       'SERVER_PROTOCOL' => 'HTTP/1.1', 'REQUEST_METHOD' => 'GET') as $k => $v) {
	if (!isset($_SERVER[$k]))
		$_SERVER[$k] = getenv($k) !== false ? getenv($k) : $v;
}
$done = false;
register_shutdown_function(function () use (&$done) {
	if ($done)
		return;
	$page = preg_replace('#<(head|style|script)\b.*?</\1>#si', '', (string)ob_get_clean());
	$page = trim(preg_replace('/\s+/', ' ', strip_tags($page)));
	fwrite(STDERR, "wordpress-sources.php: WordPress did not load" .
		($page !== '' ? ': ' . substr($page, 0, 300) : '') . "\n");
	exit(1);
});
define('SHORTINIT', true);
ob_start();
require "$root/wp-load.php";
$noise = ob_get_clean();
$done = true;
if ($noise !== '')
	fwrite(STDERR, $noise);

$content = WP_CONTENT_DIR;
$dirs = array($content);
foreach (array('WP_PLUGIN_DIR', 'WPMU_PLUGIN_DIR') as $c)
	if (defined($c))
		$dirs[] = constant($c);
$paths = array();
$rc = 0;
foreach ($dirs as $d) {
	$real = realpath($d);
	if ($real === false) {
		// A plugin directory that is not there has no plugins to watch.
		if ($d === $content) {
			fwrite(STDERR, "wordpress-sources.php: WordPress's content directory '$d' is missing\n");
			$rc = 1;
		}
		continue;
	}
	$paths[$real] = true;
}
// The configuration: wp-config.php and every file it loaded outside
// WordPress's own code.
$code = array(realpath("$root/wp-includes"), realpath("$root/wp-admin"));
foreach (get_included_files() as $f) {
	$real = realpath($f);
	if ($real === false || basename($real) === 'wp-load.php' || basename($real) === 'wp-settings.php' ||
	    basename($real) === 'wordpress-sources.php')
		continue;
	foreach ($code as $c)
		if ($c !== false && strpos($real, "$c/") === 0)
			continue 2;
	foreach (array_keys($paths) as $d)
		if (strpos($real, "$d/") === 0)
			continue 2;
	$paths[$real] = true;
}
foreach (array_keys($paths) as $p)
	echo $p, "\n";
exit($rc);
