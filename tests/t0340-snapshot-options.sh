#!/usr/bin/env bash
# t0340-snapshot-options: the crawl's bounds and policies, option files,
# set-up errors, the lock, and what the user sees.
. "$(dirname "$0")/lib.sh"

SITE=$TESTDIR/site
mkdir -p "$SITE/cal" "$SITE/private"

# A small site: a page linking a calendar that never ends, tracked links,
# pages marked noindex/nofollow or no-store, and a robots.txt.
cat >"$SITE/index.html" <<'HTML'
<html><head><title>home</title></head><body>
<a href="/cal/month.cgi?m=1">calendar</a>
<a href="/list.cgi?b=2&a=1&utm_source=mail">list</a>
<a href="/list.cgi?a=1&b=2&fbclid=xyz">same list</a>
<a href="/meta.html">robots meta page</a>
<a href="/index-nofollow.html">a page to index whose links say nofollow</a>
<a href="/nostore.cgi">no-store page</a>
<a href="/private/secret.html">disallowed by robots.txt</a>
<a href="/big.html">big page</a>
</body></html>
HTML
printf 'User-agent: *\nDisallow: /private/\nSitemap: http://localhost/sitemap.xml\n' >"$SITE/robots.txt"
cat >"$SITE/sitemap.xml" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>http://localhost/only-in-sitemap.html</loc></url>
</urlset>
XML
printf '<p>found through the sitemap</p>\n' >"$SITE/only-in-sitemap.html"
printf '<p>secret</p>\n' >"$SITE/private/secret.html"
cat >"$SITE/cal/month.cgi" <<'SH'
#!/bin/sh
m=${QUERY_STRING#m=}
printf 'Content-Type: text/html\n\n<p>month %s</p><a href="/cal/month.cgi?m=%s">next</a>\n' "$m" $((m + 1))
SH
cat >"$SITE/list.cgi" <<'SH'
#!/bin/sh
printf 'Content-Type: text/html\n\n<p>list for %s</p>\n' "$QUERY_STRING"
SH
cat >"$SITE/meta.html" <<'HTML'
<html><head><meta name="robots" content="noindex,nofollow"></head>
<body><a href="/behind-meta.html">linked only from a nofollow page</a></body></html>
HTML
printf '<p>behind the meta page</p>\n' >"$SITE/behind-meta.html"
cat >"$SITE/index-nofollow.html" <<'HTML'
<html><head><meta name="robots" content="index, nofollow"></head>
<body><a href="/behind-index-nofollow.html">linked only from an index, nofollow page</a></body></html>
HTML
printf '<p>behind the index, nofollow page</p>\n' >"$SITE/behind-index-nofollow.html"
cat >"$SITE/nostore.cgi" <<'SH'
#!/bin/sh
printf 'Cache-Control: no-store, no-cache\nSet-Cookie: s=1\nContent-Type: text/html\n\n<p>anonymous page</p>\n'
SH
chmod +x "$SITE/cal/month.cgi" "$SITE/list.cgi" "$SITE/nostore.cgi"
for i in $(seq 1 200); do echo "<p>line $i of a page big enough to compress</p>"; done >"$SITE/big.html"
# Its stylesheet, and the stylesheet's image: requisites of the page.
echo '<link rel="stylesheet" href="/big.css"><img src="/big-logo.png">' >>"$SITE/big.html"
printf 'body { background: url(/big-bg.png) }\n' >"$SITE/big.css"
printf '\x89PNG\r\n\x1a\n' | tee "$SITE/big-bg.png" >"$SITE/big-logo.png"

snap() { "$CGISNAP" snapshot --root "$SITE" -j 2 "$@"; }
targets() { grep -v '^#' <("$CGISNAP" ls "$1") | cut -f1 | LC_ALL=C sort; }

try "an endless calendar stops at --max-pages: exit 4, a warning naming the families that took the budget, no pruning"
snap --max-pages 12 --robots-meta ignore "$TESTDIR/a" 2>"$TESTDIR/err"
check_eq 4 $? "exit status: cut short"
check_match "$(cat "$TESTDIR/err")" \
	"warning: --max-pages 12 reached: [0-9]+ links not crawled; the URLs by family: /… [0-9]+, /cal/month\.cgi\?m=… [0-9]+.*; nothing was pruned" \
	"warning"
check_eq 12 "$(targets "$TESTDIR/a" | wc -l)" "URLs recorded"
printf '<p>stale</p>\n' >"$TESTDIR/a/stale.html"
tree_put "$TESTDIR/a" "$("$CGISNAP" ls "$TESTDIR/a" | grep -v '^#' | head -1 | sed 's#^[^\t]*\t[^\t]*#/stale.html\tstale.html#')"
snap --max-pages 12 --robots-meta ignore "$TESTDIR/a" 2>/dev/null
check_file "$TESTDIR/a/stale.html" "a bounded crawl removes nothing"

try "--max-depth bounds the calendar too"
snap --max-depth 3 "$TESTDIR/b" 2>"$TESTDIR/err"
check_eq 0 $? "exit status"
check_contains "$(cat "$TESTDIR/err")" "--max-depth 3 reached" "warning"
check_contains "$(targets "$TESTDIR/b")" "/cal/month.cgi?m=3" "depth 3 reached"
check_not_contains "$(targets "$TESTDIR/b")" "/cal/month.cgi?m=4" "depth 4 not crawled"

try "what --max-pages keeps, and which views are cut, are the same at any --jobs and on a re-run"
# A tree of pages, each linking three more and a view of itself (noindex);
# one page in three renders slowly, so that with several jobs the renders
# end in another order than they were queued.
cat >"$SITE/tree.cgi" <<'SH'
#!/bin/sh
n=${QUERY_STRING#n=}
n=${n%%&*}
case $QUERY_STRING in
*action=edit*)
	printf 'Content-Type: text/html\n\n<html><head><meta name="robots" content="noindex"></head><body>edit %s</body></html>\n' "$n"
	exit 0 ;;
esac
[ $((n % 3)) -eq 1 ] && sleep 0.15
printf 'Content-Type: text/html\n\n<p>node %s</p>' "$n"
for k in 1 2 3; do printf '<a href="/tree.cgi?n=%s">child</a>' $((3 * n + k)); done
printf '<a href="/tree.cgi?n=%s&amp;action=edit">edit</a>\n' "$n"
SH
chmod +x "$SITE/tree.cgi"
tree_snap() {
	"$CGISNAP" snapshot --root "$SITE" --seed '/tree.cgi?n=0' --max-pages 40 --noindex-sample 2 "$@" 2>"$TESTDIR/tree.err"
}
tree_snap -j 1 "$TESTDIR/t1"
check_eq 4 $? "exit status: cut short"
cut1=$(grep -o 'skipped [0-9]* URLs not rendered' "$TESTDIR/tree.err")
check_ne "" "$cut1" "views cut ($(tail -3 "$TESTDIR/tree.err"))"
for run in a b; do
	tree_snap -j 4 "$TESTDIR/t4$run"
	check_eq "$(targets "$TESTDIR/t1")" "$(targets "$TESTDIR/t4$run")" "-j 4 (run $run) keeps what -j 1 keeps"
	check_eq "$cut1" "$(grep -o 'skipped [0-9]* URLs not rendered' "$TESTDIR/tree.err")" "-j 4 (run $run) cuts what -j 1 cuts"
done
tree_snap -j 4 "$TESTDIR/t4a"
check_eq "$(targets "$TESTDIR/t1")" "$(targets "$TESTDIR/t4a")" "a re-run over the same tree keeps the same URLs, no more"
rm "$SITE/tree.cgi"

try "--max-pages is spent across families: a page of 60 day links leaves room for the pages further down"
# The index links 60 days of a calendar, then a page that links two more
# pages. In the order found, the days alone would fill the bound.
FAIR=$TESTDIR/fair
mkdir -p "$FAIR"
{
	for i in $(seq 1 60); do printf '<a href="/day.cgi?d=%s">day %s</a>\n' "$i" "$i"; done
	printf '<a href="/a.html">a</a>\n'
} >"$FAIR/index.html"
printf '<a href="/b.html">b</a>\n' >"$FAIR/a.html"
printf '<a href="/c.html">c</a> <a href="/tags.cgi?t=1">a tag</a>\n' >"$FAIR/b.html"
printf '<p>c</p>\n' >"$FAIR/c.html"
printf '#!/bin/sh\nprintf "Content-Type: text/html\\n\\n<p>%%s</p>" "$QUERY_STRING"\n' >"$FAIR/day.cgi"
cp "$FAIR/day.cgi" "$FAIR/tags.cgi"
chmod +x "$FAIR/day.cgi" "$FAIR/tags.cgi"
fair_snap() { "$CGISNAP" snapshot --root "$FAIR" --max-pages 30 "$@" 2>"$TESTDIR/fair.err"; }
fair_snap -j 1 "$TESTDIR/f1"
check_eq 4 $? "exit status: cut short"
fair1=$(targets "$TESTDIR/f1")
for t in /a.html /b.html /c.html '/tags.cgi?t=1'; do
	check_contains "$fair1" "$t" "$t reached past the days"
done
# 30 asked for: robots.txt and sitemap.xml answered 404, not recorded.
check_eq 28 "$(printf '%s\n' "$fair1" | wc -l)" "the bound holds"
check_match "$(cat "$TESTDIR/fair.err")" \
	"--max-pages 30 reached: [0-9]+ links not crawled; the URLs by family: /day\.cgi\?d=… [0-9]+, /… [0-9]+, /tags\.cgi\?t=… 1; nothing was pruned" \
	"the families that took the budget"
for run in a b; do
	fair_snap -j 4 "$TESTDIR/f4$run"
	check_eq "$fair1" "$(targets "$TESTDIR/f4$run")" "-j 4 (run $run) keeps what -j 1 keeps"
done
fair_snap -j 3 "$TESTDIR/f4a"
check_eq "$fair1" "$(targets "$TESTDIR/f4a")" "a re-run over the same tree keeps the same URLs"

try "--exclude and --include filter targets"
snap --exclude '^/cal/' "$TESTDIR/c" 2>"$TESTDIR/err-c"
check_eq 0 $? "exit status"
check_not_contains "$(targets "$TESTDIR/c")" "/cal/" "excluded"
check_contains "$(targets "$TESTDIR/c")" "/big.html" "others kept"
snap --include '^/(|big\.html)$' "$TESTDIR/c2" 2>/dev/null
# robots.txt is always read (and kept): its rules decide the rest. The
# included page's stylesheet and images come with it, as wget -p has them.
check_eq "$(printf '/\n/big-bg.png\n/big-logo.png\n/big.css\n/big.html\n/robots.txt')" "$(targets "$TESTDIR/c2")" \
	"only the included targets, and their requisites"
snap --include '^/(|big\.html)$' --exclude 'png$' "$TESTDIR/c3" 2>/dev/null
check_eq "$(printf '/\n/big.css\n/big.html\n/robots.txt')" "$(targets "$TESTDIR/c3")" "--exclude still applies to requisites"

try "robots.txt is honoured and stored; its sitemap and /sitemap.xml are crawled"
check_no_file "$TESTDIR/c/private/secret.html" "disallowed page"
check_file "$TESTDIR/c/robots.txt" "robots.txt stored"
check_file "$TESTDIR/c/only-in-sitemap.html" "page only in the sitemap"

try "tracking parameters are dropped and queries sorted; the tree records the policy"
snap --exclude '^/cal/' --ignore-param 'utm_*' --ignore-param fbclid --sort-query "$TESTDIR/d" 2>/dev/null
check_eq "/list.cgi?a=1&b=2" "$(targets "$TESTDIR/d" | grep list.cgi)" "one canonical list URL"
check_file "$TESTDIR/d/list.cgi@a=1&b=2.html"
check_contains "$(cat "$TESTDIR/d/.cgisnap/settings")" "ignore-param = utm_*" "settings: ignore-param"
check_contains "$(cat "$TESTDIR/d/.cgisnap/settings")" "sort-query = yes" "settings: sort-query"
check_eq 2 "$(targets "$TESTDIR/c" | grep -c list.cgi)" "without the policy: two list URLs"

try "robots meta: a noindex page is not stored nor its nofollow followed; an index page's nofollow is not honoured"
check_no_file "$TESTDIR/c/meta.html" "noindex page not stored by default"
check_no_file "$TESTDIR/c/behind-meta.html" "its nofollow honoured"
check_file "$TESTDIR/c/index-nofollow.html" "an index, nofollow page stored"
check_file "$TESTDIR/c/behind-index-nofollow.html" "and its links followed: nofollow on every page would cut the site off"
check_contains "$(cat "$TESTDIR/err-c")" "cgisnap: skipped 1 page marked robots noindex (e.g. /meta.html): --robots-meta ignore to store them" \
	"the summary says it, with the option that turns it off"
check_eq "" "$("$CGISNAP" ls "$TESTDIR/c" | grep -v '^#' | grep -F /meta.html)" "the noindex page is no URL of the tree"
snap --exclude '^/cal/' --robots-meta ignore "$TESTDIR/i" 2>/dev/null
check_file "$TESTDIR/i/meta.html" "--robots-meta ignore: the noindex page stored"
check_file "$TESTDIR/i/behind-meta.html" "and its links followed"
for how in "--robots-meta all" --respect-robots-meta; do
	rm -rf "$TESTDIR/e"
	snap --exclude '^/cal/' $how "$TESTDIR/e" 2>/dev/null
	check_no_file "$TESTDIR/e/meta.html" "$how: noindex page"
	check_no_file "$TESTDIR/e/behind-meta.html" "$how: nofollow page's links"
	check_file "$TESTDIR/e/index-nofollow.html" "$how: an index, nofollow page stored"
	check_no_file "$TESTDIR/e/behind-index-nofollow.html" "$how: its links not followed"
done
snap --exclude '^/cal/' --seed /meta.html "$TESTDIR/s" 2>/dev/null
check_file "$TESTDIR/s/meta.html" "a seed is stored whatever its robots meta says"
check_file "$TESTDIR/s/behind-meta.html" "and its links followed"
snap --robots-meta some "$TESTDIR/bad" 2>"$TESTDIR/err-bad"
check_eq 2 $? "a bad --robots-meta: exit 2"
check_eq "cgisnap: error: bad --robots-meta 'some': pages, all or ignore" "$(cat "$TESTDIR/err-bad")" "one line naming it"

try "no-store pages are stored without their cookie, unless --respect-no-store"
check_eq "<p>anonymous page</p>" "$(cat "$TESTDIR/c/nostore.cgi")" "stored body"
check_eq "" "$(grep -rl 's=1' "$TESTDIR/c" --exclude-dir=.cgisnap)" "no cookie anywhere"
snap --exclude '^/cal/' --respect-no-store "$TESTDIR/f" 2>/dev/null
check_no_file "$TESTDIR/f/nostore.cgi" "skipped with --respect-no-store"

try "--no-gzip writes no .gz; the default writes one for a compressible page over 1 KiB"
check_file "$TESTDIR/c/big.html.gz" "default"
check_no_file "$TESTDIR/c/meta.html.gz" "small page"
snap --exclude '^/cal/' --no-gzip "$TESTDIR/g" 2>/dev/null
check_eq "" "$(find "$TESTDIR/g" -name '*.gz')" ".gz files with --no-gzip"

try "--no-prune keeps files of URLs that went away"
cp -r "$TESTDIR/c" "$TESTDIR/h"
rm "$SITE/big.html"
sed -i 's#<a href="/big.html">big page</a>##' "$SITE/index.html"
snap --exclude '^/cal/' --no-prune "$TESTDIR/h" 2>/dev/null
check_file "$TESTDIR/h/big.html" "kept with --no-prune"
snap --exclude '^/cal/' "$TESTDIR/h" 2>"$TESTDIR/err"
check_no_file "$TESTDIR/h/big.html" "pruned by default"
check_no_file "$TESTDIR/h/big.html.gz" "its .gz too"
# the page, its stylesheet and its two images
check_contains "$(cat "$TESTDIR/err")" "4 removed" "summary"

try "options come from a file with -c; the command line wins"
printf '# crawl settings\nexclude = ^/cal/\nmax-pages = 3\nno-gzip = yes\n' >"$TESTDIR/opts.conf"
snap -c "$TESTDIR/opts.conf" --max-pages 100 "$TESTDIR/i" 2>/dev/null
check_eq 0 $? "exit status"
check_not_contains "$(targets "$TESTDIR/i")" "/cal/" "exclude from the file"
check_ne 3 "$(targets "$TESTDIR/i" | wc -l)" "--max-pages from the command line"
check_eq "" "$(find "$TESTDIR/i" -name '*.gz')" "no-gzip from the file"
printf 'bogus = 1\n' >"$TESTDIR/bad.conf"
err=$(snap -c "$TESTDIR/bad.conf" "$TESTDIR/j" 2>&1)
check_eq 2 $? "exit status for a bad file"
check_contains "$err" "bad.conf:1: unknown option 'bogus'" "message names file and line"

try "set-up errors exit 2 with one line and change nothing"
err=$("$CGISNAP" snapshot --root "$TESTDIR/nonexistent" "$TESTDIR/k" 2>&1)
check_eq 2 $? "missing root"
check_eq "cgisnap: error: document root '$TESTDIR/nonexistent' is not a directory" "$err" "message"
check_no_file "$TESTDIR/k" "no tree created"
printf 'not a program\n' >"$TESTDIR/notexec"
err=$("$CGISNAP" snapshot --root "$SITE" --cgi "php=$TESTDIR/notexec" "$TESTDIR/k" 2>&1)
check_eq 2 $? "handler not executable"
check_contains "$err" "CGI handler '$TESTDIR/notexec' is not executable" "message"
err=$("$CGISNAP" snapshot --root "$SITE" --strip '(' "$TESTDIR/k" 2>&1)
check_eq 2 $? "bad regex"
check_contains "$err" "bad --strip regex '('" "message"
err=$("$CGISNAP" snapshot --root "$SITE" 2>&1)
check_eq 2 $? "no output directory"
check_contains "$err" "(see 'cgisnap snapshot --help')" "points to --help"
check_no_file "$TESTDIR/k"

try "a second snapshot of a locked tree is refused with exit 75 (busy)"
mkdir -p "$SITE/slow"
printf '#!/bin/sh\nsleep 3\nprintf "Content-Type: text/html\\n\\nslow\\n"\n' >"$SITE/slow/s.cgi"
chmod +x "$SITE/slow/s.cgi"
"$CGISNAP" snapshot --root "$SITE" --seed /slow/s.cgi --max-depth 0 "$TESTDIR/l" 2>/dev/null &
first=$!
wait_until 5 test -s "$TESTDIR/l/.cgisnap/lock" || fail "the first snapshot never took the lock"
err=$("$CGISNAP" snapshot --root "$SITE" --seed /slow/s.cgi --max-depth 0 "$TESTDIR/l" 2>&1)
check_eq 75 $? "exit status"
check_match "$err" "tree '$TESTDIR/l' is locked by another cgisnap \(pid $first\)" "message"
wait "$first"
check_eq 0 $? "the first snapshot finished normally"

try "on a terminal a one-line progress bar is drawn; otherwise only the summary"
if command -v script >/dev/null; then
	script -qec "$CGISNAP snapshot --root $SITE --exclude ^/cal/ $TESTDIR/m" /dev/null >"$TESTDIR/tty" 2>&1
	check_match "$(tr '\r' '\n' <"$TESTDIR/tty")" "\] [0-9]+/[0-9]+\+? [0-9]+% [0-9.]+ pages/s ETA " "progress line"
else
	fail "script(1) is missing"
fi
out=$("$CGISNAP" snapshot --root "$SITE" --exclude '^/cal/' --robots-meta ignore "$TESTDIR/n" 2>&1)
check_not_contains "$out" "pages/s ETA" "no progress bar when not a terminal"
check_eq 2 "$(printf '%s\n' "$out" | wc -l)" "two summary lines"
out=$("$CGISNAP" snapshot -q --root "$SITE" --exclude '^/cal/' "$TESTDIR/n" 2>&1)
check_eq "" "$out" "-q prints nothing when all is well"

finish
