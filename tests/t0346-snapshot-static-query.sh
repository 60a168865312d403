#!/usr/bin/env bash
# t0346-snapshot-static-query: --static-query ignore: a file under --root
# linked with a cache-busting query (style.css?ver=1, as WordPress links
# its assets) is stored once, as the file itself; every such URL the pages
# link is listed and answered with it by cgisnap serve and by the
# generated nginx configuration's map; scripts keep their query keys; the
# default keeps today's PATH@QUERY files; a bad value is a usage error.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"
. "$(dirname "$0")/lib-serve.sh"

SITE=$TESTDIR/site
mkdir -p "$SITE/css" "$SITE/img"
cat >"$SITE/index.html" <<'HTML'
<html><head><title>home</title>
<link rel="stylesheet" href="/css/style.css?ver=1">
<link rel="stylesheet" href="/css/style.css?ver=2&amp;x=y">
</head><body><a href="/list.cgi?page=2">list</a> <a href="/css/style.css">plain</a></body></html>
HTML
printf 'body { background: url(/img/dot.png?v=3) }\n' >"$SITE/css/style.css"
printf '\211PNG\r\n\032\nnot really\n' >"$SITE/img/dot.png"
cat >"$SITE/list.cgi" <<'SH'
#!/bin/sh
printf 'Content-Type: text/html\n\n<p>list %s</p>\n' "$QUERY_STRING"
SH
chmod +x "$SITE/list.cgi"
OUT=$TESTDIR/out
P=$(port 0)

try "--static-query ignore: one file per static file, whatever query it was linked with"
"$CGISNAP" snapshot -q --root "$SITE" --static-query ignore "$OUT" 2>"$TESTDIR/err"
check_eq 0 $? "exit status ($(cat "$TESTDIR/err"))"
for t in '/css/style.css?ver=1' '/css/style.css?ver=2&x=y' /css/style.css; do
	check_eq "200 css/style.css" "$(manifest_field "$OUT" "$t" 3) $(manifest_field "$OUT" "$t" 2)" "$t"
done
check_eq "200 img/dot.png" "$(manifest_field "$OUT" '/img/dot.png?v=3' 3) $(manifest_field "$OUT" '/img/dot.png?v=3' 2)" \
	"an image a stylesheet names with a query"
check_eq "list.cgi@page=2.html" "$(manifest_field "$OUT" '/list.cgi?page=2' 2)" "a script keeps its query key"
check_eq "" "$(cd "$OUT" && find . -path ./.cgisnap -prune -o -name '*@*' -print | grep -v list.cgi)" \
	"no file named with a static file's query"
check_cmp "$SITE/css/style.css" "$OUT/css/style.css" "the stored stylesheet"

try "cgisnap serve answers each linked query URL with the file"
serve_start "$OUT" "$P"
curl -s -o "$TESTDIR/got.css" "http://127.0.0.1:$P/css/style.css?ver=2&x=y"
check_cmp "$SITE/css/style.css" "$TESTDIR/got.css" "style.css?ver=2&x=y"
check_eq 200 "$(code "http://127.0.0.1:$P/css/style.css?ver=1")" "style.css?ver=1"
check_eq 200 "$(code "http://127.0.0.1:$P/img/dot.png?v=3")" "dot.png?v=3"
bg_stop "$SERVE_PID"

try "the generated nginx configuration lists the query URLs for the file"
"$CGISNAP" config nginx "$OUT" >"$TESTDIR/nginx.conf" 2>"$TESTDIR/err"
check_eq 0 $? "config exit status ($(cat "$TESTDIR/err"))"
check_match "$(grep -F 'style.css?ver=1' "$TESTDIR/nginx.conf")" 'css/style\.css' "the map line of style.css?ver=1"

try "a second run writes nothing; a query no page links any more keeps the shared file"
before=$(tree_mtimes "$OUT")
"$CGISNAP" snapshot -q --root "$SITE" --static-query ignore "$OUT" 2>"$TESTDIR/err"
check_eq 0 $? "exit status ($(cat "$TESTDIR/err"))"
check_eq "$before" "$(tree_mtimes "$OUT")" "files rewritten"
sed -i 's|<link rel="stylesheet" href="/css/style.css?ver=1">||' "$SITE/index.html"
"$CGISNAP" snapshot -q --root "$SITE" --static-query ignore "$OUT" 2>"$TESTDIR/err"
check_eq 0 $? "exit status ($(cat "$TESTDIR/err"))"
check_eq "" "$(manifest_field "$OUT" '/css/style.css?ver=1' 3)" "the unlinked URL is gone from the manifest"
check_cmp "$SITE/css/style.css" "$OUT/css/style.css" "the file the other URLs share"

try "the default keeps a query key per URL"
"$CGISNAP" snapshot -q --root "$SITE" "$TESTDIR/keep" 2>"$TESTDIR/err"
check_eq 0 $? "exit status ($(cat "$TESTDIR/err"))"
check_eq "css/style.css@ver=2&x=y.css" "$(manifest_field "$TESTDIR/keep" '/css/style.css?ver=2&x=y' 2)" "key"

try "a bad --static-query is a usage error naming it"
"$CGISNAP" snapshot --root "$SITE" --static-query drop "$TESTDIR/bad" 2>"$TESTDIR/err"
check_eq 2 $? "exit status"
check_contains "$(cat "$TESTDIR/err")" "bad --static-query 'drop': keep or ignore" "message"
check_no_file "$TESTDIR/bad/.cgisnap/tree.db" "no tree made"

finish
