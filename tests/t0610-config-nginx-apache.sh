#!/usr/bin/env bash
# t0610-config-nginx-apache: the configurations of 'cgisnap config nginx'
# and 'cgisnap config apache', run in real nginx and Apache (mpm_event),
# answer every URL of both sample sites' snapshots, and a set of missing
# and hostile URLs, exactly as 'cgisnap serve' does: status, Content-Type,
# Location, Cache-Control and body, plain and gzip-encoded.
#
# Tolerated, and only these: the bodies (and types) of redirects, which
# cgisnap serve sends empty and the others as a short HTML page of their
# own; and for hostile targets, where cgisnap serve answers 400, nginx or
# Apache may answer 403 or 404 (both refuse; Apache, for one, answers an
# encoded NUL with 404 before any rule runs). Any other
# difference fails, printed as "URL: field: serve 'x', nginx 'y'".
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"
. "$(dirname "$0")/lib-config.sh"

need_program nginx apache2 curl php-cgi

W=$TESTDIR/wiki-tree
B=$TESTDIR/blog-tree
seed_wiki "$TESTDIR/wiki" 40
seed_blog "$TESTDIR/blog" 25

try "both sample sites are snapshotted"
snap_wiki "$TESTDIR/wiki" "$W" -j 2 2>"$TESTDIR/snap.err"
check_eq 0 $? "wiki snapshot exit status"
snap_blog "$TESTDIR/blog" "$B" -j 2 2>>"$TESTDIR/snap.err"
check_eq 0 $? "blog snapshot exit status"
check_file "$W/.cgisnap/404.html" "the wiki's 404 page"
check_file "$B/.cgisnap/404.html" "the blog's 404 page"
# Things no server may hand out, planted where a request could reach them.
for t in "$W" "$B"; do
	printf 'deny from all\n' >"$t/.htaccess"
	mkdir -p "$t/.git"
	printf 'secret\n' >"$t/.git/config"
	printf 'hidden\n' >"$t/.hidden.html"
	mkdir -p "$t/dir"
	printf 'hidden\n' >"$t/dir/.hidden.css"
done

P_SW=$(port 0) P_SB=$(port 1) P_NW=$(port 2) P_NB=$(port 3) P_AW=$(port 4) P_AB=$(port 5)

try "cgisnap config writes both configurations"
for s in wiki:"$W":$P_NW:$P_AW blog:"$B":$P_NB:$P_AB; do
	IFS=: read -r name tree pn pa <<<"$s"
	"$CGISNAP" config nginx --listen "127.0.0.1:$pn" "$tree" >"$TESTDIR/$name-nginx.conf" 2>"$TESTDIR/$name.err"
	check_eq 0 $? "$name: nginx exit status"
	# With its map files (redirects, query orders) beside it.
	"$CGISNAP" config apache --listen "127.0.0.1:$pa" -o "$TESTDIR/$name-apache.conf" "$tree" 2>>"$TESTDIR/$name.err"
	check_eq 0 $? "$name: apache exit status"
	check_contains "$(cat "$TESTDIR/$name-nginx.conf")" "REGENERATE" "$name: nginx says when to regenerate"
	check_contains "$(cat "$TESTDIR/$name-apache.conf")" "a2enmod rewrite headers" "$name: Apache names its modules"
done
check_contains "$(cat "$TESTDIR/blog-nginx.conf")" '"/?p=5" "http://localhost:8080/' "nginx: the blog's /?p=5 redirect"
check_contains "$(cat "$TESTDIR/blog-nginx.conf")" 'default_type "application/rss+xml; charset=UTF-8"' \
	"nginx: the feed's type"
check_contains "$(cat "$TESTDIR/blog-apache.redirects.map")" $'\n/?p=5 301:http://localhost:8080/' \
	"Apache: the blog's /?p=5 redirect, in the map beside the configuration"

try "real nginx and Apache start with the generated configurations"
serve_log=$TESTDIR/serve.err
bg_start "$CGISNAP" serve --listen "127.0.0.1:$P_SW" "$W" 2>>"$serve_log"
bg_start "$CGISNAP" serve --listen "127.0.0.1:$P_SB" "$B" 2>>"$serve_log"
wait_port "$P_SW" 10 && wait_port "$P_SB" 10 || fail "cgisnap serve did not start: $(cat "$serve_log")"
nginx_start nginx "$P_NW" "$P_NB" -- "$TESTDIR/wiki-nginx.conf" "$TESTDIR/blog-nginx.conf"
apache_start apache "$P_AW" "$P_AB" -- "$TESTDIR/wiki-apache.conf" "$TESTDIR/blog-apache.conf"

# Missing URLs: both servers must answer 404 with the site's page (or 200
# where the tree does have the file, as for index.html.gz).
missing() {
	cat <<'EOF'
/nonexistent
/nonexistent/
/no/such/style.css
/index.html/
/index.html.gz
/?
//index.html
/dir/
/dir
/.htaccess
/.git/config
/.cgisnap/manifest
/.cgisnap/settings
/.cgisnap/404.html
/.cgisnap/
/.hidden.html
/dir/.hidden.css
/%2ecgisnap/manifest
/x?a=/b
/a%2Fb
/a%2fb/
EOF
}
# Targets cgisnap serve refuses with 400.
hostile() {
	cat <<'EOF'
/%2e%2e/etc/passwd
/a/../../x
/../../etc/passwd
/a/./b
/%2e/x
/%00
/a%0Ab
/a%5Cb
/a\b
/x%zz
/x%4
/caf%C0%AE
/%ed%a0%80
/%e0%80%af
EOF
}

# check_site NAME TREE SERVE_PORT NGINX_PORT APACHE_PORT EXTRA...
check_site() {
	local name=$1 tree=$2 ps=$3 pn=$4 pa=$5 d=$TESTDIR/$1-fetch other port diffs
	shift 5
	mkdir -p "$d"
	{ manifest_targets "$tree"; missing; printf '%s\n' "$@"; hostile; } >"$d/list"
	hostile >"$d/hostile"
	manifest_targets "$tree" >"$d/pages"
	fetch_all "http://127.0.0.1:$ps" "$d/list" "$d/serve"
	fetch_all "http://127.0.0.1:$ps" "$d/pages" "$d/serve-gz" -H 'Accept-Encoding: gzip'
	for other in nginx apache; do
		[ "$other" = nginx ] && port=$pn || port=$pa
		try "$name: $other answers like cgisnap serve ($(wc -l <"$d/list") URLs)"
		fetch_all "http://127.0.0.1:$port" "$d/list" "$d/$other"
		diffs=$(compare_fetches "$d/list" "$d/serve" "$d/$other" serve "$other" "$d/hostile")
		[ -z "$diffs" ] || while IFS= read -r line; do fail "$line"; done <<<"$diffs"
		try "$name: $other sends FILE.gz as cgisnap serve does"
		fetch_all "http://127.0.0.1:$port" "$d/pages" "$d/$other-gz" -H 'Accept-Encoding: gzip'
		diffs=$(compare_fetches "$d/pages" "$d/serve-gz" "$d/$other-gz" serve "$other")
		[ -z "$diffs" ] || while IFS= read -r line; do fail "$line"; done <<<"$diffs"
		check_ne 0 "$(cut -f5 "$d/$other-gz/meta" | grep -c gzip)" "some pages went out gzip-encoded"
	done
}

check_site wiki "$W" "$P_SW" "$P_NW" "$P_AW" \
	'/doku.php' '/doku.php?id=no:such' '/doku.php?id=wiki:syntax&extra=1' '/lib/exe/css.php' \
	'/doku.php?id=wiki%3Asyntax'
check_site blog "$B" "$P_SB" "$P_NB" "$P_AB" \
	'/?p=99999' '/?s=nothing' '/index.php' '/feed' '/feed/?x=1' '/?p=5&x=1'

try "the comparison catches a difference (another page behind the same URL)"
d=$TESTDIR/blog-fetch
printf '/\n' >"$d/one"
printf '/page/2/\n' >"$d/two"
fetch_all "http://127.0.0.1:$P_SB" "$d/one" "$d/one-serve"
fetch_all "http://127.0.0.1:$P_NB" "$d/two" "$d/one-nginx"
check_match "$(compare_fetches "$d/one" "$d/one-serve" "$d/one-nginx" serve nginx)" "^/: body: serve [0-9]+ bytes" \
	"a different body is reported"

try "the servers logged nothing worse than errors about refused requests"
check_eq "" "$(grep -E '\[(emerg|alert|crit)\]' "$TESTDIR/nginx/logs/error.log")" "nginx error log"
check_eq "" "$(grep -E ':(emerg|alert|crit)\]' "$TESTDIR/apache/logs/error.log")" "Apache error log"

finish
