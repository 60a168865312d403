#!/usr/bin/env bash
# t0583-watch-batch-cost: a watch batch's commit costs what the batch
# changed, not what the tree holds. On bench/synth's site of 2,000 pages,
# watch -v's debug line "commit: N entries visited, N manifest rows
# compared" says, for one page's edit, at most a handful (the old commit
# copied and compared every entry: over 2,000), while an edit of the
# shared template visits every page (the counters count); and the delta
# save leaves every other row as it was.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-watch.sh"

N=2000
SITE=$TESTDIR/site
OUT=$TESTDIR/out
LOG=$TESTDIR/watch.log
mkdir -p "$SITE"
cc -O2 -std=c11 -o "$SITE/page.cgi" "$ROOT/bench/synth/page.c" || { echo "Bail out! cannot build page.c"; exit 1; }
"$SITE/page.cgi" --generate "$SITE" "$N" || { echo "Bail out! cannot generate the site"; exit 1; }
COMMON=(--root "$SITE" --seed '/page.cgi?id=0' -j 2)

# commit_after WORD: "VISITED COMPARED" of the commit line that follows
# the first batch line naming WORD; empty until it is logged.
commit_after() {
	awk -v w="$1" 'index($0, "cgisnap: batch: ") == 1 && index($0, w) { seen = 1; next }
		seen && match($0, /commit: [0-9]+ entries visited, [0-9]+ manifest rows compared/) {
			split(substr($0, RSTART, RLENGTH), f, " "); print f[2], f[5]; exit }' "$LOG"
}
_commit_logged() { [ -n "$(commit_after "$1")" ]; }
# other_rows: the manifest's lines but the edited page's.
other_rows() { "$CGISNAP" ls "$OUT" | grep -v '^/page.cgi?id=5	'; }

try "one page's edit: its batch visits and compares a handful of entries"
"$CGISNAP" snapshot -q "${COMMON[@]}" "$OUT" 2>"$TESTDIR/snap.err"
check_eq 0 $? "snapshot exit status"
check_eq "$N" "$(find "$OUT" -maxdepth 1 -name 'page.cgi@id=*.html' | wc -l)" "every page published"
other_rows >"$TESTDIR/before.txt"
watch_start "$LOG" -v "${COMMON[@]}" --source "$SITE/data" "$OUT"
check_eq 0 $? "watch came up"
printf 'edited page five\n' >>"$SITE/data/pages/0/5.txt"
wait_file_has "$OUT/page.cgi@id=5.html" "edited page five"
check_eq 0 $? "the edit is published"
wait_until "$WATCH_WAIT" _commit_logged "pages/0/5.txt"
check_eq 0 $? "the batch's commit line"
read -r visited compared < <(commit_after "pages/0/5.txt")
check_le "${visited:-99999}" 10 "entries visited"
check_le "${compared:-99999}" 10 "manifest rows compared"
watch_stop
check_eq 0 "$WATCH_STATUS" "watch exit status"
check_cmp "$TESTDIR/before.txt" <(other_rows) "every other row as it was"
check_match "$("$CGISNAP" ls "$OUT" | grep '^/page.cgi?id=5	' | cut -f6)" '^[0-9a-f]{64}$' "the page's row"

try "the shared template's edit: every page is visited"
watch_start "$LOG" -v "${COMMON[@]}" --source "$SITE/data" "$OUT"
check_eq 0 $? "watch came up"
printf '<!-- template edited -->\n' >>"$SITE/data/template.html"
wait_file_has "$OUT/page.cgi@id=$((N - 1)).html" "<!-- template edited -->"
check_eq 0 $? "the last page shows the edit"
wait_until "$WATCH_WAIT" _commit_logged "template.html"
check_eq 0 $? "the batch's commit line"
watch_stop
read -r visited compared < <(commit_after "template.html")
check_le "$N" "${visited:-0}" "entries visited by the template's batch"

finish
