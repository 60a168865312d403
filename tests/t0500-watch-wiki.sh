#!/usr/bin/env bash
# t0500-watch-wiki: 'cgisnap watch' on the sample wiki through php-cgi,
# with traced dependencies: edits, new pages, deletions, editor-style
# saves and a burst of writes reach the tree (and nothing else changes),
# the wiki's own cache writes start no batch, and SIGTERM stops it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-watch.sh"

watch_wiki_test 60
EXECLOG=$TESTDIR/exec.log

# Pages used below, each for one job. P is edited, SENTINEL only settles.
pages_in() { wiki_pages "$SITE" "$1"; }
P=$(pages_in howto | head -1)
SENTINEL=$(pages_in team | head -1)
EDITOR_PAGE=$(pages_in reference | head -1)
# a page P does not link to yet, whose backlinks page will list P
T=""
for cand in team:start reference:start projects:start wiki:start howto:start; do
	grep -q "\[\[:\?$cand[]|]" "$(wiki_file "$SITE" "$P")" || { T=$cand; break; }
done
# Every backlinks page reads every page source, so every edit would
# re-render all of them: only T's is crawled, to keep the test quick.
CRAWL=(--exclude 'do=backlink' --seed / --seed "/doku.php?id=$T&do=backlink")
mapfile -t ARGS < <(watch_wiki_args "$SITE")
ARGS+=("${CRAWL[@]}")

try "an empty tree gets a full snapshot first, with dependencies recorded"
watch_start "$LOG" "${ARGS[@]}" --exec "cat >> '$EXECLOG'" "$OUT"
check_eq 0 $? "watch came up"
check_contains "$(cat "$LOG")" "initial snapshot: the tree is empty" "reason"
check_match "$(cat "$LOG")" "stored [0-9]+ files \([0-9]+ new, 0 changed, 0 unchanged\), 0 removed, 0 redirects" "summary"
check_file "$OUT/$(wiki_key "$P")" "page P"
check_contains "$("$CGISNAP" ls --deps "$OUT")" "/doku.php?id=$P	R	$(wiki_file "$SITE" "$P")" "P's page read its source"
check_match "$("$CGISNAP" ls --deps "$OUT")" "	L	$SITE/data/pages/howto$" "a listing recorded"
check_eq "" "$(grep -E "	[RELCA]	$SITE/data/cache/" <("$CGISNAP" ls --deps "$OUT"))" "the render cache is no dependency"
# What a render wrote is kept with its page (W): another program's write
# to it re-renders the page, even in a later watch.
check_match "$("$CGISNAP" ls --deps "$OUT")" "	W	$SITE/data/cache/" "the render cache is the renders' own (W)"
check_eq "" "$(grep -E '	[RL]	/(usr|etc|tmp/cgisnap-php)' <("$CGISNAP" ls --deps "$OUT"))" "paths outside the sources and root"

try "editing a page updates it, its new link's backlinks and recent changes, nothing else"
check_ne "" "$T" "a link target P lacks"
tree_mtimes "$OUT" >"$TESTDIR/m1"
printf '\nWatch edit marker E1 links [[:%s]].\n' "$T" >>"$(wiki_file "$SITE" "$P")"
wait_file_has "$OUT/$(wiki_key "$P")" "Watch edit marker E1"
check_eq 0 $? "P's page shows the edit"
wait_batches "$LOG" 1
wait_file_has "$OUT/doku.php@id=$T&do=backlink.html" "title=\"$P\""
check_eq 0 $? "T's backlinks list P"
recent_first=$(sed -n '/<ul class="recent">/,$p' "$OUT/doku.php@id=start&do=recent.html" | grep -o 'title="[^"]*"' | head -1)
check_eq "title=\"$P\"" "$recent_first" "P tops recent changes"
tree_mtimes "$OUT" >"$TESTDIR/m2"
changed=$(diff "$TESTDIR/m1" "$TESTDIR/m2" | sed -n 's/^> \([^ ]*\) .*/\1/p' | sed 's/\.gz$//' | LC_ALL=C sort -u)
check_contains "$changed" "$(wiki_key "$P")" "P's file rewritten"
check_not_contains "$changed" "$(wiki_key start)" "start page untouched"
check_not_contains "$changed" "$(wiki_key "$SENTINEL")" "an unrelated page untouched"
check_le "$(printf '%s\n' "$changed" | grep -c .)" 5 "files rewritten"
check_match "$(grep '^cgisnap: batch: ' "$LOG" | head -1)" \
	"^cgisnap: batch: 1 changed \($SITE/data/pages/howto/[^)]*\): [0-9]+ URLs re-rendered, [2-5] files changed, 0 removed, [0-9]+ ms$" \
	"batch line"

try "the wiki's own cache writes start no batch: idle after the edit"
n=$(batches "$LOG")
sleep 2 # a quiet period is what is tested: nothing may happen in it
check_eq "$n" "$(batches "$LOG")" "batches during 2 s of quiet"
check_ne "" "$(ls "$SITE/data/cache")" "the renders did write their cache"

try "a new page in a new namespace is rendered and listed in the index"
mkdir "$SITE/data/pages/newns"
printf '====== Fresh Page ======\n\nBrand new text F1, see [[:start]].\n' >"$SITE/data/pages/newns/fresh_page.txt"
wait_file_has "$OUT/$(wiki_key newns:fresh_page)" "Brand new text F1"
check_eq 0 $? "the new page is published"
wait_file_has "$OUT/doku.php@id=start&do=index.html" "newns:fresh_page"
check_eq 0 $? "the index lists it"

try "deleting a page removes it and re-renders the pages linking to it"
# Q: a page linked from the text of another page L (links in the text carry
# data-wiki-id; the breadcrumbs do not).
Q="" L=""
while IFS=' ' read -r file q; do
	case "$q" in *start|sidebar|wiki:syntax|"$P"|"$SENTINEL"|"$EDITOR_PAGE"|"$T"|newns:*) continue ;; esac
	[ "$file" != "$(wiki_key "$q")" ] || continue
	Q=$q
	L=$file
	break
done < <(cd "$OUT" && grep -o 'class="wikilink1" title="[^"]*" data-wiki-id=' doku.php@id=*.html 2>/dev/null |
	grep -v '&do=' | sed 's/:class="wikilink1" title="/ /; s/" data-wiki-id=$//' | LC_ALL=C sort)
check_ne "" "$Q" "a linked page to delete"
rm "$(wiki_file "$SITE" "$Q")"
wait_gone "$OUT/$(wiki_key "$Q")"
check_eq 0 $? "Q's file removed"
wait_file_has "$OUT/$L" "class=\"wikilink2\" title=\"$Q\""
check_eq 0 $? "the linking page $L shows a missing page now"
# The manifest is saved after the batch's files are published and removed.
_q_is_404() { [ "$(manifest_field "$OUT" "/doku.php?id=$Q" 3)" = 404 ]; }
wait_until "$WATCH_WAIT" _q_is_404
check_eq 404 "$(manifest_field "$OUT" "/doku.php?id=$Q" 3)" "recorded as 404"

try "an editor-style save (temp file renamed over the page) is caught"
echo ---- >>"$EXECLOG"
src=$(wiki_file "$SITE" "$EDITOR_PAGE")
cp "$src" "$src.swp"
printf '\nSaved by an editor E2.\n' >>"$src.swp"
mv "$src.swp" "$src"
wait_file_has "$OUT/$(wiki_key "$EDITOR_PAGE")" "Saved by an editor E2"
check_eq 0 $? "the page shows the save"

try "a burst of 500 writes across 50 pages ends equal to a fresh snapshot"
mapfile -t burst < <(cd "$SITE/data/pages" && find . -name '*.txt' | sed 's|^\./||' | LC_ALL=C sort |
	grep -v -e "^$(printf '%s' "$SENTINEL" | tr ':' '/').txt$" | head -50)
check_eq 50 "${#burst[@]}" "pages in the burst"
for i in $(seq 0 499); do
	printf 'Burst line %d.\n' "$i" >>"$SITE/data/pages/${burst[$((i % 50))]}"
done
watch_settle "$SITE" "$EXECLOG" "$SENTINEL"
check_eq 0 $? "the watcher settled"
snap_wiki "$SITE" "$TESTDIR/fresh" -j 2 "${CRAWL[@]}" 2>"$TESTDIR/fresh.err"
check_eq 0 $? "fresh snapshot"
check_eq "" "$(tree_diff_from "$TESTDIR/fresh" "$OUT")" "files differing from a fresh snapshot"
last=${burst[49]}
check_contains "$(cat "$OUT/$(wiki_key "$(printf '%s' "${last%.txt}" | tr '/' ':')")")" "Burst line 499." "last write shown"
check_le "$(batches "$LOG")" 12 "batches for the whole test (bursts coalesced)"

try "SIGTERM stops the watcher with status 0"
watch_stop_ok
check_match "$(tail -1 "$LOG")" "^cgisnap: stopped after [0-9]+ batches$" "last line"
check_eq "" "$(grep -E 'error|warning' "$LOG")" "errors or warnings logged"

finish
