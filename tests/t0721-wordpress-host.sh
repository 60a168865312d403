#!/usr/bin/env bash
# t0721-wordpress-host: the wordpress profile's helpers ask WordPress as a
# request to the site would. Debian's wp-config.php loads
# /etc/wordpress/config-HOST.php by HTTP_HOST: cgisnap sets HTTP_HOST to the
# site URL's host for the seed and source commands (t0712), and the site
# URL command, run before there is a site URL, takes the host of the one
# config-HOST.php there. A stand-in WordPress that loads its configuration
# as Debian's does (CGISNAP_WORDPRESS_ETC names the directory) keeps the
# test off the real /etc/wordpress, which t0700 checks is left alone.
. "$(dirname "$0")/lib.sh"

ROOT_WP=$TESTDIR/wp
ETC=$TESTDIR/etc
mkdir -p "$ROOT_WP/wp-includes" "$ETC"
printf '<?php\n$wp_version = "6.1";\n' >"$ROOT_WP/wp-includes/version.php"
cat >"$ROOT_WP/wp-load.php" <<'PHP'
<?php
// As Debian's wp-config.php: config-HOST.php, else config-default.php.
$etc = getenv('CGISNAP_WORDPRESS_ETC');
$host = strtolower(preg_replace('/:[0-9]+$/', '', $_SERVER['HTTP_HOST']));
$file = is_file("$etc/config-$host.php") ? "$etc/config-$host.php" : "$etc/config-default.php";
if (!is_file($file)) {
	echo "<p>Neither $etc/config-$host.php nor $etc/config-default.php could be found.</p>";
	exit;
}
require $file;
function get_option($name) { return $name === 'home' ? WP_HOME : false; }
PHP
siteurl() { (cd "$ROOT_WP" && env -u HTTP_HOST -u SERVER_NAME CGISNAP_WORDPRESS_ETC="$ETC" "$@" \
	php -f "$ROOT"/profiles/wordpress-siteurl.php 2>&1); }

try "the site URL command finds the blog of the one config-HOST.php"
printf '<?php define("WP_HOME", "http://blog.example.org");\n' >"$ETC/config-blog.example.org.php"
check_eq "http://blog.example.org/" "$(siteurl)" "the blog's address"
printf '<?php define("WP_HOME", "http://default.example");\n' >"$ETC/config-default.php"
check_eq "http://blog.example.org/" "$(siteurl)" "config-default.php is no blog of its own"

try "with several blogs, HTTP_HOST says which; without it, Debian's default"
printf '<?php define("WP_HOME", "http://other.example");\n' >"$ETC/config-other.example.php"
check_eq "http://default.example/" "$(siteurl)" "two blogs: the default configuration"
check_eq "http://other.example/" "$(siteurl HTTP_HOST=other.example)" "HTTP_HOST names one"
rm "$ETC/config-default.php"
out=$(siteurl)
check_match "$out" "^wordpress-siteurl.php: WordPress did not load: Neither .*config-localhost.php nor .*config-default.php could be found" \
	"none to pick and no default: WordPress's own words, on one line"

finish
