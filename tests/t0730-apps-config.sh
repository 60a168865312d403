#!/usr/bin/env bash
# t0730-apps-config: issue 12's "both" acceptance: the trees of the real
# DokuWiki and the real WordPress (tests/lib-apps.sh), snapshotted with
# nothing but --root, --cgi and --site-url (their profiles detected), are
# answered by real nginx and Apache running 'cgisnap config nginx|apache'
# exactly as 'cgisnap serve' answers them (compare_fetches of
# tests/lib-config.sh: status, Content-Type, Location, Cache-Control,
# Content-Encoding, body; plain and gzip-encoded).
#
# The URLs compared: every redirect and error the manifest recorded and a
# fixed sample of its 200s (about 100 URLs in all: every Nth in sorted
# order, so the same ones each run); the profiles' redirects (DokuWiki's
# per-page sitemaps, never crawled, answer a 302 to the one sitemap by
# --canonical; WordPress's ?p=N shortlinks, recorded 301s); the ?ver=
# asset URLs WordPress links (static-query = ignore: the file's own URL's
# answer); a dotfile and a never-crawled URL (404).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"
. "$(dirname "$0")/lib-config.sh"
. "$(dirname "$0")/lib-apps.sh"

need_program nginx apache2 curl php-cgi
apps_need dokuwiki wordpress

# sample TREE N: the manifest's targets that are not 200 (redirects,
# 404s), then every Kth of its 200s in sorted order, about N lines in all.
sample() {
	local m=$TESTDIR/sample.manifest n=$2 rest all k
	"$CGISNAP" ls "$1" >"$m"
	awk -F'\t' '!/^#/ && $3 != 200 { print $1 }' "$m" | LC_ALL=C sort
	rest=$(awk -F'\t' '!/^#/ && $3 != 200' "$m" | wc -l)
	all=$(awk -F'\t' '!/^#/ && $3 == 200' "$m" | wc -l)
	k=$(((all + n - rest - 1) / (n - rest > 1 ? n - rest : 1)))
	[ "$k" -ge 1 ] || k=1
	awk -F'\t' '!/^#/ && $3 == 200 { print $1 }' "$m" | LC_ALL=C sort | awk -v k="$k" '(NR - 1) % k == 0'
}

# compare NAME TREE SERVE NGINX APACHE LIST: fetch LIST from the three
# servers (plain, and the manifest's sample with Accept-Encoding: gzip),
# one failure per difference.
compare() {
	local name=$1 tree=$2 d=$TESTDIR/$1-fetch other port diffs
	mkdir -p "$d"
	cp "$6" "$d/list"
	grep -vxF -f "$d/extra" "$d/list" >"$d/pages" 2>/dev/null || cp "$d/list" "$d/pages"
	fetch_all "http://127.0.0.1:$3" "$d/list" "$d/serve"
	fetch_all "http://127.0.0.1:$3" "$d/pages" "$d/serve-gz" -H 'Accept-Encoding: gzip'
	for other in nginx apache; do
		[ "$other" = nginx ] && port=$4 || port=$5
		try "$name: $other answers like cgisnap serve ($(wc -l <"$d/list") URLs)"
		fetch_all "http://127.0.0.1:$port" "$d/list" "$d/$other"
		diffs=$(compare_fetches "$d/list" "$d/serve" "$d/$other" serve "$other")
		[ -z "$diffs" ] || while IFS= read -r line; do fail "$line"; done <<<"$diffs"
		try "$name: $other sends FILE.gz as cgisnap serve does"
		fetch_all "http://127.0.0.1:$port" "$d/pages" "$d/$other-gz" -H 'Accept-Encoding: gzip'
		diffs=$(compare_fetches "$d/pages" "$d/serve-gz" "$d/$other-gz" serve "$other")
		[ -z "$diffs" ] || while IFS= read -r line; do fail "$line"; done <<<"$diffs"
	done
}

# start_all NAME TREE SERVE NGINX APACHE: the configurations, and the
# three servers on TREE.
start_all() {
	local name=$1 tree=$2
	"$CGISNAP" config nginx --listen "127.0.0.1:$4" "$tree" >"$TESTDIR/$name-nginx.conf" 2>"$TESTDIR/$name-config.err"
	check_eq 0 $? "$name: config nginx exit status ($(cat "$TESTDIR/$name-config.err"))"
	"$CGISNAP" config apache --listen "127.0.0.1:$5" "$tree" >"$TESTDIR/$name-apache.conf" 2>>"$TESTDIR/$name-config.err"
	check_eq 0 $? "$name: config apache exit status ($(cat "$TESTDIR/$name-config.err"))"
	bg_start "$CGISNAP" serve --listen "127.0.0.1:$3" "$tree" 2>>"$TESTDIR/$name-serve.err"
	SERVE_PID=$BG_PID
	wait_port "$3" 10 || fail "cgisnap serve did not start: $(cat "$TESTDIR/$name-serve.err")"
	nginx_start "$name-nginx" "$4" -- "$TESTDIR/$name-nginx.conf"
	apache_start "$name-apache" "$5" -- "$TESTDIR/$name-apache.conf"
}

stop_all() {
	bg_stop "$SERVE_PID"
	[ -z "${NGINX_PID:-}" ] || bg_stop "$NGINX_PID"
	[ -z "${APACHE_PID:-}" ] || bg_stop "$APACHE_PID"
	NGINX_PID="" APACHE_PID=""
}

# location PORT TARGET: "STATUS LOCATION" of one request.
location() {
	curl -s -g --path-as-is -o /dev/null -w '%{http_code} %header{location}' "http://127.0.0.1:$1$2"
}

P_SD=$(port 0) P_ND=$(port 1) P_AD=$(port 2) P_SW=$(port 3) P_NW=$(port 4) P_AW=$(port 5)

# all_404 "PORT..." TARGET...: each server answers 404 for each target.
all_404() {
	local ports=$1 t p
	shift
	for t in "$@"; do
		for p in $ports; do
			check_eq 404 "$(location "$p" "$t" | cut -d' ' -f1)" "$t on port $p"
		done
	done
}

# --- DokuWiki ---------------------------------------------------------
try "DokuWiki: a zero-configuration snapshot"
D=$TESTDIR/dw-tree
dokuwiki_site "$TESTDIR/dw" >"$TESTDIR/dw.out" 2>&1
check_eq 0 $? "dokuwiki_site ($(tail -3 "$TESTDIR/dw.out"))"
"$CGISNAP" snapshot --root "$DW_ROOT" --cgi php=php-cgi --site-url "$DW_URL" -j 2 "$D" \
	>"$TESTDIR/dw-snap.out" 2>"$TESTDIR/dw-snap.err"
check_eq 0 $? "snapshot exit status ($(grep -v 'PHP ' "$TESTDIR/dw-snap.err" | tail -3))"
check_eq dokuwiki "$(cat "$D/.cgisnap/profile" 2>/dev/null)" "the profile"
printf 'hidden\n' >"$D/.hidden.html"

# Two seeded pages whose sitemaps were never crawled: the profile's
# --canonical rules, both orders of the parameters.
ids=$(cut -f1 "$DW_PAGES_FILE" | grep -vx start | LC_ALL=C sort | sed -n '1p;$p')
{
	for id in $ids; do
		printf '/doku.php?id=%s&do=index\n/doku.php?do=index&id=%s\n' "$id" "$id"
	done
	printf '%s\n' /.hidden.html /.cgisnap/manifest /no/such/page.html '/doku.php?id=never:crawled' /lib/no-such.png
	# Near misses of stored and redirected URLs.
	printf '%s\n' /doku.php '/doku.php?id=start' '/doku.php?do=index&id=start' '/doku.php?id=start&do=index&x=1' \
		'/doku.php?id=wiki:page01&do=index&x=1' '/doku.php?id=wiki%3Apage01' '/doku.php?id=WIKI:PAGE01' \
		'/doku.php?id=wiki:page01&do=edit' '/lib/exe/taskrunner.php?id=start&1700000000' \
		'/doku.php?id=wiki:page01&' '/doku.php?&id=wiki:page01' '/feed.php?ns=wiki&mode=list'
	# nginx matches map strings ignoring case; URLs are exact.
	printf '%s\n' /FEED.PHP '/feed.php?mode=list&ns=WIKI' '/Doku.php?id=start' '/doku.php?id=Start'
} >"$TESTDIR/dw-extra"
try "DokuWiki: the per-page sitemaps were never crawled"
for id in $ids; do
	check_eq "" "$(manifest_field "$D" "/doku.php?id=$id&do=index" 3)" "$id's sitemap in the manifest"
done
mkdir -p "$TESTDIR/dokuwiki-fetch"
cp "$TESTDIR/dw-extra" "$TESTDIR/dokuwiki-fetch/extra"
{ sample "$D" 100; cat "$TESTDIR/dw-extra"; } >"$TESTDIR/dw-list"

try "DokuWiki: the three servers start on the tree"
start_all dokuwiki "$D" "$P_SD" "$P_ND" "$P_AD"
try "DokuWiki: a per-page sitemap answers 302 to the one sitemap from all three"
want="302 ${DW_URL%/}/doku.php?id=start&do=index"
for id in $ids; do
	for p in "$P_SD" "$P_ND" "$P_AD"; do
		check_eq "$want" "$(location "$p" "/doku.php?id=$id&do=index")" "$id's sitemap on port $p"
	done
done
try "DokuWiki: a dotfile and a never-crawled URL are 404 from all three"
all_404 "$P_SD $P_ND $P_AD" /.hidden.html '/doku.php?id=never:crawled'
compare dokuwiki "$D" "$P_SD" "$P_ND" "$P_AD" "$TESTDIR/dw-list"
stop_all

# --- WordPress --------------------------------------------------------
try "WordPress: a zero-configuration snapshot"
W=$TESTDIR/wp-tree
# Nothing below means anything without the site.
mariadb_start "$TESTDIR/db" ||
	{ fail "mariadb_start ($(tail -3 "$TESTDIR/db/error.log" 2>/dev/null))"; finish; }
wordpress_site "$TESTDIR/wp" >"$TESTDIR/wp.out" 2>&1 ||
	{ fail "wordpress_site ($(tail -3 "$TESTDIR/wp.out"))"; finish; }
"$CGISNAP" snapshot --root "$WP_ROOT" --cgi php=php-cgi --site-url "$WP_URL" -j 2 "$W" \
	>"$TESTDIR/wp-snap.out" 2>"$TESTDIR/wp-snap.err"
check_eq 0 $? "snapshot exit status ($(tail -3 "$TESTDIR/wp-snap.err"))"
check_eq wordpress "$(cat "$W/.cgisnap/profile" 2>/dev/null)" "the profile"
# The database is not needed to serve the tree.
mariadb_stop
printf 'hidden\n' >"$W/.hidden.html"

try "WordPress: shortlinks recorded as 301s, ?ver= assets linked"
nshort=$(awk -F'\t' '!/^#/ && $1 ~ /^\/\?p=[0-9]+$/ && $3 == 301' <("$CGISNAP" ls "$W") | wc -l)
check_le 20 "$nshort" "?p=N 301s in the manifest"
vers=$(manifest_targets "$W" | grep -E '[?&]ver=')
check_ne "" "$vers" "?ver= URLs in the manifest"
{
	awk -F'\t' '!/^#/ && $1 ~ /^\/\?p=[0-9]+$/ { print $1 }' <("$CGISNAP" ls "$W") | LC_ALL=C sort
	printf '%s\n' "$vers"
	# The same files with a version no page links.
	printf '%s\n' "$vers" | sed -E 's/([?&]ver=)[^&]*/\10.0-never-linked/' | head -3
	printf '%s\n' /.hidden.html /.cgisnap/manifest /no/such/page/ '/?p=99999' /2099/01/never-crawled/
	# Near misses of stored and redirected URLs.
	printf '%s\n' '/?p=5&x=1' '/?p=05' '/?p=5&' /2024/01/harness-post-01 /feed /index.php \
		/wp-includes/js/comment-reply.min.js '/wp-includes/js/comment-reply.min.js?ver=6.1.9&x=1' \
		/wp-admin/ '/?s=x' /wp-sitemap.xml /sitemap.xml/
	# nginx matches map strings ignoring case; URLs are exact.
	printf '%s\n' '/?P=5' /WP-SITEMAP.XML /Sitemap.xml /About/
} | LC_ALL=C sort -u >"$TESTDIR/wp-extra"
mkdir -p "$TESTDIR/wordpress-fetch"
cp "$TESTDIR/wp-extra" "$TESTDIR/wordpress-fetch/extra"
{ sample "$W" 100 | grep -vxF -f "$TESTDIR/wp-extra"; cat "$TESTDIR/wp-extra"; } >"$TESTDIR/wp-list"

try "WordPress: the three servers start on the tree"
start_all wordpress "$W" "$P_SW" "$P_NW" "$P_AW"
try "WordPress: the shortlinks answer their recorded 301 from all three"
while IFS=$'\t' read -r target loc; do
	for p in "$P_SW" "$P_NW" "$P_AW"; do
		check_eq "301 $loc" "$(location "$p" "$target")" "$target on port $p"
	done
done < <(awk -F'\t' '!/^#/ && $1 ~ /^\/\?p=[0-9]+$/ && $3 == 301 { print $1 "\t" $9 }' <("$CGISNAP" ls "$W") | LC_ALL=C sort | sed -n '1p;$p')
try "WordPress: a ?ver= URL answers with its file from all three"
v=$(printf '%s\n' "$vers" | grep -E '\.css\?ver=' | head -1)
for p in "$P_SW" "$P_NW" "$P_AW"; do
	curl -s -g -o "$TESTDIR/ver-$p" "http://127.0.0.1:$p$v"
	check_cmp "$WP_ROOT${v%%\?*}" "$TESTDIR/ver-$p" "$v on port $p"
done
try "WordPress: a dotfile and a never-crawled URL are 404 from all three"
all_404 "$P_SW $P_NW $P_AW" /.hidden.html /2099/01/never-crawled/
compare wordpress "$W" "$P_SW" "$P_NW" "$P_AW" "$TESTDIR/wp-list"
stop_all

try "the servers logged nothing worse than errors about refused requests"
check_eq "" "$(cat "$TESTDIR"/*-nginx/logs/error.log 2>/dev/null | grep -E '\[(emerg|alert|crit)\]')" "nginx error logs"
check_eq "" "$(cat "$TESTDIR"/*-apache/logs/error.log 2>/dev/null | grep -E ':(emerg|alert|crit)\]')" "Apache error logs"

finish
