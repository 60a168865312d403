#!/usr/bin/env bash
# t0583-watch-batch-cost: a watch batch's commit costs what the batch
# changed, not what the tree holds (issue 14). On the synthetic site of
# bench/synth (1,200 pages in two data directories, each page reading its
# own data file), one page's edit makes a batch whose -v debug line says
# how many manifest entries its commit visited and how many rows its save
# compared: a handful, where a commit walking the whole manifest visits
# them all. Counts, never times. The delta save leaves every other row as
# it was, and an edit of the shared template visits every page (the
# counters count). watch keeps no entry in memory between batches: the
# same line says how many it read from tree.db (a handful) and kept (none).
# Also: a tree of schema version 1 is upgraded on first open, each row
# naming its sets (the edits below then run on it), and one newer is
# refused.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-watch.sh"

PAGES=1200
watch_test_dirs site

# wait_commit_lines N: the log holds N commit lines (each follows its
# batch's line).
_commit_lines_at_least() { [ "$(grep -c '^cgisnap: debug: commit: ' "$LOG")" -ge "$1" ]; }
wait_commit_lines() { wait_until "$WATCH_WAIT" _commit_lines_at_least "$1"; }

try "the synthetic site is built and snapshotted"
synth_snapshot "$SITE" "$OUT" "$PAGES"
check_eq 0 $? "site built and snapshotted ($(tail -1 "$TESTDIR/snap.err" 2>/dev/null))"
check_eq "$PAGES" "$(find "$OUT" -maxdepth 1 -name 'page.cgi@id=*.html' | wc -l)" "pages stored"

try "a tree of schema version 1 is upgraded on first open, its dependencies as they were"
"$CGISNAP" ls --deps "$OUT" >"$TESTDIR/deps-v2.txt"
# to_v1 TREE: TREE's database made as version 1 kept it: each set's
# directory in its row, indexed with the names; no url.sets (version 3).
to_v1() {
	tree_sql "$1" "DROP INDEX url_by_key" >/dev/null
	tree_sql "$1" "ALTER TABLE url DROP COLUMN sets" >/dev/null
	tree_sql "$1" "CREATE TABLE depset_v1 (id INTEGER PRIMARY KEY, hash INTEGER NOT NULL, kind TEXT NOT NULL,
		dir TEXT NOT NULL, names TEXT NOT NULL)" >/dev/null
	tree_sql "$1" "INSERT INTO depset_v1 SELECT s.id, 0, s.kind, d.path, s.names FROM depset s
		JOIN dir d ON d.id = s.dir_id" >/dev/null
	for sql in "DROP TABLE depset" "DROP TABLE dir" "ALTER TABLE depset_v1 RENAME TO depset" \
		"CREATE INDEX depset_by_hash ON depset(hash)" "CREATE INDEX depset_by_dir ON depset(dir, kind, names)" \
		"CREATE INDEX depset_untraced ON depset(kind) WHERE kind = 'U'" "PRAGMA user_version = 1"; do
		tree_sql "$1" "$sql" >/dev/null
	done
}
# rows_naming_their_sets TREE: how many url rows' sets (ascending ids,
# each the difference from the one before, LEB128) are the set ids
# url_dep gives the row, when every row's are.
rows_naming_their_sets() {
	python3 - "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1] + "/.cgisnap/tree.db", timeout=10)
refs = {}
for url, s in db.execute("SELECT url_id, set_id FROM url_dep"):
    refs.setdefault(url, set()).add(s)
good = bad = 0
for url, blob in db.execute("SELECT id, sets FROM url"):
    ids, prev, d, shift = [], 0, 0, 0
    for b in blob or b"":
        d |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            prev += d
            ids.append(prev)
            d = shift = 0
    if set(ids) == refs.get(url, set()) and ids == sorted(set(ids)):
        good += 1
    else:
        bad += 1
print(f"{good} rows name their sets as url_dep holds them" if not bad else f"{bad} rows do not")
PY
}
check_eq "1200 rows name their sets as url_dep holds them" "$(rows_naming_their_sets "$OUT")" "written by the saves"
cp -a "$OUT" "$TESTDIR/ro"
to_v1 "$OUT"
check_eq 1 "$(tree_sql "$OUT" "PRAGMA user_version")" "version 1 made"
"$CGISNAP" ls --deps "$OUT" >"$TESTDIR/deps-up.txt" 2>"$TESTDIR/up.err"
check_eq 0 $? "ls on it"
check_eq "cgisnap: upgraded $OUT/.cgisnap/tree.db to schema version 3" "$(cat "$TESTDIR/up.err")" "said once"
check_cmp "$TESTDIR/deps-v2.txt" "$TESTDIR/deps-up.txt" "the same dependencies"
check_eq 3 "$(tree_sql "$OUT" "PRAGMA user_version")" "version 3"
check_eq "1200 rows name their sets as url_dep holds them" "$(rows_naming_their_sets "$OUT")" "url.sets filled"
check_eq "ok" "$(tree_sql "$OUT" "PRAGMA integrity_check")" "intact"
check_eq 0 "$(tree_sql "$OUT" "SELECT count(*) FROM sqlite_master WHERE name IN ('depset_v1', 'depset_by_hash')")" \
	"nothing of version 1 left"
"$CGISNAP" ls "$OUT" >/dev/null 2>"$TESTDIR/up2.err"
check_eq "" "$(cat "$TESTDIR/up2.err")" "upgraded once only"

try "a user who may not write a version 1 tree reads it as it is"
to_v1 "$TESTDIR/ro"
# nobody may make the database's -shm beside it, not write the database.
chmod 755 "$TESTDIR"
chmod 777 "$TESTDIR/ro" "$TESTDIR/ro/.cgisnap"
setpriv --reuid=65534 --regid=65534 --clear-groups "$CGISNAP" ls --deps "$TESTDIR/ro" >"$TESTDIR/deps-ro.txt" 2>"$TESTDIR/ro.err"
check_eq 0 $? "ls --deps as nobody ($(head -c 300 "$TESTDIR/ro.err"))"
check_cmp "$TESTDIR/deps-v2.txt" "$TESTDIR/deps-ro.txt" "the same dependencies"
check_eq 1 "$(tree_sql "$TESTDIR/ro" "PRAGMA user_version")" "still version 1"

try "a tree of a newer schema is refused, left as it is"
cp -p "$OUT/.cgisnap/tree.db" "$TESTDIR/tree.db.kept"
tree_sql "$OUT" "PRAGMA user_version = 9" >/dev/null
"$CGISNAP" ls "$OUT" >/dev/null 2>"$TESTDIR/new.err"
check_eq 2 $? "ls exits 2"
check_eq "cgisnap: error: '$OUT/.cgisnap/tree.db' has schema version 9, newer than this cgisnap's (3)" \
	"$(cat "$TESTDIR/new.err")" "one line"
check_eq 9 "$(tree_sql "$OUT" "PRAGMA user_version")" "untouched"
tree_sql "$OUT" "PRAGMA user_version = 3" >/dev/null

try "watch starts on the snapshot's tree without a re-crawl"
watch_start "$LOG" --root "$SITE" --seed '/page.cgi?id=0' -j 2 --source "$SITE/data" -v "$OUT"
check_eq 0 $? "watching ($(tail -1 "$LOG"))"
check_contains "$(cat "$LOG")" "no source changed since its last run: no initial snapshot" "no re-crawl"
check_not_contains "$(cat "$LOG")" "catching up" "nothing to catch up with"
# The look at the sources runs on as many threads as the CPUs watch may
# run on (nproc: its affinity), 4 at most.
cpus=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc) # nproc alone obeys those
[ "$cpus" -le 4 ] || cpus=4
check_contains "$(grep '^cgisnap: debug: catch-up: ' "$LOG")" "ms on $cpus thread" "the walk's threads"

try "one page's edit: the commit visits a handful of entries, not the tree"
# other_rows: the manifest's lines but those of the pages edited below.
other_rows() { "$CGISNAP" ls "$OUT" | grep -v '^/page.cgi?id=\(1134\|7\)	'; }
other_rows >"$TESTDIR/others.txt"
n=$(batches "$LOG")
echo "Page 1134, edited." >"$SITE/data/pages/1/1134.txt"
wait_file_has "$OUT/page.cgi@id=1134.html" "Page 1134, edited."
check_eq 0 $? "published"
wait_batches "$LOG" $((n + 1))
wait_commit_lines $((n + 1))
check_match "$(grep '^cgisnap: batch: ' "$LOG" | tail -1)" ": 1 URL re-rendered, 1 file changed, 0 removed, [0-9]+ ms$" "batch line"
line=$(grep '^cgisnap: debug: commit: ' "$LOG" | tail -1)
check_match "$line" "^cgisnap: debug: commit: [0-9]+ entries visited, [0-9]+ manifest rows compared, [0-9]+ entries read, [0-9]+ kept$" "commit line"
visited=$(printf '%s\n' "$line" | sed -n 's/.*commit: \([0-9]*\) entries visited.*/\1/p')
compared=$(printf '%s\n' "$line" | sed -n 's/.* \([0-9]*\) manifest rows compared.*/\1/p')
read=$(printf '%s\n' "$line" | sed -n 's/.* \([0-9]*\) entries read.*/\1/p')
kept=$(printf '%s\n' "$line" | sed -n 's/.* \([0-9]*\) kept$/\1/p')
check_le "${visited:-99999}" 10 "entries visited"
check_le "${compared:-99999}" 10 "rows compared"
# watch holds no entry between batches: since its start it read the
# edited page's and a few more from tree.db, and kept none after.
check_le 1 "${read:-0}" "entries read from tree.db, at least the page's"
check_le "${read:-99999}" 10 "entries read from tree.db, since the start"
check_eq 0 "${kept:-x}" "entries kept in memory after the batch"

try "the manifest still holds every page, the edited one as published"
check_eq "$PAGES" "$("$CGISNAP" ls "$OUT" | grep -c '^/page.cgi?id=')" "entries"
check_cmp "$TESTDIR/others.txt" <(other_rows) "every other row as it was"
sha=$(sha256sum "$OUT/page.cgi@id=1134.html" | cut -d' ' -f1)
check_eq "$sha" "$(manifest_field "$OUT" '/page.cgi?id=1134' 6)" "its sha256"

try "a second edit elsewhere costs the same"
n=$(batches "$LOG")
echo "Page 7, edited." >"$SITE/data/pages/0/7.txt"
wait_file_has "$OUT/page.cgi@id=7.html" "Page 7, edited."
wait_batches "$LOG" $((n + 1))
wait_commit_lines $((n + 1))
line=$(grep '^cgisnap: debug: commit: ' "$LOG" | tail -1)
visited=$(printf '%s\n' "$line" | sed -n 's/.*commit: \([0-9]*\) entries visited.*/\1/p')
check_le "${visited:-99999}" 10 "entries visited"

try "an edit of the shared template: the commit visits every page"
n=$(batches "$LOG")
printf '<!-- template edited -->\n' >>"$SITE/data/template.html"
wait_file_has "$OUT/page.cgi@id=$((PAGES - 1)).html" "<!-- template edited -->"
check_eq 0 $? "the last page shows the edit"
wait_batches "$LOG" $((n + 1))
wait_commit_lines $((n + 1))
visited=$(grep '^cgisnap: debug: commit: ' "$LOG" | sed -n 's/.*commit: \([0-9]*\) entries visited.*/\1/p' | sort -n | tail -1)
check_le "$PAGES" "${visited:-0}" "entries visited"
watch_stop
check_eq 0 "$WATCH_STATUS" "watch exit"
check_eq "1200 rows name their sets as url_dep holds them" "$(rows_naming_their_sets "$OUT")" "after the batches"

try "a fresh watch, pinned to one CPU, loads what the batches saved: nothing to re-render"
# Pinned as taskset or a container's cpuset pins it: one walking thread.
# The test's shell pins itself for the start (its children inherit it).
cpu_list=$(taskset -pc $$ | sed 's/.*: //')
taskset -pc "$(cut -d, -f1 <<<"${cpu_list%%-*}")" $$ >/dev/null
watch_start "$LOG" --root "$SITE" --seed '/page.cgi?id=0' -j 2 --source "$SITE/data" -v "$OUT"
check_eq 0 $? "watching again"
taskset -pc "$cpu_list" $$ >/dev/null
check_contains "$(grep '^cgisnap: debug: catch-up: ' "$LOG")" "ms on 1 thread;" "one walking thread"
check_eq "$PAGES" "$("$CGISNAP" ls "$OUT" | grep -c '^/page.cgi?id=')" "entries"
watch_stop
finish
