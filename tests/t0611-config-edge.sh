#!/usr/bin/env bash
# t0611-config-edge: the generated nginx and Apache configurations on a
# tree built by hand with what the sample sites do not have: keys with
# escaped characters, a query holding '/' or '?', a typed query page, 302,
# 307 and 308 redirects, a '$' in a Location, 410, a failed render whose
# old file is still there, unlisted files, a fresh FILE.gz, dotfile names
# (stored as %2E...), paths that decode to a key's own escapes
# (/a%2540b/ is not the file a%40b/ of /a@b/), and encoded slashes
# (/tool/x%2Fy is the file tool/x%2Fy/index.html, never tool/x/y's), and
# pages the site sent without a charset (sent so by all three, none added),
# and URLs alike but for case (nginx's maps ignore case: /?P=5 is not
# /?p=5, and both may be recorded). Compared with
# cgisnap serve as t0610 does (see there for the two tolerances).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-serve.sh"
. "$(dirname "$0")/lib-config.sh"

need_program nginx apache2 curl

T=$TESTDIR/tree
page() { mkdir -p "$(dirname "$T/$1")" && printf '%s\n' "$2" >"$T/$1"; }
page index.html '<h1>home</h1>'
page a/index.html 'page a'
page a/b.css 'b { color: red }'
page noext/index.html 'unlisted, found by the rule'
page extra.txt 'unlisted text'
page 'a%40b/index.html' 'at sign'
page '100%25/index.html' 'percent'
page 'search@q=a%2Fb.html' 'slash in the query'
page 'x@a=?b.html' 'question mark in the query'
page 's@q=%C3%A9+%20.html' 'escapes in the query'
page 'feed/@type=rss.xml' '<rss version="2.0"></rss>'
page 'feed/index.html' '<rss version="2.0">main</rss>'
page 'api@x=1.json' '{"ok":true}'
page 'café/index.html' 'accent'
page page.php '<p>a page named .php</p>'
page 'q?d/index.html' 'a question mark in the path'
page 'q?t.php' 'a typed page with a question mark'
page failed/index.html 'an old copy of a page whose render failed'
page .hidden.html 'never'
page '%2Ewell-known/security.txt' 'Contact: a dotfile name, escaped'
page 'a/%2Ehtaccess' 'a page named .htaccess'
page 'tool/x%2Fy/index.html' 'an encoded slash: one name'
page 'tool/x/y/index.html' 'two segments, another page'
page 'tool/src%2Fmain.c@id=1.html' 'an encoded slash with a query'
page 'tool/lib%2Fa.css' 'a { color: blue }'
page 'x%252Fy/index.html' 'a percent sign then 2F'
page 'nocharset/index.html' '<p>sent as text/html, no charset</p>'
page 'plain.css' 'p { color: green }'
page 'Plain.css' 'P { color: teal }'
seq 1 3000 >"$T/big.txt"
gzip -9 -c "$T/big.txt" >"$T/big.txt.gz"
same_mtime "$T/big.txt.gz" "$T/big.txt"
manifest_start "$T"
{
	manifest_line / index.html 200 'text/html; charset=utf-8'
	manifest_line /a/ a/index.html 200 'text/html; charset=utf-8'
	manifest_line /a/b.css a/b.css 200 'text/css; charset=utf-8'
	manifest_line /a@b/ 'a%40b/index.html' 200 'text/html; charset=utf-8'
	manifest_line /100%25/ '100%25/index.html' 200 'text/html; charset=utf-8'
	manifest_line '/search?q=a/b' 'search@q=a%2Fb.html' 200 'text/html; charset=utf-8'
	manifest_line '/x?a=?b' 'x@a=?b.html' 200 'text/html; charset=utf-8'
	manifest_line '/s?q=%C3%A9+%20' 's@q=%C3%A9+%20.html' 200 'text/html; charset=utf-8'
	manifest_line /feed/ feed/index.html 200 'application/rss+xml; charset=utf-8'
	manifest_line '/feed/?type=rss' 'feed/@type=rss.xml' 200 'application/rss+xml'
	manifest_line '/api?x=1' 'api@x=1.json' 200 'application/json; charset=UTF-8'
	manifest_line /caf%C3%A9/ 'café/index.html' 200 'text/html; charset=utf-8'
	manifest_line /page.php page.php 200 'text/html; charset=utf-8'
	manifest_line /q%3Ft.php 'q?t.php' 200 'text/html; charset=utf-8'
	manifest_line /big.txt big.txt 200 'text/plain; charset=utf-8'
	manifest_line /.well-known/security.txt '%2Ewell-known/security.txt' 200 'text/plain; charset=utf-8'
	manifest_line /a/.htaccess 'a/%2Ehtaccess' 200 'application/octet-stream'
	manifest_line /tool/x%2Fy 'tool/x%2Fy/index.html' 200 'text/html; charset=utf-8'
	manifest_line /tool/x/y 'tool/x/y/index.html' 200 'text/html; charset=utf-8'
	manifest_line '/tool/src%2Fmain.c?id=1' 'tool/src%2Fmain.c@id=1.html' 200 'text/html; charset=utf-8'
	manifest_line /tool/lib%2Fa.css 'tool/lib%2Fa.css' 200 'text/css; charset=utf-8'
	manifest_line /x%252Fy 'x%252Fy/index.html' 200 'text/html; charset=utf-8'
	manifest_line /nocharset 'nocharset/index.html' 200 'text/html'
	manifest_line /plain.css 'plain.css' 200 'text/css'
	manifest_line /Plain.css 'Plain.css' 200 'text/css'
	manifest_line /r%2Fs - 301 - 'http://localhost/tool/x%2Fy'
	manifest_line /g%2Fh - 410 - -
	manifest_line /.old - 301 - 'http://localhost/a/'
	manifest_line /old - 302 - 'http://localhost/a/'
	manifest_line '/temp?x=1' - 307 - 'http://localhost/a/?y=2'
	manifest_line /perm - 308 - 'http://localhost/a/'
	manifest_line /dollar - 301 - 'http://localhost/a$b'
	manifest_line '/?p=5' - 301 - 'http://localhost/2020/05/hello/'
	manifest_line '/?P=5' - 301 - 'http://localhost/upper/'
	manifest_line /gone - 410 - -
	manifest_line /deleted - 404 - -
	manifest_line /failed - 500 - -
	manifest_line '/a/../x' - 301 - 'http://localhost/never'
} >>"$T/.cgisnap/manifest"
manifest_commit "$T"
printf 'site-url = http://localhost/\nsort-query = no\n' >"$T/.cgisnap/settings"
printf '<h1>Custom not found</h1>\n' >"$T/.cgisnap/404.html"

PS=$(port 0) PN=$(port 1) PA=$(port 2)

try "usage errors exit with status 2 and one line"
"$CGISNAP" config >/dev/null 2>"$TESTDIR/err"
check_eq 2 $? "no kind"
check_contains "$(cat "$TESTDIR/err")" "expected a server kind: nginx or apache" "message"
"$CGISNAP" config lighttpd "$T" >/dev/null 2>"$TESTDIR/err"
check_eq 2 $? "unknown kind"
"$CGISNAP" config nginx >/dev/null 2>"$TESTDIR/err"
check_eq 2 $? "no tree"
"$CGISNAP" config nginx "$TESTDIR" >/dev/null 2>"$TESTDIR/err"
check_eq 2 $? "not a tree"
check_contains "$(cat "$TESTDIR/err")" "is not a snapshot tree" "message"
"$CGISNAP" config apache --listen 127.0.0.1:0 "$T" >/dev/null 2>"$TESTDIR/err"
check_eq 2 $? "bad --listen"
check_eq "" "$("$CGISNAP" config nginx "$TESTDIR/nothing" 2>/dev/null)" "nothing on standard output"
check_contains "$("$CGISNAP" config --help)" "regenerat" "--help says when to regenerate"

try "the configurations are written, listing what the rules cannot find"
"$CGISNAP" config nginx --listen "127.0.0.1:$PN" "$T" >"$TESTDIR/nginx.conf" 2>"$TESTDIR/config.err"
check_eq 0 $? "nginx exit status"
"$CGISNAP" config apache --listen "127.0.0.1:$PA" "$T" >"$TESTDIR/apache.conf" 2>>"$TESTDIR/config.err"
check_eq 0 $? "apache exit status"
check_contains "$(cat "$TESTDIR/config.err")" "left out 1 manifest entry" "the unreachable /a/../x is left out"
n=$(cat "$TESTDIR/nginx.conf")
check_contains "$n" '"/a@b/?" "0/a%40b/index.html";' "an escaped '@' is listed"
check_contains "$n" '"/search?q=a/b" "0/search@q=a%2Fb.html";' "a '/' in the query is listed"
# (N: the type's place in the list, which /Plain.css's text/css comes before.)
check_match "$n" '"/feed/\?type=rss" "[1-9]/feed/@type=rss\.xml";' "a typed query page is listed"
check_not_contains "$n" '"/x?a=?b"' "a '?' in the query needs no listing"
check_contains "$n" '"http://localhost/a${cgisnap_localhost_' "a '$' in a Location stays literal"
check_contains "$n" ' $cgisnap_path@$args.json ' "the suffixes in use are tried"
check_contains "$n" 'if ($request_uri = "/tool/x%2Fy") {' "an encoded '/' is matched as it arrives"
check_not_contains "$n" '"/tool/x/y?" "0/tool/x%2Fy' "never by its decoded path"
check_contains "$(cat "$TESTDIR/apache.conf")" $'\n    AllowEncodedSlashes NoDecode\n' \
	"Apache lets encoded slashes reach the rules"

try "cgisnap serve, nginx and Apache start"
three_servers_start "$T" "$PS" "$PN" "$TESTDIR/nginx.conf" "$PA" "$TESTDIR/apache.conf"

L=$TESTDIR/list
cat >"$L" <<'EOF'
/
/a/
/a
/a/index.html
/a/b.css
/noext
/noext/
/extra.txt
/a@b/
/a%40b/
/100%25/
/search?q=a/b
/search?q=a%2Fb
/x?a=?b
/s?q=%C3%A9+%20
/feed/
/feed/?type=rss
/feed/index.html
/api?x=1
/api?x=2
/caf%C3%A9/
/caf%c3%a9/
/page.php
/q%3Fd/
/q%3Ft.php
/big.txt
/big.txt.gz
/old
/temp?x=1
/temp
/perm
/dollar
/?p=5
/?p=6
/?P=5
/?P=6
/PLAIN.CSS
/Plain.css
/Gone
/Feed/?type=rss
/feed/?TYPE=rss
/gone
/deleted
/failed
/failed/
/.hidden.html
/.well-known/security.txt
/%2Ewell-known/security.txt
/%252Ewell-known/security.txt
/.well-known/
/a/.htaccess
/a/%252Ehtaccess
/nocharset
/nocharset/
/plain.css
/tool/x%2Fy
/tool/x/y
/tool%2Fx%2Fy
/tool/x%252Fy
/tool/src%2Fmain.c?id=1
/tool/src/main.c?id=1
/tool/lib%2Fa.css
/tool/lib/a.css
/x%252Fy
/x%2Fy
/x/y
/r%2Fs
/g%2Fh
/tool/a%2F..%2Fx%2Fy
/tool/x%2F..%2Fx%2Fy
/a%2Fb
/.old
/100%2525/
/a%2540b/
/search%40q=a%252Fb.html
/doku.php@id=x.html
/.cgisnap/404.html
/.cgisnap/manifest
/.cgisnap-file/0/index.html
/.cgisnap-query/x
/nothing?a=/../../etc/passwd
/icons/apache_pb.png
/server-status
/nothing?q=1
EOF
H=$TESTDIR/hostile
cat >"$H" <<'EOF'
/a/../x
/a/%2e%2e/x
/%2e%2e/%2e%2e/etc/passwd
/a\b
/%C1%81
EOF
cat "$H" >>"$L"

fetch_all "http://127.0.0.1:$PS" "$L" "$TESTDIR/serve"
fetch_all "http://127.0.0.1:$PS" "$L" "$TESTDIR/serve-gz" -H 'Accept-Encoding: gzip, deflate'
for other in nginx apache; do
	[ "$other" = nginx ] && p=$PN || p=$PA
	try "$other answers every URL like cgisnap serve"
	fetch_all "http://127.0.0.1:$p" "$L" "$TESTDIR/$other"
	diffs=$(compare_fetches "$L" "$TESTDIR/serve" "$TESTDIR/$other" serve "$other" "$H")
	[ -z "$diffs" ] || while IFS= read -r line; do fail "$line"; done <<<"$diffs"
	try "$other answers like cgisnap serve with Accept-Encoding: gzip"
	fetch_all "http://127.0.0.1:$p" "$L" "$TESTDIR/$other-gz" -H 'Accept-Encoding: gzip, deflate'
	diffs=$(compare_fetches "$L" "$TESTDIR/serve-gz" "$TESTDIR/$other-gz" serve "$other" "$H")
	[ -z "$diffs" ] || while IFS= read -r line; do fail "$line"; done <<<"$diffs"
	check_eq gzip "$(curl -s -o /dev/null -H 'Accept-Encoding: gzip' -w '%header{content-encoding}' \
		"http://127.0.0.1:$p/big.txt")" "big.txt goes out gzip-encoded"
	check_eq "" "$(curl -s -o /dev/null -H 'Accept-Encoding: gzip;q=0, deflate' -w '%header{content-encoding}' \
		"http://127.0.0.1:$p/big.txt")" "gzip;q=0 refuses gzip"
done

try "what serve answers here is what the test expects (no blind spots)"
# status TARGET: what cgisnap serve answered for TARGET above.
status() {
	sed -n "$(grep -nxF -- "$1" "$L" | head -1 | cut -d: -f1)p" "$TESTDIR/serve/records" | cut -d$'\037' -f1
}
for t in /a@b/ /100%25/ '/search?q=a/b' '/x?a=?b' '/s?q=%C3%A9+%20' '/feed/?type=rss' /caf%C3%A9/ \
	/page.php /q%3Fd/ /q%3Ft.php /noext/ /extra.txt /.well-known/security.txt /a/.htaccess; do
	check_eq 200 "$(status "$t")" "serve's answer for $t"
done
check_eq 301 "$(status /noext)" "/noext, unlisted, is a 301 to its slash form"
check_eq 301 "$(status /a)" "/a too"
check_eq 200 "$(status /a/index.html)" "/a/index.html is the file"
check_eq 200 "$(status /tool/x/y)" "a listed /x/y is its page"

check_eq 404 "$(status /failed)" "/failed is 404 although an old file is there"
check_eq 410 "$(status /gone)" "/gone"
check_eq 307 "$(status '/temp?x=1')" "/temp?x=1"
check_eq 301 "$(status /.old)" "/.old, a recorded redirect of a dotfile name"
for t in /%252Ewell-known/security.txt /a/%252Ehtaccess /.hidden.html /100%2525/ /a%2540b/; do
	check_eq 404 "$(status "$t")" "serve's answer for $t (no alias of another page's file)"
done
check_eq "application/rss+xml" "$(curl -s -o /dev/null -w '%header{content-type}' "http://127.0.0.1:$PN/feed/?type=rss")" \
	"nginx: the typed query page"
check_eq "http://localhost/a\$b" "$(curl -s -o /dev/null -w '%header{location}' "http://127.0.0.1:$PA/dollar")" \
	"Apache: the '$' of a Location"

finish
