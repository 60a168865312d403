#!/usr/bin/env bash
# t0582-tree-db-migration: a tree of an older cgisnap (.cgisnap/manifest,
# deps and journal text files, written here in that format) is migrated to
# tree.db on first use with one log line; ls prints what the files held,
# watch starts on it without a re-crawl and follows an edit, serve answers
# its redirects and 404s.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-watch.sh"
. "$(dirname "$0")/lib-serve.sh"

watch_wiki_test 20
mapfile -t PQ < <(wiki_pages "$SITE" howto | head -2)
P=${PQ[0]} Q=${PQ[1]}
mapfile -t ARGS < <(watch_wiki_args "$SITE")
ARGS+=(--exclude 'do=(backlink|index|recent)')

try "a traced tree written in the old text format"
watch_start "$LOG" "${ARGS[@]}" "$OUT"
check_eq 0 $? "watch came up"
watch_stop
"$CGISNAP" ls "$OUT" >"$TESTDIR/full.txt"
"$CGISNAP" ls --deps "$OUT" >"$TESTDIR/fulldeps.txt"
check_ne 0 "$(grep -vc '^#' "$TESTDIR/fulldeps.txt")" "dependencies recorded"
check_contains "$(cat "$TESTDIR/fulldeps.txt")" "/doku.php?id=$P	R	$(wiki_file "$SITE" "$P")" "P's page read its source"
# What an old cgisnap left: its three files, no tree.db. The journal holds
# the publish of Q's page, which the manifest and deps files lack, as a run
# killed before saving leaves a page new to the tree.
rm -f "$OUT/.cgisnap/tree.db" "$OUT/.cgisnap/tree.db-wal" "$OUT/.cgisnap/tree.db-shm"
jline=$(grep -F "/doku.php?id=$Q	" "$TESTDIR/full.txt")
check_ne "" "$jline" "Q's page was published"
grep -vF "/doku.php?id=$Q	" "$TESTDIR/full.txt" >"$TESTDIR/manifest.txt"
grep -vF "/doku.php?id=$Q	" "$TESTDIR/fulldeps.txt" >"$TESTDIR/deps.txt"
n=$(grep -vc '^#' "$TESTDIR/manifest.txt")
cp "$TESTDIR/manifest.txt" "$OUT/.cgisnap/manifest"
cp "$TESTDIR/deps.txt" "$OUT/.cgisnap/deps"
printf '\n%s\n\n/torn\tline' "$jline" >"$OUT/.cgisnap/journal"

try "ls migrates it once, with the log line, and prints what the files held"
"$CGISNAP" ls "$OUT" >"$TESTDIR/ls1.txt" 2>"$TESTDIR/ls1.err"
check_eq 0 $? "exit status"
check_eq "cgisnap: migrated $OUT/.cgisnap/manifest to tree.db ($n URLs)" "$(cat "$TESTDIR/ls1.err")" "the log line"
check_cmp "$TESTDIR/manifest.txt" "$TESTDIR/ls1.txt" "the manifest as it was"
check_eq "$(LC_ALL=C sort "$TESTDIR/deps.txt")" "$(LC_ALL=C sort <("$CGISNAP" ls --deps "$OUT"))" "the dependencies as they were"
check_file "$OUT/.cgisnap/tree.db" "tree.db made"
for f in manifest deps journal; do
	check_no_file "$OUT/.cgisnap/$f" "the old $f file removed"
done
check_eq "" "$("$CGISNAP" ls "$OUT" 2>&1 >/dev/null)" "a second ls migrates nothing"
check_eq "$n" "$(tree_sql "$OUT" "SELECT count(*) FROM url")" "one row per URL"

try "watch starts on the migrated tree without a re-crawl, renders the journaled page again, follows edits"
: >"$LOG"
watch_start "$LOG" "${ARGS[@]}" "$OUT"
check_eq 0 $? "watch came up"
check_contains "$(cat "$LOG")" "no initial snapshot" "no re-crawl"
printf '\nMigrated edit marker.\n' >>"$(wiki_file "$SITE" "$P")"
wait_file_has "$OUT/$(wiki_key "$P")" "Migrated edit marker."
check_eq 0 $? "the edit reached P's page"
watch_stop
check_eq 0 "$WATCH_STATUS" "watch exit status"
check_contains "$("$CGISNAP" ls "$OUT")" "/doku.php?id=$Q	$(wiki_key "$Q")	200" "the journaled page is in the manifest"
check_contains "$("$CGISNAP" ls --deps "$OUT")" "/doku.php?id=$Q	R	$(wiki_file "$SITE" "$Q")" "and its dependencies, which the journal did not hold"
: >"$LOG"
watch_start "$LOG" "${ARGS[@]}" "$OUT"
check_eq 0 $? "watch came up again"
printf '\nJournaled edit marker.\n' >>"$(wiki_file "$SITE" "$Q")"
wait_file_has "$OUT/$(wiki_key "$Q")" "Journaled edit marker."
check_eq 0 $? "an edit of Q reached its page"
watch_stop

try "serve answers from the migrated tree"
P1=$(port 1)
: >"$TESTDIR/server.err"
serve_start "$OUT" "$P1"
check_eq 200 "$(code "http://127.0.0.1:$P1/doku.php?id=$P")" "P's page"
check_eq 404 "$(code "http://127.0.0.1:$P1/no/such/page")" "a miss"
check_eq 404 "$(code "http://127.0.0.1:$P1/.cgisnap/tree.db")" "the database is never served"
bg_stop "$SERVE_PID"
check_not_contains "$(cat "$TESTDIR/server.err")" "migrated" "serve migrated nothing more"

try "a malformed old manifest is refused naming its line, and left alone"
T=$TESTDIR/bad
mkdir -p "$T/.cgisnap"
printf '# header\n/a\ta.html\tnot-a-status\n' >"$T/.cgisnap/manifest"
err=$("$CGISNAP" ls "$T" 2>&1 >/dev/null)
check_eq 2 $? "exit status"
check_eq "cgisnap: error: $T/.cgisnap/manifest:2: malformed line" "$err" "the message"
check_file "$T/.cgisnap/manifest" "the file kept"

finish
