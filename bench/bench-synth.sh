#!/usr/bin/env bash
# bench/bench-synth.sh - how cgisnap's costs grow with the site: a
# synthetic site of our own (bench/synth/page.c, a C CGI built here: N
# pages linked as a tree, each reading its own data file and one shared
# template, about 1 ms a render) at several sizes. For each size:
#   - snapshot: crawl pages/s, metadata bytes per page (DIR/.cgisnap/*),
#     its peak RSS (a first crawl holds every page it found); when root,
#     the crawl again with each render as nobody, as root's snapshot
#     renders by default (the bench's own rows render as root);
#   - watch on that tree: start-up to the "watching" line (the snapshot
#     traces its renders, so watch starts without a re-crawl; the
#     "re-crawled the tree first" row says whether it did), metadata
#     bytes per page after it;
#   - write -> published p50/p95 for EDITS spaced single-page edits (the
#     page's mtime in the tree minus the time of the write), next to the
#     page's render time and the batch line's ms (its first change seen to
#     its end: the pages published, the manifest saved);
#   - one edit of the shared template: every page re-renders (pages/s;
#     TEMPLATE=0 leaves it out, for a quick look at a big size);
#   - watch's memory: its RSS at "watching" and its peak (VmHWM) before
#     it stops, in MiB and per page above the first size's; and, started
#     on an empty tree (FIRST_CRAWL=0 leaves it out), its RSS at
#     "watching" after its own first crawl, and that crawl's peak;
#   - serve on the tree: start-up (until it accepts) and RSS after a request.
# Then the ratio of each figure at each size to the first size's.
# Figures and goals (issue 14), never pass/fail.
#
# SIZES="1000 10000" (BENCH_FULL=1: "1000 10000 100000"), EDITS=20,
# SPACING_MS=200, LIMIT_S=1800 per size (a size cut short says so).
# CGISNAP=path measures another build (an older one, for comparison).
set -u
. "$(dirname "$0")/lib-bench.sh"
if [ -n "${BENCH_FULL:-}" ]; then
	SIZES=${SIZES:-1000 10000 100000}
else
	SIZES=${SIZES:-1000 10000}
fi
bench_defaults EDITS=20 SPACING_MS=200 LIMIT_S=1800 TEMPLATE=1 FIRST_CRAWL=1
bench_start synth

bench_need_tools "${CC:-cc}" curl /usr/bin/time
# Open to the user the renders run as in the "as nobody" row.
chmod 755 "$WORK"
if [ ! -x "$CGISNAP" ] || [ ! -f "$(dirname "$CGISNAP")/build/cgisnap-trace.so" ]; then
	echo "synth: build first (make): no $CGISNAP or build/cgisnap-trace.so beside it"
	exit 1
fi
PAGE_CGI=$WORK/page.cgi
if ! "${CC:-cc}" -O2 -std=c11 -Wall -Wextra -o "$PAGE_CGI" "$ROOT/bench/synth/page.c"; then
	echo "synth: cannot build bench/synth/page.c"
	exit 1
fi

calc() { awk "BEGIN { printf \"%.${2:-1}f\", $1 }"; }
# pct P FILE: the P-th percentile (nearest rank) of the numbers in FILE.
pct() { sort -n "$2" | awk -v p="$1" '{ v[NR] = $1 } END { if (!NR) { print "nan"; exit } r = int((p * NR + 99) / 100); if (r < 1) r = 1; print v[r] }'; }
# now: finer than lib-bench.sh's, and without a fork per reading.
now() { printf '%s' "$EPOCHREALTIME"; }
# meta_bytes DIR: the bytes of DIR/.cgisnap/* (lock and socket aside).
meta_bytes() { find "$1/.cgisnap" -type f ! -name lock -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; }
batches() { grep -c '^cgisnap: batch: ' "$1"; }
# wait_for SECONDS CMD...: poll CMD every 5 ms until it succeeds; 1 after SECONDS.
wait_for() {
	local end=$((SECONDS + $1))
	shift
	while ! "$@" 2>/dev/null; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.005
	done
}
# proc_mib PID FIELD: /proc/PID/status's FIELD (VmRSS, VmHWM) in MiB.
proc_mib() { awk -v f="$2:" '$1 == f { printf "%.1f", $2 / 1024 }' "/proc/$1/status" 2>/dev/null; }
more_batches() { [ "$(batches "$1")" -gt "$2" ]; }
has_line() { grep -q "$2" "$1"; }
# watching_or_gone LOG PID: watch said it watches, or it is gone.
watching_or_gone() { has_line "$1" '^cgisnap: watching ' || ! kill -0 "$2" 2>/dev/null; }
# render_ms TREE TARGET: the page's render time as the manifest records it:
# the TSV file, else what 'cgisnap ls' prints in its columns (issue 14's
# plain-text view of a manifest kept elsewhere); empty when neither.
render_ms() {
	if head -1 "$1/.cgisnap/manifest" 2>/dev/null | grep -q '^# target'; then
		awk -F'\t' -v t="$2" '$1 == t { print $7 }' "$1/.cgisnap/manifest"
	else
		"$CGISNAP" ls "$1" 2>/dev/null | awk -F'\t' -v t="$2" '$1 == t { print $7 }'
	fi
}

declare -A R # R[size,figure]
run_size() {
	local n=$1 site=$WORK/site-$1 out=$WORK/out-$1 log=$WORK/watch-$1.log t0 t1 start=$SECONDS
	mkdir -p "$site"
	cp "$PAGE_CGI" "$site/page.cgi"
	"$PAGE_CGI" --generate "$site" "$n" || return 1
	# --max-pages 0: the default (100,000) would cut the 100k site short
	local common=(--root "$site" --seed '/page.cgi?id=0' -j "$CORES" --max-pages 0)

	# snapshot, its peak RSS: what a first crawl holds
	t0=$(now)
	/usr/bin/time -f %M -o "$WORK/snap-rss-$n" "$CGISNAP" snapshot -q "${common[@]}" "$out" 2>"$WORK/snap-$n.err" ||
		{ tail -3 "$WORK/snap-$n.err"; return 1; }
	t1=$(now)
	local urls
	urls=$(find "$out" -maxdepth 1 -name 'page.cgi@id=*.html' | wc -l)
	R[$n,urls]=$urls
	R[$n,crawl]=$(calc "$urls / ($t1 - $t0)" 0)
	R[$n,snap_rss]=$(calc "$(tail -1 "$WORK/snap-rss-$n") / 1024")

	# the same as root runs it by default: each render as another user
	# (the bench's own render as root, lib-bench.sh)
	R[$n,crawl_user]=""
	if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
		t0=$(now)
		if "$CGISNAP" snapshot -q "${common[@]}" --user nobody "$WORK/out-user" 2>"$WORK/snap-user-$n.err"; then
			t1=$(now)
			R[$n,crawl_user]=$(calc "$(find "$WORK/out-user" -maxdepth 1 -name 'page.cgi@id=*.html' | wc -l) / ($t1 - $t0)" 0)
		else
			echo "size $n: snapshot --user nobody failed: $(tail -1 "$WORK/snap-user-$n.err")"
		fi
		rm -rf "$WORK/out-user"
	fi
	R[$n,meta_snap]=$(calc "$(meta_bytes "$out") / $urls" 0)

	# watch on an empty tree: its own first crawl holds every page it
	# finds; what it keeps once it watches is what it gave back
	R[$n,first_rss]="" R[$n,first_hwm]=""
	if [ "$FIRST_CRAWL" != 0 ]; then
		local first_start=$SECONDS
		"$CGISNAP" watch "${common[@]}" --source "$site/data" "$WORK/out-first" 2>"$WORK/first-$n.log" &
		local fpid=$!
		pids="$pids $fpid"
		if wait_for "$LIMIT_S" watching_or_gone "$WORK/first-$n.log" "$fpid" && kill -0 "$fpid" 2>/dev/null; then
			R[$n,first_rss]=$(proc_mib "$fpid" VmRSS)
			R[$n,first_hwm]=$(proc_mib "$fpid" VmHWM)
		else
			echo "size $n: watch on an empty tree did not come up: $(tail -1 "$WORK/first-$n.log")"
		fi
		kill "$fpid" 2>/dev/null
		wait "$fpid" 2>/dev/null
		rm -rf "$WORK/out-first"
		# not the size's LIMIT_S: the timed edits below keep their time
		start=$((start + SECONDS - first_start))
	fi

	# watch: start-up on the snapshot's tree
	t0=$(now)
	"$CGISNAP" watch "${common[@]}" --source "$site/data" "$out" 2>"$log" &
	local wpid=$!
	pids="$pids $wpid"
	if ! wait_for "$LIMIT_S" has_line "$log" '^cgisnap: watching '; then
		echo "size $n: watch did not come up:"
		tail -3 "$log"
		return 1
	fi
	t1=$(now)
	R[$n,watch_start]=$(calc "$t1 - $t0" 2)
	R[$n,watch_recrawl]=$(grep -q '^cgisnap: initial snapshot' "$log" && echo yes || echo no)
	R[$n,meta_watch]=$(calc "$(meta_bytes "$out") / $urls" 0)
	R[$n,watch_rss]=$(proc_mib "$wpid" VmRSS)
	# A catch-up batch (sources newer than the snapshot's save) runs
	# after the "watching" line: the timed edits start once it ended,
	# or the first would be timed against it.
	if grep -q '^cgisnap: .*catching up with ' "$log" && ! wait_for "$LIMIT_S" more_batches "$log" 0; then
		echo "size $n: watch's catch-up batch did not end"
		return 1
	fi

	# spaced single-page edits, spread over the tree
	: >"$WORK/lat-$n" >"$WORK/render-$n" >"$WORK/batch-$n"
	local i id b line done_edits=0
	for i in $(seq 1 "$EDITS"); do
		[ $((SECONDS - start)) -lt "$LIMIT_S" ] || break
		id=$(((i * 7919) % n))
		b=$(batches "$log")
		t0=$(now)
		printf 'Bench edit %d.\n' "$i" >>"$site/data/pages/$((id / 1000))/$id.txt"
		wait_for 60 more_batches "$log" "$b" || break
		t1=$(stat -c %.9Y "$out/page.cgi@id=$id.html")
		calc "($t1 - $t0) * 1000" >>"$WORK/lat-$n"
		echo >>"$WORK/lat-$n"
		render_ms "$out" "/page.cgi?id=$id" >>"$WORK/render-$n"
		line=$(grep '^cgisnap: batch: ' "$log" | tail -1)
		printf '%s\n' "$line" | sed -n 's/.*, \([0-9]*\) ms$/\1/p' >>"$WORK/batch-$n"
		done_edits=$i
		sleep "$(calc "$SPACING_MS / 1000" 3)"
	done
	R[$n,edits]=$done_edits
	R[$n,p50]=$(pct 50 "$WORK/lat-$n")
	R[$n,p95]=$(pct 95 "$WORK/lat-$n")
	R[$n,render]=$(pct 50 "$WORK/render-$n")
	R[$n,batch]=$(pct 50 "$WORK/batch-$n")

	# the shared template: every page re-renders
	b=$(batches "$log")
	R[$n,tmpl]="" R[$n,tmpl_rate]=""
	[ "$TEMPLATE" = 0 ] || printf '<!-- template edit -->\n' >>"$site/data/template.html"
	if [ "$TEMPLATE" != 0 ] && wait_for "$LIMIT_S" more_batches "$log" "$b"; then
		line=$(grep '^cgisnap: batch: ' "$log" | tail -1)
		local pages ms
		pages=$(printf '%s\n' "$line" | sed -n 's/.*: \([0-9]*\) URLs\{0,1\} re-rendered.*/\1/p')
		ms=$(printf '%s\n' "$line" | sed -n 's/.*, \([0-9]*\) ms$/\1/p')
		R[$n,tmpl]="$pages pages in $ms ms"
		R[$n,tmpl_rate]=$(calc "$pages * 1000 / ($ms > 0 ? $ms : 1)" 0)
	fi
	R[$n,watch_hwm]=$(proc_mib "$wpid" VmHWM)
	kill "$wpid" 2>/dev/null
	wait "$wpid" 2>/dev/null

	# serve: start-up and memory
	local port spid
	port=$(free_port)
	t0=$(now)
	"$CGISNAP" serve -l "127.0.0.1:$port" "$out" 2>"$WORK/serve-$n.log" &
	spid=$!
	pids="$pids $spid"
	R[$n,serve_start]="" R[$n,serve_rss]=""
	if wait_for 30 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port"; then
		t1=$(now)
		R[$n,serve_start]=$(calc "($t1 - $t0) * 1000" 0)
		curl -s -o /dev/null "http://127.0.0.1:$port/page.cgi?id=1"
		R[$n,serve_rss]=$(proc_mib "$spid" VmRSS)
	fi
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	rm -rf "$site" "$out"
}

echo "synthetic site (bench/synth/page.c), $CORES cores, -j $CORES, $("$CGISNAP" --version 2>/dev/null | head -1), $EDITS edits ${SPACING_MS} ms apart"
sizes=()
for n in $SIZES; do
	if run_size "$n"; then
		sizes+=("$n")
		[ "${R[$n,edits]}" -eq "$EDITS" ] || echo "(size $n: ${R[$n,edits]} of $EDITS edits, LIMIT_S=$LIMIT_S reached)"
	else
		echo "(size $n: failed, above)"
	fi
done
[ "${#sizes[@]}" -ge 1 ] || exit 1
first=${sizes[0]}
# One row per figure, one column per size, then the ratio of the last
# size's figure to the first's.
rows=(
	"crawl|snapshot: crawl pages/s"
	"crawl_user|snapshot: pages/s, renders as nobody"
	"snap_rss|snapshot: peak RSS, MiB"
	"meta_snap|snapshot: metadata bytes/page"
	"watch_start|watch: start-up to watching, s"
	"watch_recrawl|watch: re-crawled the tree first"
	"meta_watch|watch: metadata bytes/page"
	"p50|edit: write -> published p50, ms"
	"p95|edit: write -> published p95, ms"
	"render|edit: the page's render p50, ms"
	"batch|edit: the batch line's ms, p50"
	"tmpl_rate|template edit: pages/s"
	"watch_rss|watch: RSS at watching, MiB"
	"watch_hwm|watch: peak RSS (VmHWM), MiB"
	"first_rss|first-crawl watch: RSS at watching, MiB"
	"first_hwm|first-crawl watch: peak RSS, MiB"
	"serve_start|serve: start-up, ms"
	"serve_rss|serve: RSS after a request, MiB"
)
printf '%-40s' "pages"
for n in "${sizes[@]}"; do printf ' %10s' "$n"; done
for n in "${sizes[@]:1}"; do printf ' %12s' "$first->$n"; done
echo
last=${sizes[${#sizes[@]} - 1]}
for row in "${rows[@]}"; do
	f=${row%%|*}
	printf '%-40s' "${row#*|}"
	for n in "${sizes[@]}"; do printf ' %10s' "${R[$n,$f]:-?}"; done
	a=${R[$first,$f]:-}
	for n in "${sizes[@]:1}"; do
		b=${R[$n,$f]:-}
		if [ -n "$a" ] && [ -n "$b" ] && awk "BEGIN { exit !(\"$a\" + 0 > 0) }"; then
			printf ' %12s' "x$(calc "$b / $a" 2)"
		fi
	done
	echo
done
for n in "${sizes[@]}"; do echo "template edit at $n pages: ${R[$n,tmpl]:-not seen}"; done
# watch's peak RSS per page: the slope from the first size to each other,
# of the larger of its two peaks (on the snapshot's tree, the template
# edit's batch included; on an empty tree, its own first crawl)
for n in "${sizes[@]}"; do
	R[$n,peak]=$(awk -v a="${R[$n,watch_hwm]:-}" -v b="${R[$n,first_hwm]:-}" \
		'BEGIN { if (a == "" && b == "") exit; print (b != "" && b + 0 > a + 0) ? b : a }')
done
per_page=""
for n in "${sizes[@]:1}"; do
	[ -n "${R[$n,peak]}" ] && [ -n "${R[$first,peak]}" ] || continue
	per_page=$(calc "(${R[$n,peak]} - ${R[$first,peak]}) * 1048576 / ($n - $first)" 0)
	echo "watch's peak RSS per page (first crawl included), from $first to $n pages: $per_page bytes"
done
for n in "${sizes[@]}"; do
	echo "at $n pages, write -> published, ms, sorted: $(sort -n "$WORK/lat-$n" | grep . | tr '\n' ' ')"
	echo "at $n pages, the batch line's ms, sorted: $(sort -n "$WORK/batch-$n" | grep . | tr '\n' ' ')"
done
last=${sizes[${#sizes[@]} - 1]}
echo "goals (issue 14) at $last pages:"
echo "  p50 <= render + 20 ms (${R[$last,p50]} <= ${R[$last,render]:-0} + 20): $(goal "${R[$last,p50]} <= ${R[$last,render]:-0} + 20")"
echo "  p95 <= render + 50 ms (${R[$last,p95]} <= ${R[$last,render]:-0} + 50): $(goal "${R[$last,p95]} <= ${R[$last,render]:-0} + 50")"
echo "  batch time within 1.5 x of $first pages (${R[$last,batch]} <= 1.5 x ${R[$first,batch]}): $(goal "${R[$last,batch]} <= 1.5 * ${R[$first,batch]}")"
echo "  metadata <= 400 bytes per page (${R[$last,meta_watch]}): $(goal "${R[$last,meta_watch]} <= 400")"
echo "  watch start-up <= 2 s (${R[$last,watch_start]} s): $(goal "${R[$last,watch_start]} <= 2")"
echo "  serve start-up <= 1 s (${R[$last,serve_start]} ms): $(goal "${R[$last,serve_start]:-99999} <= 1000")"
[ -z "$per_page" ] ||
	echo "  watch's peak RSS at a million pages <= 256 MB (issue 25; linear from the sizes above: $(calc "(${R[$first,peak]} * 1048576 + $per_page * (1000000 - $first)) / 1000000" 0) MB): $(goal "${R[$first,peak]} * 1048576 + $per_page * (1000000 - $first) <= 256000000")"
echo "  serve RSS <= 15 MiB + cache (${R[$last,serve_rss]} MiB): $(goal "${R[$last,serve_rss]:-99999} <= 15")"
