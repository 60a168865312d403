#!/bin/bash
# t0110-wiki-cgi: the sample wiki (sample-sites/wiki) run directly through
# php-cgi: seeding, rendering, actions, headers, 404s, writes under data/.
. "$(dirname "$0")/lib.sh"

WIKI=$TESTDIR/wiki
SESS=$TESTDIR/sessions
mkdir -p "$SESS"

# req SCRIPT TARGET [ROOT]: run one CGI request; sets STATUS (200 when
# php-cgi prints no Status line), HEAD (headers, no CRs) and BODY; the
# exact body bytes are in $TESTDIR/body.
req() {
	local root=${3:-$WIKI} env_args
	mapfile -t env_args < <(cgi_env "$root" "$1" "$2")
	env -i "${env_args[@]}" php-cgi -d session.save_path="$SESS" >"$TESTDIR/resp" 2>"$TESTDIR/stderr"
	php -r '$s = file_get_contents($argv[1]); $p = strpos($s, "\r\n\r\n");
		if ($p === false) { $p = strlen($s); }
		file_put_contents($argv[2], str_replace("\r", "", substr($s, 0, $p)));
		file_put_contents($argv[3], (string) substr($s, $p + 4));' \
		"$TESTDIR/resp" "$TESTDIR/head" "$TESTDIR/body"
	HEAD=$(cat "$TESTDIR/head")
	BODY=$(tr -d '\0' <"$TESTDIR/body")
	STATUS=$(sed -n 's/^Status: \([0-9][0-9]*\).*/\1/p' "$TESTDIR/head")
	STATUS=${STATUS:-200}
}

# page_ids DIR: every page id of a seeded wiki, sorted.
page_ids() {
	(cd "$1/data/pages" && find . -name '*.txt' | sed 's#^\./##; s#\.txt$##; s#/#:#g' | LC_ALL=C sort)
}

# tree_sums DIR: sha256 of every seeded file (pages, attic, media).
tree_sums() {
	(cd "$1/data" && find pages attic media -type f | LC_ALL=C sort | xargs sha256sum)
}

try "php and php-cgi are installed"
command -v php >/dev/null || fail "php not found"
command -v php-cgi >/dev/null || fail "php-cgi not found"

try "seed.php writes the requested number of pages"
seed_wiki "$WIKI" 200
check_eq 200 "$(find "$WIKI/data/pages" -name '*.txt' | wc -l)" "page files"
check_file "$WIKI/data/pages/start.txt" "start page"
check_file "$WIKI/data/pages/sidebar.txt" "sidebar page"
check_file "$WIKI/data/pages/wiki/syntax.txt" "syntax page"
check_file "$WIKI/data/pages/projects/alpha/start.txt" "nested namespace start page"
check_file "$WIKI/data/media/wiki/dokuwiki-128.png" "media file"
check_eq 9 "$(find "$WIKI/data/pages" -mindepth 1 -type d | wc -l)" "namespace folders"

try "seeding is deterministic (byte-identical trees)"
seed_wiki "$TESTDIR/wiki2" 200
tree_sums "$WIKI" >"$TESTDIR/sums1"
tree_sums "$TESTDIR/wiki2" >"$TESTDIR/sums2"
check_cmp "$TESTDIR/sums1" "$TESTDIR/sums2" "sha256sums of two seeds"
check_lt 200 "$(wc -l <"$TESTDIR/sums1")" "files compared (pages + attic + media)"

try "seeded mtimes: fixed clock, five recent pages"
check_eq 1704067200 "$(stat -c %Y "$WIKI/data/pages/start.txt")" "start.txt mtime (2024-01-01 UTC)"
check_eq 1704074400 "$(stat -c %Y "$WIKI/data/pages/wiki/syntax.txt")" "wiki/syntax.txt mtime (page 2)"
check_eq 5 "$(find "$WIKI/data/pages" -name '*.txt' -newermt '-5 days' | wc -l)" "pages younger than 5 days"

try "seeding 1000 pages is quick"
t0=$(date +%s%N)
seed_wiki "$TESTDIR/wiki3" 1000
t1=$(date +%s%N)
check_eq 1000 "$(find "$TESTDIR/wiki3/data/pages" -name '*.txt' | wc -l)" "page files"
check_lt $(((t1 - t0) / 1000000)) 10000 "milliseconds to seed 1000 pages"
rm -rf "$TESTDIR/wiki3"

try "a page answers 200 with session cookie and no-cache headers"
req /doku.php '/doku.php?id=wiki:syntax'
check_eq 200 "$STATUS" "status"
check_match "$HEAD" '^Set-Cookie: PHPSESSID=[a-z0-9]+' "session cookie"
check_match "$HEAD" '^Cache-Control: no-store, no-cache, must-revalidate' "cache control"
check_match "$HEAD" '^Content-Type: text/html; charset=utf-8' "content type"
check_eq "" "$(cat "$TESTDIR/stderr")" "php-cgi stderr"

try "wiki markup is rendered to HTML"
check_contains "$BODY" '<h1 class="sectionedit1" id="formatting_syntax">Formatting Syntax</h1>' "h1"
check_contains "$BODY" '<h2 class="sectionedit2" id="links">Links</h2>' "h2"
check_contains "$BODY" '<h5 class="sectionedit8" id="smallest_heading">Smallest heading</h5>' "h5"
check_contains "$BODY" '<strong>bold</strong>' "bold"
check_contains "$BODY" '<em>italic</em>' "italic"
check_contains "$BODY" '<em class="u">underlined</em>' "underline"
check_contains "$BODY" '<code>monospaced</code>' "monospace"
check_contains "$BODY" '<strong><em>bold italic</em></strong>' "nested formatting"
check_contains "$BODY" 'such as &lt;tags&gt; &amp; ampersands' "escaped text"
check_contains "$BODY" '<li class="level2"><div class="li">Nested item</div></li>' "nested list item"
check_match "$BODY" '<ol>' "ordered list"
check_contains "$BODY" '<tr class="row0"><th class="col0">Heading 1</th>' "table header"
check_contains "$BODY" '<td class="col1"><strong>bold cell</strong></td>' "table cell"
check_contains "$BODY" '<pre class="code php">&lt;?php' "code block"
check_contains "$BODY" 'if ($a &lt; $b &amp;&amp; $c &gt; 0)' "escaped code"
check_contains "$BODY" '<a href="/doku.php?id=wiki:start" class="wikilink1" title="wiki:start" data-wiki-id="wiki:start">the wiki namespace</a>' "internal link"
check_contains "$BODY" '<a href="/doku.php?id=start" class="wikilink1" title="start" data-wiki-id="start">the start page</a>' "root link"
check_contains "$BODY" 'href="/doku.php?id=wiki:syntax#tables"' "section link"
check_contains "$BODY" 'class="wikilink2" title="wiki:nonexistent_page" rel="nofollow"' "missing page link"
check_contains "$BODY" '<a href="https://www.dokuwiki.org/wiki:syntax" class="urlextern"' "external link"
check_contains "$BODY" '<img src="/lib/exe/fetch.php?media=wiki:dokuwiki-128.png" class="media" alt="The DokuWiki logo"' "image"
check_contains "$BODY" '<div id="dw__toc"' "table of contents"

try "layout: head links, sidebar, footer, web bug"
check_contains "$BODY" '<link rel="canonical" href="http://localhost:8080/doku.php?id=wiki:syntax">' "canonical from HTTP_HOST"
check_match "$BODY" '<link rel="stylesheet" href="/lib/exe/css.php\?t=dokuwiki&amp;tseed=[0-9a-f]{32}">' "stylesheet"
check_contains "$BODY" '<script src="/lib/scripts/wiki.js"></script>' "script"
check_contains "$BODY" '<link rel="shortcut icon" href="/lib/images/favicon.ico">' "favicon"
check_contains "$BODY" '<img src="/lib/images/logo.png"' "logo"
check_contains "$BODY" '<a href="/doku.php?id=start&amp;do=index" class="action index"' "sidebar sitemap link"
check_contains "$BODY" '<a href="/doku.php?id=start&amp;do=recent" class="action recent"' "sidebar recent link"
check_contains "$BODY" 'data-wiki-id="wiki:syntax">Formatting Syntax</a>' "sidebar page content"
check_contains "$BODY" 'Last modified: 2024/01/01 02:00' "footer date"
check_contains "$BODY" '<meta name="robots" content="index,follow">' "old page is indexable"
stamp=$(printf '%s' "$BODY" | sed -n 's#.*taskrunner\.php?id=wiki:syntax&amp;\([0-9]*\)" width="2" height="1" alt="">.*#\1#p')
check_match "$stamp" '^[0-9]{10}$' "web bug timestamp"
now=$(date +%s)
check_le $((now - ${stamp:-0})) 5 "web bug timestamp is the render time"

try "action links: nofollow on edit/revisions/export_raw, not on backlinks"
check_contains "$BODY" '<a href="/doku.php?id=wiki:syntax&amp;do=edit" class="action edit" rel="nofollow">' "edit"
check_contains "$BODY" '<a href="/doku.php?id=wiki:syntax&amp;do=revisions" class="action revisions" rel="nofollow">' "revisions"
check_contains "$BODY" '<a href="/doku.php?id=wiki:syntax&amp;do=export_raw" class="action export_raw" rel="nofollow">' "export_raw"
check_contains "$BODY" '<a href="/doku.php?id=wiki:syntax&amp;do=backlink" class="action backlink">' "backlink (followable)"

try "render cache is written under data/cache"
cache=$WIKI/data/cache/$(printf '%s' wiki:syntax | md5sum | cut -d' ' -f1).xhtml
check_file "$cache" "render cache file"
check_contains "$(cat "$cache" 2>/dev/null)" '<strong>bold</strong>' "cached XHTML"
check_not_contains "$(cat "$cache" 2>/dev/null)" '<html' "cache holds only the page body"

try "missing page: 404 with the normal layout"
req /doku.php '/doku.php?id=wiki:no_such_page'
check_eq 404 "$STATUS" "status"
check_contains "$BODY" 'This topic does not exist yet' "404 text"
check_contains "$BODY" 'id="dokuwiki__aside"' "sidebar present"
check_match "$HEAD" '^Set-Cookie: PHPSESSID=' "session cookie"
check_contains "$BODY" '<meta name="robots" content="noindex,follow">' "robots"

try "start page for /, doku.php without id, and cleaned ids"
req /index.php '/'
check_eq 200 "$STATUS" "status of /"
check_contains "$BODY" 'Welcome to the sample wiki</h1>' "start page via index.php"
req /doku.php '/doku.php'
check_contains "$BODY" '<link rel="canonical" href="http://localhost:8080/doku.php?id=start">' "doku.php without id"
req /doku.php '/doku.php?id=Wiki/Syntax'
check_contains "$BODY" '<link rel="canonical" href="http://localhost:8080/doku.php?id=wiki:syntax">' "id cleaned"
check_contains "$BODY" 'Formatting Syntax</h1>' "cleaned id shows the page"
req /doku.php '/doku.php?id=wiki:'
check_contains "$BODY" 'href="http://localhost:8080/doku.php?id=wiki:start"' "trailing colon means namespace start"

try "links follow the directory of SCRIPT_NAME"
mkdir -p "$TESTDIR/docroot"
ln -s "$WIKI" "$TESTDIR/docroot/sub"
req /sub/doku.php '/sub/doku.php?id=wiki:syntax' "$TESTDIR/docroot"
check_eq 200 "$STATUS" "status"
check_contains "$BODY" 'href="/sub/doku.php?id=wiki:start"' "page link"
check_contains "$BODY" 'href="/sub/lib/exe/css.php?t=dokuwiki' "stylesheet"
check_contains "$BODY" 'src="/sub/lib/exe/taskrunner.php?id=wiki:syntax' "web bug"
check_not_contains "$BODY" 'href="/doku.php' "no link outside the prefix"

try "action pages carry noindex,nofollow"
req /doku.php '/doku.php?id=wiki:syntax&do=edit'
check_eq 200 "$STATUS" "edit status"
check_contains "$BODY" '<meta name="robots" content="noindex,nofollow">' "edit robots"
check_contains "$BODY" '<textarea name="wikitext"' "edit form"
check_contains "$BODY" '====== Formatting Syntax ======' "source in textarea"
req /doku.php '/doku.php?id=wiki:syntax&do=revisions'
check_eq 200 "$STATUS" "revisions status"
check_contains "$BODY" '<meta name="robots" content="noindex,nofollow">' "revisions robots"
check_contains "$BODY" 'Old revisions</h1>' "revisions heading"
req /doku.php '/doku.php?id=wiki:syntax&do=backlink'
check_contains "$BODY" '<meta name="robots" content="noindex,nofollow">' "backlink robots"

try "revisions list the attic and old revisions render"
attic=$(cd "$WIKI/data/attic" && find . -name '*.txt.gz' | LC_ALL=C sort | head -1)
check_ne "" "$attic" "some page has old revisions"
aid=$(printf '%s' "$attic" | sed 's#^\./##; s#\.[0-9]*\.txt\.gz$##; s#/#:#g')
arev=$(printf '%s' "$attic" | sed 's#.*\.\([0-9]*\)\.txt\.gz$#\1#')
req /doku.php "/doku.php?id=$aid&do=revisions"
check_contains "$BODY" "href=\"/doku.php?id=$aid&amp;rev=$arev\" class=\"wikilink1\" rel=\"nofollow\"" "revision link"
req /doku.php "/doku.php?id=$aid&rev=$arev"
check_eq 200 "$STATUS" "old revision status"
check_contains "$BODY" 'This is an old revision of the document' "old revision notice"

try "export_raw returns the source as text/plain"
req /doku.php '/doku.php?id=wiki:syntax&do=export_raw'
check_eq 200 "$STATUS" "status"
check_match "$HEAD" '^Content-Type: text/plain; charset=utf-8' "content type"
check_match "$HEAD" '^Set-Cookie: PHPSESSID=' "session cookie"
check_cmp "$WIKI/data/pages/wiki/syntax.txt" "$TESTDIR/body" "raw body"
req /doku.php '/doku.php?id=nope&do=export_raw'
check_eq 404 "$STATUS" "missing page status"

try "sitemap lists every page, grouped by namespace"
req /doku.php '/doku.php?id=start&do=index'
check_eq 200 "$STATUS" "status"
check_contains "$BODY" '<meta name="robots" content="noindex,follow">' "robots"
printf '%s\n' "$BODY" | sed -n '/<div id="index__tree"/,/^<\/div>$/p' >"$TESTDIR/tree"
grep -o 'href="/doku.php?id=[^"]*"' "$TESTDIR/tree" | sed 's#href="/doku.php?id=##; s#"$##' |
	LC_ALL=C sort >"$TESTDIR/tree-ids"
page_ids "$WIKI" >"$TESTDIR/file-ids"
check_eq "$(wc -l <"$TESTDIR/file-ids")" "$(wc -l <"$TESTDIR/tree-ids")" "links in the sitemap vs .txt files"
check_cmp "$TESTDIR/file-ids" "$TESTDIR/tree-ids" "sitemap ids"
check_contains "$(cat "$TESTDIR/tree")" '<strong class="ns">projects:alpha</strong>' "nested namespace group"
check_not_contains "$(cat "$TESTDIR/tree")" 'nofollow' "sitemap links are followable"

try "recent changes: newest first, 50 entries, dates"
req /doku.php '/doku.php?id=start&do=recent'
check_eq 200 "$STATUS" "status"
printf '%s\n' "$BODY" | sed -n '/<ul class="recent">/,/<\/ul>/p' | grep '^<li>' >"$TESTDIR/recent"
check_eq 50 "$(wc -l <"$TESTDIR/recent")" "entries"
sed 's#<li><span class="date">\([^<]*\)</span>.*#\1#' "$TESTDIR/recent" >"$TESTDIR/dates"
LC_ALL=C sort -r -c "$TESTDIR/dates" 2>/dev/null || fail "dates not in descending order: $(head -3 "$TESTDIR/dates" | tr '\n' ' ')"
newest=$(cd "$WIKI/data/pages" && find . -name '*.txt' -printf '%T@ %p\n' | sort -rn | head -1 |
	sed 's#^[^ ]* \./##; s#\.txt$##; s#/#:#g')
check_contains "$(head -1 "$TESTDIR/recent")" "href=\"/doku.php?id=$newest\"" "first entry is the newest page"

try "pages changed in the last 5 days are noindex (indexdelay)"
req /doku.php "/doku.php?id=$newest"
check_eq 200 "$STATUS" "status"
check_contains "$BODY" '<meta name="robots" content="noindex,nofollow">' "recent page robots"
check_not_contains "$BODY" 'content="index,follow"' "recent page not indexable"

try "backlinks are found by scanning all pages"
req /doku.php '/doku.php?id=wiki:syntax&do=backlink'
check_contains "$BODY" '<a href="/doku.php?id=start" class="wikilink1" title="start">start</a>' "start links to wiki:syntax"
check_contains "$BODY" 'title="sidebar">sidebar</a>' "sidebar links to wiki:syntax"
# howto:start lists its namespace's pages, often with relative links.
first=$(grep -o '^  \* \[\[[^]|]*' "$WIKI/data/pages/howto/start.txt" | head -1 | sed 's#^  \* \[\[##; s#^\.:##')
case "$first" in *:*) ;; *) first="howto:$first" ;; esac
req /doku.php "/doku.php?id=$first&do=backlink"
check_contains "$BODY" 'title="howto:start">howto:start</a>' "howto:start links to $first"
req /doku.php '/doku.php?id=sidebar&do=backlink'
check_contains "$BODY" 'Nothing was found.' "nothing links to the sidebar"

try "css.php builds a minified stylesheet"
req /lib/exe/css.php '/lib/exe/css.php?t=dokuwiki&tseed=0'
check_eq 200 "$STATUS" "status"
check_match "$HEAD" '^Content-Type: text/css; charset=utf-8' "content type"
check_contains "$BODY" 'body{' "body rule"
check_contains "$BODY" 'background-color:#f5f5f0' "page background"
check_contains "$BODY" '.page h1{color:rgb(34,85,136)' "heading colour"
check_contains "$BODY" 'url(/lib/images/bullet.png)' "url made root-relative"
check_not_contains "$BODY" '/*' "comments stripped"
check_eq 1 "$(find "$WIKI/data/cache" -name '*.css' | wc -l)" "stylesheet cache file"

try "taskrunner.php answers a GIF and indexes the page"
req /lib/exe/taskrunner.php "/lib/exe/taskrunner.php?id=wiki:syntax&$(date +%s)"
check_eq 200 "$STATUS" "status"
check_match "$HEAD" '^Content-Type: image/gif' "content type"
check_eq GIF89a "$(head -c 6 "$TESTDIR/body")" "GIF signature"
check_file "$WIKI/data/index/$(printf '%s' wiki:syntax | md5sum | cut -d' ' -f1).idx" "index file"

try "fetch.php serves media, 404 for missing or disallowed files"
req /lib/exe/fetch.php '/lib/exe/fetch.php?media=wiki:dokuwiki-128.png'
check_eq 200 "$STATUS" "status"
check_match "$HEAD" '^Content-Type: image/png' "content type"
check_cmp "$WIKI/data/media/wiki/dokuwiki-128.png" "$TESTDIR/body" "image bytes"
req /lib/exe/fetch.php '/lib/exe/fetch.php?media=wiki:missing.png'
check_eq 404 "$STATUS" "missing media"
req /lib/exe/fetch.php '/lib/exe/fetch.php?media=../../conf/local.php'
check_eq 404 "$STATUS" "path outside data/media"

try "static images are real PNG/ICO files"
check_eq "$(printf '\211PNG')" "$(head -c 4 "$WIKI/lib/images/logo.png")" "logo signature"
check_eq 1 "$(php -r '$s = file_get_contents($argv[1]); $d = unpack("Nw/Nh", substr($s, 16, 8)); echo (int) ($d["w"] === 64 && crc32(substr($s, 12, 17)) === unpack("N", substr($s, 29, 4))[1]);' "$WIKI/lib/images/logo.png")" "logo IHDR and CRC"
check_eq "00 00 01 00" "$(head -c 4 "$WIKI/lib/images/favicon.ico" | od -An -tx1 | xargs)" "favicon header"

try "a sample of pages renders: 200, complete HTML, no PHP warnings"
bad=0
for id in $(page_ids "$WIKI" | awk 'NR % 10 == 1'); do
	req /doku.php "/doku.php?id=$id"
	if [ "$STATUS" != 200 ] || [ -s "$TESTDIR/stderr" ] || ! grep -q '</html>' "$TESTDIR/body" ||
		grep -qE 'Warning:|Notice:|Deprecated:|Fatal error' "$TESTDIR/body"; then
		fail "page $id: status $STATUS, stderr $(head -c 200 "$TESTDIR/stderr")"
		bad=$((bad + 1))
	fi
	[ "$bad" -lt 3 ] || break
done

try "reseeding clears what renders wrote"
php "$WIKI/bin/seed.php" --pages 200 --dir "$WIKI" >/dev/null
check_eq 0 "$(find "$WIKI/data/cache" "$WIKI/data/index" -type f | wc -l)" "files in data/cache and data/index"
tree_sums "$WIKI" >"$TESTDIR/sums3"
check_cmp "$TESTDIR/sums1" "$TESTDIR/sums3" "reseeded tree unchanged"

finish
