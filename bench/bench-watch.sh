#!/usr/bin/env bash
# bench/bench-watch.sh - how fresh 'cgisnap watch' keeps a snapshot: on
# the sample wiki, one page is edited EDITS times (each edit after the
# previous batch is done, SPACING_MS later); for each edit, the time from
# the write to the page's new file in the tree (its mtime, set when it is
# published), the page's own render time, and the pages re-rendered and
# changed per edit; next to the cost of a full re-crawl (SIGUSR1).
# Prints figures and whether each goal was met; never fails on them.
#
# PAGES=1000 (wiki size), EDITS=50, SPACING_MS=200, DEBOUNCE_MS=10 (the
# watcher's --debounce, the longest a batch waits for a save under way;
# a single write starts its batch at once whatever it is),
# LIMIT_S=1200 (the whole run is cut short after this long, with what was
# measured so far), CGI_MODE=workers (--cgi-mode: the warm php-cgi
# workers, traced per request; CGI_MODE=fork for a process per render,
# to compare).
#
# The wiki's backlinks pages (doku.php?id=X&do=backlink) are not crawled:
# each reads every page source, so every edit would re-render all PAGES of
# them (their output changes only when links change); the script says how
# many there would be.
set -u
. "$(dirname "$0")/lib-bench.sh"
bench_defaults PAGES=1000 EDITS=50 SPACING_MS=200 DEBOUNCE_MS=10 LIMIT_S=1200 CGI_MODE=workers
START=$SECONDS
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cgisnap-bench-watch.XXXXXX")
watch_pid=""
cleanup() {
	if [ -n "$watch_pid" ]; then
		kill "$watch_pid" 2>/dev/null
		wait "$watch_pid" 2>/dev/null
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT

# calc EXPR: floating-point arithmetic (awk: no bc needed).
calc() { awk "BEGIN { printf \"%.1f\", $* }"; }
# goal EXPR: "met" when the comparison holds.
# pct P FILE: the P-th percentile (nearest rank) of the numbers in FILE.
pct() { sort -n "$2" | awk -v p="$1" '{ v[NR] = $1 } END { if (!NR) { print "nan"; exit } r = int((p * NR + 99) / 100); if (r < 1) r = 1; print v[r] }'; }
mean() { awk '{ s += $1 } END { printf "%.1f", NR ? s / NR : 0 }' "$1"; }
left() { echo $((LIMIT_S - (SECONDS - START))); }
batches() { grep -c '^cgisnap: batch: ' "$WORK/watch.log"; }
# wait_for CMD...: poll CMD every 10 ms until it succeeds or the time is up.
wait_for() {
	while ! "$@" 2>/dev/null; do
		[ "$(left)" -gt 0 ] || return 1
		sleep 0.01
	done
}
more_batches() { [ "$(batches)" -gt "$1" ]; }

if [ ! -x "$CGISNAP" ] || [ ! -f "$ROOT/build/cgisnap-trace.so" ]; then
	echo "watch: build first (make): no $CGISNAP or build/cgisnap-trace.so"
	exit 1
fi

STRIP='<img src="[^"]*taskrunner\.php[^>]*>'
SITE=$WORK/wiki
OUT=$WORK/out
bench_seed_wiki "$SITE" "$PAGES"

"$CGISNAP" watch --root "$SITE" --cgi php=php-cgi --site-url http://localhost:8080/ --strip "$STRIP" \
	--not-found '/doku.php?id=cgisnap:no-such-page' --exclude 'do=backlink' -j "$CORES" \
	--debounce "$DEBOUNCE_MS" --cgi-mode "$CGI_MODE" --source "$SITE/data" "$OUT" 2>"$WORK/watch.log" &
watch_pid=$!
if ! wait_for grep -q '^cgisnap: watching ' "$WORK/watch.log"; then
	echo "watch: the watcher did not come up within ${LIMIT_S} s:"
	tail -5 "$WORK/watch.log"
	exit 1
fi
initial=$(sed -n 's/.*: \([0-9]*\) URLs in \([0-9.]*\) s .*/\1 \2/p' "$WORK/watch.log" | head -1)
set -- $initial
urls=$1 initial_s=$2

# The edited page: the first page of the howto namespace.
P=$(cd "$SITE/data/pages/howto" && ls *.txt | grep -v '^start.txt$' | head -1)
P=howto:${P%.txt}
SRC=$SITE/data/pages/howto/${P#howto:}.txt
KEY=$OUT/doku.php@id=$P.html
: >"$WORK/latency" >"$WORK/render" >"$WORK/rendered" >"$WORK/changed"
done_edits=0
for i in $(seq 1 "$EDITS"); do
	n=$(batches)
	t0=$EPOCHREALTIME
	printf 'Bench edit %d.\n' "$i" >>"$SRC"
	wait_for more_batches "$n" || break
	line=$(grep '^cgisnap: batch: ' "$WORK/watch.log" | tail -1)
	t1=$(stat -c %.9Y "$KEY")
	calc "($t1 - $t0) * 1000" >>"$WORK/latency"
	echo >>"$WORK/latency"
	awk -F'\t' -v t="/doku.php?id=$P" '$1 == t { print $7 }' <("$CGISNAP" ls "$OUT") >>"$WORK/render"
	printf '%s\n' "$line" | sed -n 's/.*: \([0-9]*\) URLs\{0,1\} re-rendered.*/\1/p' >>"$WORK/rendered"
	printf '%s\n' "$line" | sed -n 's/.* re-rendered, \([0-9]*\) files\{0,1\} changed.*/\1/p' >>"$WORK/changed"
	done_edits=$i
	sleep "$(calc "$SPACING_MS / 1000")"
done

# A full re-crawl, as after an overflow: every page rendered, nothing changed.
full_ms="" full_urls=""
n=$(batches)
kill -USR1 "$watch_pid"
if wait_for more_batches "$n"; then
	line=$(grep '^cgisnap: batch: ' "$WORK/watch.log" | tail -1)
	full_urls=$(printf '%s\n' "$line" | sed -n 's/.*: \([0-9]*\) URLs re-rendered.*/\1/p')
	full_ms=$(printf '%s\n' "$line" | sed -n 's/.*, \([0-9]*\) ms$/\1/p')
fi
# How many pages read the edited page's source (the re-renders tracing
# asks for), and how many more the backlinks pages would add.
readers=$(awk -F'\t' -v p="$SRC" '$2 == "R" && $3 == p' <("$CGISNAP" ls --deps "$OUT") | wc -l)
kill "$watch_pid" 2>/dev/null
wait "$watch_pid" 2>/dev/null
watch_pid=""

p50=$(pct 50 "$WORK/latency")
p95=$(pct 95 "$WORK/latency")
r50=$(pct 50 "$WORK/render")
rendered=$(mean "$WORK/rendered")
changed=$(mean "$WORK/changed")
echo "wiki of $PAGES pages, $CORES cores, -j $CORES, --debounce $DEBOUNCE_MS ms, --cgi-mode $CGI_MODE; backlinks pages not crawled"
echo "initial snapshot: $urls URLs in $initial_s s"
[ "$done_edits" -eq "$EDITS" ] || echo "(cut short after $done_edits of $EDITS edits: LIMIT_S=$LIMIT_S reached)"
echo "edits of $P: $done_edits, one write each, ${SPACING_MS} ms after the previous batch"
echo "  write -> published page: p50 $p50 ms, p95 $p95 ms"
echo "  the page's render: p50 $r50 ms ($([ "$CGI_MODE" = fork ] && echo "php-cgi start-up included" || echo "a warm worker")); p50 latency minus render: $(calc "$p50 - $r50") ms"
echo "  per edit: $rendered pages re-rendered, $changed files changed (the page, recent changes, ...)"
echo "  pages whose recorded dependencies include the page's source: $readers (+ $PAGES backlinks pages if crawled)"
if [ -n "$full_ms" ]; then
	echo "full re-crawl (SIGUSR1): $full_urls URLs in $full_ms ms, i.e. $(calc "$full_ms / ($p50 > 0 ? $p50 : 1)") x the p50 latency"
fi
echo "goal: p50 <= page render + 20 ms ($p50 <= $r50 + 20): $(goal "$p50 <= $r50 + 20")"
echo "goal: re-renders per edit <= files really changed + 2 ($rendered <= $changed + 2): $(goal "$rendered <= $changed + 2")"
