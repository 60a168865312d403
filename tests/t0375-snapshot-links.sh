#!/usr/bin/env bash
# t0375-snapshot-links: what a crawl follows and what it stores. A feed's
# namespaced elements are read by namespace (a <slash:comments> count is
# no URL); <link rel> resources are fetched, endpoints not, navigational
# rels followed; archives a script makes and responses over --max-output
# are skipped with a summary line (exit 0, still pruned), stored with
# --keep-archives. docs/links.md has the tables.
. "$(dirname "$0")/lib.sh"

SITE=$TESTDIR/site
OUT=$TESTDIR/out
mkdir -p "$SITE"

# manifest_targets DIR: the targets the manifest records, sorted.
manifest_targets() {
	cut -f1 <("$CGISNAP" ls "$1") | grep '^/' | LC_ALL=C sort
}

# summary_adds_up FILE: the URLs of the summary are the sum of its parts.
summary_adds_up() {
	local urls parts
	urls=$(sed -n 's/.*: \([0-9]*\) URLs in .*/\1/p' "$1")
	parts=$(sed -n 's/.*stored \([0-9]*\) files ([^)]*), [0-9]* removed, \([0-9]*\) redirects, \([0-9]*\) not found, \([0-9]*\) failed, \([0-9]*\) skipped.*/\1+\2+\3+\4+\5/p' "$1")
	check_ne "" "$parts" "summary line ($(cat "$1"))"
	check_eq "$urls" "$((parts))" "URLs = stored + redirects + not found + failed + skipped ($parts)"
}

cat >"$SITE/index.html" <<'HTML'
<html><head><title>links</title>
<link rel="alternate" type="application/rss+xml" href="/feed.cgi">
<link rel="manifest" href="/site.webmanifest">
<link rel="wlwmanifest" type="application/wlwmanifest+xml" href="/wlwmanifest.cgi">
<link rel="icon" href="/favicon.ico">
<link rel="apple-touch-icon" href="/touch.png">
<link rel="pingback" href="/xmlrpc.cgi">
<link rel="dns-prefetch" href="/prefetch-origin.html">
<link rel="preconnect" href="/preconnect-origin.html">
<link rel="https://api.w.org/" href="/api.html">
<link rel="canonical" href="/canonical.html">
<link rel="prev" href="/prev.html"><link rel="next" href="/next.html">
<link rel="bogus" href="/bogus.html">
</head><body>
<a href="/snap.cgi?rev=2">tarball 2</a> <a href="/snap.cgi?rev=1">tarball 1</a>
<a href="/zip.cgi">download as zip</a> <a href="/release.tar.gz">a release</a>
<a href="/tar.cgi">tarball, PHP's default type</a> <a href="/odt.cgi">a document</a>
<a href="/big.cgi">a huge page</a>
</body></html>
HTML
for f in canonical prev next prefetch-origin preconnect-origin api bogus post-1 post-2; do
	printf '<p>%s</p>\n' "$f" >"$SITE/$f.html"
done
printf '{"name": "links"}\n' >"$SITE/site.webmanifest"
printf '\0\0\1\0' >"$SITE/favicon.ico"
printf '\x89PNG\r\n\x1a\n' >"$SITE/touch.png"
printf 'a real release the site serves\n' | gzip -n >"$SITE/release.tar.gz"
# What WordPress writes: every item counts its comments in the slash
# namespace, and links its comment feed in the wfw one.
cgi feed.cgi 'printf "Content-Type: application/rss+xml; charset=UTF-8\n\n"
cat <<RSS
<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"
 xmlns:wfw="http://wellformedweb.org/CommentAPI/" xmlns:dc="http://purl.org/dc/elements/1.1/"
 xmlns:atom="http://www.w3.org/2005/Atom" xmlns:slash="http://purl.org/rss/1.0/modules/slash/">
<channel><title>links</title><link>http://localhost/</link>
<atom:link href="http://localhost/feed.cgi" rel="self" type="application/rss+xml"/>
<item><title>one</title><link>http://localhost/post-1.html</link>
<dc:creator>admin</dc:creator><slash:comments>0</slash:comments>
<wfw:commentRss>http://localhost/comments.cgi?p=1</wfw:commentRss></item>
<item><title>two</title><link>http://localhost/post-2.html</link>
<slash:comments>2</slash:comments><content:encoded><![CDATA[<p>2</p>]]></content:encoded></item>
</channel></rss>
RSS'
cgi comments.cgi 'printf "Content-Type: application/rss+xml\n\n<rss version=\"2.0\"><channel><link>http://localhost/post-1.html</link></channel></rss>\n"'
cgi wlwmanifest.cgi 'printf "Content-Type: application/wlwmanifest+xml\n\n<manifest/>\n"'
# An endpoint that must never be run: it leaves a mark when it is.
cgi xmlrpc.cgi "touch '$TESTDIR/xmlrpc-ran'; printf 'Content-Type: text/xml\n\n<methodResponse/>\n'"
# A repository browser's snapshots, made on the fly.
cgi snap.cgi 'printf "Content-Type: application/x-gzip\n\n"; printf "rev %s\n" "$QUERY_STRING" | gzip -n'
cgi zip.cgi 'printf "Content-Type: application/octet-stream\nContent-Disposition: attachment; filename=\"site-master.zip\"\n\nPK\003\004zip bytes\n"'
# Known by its bytes alone: a tar.gz sent as text/html, no attachment. A
# document that is a zip inside says what it is, and is kept.
cgi tar.cgi 'printf "Content-Type: text/html; charset=UTF-8\n\n"; printf "a file\n" | gzip -n'
cgi odt.cgi 'printf "Content-Type: application/vnd.oasis.opendocument.text\n\nPK\003\004mimetype\n"'
# Output without end: only a render that stops reading at --max-output
# ends before --timeout.
cgi big.cgi 'printf "Content-Type: text/html\n\n"; exec yes "<p>a line of a page that never ends</p>"'

try "the feed's slash:comments counts are no URLs; its links and wfw:commentRss are"
"$CGISNAP" snapshot --root "$SITE" --timeout 20 --max-output 1 -j 2 "$OUT" 2>"$TESTDIR/err"
check_eq 0 $? "exit status ($(tail -3 "$TESTDIR/err"))"
targets=$(manifest_targets "$OUT")
check_eq "" "$(printf '%s\n' "$targets" | grep -E '^/([0-9]+|feed\.cgi/.*|.*/[0-9]+)$')" "no URL made of a comment count"
for t in /feed.cgi /post-1.html /post-2.html "/comments.cgi?p=1"; do
	check_contains "$targets" "$t" "$t crawled"
done

try "<link rel> resources are fetched and stored; endpoints and unknown rels are not"
for f in site.webmanifest wlwmanifest.cgi favicon.ico touch.png; do
	check_file "$OUT/$f" "$f stored"
done
for t in /xmlrpc.cgi /prefetch-origin.html /preconnect-origin.html /api.html /bogus.html; do
	check_not_contains "$targets" "$t" "$t not crawled"
done
check_no_file "$TESTDIR/xmlrpc-ran" "the pingback endpoint never ran"

try "canonical, prev and next are followed"
for f in canonical prev next; do
	check_file "$OUT/$f.html" "$f.html"
done

try "a page's resources are fetched with it: beyond --max-depth, and behind a robots nofollow meta"
cat >"$SITE/nofollow.html" <<'HTML'
<html><head><meta name="robots" content="nofollow"><link rel="stylesheet" href="/nf.css">
<link rel="icon" href="/nf.ico"></head><body><a href="/behind-nofollow.html">x</a></body></html>
HTML
printf 'body { background: url(/nf-bg.png) }\n' >"$SITE/nf.css"
printf 'ico\n' >"$SITE/nf.ico"
printf 'png\n' >"$SITE/nf-bg.png"
printf '<p>behind</p>\n' >"$SITE/behind-nofollow.html"
"$CGISNAP" snapshot --root "$SITE" --seed /index.html --max-depth 0 "$TESTDIR/depth" 2>"$TESTDIR/err-d"
check_eq 0 $? "exit status ($(tail -3 "$TESTDIR/err-d"))"
for f in site.webmanifest wlwmanifest.cgi favicon.ico touch.png; do
	check_file "$TESTDIR/depth/$f" "$f at the page's own depth"
done
for f in canonical.html next.html post-1.html; do
	check_no_file "$TESTDIR/depth/$f" "$f is a step further"
done
check_contains "$(cat "$TESTDIR/err-d")" "--max-depth 0 reached" "bound said"
"$CGISNAP" snapshot --root "$SITE" --seed /nofollow.html --respect-robots-meta "$TESTDIR/nf" 2>"$TESTDIR/err-nf"
check_eq 0 $? "exit status ($(tail -3 "$TESTDIR/err-nf"))"
for f in nf.css nf.ico nf-bg.png; do
	check_file "$TESTDIR/nf/$f" "$f"
done
check_no_file "$TESTDIR/nf/behind-nofollow.html" "its page link is not followed"

try "archives made on the fly are skipped with a summary line; a static one under --root is stored"
err=$(cat "$TESTDIR/err")
check_contains "$err" "cgisnap: skipped 4 archives (e.g. /snap.cgi?rev=1): --keep-archives to store them" "archive line"
check_not_contains "$err" "failed:" "no failure"
for t in "/snap.cgi?rev=1" "/snap.cgi?rev=2" /zip.cgi /tar.cgi; do
	check_not_contains "$targets" "$t" "$t not recorded"
done
check_eq "" "$(find "$OUT" -name 'snap.cgi*' -o -name 'zip.cgi*' -o -name 'tar.cgi*')" "no archive file"
check_cmp "$SITE/release.tar.gz" "$OUT/release.tar.gz" "the site's own .tar.gz"
check_contains "$targets" "/odt.cgi" "a document that is a zip inside is stored"

try "a response over --max-output is skipped, named in the summary, not a failure"
check_contains "$err" "warning: skipped 1 response over --max-output 1 MiB (e.g. /big.cgi): raise --max-output to store them" "oversize line"
check_no_file "$OUT/big.cgi" "no file for it"
check_not_contains "$targets" "/big.cgi" "not recorded"
check_contains "$err" "4 archives" "archives counted"
check_match "$err" ", 0 failed, 5 skipped, " "skips in the summary line"
summary_adds_up "$TESTDIR/err"

try "with -q the oversize line is still said, the archive line not"
"$CGISNAP" snapshot -q --root "$SITE" --timeout 20 --max-output 1 -j 2 "$OUT" 2>"$TESTDIR/err-q"
check_eq 0 $? "exit status"
check_contains "$(cat "$TESTDIR/err-q")" "skipped 1 response over --max-output 1 MiB" "oversize line"
check_not_contains "$(cat "$TESTDIR/err-q")" "archives" "no archive line"

try "--keep-archives stores them; without it the next complete run prunes them"
"$CGISNAP" snapshot --root "$SITE" --timeout 20 --max-output 1 -j 2 --keep-archives "$OUT" 2>"$TESTDIR/err2"
check_eq 0 $? "exit status ($(tail -3 "$TESTDIR/err2"))"
key=$(awk -F'\t' '$1 == "/snap.cgi?rev=1" { print $2 }' <("$CGISNAP" ls "$OUT"))
check_eq "rev rev=1" "$(gzip -dc <"$OUT/$key" 2>&1)" "archive stored as sent ('$key')"
check_file "$OUT/zip.cgi" "attachment stored"
check_not_contains "$(cat "$TESTDIR/err2")" "archive" "no archive line"
check_contains "$(manifest_targets "$OUT")" "/snap.cgi?rev=2" "recorded"
summary_adds_up "$TESTDIR/err2"
"$CGISNAP" snapshot --root "$SITE" --timeout 20 --max-output 1 -j 2 "$OUT" 2>"$TESTDIR/err3"
check_eq 0 $? "exit status ($(tail -3 "$TESTDIR/err3"))"
check_no_file "$OUT/$key" "pruned"
check_no_file "$OUT/zip.cgi" "pruned"
check_not_contains "$(manifest_targets "$OUT")" "/snap.cgi" "no longer recorded"
check_contains "$(cat "$TESTDIR/err3")" "4 removed" "removals counted"

try "a page stored before grows past --max-output: skipped, and pruned like the archives"
cgi big.cgi 'printf "Content-Type: text/html\n\n<p>small now</p>\n"'
"$CGISNAP" snapshot --root "$SITE" --max-output 1 "$OUT" 2>"$TESTDIR/err4"
check_eq "<p>small now</p>" "$(cat "$OUT/big.cgi" 2>/dev/null)" "stored while small"
cgi big.cgi 'printf "Content-Type: text/html\n\n"; exec yes "<p>a line of a page that never ends</p>"'
"$CGISNAP" snapshot --root "$SITE" --timeout 20 --max-output 1 "$OUT" 2>"$TESTDIR/err5"
check_eq 0 $? "exit status ($(tail -3 "$TESTDIR/err5"))"
check_no_file "$OUT/big.cgi" "pruned"
check_contains "$(cat "$TESTDIR/err5")" "(e.g. /big.cgi)" "named"

try "HTTP origin: an archive and a response over --max-output are skipped too"
mkdir -p "$TESTDIR/www"
printf '<a href="/x.tar.gz">x</a> <a href="/big.bin">big</a> <a href="/ok.html">ok</a>\n' >"$TESTDIR/www/index.html"
printf 'ok\n' >"$TESTDIR/www/ok.html"
printf 'x\n' | gzip -n >"$TESTDIR/www/x.tar.gz"
head -c 2000000 /dev/zero >"$TESTDIR/www/big.bin"
p=$(port 1)
bg_start python3 -m http.server --bind 127.0.0.1 --directory "$TESTDIR/www" "$p" >/dev/null 2>&1
HTTP_PID=$BG_PID
wait_port "$p" || fail "python3 -m http.server did not start"
"$CGISNAP" snapshot --origin "http://127.0.0.1:$p/" --max-output 1 "$TESTDIR/http" 2>"$TESTDIR/err6"
check_eq 0 $? "exit status ($(tail -3 "$TESTDIR/err6"))"
check_file "$TESTDIR/http/ok.html" "page stored"
check_no_file "$TESTDIR/http/x.tar.gz" "archive skipped"
check_no_file "$TESTDIR/http/big.bin" "oversize skipped"
check_contains "$(cat "$TESTDIR/err6")" "skipped 1 archive (e.g. /x.tar.gz)" "archive line"
check_contains "$(cat "$TESTDIR/err6")" "skipped 1 response over --max-output 1 MiB (e.g. /big.bin)" "oversize line"
summary_adds_up "$TESTDIR/err6"
bg_stop "$HTTP_PID"

finish
