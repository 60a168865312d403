#!/usr/bin/env bash
# t0397-snapshot-canonical: --canonical 'REGEX => URL' records every target
# REGEX matches as a 302 to URL, never renders it, and crawls URL instead.
# A DokuWiki-like fixture links "doku.php?id=X&do=index" (the one sitemap,
# DokuWiki's per-id copies of it) and "doku.php?id=X&do=export_raw" from
# every page. The rules are saved in .cgisnap/settings: cgisnap serve
# (also --dynamic) and the generated nginx and Apache configurations
# answer every matching URL with the same 302, crawled or not. A rule whose
# URL a rule matches again is refused: a literal one at set-up (exit 2),
# others per URL (exit 1).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"
. "$(dirname "$0")/lib-serve.sh"
. "$(dirname "$0")/lib-config.sh"
. "$(dirname "$0")/lib-watch.sh"

need_program php-cgi curl nginx apache2

SITE=$TESTDIR/site
OUT=$TESTDIR/out
LOG=$TESTDIR/renders.log
mkdir -p "$SITE"
: >"$LOG"
# Every render is logged (its REQUEST_URI), so that the test sees which
# URLs ran the program.
cat >"$SITE/doku.php" <<'PHP'
<?php
$id = isset($_GET['id']) ? $_GET['id'] : '';
$do = isset($_GET['do']) ? $_GET['do'] : '';
file_put_contents(dirname(__DIR__) . '/renders.log', $_SERVER['REQUEST_URI'] . "\n", FILE_APPEND);
$pages = array('start', 'a', 'b', 'ns:c');
header('Content-Type: text/html; charset=utf-8');
function link_to($q) { return '<a href="/doku.php?' . htmlspecialchars($q) . '">' . htmlspecialchars($q) . "</a>\n"; }
if ($do === 'index') {
	// What DokuWiki does: the same sitemap under every id.
	echo "<h1>Sitemap</h1>\n";
	foreach ($pages as $p) echo link_to("id=$p");
	exit;
}
if ($do === 'export_raw') {
	header('Content-Type: text/plain; charset=utf-8');
	echo "raw $id\n";
	exit;
}
if (!in_array($id, $pages)) {
	header('Status: 404 Not Found');
	echo "<p>no page</p>\n";
	exit;
}
echo "<h1>Page $id</h1>\n";
echo link_to("id=$id&do=index");
echo link_to("id=$id&do=export_raw");
foreach ($pages as $p) echo link_to("id=$p");
PHP

SITEMAP_RULE='^/doku\.php\?id=[^&]*&do=index$ => /doku.php?do=index'
RAW_RULE='^/doku\.php\?id=([^&]*)&do=export_raw$ => /doku.php?id=$1'
snap() { # snap OUT [OPTIONS...]
	local out=$1
	shift
	"$CGISNAP" snapshot --root "$SITE" --cgi php=php-cgi --site-url http://localhost/ \
		--seed '/doku.php?id=start' "$@" "$out"
}

try "without rules, every page id has its own copy of the sitemap"
snap "$TESTDIR/plain" -j 2 2>"$TESTDIR/err0"
check_eq 0 $? "exit status ($(tail -3 "$TESTDIR/err0"))"
check_eq 4 "$(ls "$TESTDIR/plain" | grep -c 'do=index')" "four sitemap files"

try "--canonical: one sitemap stored; per-id URLs recorded as 302s, never rendered"
: >"$LOG"
snap "$OUT" -j 2 --canonical "$SITEMAP_RULE" --canonical "$RAW_RULE" 2>"$TESTDIR/err"
check_eq 0 $? "exit status ($(tail -3 "$TESTDIR/err"))"
check_eq "doku.php@do=index.html" "$(ls "$OUT" | grep 'do=' | tr '\n' ' ' | sed 's/ $//')" \
	"the one sitemap is the only do= file"
check_contains "$(cat "$OUT/doku.php@do=index.html")" "<h1>Sitemap</h1>" "the sitemap's page"
for id in start a b ns:c; do
	check_eq 302 "$(manifest_field "$OUT" "/doku.php?id=$id&do=index" 3)" "$id&do=index: a 302"
	check_eq http://localhost/doku.php?do=index "$(manifest_field "$OUT" "/doku.php?id=$id&do=index" 9)" \
		"$id&do=index: to the sitemap"
	check_eq - "$(manifest_field "$OUT" "/doku.php?id=$id&do=index" 2)" "$id&do=index: no file"
	# The back-reference: each raw export is its page.
	check_eq 302 "$(manifest_field "$OUT" "/doku.php?id=$id&do=export_raw" 3)" "$id&do=export_raw: a 302"
	check_eq "http://localhost/doku.php?id=$id" "$(manifest_field "$OUT" "/doku.php?id=$id&do=export_raw" 9)" \
		"$id&do=export_raw: to its page (\$1)"
	check_eq 200 "$(manifest_field "$OUT" "/doku.php?id=$id" 3)" "the page $id is stored"
done
check_eq "" "$(grep -E 'id=.*do=|do=.*id=' "$LOG")" "no per-id sitemap or export was rendered"
check_eq 1 "$(grep -c '^/doku.php?do=index$' "$LOG")" "the sitemap was rendered once"
check_contains "$(cat "$TESTDIR/err")" "8 redirects" "counted as redirects"
check_contains "$(cat "$TESTDIR/err")" "8 URLs matched --canonical rules: recorded as redirects, not rendered" \
	"the summary says so"
check_contains "$(cat "$OUT/.cgisnap/settings")" "canonical = $SITEMAP_RULE" "the rules are saved with the tree"

try "a second run renders no matching URL again and rewrites no file"
before=$(tree_mtimes "$OUT")
: >"$LOG"
snap "$OUT" -j 2 --canonical "$SITEMAP_RULE" --canonical "$RAW_RULE" 2>"$TESTDIR/err2"
check_eq 0 $? "exit status ($(tail -3 "$TESTDIR/err2"))"
check_eq "$before" "$(tree_mtimes "$OUT")" "no file rewritten"
check_eq "" "$(grep -E 'id=.*do=' "$LOG")" "no per-id URL rendered"
check_eq 302 "$(manifest_field "$OUT" "/doku.php?id=a&do=index" 3)" "still a 302"

try "a seed that a rule matches passes its seed role on to the URL"
snap "$TESTDIR/seeded" -j 1 --seed '/doku.php?id=zz&do=index' --canonical "$SITEMAP_RULE" 2>"$TESTDIR/err3"
check_eq 0 $? "exit status ($(tail -3 "$TESTDIR/err3"))"
check_eq 302 "$(manifest_field "$TESTDIR/seeded" "/doku.php?id=zz&do=index" 3)" "the seed is a 302"
check_eq 200 "$(manifest_field "$TESTDIR/seeded" "/doku.php?do=index" 3)" "its URL is stored"

try "rules that send a URL on to another rule: those URLs fail, naming both rules"
: >"$LOG"
TO_X='^/doku\.php\?id=([ab])$ => /doku.php?id=x$1'
FROM_X='^/doku\.php\?id=x(.)$ => /doku.php?id=$1'
snap "$TESTDIR/loop" -j 1 --canonical "$TO_X" --canonical "$FROM_X" 2>"$TESTDIR/err4"
check_eq 1 $? "exit status"
check_contains "$(cat "$TESTDIR/err4")" \
	"failed: /doku.php?id=a: --canonical '$TO_X' rewrites it to '/doku.php?id=xa', which --canonical '$FROM_X' rewrites again" \
	"the message names the rules"
check_eq "" "$(manifest_field "$TESTDIR/loop" "/doku.php?id=a" 3)" "nothing recorded for it"
check_eq "" "$(manifest_field "$TESTDIR/loop" "/doku.php?id=xa" 3)" "nor for its URL"
check_eq 0 "$(grep -cE '^/doku.php\?id=x?(a|b)$' "$LOG")" "none of them was rendered"
check_eq 200 "$(manifest_field "$TESTDIR/loop" "/doku.php?id=ns:c" 3)" "the other pages are stored"

try "a literal URL that a rule matches again is a set-up error"
snap "$TESTDIR/self" --canonical '^/doku\.php\?.*do=index => /doku.php?do=index' 2>"$TESTDIR/err5"
check_eq 2 $? "exit status"
check_contains "$(cat "$TESTDIR/err5")" \
	"bad --canonical rule '^/doku\\.php\\?.*do=index => /doku.php?do=index': its URL '/doku.php?do=index' is matched by --canonical '^/doku\\.php\\?.*do=index => /doku.php?do=index': a redirect loop" \
	"its own rule"
snap "$TESTDIR/self" --canonical '^/doku\.php\?id=a$ => /doku.php?id=b' \
	--canonical '^/doku\.php\?id=b$ => /doku.php?id=a' 2>"$TESTDIR/err5"
check_eq 2 $? "two rules: exit status"
check_contains "$(cat "$TESTDIR/err5")" \
	"its URL '/doku.php?id=b' is matched by --canonical '^/doku\\.php\\?id=b\$ => /doku.php?id=a': a redirect loop" \
	"two rules: the message"
check_no_file "$TESTDIR/self/.cgisnap/tree.db" "nothing crawled"

try "bad rules: exit 2 with a message naming the rule"
for bad in 'no arrow here' '^/x => doku.php' '(unclosed => /x' '^/x =>  '; do
	snap "$TESTDIR/bad" --canonical "$bad" 2>"$TESTDIR/err6"
	check_eq 2 $? "'$bad': exit status"
	check_contains "$(cat "$TESTDIR/err6")" "--canonical" "'$bad': the option is named"
	check_contains "$(cat "$TESTDIR/err6")" "'$bad'" "'$bad': the rule is named"
	check_eq 1 "$(wc -l <"$TESTDIR/err6")" "'$bad': one line"
done
check_contains "$("$CGISNAP" snapshot --help)" "--canonical 'REGEX => URL'" "snapshot --help"
check_contains "$("$CGISNAP" watch --help)" "--canonical 'REGEX => URL'" "watch --help"

P_S=$(port 0) P_N=$(port 1) P_A=$(port 2) P_D=$(port 3)
try "cgisnap config writes the rules for nginx and Apache"
"$CGISNAP" config nginx --listen "127.0.0.1:$P_N" "$OUT" >"$TESTDIR/nginx.conf" 2>"$TESTDIR/config.err"
check_eq 0 $? "nginx: exit status ($(cat "$TESTDIR/config.err"))"
"$CGISNAP" config apache --listen "127.0.0.1:$P_A" "$OUT" >"$TESTDIR/apache.conf" 2>>"$TESTDIR/config.err"
check_eq 0 $? "apache: exit status ($(cat "$TESTDIR/config.err"))"
check_contains "$(cat "$TESTDIR/nginx.conf")" 'return 302 "http://localhost/doku.php?id=$1";' "nginx: the back-reference"
check_contains "$(cat "$TESTDIR/apache.conf")" '"http://localhost/doku.php?id=%1" [R=302' "Apache: the back-reference"

three_servers_start "$OUT" "$P_S" "$P_N" "$TESTDIR/nginx.conf" "$P_A" "$TESTDIR/apache.conf"

# URL, expected status, expected Location ("-": none).
cat >"$TESTDIR/urls" <<'EOF'
/doku.php?id=a&do=index 302 http://localhost/doku.php?do=index
/doku.php?id=ns:c&do=index 302 http://localhost/doku.php?do=index
/doku.php?id=newpage&do=index 302 http://localhost/doku.php?do=index
/doku.php?id=&do=index 302 http://localhost/doku.php?do=index
/doku.php?id=b&do=export_raw 302 http://localhost/doku.php?id=b
/doku.php?id=never:crawled&do=export_raw 302 http://localhost/doku.php?id=never:crawled
/doku.php?do=index 200 -
/doku.php?id=a 200 -
/doku.php?id=a&do=index&x=1 404 -
/doku.php?do=index&id=a 404 -
EOF

try "cgisnap serve, nginx and Apache answer every URL a rule matches with its 302, crawled or not"
for srv in serve:$P_S nginx:$P_N apache:$P_A; do
	name=${srv%%:*} p=${srv#*:}
	while read -r url status location; do
		curl -s -D "$TESTDIR/h" -o /dev/null "http://127.0.0.1:$p$url"
		check_eq "$status" "$(head -1 "$TESTDIR/h" | cut -d' ' -f2)" "$name: $url: status"
		got=$(header Location "$TESTDIR/h")
		check_eq "$location" "${got:--}" "$name: $url: Location"
	done <"$TESTDIR/urls"
done
bg_stop "$SERVE_PID"

try "serve --dynamic redirects what a rule matches instead of rendering it"
: >"$LOG"
bg_start "$CGISNAP" serve --dynamic --listen "127.0.0.1:$P_D" --root "$SITE" --cgi php=php-cgi "$OUT" \
	2>>"$TESTDIR/server.err"
DYN_PID=$BG_PID
wait_port "$P_D" 10 || fail "serve --dynamic did not start: $(cat "$TESTDIR/server.err")"
curl -s -D "$TESTDIR/h" -o /dev/null "http://127.0.0.1:$P_D/doku.php?id=new&do=index"
check_eq 302 "$(head -1 "$TESTDIR/h" | cut -d' ' -f2)" "a 302"
check_eq http://localhost/doku.php?do=index "$(header Location "$TESTDIR/h")" "to the sitemap"
check_contains "$(curl -s "http://127.0.0.1:$P_D/doku.php?id=a")" "<h1>Page a</h1>" "other URLs are rendered"
check_eq "/doku.php?id=a" "$(cat "$LOG")" "only that one ran the program"
bg_stop "$DYN_PID"

try "watch keeps the rules: a batch re-renders the page, and a matching URL stays a 302, never rendered"
SRC=$TESTDIR/src
mkdir -p "$SRC"
: >"$SRC/x.txt"
W=$TESTDIR/w
watch_start "$TESTDIR/wlog" --root "$SITE" --cgi php=php-cgi --site-url http://localhost/ \
	--seed '/doku.php?id=start' -j 2 --no-trace --source "$SRC" --canonical "$SITEMAP_RULE" \
	--depends 'x\.txt$ => /doku.php?id=a&do=index' --depends 'x\.txt$ => /doku.php?id=a' "$W"
check_eq 0 $? "watch came up ($(tail -3 "$TESTDIR/wlog"))"
check_eq 302 "$(manifest_field "$W" "/doku.php?id=a&do=index" 3)" "after the first crawl: a 302"
check_contains "$(cat "$W/.cgisnap/settings")" "canonical = $SITEMAP_RULE" "watch saves the rules too"
: >"$LOG"
echo edit >>"$SRC/x.txt"
wait_batches "$TESTDIR/wlog" 1
check_eq 0 $? "a batch ($(tail -3 "$TESTDIR/wlog"))"
check_eq "/doku.php?id=a" "$(cat "$LOG")" "only the page ran the program"
check_eq 302 "$(manifest_field "$W" "/doku.php?id=a&do=index" 3)" "still a 302"
check_eq http://localhost/doku.php?do=index "$(manifest_field "$W" "/doku.php?id=a&do=index" 9)" \
	"to the sitemap"
watch_stop
check_eq 0 "$WATCH_STATUS" "watch exit status"

try "regexes PCRE reads otherwise are refused by cgisnap config, naming the rule"
snap "$TESTDIR/gnu" -j 1 --canonical '^/doku\.php\?id=\<a\>&do=index$ => /doku.php?do=index' 2>"$TESTDIR/err7"
check_eq 0 $? "the snapshot takes it ($(tail -2 "$TESTDIR/err7"))"
"$CGISNAP" config nginx "$TESTDIR/gnu" >/dev/null 2>"$TESTDIR/err8"
check_eq 2 $? "exit status"
check_contains "$(cat "$TESTDIR/err8")" "--canonical '^/doku\\.php\\?id=\\<a\\>&do=index\$ => /doku.php?do=index'" \
	"the rule is named"

finish
