#!/usr/bin/env bash
# t0620-browser: both sample sites' snapshots in a real browser (headless
# Chromium, driven by tests/lib-browser.py over the DevTools pipe), served
# once by cgisnap serve and once by nginx with the configuration of
# 'cgisnap config nginx', on the same port. For 10 pages of each site:
# the load event comes, no sub-resource fails, the console stays free of
# errors, the stylesheet applied (computed values the sites' CSS sets) and
# the site's script ran. Screenshots of both front pages, from both
# servers, are kept in tests/output/t0620/.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"
. "$(dirname "$0")/lib-serve.sh"
. "$(dirname "$0")/lib-config.sh"

need_program chromium python3 nginx php-cgi

SHOTS=$ROOT/tests/output/t0620
mkdir -p "$SHOTS"
rm -f "$SHOTS"/*.png
BROWSER="python3 $ROOT/tests/lib-browser.py"
PB=$(port 0) PW=$(port 1) PX=$(port 2)

# The blog writes absolute links from its site URL: seed and snapshot it
# for the address it is served on, and serve it exactly there.
seed_blog "$TESTDIR/blog" 25 "http://127.0.0.1:$PB"
seed_wiki "$TESTDIR/wiki" 40

try "both sites are snapshotted for the addresses the browser will use"
snap_blog "$TESTDIR/blog" "$TESTDIR/blog-tree" -j 2 --site-url "http://127.0.0.1:$PB/" 2>"$TESTDIR/snap.err"
check_eq 0 $? "blog snapshot exit status"
snap_wiki "$TESTDIR/wiki" "$TESTDIR/wiki-tree" -j 2 --site-url "http://127.0.0.1:$PW/" 2>>"$TESTDIR/snap.err"
check_eq 0 $? "wiki snapshot exit status"
check_eq "http://127.0.0.1:$PB/" "$(sed -n 's/^site-url = //p' "$TESTDIR/blog-tree/.cgisnap/settings")" \
	"the blog's site URL"

# pages TREE: the front page and 9 more HTML pages spread over the site.
pages() {
	local all
	all=$(awk -F'\t' '!/^#/ && $3 == 200 && $4 ~ /^text\/html/ && $1 != "/" { print $1 }' \
		<("$CGISNAP" ls "$1") | LC_ALL=C sort)
	echo /
	printf '%s\n' "$all" | awk -v n="$(printf '%s\n' "$all" | wc -l)" \
		'BEGIN { step = n / 9 } NR == int(k * step) + 1 && k < 9 { print; k++ }'
}
pages "$TESTDIR/blog-tree" >"$TESTDIR/blog-pages"
pages "$TESTDIR/wiki-tree" >"$TESTDIR/wiki-pages"

try "10 pages of each site are chosen, posts and wiki pages among them"
check_eq 10 "$(wc -l <"$TESTDIR/blog-pages")" "blog pages"
check_eq 10 "$(wc -l <"$TESTDIR/wiki-pages")" "wiki pages"
check_match "$(cat "$TESTDIR/blog-pages")" '^/20[0-9]{2}/[0-9]{2}/[a-z-]+/$' "a post"
check_match "$(cat "$TESTDIR/wiki-pages")" 'doku\.php\?id=' "a wiki page"

# browse SITE PORT SERVER: load SITE's pages from 127.0.0.1:PORT, one
# failure per line the browser script reports.
browse() {
	local site=$1 p=$2 server=$3 out=$TESTDIR/$1-$3.browser args
	if [ "$site" = blog ]; then
		args=(--style 'body|background-color|rgb(250, 250, 250)'
			--style '.site-title|color|rgb(34, 85, 136)')
	else
		args=(--style 'body|background-color|rgb(245, 245, 240)'
			--style-if-present '.page h1|color|rgb(34, 85, 136)')
	fi
	try "$site pages load cleanly in Chromium from $server"
	$BROWSER --screenshot "$SHOTS/$site-$server.png" "${args[@]}" \
		--js 'document.documentElement.className|js' \
		$(sed "s|^|http://127.0.0.1:$p|" "$TESTDIR/$site-pages") >"$out" 2>&1
	check_eq 10 "$(grep -c '^ok ' "$out")" "pages without a problem"
	while IFS= read -r line; do
		fail "${line#FAIL }"
	done < <(grep -v '^ok ' "$out")
	check_file "$SHOTS/$site-$server.png" "screenshot of the $site's front page"
}

serve_start "$TESTDIR/blog-tree" "$PB"
blog_serve=$SERVE_PID
serve_start "$TESTDIR/wiki-tree" "$PW"
wiki_serve=$SERVE_PID
browse blog "$PB" serve
browse wiki "$PW" serve
bg_stop "$blog_serve"
bg_stop "$wiki_serve"

"$CGISNAP" config nginx --listen "127.0.0.1:$PB" "$TESTDIR/blog-tree" >"$TESTDIR/blog.conf" 2>/dev/null
"$CGISNAP" config nginx --listen "127.0.0.1:$PW" "$TESTDIR/wiki-tree" >"$TESTDIR/wiki.conf" 2>/dev/null
try "nginx serves both trees on the same ports"
nginx_start nginx "$PB" "$PW" -- "$TESTDIR/blog.conf" "$TESTDIR/wiki.conf"
browse blog "$PB" nginx
browse wiki "$PW" nginx

try "a broken page is reported: missing stylesheet, failed image, console error"
mkdir -p "$TESTDIR/broken"
cat >"$TESTDIR/broken/index.html" <<'EOF'
<!DOCTYPE html>
<html><head><title>broken</title><link rel="stylesheet" href="/missing.css"></head>
<body><img src="/missing.png" alt=""><script>console.error("boom"); undefinedFunction();</script></body></html>
EOF
mkdir -p "$TESTDIR/broken/.cgisnap"
serve_start "$TESTDIR/broken" "$PX"
$BROWSER --style 'body|background-color|rgb(250, 250, 250)' "http://127.0.0.1:$PX/" >"$TESTDIR/broken.out" 2>&1
check_eq 1 $? "exit status"
b=$(cat "$TESTDIR/broken.out")
check_contains "$b" "FAIL http://127.0.0.1:$PX/: stylesheet http://127.0.0.1:$PX/missing.css answered 404" \
	"the missing stylesheet, named with its page"
check_contains "$b" "image http://127.0.0.1:$PX/missing.png answered 404" "the missing image"
check_contains "$b" "console error: boom" "the console error"
check_contains "$b" "uncaught exception" "the exception"
check_contains "$b" "style body { background-color: rgb(250, 250, 250) } did not apply" "the style"

echo "# screenshots in $SHOTS: $(cd "$SHOTS" && echo *.png)"
finish
