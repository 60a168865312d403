#!/usr/bin/env bash
# t0395-snapshot-keys: every URL a site answers can be stored. A path
# segment starting with '.' (/.well-known/x, a repository browser's
# .gitignore) is stored with the dot escaped (%2Ewell-known/x), served back
# by cgisnap serve, nginx and Apache alike, and pruned like any page, while
# .cgisnap/ and raw dotfiles stay unreachable.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"
. "$(dirname "$0")/lib-serve.sh"
. "$(dirname "$0")/lib-config.sh"

need_program python3 curl nginx apache2

OUT=$TESTDIR/out
MODE=$TESTDIR/mode # "gone": the site no longer has /.well-known/security.txt
: >"$MODE"

# The origin: an HTTP server whose pages have dotfile names.
cat >"$TESTDIR/server.py" <<'PY'
import http.server, sys, time
MODE = sys.argv[2]
LINKS = ['/.well-known/security.txt', '/.hidden/', '/repo/commit/.gitignore?id=abc',
         '/repo/tree/.github/workflows/ci.yml']
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

# A raw dotfile in the tree, as an adopted tree might hold one.
printf 'Deny from all\n' >"$OUT/.htaccess"
printf 'raw\n' >"$OUT/repo/.gitignore"
PS=$(port 0) PN=$(port 1) PA=$(port 2)
"$CGISNAP" config nginx --listen "127.0.0.1:$PN" "$OUT" >"$TESTDIR/nginx.conf" 2>"$TESTDIR/config.err"
"$CGISNAP" config apache --listen "127.0.0.1:$PA" "$OUT" >"$TESTDIR/apache.conf" 2>>"$TESTDIR/config.err"
serve_start "$OUT" "$PS"
nginx_start nginx "$PN" -- "$TESTDIR/nginx.conf"
apache_start apache "$PA" -- "$TESTDIR/apache.conf"

try "cgisnap serve answers dotfile URLs from their escaped files, and nothing else hidden"
U=http://127.0.0.1:$PS
check_eq "Contact: mailto:security@example.org" "$(curl -s "$U/.well-known/security.txt")" "/.well-known/security.txt"
check_eq 200 "$(code "$U/%2Ewell-known/security.txt")" "%2E is the same URL"
check_eq 404 "$(code "$U/%252Ewell-known/security.txt")" "%252E is another URL, with no page"
check_eq 200 "$(code "$U/repo/commit/.gitignore?id=abc")" "a dotfile name with a query"
check_eq 404 "$(code "$U/.cgisnap/manifest")" ".cgisnap/manifest"
check_eq 404 "$(code "$U/.htaccess")" "a raw dotfile of the tree"
check_eq 404 "$(code "$U/repo/.gitignore")" "a raw dotfile deeper down"
check_eq 404 "$(code "$U/.hidden")" "an unlisted dotfile URL"
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
EOF
fetch_all "$U" "$L" "$TESTDIR/serve"
for other in nginx apache; do
	[ "$other" = nginx ] && p=$PN || p=$PA
	try "$other answers dotfile URLs like cgisnap serve"
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
finish
