#!/usr/bin/env bash
# t0565-watch-snapshot-deps: a traced 'cgisnap snapshot' records the
# dependencies watch would, so 'watch' starts on its tree without a
# re-crawl and re-renders the same pages for an edit as a watch that
# crawled itself; edits made while nobody watched (after the snapshot,
# between two watches) are caught up at start; tracing changes no stored
# page; a --no-trace snapshot still makes watch re-crawl.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-watch.sh"

watch_test_dirs # LOG: the watch on the snapshot
PLAIN=$TESTDIR/plain
LOG2=$TESTDIR/watch2.log # restarted
LOG3=$TESTDIR/watch3.log # restarted, nothing changed
LOG4=$TESTDIR/watch4.log # on the --no-trace snapshot
seed_wiki "$SITE" 40

pages_in() {
	(cd "$SITE/data/pages" && find "$1" -name '*.txt' ! -name start.txt | sed 's/\.txt$//; s|/|:|g' | LC_ALL=C sort)
}
P=$(pages_in howto | head -1)     # edited while watched
Q=$(pages_in team | head -1)      # edited after the snapshot, before watch
R=$(pages_in reference | head -1) # edited between two watches
G=$(pages_in reference | sed -n 2p) # deleted between two watches
CRAWL=(--exclude 'do=backlink' --seed /)
mapfile -t ARGS < <(watch_wiki_args "$SITE")
SNAP=("${ARGS[@]:0:${#ARGS[@]}-2}" "${CRAWL[@]}") # without --source DIR
ARGS+=("${CRAWL[@]}")

# rendered LOG FROM: the pages the batches after line FROM of LOG rendered.
rendered() {
	tail -n "+$(($2 + 1))" "$1" | sed -n 's/^cgisnap: debug: rendered //p' | LC_ALL=C sort -u
}

# edit_rendered TREE LOG TEXT: once the watch of TREE is idle (its lines
# so far all logged, its cache writes read and ignored), append TEXT to
# page P's source and wait for TREE's page to show it and its batch to
# end; RENDERED is what that batch re-rendered.
edit_rendered() {
	local tree=$1 log=$2 n from
	watch_idle "$tree"
	n=$(batches "$log")
	from=$(wc -l <"$log")
	printf '\n%s.\n' "$3" >>"$(wiki_file "$SITE" "$P")"
	wait_file_has "$tree/$(wiki_key "$P")" "$3"
	check_eq 0 $? "P's page shows the edit"
	wait_batches "$log" $((n + 1))
	watch_idle "$tree" # the batch's rendered lines come after its batch line
	RENDERED=$(rendered "$log" "$from")
}

try "a traced snapshot records the dependencies and that they are complete"
sleep 0.05 # the seed's files are older than the snapshot's start, however coarse the clock
"$CGISNAP" snapshot "${SNAP[@]}" "$OUT" 2>"$TESTDIR/snap.err"
check_eq 0 $? "snapshot exit status"
check_file "$OUT/.cgisnap/depstate" "depstate"
check_match "$(cat "$OUT/.cgisnap/depstate" 2>/dev/null)" "^policy [0-9]+" "policy recorded"
check_contains "$("$CGISNAP" ls --deps "$OUT")" "/doku.php?id=$P	R	$(wiki_file "$SITE" "$P")" "P's page read its source"
check_match "$("$CGISNAP" ls --deps "$OUT")" "	L	$SITE/data/pages/howto$" "a listing recorded"
check_eq "" "$(grep -E "	[RELCA]	$SITE/data/cache/" <("$CGISNAP" ls --deps "$OUT"))" "the render cache is no dependency"
# What a render wrote is kept with its page (W): another program's write
# to it re-renders the page, even in a later watch.
check_match "$("$CGISNAP" ls --deps "$OUT")" "	W	$SITE/data/cache/" "the render cache is the renders' own (W)"
check_eq "" "$(grep -E '	[RELC]	/(usr|etc|proc|dev)/' <("$CGISNAP" ls --deps "$OUT"))" "the system's files are no dependency"
check_eq "" "$(grep -E '	[RELC]	/tmp/cgisnap-php' <("$CGISNAP" ls --deps "$OUT"))" "nor the PHP session directory"

try "the PHP session directory is no dependency either under a TMPDIR named through a link"
mkdir -p "$TESTDIR/tmp-real"
ln -s "$TESTDIR/tmp-real" "$TESTDIR/tmp-link"
TMPDIR=$TESTDIR/tmp-link/ "$CGISNAP" snapshot "${SNAP[@]}" "$TESTDIR/linked" 2>"$TESTDIR/linked.err"
check_eq 0 $? "snapshot exit status: $(tail -3 "$TESTDIR/linked.err")"
check_contains "$("$CGISNAP" ls --deps "$TESTDIR/linked")" "/doku.php?id=$P	R	$(wiki_file "$SITE" "$P")" \
	"P's page read its source"
check_eq "" "$(grep cgisnap-php- <("$CGISNAP" ls --deps "$TESTDIR/linked"))" "no path of the session directory"

# Its renders rewrite the site's caches (renamed over them, as the web
# server's renders would): still the site's own writes for the watches
# below, no change to catch up with.
try "tracing changes no stored page; --no-trace records no dependencies"
"$CGISNAP" snapshot --no-trace "${SNAP[@]}" "$PLAIN" 2>"$TESTDIR/plain.err"
check_eq 0 $? "snapshot --no-trace exit status"
check_eq "" "$(diff -r -x .cgisnap "$OUT" "$PLAIN")" "the two trees' files"
check_no_file "$PLAIN/.cgisnap/depstate" "no depstate"
check_eq "" "$(grep -v '^#' <("$CGISNAP" ls --deps "$PLAIN") 2>/dev/null)" "no dependency lines"

try "watch starts on the snapshot without a re-crawl, and an edit made before it started is caught up"
printf '\nBetween snapshot and watch Q1.\n' >>"$(wiki_file "$SITE" "$Q")"
watch_start "$LOG" -v "${ARGS[@]}" "$OUT"
check_eq 0 $? "watch came up"
check_not_contains "$(cat "$LOG")" "no recorded dependencies" "no missing-dependencies line"
check_not_contains "$(cat "$LOG")" "initial snapshot:" "no initial crawl"
check_contains "$(cat "$LOG")" "catching up with 1 path changed since its last run ($(wiki_file "$SITE" "$Q"))" \
	"the catch-up names Q's source"
check_eq "" "$(sed -n '1,/^cgisnap: watching /p' "$LOG" | grep '^cgisnap: debug: rendered ')" "0 URLs rendered before watching"
wait_file_has "$OUT/$(wiki_key "$Q")" "Between snapshot and watch Q1"
check_eq 0 $? "Q's page shows the edit"
wait_batches "$LOG" 1
watch_idle "$OUT"
check_contains "$(rendered "$LOG" 0)" "/doku.php?id=$Q" "Q re-rendered"
check_not_contains "$(rendered "$LOG" 0)" "/doku.php?id=$P" "P not re-rendered"
check_match "$(grep '^cgisnap: batch: ' "$LOG" | head -1)" "^cgisnap: batch: 1 changed " "one batch for the catch-up"

try "an edit after start re-renders the pages that depend on it"
edit_rendered "$OUT" "$LOG" "Watched edit P1"
FROM_SNAPSHOT=$RENDERED
check_contains "$FROM_SNAPSHOT" "/doku.php?id=$P" "P re-rendered"
check_not_contains "$FROM_SNAPSHOT" "/doku.php?id=$Q" "Q not re-rendered"
watch_stop
check_eq 0 "$WATCH_STATUS" "watch exit status"

try "a watch restarted catches up with what changed while it was stopped, deletions too"
printf '\nBetween two watches R1.\n' >>"$(wiki_file "$SITE" "$R")"
rm "$(wiki_file "$SITE" "$G")"
watch_start "$LOG2" -v "${ARGS[@]}" "$OUT"
check_eq 0 $? "watch came up"
check_not_contains "$(cat "$LOG2")" "initial snapshot:" "no initial crawl"
check_contains "$(cat "$LOG2")" "changed since the last run: W $(wiki_file "$SITE" "$R")" "the catch-up has R's edit"
check_contains "$(cat "$LOG2")" "changed since the last run: D $(wiki_file "$SITE" "$G")" "and G's deletion"
wait_file_has "$OUT/$(wiki_key "$R")" "Between two watches R1"
check_eq 0 $? "R's page shows the edit"
wait_batches "$LOG2" 1
wait_until "$WATCH_WAIT" sh -c '"$1" ls "$2" | grep -q "$3"' sh "$CGISNAP" "$OUT" "^/doku.php?id=$G	-	404	"
check_eq 0 $? "G's page is now a 404"
check_no_file "$OUT/$(wiki_key "$G")" "G's file removed"
watch_stop

try "a restart with nothing changed renders nothing"
watch_start "$LOG3" -v "${ARGS[@]}" "$OUT"
check_eq 0 $? "watch came up"
check_contains "$(cat "$LOG3")" "no source changed since its last run" "nothing to catch up"
sleep 1 # a quiet start is what is tested: nothing may happen in it
check_eq 0 "$(batches "$LOG3")" "batches"
watch_stop

try "watch on a --no-trace snapshot re-crawls first, and re-renders the same pages for the same edit"
watch_start "$LOG4" -v "${ARGS[@]}" "$PLAIN"
check_eq 0 $? "watch came up"
check_contains "$(cat "$LOG4")" "initial snapshot: the tree has no recorded dependencies" "the re-crawl and why"
edit_rendered "$PLAIN" "$LOG4" "Watched edit P2"
check_eq "$FROM_SNAPSHOT" "$RENDERED" "the pages re-rendered, as from the snapshot's dependencies"
watch_stop

finish
