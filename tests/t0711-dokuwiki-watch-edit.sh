#!/usr/bin/env bash
# t0711-dokuwiki-watch-edit: issue 12's watch acceptance on the real
# DokuWiki (tests/lib-apps.sh), edited as its editor edits it: through
# DokuWiki's own PHP API (saveWikiText, tests/fixtures/apps/dw-save.php),
# which writes the page, its old revision, the page's and the wiki's
# changelogs and its metadata. watch runs with nothing beyond --root, --cgi
# and --site-url (the dokuwiki profile detected), and each save:
#   - an edit of an existing page: the page shows the new text, the
#     recent-changes feed (feed.php) names the edit, and the URLs
#     re-rendered are at most the files that really changed + 2;
#   - a new page, then an existing page edited to link it: the new page
#     is stored, the one sitemap (do=index) and the feed list it, same
#     bound.
# feed.php answers from a cache for 5 minutes whatever was saved; the
# profile's --render-query purge=1 is what lets the feed show the edit
# (and its render read the changelog, so that watch knows the feed
# depends on it).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"
. "$(dirname "$0")/lib-watch.sh"
. "$(dirname "$0")/lib-apps.sh"

dokuwiki_test_site
OUT=$TESTDIR/out

# dw_save ID SUMMARY TEXT: save page ID as DokuWiki's editor does.
dw_save() {
	printf '%s\n' "$3" | php -d display_errors=stderr -d error_reporting=E_ERROR \
		"$ROOT/tests/fixtures/apps/dw-save.php" "$DW_ROOT" "$1" "$2"
}

# check_save FROM: the batches after batch FROM (one save through DokuWiki
# writes the page, its changelogs and its index entries: one batch or a few,
# as they come) re-rendered at most the files they changed + 2 (and changed
# one at least), once they ended.
check_save() {
	check_edit_batches "$OUT" "$log" "$1"
}

try "a snapshot, then watch with nothing beyond --root, --cgi and --site-url"
"$CGISNAP" snapshot --root "$DW_ROOT" --cgi php=php-cgi --site-url "$DW_URL" "$OUT" \
	>/dev/null 2>"$TESTDIR/snap.err"
check_eq 0 $? "snapshot exit status ($(grep -v 'PHP ' "$TESTDIR/snap.err" | tail -3))"
log=$TESTDIR/watch.log
watch_start "$log" --root "$DW_ROOT" --cgi php=php-cgi --site-url "$DW_URL" "$OUT"
check_eq 0 $? "watch came up ($(grep -v 'PHP ' "$log" | tail -3))"
check_eq "cgisnap: using profile dokuwiki (found doku.php); --profile none to turn it off" \
	"$(head -1 "$log")" "the profile is detected"
feed=$OUT/$(manifest_field "$OUT" /feed.php 2)
sitemap=$OUT/$(manifest_field "$OUT" "/doku.php?id=start&do=index" 2)
check_file "$feed" "the feed"
check_file "$sitemap" "the sitemap"
check_not_contains "$(cat "$feed")" "page05" "the feed names no page05 yet (nothing was ever saved)"

try "an existing page saved through DokuWiki's editor API: the page and the feed show it"
dw_save wiki:page05 "cgisnap edit one" "====== page05 ======

Seeded page wiki page05 has a sentence of its own.

Edited through the editor of DokuWiki under watch.

===== Links =====

  * next: [[wiki:page06]]
  * up: [[wiki:index]] and [[start]]" 2>"$TESTDIR/save1.err"
check_eq 0 $? "dw-save.php ($(cat "$TESTDIR/save1.err"))"
check_contains "$(cat "$TESTDIR/dw/data/meta/_dokuwiki.changes" 2>/dev/null)" "cgisnap edit one" \
	"DokuWiki's changelog has the edit"
key=$(manifest_field "$OUT" "/doku.php?id=wiki:page05" 2)
wait_file_has "$OUT/$key" "Edited through the editor of DokuWiki under watch." ||
	fail "the edit never reached the page ($(grep -v 'PHP ' "$log" | tail -3))"
wait_file_has "$feed" "cgisnap edit one" ||
	fail "the recent-changes feed does not show the edit ($(grep -c '<item' "$feed") items)"
wait_batches "$log" 1
check_save 0

try "a new page, then a page edited to link it: the page stored, the sitemap and the feed list it"
b=$(batches "$log")
dw_save news "cgisnap new page" "====== News ======

A page created under watch, with a sentence of its own." 2>"$TESTDIR/save2.err"
check_eq 0 $? "dw-save.php, the new page ($(cat "$TESTDIR/save2.err"))"
wait_batches "$log" $((b + 1))
wait_file_has "$sitemap" "doku.php?id=news" ||
	fail "the sitemap does not list the new page ($(grep -v 'PHP ' "$log" | tail -2))"
wait_file_has "$feed" "cgisnap new page" || fail "the feed does not show the new page"
check_save "$b"
b=$(batches "$log")
dw_save wiki:page06 "cgisnap link to news" "====== page06 ======

Seeded page wiki page06 has a sentence of its own. See [[news|the news]].

===== Links =====

  * next: [[wiki:page07]]
  * up: [[wiki:index]] and [[start]]" 2>"$TESTDIR/save3.err"
check_eq 0 $? "dw-save.php, the link ($(cat "$TESTDIR/save3.err"))"
# The new page's file, once stored with its text (the sitemap's batch
# may have found it first, the link's batch render it again).
_news_stored() {
	key=$(manifest_field "$OUT" "/doku.php?id=news" 2)
	[ -n "$key" ] && grep -qF "A page created under watch" "$OUT/$key"
}
wait_until "$WATCH_WAIT" _news_stored
check_ne "" "$key" "the new page is in the manifest"
check_contains "$(cat "$OUT/$key" 2>/dev/null)" "A page created under watch" "the new page is stored"
wait_file_has "$feed" "cgisnap link to news" || fail "the feed does not show the linking edit"
wait_batches "$log" $((b + 1))
check_save "$b"
watch_stop
check_eq 0 "$WATCH_STATUS" "watch exit status"
check_eq "" "$(grep -E '^cgisnap: (warning|error): ' "$log" | grep -v 'PHP ' | head -3)" "no warning"

finish
