#!/usr/bin/env bash
# t0386-apache-conf: --apache-conf FILE takes where the site's files are
# and how they run from the configuration Apache serves it with today: a
# vhost written in the form Debian's sites-available holds (DocumentRoot,
# Alias, ScriptAlias, DirectoryIndex, SetEnv, ServerName, PHP's handler)
# gives the same tree as the options, and names what it does not honour;
# the configurations Debian's MediaWiki and DokuWiki packages ship are
# read as they are. A page's stylesheets and images answering 404 are
# reported together at the end, with the Alias of Apache's own
# configuration that would serve them.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"

FIX=$ROOT/tests/fixtures/mounts
SITE=$TESTDIR/site
BIN=$TESTDIR/bin
LIB=$TESTDIR/lib
mkdir -p "$SITE" "$BIN"
cp -r "$FIX/lib" "$LIB"
cc -std=c11 -O0 -o "$BIN/tool" "$FIX/tool.c" || fail "cannot compile tests/fixtures/mounts/tool.c"
cat >"$SITE/index.php" <<'PHP'
<html><body><p>mode <?= getenv('SITE_MODE') ?> on <?= $_SERVER['SERVER_NAME'] ?></p>
<a href="/tool">the tool</a> <a href="/lib/">the library</a></body></html>
PHP
cat >"$TESTDIR/site.conf" <<CONF
# As Debian's sites-available/*.conf: one vhost.
<VirtualHost *:80>
	ServerName www.example.org
	DocumentRoot $SITE
	Alias /lib/ "$LIB/"
	ScriptAlias /tool $BIN/tool
	DirectoryIndex index.html index.php
	SetEnv SITE_MODE static
	<FilesMatch ".+\.ph(?:ar|p|tml)$">
		SetHandler application/x-httpd-php
	</FilesMatch>
	<Directory $SITE>
		Options FollowSymLinks
		AllowOverride None
		Require all granted
	</Directory>
	RewriteEngine on
	RewriteRule ^/old$ /new [R=301]
	ErrorLog \${APACHE_LOG_DIR}/error.log
</VirtualHost>
CONF

try "a vhost's DocumentRoot, mounts, index, environment, name and PHP handler are taken"
OUT=$TESTDIR/out
"$CGISNAP" snapshot --apache-conf "$TESTDIR/site.conf" "$OUT" 2>"$TESTDIR/err"
check_eq 0 $? "exit status ($(cat "$TESTDIR/err"))"
check_eq "cgisnap: --apache-conf $TESTDIR/site.conf: --root $SITE --path-alias /lib=$LIB/ --script-alias /tool=$BIN/tool --index index.html,index.php --env SITE_MODE=static --site-url http://www.example.org/ --cgi php=php-cgi" \
	"$(sed -n 1p "$TESTDIR/err")" "what it took"
check_eq "cgisnap: --apache-conf $TESTDIR/site.conf: not honoured: RewriteEngine (site.conf:17), RewriteRule (site.conf:18)" \
	"$(sed -n 2p "$TESTDIR/err")" "what it names"
check_contains "$(cat "$OUT/index.html" 2>/dev/null)" "mode static on www.example.org" \
	"the index page through PHP, SetEnv and ServerName"
for f in tool/index.html lib/index.html lib/hello.cgi lib/style.css; do
	check_file "$OUT/$f"
done

try "the options win over the configuration"
"$CGISNAP" snapshot --apache-conf "$TESTDIR/site.conf" --env SITE_MODE=given --site-url http://other.example.org/ \
	--path-alias "/lib=$LIB" "$TESTDIR/out2" 2>"$TESTDIR/err2"
check_eq 0 $? "exit status ($(cat "$TESTDIR/err2"))"
check_contains "$(cat "$TESTDIR/out2/index.html" 2>/dev/null)" "mode given on other.example.org" "--env and --site-url"
check_contains "$(sed -n 2p "$TESTDIR/err2")" "Alias /lib (mounted by the options)" "the Alias the options replace"

try "a configuration that cannot be read is a set-up error naming the file and line; with --origin, a usage error"
printf '<Directory /x>\nOptions None\n' >"$TESTDIR/bad.conf"
err=$("$CGISNAP" snapshot --apache-conf "$TESTDIR/bad.conf" "$TESTDIR/bad" 2>&1)
check_eq 2 $? "exit status"
check_eq "cgisnap: error: $TESTDIR/bad.conf:1: <Directory> is not closed" "$err" "message: the file's, not the usage's"
check_no_file "$TESTDIR/bad" "no tree made"
err=$("$CGISNAP" watch --apache-conf "$TESTDIR/none.conf" "$TESTDIR/bad" 2>&1)
check_eq 2 $? "watch's exit status"
check_eq "cgisnap: error: cannot read Apache configuration '$TESTDIR/none.conf': No such file or directory" "$err" \
	"watch's message"
err=$("$CGISNAP" snapshot --apache-conf "$TESTDIR/site.conf" --origin http://127.0.0.1:9/ "$TESTDIR/bad" 2>&1)
check_eq 2 $? "exit status with --origin"
check_eq "cgisnap snapshot: --apache-conf is for CGI and FastCGI origins: an --origin server has its own (see 'cgisnap snapshot --help')" "$err" \
	"message with --origin"

try "the configurations Debian's MediaWiki and DokuWiki packages ship"
# A seed that is a missing static file: nothing of the installed
# applications runs, and the lines say what each file gave.
mw=/etc/apache2/conf-available/mediawiki.conf
"$CGISNAP" snapshot --apache-conf "$mw" --seed /mediawiki/none.txt "$TESTDIR/mw" 2>"$TESTDIR/mw.err"
check_eq "cgisnap: --apache-conf $mw: --path-alias /mediawiki=/var/lib/mediawiki" \
	"$(sed -n 1p "$TESTDIR/mw.err")" "MediaWiki's Alias"
check_match "$(sed -n 2p "$TESTDIR/mw.err")" \
	"not honoured: Options without FollowSymLinks in <Directory /var/lib/mediawiki/config> and others .*, php_admin_flag \(mediawiki.conf:[0-9]+, 3 times\)$" \
	"MediaWiki's protected directories"
dw=/etc/dokuwiki/apache.conf
"$CGISNAP" snapshot --apache-conf "$dw" --seed /dokuwiki/none.txt "$TESTDIR/dw" 2>"$TESTDIR/dw.err"
check_eq "cgisnap: --apache-conf $dw: --path-alias /dokuwiki=/usr/share/dokuwiki/" \
	"$(sed -n 1p "$TESTDIR/dw.err")" "DokuWiki's Alias"
check_eq "cgisnap: --apache-conf $dw: not honoured: AliasMatch (apache.conf:1, 2 times)" \
	"$(sed -n 2p "$TESTDIR/dw.err")" "its multisite AliasMatch"

try "stylesheets and images answering 404 are reported together, with Apache's Alias for them"
cat >"$SITE/icons.html" <<'HTML'
<html><head><link rel="stylesheet" href="/icons/none.css"></head>
<body><img src="/icons/a.png" alt="a"> <a href="/lib/">the library</a></body></html>
HTML
"$CGISNAP" snapshot --root "$SITE" --seed /icons.html "$TESTDIR/icons" 2>"$TESTDIR/icons.err"
check_eq 0 $? "exit status: the pages are stored ($(cat "$TESTDIR/icons.err"))"
note=$(grep 'answered 404 (the pages show them broken)' "$TESTDIR/icons.err")
check_contains "$note" "cgisnap: warning: 2 stylesheets, scripts or images of pages answered 404 (the pages show them broken): '/icons/a.png' (on '/icons.html'), '/icons/none.css' (on '/icons.html'); all 2 under '/icons/', where nothing under --root or a mount is" \
	"the note"
check_match "$note" "; Apache's configuration mounts it, 'Alias /icons/ /usr/share/apache2/icons/' \(/etc/apache2/mods-(enabled|available)/alias\.conf:[0-9]+\): give --path-alias /icons=/usr/share/apache2/icons/$" \
	"the Alias that would serve them"
"$CGISNAP" snapshot --root "$SITE" --seed /icons.html --path-alias /icons=/usr/share/apache2/icons/ \
	"$TESTDIR/icons2" 2>"$TESTDIR/icons2.err"
check_eq 0 $? "exit status with the mount"
check_cmp /usr/share/apache2/icons/a.png "$TESTDIR/icons2/icons/a.png" "the icon, stored"
check_eq "cgisnap: warning: 1 stylesheet, script or image of pages answered 404 (the pages show them broken): '/icons/none.css' (on '/icons.html')" \
	"$(grep 'answered 404 (the pages show them broken)' "$TESTDIR/icons2.err")" "what is still missing: no mount to suggest"

finish
