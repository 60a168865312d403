#!/usr/bin/env bash
# bench/bench-dwwatch.sh - Debian's DokuWiki under 'cgisnap watch' (the
# dokuwiki profile found by itself, --cgi php=php-cgi, traced), edited
# EDITS times through DokuWiki's own saveWikiText (as its editor saves:
# tests/fixtures/apps/dw-save.php), each edit after the batches of the one
# before have ended:
#
#   - edit -> published: from the page source's mtime (the write) to the
#     mtime of the page's new file in the tree (set when it is published);
#     p50 and max, next to the page's own render time;
#   - the URLs re-rendered and files changed per edit, and the rank of the
#     edited page among the files its batch published (1: first);
#   - metadata bytes per URL (everything under .cgisnap but the programs'
#     error log, the database's write-ahead log included) after the
#     snapshot and after the edits.
#
# EDITS=10. Goals (issue 25): edit -> published at most 150 ms p50;
# metadata at most 2,000 bytes per URL after watch. Never fails on them.
# BENCH=dwwatch bench/run-bench runs this section alone.
set -u
. "$(dirname "$0")/lib-bench.sh"
. "$ROOT/tests/lib-apps.sh"
bench_defaults EDITS=10
bench_need_packages dwwatch dokuwiki php-cgi

bench_start dwwatch
calc() { awk "BEGIN { printf \"%.1f\", $* }"; }
# pct P FILE: the P-th percentile of the numbers in FILE, one a line.
pct() { sort -n "$2" | awk -v p="$1" '{ a[NR] = $1 } END { i = int((NR - 1) * p / 100) + 1; print a[i] }'; }
# meta_per_url: the bytes under .cgisnap per URL, the database's
# write-ahead log included; the programs' stderr (error.log, at most 2 MiB
# of PHP's warnings) is a log, not the tree's metadata, and is left out.
meta_per_url() {
	local bytes urls
	bytes=$(find "$OUT/.cgisnap" -type f ! -name 'error.log*' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
	urls=$(grep -vc '^#' <("$CGISNAP" ls "$OUT"))
	echo $((bytes / urls))
}
batches() { grep -c '^cgisnap: batch: ' "$WORK/watch.log"; }
# quiet N: N batches or more, then none for half a second.
quiet() {
	local n=$1 seen
	until [ "$(batches)" -ge "$n" ]; do sleep 0.01; done
	seen=$(batches)
	while sleep 0.5; [ "$(batches)" != "$seen" ]; do seen=$(batches); done
}

dokuwiki_site "$WORK/dw" >/dev/null || { echo "dwwatch: the DokuWiki did not set up"; exit 1; }
OUT=$WORK/out
"$CGISNAP" snapshot --root "$DW_ROOT" --cgi php=php-cgi --site-url "$DW_URL" -q "$OUT" 2>"$WORK/snap.err" ||
	{ echo "dwwatch: the snapshot failed: $(grep -v 'PHP ' "$WORK/snap.err" | tail -2)"; exit 1; }
meta_snap=$(meta_per_url)
"$CGISNAP" watch --root "$DW_ROOT" --cgi php=php-cgi --site-url "$DW_URL" "$OUT" 2>"$WORK/watch.log" &
pids="$pids $!"
for _ in $(seq 1 600); do grep -q '^cgisnap: watching ' "$WORK/watch.log" && break; sleep 0.1; done
grep -q '^cgisnap: watching ' "$WORK/watch.log" || { echo "dwwatch: watch did not start: $(tail -2 "$WORK/watch.log")"; exit 1; }
quiet 0

# The edited page: the first of the seeded pages in a namespace.
ID=$(awk -F'\t' '$1 ~ /:page0[2-9]$/ { print $1; exit }' "$DW_PAGES_FILE")
SRC=$DW_DATA/pages/$(printf '%s' "$ID" | tr : /).txt
TARGET="/doku.php?id=$ID"
KEY=$(awk -F'\t' -v t="$TARGET" '$1 == t { print $2 }' <("$CGISNAP" ls "$OUT"))
[ -n "$KEY" ] && [ -f "$SRC" ] || { echo "dwwatch: no page to edit ('$ID': '$SRC', '$KEY')"; exit 1; }
: >"$WORK/latency" >"$WORK/rendered" >"$WORK/changed" >"$WORK/rank"
for i in $(seq 1 "$EDITS"); do
	n=$(batches)
	before=$(stat -c %.9Y "$OUT/$KEY")
	{ cat "$SRC"; printf '\nBench edit %d.\n' "$i"; } |
		php -d display_errors=stderr -d error_reporting=E_ERROR "$ROOT/tests/fixtures/apps/dw-save.php" \
			"$DW_ROOT" "$ID" "bench edit $i" 2>"$WORK/save.err" ||
		{ echo "dwwatch: the save failed: $(tail -2 "$WORK/save.err")"; exit 1; }
	quiet $((n + 1))
	t0=$(stat -c %.9Y "$SRC")
	t1=$(stat -c %.9Y "$OUT/$KEY")
	calc "($t1 - $t0) * 1000" >>"$WORK/latency"
	echo >>"$WORK/latency"
	rendered=0 changed=0
	while read -r line; do
		r=$(printf '%s\n' "$line" | sed -n 's/.*: \([0-9]*\) URLs\{0,1\} re-rendered.*/\1/p')
		c=$(printf '%s\n' "$line" | sed -n 's/.* re-rendered, \([0-9]*\) files\{0,1\} changed.*/\1/p')
		rendered=$((rendered + ${r:-0})) changed=$((changed + ${c:-0}))
	done < <(grep '^cgisnap: batch: ' "$WORK/watch.log" | tail -n +"$((n + 1))")
	echo "$rendered" >>"$WORK/rendered"
	echo "$changed" >>"$WORK/changed"
	# The edited page's place among the pages published since the save.
	(cd "$OUT" && find . -path ./.cgisnap -prune -o -type f ! -name '*.gz' -newermt "@$t0" -printf '%T@ %P\n') |
		sort -n | awk -v k="$KEY" '$2 == k { print NR; exit }' >>"$WORK/rank"
	[ "$before" != "$(stat -c %.9Y "$OUT/$KEY")" ] || echo "dwwatch: edit $i was not published"
done
meta_watch=$(meta_per_url)
render_ms=$(awk -F'\t' -v t="$TARGET" '$1 == t { print $7 }' <("$CGISNAP" ls "$OUT"))

echo "Debian's DokuWiki, $(grep -vc '^#' <("$CGISNAP" ls "$OUT")) URLs, page $ID edited $EDITS times through saveWikiText"
echo "edit -> published: p50 $(pct 50 "$WORK/latency") ms, max $(pct 100 "$WORK/latency") ms (the page renders in ${render_ms:-?} ms)"
echo "per edit: $(pct 50 "$WORK/rendered") URLs re-rendered, $(pct 50 "$WORK/changed") files changed (medians); the edited page published at rank $(pct 50 "$WORK/rank") among the pages of its batch (median; 1: first)"
echo "metadata bytes per URL (.cgisnap but error.log, WAL included): $meta_snap after the snapshot, $meta_watch after watch; error.log $(cat "$OUT/.cgisnap/error.log"* | wc -c) bytes"
echo "goal (issue 25): edit -> published at most 150 ms p50: $(goal "$(pct 50 "$WORK/latency") <= 150")"
echo "goal (issue 25): metadata at most 2,000 bytes per URL after watch: $(goal "$meta_watch <= 2000")"
