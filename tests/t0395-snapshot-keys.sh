#!/usr/bin/env bash
# t0395-snapshot-keys: every URL a site answers can be stored. A path
# segment starting with '.' (/.well-known/x, a repository browser's
# .gitignore) is stored with the dot escaped (%2Ewell-known/x), served back
# by cgisnap serve, nginx and Apache alike, and pruned like any page, while
# .cgisnap/ and raw dotfiles stay unreachable. "/a" and "/a/" answering 200
# with bodies that differ by a timestamp are one page, as on a static host:
# "/a/" is stored and "/a" recorded as a 301 to it, whichever is crawled
# first.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"
. "$(dirname "$0")/lib-serve.sh"
. "$(dirname "$0")/lib-config.sh"
. "$(dirname "$0")/lib-watch.sh"

need_program python3 curl nginx apache2

OUT=$TESTDIR/out
MODE=$TESTDIR/mode # "gone": the site no longer has /.well-known/security.txt
: >"$MODE"

# The origin: an HTTP server whose pages have dotfile names, and pages
# that answer both with and without their trailing slash, each render
# carrying the time in nanoseconds.
cat >"$TESTDIR/server.py" <<'PY'
import http.server, sys, time
MODE = sys.argv[2]
LINKS = ['/.well-known/security.txt', '/.hidden/', '/repo/commit/.gitignore?id=abc',
         '/repo/tree/.github/workflows/ci.yml', '/a', '/a/', '/same', '/same/', '/r', '/s/']
def page(path):
    gone = open(MODE).read().strip() == 'gone'
    if path == '/':
        links = [l for l in LINKS if not (gone and l.startswith('/.well-known/'))]
        return 200, 'text/html; charset=utf-8', ''.join('<a href="%s">x</a>\n' % l for l in links), None
    if path == '/.well-known/security.txt' and not gone:
        return 200, 'text/plain; charset=utf-8', 'Contact: mailto:security@example.org\n', None
    if path == '/.hidden/':
        return 200, 'text/html; charset=utf-8', '<p>a hidden directory</p>\n', None
    if path == '/repo/commit/.gitignore?id=abc':
        return 200, 'text/html; charset=utf-8', '<p>.gitignore at abc</p>\n', None
    if path == '/repo/tree/.github/workflows/ci.yml':
        return 200, 'text/plain; charset=utf-8', 'on: push\n', None
    if path in ('/a', '/a/', '/r/', '/s'):
        return 200, 'text/html; charset=utf-8', '<p>page %s at %d</p>\n' % (path, time.time_ns()), None
    if path in ('/same', '/same/'):
        return 200, 'text/html; charset=utf-8', '<p>the same either way</p>\n', None
    if path == '/r':
        return 301, None, '', '/r/'
    if path == '/s/':
        return 301, None, '', '/s'
    return 404, 'text/html; charset=utf-8', '<p>not found</p>\n', None
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        status, ctype, body, location = page(self.path)
        data = body.encode()
        self.send_response(status)
        if ctype:
            self.send_header('Content-Type', ctype)
        if location:
            self.send_header('Location', location)
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    def log_message(self, *args):
        pass
s = http.server.ThreadingHTTPServer(('127.0.0.1', 0), H)
open(sys.argv[1] + '.tmp', 'w').write(str(s.server_address[1]))
import os; os.rename(sys.argv[1] + '.tmp', sys.argv[1])
s.serve_forever()
PY
bg_start python3 "$TESTDIR/server.py" "$TESTDIR/http-port" "$MODE"
HTTP_PID=$BG_PID
wait_until 10 test -s "$TESTDIR/http-port" || fail "the python3 server did not start"
ORIGIN="http://127.0.0.1:$(cat "$TESTDIR/http-port")/"

snap() { # snap OUT [OPTIONS...]
	local out=$1
	shift
	"$CGISNAP" snapshot --origin "$ORIGIN" --site-url http://localhost/ "$@" "$out"
}

try "dotfile URLs are stored with the dot escaped; the run exits 0"
snap "$OUT" -j 2 2>"$TESTDIR/err"
check_eq 0 $? "exit status ($(grep -E 'failed|error' "$TESTDIR/err" | head -3))"
check_eq "Contact: mailto:security@example.org" "$(cat "$OUT/%2Ewell-known/security.txt" 2>/dev/null)" \
	"/.well-known/security.txt"
check_eq "<p>a hidden directory</p>" "$(cat "$OUT/%2Ehidden/index.html" 2>/dev/null)" "/.hidden/"
check_eq "<p>.gitignore at abc</p>" "$(cat "$OUT/repo/commit/%2Egitignore@id=abc.html" 2>/dev/null)" \
	"a dotfile name with a query"
check_file "$OUT/repo/tree/%2Egithub/workflows/ci.yml" "a dot directory inside the path"
check_eq "%2Ewell-known/security.txt" "$(manifest_field "$OUT" /.well-known/security.txt 2)" "manifest key"
check_eq "" "$(cd "$OUT" && find . -mindepth 1 -path ./.cgisnap -prune -o -name '.*' -print)" \
	"no file or directory of the tree but .cgisnap/ is a dotfile"

try "/a and /a/ differ by a timestamp: /a/ is stored, /a is a redirect to it"
check_contains "$(cat "$OUT/a/index.html" 2>/dev/null)" "<p>page /a/ at " "a/index.html holds the slash form"
check_eq 301 "$(manifest_field "$OUT" /a 3)" "/a is recorded as a 301"
check_eq http://localhost/a/ "$(manifest_field "$OUT" /a 9)" "to /a/"
check_eq a/index.html "$(manifest_field "$OUT" /a/ 2)" "/a/ has the file"
check_contains "$(cat "$TESTDIR/err")" "1 URL recorded as a redirect to its slash form: /a → /a/" \
	"the summary says so"
check_eq same/index.html "$(manifest_field "$OUT" /same 2)" "identical bodies: one file for both"
check_eq 200 "$(manifest_field "$OUT" /same 3)" "identical bodies: /same stays a page"
check_eq 301 "$(manifest_field "$OUT" /r 3)" "/r answered 301 itself"
check_eq r/index.html "$(manifest_field "$OUT" /r/ 2)" "/r/ has the file"
check_eq 301 "$(manifest_field "$OUT" /s/ 3)" "/s/ answered 301 to /s"
check_contains "$(cat "$OUT/s/index.html" 2>/dev/null)" "<p>page /s at " "/s keeps its file: no loop"

try "a re-run gives the same tree, /a still a redirect"
before=$(cat "$OUT/a/index.html")
snap "$OUT" -j 2 -v 2>"$TESTDIR/err2"
check_eq 0 $? "exit status ($(grep -E 'failed|error' "$TESTDIR/err2" | head -3))"
check_eq 301 "$(manifest_field "$OUT" /a 3)" "/a is a 301 again"
check_contains "$(cat "$OUT/a/index.html")" "<p>page /a/ at " "a/index.html holds the slash form"
# rendered again (its timestamp, changing on every render, is no change:
# the file stays)
check_match "$(cat "$TESTDIR/err2")" 'cgisnap: 200 (changed|unchanged) [0-9]+ ms [0-9]+ bytes /a/'$'\n' "and was rendered again"
check_contains "$(cat "$TESTDIR/err2")" "/a: a redirect to /a/" "-v names each such URL"

try "the order of discovery does not matter"
for order in "/a /a/" "/a/ /a"; do
	set -- $order
	d=$TESTDIR/order-${1//\//_}
	snap "$d" -j 1 --seed "$1" --seed "$2" 2>"$TESTDIR/err3"
	check_eq 0 $? "$order: exit status ($(grep -E 'failed|error' "$TESTDIR/err3" | head -3))"
	check_eq 301 "$(manifest_field "$d" /a 3)" "$order: /a is a 301"
	check_contains "$(cat "$d/a/index.html" 2>/dev/null)" "<p>page /a/ at " "$order: the slash form's file"
	check_eq "$(sha256sum <"$d/a/index.html")" "$(manifest_field "$d" /a/ 6 | sed 's/$/  -/')" \
		"$order: the manifest records the bytes on disk"
done

try "watch re-rendering /a alone, or /a/ alone, keeps /a a redirect"
SRC=$TESTDIR/src
mkdir -p "$SRC"
: >"$SRC/a.txt"
: >"$SRC/b.txt"
W=$TESTDIR/w
watch_start "$TESTDIR/wlog" --origin "$ORIGIN" --site-url http://localhost/ -j 2 --source "$SRC" \
	--depends 'a\.txt$ => /a' --depends 'b\.txt$ => /a/' "$W"
check_eq 0 $? "watch came up ($(tail -3 "$TESTDIR/wlog"))"
check_eq 301 "$(manifest_field "$W" /a 3)" "after the first crawl: /a is a 301"
before=$(cat "$W/a/index.html")
echo edit >>"$SRC/a.txt"
wait_batches "$TESTDIR/wlog" 1
check_eq 0 $? "a batch for /a"
check_eq 301 "$(manifest_field "$W" /a 3)" "/a re-rendered: still a 301"
check_eq "$before" "$(cat "$W/a/index.html")" "/a did not write the slash form's file"
echo edit >>"$SRC/b.txt"
wait_batches "$TESTDIR/wlog" 2
check_eq 0 $? "a batch for /a/"
check_contains "$(cat "$W/a/index.html")" "<p>page /a/ at " "/a/ re-rendered: its own body"
check_match "$(grep '^cgisnap: batch: ' "$TESTDIR/wlog" | tail -1)" ': 1 URL re-rendered, ' "/a/ rendered again"
check_eq 301 "$(manifest_field "$W" /a 3)" "/a still a 301"
watch_stop
check_eq 0 "$WATCH_STATUS" "watch exit status"

try "with --strip, bodies that still differ are a conflict that says what to do"
snap "$TESTDIR/strip" -j 1 --seed /a --seed /a/ --strip 'no such text' 2>"$TESTDIR/err4"
check_eq 1 $? "exit status"
check_contains "$(cat "$TESTDIR/err4")" "'/a' and '/a/' both map to file 'a/index.html' with different content after --strip: widen --strip" \
	"the message"
snap "$TESTDIR/strip2" -j 1 --seed /a --seed /a/ --strip 'page /a/* at [0-9]*' 2>"$TESTDIR/err5"
check_eq 0 $? "bodies the same after --strip: exit status"
check_eq 200 "$(manifest_field "$TESTDIR/strip2" /a 3)" "bodies the same after --strip: /a stays a page"
check_eq a/index.html "$(manifest_field "$TESTDIR/strip2" /a 2)" "of the one file"

# A raw dotfile in the tree, as an adopted tree might hold one.
printf 'Deny from all\n' >"$OUT/.htaccess"
printf 'raw\n' >"$OUT/repo/.gitignore"
PS=$(port 0) PN=$(port 1) PA=$(port 2)
"$CGISNAP" config nginx --listen "127.0.0.1:$PN" "$OUT" >"$TESTDIR/nginx.conf" 2>"$TESTDIR/config.err"
"$CGISNAP" config apache --listen "127.0.0.1:$PA" "$OUT" >"$TESTDIR/apache.conf" 2>>"$TESTDIR/config.err"
three_servers_start "$OUT" "$PS" "$PN" "$TESTDIR/nginx.conf" "$PA" "$TESTDIR/apache.conf"

try "cgisnap serve answers dotfile URLs from their escaped files, and nothing else hidden"
U=http://127.0.0.1:$PS
check_eq "Contact: mailto:security@example.org" "$(curl -s "$U/.well-known/security.txt")" "/.well-known/security.txt"
check_eq 200 "$(code "$U/%2Ewell-known/security.txt")" "%2E is the same URL"
check_eq 404 "$(code "$U/%252Ewell-known/security.txt")" "%252E is another URL, with no page"
check_eq 200 "$(code "$U/repo/commit/.gitignore?id=abc")" "a dotfile name with a query"
check_eq 404 "$(code "$U/.cgisnap/tree.db")" ".cgisnap/tree.db"
check_eq 404 "$(code "$U/.htaccess")" "a raw dotfile of the tree"
check_eq 404 "$(code "$U/repo/.gitignore")" "a raw dotfile deeper down"
check_eq 404 "$(code "$U/.hidden")" "an unlisted dotfile URL"
curl -s -D "$TESTDIR/h" -o /dev/null "$U/a"
check_eq 301 "$(head -1 "$TESTDIR/h" | cut -d' ' -f2)" "/a answers 301"
check_eq http://localhost/a/ "$(header Location "$TESTDIR/h")" "to /a/"
check_contains "$(curl -s "$U/a/")" "<p>page /a/ at " "/a/ is the page"

L=$TESTDIR/list
cat >"$L" <<'EOF'
/
/.well-known/security.txt
/%2Ewell-known/security.txt
/%2ewell-known/security.txt
/%252Ewell-known/security.txt
/%2Ewell-known/security.txt.gz
/.well-known/
/.well-known
/.hidden/
/.hidden
/%2Ehidden/
/%252Ehidden/
/repo/commit/.gitignore?id=abc
/repo/commit/%2Egitignore?id=abc
/repo/commit/%252Egitignore?id=abc
/repo/commit/.gitignore?id=other
/repo/commit/.gitignore
/repo/tree/.github/workflows/ci.yml
/repo/tree/%252Egithub/workflows/ci.yml
/repo/.gitignore
/.htaccess
/%2Ehtaccess
/.cgisnap/manifest
/.cgisnap/settings
/%2Ecgisnap/manifest
/%252Ecgisnap/manifest
/a
/a/
/a/index.html
/same
/same/
/r
/r/
/s
/s/
EOF
fetch_all "$U" "$L" "$TESTDIR/serve"
for other in nginx apache; do
	[ "$other" = nginx ] && p=$PN || p=$PA
	try "$other answers dotfile and slash URLs like cgisnap serve"
	fetch_all "http://127.0.0.1:$p" "$L" "$TESTDIR/$other"
	diffs=$(compare_fetches "$L" "$TESTDIR/serve" "$TESTDIR/$other" serve "$other")
	[ -z "$diffs" ] || while IFS= read -r line; do fail "$line"; done <<<"$diffs"
done
bg_stop "$SERVE_PID"
bg_stop "$NGINX_PID"
bg_stop "$APACHE_PID"

try "a dotfile page the site no longer has is pruned like any page"
echo gone >"$MODE"
snap "$OUT" -j 2 2>"$TESTDIR/err6"
check_eq 0 $? "exit status ($(grep -E 'failed|error' "$TESTDIR/err6" | head -3))"
check_no_file "$OUT/%2Ewell-known/security.txt" "its file is removed"
check_eq "" "$(manifest_field "$OUT" /.well-known/security.txt 1)" "and its manifest line"
check_file "$OUT/.htaccess" "the raw dotfile cgisnap did not publish stays"
check_file "$OUT/repo/.gitignore" "so does the deeper one"

bg_stop "$HTTP_PID"

try "a CGI repository browser's .gitignore (a dotfile name in PATH_INFO) is stored"
mkdir -p "$TESTDIR/cgi"
printf '#!/bin/sh\nprintf "Content-Type: text/html\\n\\n<p>%%s %%s</p>\\n" "$PATH_INFO" "$QUERY_STRING"\n' \
	>"$TESTDIR/cgi/tool.cgi"
chmod +x "$TESTDIR/cgi/tool.cgi"
printf '<a href="/tool.cgi/repo/commit/.gitignore?id=abc">x</a>\n' >"$TESTDIR/cgi/index.html"
"$CGISNAP" snapshot --root "$TESTDIR/cgi" "$TESTDIR/cgi-out" 2>"$TESTDIR/err7"
check_eq 0 $? "exit status ($(grep -E 'failed|error' "$TESTDIR/err7" | head -3))"
check_eq "<p>/repo/commit/.gitignore id=abc</p>" \
	"$(cat "$TESTDIR/cgi-out/tool.cgi/repo/commit/%2Egitignore@id=abc.html" 2>/dev/null)" "its file"

try "two spellings of one query (docs/a.md, docs%2Fa.md) are one file and a redirect, whichever is rendered first"
# Both map to one file; each render carries a fresh nonce, so the bodies
# never agree. The spelling without escapes keeps the file on every run
# and every --jobs; the other is a 301 to it, and the run exits 0.
mkdir -p "$TESTDIR/sp"
printf '<a href="/b.cgi?name=docs%%2Fa.md">escaped</a> <a href="/b.cgi?name=docs/a.md">plain</a>\n' >"$TESTDIR/sp/index.html"
cat >"$TESTDIR/sp/b.cgi" <<'SH'
#!/bin/sh
printf 'Content-Type: text/html\n\n<p>%s, nonce %s</p>\n' "$QUERY_STRING" "$(od -An -N8 -tx8 /dev/urandom)"
SH
chmod +x "$TESTDIR/sp/b.cgi"
for jobs in 1 2 1; do
	"$CGISNAP" snapshot --root "$TESTDIR/sp" -j "$jobs" "$TESTDIR/sp-out" 2>"$TESTDIR/err-sp"
	check_eq 0 $? "-j $jobs: exit status ($(tail -2 "$TESTDIR/err-sp"))"
	check_eq 200 "$(manifest_field "$TESTDIR/sp-out" "/b.cgi?name=docs/a.md" 3)" "-j $jobs: the plain spelling keeps the file"
	check_eq "301 http://localhost/b.cgi?name=docs/a.md" \
		"$(manifest_field "$TESTDIR/sp-out" "/b.cgi?name=docs%2Fa.md" 3) $(manifest_field "$TESTDIR/sp-out" "/b.cgi?name=docs%2Fa.md" 9)" \
		"-j $jobs: the escaped one redirects to it"
	check_contains "$(cat "$TESTDIR/err-sp")" \
		"cgisnap: 1 URL recorded as a redirect to another spelling of its file: /b.cgi?name=docs%2Fa.md → /b.cgi?name=docs/a.md" \
		"-j $jobs: said in the summary"
done

finish
