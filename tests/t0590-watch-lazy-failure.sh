#!/usr/bin/env bash
# t0590-watch-lazy-failure: watch, traced, keeps no page's entry in memory
# between batches: a batch reads the rows of the pages it touches from
# tree.db. A row that cannot be read (its sets damaged, as a hand could)
# fails that batch's save (an edit of the template every page reads)
# with one line naming the page; the files the batch did publish stay
# published and recorded as pending. The next
# change re-crawls everything: what the failed batch published is found
# to be cgisnap's own (not refused as another program's), the damaged row
# is written again, nothing is left pending, and later batches go on.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-watch.sh"

PAGES=200
watch_test_dirs site

try "the synthetic site is snapshotted, and watched without a re-crawl"
synth_snapshot "$SITE" "$OUT" "$PAGES"
check_eq 0 $? "site built and snapshotted ($(tail -1 "$TESTDIR/snap.err" 2>/dev/null))"
watch_start "$LOG" --root "$SITE" --seed '/page.cgi?id=0' -j 2 --source "$SITE/data" -v "$OUT"
check_eq 0 $? "watching ($(tail -1 "$LOG"))"
check_contains "$(cat "$LOG")" "no initial snapshot" "no re-crawl"

try "a page whose row cannot be read fails its batch's save, in one line; the pages published are pending"
tree_sql "$OUT" "UPDATE url SET sets = x'80' WHERE target = '/page.cgi?id=5'" >/dev/null
n=$(batches "$LOG")
printf '<!-- template edited -->\n' >>"$SITE/data/template.html" # every page, in one batch
wait_batches "$LOG" $((n + 1))
idle=$("$CGISNAP" notify --idle --timeout 120 "$OUT" 2>&1)
check_eq 1 $? "notify --idle: not all published"
check_contains "$idle" "the last batch could not write the tree" "why"
check_contains "$(cat "$LOG")" "error: cannot read '$OUT/.cgisnap/tree.db': the sets of '/page.cgi?id=5' are malformed" \
	"the damaged row named"
check_contains "$(cat "$OUT/page.cgi@id=6.html")" "<!-- template edited -->" "page 6 published"
check_le 100 "$(tree_sql "$OUT" "SELECT count(*) FROM pending")" "the pages' publishes pending"
sha6=$(sha256sum "$OUT/page.cgi@id=6.html" | cut -d' ' -f1)
check_eq 0 "$(manifest_field "$OUT" '/page.cgi?id=6' 6 | grep -c "$sha6")" "page 6's row as before the batch"

try "the next change re-crawls everything: page 6's file is cgisnap's, every row as published"
n=$(batches "$LOG")
lines=$(wc -l <"$LOG")
echo "Page 7, edited." >"$SITE/data/pages/0/7.txt"
wait_batches "$LOG" $((n + 1))
watch_idle "$OUT"
check_eq 0 $? "nothing pending after it"
check_contains "$(grep '^cgisnap: batch: ' "$LOG" | tail -1)" "full re-crawl, the last batch could not write the tree" \
	"the batch was the full re-crawl"
check_match "$(grep '^cgisnap: batch: ' "$LOG" | tail -1)" ", 0 removed, [0-9]+ ms$" "nothing failed, held or kept"
for refusal in "not removing" "changed since cgisnap published it" "not published by cgisnap"; do
	check_not_contains "$(tail -n +$((lines + 1)) "$LOG")" "$refusal" "no file refused"
done
check_eq "$sha6" "$(manifest_field "$OUT" '/page.cgi?id=6' 6)" "page 6's row"
for id in 5 7; do
	check_eq "$(sha256sum "$OUT/page.cgi@id=$id.html" | cut -d' ' -f1)" "$(manifest_field "$OUT" "/page.cgi?id=$id" 6)" \
		"page $id's row"
done
check_contains "$(cat "$OUT/page.cgi@id=5.html")" "<!-- template edited -->" "page 5 published"
check_contains "$(cat "$OUT/page.cgi@id=7.html")" "Page 7, edited." "page 7 published"
check_eq 0 "$(tree_sql "$OUT" "SELECT count(*) FROM pending")" "nothing pending"
check_eq 0 "$(tree_sql "$OUT" "SELECT count(*) FROM url WHERE sets IS NULL OR sets = x'80'")" "every row's sets written"

try "later batches go on, page 5's among them"
n=$(batches "$LOG")
echo "Page 5, edited again." >"$SITE/data/pages/0/5.txt"
wait_file_has "$OUT/page.cgi@id=5.html" "Page 5, edited again."
check_eq 0 $? "published"
watch_idle "$OUT"
check_eq 0 $? "nothing pending"
check_match "$(grep '^cgisnap: batch: ' "$LOG" | tail -1)" ": 1 URL re-rendered, 1 file changed, 0 removed, [0-9]+ ms$" \
	"an ordinary batch"
watch_stop
check_eq 0 "$WATCH_STATUS" "watch exit"
finish
