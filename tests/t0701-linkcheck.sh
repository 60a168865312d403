#!/usr/bin/env bash
# t0701-linkcheck: the link checker of the real-application tests
# (tests/lib-linkcheck.py) on a small tree made by hand and served by
# cgisnap serve: what it follows (links, images, stylesheets, <style>,
# style attributes, @import, redirects on the site, links to the site's
# own URL with --site), what it leaves (nofollow, off-site, --skip), and
# that it does fail: a file taken out of the tree is a broken link.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-serve.sh"

T=$TESTDIR/tree
mkdir -p "$T/a"
cat >"$T/index.html" <<'HTML'
<html><head><title>home</title>
<link rel="stylesheet" href="/style.css"><link rel="shortcut icon" href="/favicon.ico">
<style>@import "/imp.css"; h1 { color: red }</style>
</head><body>
<a href="/a/#top">a</a> <a href="http://localhost/b.html">b, by the site's URL</a>
<a href="/old">an old URL</a> <a href="/admin/">admin</a>
<a rel="nofollow" href="/nofollow-missing">nofollow</a>
<a href="http://elsewhere.example/x">elsewhere</a> <a href="mailto:x@example.org">mail</a>
<img src="img.png"><div style="background: url('/bg.png')">x</div>
</body></html>
HTML
printf '<p>a, back <a href="/">home</a> <a href="../b.html">b</a></p>\n' >"$T/a/index.html"
printf '<p>b</p>\n' >"$T/b.html"
printf 'body { background: url(/font.woff) }\n' >"$T/style.css"
printf 'p { background: url("deep.png") }\n' >"$T/imp.css"
for f in favicon.ico img.png bg.png font.woff deep.png; do printf 'x' >"$T/$f"; done
manifest_start "$T"
{
	manifest_line / index.html 200 'text/html; charset=utf-8'
	manifest_line /a/ a/index.html 200 'text/html; charset=utf-8'
	manifest_line /b.html b.html 200 'text/html; charset=utf-8'
	manifest_line /old - 302 - 'http://localhost/a/'
	manifest_line /style.css style.css 200 text/css
	manifest_line /imp.css imp.css 200 text/css
	for f in favicon.ico img.png bg.png font.woff deep.png; do
		manifest_line "/$f" "$f" 200 application/octet-stream
	done
} >>"$T/.cgisnap/manifest"
manifest_commit "$T"
printf 'site-url = http://localhost/\n' >"$T/.cgisnap/settings"

P=$(port 0)
B=http://127.0.0.1:$P
serve_start "$T" "$P"
lc() {
	python3 "$ROOT/tests/lib-linkcheck.py" "$@" >"$TESTDIR/lc.out" 2>&1
	LC_STATUS=$?
}

try "a whole tree: every link followed, none broken"
lc --site http://localhost/ --skip '^/admin/' "$B" "$T"
check_eq 0 "$LC_STATUS" "exit status ($(cat "$TESTDIR/lc.out"))"
# / links a/ b old style.css favicon img bg imp.css (8, admin skipped),
# a/ links / b; the sheets load font.woff and deep.png.
check_eq "checked 3 pages, 12 links, 11 URLs, 0 broken, 1 skipped" "$(cat "$TESTDIR/lc.out")" "summary"

# a/ is not parsed, so its 2 links go; / is requested as a page only.
try "a page file taken out: its links and the redirect to it are broken"
mv "$T/a/index.html" "$TESTDIR/a.html"
lc --site http://localhost/ --skip '^/admin/' "$B" "$T"
check_eq 1 "$LC_STATUS" "exit status"
check_contains "$(cat "$TESTDIR/lc.out")" "broken /a/ -> /a/: the page answered 404" "the page"
check_contains "$(cat "$TESTDIR/lc.out")" "broken / -> /a/: answered 404" "the link"
check_contains "$(cat "$TESTDIR/lc.out")" "broken / -> /old: answered 404 (after 1 redirects)" "the redirect"
check_eq "checked 3 pages, 10 links, 10 URLs, 3 broken, 1 skipped" "$(tail -1 "$TESTDIR/lc.out")" "summary"
mv "$TESTDIR/a.html" "$T/a/index.html"

try "a file loaded only by a stylesheet @imported in a <style> block, taken out"
mv "$T/deep.png" "$TESTDIR/deep.png"
lc --site http://localhost/ --skip '^/admin/' --page / "$B"
check_eq 1 "$LC_STATUS" "exit status"
check_eq "broken /imp.css -> /deep.png: answered 404" "$(grep '^broken ' "$TESTDIR/lc.out")" "the one broken link"
mv "$TESTDIR/deep.png" "$T/deep.png"

try "a link to the site's own URL is the site's only with --site"
mv "$T/b.html" "$TESTDIR/b.html"
lc --skip '^/admin/' --page / "$B"
check_eq 0 "$LC_STATUS" "without --site ($(cat "$TESTDIR/lc.out"))"
lc --site http://localhost/ --skip '^/admin/' --page / "$B"
check_eq 1 "$LC_STATUS" "with --site"
check_contains "$(cat "$TESTDIR/lc.out")" "broken / -> /b.html: answered 404" "the link by the site's URL"
mv "$TESTDIR/b.html" "$T/b.html"

try "the skipped link is requested without --skip"
lc --site http://localhost/ --page / "$B"
check_eq 1 "$LC_STATUS" "exit status"
check_contains "$(cat "$TESTDIR/lc.out")" "broken / -> /admin/: answered 404" "the unskipped link"

try "usage errors exit 2"
lc "$B"
check_eq 2 "$LC_STATUS" "neither TREE nor --page"
lc "$B" "$TESTDIR/nowhere"
check_eq 2 "$LC_STATUS" "no manifest ($(cat "$TESTDIR/lc.out"))"
bg_stop "$SERVE_PID"

finish
