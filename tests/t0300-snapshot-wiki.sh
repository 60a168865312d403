#!/usr/bin/env bash
# t0300-snapshot-wiki: snapshot the sample wiki through php-cgi: what is
# stored, what is not, links, bodies, re-runs, edits and deletions.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"

sample_site_test wiki 120

try "a snapshot of the wiki completes with exit status 0"
snap_wiki "$SITE" "$OUT" -j 2 2>"$TESTDIR/err1"
check_eq 0 $? "exit status"
check_match "$(cat "$TESTDIR/err1")" "stored [0-9]+ files \([0-9]+ new, 0 changed, 0 unchanged\), 0 removed" "summary"
check_match "$(cat "$TESTDIR/err1")" ", 0 failed," "no failures"
check_file "$OUT/index.html" "front page"
check_file "$OUT/doku.php@id=wiki:syntax.html" "a query-string page"

try "every page of the wiki is stored, with the index, recent changes and backlinks"
pages=$(cd "$SITE/data/pages" && find . -name '*.txt' | wc -l)
stored=$(manifest_targets "$OUT" | grep -c '^/doku.php?id=[^&]*$')
check_eq "$pages" "$stored" "page views stored"
check_file "$OUT/doku.php@id=start&do=index.html" "page index"
check_file "$OUT/doku.php@id=start&do=recent.html" "recent changes"
check_file "$OUT/doku.php@id=wiki:syntax&do=backlink.html" "backlinks"

try "no edit, revisions or raw-export page is stored (rel=nofollow)"
check_eq "" "$(manifest_targets "$OUT" | grep -E 'do=(edit|revisions|export_raw)|&rev=')" "action URLs"
check_eq "" "$(find "$OUT" -name '*do=edit*' -o -name '*do=revisions*' -o -name '*export_raw*')" "action files"

try "the stylesheet from css.php is stored as CSS, and what it links is stored too"
css=$(manifest_targets "$OUT" | grep '^/lib/exe/css.php?')
check_match "$css" '^/lib/exe/css.php\?t=dokuwiki&tseed=[0-9a-f]+$' "css.php target"
key=$(manifest_field "$OUT" "$css" 2)
check_match "$key" '^lib/exe/css.php@t=dokuwiki&tseed=[0-9a-f]+\.css$' "key with .css suffix"
check_match "$(manifest_field "$OUT" "$css" 4)" '^text/css' "recorded type"
check_file "$OUT/lib/images/bullet.png" "image named only inside the CSS"
check_file "$OUT/lib/images/logo.png" "static image copied"
cmp -s "$SITE/lib/images/logo.png" "$OUT/lib/images/logo.png" || fail "logo.png differs from the source"

try "every followable internal link resolves to something the manifest records"
check_eq "" "$(linkcheck "$OUT" http://localhost:8080)" "unresolved links"

try "the volatile web bug is stripped and not crawled"
check_eq "0" "$(grep -l 'taskrunner' "$OUT"/doku.php@*.html | wc -l)" "pages still holding the web bug"
check_eq "" "$(manifest_targets "$OUT" | grep taskrunner)" "taskrunner URLs"

try "stored bodies equal a fresh direct render"
for id in start wiki:syntax "$(ls "$SITE/data/pages/howto" | head -1 | sed 's/\.txt$//; s/^/howto:/')"; do
	direct_render "$SITE" /doku.php "/doku.php?id=$id" | sed -E "s#$WIKI_STRIP##g" >"$TESTDIR/direct"
	cmp -s "$TESTDIR/direct" "$OUT/doku.php@id=$id.html" || fail "page $id differs from a direct render"
done
direct_render "$SITE" /doku.php "/doku.php?id=start&do=index" | sed -E "s#$WIKI_STRIP##g" >"$TESTDIR/direct"
cmp -s "$TESTDIR/direct" "$OUT/doku.php@id=start&do=index.html" || fail "the index differs"

try "compressible pages over 1 KiB get a .gz sibling with the same mtime"
check_file "$OUT/doku.php@id=start.html.gz"
check_eq "$(stat -c %Y.%y "$OUT/doku.php@id=start.html")" "$(stat -c %Y.%y "$OUT/doku.php@id=start.html.gz")" "mtimes"
check_eq "$(cat "$OUT/doku.php@id=start.html")" "$(gzip -dc "$OUT/doku.php@id=start.html.gz")" "gz content"
check_no_file "$OUT/lib/images/logo.png.gz" "no .gz for PNG"

try "the manifest has one line per URL with every column"
bad=$(grep -v '^#' <("$CGISNAP" ls "$OUT") | awk -F'\t' 'NF != 9 || $3 !~ /^[0-9]+$/ || ($2 != "-" && (length($6) != 64 || $6 ~ /[^0-9a-f]/))')
check_eq "" "$bad" "malformed manifest lines"
sum=$(sha256sum "$OUT/doku.php@id=start.html" | cut -d' ' -f1)
check_eq "$sum" "$(manifest_field "$OUT" '/doku.php?id=start' 6)" "recorded sha256"
check_eq "$(stat -c %s "$OUT/doku.php@id=start.html")" "$(manifest_field "$OUT" '/doku.php?id=start' 5)" "recorded bytes"

try "the wiki's 'not found' page is kept as the tree's 404 page"
check_file "$OUT/.cgisnap/404.html"
check_contains "$(cat "$OUT/.cgisnap/404.html")" "This topic does not exist yet" "404 page body"

try "a second run with no change rewrites nothing"
tree_mtimes "$OUT" >"$TESTDIR/mtimes1"
snap_wiki "$SITE" "$OUT" 2>"$TESTDIR/err2"
check_eq 0 $? "exit status"
check_match "$(cat "$TESTDIR/err2")" "\(0 new, 0 changed, [0-9]+ unchanged\), 0 removed" "summary"
tree_mtimes "$OUT" >"$TESTDIR/mtimes2"
check_eq "" "$(diff "$TESTDIR/mtimes1" "$TESTDIR/mtimes2")" "changed mtimes"

try "editing one page changes exactly the files that show it"
page=$(ls "$SITE/data/pages/howto" | head -1)
id="howto:${page%.txt}"
# keep the page's age, so that only its text (not its indexdelay meta) changes
touch -r "$SITE/data/pages/howto/$page" "$TESTDIR/age"
printf '\n\nA **freshly edited** paragraph.\n' >>"$SITE/data/pages/howto/$page"
touch -r "$TESTDIR/age" "$SITE/data/pages/howto/$page"
snap_wiki "$SITE" "$OUT" 2>"$TESTDIR/err3"
check_eq 0 $? "exit status"
tree_mtimes "$OUT" >"$TESTDIR/mtimes3"
changed=$(diff "$TESTDIR/mtimes2" "$TESTDIR/mtimes3" | sed -n 's/^> \([^ ]*\) .*/\1/p' | grep -v '\.gz$' | LC_ALL=C sort | tr '\n' ' ')
check_eq "doku.php@id=$id.html " "$changed" "files rewritten"
check_contains "$(cat "$OUT/doku.php@id=$id.html")" "<strong>freshly edited</strong>" "new text"
check_match "$(cat "$TESTDIR/err3")" "\(0 new, 1 changed, [0-9]+ unchanged\)" "summary"

try "deleting a page removes its file and its .gz"
victim=$(ls "$SITE/data/pages/howto" | sed -n 2p)
vid="howto:${victim%.txt}"
check_file "$OUT/doku.php@id=$vid.html" "page before deletion"
rm "$SITE/data/pages/howto/$victim"
snap_wiki "$SITE" "$OUT" 2>"$TESTDIR/err4"
check_eq 0 $? "exit status"
check_no_file "$OUT/doku.php@id=$vid.html" "page after deletion"
check_no_file "$OUT/doku.php@id=$vid.html.gz" "its .gz"
check_match "$(cat "$TESTDIR/err4")" "[1-9][0-9]* removed" "summary counts removals"
check_eq "" "$(linkcheck "$OUT" http://localhost:8080)" "links still resolve"

finish
