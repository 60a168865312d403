<?php
// profiles/dokuwiki-sources.php - the dokuwiki profile's watch sources:
// run by 'cgisnap watch' (--source-command, in --root) with php-cli, it
// prints the wiki's pages, media and meta directories, one a line, found
// the way DokuWiki finds them: inc/preload.php (which may move DOKU_CONF,
// as Debian's package does to /etc/dokuwiki), the main configuration
// cascade (dokuwiki.php, local.php, local.protected.php), then savedir
// and the datadir/mediadir/metadir settings, relative to the root.
// Exit status 1, with a line on stderr, when a directory is missing.
define('DOKU_INC', getcwd() . '/');
// preload.php may look at the request (Debian's farm support does).
$_SERVER += ['SCRIPT_NAME' => '/doku.php', 'SCRIPT_FILENAME' => DOKU_INC . 'doku.php',
	     'HTTP_HOST' => 'localhost'];
if (is_file(DOKU_INC . 'inc/preload.php'))
	include DOKU_INC . 'inc/preload.php';
if (!defined('DOKU_CONF'))
	define('DOKU_CONF', DOKU_INC . 'conf/');
if (!isset($config_cascade))
	$config_cascade = [];
include DOKU_INC . 'inc/config_cascade.php';
$conf = [];
foreach (['default', 'local', 'protected'] as $kind)
	foreach ($config_cascade['main'][$kind] ?? [] as $file)
		if (is_file($file))
			include $file;
$savedir = $conf['savedir'] ?? './data';
$rc = 0;
foreach (['datadir' => 'pages', 'mediadir' => 'media', 'metadir' => 'meta'] as $key => $sub) {
	$path = empty($conf[$key]) ? "$savedir/$sub" : $conf[$key];
	if ($path[0] !== '/')
		$path = DOKU_INC . $path;
	$real = realpath($path);
	if ($real === false) {
		fwrite(STDERR, "DokuWiki's $key '$path' is missing\n");
		$rc = 1;
		continue;
	}
	echo $real, "\n";
}
exit($rc);
