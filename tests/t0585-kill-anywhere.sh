#!/usr/bin/env bash
# t0585-kill-anywhere: SIGKILL at points spread over whole runs of
# snapshot (an update of a tree after edits), watch (mid-batch, after
# edits) and serve --fill (while clients request every page), at random
# delays drawn from a fixed seed; after each kill the command runs again
# to its end, and then: every file the manifest lists has its recorded
# bytes and sha256, no temporary file is left in the tree, no page
# stored before the kill is lost, and the tree equals a clean snapshot
# of the site as it is (serve --fill: each page it stored equals that
# snapshot's).
#
# KILLS (default 12 here; 'make soak' runs 200) are shared by the three
# commands; SEED (default 1) chooses the delays and the pages edited.
# The last line says how many kills were made (each in a running
# command) and how many the tree survived (docs/benchmarks.md).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-watch.sh"
. "$(dirname "$0")/lib-serve.sh"

KILLS=${KILLS:-12}
RANDOM=${SEED:-1}
watch_wiki_test 30
REF=$TESTDIR/ref
mapfile -t ARGS < <(watch_wiki_args "$SITE")
# The pages that list every page by its time (the recent changes, the
# index, the backlinks) say when they were rendered; a clean snapshot
# made later would differ in them for that alone.
ARGS+=(--exclude 'do=(backlink|index|recent)')
# snapshot takes the same options, but for watch's --source.
SNAP_ARGS=()
for ((i = 0; i < ${#ARGS[@]}; i++)); do
	if [ "${ARGS[i]}" = --source ]; then i=$((i + 1)); else SNAP_ARGS+=("${ARGS[i]}"); fi
done
mapfile -t PAGES < <(wiki_pages "$SITE")
made=0 survived=0 tries=0 round=0 kill_landed=0

# ms: the time now in ms.
ms() { echo $((${EPOCHREALTIME/./} / 1000)); }

# edit_some N: append a line naming the round to N pages drawn at random.
edit_some() {
	local i p
	round=$((round + 1))
	for ((i = 0; i < $1; i++)); do
		p=${PAGES[RANDOM % ${#PAGES[@]}]}
		printf '\nKill round %s edited this page.\n' "$round" >>"$(wiki_file "$SITE" "$p")"
	done
}

# delay MAX_MS: a random delay below MAX_MS, in seconds for nap.
delay() {
	local d=$(((RANDOM * 32768 + RANDOM) % $1))
	printf '%d.%03d' $((d / 1000)) $((d % 1000))
}

# stored TREE: "key sha256" of every file the manifest lists.
stored() {
	"$CGISNAP" ls "$1" | awk -F'\t' '!/^#/ && $2 != "-" { print $2, $6 }' | LC_ALL=C sort
}

# reference: a clean snapshot of the site as it is now, in REF.
reference() {
	rm -rf "$REF"
	snap_wiki "$SITE" "$REF" "${SNAP_ARGS[@]}" -q 2>"$TESTDIR/ref.err" || fail "the clean snapshot failed: $(tail -2 "$TESTDIR/ref.err")"
}

# survived WHAT TREE [STORED_BEFORE]: the checks after a kill and the
# run that followed it; STORED_BEFORE ("key sha256" lines): the pages the
# manifest listed at the kill, each still stored.
survived() {
	local what=$1 tree=$2 bad
	bad=$(tree_consistent "$tree")
	if [ -n "$3" ]; then
		bad+=$(comm -23 <(printf '%s\n' "$3" | cut -d' ' -f1) <(stored "$tree" | cut -d' ' -f1) |
			sed 's/^/stored before the kill, gone: /')
	fi
	if [ "$what" = fill ]; then
		bad+=$(stored "$tree" | while read -r key sha; do
			# serve stores the page whole: the wiki's web bug (a time)
			# is what the snapshot strips
			cmp -s <(sed -E "s#$WIKI_STRIP##g" "$tree/$key") "$REF/$key" ||
				echo "filled, not as the clean snapshot: $key"
		done)
	else
		bad+=$(same_files "$REF" "$tree")
	fi
	if [ -n "$bad" ]; then
		printf '# %s kill %s: %s\n' "$what" "$made" "$(printf '%s\n' "$bad" | head -5 | tr '\n' ' ')"
		return 1
	fi
	[ "$kill_landed" = 0 ] || survived=$((survived + 1))
}

# killed PID MAX_MS: kill -9 PID (a process group of bg_start) after a
# random delay below MAX_MS. A kill that finds the command ended is no
# kill (1): the rounds go on until each command was killed per times.
killed() {
	local d
	d=$(delay "$2")
	nap "$d"
	tries=$((tries + 1))
	if ! kill -0 "$1" 2>/dev/null; then
		echo "# a kill after $d s found the command ended: drawn again"
		bg_stop "$1" KILL
		kill_landed=0
		return 1
	fi
	made=$((made + 1))
	kill_landed=1
	bg_stop "$1" KILL
	return 0
}

per=$(((KILLS + 2) / 3))

try "snapshot killed at $per points of its runs: the next run leaves the tree whole and as a clean snapshot"
snap_wiki "$SITE" "$OUT" "${SNAP_ARGS[@]}" -q 2>"$TESTDIR/snap.err"
check_eq 0 $? "first snapshot ($(tail -2 "$TESTDIR/snap.err"))"
edit_some 3
t0=$(ms)
snap_wiki "$SITE" "$OUT" "${SNAP_ARGS[@]}" -q 2>"$TESTDIR/snap.err"
span=$((($(ms) - t0) * 9 / 10))
echo "# an update run takes $span ms: kills are drawn below that"
while [ "$made" -lt "$per" ] && [ "$tries" -lt $((3 * per)) ]; do
	edit_some 3
	bg_start snap_wiki "$SITE" "$OUT" "${SNAP_ARGS[@]}" -q 2>>"$TESTDIR/killed.err"
	killed "$BG_PID" "$span"
	before=$(stored "$OUT")
	snap_wiki "$SITE" "$OUT" "${SNAP_ARGS[@]}" -q 2>"$TESTDIR/snap.err"
	check_eq 0 $? "the run after kill $made ($(tail -2 "$TESTDIR/snap.err"))"
	reference
	survived snapshot "$OUT" "$before"
done
check_eq "$per" "$made" "kills made"
check_eq "$made" "$survived" "kills survived"
echo "# snapshot: $made kills, $survived survived"

try "watch killed at $per points of its batches: the next start leaves the tree whole and as a clean snapshot"
made0=$made survived0=$survived tries=0
watch_start "$LOG" "${ARGS[@]}" "$OUT"
check_eq 0 $? "watch came up ($(tail -3 "$LOG"))"
n=$(batches "$LOG")
t0=$(ms)
edit_some 3
wait_batches "$LOG" $((n + 1))
watch_idle "$OUT"
span=$(($(ms) - t0 + 50))
echo "# an edit's batch is done in $span ms: kills are drawn below that"
while [ $((made - made0)) -lt "$per" ] && [ "$tries" -lt $((3 * per)) ]; do
	edit_some 3
	killed "$WATCH_PID" "$span"
	before=$(stored "$OUT")
	watch_start "$LOG" "${ARGS[@]}" "$OUT"
	check_eq 0 $? "watch came up after kill $made ($(tail -3 "$LOG"))"
	watch_idle "$OUT"
	check_eq 0 $? "watch settled after kill $made"
	watch_stop_ok
	reference
	survived watch "$OUT" "$before"
	watch_start "$LOG" "${ARGS[@]}" "$OUT"
done
watch_stop_ok
check_eq "$per" $((made - made0)) "kills made"
check_eq $((made - made0)) $((survived - survived0)) "kills survived"
echo "# watch: $((made - made0)) kills, $((survived - survived0)) survived"

try "serve --fill killed at $per points while clients ask for every page: the next run stores the rest, each as a clean snapshot"
made0=$made survived0=$survived tries=0
reference
mapfile -t URLS < <("$CGISNAP" ls "$REF" | awk -F'\t' '!/^#/ && $3 == 200 && $2 != "-" { print $1 }')
FILL=$TESTDIR/fill
# fill_tree: FILL made anew, a tree holding the start page alone (as a
# snapshot cut short leaves it), the rest for --fill to store.
fill_tree() {
	rm -rf "$FILL"
	snap_wiki "$SITE" "$FILL" "${SNAP_ARGS[@]}" -q --max-pages 1 2>"$TESTDIR/fill.err"
	[ -d "$FILL/.cgisnap" ] || fail "the start page's snapshot failed: $(tail -2 "$TESTDIR/fill.err")"
}
fill_tree
P=$(port)
# fetch_all: ask for every page, two at a time, as clients would.
fetch_all() {
	printf "http://127.0.0.1:$P%s\n" "${URLS[@]}" |
		xargs -P 2 -n 1 curl -s -o /dev/null -m 30 2>/dev/null
	return 0
}
t0=$(ms)
serve_start "$FILL" "$P" --fallback --fill --root "$SITE" --cgi php=php-cgi --site-url http://localhost:8080/
fetch_all
bg_stop "$SERVE_PID"
span=$(($(ms) - t0 + 50))
echo "# serving every page with --fill takes $span ms: kills are drawn below that"
while [ $((made - made0)) -lt "$per" ] && [ "$tries" -lt $((3 * per)) ]; do
	fill_tree
	serve_start "$FILL" "$P" --fallback --fill --root "$SITE" --cgi php=php-cgi --site-url http://localhost:8080/
	bg_start fetch_all
	fetcher=$BG_PID
	killed "$SERVE_PID" "$span"
	bg_stop "$fetcher"
	before=$(stored "$FILL")
	serve_start "$FILL" "$P" --fallback --fill --root "$SITE" --cgi php=php-cgi --site-url http://localhost:8080/
	fetch_all
	bg_stop "$SERVE_PID"
	check_eq "${#URLS[@]}" "$(stored "$FILL" | wc -l)" "pages stored after kill $made"
	survived fill "$FILL" "$before"
done
check_eq "$per" $((made - made0)) "kills made"
check_eq $((made - made0)) $((survived - survived0)) "kills survived"
echo "# serve --fill: $((made - made0)) kills, $((survived - survived0)) survived"

echo "# kills: $made made, $survived survived"
finish
