#!/usr/bin/env bash
# t0589-io-faults: a disk that fails one call. A preload library
# (tests/fixtures/faults/faultshim.c) makes the Nth write, fsync,
# fdatasync or rename of cgisnap's own process (never its renders') fail
# with EIO or ENOSPC, for N spread over every such call of an update
# run: the run says what failed in one line per failure and exits 1 (2
# when tree.db itself could not be opened), nothing crashes, the tree and
# tree.db stay consistent, and the next run completes and equals a clean
# snapshot.
#
# FAULTS (default 6; 'make soak' runs 40) is how many calls are failed,
# one run each.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-watch.sh"

FAULTS=${FAULTS:-6}
SHIM=$TESTDIR/faultshim.so
"${CC:-cc}" -O1 -shared -fPIC -o "$SHIM" "$ROOT/tests/fixtures/faults/faultshim.c" -ldl ||
	fail "the fault library did not build"
# An ASan build wants its runtime first among the preloaded libraries.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
watch_wiki_test 30
mapfile -t ARGS < <(watch_wiki_args "$SITE")
ARGS=("${ARGS[@]:0:${#ARGS[@]}-2}" --exclude 'do=(backlink|index|recent)') # snapshot: no --source
mapfile -t PAGES < <(wiki_pages "$SITE")
REF=$TESTDIR/ref
step=0

# change: every page changes (the tagline all show), and three get longer.
change() {
	step=$((step + 1))
	sed -i "s/^\$conf\['tagline'\].*/\$conf['tagline'] = 'Fault step $step';/" "$SITE/conf/local.php"
	for i in 1 2 3; do
		printf '\nFault step %s made this page longer.\n' "$step" >>"$(wiki_file "$SITE" "${PAGES[RANDOM % ${#PAGES[@]}]}")"
	done
}

# faulty ARGS...: snap_wiki with the fault library preloaded (FAULT_* from the caller).
faulty() {
	LD_PRELOAD=$SHIM${LD_PRELOAD:+:$LD_PRELOAD} snap_wiki "$SITE" "$OUT" "${ARGS[@]}" -q "$@"
}

snap_wiki "$SITE" "$OUT" "${ARGS[@]}" -q 2>"$TESTDIR/snap.err"
check_eq 0 $? "the first snapshot ($(tail -2 "$TESTDIR/snap.err"))"

try "an update counted: the calls there are to fail"
change
FAULT_COUNT=$TESTDIR/count faulty 2>"$TESTDIR/count.err"
check_eq 0 $? "the counted run ($(tail -2 "$TESTDIR/count.err"))"
total=$(cat "$TESTDIR/count" 2>/dev/null)
check_le 20 "${total:-0}" "calls counted"
echo "# an update run makes $total writes, syncs and renames"

try "$FAULTS of them failed in turn (EIO, ENOSPC): one line each, exit 1 or 2, the tree whole, then all of it"
for ((k = 1; k <= FAULTS; k++)); do
	n=$(((total * k + FAULTS / 2) / (FAULTS + 1)))
	errname=EIO
	[ $((k % 2)) -eq 0 ] && errname=ENOSPC
	change
	FAULT_CALL=$n FAULT_ERRNO=$errname FAULT_LOG=$TESTDIR/faults faulty 2>"$TESTDIR/fault.err"
	rc=$?
	bad=""
	case "$rc" in
	0) ;; # the call was one whose failure costs nothing (a .gz repaired next time)
	1 | 2) grep -qE 'Input/output error|No space left on device|disk I/O error|disk is full' "$TESTDIR/fault.err" ||
		bad+="no line names the failure; " ;;
	*) bad+="exit status $rc; " ;;
	esac
	bad+=$(stray_lines "$TESTDIR/fault.err")
	bad+=$(after_fault "$SITE" "$OUT" "$REF" "${ARGS[@]}")
	echo "# call $n of $total ($(tail -1 "$TESTDIR/faults" 2>/dev/null | cut -d' ' -f2- | sed "s|$TESTDIR/||")) failed with $errname:" \
		"exit $rc ($(grep -c . "$TESTDIR/fault.err") lines)" \
		"$(head -1 "$TESTDIR/fault.err" | cut -c1-150)"
	tally_fault "call $n" "$bad"
done
check_eq "$FAULTS" "$SURVIVED" "failed calls the tree came through whole"

try "a failed sync of tree.db as the run ends (its last checkpoint) is said, and nothing is lost"
# Every page changed (the tagline): the run's last calls are its commit,
# the files of .cgisnap, and the checkpoint that copies the log into
# tree.db, which SQLite's close would make without a word when it fails.
tagline() { sed -i "s/^\$conf\['tagline'\].*/\$conf['tagline'] = 'Checkpoint $1';/" "$SITE/conf/local.php"; }
tagline 10
FAULT_COUNT=$TESTDIR/count faulty 2>"$TESTDIR/count.err"
last=$(cat "$TESTDIR/count" 2>/dev/null)
found=0
for ((n = ${last:-0}; n > ${last:-0} - 16 && n > 0 && found == 0; n--)); do
	tagline $((n % 2 ? 11 : 12))
	rm -f "$TESTDIR/faults"
	FAULT_CALL=$n FAULT_ERRNO=EIO FAULT_LOG=$TESTDIR/faults faulty 2>"$TESTDIR/end.err"
	rc=$?
	grep -qE '^[0-9]+ f(data)?sync .*/\.cgisnap/tree\.db$' "$TESTDIR/faults" 2>/dev/null || continue
	found=1
	echo "# call $n of $last ($(cut -d' ' -f2- "$TESTDIR/faults" | sed "s|$TESTDIR/||")): exit $rc, $(head -1 "$TESTDIR/end.err" | cut -c1-200)"
	check_match "$(cat "$TESTDIR/end.err")" '^cgisnap: warning: cannot checkpoint .*tree\.db.*Input/output error' "the line"
	check_eq "" "$(after_fault "$SITE" "$OUT" "$REF" "${ARGS[@]}")" "what the next run finds"
done
check_eq 1 "$found" "a sync of tree.db among the last 16 of the $last calls of a run"

finish
