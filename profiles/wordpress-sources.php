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
// request's host: HTTP_HOST in the environment says which (cgisnap sets
// the site URL's). Exit status 1, with a line on stderr, when WordPress does not
// load or a directory is missing.

define('SHORTINIT', true);
require __DIR__ . '/wordpress-boot.php';
require "$root/wp-load.php";
wordpress_boot_done();

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
	    basename($real) === 'wordpress-sources.php' || basename($real) === 'wordpress-boot.php')
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
