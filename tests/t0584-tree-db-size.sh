#!/usr/bin/env bash
# t0584-tree-db-size: tree.db does not keep the pages its writers freed (a
# crawl's pending rows, a batch that rewrote every row): on the synthetic
# site of bench/synth, after a snapshot and after a batch re-rendering
# every page, at most a sixteenth of its pages are free and the metadata
# per page is what its live pages hold; a database of an older cgisnap
# (auto_vacuum NONE) is converted once, by its next writer, with a line
# naming it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-watch.sh"

N=600
watch_test_dirs site
synth_site "$SITE" "$N" || { echo "Bail out! cannot build page.c or generate the site"; exit 1; }
COMMON=(--root "$SITE" --seed '/page.cgi?id=0' -j 2)

pragma() { tree_sql "$OUT" "PRAGMA $1"; }
# meta_bytes: the bytes of .cgisnap/'s files (the lock aside).
meta_bytes() { find "$OUT/.cgisnap" -type f ! -name lock -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; }
# check_compact WHAT: few free pages, and no more bytes per page than the
# live pages hold (with that sixteenth) plus the small files beside tree.db.
check_compact() {
	local pages free size small per live
	pages=$(pragma page_count) free=$(pragma freelist_count) size=$(pragma page_size)
	check_eq 1 "$((free * 16 <= pages))" "$1: free pages $free of $pages, at most a sixteenth"
	small=$(find "$OUT/.cgisnap" -type f ! -name lock ! -name 'tree.db*' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
	per=$(($(meta_bytes) / N))
	live=$((((pages - free) * size * 17 / 16 + small) / N))
	check_eq 1 "$((per <= live))" "$1: $per metadata bytes per page, at most $live"
}

try "a snapshot's tree.db keeps no more free pages than a sixteenth"
"$CGISNAP" snapshot -q "${COMMON[@]}" "$OUT" 2>"$TESTDIR/snap.err"
check_eq 0 $? "exit status"
check_eq "$N" "$(tree_sql "$OUT" "SELECT count(*) FROM url WHERE target LIKE '/page.cgi?id=%'")" "every page recorded"
check_eq 2 "$(pragma auto_vacuum)" "a new database is incremental auto-vacuum"
check_compact "after the snapshot"

try "after a batch that re-rendered every page"
watch_start "$LOG" "${COMMON[@]}" --source "$SITE/data" "$OUT"
check_eq 0 $? "watch came up"
printf '<!-- edited -->\n' >>"$SITE/data/template.html"
wait_batches "$LOG" 1
check_eq 0 $? "the template edit's batch"
wait_file_has "$OUT/page.cgi@id=$((N - 1)).html" "<!-- edited -->"
check_eq 0 $? "the last page shows the edit"
watch_stop
check_compact "after the batch"

try "an older tree.db (auto_vacuum NONE) is converted once, by its next writer"
# As an older cgisnap made it: the setting takes with the VACUUM of the
# same connection.
python3 -c 'import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA auto_vacuum = NONE")
db.execute("VACUUM")' "$OUT/.cgisnap/tree.db"
check_eq 0 "$(pragma auto_vacuum)" "made an old one"
"$CGISNAP" ls "$OUT" >/dev/null
check_eq 0 "$(pragma auto_vacuum)" "a reader does not convert it"
"$CGISNAP" snapshot "${COMMON[@]}" "$OUT" 2>"$TESTDIR/snap2.err"
check_eq 0 $? "exit status"
check_contains "$(cat "$TESTDIR/snap2.err")" "converted $OUT/.cgisnap/tree.db to incremental auto-vacuum" "the log line names it"
check_eq 2 "$(pragma auto_vacuum)" "converted"
check_eq "$N" "$(tree_sql "$OUT" "SELECT count(*) FROM url WHERE target LIKE '/page.cgi?id=%'")" "every page still recorded"
"$CGISNAP" snapshot "${COMMON[@]}" "$OUT" 2>"$TESTDIR/snap3.err"
check_eq 0 $? "exit status"
check_eq "" "$(grep converted "$TESTDIR/snap3.err")" "once only"

finish
