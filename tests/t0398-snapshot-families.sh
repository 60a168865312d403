#!/usr/bin/env bash
# t0398-snapshot-families: the end of a snapshot names the query parameters
# and URL families that multiplied URLs without content, each with the
# options that remove them; a second run with those options pasted stores
# every distinct body still, under fewer URLs, and every link on the stored
# pages still answers from cgisnap serve: the copies of a one-body family
# are sent to one copy by a --canonical rule, not excluded.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/lib-snapshot.sh"
. "$ROOT/tests/lib-serve.sh"
. "$ROOT/tests/lib-watch.sh"

SITE=$TESTDIR/site
OUT=$TESTDIR/out
mkdir -p "$SITE"

ids="A B C D E F G H I J"
{
	echo '<html><body>'
	for id in $ids; do echo "<a href=\"/idx.cgi?id=$id\">$id</a>"; done
	for p in about news help; do echo "<a href=\"/$p.cgi\">$p</a> <a href=\"/$p.cgi?utm_source=x\">$p</a>"; done
	# a cache-buster as a bare timestamp, as WordPress themes and DokuWiki write them
	for n in 1 2 3; do echo "<link rel=\"stylesheet\" href=\"/style.css?173300000$n\">"; done
	echo '</body></html>'
} >"$SITE/index.html"
# Each page links its sitemap (one sitemap per page id, all the same, as
# DokuWiki's do=index) and carries a web bug whose URL changes on every
# render.
cgi idx.cgi 'printf "Content-Type: text/html\n\n"
case "&$QUERY_STRING&" in
*"&do=index&"*)
	echo "<h1>sitemap</h1>"
	for id in '"$ids"'; do echo "<a href=\"/idx.cgi?id=$id\">$id</a>"; done ;;
*)
	id=${QUERY_STRING#id=}
	echo "<h1>page $id</h1><a href=\"/idx.cgi?id=$id&amp;do=index\">sitemap</a>"
	echo "<img src=\"/bug.cgi?t=$(date +%s%N)\">" ;;
esac'
printf 'p { color: black }\n' >"$SITE/style.css"
cgi bug.cgi 'printf "Content-Type: image/gif\n\nGIF89a-bug"'
for p in about news help; do
	cgi $p.cgi "printf 'Content-Type: text/html\n\n<p>the $p page</p>\n'"
done

# bodies OUT: the distinct bodies of the tree, the web bug's time blanked.
bodies() {
	(cd "$1" && find . -path ./.cgisnap -prune -o -type f ! -name '*.gz' -print0 |
		xargs -0 -n1 sh -c 'sed "s/t=[0-9]*/t=TIME/" "$0" | sha256sum' | cut -d' ' -f1 | LC_ALL=C sort -u)
}

try "the summary names the sitemap family, the web bug's time and the tracking parameter"
"$CGISNAP" snapshot --root "$SITE" -j 2 "$OUT" 2>"$TESTDIR/err"
check_eq 0 $? "exit status"
err=$(cat "$TESTDIR/err")
check_contains "$err" "query parameters and URL families that multiplied URLs" "heading"
lines=$(grep '^  [-#]' "$TESTDIR/err")
check_eq "  --canonical '^/idx\\.cgi\\?id=([^&A][^&]*|A[^&]+)?&do=index\$ => /idx.cgi?id=A&do=index'  # '/idx.cgi?id=…&do=index': 10 URLs, 1 distinct body (text/html); 'id' changes bodies elsewhere; the rule answers the others with a 302 to /idx.cgi?id=A&do=index, which keeps the one copy
  --ignore-param t  # 't' never changed a body: 10 URLs on 1 path (e.g. $(grep -o '^/bug.cgi?t=[0-9]*' <(manifest_targets "$OUT") | head -1)); its values look like timestamps or cache-busters; no URL without it was crawled: check that one answers the same
  --ignore-param utm_source  # 'utm_source' never changed a body: 3 URLs on 3 paths (e.g. /about.cgi?utm_source=x)
  --ignore-param '[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]*'  # '<number>' never changed a body: 3 URLs on 1 path (e.g. /style.css?1733000001); its values look like timestamps or cache-busters; no URL without it was crawled: check that one answers the same" \
	"$lines" "the option lines, worst first"
check_eq "$(tail -n 5 "$TESTDIR/err")" "$(grep -A4 'multiplied URLs' "$TESTDIR/err")" "at the very end"
check_eq 10 "$(manifest_targets "$OUT" | grep -c '^/bug\.cgi?t=')" "web bug URLs stored"
bodies "$OUT" >"$TESTDIR/bodies1"
# the front page, 10 pages, the sitemap, the web bug, 3 more pages, the stylesheet
check_eq 17 "$(wc -l <"$TESTDIR/bodies1")" "distinct bodies stored"

try "-q prints none of it; -v adds every parameter"
"$CGISNAP" snapshot -q --root "$SITE" "$TESTDIR/quiet" 2>"$TESTDIR/err-q"
check_eq "" "$(cat "$TESTDIR/err-q")" "quiet"
"$CGISNAP" snapshot -v --root "$SITE" "$TESTDIR/verbose" 2>"$TESTDIR/err-v"
check_contains "$(cat "$TESTDIR/err-v")" "  'id': 20 URLs on 1 path, 11 distinct bodies, 10 distinct values" "id row"
check_contains "$(cat "$TESTDIR/err-v")" "  'do': 10 URLs on 1 path, 1 distinct body, 1 distinct value" "do row"
check_contains "$(cat "$TESTDIR/err-v")" "  'utm_source': 3 URLs on 3 paths, 3 distinct bodies, 1 distinct value (never changed a body)" "utm_source row"

try "the options pasted store every distinct body still, under fewer URLs"
opts=$(sed -n 's/^  \(--.*\)  # .*/\1/p' "$TESTDIR/err" | tr '\n' ' ')
eval "set -- $opts"
check_eq 8 $# "options and values pasted"
"$CGISNAP" snapshot --root "$SITE" -j 2 "$@" "$OUT" 2>"$TESTDIR/err2"
check_eq 0 $? "exit status"
targets=$(manifest_targets "$OUT")
check_eq 10 "$(grep -c '^/idx\.cgi?id=[A-J]&do=index$' <<<"$targets")" "every sitemap URL known"
for id in $ids; do
	want=200 to=-
	[ "$id" = A ] || want=302 to=/idx.cgi?id=A\&do=index
	check_eq "$want" "$(manifest_field "$OUT" "/idx.cgi?id=$id&do=index" 3)" "$id&do=index: status"
	loc=$(manifest_field "$OUT" "/idx.cgi?id=$id&do=index" 9)
	check_eq "$to" "$([ "$loc" = - ] && echo - || echo "/${loc#*://*/}")" "$id&do=index: where it sends"
done
check_eq "idx.cgi@id=A&do=index.html" "$(ls "$OUT" | grep 'do=index')" "one sitemap stored"
check_eq "/bug.cgi" "$(grep '^/bug' <<<"$targets")" "one web bug URL"
check_eq "" "$(grep utm_source <<<"$targets")" "no tracking URLs"
check_eq "/style.css" "$(grep '^/style' <<<"$targets")" "one stylesheet URL"
check_eq 10 "$(grep -c '^/idx\.cgi?id=[A-J]$' <<<"$targets")" "every page"
bodies "$OUT" >"$TESTDIR/bodies2"
check_eq "$(cat "$TESTDIR/bodies1")" "$(cat "$TESTDIR/bodies2")" "the same distinct bodies"
check_not_contains "$(cat "$TESTDIR/err2")" "multiplied URLs" "nothing left to report"

try "cgisnap serve answers every link of the stored pages, the copies with a 302 to the one kept"
P=$(port 0)
serve_start "$OUT" "$P"
for id in B J Z; do
	curl -s -D "$TESTDIR/h" -o /dev/null "http://127.0.0.1:$P/idx.cgi?id=$id&do=index"
	check_eq 302 "$(head -1 "$TESTDIR/h" | cut -d' ' -f2)" "$id&do=index: status"
	check_eq "/idx.cgi?id=A&do=index" "$(header Location "$TESTDIR/h" | sed 's|^[a-z]*://[^/]*||')" \
		"$id&do=index: Location"
done
check_eq 200 "$(code "http://127.0.0.1:$P/idx.cgi?id=A&do=index")" "the kept sitemap"
# every href and src of every stored page, as a browser would ask for it
links=$(cd "$OUT" && find . -path ./.cgisnap -prune -o -type f -name '*.html' -print0 |
	xargs -0 grep -ohE '(href|src)="/[^"]*"' | sed 's/^[a-z]*="//; s/"$//; s/&amp;/\&/g' | LC_ALL=C sort -u)
# the front page's 19, each page's sitemap and web bug (a new time each)
check_eq 39 "$(wc -l <<<"$links")" "links found"
broken=
while read -r url; do
	c=$(code "http://127.0.0.1:$P$url")
	case $c in 2??|3??) ;; *) broken="$broken $url:$c" ;; esac
done <<<"$links"
check_eq "" "$broken" "links that do not answer 2xx or 3xx"
bg_stop "$SERVE_PID"

try "watch reports it after its initial snapshot, not after a full re-crawl batch"
mkdir -p "$TESTDIR/src"
LOG=$TESTDIR/watch.log
watch_start "$LOG" --root "$SITE" -j 2 --source "$TESTDIR/src" "$TESTDIR/watched"
check_eq 0 $? "watch came up"
check_eq 1 "$(grep -c 'multiplied URLs' "$LOG")" "initial snapshot reports"
kill -USR1 "$WATCH_PID"
wait_batches "$LOG" 1
check_eq 1 "$(batches "$LOG")" "one full re-crawl batch"
watch_stop
check_eq 1 "$(grep -c 'multiplied URLs' "$LOG")" "the batch did not report again"
check_eq 4 "$(grep -c '^  --' "$LOG")" "option lines, once"

finish
