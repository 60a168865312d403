#!/usr/bin/env bash
# t0370-snapshot-big: a page far larger than memory should hold is streamed
# to the tree (peak RSS stays small) through every origin, stored byte for
# byte with its sha256 and a .gz that decompresses to it; pages over
# --max-parse are stored but their links are not followed; an HTTP origin
# that gzips its answers regardless is decoded before storing.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-serve.sh"

SITE=$TESTDIR/site
SESS=$TESTDIR/sessions
mkdir -p "$SITE" "$SESS"
MB=128
BYTES=$((MB * 1048576))
LINE='<p>a line of a very big page <a href="/linked.html">a link</a></p>'

# The big page's bytes, for comparison: the origins all write these.
yes "$LINE" | head -c "$BYTES" >"$TESTDIR/expected"
EXPECTED_SHA=$(sha256sum "$TESTDIR/expected" | cut -d' ' -f1)

printf '#!/bin/sh\nprintf "Content-Type: text/html\\r\\n\\r\\n"\nyes %s | head -c %s\n' \
	"'$LINE'" "$BYTES" >"$SITE/big.cgi"
chmod +x "$SITE/big.cgi"
cp -p "$SITE/big.cgi" "$SITE/big.cgi.orig"
printf '#!/bin/sh\nprintf "Content-Type: text/html\\n\\n<p>tiny <a href=\\"/linked.html\\">x</a></p>\\n"\n' \
	>"$SITE/tiny.cgi"
chmod +x "$SITE/tiny.cgi"
cat >"$SITE/big.php" <<PHP
<?php
header('Content-Type: text/html');
\$chunk = str_repeat('$LINE' . "\n", 4096);
for (\$left = $BYTES; \$left > 0; \$left -= strlen(\$s)) {
	\$s = strlen(\$chunk) <= \$left ? \$chunk : substr(\$chunk, 0, \$left);
	echo \$s;
}
PHP
printf '<?php header("Content-Type: text/html"); echo "<p>tiny</p>\\n";\n' >"$SITE/tiny.php"
printf '<p>linked</p>\n' >"$SITE/linked.html"
cp "$TESTDIR/expected" "$SITE/big.txt"

# An HTTP origin (python3) that sends the big page, and pages compressed
# whatever the request's Accept-Encoding said.
cat >"$TESTDIR/server.py" <<PY
import http.server, os, sys, zlib, gzip
LINE = b'$LINE\n'
BYTES = $BYTES
PAGE = b'<html><body><p>compressed page</p>' + b'<p>padding</p>' * 200 + \
    b'<a href="/linked.html">a link</a></body></html>\n'
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == '/big.html':
            self.send_response(200)
            self.send_header('Content-Type', 'text/html')
            self.send_header('Content-Length', str(BYTES))
            self.end_headers()
            chunk = LINE * 16384
            left = BYTES
            while left > 0:
                part = chunk[:left]
                self.wfile.write(part)
                left -= len(part)
            return
        if self.path in ('/gzip.html', '/deflate.html'):
            body = gzip.compress(PAGE) if self.path == '/gzip.html' else zlib.compress(PAGE)
            self.send_response(200)
            self.send_header('Content-Type', 'text/html')
            self.send_header('Content-Encoding', 'gzip' if self.path == '/gzip.html' else 'deflate')
            self.send_header('Content-Length', str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        body = b'<p>linked</p>\n' if self.path in ('/', '/linked.html') else b'Not Found\n'
        self.send_response(200 if self.path in ('/', '/linked.html') else 404)
        self.send_header('Content-Type', 'text/html')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
with open('$TESTDIR/page', 'wb') as f:
    f.write(PAGE)
server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), H)
with open(sys.argv[1] + '.tmp', 'w') as f:
    f.write(str(server.server_address[1]))
os.rename(sys.argv[1] + '.tmp', sys.argv[1])
server.serve_forever()
PY

# peak_kib OUT_FILE CMD...: run CMD, its peak RSS in KiB into OUT_FILE;
# returns CMD's status.
peak_kib() {
	local out=$1
	shift
	/usr/bin/time -f %M -o "$out" "$@"
}

# check_big_file OUT KEY TARGET: KEY holds the big page's bytes, its .gz
# decompresses to them, and the manifest's size and sha256 agree.
check_big_file() {
	local out=$1 key=$2 target=$3
	check_cmp "$TESTDIR/expected" "$out/$key" "stored bytes"
	check_eq "$EXPECTED_SHA" "$(manifest_field "$out" "$target" 6)" "manifest sha256"
	check_eq "$BYTES" "$(manifest_field "$out" "$target" 5)" "manifest bytes"
	check_eq "$EXPECTED_SHA" "$(gzip -dc "$out/$key.gz" | sha256sum | cut -d' ' -f1)" ".gz contents"
	check_eq "" "$(find "$out" -name '.cgisnap-tmp-*')" "temporary files left"
}

manifest_field() {
	awk -F'\t' -v t="$2" -v c="$3" '$1 == t { print $c }' <("$CGISNAP" ls "$1")
}

# check_peak BASE_FILE BIG_FILE: the big render's peak RSS stayed within a
# quarter of the page's size above the tiny page's. Not under the
# sanitizers, whose shadow memory and quarantine dwarf both.
check_peak() {
	[ "${SANITIZE:-}" = 1 ] && return 0
	local base big
	base=$(tail -1 "$1") big=$(tail -1 "$2")
	check_lt "$big" "$((base + BYTES / 4 / 1024))" "peak RSS in KiB (tiny page: $base KiB, page: $((BYTES / 1024)) KiB)"
}

try "CGI: a $MB MiB page is stored whole with a small peak RSS; its links are not parsed"
peak_kib "$TESTDIR/rss-tiny" "$CGISNAP" snapshot -q --root "$SITE" --max-output 1024 --seed /tiny.cgi \
	--max-depth 0 "$TESTDIR/tiny-cgi" 2>"$TESTDIR/err"
check_eq 0 $? "tiny page: exit status"
peak_kib "$TESTDIR/rss-big" "$CGISNAP" snapshot -v --root "$SITE" --max-output 1024 --seed /big.cgi \
	"$TESTDIR/cgi" 2>"$TESTDIR/err"
check_eq 0 $? "exit status ($(tail -3 "$TESTDIR/err"))"
check_big_file "$TESTDIR/cgi" big.cgi /big.cgi
check_peak "$TESTDIR/rss-tiny" "$TESTDIR/rss-big"
check_eq "" "$(manifest_field "$TESTDIR/cgi" /linked.html 1)" "links of a page over --max-parse not followed"
check_match "$(cat "$TESTDIR/err")" "/big\.cgi.*not parsed.*--max-parse" "-v says why links were not parsed"

try "CGI: the same page again is unchanged and not rewritten"
before=$(stat -c %Y.%y "$TESTDIR/cgi/big.cgi" "$TESTDIR/cgi/big.cgi.gz")
"$CGISNAP" snapshot --root "$SITE" --max-output 1024 --seed /big.cgi "$TESTDIR/cgi" 2>"$TESTDIR/err"
check_eq 0 $? "exit status"
check_contains "$(cat "$TESTDIR/err")" "0 new, 0 changed, 1 unchanged" "summary"
check_eq "$before" "$(stat -c %Y.%y "$TESTDIR/cgi/big.cgi" "$TESTDIR/cgi/big.cgi.gz")" "mtimes"

try "CGI: a changed big page is rewritten; the body waits in the tree's .cgisnap, not in \$TMPDIR"
printf 'x' >>"$TESTDIR/expected"
BYTES=$((BYTES + 1)) EXPECTED_SHA=$(sha256sum "$TESTDIR/expected" | cut -d' ' -f1)
printf '#!/bin/sh\nprintf "Content-Type: text/html\\r\\n\\r\\n"\n{ yes %s | head -c %s; printf x; }\n' \
	"'$LINE'" "$((BYTES - 1))" >"$SITE/big.cgi"
meta_before=$(ls -A "$TESTDIR/cgi/.cgisnap")
TMPDIR=$TESTDIR/no-such-dir "$CGISNAP" snapshot --root "$SITE" --max-output 1024 --seed /big.cgi \
	"$TESTDIR/cgi" 2>"$TESTDIR/err"
check_eq 0 $? "exit status ($(tail -3 "$TESTDIR/err"))"
check_eq "$meta_before" "$(ls -A "$TESTDIR/cgi/.cgisnap")" "files in .cgisnap"
check_contains "$(cat "$TESTDIR/err")" "0 new, 1 changed, 0 unchanged" "summary"
check_big_file "$TESTDIR/cgi" big.cgi /big.cgi
head -c "$((BYTES - 1))" "$TESTDIR/expected" >"$TESTDIR/expected.tmp" && mv "$TESTDIR/expected.tmp" "$TESTDIR/expected"
BYTES=$((MB * 1048576)) EXPECTED_SHA=$(sha256sum "$TESTDIR/expected" | cut -d' ' -f1)
cp "$SITE/big.cgi.orig" "$SITE/big.cgi"

try "serve --fallback --fill: a $MB MiB page the tree lacks is sent and stored, RSS stays small"
cp "$SITE/big.cgi" "$SITE/other.cgi"
p=$(port 3)
TMPDIR=$TESTDIR/no-such-dir serve_start "$TESTDIR/cgi" "$p" --fallback --fill --root "$SITE" --max-output 1024
check_eq 200 "$(code "http://127.0.0.1:$p/tiny.cgi")" "a tiny page first"
base=$(awk '/^VmHWM/ { print $2 }' "/proc/$SERVE_PID/status")
curl -s -o "$TESTDIR/fetched" "http://127.0.0.1:$p/other.cgi"
check_cmp "$TESTDIR/expected" "$TESTDIR/fetched" "the answer"
check_cmp "$TESTDIR/expected" "$TESTDIR/cgi/other.cgi" "the stored file"
if [ "${SANITIZE:-}" != 1 ]; then
	peak=$(awk '/^VmHWM/ { print $2 }' "/proc/$SERVE_PID/status")
	check_lt "$peak" "$((base + BYTES / 4 / 1024))" "serve's peak RSS in KiB (before: $base KiB)"
fi
bg_stop "$SERVE_PID"
check_eq "$EXPECTED_SHA" "$(manifest_field "$TESTDIR/cgi" /other.cgi 6)" "manifest sha256 (saved at exit)"

try "--max-parse: a small page over it is stored, its links not followed; raised, they are"
"$CGISNAP" snapshot -v --root "$SITE" --seed /tiny.cgi --max-parse 10 "$TESTDIR/parse" 2>"$TESTDIR/err"
check_eq 0 $? "exit status"
check_file "$TESTDIR/parse/tiny.cgi" "page stored"
check_eq "" "$(manifest_field "$TESTDIR/parse" /linked.html 1)" "link not followed"
check_match "$(cat "$TESTDIR/err")" "/tiny\.cgi.*not parsed.*--max-parse" "-v line"
"$CGISNAP" snapshot --root "$SITE" --seed /tiny.cgi --max-parse 1000 "$TESTDIR/parse" 2>"$TESTDIR/err"
check_eq 0 $? "exit status"
check_eq "/linked.html" "$(manifest_field "$TESTDIR/parse" /linked.html 1)" "link followed"

try "a $MB MiB static file under --root is copied with a small peak RSS"
peak_kib "$TESTDIR/rss-big" "$CGISNAP" snapshot -q --root "$SITE" --max-output 1024 --seed /big.txt \
	"$TESTDIR/static" 2>"$TESTDIR/err"
check_eq 0 $? "exit status ($(tail -3 "$TESTDIR/err"))"
check_big_file "$TESTDIR/static" big.txt /big.txt
check_peak "$TESTDIR/rss-tiny" "$TESTDIR/rss-big"
"$CGISNAP" snapshot --root "$SITE" --max-output 1024 --seed /big.txt "$TESTDIR/static" 2>"$TESTDIR/err"
check_contains "$(cat "$TESTDIR/err")" "0 new, 0 changed, 1 unchanged" "second run: unchanged"

try "FastCGI (php-cgi -b): a $MB MiB page is stored whole with a small peak RSS"
p=$(port 1)
(cd "$SITE" && PHP_FCGI_CHILDREN=1 PHP_FCGI_MAX_REQUESTS=0 exec php-cgi -b "127.0.0.1:$p" \
	-d session.save_path="$SESS" >/dev/null 2>&1) &
BG_PID=$!
_bg_pids="$_bg_pids $BG_PID"
wait_port "$p" || fail "php-cgi -b did not start"
peak_kib "$TESTDIR/rss-tiny" "$CGISNAP" snapshot -q --fastcgi "127.0.0.1:$p" --root "$SITE" \
	--max-output 1024 --seed /tiny.php "$TESTDIR/tiny-fcgi" 2>"$TESTDIR/err"
check_eq 0 $? "tiny page: exit status"
peak_kib "$TESTDIR/rss-big" "$CGISNAP" snapshot -q --fastcgi "127.0.0.1:$p" --root "$SITE" \
	--max-output 1024 --seed /big.php "$TESTDIR/fcgi" 2>"$TESTDIR/err"
check_eq 0 $? "exit status ($(tail -3 "$TESTDIR/err"))"
check_big_file "$TESTDIR/fcgi" big.php /big.php
check_peak "$TESTDIR/rss-tiny" "$TESTDIR/rss-big"
bg_stop "$BG_PID"

try "HTTP: a $MB MiB page is stored whole with a small peak RSS"
# The server takes a port the kernel knows is free and writes it down: a
# port of the test's range may be some client socket's between port() and
# bind() (they are in the ephemeral range).
bg_start python3 "$TESTDIR/server.py" "$TESTDIR/http-port"
HTTP_PID=$BG_PID
wait_until 10 test -s "$TESTDIR/http-port" || fail "the python3 server did not start"
p=$(cat "$TESTDIR/http-port" 2>/dev/null)
peak_kib "$TESTDIR/rss-tiny" "$CGISNAP" snapshot -q --origin "http://127.0.0.1:$p/" --max-output 1024 \
	--seed /linked.html "$TESTDIR/tiny-http" 2>"$TESTDIR/err"
check_eq 0 $? "tiny page: exit status"
TMPDIR=$TESTDIR/no-such-dir peak_kib "$TESTDIR/rss-big" "$CGISNAP" snapshot -q --origin "http://127.0.0.1:$p/" \
	--max-output 1024 --seed /big.html --max-depth 0 "$TESTDIR/http" 2>"$TESTDIR/err"
check_eq 0 $? "exit status ($(tail -3 "$TESTDIR/err"))"
check_big_file "$TESTDIR/http" big.html /big.html
check_peak "$TESTDIR/rss-tiny" "$TESTDIR/rss-big"

try "HTTP: a gzip or deflate Content-Encoding is decoded, then stored and recompressed"
"$CGISNAP" snapshot --origin "http://127.0.0.1:$p/" --seed /gzip.html --seed /deflate.html \
	"$TESTDIR/gz" 2>"$TESTDIR/err"
check_eq 0 $? "exit status ($(tail -3 "$TESTDIR/err"))"
for f in gzip.html deflate.html; do
	check_cmp "$TESTDIR/page" "$TESTDIR/gz/$f" "$f: stored bytes are the decoded page"
	check_eq "$(sha256sum <"$TESTDIR/page")" "$(gzip -dc "$TESTDIR/gz/$f.gz" | sha256sum)" "$f.gz"
	check_eq "text/html" "$(manifest_field "$TESTDIR/gz" "/$f" 4)" "$f: content type"
done
check_eq "/linked.html" "$(manifest_field "$TESTDIR/gz" /linked.html 1)" "links of the decoded page followed"
bg_stop "$HTTP_PID"

finish
