#!/usr/bin/env bash
# t0530-watch-source-gone: a source that vanishes is an error, not the
# deletion of the site. On the sample wiki through php-cgi, with
# data/pages as the source: moved away and back, deleted and copied back,
# its parent directory replaced (a deploy), a namespace deleted and
# recreated inside it. While it is missing nothing is re-rendered or
# pruned (even when SIGUSR1 asks for a full re-crawl), the log names it;
# when it is back it is watched again and the pages changed meanwhile are
# re-rendered. A run during which a source vanishes removes nothing. A
# source missing at start is a set-up error.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-watch.sh"

watch_wiki_test 30
EXECLOG=$TESTDIR/exec.log
SRC=$SITE/data/pages

# P: pages (not start pages) each edited by one step below; NS: a
# namespace deleted and recreated at the end, with its first page.
NS=howto
mapfile -t P < <(cd "$SRC" && find . -name '*.txt' ! -name start.txt ! -name sidebar.txt |
	sed 's|^\./||; s/\.txt$//; s|/|:|g' | grep -v "^$NS:" | LC_ALL=C sort)
NS_PAGE=$NS:$(cd "$SRC/$NS" && find . -name '*.txt' ! -name start.txt | sed 's|^\./||; s/\.txt$//; s|/|:|g' | LC_ALL=C sort | head -1)
SENTINEL=${P[0]}
ARGS=(--root "$SITE" --cgi php=php-cgi --site-url http://localhost:8080/ --strip "$WIKI_STRIP" --robots-meta ignore
	--not-found '/doku.php?id=cgisnap:no-such-page' -j 2 --exclude 'do=backlink' --source "$SRC")
MISSING="cgisnap: error: source '$SRC' is missing: pages are neither re-rendered nor pruned until it is back"
BACK="cgisnap: source '$SRC' is back: re-crawling"

# count_lines FILE TEXT: lines of FILE that are exactly TEXT.
count_lines() {
	grep -cxF -- "$2" "$1"
}

_lines_at_least() {
	[ "$(count_lines "$1" "$2")" -ge "$3" ]
}

# wait_line N TEXT: wait until the log holds TEXT at least N times.
wait_line() {
	wait_until "$WATCH_WAIT" _lines_at_least "$LOG" "$2" "$1"
}

_status_is() {
	[ "$(manifest_field "$OUT" "$1" 3)" = "$2" ]
}

# tree_state: the published files and their bytes, and the manifest.
tree_state() {
	(cd "$OUT" && find . -path ./.cgisnap -prune -o -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
	cat <("$CGISNAP" ls "$OUT")
}

# while_missing N: the source went missing for the Nth time: the log says
# so, SIGUSR1 (a full re-crawl) is held rather than run, no batch ran
# since the last one before, and the tree and manifest are as they were.
while_missing() {
	wait_line "$1" "$MISSING"
	check_eq 0 $? "the log names the missing source"
	kill -USR1 "$WATCH_PID"
	wait_line "$1" "cgisnap: SIGUSR1 received: the full re-crawl waits until every source is back"
	check_eq 0 $? "the re-crawl SIGUSR1 asks for is held"
	check_eq "$batches_before" "$(batches "$LOG")" "batches while the source is missing"
	check_eq "" "$(tree_state | diff "$TESTDIR/state" - | head -5)" "tree and manifest changed"
	kill -0 "$WATCH_PID" 2>/dev/null || fail "the watcher died"
}

# after_back N: the source came back for the Nth time: the log says so and
# the next batch is a full re-crawl.
after_back() {
	wait_line "$1" "$BACK"
	check_eq 0 $? "the log says the source is back"
	wait_batches "$LOG" $((batches_before + 1))
	check_match "$(grep '^cgisnap: batch: ' "$LOG" | sed -n "$((batches_before + 1))p")" \
		"full re-crawl, a missing source came back: [0-9]+ URLs re-rendered, [0-9]+ files? changed, [0-9]+ removed" \
		"the batch after the return"
}

try "the wiki is snapshotted and data/pages watched"
watch_start "$LOG" "${ARGS[@]}" --exec "cat >> '$EXECLOG'" "$OUT"
check_eq 0 $? "watch came up"
check_match "$(cat "$LOG")" "watching [0-9]+ directories of 1 source \(dependencies traced\)" "watching line"
files=$(find "$OUT" -path "$OUT/.cgisnap" -prune -o -type f -print | wc -l)
check_le 30 "$files" "files in the tree"
check_file "$OUT/$(wiki_key "${P[1]}")" "a page"

try "the source moved away: logged, nothing re-rendered or pruned, even by SIGUSR1"
tree_state >"$TESTDIR/state"
batches_before=$(batches "$LOG")
mv "$SRC" "$SITE/data/pages.away"
while_missing 1
# Changes made while it is away, to be seen when it is back.
printf '\nEdited while away A1.\n' >>"$SITE/data/pages.away/$(printf '%s' "${P[2]}" | tr ':' '/').txt"
mkdir "$SITE/data/pages.away/newns"
printf '====== Born Away ======\n\nWritten while away A2, see [[:start]].\n' >"$SITE/data/pages.away/newns/born_away.txt"
rm "$SITE/data/pages.away/$(printf '%s' "${P[3]}" | tr ':' '/').txt"
check_eq "" "$(tree_state | diff "$TESTDIR/state" - | head -5)" "tree and manifest after changes in the moved copy"

try "moved back: watched again, the pages changed meanwhile re-rendered"
mv "$SITE/data/pages.away" "$SRC"
after_back 1
check_contains "$(cat "$OUT/$(wiki_key "${P[2]}")")" "Edited while away A1." "the page edited while away"
wait_file_has "$OUT/doku.php@id=start&do=index.html" "newns:born_away"
check_eq 0 $? "the index lists the page made while away"
check_contains "$(cat "$OUT/$(wiki_key newns:born_away)" 2>/dev/null)" "Written while away A2" "that page"
check_no_file "$OUT/$(wiki_key "${P[3]}")" "the page deleted while away (now truly gone)"
check_ne 200 "$(manifest_field "$OUT" "/doku.php?id=${P[3]}" 3)" "not recorded as a page"
printf '\nEdited after the return B1.\n' >>"$(wiki_file "$SITE" "${P[4]}")"
wait_file_has "$OUT/$(wiki_key "${P[4]}")" "Edited after the return B1."
check_eq 0 $? "an edit after the return is published"
printf '\nNew namespace edit B2.\n' >>"$SRC/newns/born_away.txt"
wait_file_has "$OUT/$(wiki_key newns:born_away)" "New namespace edit B2."
check_eq 0 $? "the namespace made while away is watched"

try "the source deleted (rm -rf) and copied back: the same"
watch_settle "$SITE" "$EXECLOG" "$SENTINEL"
check_eq 0 $? "settled"
cp -a "$SRC" "$TESTDIR/backup"
tree_state >"$TESTDIR/state"
batches_before=$(batches "$LOG")
rm -rf "$SRC"
while_missing 2
printf '\nEdited in the backup C1.\n' >>"$TESTDIR/backup/$(printf '%s' "${P[5]}" | tr ':' '/').txt"
cp -a "$TESTDIR/backup" "$SRC"
after_back 2
wait_file_has "$OUT/$(wiki_key "${P[5]}")" "Edited in the backup C1."
check_eq 0 $? "the page changed in the copy"
check_file "$OUT/$(wiki_key "${P[1]}")" "an unchanged page is still there"
printf '\nEdited after the copy D1.\n' >>"$(wiki_file "$SITE" "${P[6]}")"
wait_file_has "$OUT/$(wiki_key "${P[6]}")" "Edited after the copy D1."
check_eq 0 $? "an edit after the copy is published"

try "its parent directory replaced (mv data away, a copy put in its place): the same"
watch_settle "$SITE" "$EXECLOG" "$SENTINEL"
check_eq 0 $? "settled"
tree_state >"$TESTDIR/state"
batches_before=$(batches "$LOG")
mv "$SITE/data" "$SITE/data.old"
while_missing 3
cp -a "$SITE/data.old" "$SITE/data"
printf '\nEdited in the new copy E1.\n' >>"$(wiki_file "$SITE" "${P[7]}")"
after_back 3
wait_file_has "$OUT/$(wiki_key "${P[7]}")" "Edited in the new copy E1."
check_eq 0 $? "the page changed in the new copy"
printf '\nEdited in the new copy E3.\n' >>"$(wiki_file "$SITE" "${P[8]}")"
wait_file_has "$OUT/$(wiki_key "${P[8]}")" "Edited in the new copy E3."
check_eq 0 $? "the new copy is the one watched"

try "a namespace deleted inside the source is a deletion; recreated, it is watched again"
ns=$SRC/$NS
cp -a "$ns" "$TESTDIR/ns"
rm -rf "$ns"
wait_gone "$OUT/$(wiki_key "$NS_PAGE")"
check_eq 0 $? "its pages leave the tree"
wait_until "$WATCH_WAIT" _status_is "/doku.php?id=$NS_PAGE" 404 # the manifest is saved after the removals
check_eq 404 "$(manifest_field "$OUT" "/doku.php?id=$NS_PAGE" 3)" "recorded as 404"
check_eq 0 "$(count_lines "$LOG" "cgisnap: error: source '$ns' is missing: pages are neither re-rendered nor pruned until it is back")" "not a missing source"
cp -a "$TESTDIR/ns" "$ns"
wait_file_has "$OUT/$(wiki_key "$NS_PAGE")" "<html"
check_eq 0 $? "its pages are back"
printf '\nEdited in the recreated namespace F1.\n' >>"$(wiki_file "$SITE" "$NS_PAGE")"
wait_file_has "$OUT/$(wiki_key "$NS_PAGE")" "Edited in the recreated namespace F1."
check_eq 0 $? "the recreated namespace is watched"

try "SIGTERM stops it with status 0; nothing logged but the missing source"
watch_stop_ok
check_eq "" "$(grep -E 'error|warning' "$LOG" | grep -vxF "$MISSING")" "other errors or warnings"

# ---- a source that vanishes while a run renders ----
# The tiny site of tests/fixtures/watch-site, whose index links the slow
# page first: with one job, the slow page renders (announcing itself,
# then sleeping a second) before the items, so the source can go away
# between the two.
TINY=$TESTDIR/tiny
MARK=$TESTDIR/mark
watch_site "$TINY" "$MARK"
TLOG=$TESTDIR/tiny.log
TOUT=$TESTDIR/tiny-out

try "a source that vanishes during a run: what now answers 404 is not removed"
watch_start "$TLOG" --root "$TINY" --cgi php=php-cgi --env "MARK_DIR=$MARK" -j 1 --source "$TINY/data" "$TOUT"
check_eq 0 $? "watch came up"
ITEM_A=$(manifest_field "$TOUT" "/item.php?n=a" 2)
check_file "$TOUT/$ITEM_A" "item a"
echo slow >"$TINY/data/slow.txt"
wait_until "$WATCH_WAIT" test -e "$MARK/rendering"
check_eq 0 $? "the first batch renders the slow page"
wait_batches "$TLOG" 1
rm -f "$MARK/rendering"
kill -USR1 "$WATCH_PID" # a full re-crawl: the slow page, then the items
wait_until "$WATCH_WAIT" test -e "$MARK/rendering"
check_eq 0 $? "the re-crawl renders the slow page"
mv "$TINY/data" "$TINY/data.away"
wait_until "$WATCH_WAIT" grep -q "a source went missing during the run: nothing was removed" "$TLOG"
check_eq 0 $? "the run says it removed nothing"
check_match "$(grep '^cgisnap: batch: ' "$TLOG" | sed -n 2p)" "full re-crawl, SIGUSR1 received: .*, 0 removed" "the re-crawl's line"
for n in a b c; do
	check_eq 200 "$(manifest_field "$TOUT" "/item.php?n=$n" 3)" "item $n still recorded"
	check_contains "$(cat "$TOUT/$(manifest_field "$TOUT" "/item.php?n=$n" 2)")" "item $n" "item $n still published"
done
check_eq 1 "$(grep -c "source '$TINY/data' is missing" "$TLOG")" "the missing source logged once"
echo "item a, while away" >"$TINY/data.away/items/a.txt"
mv "$TINY/data.away" "$TINY/data"
wait_file_has "$TOUT/$ITEM_A" "item a, while away"
check_eq 0 $? "back: re-crawled"
watch_stop_ok

try "a source that vanishes during the initial snapshot: nothing removed, re-crawled when back"
rm -f "$MARK/rendering"
echo slow again >"$TINY/data/slow.txt"
# without the tree's word that its dependencies are complete: a full snapshot first
rm -f "$TOUT/.cgisnap/depstate"
TLOG2=$TESTDIR/tiny2.log
: >"$TLOG2"
bg_start _watch_run "$TLOG2" --root "$TINY" --cgi php=php-cgi --env "MARK_DIR=$MARK" -j 1 --source "$TINY/data" "$TOUT"
WATCH_PID=$BG_PID
wait_until "$WATCH_WAIT" test -e "$MARK/rendering"
check_eq 0 $? "the initial snapshot renders the slow page"
mv "$TINY/data" "$TINY/data.away"
wait_until "$WATCH_WAIT" grep -q "source '$TINY/data' is missing" "$TLOG2"
check_eq 0 $? "the missing source is logged"
check_contains "$(cat "$TLOG2")" "initial snapshot: the tree has no recorded dependencies" "a snapshot ran"
check_contains "$(cat "$TLOG2")" "a source went missing during the run: nothing was removed" "it removed nothing"
for n in a b c; do
	check_eq 200 "$(manifest_field "$TOUT" "/item.php?n=$n" 3)" "item $n still recorded"
done
echo "item b, while away" >"$TINY/data.away/items/b.txt"
mv "$TINY/data.away" "$TINY/data"
wait_file_has "$TOUT/$(manifest_field "$TOUT" "/item.php?n=b" 2)" "item b, while away"
check_eq 0 $? "back: re-crawled"
watch_stop_ok

try "a source missing at start is a set-up error"
"$CGISNAP" watch "${ARGS[@]}" --source "$SITE/data/no-such-dir" "$TESTDIR/t1" 2>"$TESTDIR/err"
check_eq 2 $? "exit status"
check_contains "$(cat "$TESTDIR/err")" \
	"source '$SITE/data/no-such-dir' does not exist: watch starts only when every source is there" "message"
check_no_file "$TESTDIR/t1/.cgisnap/tree.db" "nothing crawled"

finish
