#!/usr/bin/env bash
# t0613-config-slash-fallback: on the sample blog's snapshot, month, tag
# and post URLs without their trailing '/' (/2019/09) answer a 301 to the
# slash form from cgisnap serve, nginx and Apache (config nginx|apache),
# as the live blog does; and with --origin-fallback the configurations
# pass what the tree lacks (a search /?s=..., an unknown post, a page the
# crawl never met) to the live blog (php -S) as cgisnap serve --fallback
# does, while what the tree records (a ?p=N redirect, a dotfile name, a
# hostile target) is still answered by the tree alone. Compared as t0610
# does (tests/lib-config.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"
. "$(dirname "$0")/lib-config.sh"

need_program nginx apache2 curl php-cgi php

BLOG=$TESTDIR/blog
B=$TESTDIR/blog-tree
seed_blog "$BLOG" 25
PO=$(port 0) PS=$(port 1) PN=$(port 2) PA=$(port 3) PF=$(port 4) PNF=$(port 5) PAF=$(port 6)

try "the blog is snapshotted, and the live blog runs (php -S)"
snap_blog "$BLOG" "$B" -j 2 2>"$TESTDIR/snap.err"
check_eq 0 $? "snapshot exit status"
mkdir -p "$TESTDIR/sessions"
_php_s() {
	cd "$BLOG" && BLOG_SESSION_DIR=$TESTDIR/sessions BLOG_SITE_URL=http://localhost:8080 \
		exec php -S "127.0.0.1:$PO" index.php
}
bg_start _php_s >"$TESTDIR/php-s.log" 2>&1
wait_port "$PO" 10 || fail "php -S did not start: $(cat "$TESTDIR/php-s.log")"

# The slash forms the blog has: months, tags, posts, pages of the list.
manifest_targets "$B" | grep -E '^/[^?]+[^/.]+/$' | grep -v '^/wp-' | sed 's|/$||' | head -40 >"$TESTDIR/slashless"
check_ne 0 "$(grep -cE '^/[0-9]{4}/[0-9]{2}$' "$TESTDIR/slashless")" "month archives among them"

try "the live blog answers each of them with a 301 to its slash form"
while IFS= read -r t; do
	got=$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' "http://127.0.0.1:$PO$t")
	check_eq "301 http://localhost:8080$t/" "$got" "live $t"
done <"$TESTDIR/slashless"

try "the configurations are written"
for kind in nginx apache; do
	[ $kind = nginx ] && p=$PN pf=$PNF || p=$PA pf=$PAF
	"$CGISNAP" config $kind --listen "127.0.0.1:$p" -o "$TESTDIR/$kind.conf" "$B" 2>>"$TESTDIR/config.err"
	check_eq 0 $? "$kind exit status"
	"$CGISNAP" config $kind --listen "127.0.0.1:$pf" --origin-fallback "http://127.0.0.1:$PO" \
		-o "$TESTDIR/$kind-fallback.conf" "$B" 2>>"$TESTDIR/config.err"
	check_eq 0 $? "$kind --origin-fallback exit status"
done
check_contains "$(cat "$TESTDIR/nginx-fallback.conf")" "server 127.0.0.1:$PO;" "nginx: the upstream"
check_contains "$(cat "$TESTDIR/apache-fallback.conf")" "\"http://127.0.0.1:$PO%1?%{ENV:CGISNAP_Q}\" [P," \
	"Apache: misses go to mod_proxy"
"$CGISNAP" config nginx --origin-fallback "ftp://x/" "$B" >/dev/null 2>"$TESTDIR/err"
check_eq 2 $? "a bad --origin-fallback is exit 2"
check_contains "$(cat "$TESTDIR/err")" "invalid --origin-fallback 'ftp://x/'" "naming it"
"$CGISNAP" config apache --origin-fallback "http://127.0.0.1:$PO/blog/" "$B" >/dev/null 2>"$TESTDIR/err"
check_eq 2 $? "a path in --origin-fallback is exit 2"

try "cgisnap serve (with and without --fallback), nginx and Apache start"
bg_start "$CGISNAP" serve --listen "127.0.0.1:$PS" "$B" 2>>"$TESTDIR/serve.err"
bg_start "$CGISNAP" serve --listen "127.0.0.1:$PF" --fallback --origin "http://127.0.0.1:$PO" "$B" \
	2>>"$TESTDIR/serve.err"
wait_port "$PS" 10 && wait_port "$PF" 10 || fail "cgisnap serve did not start: $(cat "$TESTDIR/serve.err")"
nginx_start nginx "$PN" "$PNF" -- "$TESTDIR/nginx.conf" "$TESTDIR/nginx-fallback.conf"
apache_start apache "$PA" "$PAF" -- "$TESTDIR/apache.conf" "$TESTDIR/apache-fallback.conf"

# compare NAME LIST SERVE_PORT NGINX_PORT APACHE_PORT
compare() {
	local name=$1 list=$2 d=$TESTDIR/$1 other p diffs
	fetch_all "http://127.0.0.1:$3" "$list" "$d/serve"
	for other in nginx apache; do
		[ $other = nginx ] && p=$4 || p=$5
		try "$name: $other answers like cgisnap serve ($(wc -l <"$list") URLs)"
		fetch_all "http://127.0.0.1:$p" "$list" "$d/$other"
		diffs=$(compare_fetches "$list" "$d/serve" "$d/$other" serve "$other")
		[ -z "$diffs" ] || while IFS= read -r line; do fail "$line"; done <<<"$diffs"
	done
}

{ cat "$TESTDIR/slashless"; sed 's|$|/|' "$TESTDIR/slashless"; } >"$TESTDIR/slash-list"
compare slash "$TESTDIR/slash-list" "$PS" "$PN" "$PA"
try "cgisnap serve answers the slash forms as the live blog does"
n=0
while IFS= read -r t; do
	n=$((n + 1))
	IFS=$'\037' read -r status _ location _ < <(sed -n "${n}p" "$TESTDIR/slash/serve/records")
	check_eq "301 http://localhost:8080$t/" "$status $location" "serve $t"
done <"$TESTDIR/slashless"

cat >"$TESTDIR/fallback-list" <<'EOF2'
/
/?s=hello
/?s=nothing+at+all
/?p=99999
/?p=5
/wp-login.php
/index.php
/no/such/page/
/no-such-post
/feed
/.hidden
/.git/config
/%2e%2e/etc/passwd
EOF2
head -5 "$TESTDIR/slashless" >>"$TESTDIR/fallback-list"
compare fallback "$TESTDIR/fallback-list" "$PF" "$PNF" "$PAF"

try "the fallback comparison saw the live blog's answers"
rec() { sed -n "$(grep -nxF -- "$1" "$TESTDIR/fallback-list" | cut -d: -f1)p" "$TESTDIR/fallback/serve/records" | cut -d$'\037' -f1; }
check_eq 200 "$(rec '/?s=hello')" "a search is the live blog's page"
check_eq "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PO/?s=hello")" "$(rec '/?s=hello')" \
	"as the live blog answers it"
check_eq 404 "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PN/?s=hello")" \
	"without --origin-fallback nginx has no search page"
check_contains "$(curl -s "http://127.0.0.1:$PNF/?s=hello")" "hello" "nginx: the search page"
check_eq 404 "$(rec /.hidden)" "a dotfile name never goes to the live blog"
check_match "$(curl -s -o /dev/null -D - "http://127.0.0.1:$PO/?s=hello")" 'Set-Cookie:' "the live blog sets a cookie"
for p in "$PF" "$PNF" "$PAF"; do
	check_no_match "$(curl -s -o /dev/null -D - "http://127.0.0.1:$p/?s=hello")" '[Ss]et-[Cc]ookie' \
		"no cookie passed on (port $p)"
	check_no_match "$(curl -s -o /dev/null -D - "http://127.0.0.1:$p/?p=99999")" '[Ss]et-[Cc]ookie' \
		"nor with the live blog's 404 (port $p)"
done

try "the servers logged nothing worse than errors about refused requests"
check_eq "" "$(grep -E '\[(emerg|alert|crit|warn)\]' "$TESTDIR/nginx/logs/error.log")" "nginx error log"
check_eq "" "$(grep -E ':(emerg|alert|crit)\]' "$TESTDIR/apache/logs/error.log")" "Apache error log"

finish
