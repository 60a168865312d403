#!/usr/bin/env bash
# t0320-snapshot-origins: the same site snapshotted through CGI, FastCGI
# (php-cgi -b) and HTTP (php -S) gives identical trees.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"

WIKI=$TESTDIR/wiki
BLOG=$TESTDIR/blog
SESS=$TESTDIR/sessions
mkdir -p "$SESS"
seed_wiki "$WIKI" 40
seed_blog "$BLOG" 25

# same_trees A B: identical files, and manifests equal but for timings and
# content types (each server names the types of static files its own way).
same_trees() {
	local d
	d=$(diff -r --exclude=.cgisnap "$1" "$2" 2>&1 | head -5)
	[ -z "$d" ] || fail "files differ between $1 and $2: $d"
	for t in "$1" "$2"; do
		grep -v '^#' <("$CGISNAP" ls "$t") | cut -f1-3,5,6,9 >"$t.cols"
	done
	d=$(diff "$1.cols" "$2.cols" | head -5)
	[ -z "$d" ] || fail "manifests differ between $1 and $2: $d"
}

# fastcgi_server ROOT PORT: php-cgi -b, two children, no request limit.
_fastcgi_run() {
	cd "$1" && PHP_FCGI_CHILDREN=2 PHP_FCGI_MAX_REQUESTS=0 exec php-cgi -b "127.0.0.1:$2" \
		-d session.save_path="$SESS" >/dev/null 2>&1
}
fastcgi_server() {
	bg_start _fastcgi_run "$1" "$2"
	wait_port "$2"
}

# A router for php -S that behaves like a plain server: existing files and
# directories with an index are served, anything else is a 404 (without it,
# php -S answers every missing path with the nearest index.php).
cat >"$TESTDIR/router.php" <<'PHP'
<?php
$path = $_SERVER['DOCUMENT_ROOT'] . urldecode(parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH));
if (is_file($path) || (is_dir($path) && is_file("$path/index.php")))
	return false;
http_response_code(404);
header('Content-Type: text/html');
echo "Not Found\n";
PHP

# http_server ROOT PORT [ROUTER]: php -S with two workers (bg_stop stops
# them with the master, which does not).
_http_run() {
	cd "$1" && PHP_CLI_SERVER_WORKERS=2 exec php -S "127.0.0.1:$2" -d session.save_path="$SESS" \
		${3:+"$3"} >/dev/null 2>&1
}
http_server() {
	bg_start _http_run "$@"
	wait_port "$2"
}

try "the wiki through CGI, FastCGI and HTTP: three identical trees"
snap_wiki "$WIKI" "$TESTDIR/wiki-cgi" -j 2 2>"$TESTDIR/err-cgi"
check_eq 0 $? "CGI exit status"
p=$(port 1)
fastcgi_server "$WIKI" "$p" || fail "php-cgi -b did not start"
"$CGISNAP" snapshot --fastcgi "127.0.0.1:$p" --root "$WIKI" --site-url http://localhost:8080/ \
	--strip "$WIKI_STRIP" --robots-meta ignore --not-found '/doku.php?id=cgisnap:no-such-page' -j 2 "$TESTDIR/wiki-fcgi" 2>"$TESTDIR/err-fcgi"
check_eq 0 $? "FastCGI exit status"
bg_stop "$BG_PID"
p=$(port 2)
http_server "$WIKI" "$p" "$TESTDIR/router.php" || fail "php -S did not start"
"$CGISNAP" snapshot --origin "http://127.0.0.1:$p/" --site-url http://localhost:8080/ \
	--strip "$WIKI_STRIP" --robots-meta ignore --not-found '/doku.php?id=cgisnap:no-such-page' -j 2 "$TESTDIR/wiki-http" 2>"$TESTDIR/err-http"
check_eq 0 $? "HTTP exit status"
bg_stop "$BG_PID"
check_ne 0 "$(manifest_targets "$TESTDIR/wiki-cgi" | wc -l)" "pages in the CGI tree"
same_trees "$TESTDIR/wiki-cgi" "$TESTDIR/wiki-fcgi"
same_trees "$TESTDIR/wiki-cgi" "$TESTDIR/wiki-http"

try "the blog through CGI, FastCGI and HTTP: three identical trees"
snap_blog "$BLOG" "$TESTDIR/blog-cgi" -j 2 2>"$TESTDIR/err-cgi"
check_eq 0 $? "CGI exit status"
p=$(port 3)
fastcgi_server "$BLOG" "$p" || fail "php-cgi -b did not start"
"$CGISNAP" snapshot --fastcgi "127.0.0.1:$p" --root "$BLOG" --front-controller /index.php \
	--site-url http://localhost:8080/ -j 2 "$TESTDIR/blog-fcgi" 2>"$TESTDIR/err-fcgi"
check_eq 0 $? "FastCGI exit status"
bg_stop "$BG_PID"
p=$(port 4)
http_server "$BLOG" "$p" index.php || fail "php -S did not start"
"$CGISNAP" snapshot --origin "http://127.0.0.1:$p/" --site-url http://localhost:8080/ -j 2 \
	"$TESTDIR/blog-http" 2>"$TESTDIR/err-http"
check_eq 0 $? "HTTP exit status"
bg_stop "$BG_PID"
check_ne 0 "$(awk -F'\t' '$3 == 301' <("$CGISNAP" ls "$TESTDIR/blog-cgi") | wc -l)" "redirects in the CGI tree"
same_trees "$TESTDIR/blog-cgi" "$TESTDIR/blog-fcgi"
same_trees "$TESTDIR/blog-cgi" "$TESTDIR/blog-http"

try "an unreachable FastCGI or HTTP origin is a set-up error: exit 2, nothing written"
p=$(port 5)
"$CGISNAP" snapshot --fastcgi "127.0.0.1:$p" --root "$WIKI" "$TESTDIR/none1" 2>"$TESTDIR/err"
check_eq 2 $? "FastCGI exit status"
check_match "$(cat "$TESTDIR/err")" "127\.0\.0\.1:$p" "message names the address"
check_no_file "$TESTDIR/none1" "no tree created"
"$CGISNAP" snapshot --origin "http://127.0.0.1:$p/" "$TESTDIR/none2" 2>"$TESTDIR/err"
check_eq 2 $? "HTTP exit status"
check_no_file "$TESTDIR/none2" "no tree created"

finish
