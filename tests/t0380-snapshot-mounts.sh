#!/usr/bin/env bash
# t0380-snapshot-mounts: --script-alias /PREFIX=PROGRAM and --path-alias
# /PREFIX=DIR (Apache's ScriptAlias and Alias). A C program mounted on
# /tool gets the rest of the path decoded as PATH_INFO (spaces, UTF-8 and
# an encoded slash) with REQUEST_URI as it came; a directory mounted on
# /lib serves its static file and runs its shell and Perl CGIs; the
# snapshot stores them at their URLs and serve hands them back, renders
# through them with --fallback, and watch re-renders what reads a mounted
# directory. Bad mounts are set-up errors.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-serve.sh"
. "$(dirname "$0")/lib-watch.sh"

FIX=$ROOT/tests/fixtures/mounts
SITE=$TESTDIR/site
BIN=$TESTDIR/bin
LIB=$TESTDIR/lib
OUT=$TESTDIR/out
mkdir -p "$SITE" "$BIN"
cp -r "$FIX/lib" "$LIB"
printf 'the news of the day\n' >"$LIB/motd.txt"
cc -std=c11 -O0 -o "$BIN/tool" "$FIX/tool.c" || fail "cannot compile tests/fixtures/mounts/tool.c"
cat >"$SITE/index.html" <<'HTML'
<html><body><a href="/tool">the tool</a> <a href="/lib">the library</a>
<a href="/lib/env.pl/x%20y">Perl with PATH_INFO</a></body></html>
HTML
# A file the mount hides: /tool is the program, whatever --root holds.
mkdir -p "$SITE/tool"
printf 'hidden by the mount\n' >"$SITE/tool/index.html"
REAL_SITE=$(realpath "$SITE")
REAL_LIB=$(realpath "$LIB")
REAL_BIN=$(realpath "$BIN")
MOUNTS=(--script-alias "/tool=$BIN/tool" --path-alias "/lib/=$LIB" --cgi pl=perl)
DEEP='/tool/a%20b/%C3%A9t%C3%A9/x'

try "snapshot stores the pages of a mounted program and a mounted directory"
"$CGISNAP" snapshot --root "$SITE" "${MOUNTS[@]}" --site-url http://localhost:8080/ "$OUT" 2>"$TESTDIR/err"
check_eq 0 $? "exit status ($(cat "$TESTDIR/err"))"
for f in index.html tool/index.html "tool/a b/été/x/index.html" tool/page@q=1.html lib/index.html \
	lib/hello.cgi "lib/env.pl/x y/index.html" lib/env.pl/more/index.html lib/style.css; do
	check_file "$OUT/$f"
done
check_cmp "$LIB/style.css" "$OUT/lib/style.css" "the mounted directory's static file"
check_eq "301" "$(awk -F'\t' '$1 == "/lib" { print $3 }' <("$CGISNAP" ls "$OUT"))" "/lib redirects to /lib/"

try "the program gets SCRIPT_NAME /PREFIX and the rest of the path decoded as PATH_INFO"
page=$(cat "$OUT/tool/a b/été/x/index.html" 2>/dev/null)
check_contains "$page" "SCRIPT_NAME=/tool"$'\n' "SCRIPT_NAME"
check_contains "$page" "PATH_INFO=/a b/été/x"$'\n' "PATH_INFO decoded"
check_contains "$page" "PATH_TRANSLATED=$REAL_SITE/a b/été/x"$'\n' "PATH_TRANSLATED under --root"
check_contains "$page" "REQUEST_URI=$DEEP"$'\n' "REQUEST_URI as it came"
check_contains "$page" "SCRIPT_FILENAME=$REAL_BIN/tool"$'\n' "SCRIPT_FILENAME is the program"
check_contains "$page" "DOCUMENT_ROOT=$REAL_SITE"$'\n' "DOCUMENT_ROOT stays --root"
page=$(cat "$OUT/tool/index.html" 2>/dev/null)
check_contains "$page" "PATH_INFO=(unset)" "the prefix itself: no PATH_INFO"
check_not_contains "$page" "hidden by the mount" "the mount wins over --root"
check_contains "$(cat "$OUT/tool/page@q=1.html" 2>/dev/null)" "QUERY_STRING=q=1" "the query"

try "scripts under a mounted directory: SCRIPT_NAME under the prefix, DOCUMENT_ROOT --root's"
page=$(cat "$OUT/lib/hello.cgi" 2>/dev/null)
check_contains "$page" "SCRIPT_NAME=/lib/hello.cgi"$'\n' "shell CGI: SCRIPT_NAME"
check_contains "$page" "SCRIPT_FILENAME=$REAL_LIB/hello.cgi"$'\n' "shell CGI: SCRIPT_FILENAME"
check_contains "$page" "DOCUMENT_ROOT=$REAL_SITE"$'\n' "shell CGI: DOCUMENT_ROOT"
check_contains "$page" "the news of the day" "shell CGI read its directory"
page=$(cat "$OUT/lib/env.pl/more/index.html" 2>/dev/null)
check_contains "$page" "SCRIPT_NAME=/lib/env.pl"$'\n' "Perl CGI: SCRIPT_NAME"
check_contains "$page" "PATH_INFO=/more"$'\n' "Perl CGI: PATH_INFO"
check_contains "$(cat "$OUT/lib/env.pl/x y/index.html" 2>/dev/null)" "PATH_INFO=/x y"$'\n' "Perl CGI: PATH_INFO decoded"

try "an encoded slash reaches the program decoded (its page is stored with %2F in its name: t0396)"
"$CGISNAP" snapshot --root "$SITE" "${MOUNTS[@]}" --env "MOUNT_LOG=$TESTDIR/tool.log" \
	--seed '/tool/a%20b/%C3%A9t%C3%A9/x%2Fy' --max-depth 0 "$TESTDIR/out2" 2>"$TESTDIR/err2"
check_eq 0 $? "exit status ($(cat "$TESTDIR/err2"))"
check_file "$TESTDIR/out2/tool/a b/été/x%2Fy/index.html"
log=$(cat "$TESTDIR/tool.log" 2>/dev/null)
check_contains "$log" "PATH_INFO=/a b/été/x/y"$'\n' "PATH_INFO with %2F decoded"
check_contains "$log" "REQUEST_URI=/tool/a%20b/%C3%A9t%C3%A9/x%2Fy"$'\n' "REQUEST_URI unchanged"

P=$(port 0)
try "serve hands the mounted pages back at their URLs"
serve_start "$OUT" "$P"
check_eq "$(cat "$OUT/tool/a b/été/x/index.html")" "$(curl -s "http://127.0.0.1:$P$DEEP")" "$DEEP"
check_eq "$(cat "$OUT/tool/index.html")" "$(curl -s "http://127.0.0.1:$P/tool")" "/tool"
check_eq "$(cat "$OUT/lib/hello.cgi")" "$(curl -s "http://127.0.0.1:$P/lib/hello.cgi")" "/lib/hello.cgi"
check_eq "$(cat "$LIB/style.css")" "$(curl -s "http://127.0.0.1:$P/lib/style.css")" "/lib/style.css"
check_eq 200 "$(code "http://127.0.0.1:$P/tool/page?q=1")" "/tool/page?q=1"
bg_stop "$SERVE_PID"

# The generated configurations serve the tree alone: the mounted pages are
# files like any other, and must come back at their URLs as serve sends them.
if command -v nginx >/dev/null && command -v apache2 >/dev/null; then
	. "$(dirname "$0")/lib-config.sh"
	try "nginx and Apache serve the mounted pages as cgisnap serve does"
	PN=$(port 1) PA=$(port 2)
	"$CGISNAP" config nginx --listen "127.0.0.1:$PN" "$OUT" >"$TESTDIR/nginx.conf" 2>"$TESTDIR/config.err"
	check_eq 0 $? "nginx configuration"
	"$CGISNAP" config apache --listen "127.0.0.1:$PA" "$OUT" >"$TESTDIR/apache.conf" 2>>"$TESTDIR/config.err"
	check_eq 0 $? "Apache configuration"
	three_servers_start "$OUT" "$P" "$PN" "$TESTDIR/nginx.conf" "$PA" "$TESTDIR/apache.conf"
	L=$TESTDIR/list
	printf '%s\n' /tool /tool/ "$DEEP" /tool/page?q=1 /lib /lib/ /lib/hello.cgi /lib/style.css \
		/lib/env.pl/more '/lib/env.pl/x%20y' /lib/motd.txt /tool/nope >"$L"
	fetch_all "http://127.0.0.1:$P" "$L" "$TESTDIR/f-serve"
	fetch_all "http://127.0.0.1:$PN" "$L" "$TESTDIR/f-nginx"
	fetch_all "http://127.0.0.1:$PA" "$L" "$TESTDIR/f-apache"
	check_eq 200 "$(sed -n 3p "$TESTDIR/f-serve/records" | cut -d$'\037' -f1)" "serve: $DEEP"
	check_eq "" "$(compare_fetches "$L" "$TESTDIR/f-serve" "$TESTDIR/f-nginx" serve nginx)" "nginx"
	check_eq "" "$(compare_fetches "$L" "$TESTDIR/f-serve" "$TESTDIR/f-apache" serve Apache)" "Apache"
	bg_stop "$NGINX_PID"
	bg_stop "$APACHE_PID"
	bg_stop "$SERVE_PID"
fi

try "serve --fallback renders what the tree lacks through the mounts"
serve_start "$OUT" "$P" --fallback --root "$SITE" "${MOUNTS[@]}"
body=$(curl -s "http://127.0.0.1:$P/tool/fresh/p%C3%A4ge?n=2")
check_contains "$body" "PATH_INFO=/fresh/päge"$'\n' "PATH_INFO"
check_contains "$body" "REQUEST_URI=/tool/fresh/p%C3%A4ge?n=2"$'\n' "REQUEST_URI"
body=$(curl -s "http://127.0.0.1:$P/lib/env.pl/new")
check_contains "$body" "PATH_INFO=/new" "a script of the mounted directory"
check_eq 404 "$(code "http://127.0.0.1:$P/lib/.hidden")" "dotfiles of the mounted directory"
check_eq 404 "$(code "http://127.0.0.1:$P/toolbox")" "/toolbox is not under /tool"
bg_stop "$SERVE_PID"

try "bench passes the mounts on to the dynamic server it starts"
"$CGISNAP" bench --root "$SITE" "${MOUNTS[@]}" --tree "$OUT" --url "$DEEP" --url /lib/env.pl/more \
	-n 6 -c 1 --no-warmup --json >"$TESTDIR/bench.json" 2>"$TESTDIR/bench.err"
check_eq 0 $? "exit status ($(cat "$TESTDIR/bench.err"))"
dyn=$(php -r '$j = json_decode(file_get_contents($argv[1]), true); echo $j["dynamic"]["non_2xx"], " ", $j["dynamic"]["failed"];' "$TESTDIR/bench.json")
check_eq "0 0" "$dyn" "dynamic side: non-2xx and failed"

try "watch re-renders a page that read a file of a mounted directory"
W=$TESTDIR/wtree
watch_start "$TESTDIR/watch.log" --root "$SITE" "${MOUNTS[@]}" --source "$LIB" "$W"
check_contains "$(cat "$W/lib/hello.cgi" 2>/dev/null)" "the news of the day" "first render"
printf 'fresher news\n' >"$LIB/motd.txt.tmp" && mv "$LIB/motd.txt.tmp" "$LIB/motd.txt"
wait_file_has "$W/lib/hello.cgi" "fresher news" || fail "hello.cgi was not re-rendered: $(cat "$TESTDIR/watch.log")"
# Only hello.cgi read motd.txt: the program's pages are not re-rendered.
check_no_match "$(grep '^cgisnap: batch: ' "$TESTDIR/watch.log")" '([2-9]|[0-9]{2,}) URLs re-rendered' \
	"one page re-rendered per batch"
watch_stop
check_eq 0 "$WATCH_STATUS" "watch exit status"

try "bad mounts are set-up errors naming the value (exit 2)"
bad() { # bad EXPECTED-ERROR OPTIONS...
	local want=$1
	shift
	err=$("$CGISNAP" snapshot --root "$SITE" "$@" "$TESTDIR/bad" 2>&1)
	check_eq 2 $? "exit status for $*"
	check_eq "cgisnap: error: $want" "$err" "message for $*"
}
bad "bad --script-alias prefix 'tool': it must start with '/'" --script-alias "tool=$BIN/tool"
bad "bad --path-alias prefix '/a/../lib': a '..' segment" --path-alias "/a/../lib=$LIB"
bad "--script-alias program '$LIB/style.css' is not executable" --script-alias "/x=$LIB/style.css"
bad "--script-alias program '$LIB/none' is not a file or a directory" --script-alias "/x=$LIB/none"
bad "--path-alias directory '$LIB/style.css' is not a directory" --path-alias "/x=$LIB/style.css"
bad "--path-alias prefix '/tool' is mounted twice" --script-alias "/tool=$BIN/tool" --path-alias "/tool/=$LIB"
err=$("$CGISNAP" snapshot --origin http://127.0.0.1:9/ --script-alias "/tool=$BIN/tool" "$TESTDIR/bad" 2>&1)
check_eq 2 $? "exit status with --origin"
check_eq "cgisnap: error: --script-alias is for CGI and FastCGI origins: with --origin, mount on the HTTP server" \
	"$err" "message with --origin"
check_no_file "$TESTDIR/bad" "no tree made"

try "the tree may not lie inside a mounted directory, nor hold one"
err=$("$CGISNAP" snapshot --root "$SITE" --path-alias "/lib=$LIB" "$LIB/tree" 2>&1)
check_eq 2 $? "exit status"
check_eq "cgisnap: error: the tree '$LIB/tree' is inside the mounted directory '$REAL_LIB': cgisnap does not write into the site" \
	"$err" "tree in DIR"
check_no_file "$LIB/tree" "nothing written into the mounted directory"
CGIDIR=$TESTDIR/cgi-bin
mkdir -p "$CGIDIR"
err=$("$CGISNAP" snapshot --seed /app/x --script-alias "/app/=$CGIDIR" "$CGIDIR/tree" 2>&1)
check_eq 2 $? "exit status"
check_eq "cgisnap: error: the tree '$CGIDIR/tree' is inside the mounted directory '$(realpath "$CGIDIR")': cgisnap does not write into the site" \
	"$err" "tree in a --script-alias directory"

try "a program that is the whole site needs no --root; its tree may lie beside it"
# A --script-alias PROGRAM exposes one file, not its directory. Without
# --root the document root is empty and the seed is the mount's prefix.
"$CGISNAP" snapshot --script-alias "/tool=$BIN/tool" "$BIN/tree" 2>"$TESTDIR/err"
check_eq 0 $? "exit status ($(cat "$TESTDIR/err"))"
check_eq "/tool 200" "$(awk -F'\t' '$1 == "/tool" { print $1, $3 }' <("$CGISNAP" ls "$BIN/tree"))" "the seed is the mount"
page=$(cat "$BIN/tree/tool/a b/été/x/index.html" 2>/dev/null)
check_contains "$page" "PATH_INFO=/a b/été/x"$'\n' "PATH_INFO decoded"
check_contains "$page" "DOCUMENT_ROOT="$'\n' "an empty document root"
check_contains "$page" "PATH_TRANSLATED=(unset)"$'\n' "no PATH_TRANSLATED without a document root (RFC 3875 4.1.6)"
check_eq "" "$(cd "$BIN/tree" && find . -path ./.cgisnap -prune -o -type f ! -path './tool/*' -print)" \
	"files outside /tool: the program's directory is not the site"

try "a directory of programs (ScriptAlias /cgi-bin/app/ /usr/lib/cgi-bin/app/), no --root"
mkdir -p "$CGIDIR/sub"
cat >"$CGIDIR/browse" <<'SH'
#!/bin/sh
printf 'Content-Type: text/html\n\n<html><body><pre>SCRIPT_NAME=%s\nPATH_INFO=%s\n</pre>\n' "$SCRIPT_NAME" "${PATH_INFO-(unset)}"
printf '<a href="/app/sub/hello.cgi">sub</a> <a href="/app/notes.txt">notes</a> <a href="/app/">dir</a></body></html>\n'
SH
chmod +x "$CGIDIR/browse"
cp "$LIB/hello.cgi" "$CGIDIR/sub/hello.cgi"
printf 'SECRET-NOTES\n' >"$CGIDIR/notes.txt"
"$CGISNAP" snapshot --script-alias "/app/=$CGIDIR/" --path-alias "/lib=$LIB" --cgi pl=perl \
	--seed '/app/browse/x%20y' "$TESTDIR/dirout" 2>"$TESTDIR/err"
check_eq 0 $? "exit status ($(cat "$TESTDIR/err"))"
ls_out=$("$CGISNAP" ls "$TESTDIR/dirout")
status_of() { awk -F'\t' -v t="$1" '$1 == t { print $3 }' <<<"$ls_out"; }
check_eq 200 "$(status_of '/app/browse/x%20y')" "a program without an extension runs, the rest is PATH_INFO"
check_contains "$(cat "$TESTDIR/dirout/app/browse/x y/index.html")" "SCRIPT_NAME=/app/browse"$'\n'"PATH_INFO=/x y" "its CGI variables"
check_eq 200 "$(status_of /app/sub/hello.cgi)" "a program in a subdirectory"
check_contains "$(cat "$TESTDIR/dirout/app/sub/hello.cgi")" "SCRIPT_NAME=/app/sub/hello.cgi" "its SCRIPT_NAME"
check_eq 200 "$(status_of /lib/style.css)" "its link into another mount"
check_eq 404 "$(status_of /app/notes.txt)" "a file that cannot run is refused, never copied"
check_eq "" "$(grep -rl SECRET-NOTES "$TESTDIR/dirout")" "the refused file's text in the tree"
check_eq 404 "$(status_of /app/)" "the directory itself: no index is looked for"

try "the front controller gets PATH_INFO when the path names it, none otherwise"
F=$TESTDIR/front
mkdir -p "$F"
cp "$ROOT/tests/fixtures/cgi/docroot/app/front.cgi" "$F/index.cgi"
"$CGISNAP" snapshot --root "$F" --front-controller /index.cgi --seed /index.cgi/2019/post \
	--seed /2019/other "$TESTDIR/fout" 2>"$TESTDIR/ferr"
check_eq 0 $? "exit status ($(cat "$TESTDIR/ferr"))"
page=$(cat "$TESTDIR/fout/index.cgi/2019/post/index.html" 2>/dev/null)
check_contains "$page" "SCRIPT_NAME=/index.cgi"$'\n'"PATH_INFO=/2019/post" "/index.cgi/2019/post"
page=$(cat "$TESTDIR/fout/2019/other/index.html" 2>/dev/null)
check_contains "$page" "SCRIPT_NAME=/index.cgi"$'\n'"PATH_INFO=(unset)" "a URL without a file (FallbackResource)"

finish
