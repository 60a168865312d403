#!/usr/bin/env bash
# t0740-mediawiki: issue 23's acceptance on the real MediaWiki (Debian's
# package, SQLite, seeded by tests/lib-apps.sh), which no profile names:
# with only the mount, the CGI handler and the site URL, the generic rules
# make the snapshot right. Every seeded page is stored with its text, at
# most twice as many files as pages; the views of every page (edit,
# history, info, login?returnto=, what links here: each noindex) are cut
# once a sample of each family said noindex, and the summary names them
# with the option that turns it off; what changes on every render
# (request ids, parse reports, feed times) is found by itself, so a second
# run rewrites no file, while a real edit (maintenance/edit.php) is
# published; and a browser-style link check over the served tree finds
# nothing broken but the views cgisnap said it left out, as verify does
# over a log of readers and bots (pages alike, views named). Under watch
# --source on its data directory, the wiki's own writes to its SQLite
# databases (caches, job queue) start no batch and hold no page, while an
# edit made with maintenance/edit.php, written into the same database,
# reaches the served page; started on the snapshots' tree, it crawls
# nothing again (their traced renders recorded what each page read, and
# the journals the renders looked for and did not find are no change).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"
. "$(dirname "$0")/lib-serve.sh"
. "$(dirname "$0")/lib-watch.sh"
. "$(dirname "$0")/lib-apps.sh"

apps_need mediawiki
mediawiki_site "$TESTDIR/mw" >"$TESTDIR/mw.out" 2>&1 || {
	try "mediawiki_site"
	fail "cannot seed the wiki: $(tail -3 "$TESTDIR/mw.out")"
	finish
}
cat "$TESTDIR/mw.out"
OUT=$TESTDIR/out
PAGES=$(wc -l <"$MW_PAGES_FILE")

# snap [OPTIONS...]: the zero-configuration snapshot into $OUT: Debian's
# mount of the wiki, php-cgi, the site URL.
snap() {
	"$CGISNAP" snapshot --root "$MW_DOCROOT" --path-alias "/mediawiki=$MW_ROOT" --cgi php=php-cgi \
		--site-url "$MW_URL" --progress none "$@" "$OUT"
}

try "zero configuration: every seeded page stored with its text, at most twice as many files"
snap -v >"$TESTDIR/snap1.out" 2>"$TESTDIR/snap1.err"
check_eq 0 $? "exit status ($(grep -v ' ms ' "$TESTDIR/snap1.err" | tail -3))"
check_eq "" "$(mediawiki_missing_pages "$OUT")" "seeded pages not stored with their text"
stored=$(stored_files "$OUT")
check_le "$stored" $((2 * PAGES)) "files stored ($PAGES pages seeded)"
grep -v ' ms ' "$TESTDIR/snap1.err" | sed 's/^/# /'

try "the views of every page are cut by family once a sample said noindex, and the summary says so"
read -r rendered cut < <(render_counts "$TESTDIR/snap1.err")
# Rendered, each page would cost nine views (MediaWiki's own count).
check_le "$rendered" $((3 * PAGES)) "URLs rendered"
check_le $((4 * PAGES)) "$cut" "URLs cut, not rendered"
summary=$(grep 'families whose first 8 pages all said robots noindex' "$TESTDIR/snap1.err")
check_match "$summary" "^cgisnap: skipped $cut URLs not rendered, in [0-9]+ families whose first 8 pages all said robots noindex \('/mediawiki/index\.php\?action=…&title=…' [0-9]+, .*\): --noindex-sample 0 to render them$" \
	"the summary line"
check_eq "" "$(manifest_targets "$OUT" | grep -E '[?&](action=(edit|history|info)|returnto=|oldid=)')" "views stored"

try "a second run rewrites no page, a third no file: what changes on every render is found by itself"
snap -v >"$TESTDIR/snap2.out" 2>"$TESTDIR/snap2.err"
check_eq 0 $? "exit status"
# No page is rewritten. ResourceLoader's startup script may change once
# after a fresh wiki's first crawl (the versions of the modules it
# registers, as their first builds are recorded): that is content, not a
# span that changes on every render; the third run rewrites nothing.
check_eq "" "$(sed -nE 's/^cgisnap: 200 (new|changed) [0-9]+ ms [0-9]+ bytes //p' "$TESTDIR/snap2.err" |
	grep -v '^/mediawiki/load\.php?lang=en&modules=startup&')" "pages rewritten by the second run"
check_contains "$(cat "$OUT/.cgisnap/volatile" 2>&1)" 'wgRequestId":"' "the request id is a learned span"
snap >"$TESTDIR/snap3.out" 2>"$TESTDIR/snap3.err"
check_match "$(cat "$TESTDIR/snap3.err")" "stored $stored files \(0 new, 0 changed, $stored unchanged\)" "third run"

try "verify: real traffic's pages answer alike; the views the generic rules cut are named as views"
# A log as a wiki gets it: readers on five pages, bots on their edit,
# history and info views.
{
	for target in $(cut -f1 "$MW_PAGES_FILE" | head -5); do
		for i in 1 2 3; do
			printf '192.0.2.1 - - [06/Dec/2026:10:00:00 +0000] "GET %s HTTP/1.1" 200 1 "-" "Mozilla/5.0"\n' "$target"
		done
		title=${target#*title=}
		for view in edit history info; do
			printf '192.0.2.2 - - [06/Dec/2026:10:00:00 +0000] "GET /mediawiki/index.php?title=%s&action=%s HTTP/1.1" 200 1 "-" "bot"\n' \
				"$title" "$view"
		done
	done
} >"$TESTDIR/mw-access.log"
"$CGISNAP" verify --root "$MW_DOCROOT" --path-alias "/mediawiki=$MW_ROOT" --cgi php=php-cgi --site-url "$MW_URL" \
	--json "$OUT" "$TESTDIR/mw-access.log" >"$TESTDIR/verify.json" 2>"$TESTDIR/verify.err"
check_eq 1 $? "exit status: the views would change ($(tail -2 "$TESTDIR/verify.err"))"
check_eq "ok" "$(python3 - "$TESTDIR/verify.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
problems = []
for c in j["causes"]:
    for f in c["families"]:
        for u in f["items"]:
            view = "&action=" in u["url"]
            named = (u["detail"] or "").startswith(("a view: ", "left out: it said robots noindex"))
            if not view:
                problems.append("a page that differs: %s %s %r" % (u["url"], c["cause"], u["detail"]))
            elif c["cause"] != "not-in-tree" or not named:
                problems.append("a view not named as one: %s %s %r" % (u["url"], c["cause"], u["detail"]))
if j["alike"] != {"urls": 5, "requests": 15}: problems.append("alike %r" % j["alike"])
if j["changes"] != {"urls": 15, "requests": 15}: problems.append("changes %r" % j["changes"])
print("ok" if not problems else "; ".join(problems[:5]))
PY
)" "the report"

try "an edit made with maintenance/edit.php is published; the other pages stay"
echo "Seeded page 05 was edited by the test." | mw_php maintenance/edit.php -u Admin -s edit "Page 05" \
	>"$TESTDIR/edit.out" 2>&1
check_eq 0 $? "edit.php ($(tail -2 "$TESTDIR/edit.out"))"
snap -v >"$TESTDIR/snap4.out" 2>"$TESTDIR/snap4.err"
check_eq 0 $? "exit status"
changed=$(sed -nE 's/^cgisnap: 200 changed [0-9]+ ms [0-9]+ bytes //p' "$TESTDIR/snap4.err")
check_contains "$changed" "/mediawiki/index.php?title=Page_05" "the edited page changed"
check_eq "" "$(printf '%s\n' "$changed" | grep -E 'title=Page_(0[1-46-9]|[1-4][0-9])$')" "another page changed"
check_contains "$(cat "$OUT/$(manifest_field "$OUT" /mediawiki/index.php?title=Page_05 2)")" \
	"Seeded page 05 was edited by the test." "the stored page has the edit"
sed -i 's/^\(\/mediawiki\/index\.php?title=Page_05\t\).*/\1Seeded page 05 was edited by the test./' "$MW_PAGES_FILE"

try "a browser-style link check of the served tree finds nothing broken but the views left out"
P=$(port 0)
serve_start "$OUT" "$P"
# Each URL the runs said they skipped (noindex, or cut with its family),
# as a --skip of its own.
skips=()
while read -r pattern; do
	skips+=(--skip "$pattern")
done < <(skipped_patterns "$TESTDIR/snap1.err" "$TESTDIR/snap4.err")
check_links mediawiki '[0-9]+' "$PAGES" --site "$MW_URL" "${skips[@]}" "http://127.0.0.1:$P" "$OUT"
bg_stop "$SERVE_PID"

try "watch on the snapshots' tree starts without crawling again: the wiki's own database writes are no change"
# As a site is run (a snapshot from cron, then watch): what the traced
# renders of the snapshots recorded is complete, and what they wrote
# themselves (the SQLite databases, their journals, looked for by every
# render and gone again) changed nothing a page read.
LOG=$TESTDIR/watch.log
W=$OUT
watch_start "$LOG" --root "$MW_DOCROOT" --path-alias "/mediawiki=$MW_ROOT" --cgi php=php-cgi \
	--site-url "$MW_URL" --source "$MW_DATA" --progress none "$W"
check_eq 0 $? "watch came up ($(tail -3 "$LOG"))"
check_eq "cgisnap: the tree's dependencies are complete and no source changed since its last run: no initial snapshot" \
	"$(grep '^cgisnap: the tree' "$LOG")" "watch's start"

try "watch --source on the wiki's data directory settles: its own writes to its databases start no batch"
check_eq "" "$(mediawiki_missing_pages "$W")" "seeded pages not stored with their text"
# A page rendered on request: MediaWiki writes its caches and job queue
# (SQLite, in the data directory) as it renders.
n=$(batches "$LOG")
"$CGISNAP" notify -q --wait "$W" "/mediawiki/index.php?title=Page_02" >/dev/null
check_eq 0 $? "notify"
# Its views and the pages that said noindex (Special:RecentChanges,
# ...), which the snapshots found (.cgisnap/views), are not rendered again.
batch=$(grep '^cgisnap: batch: 1 notified' "$LOG" | tail -1)
check_match "$batch" ': 1 URL re-rendered, ' "the notified page alone rendered ($batch)"
check_match "$(cat "$W/.cgisnap/views")" 'title=Special:RecentChanges' "the noindex pages kept in .cgisnap/views"
n=$(batches "$LOG")
sleep 3 # a quiet period is what is tested: nothing may happen in it
check_eq "$n" "$(batches "$LOG")" "batches during 3 s of quiet"
check_eq 0 "$(grep -c 'held (a source was being written)' "$LOG")" "pages held"

try "watch: an edit made with maintenance/edit.php reaches the served page, then it settles again"
echo "Seeded page 07 was edited under watch." | mw_php maintenance/edit.php -u Admin -s edit "Page 07" \
	>"$TESTDIR/edit2.out" 2>&1
check_eq 0 $? "edit.php ($(tail -2 "$TESTDIR/edit2.out"))"
wait_until "$WATCH_WAIT" grep -q "Seeded page 07 was edited under watch." \
	"$W/$(manifest_field "$W" "/mediawiki/index.php?title=Page_07" 2)"
check_eq 0 $? "the edit published ($(grep '^cgisnap: batch: ' "$LOG" | tail -2 | cut -c1-300))"
# The edit's batches end (a batch that held a page, read while edit.php
# still wrote, is followed by its retry a second later: watch_idle waits
# for it too); then nothing more happens.
watch_idle "$W"
check_eq 0 $? "the edit's batches ended ($(grep '^cgisnap: batch: ' "$LOG" | tail -1 | cut -c1-300))"
n=$(batches "$LOG")
sleep 3 # a quiet period is what is tested
check_eq "$n" "$(batches "$LOG")" "batches during 3 s of quiet after the edit"
grep '^cgisnap: batch: ' "$LOG" | cut -c1-300 | sed 's/^/# /'
watch_stop
check_eq 0 "$WATCH_STATUS" "watch exit status"

finish
