#!/usr/bin/env bash
# t0440-serve-fallback: --fallback renders what the tree lacks through the
# origin (one render for many concurrent requests), --fill stores it,
# --dynamic renders everything. The origin is a shell CGI fixture that
# counts its renders.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-serve.sh"

# The front controller renders every URL without a file under the root:
# it records the render, sleeps so that concurrent requests overlap, and
# answers according to the path.
fallback_origin <<'EOF'
case "$REQUEST_URI" in
/slow/*) sleep 0.5 ;;
esac
case "$REQUEST_URI" in
/missing/*)
	printf 'Status: 404 Not Found\r\nContent-Type: text/html\r\n\r\n<h1>origin 404</h1>\n' ;;
/redirect)
	printf 'Status: 301 Moved Permanently\r\nLocation: http://localhost/a/\r\n\r\n' ;;
/broken)
	exit 3 ;;
/big/*)
	printf 'Content-Type: text/html; charset=utf-8\r\n\r\n'
	seq 1 2000 ;;
*)
	printf 'Content-Type: text/html; charset=utf-8\r\nSet-Cookie: session=secret\r\nX-Custom: kept\r\nCache-Control: private\r\n\r\n'
	printf '<h1>rendered %s</h1>\n' "$REQUEST_URI" ;;
esac
EOF
H=$TESTDIR/h

try "--fallback: a URL the tree lacks comes from the origin, Set-Cookie stripped"
serve_start "$T" "$P" --fallback "${ORIGIN[@]}"
curl -s -D "$H" -o "$TESTDIR/b" "$U/blog/post-1"
check_match "$(head -1 "$H")" '^HTTP/1.1 200' "status"
check_eq "<h1>rendered /blog/post-1</h1>" "$(cat "$TESTDIR/b")" "body"
check_eq "text/html; charset=utf-8" "$(header Content-Type "$H")" "Content-Type passed"
check_eq "kept" "$(header X-Custom "$H")" "other headers passed"
check_eq "private" "$(header Cache-Control "$H")" "the origin's Cache-Control"
check_eq "" "$(header Set-Cookie "$H")" "Set-Cookie stripped"
check_eq 1 "$(renders /blog/post-1)" "one render"

try "--fallback passes the origin's status and Location, and 502 on failure"
curl -s -D "$H" -o "$TESTDIR/b" "$U/missing/x"
check_match "$(head -1 "$H")" '^HTTP/1.1 404' "404 from the origin"
check_eq "<h1>origin 404</h1>" "$(cat "$TESTDIR/b")" "its body"
curl -s -D "$H" -o /dev/null "$U/redirect"
check_match "$(head -1 "$H")" '^HTTP/1.1 301' "301 from the origin"
check_eq "http://localhost/a/" "$(header Location "$H")" "Location passed"
check_eq 502 "$(code "$U/broken")" "a failing render"
check_eq 200 "$(code "$U/")" "still serving"

try "--fallback never renders what the tree has (files, redirects, 410)"
: >"$COUNT"
check_eq "page a" "$(curl -s "$U/a/")" "tree file"
check_eq 301 "$(code "$U/?p=5")" "tree redirect"
check_eq 410 "$(code "$U/gone")" "tree 410"
check_eq 404 "$(code "$U/.htpasswd")" "dotfiles are not passed on either"
check_eq 400 "$(code "$U/%2e%2e/x" --path-as-is)" "nor hostile paths"
check_eq 0 "$(wc -l <"$COUNT")" "no render"
bg_stop "$SERVE_PID"

try "--fill: 20 concurrent requests for one missing URL, exactly one render"
: >"$COUNT"
serve_start "$T" "$P" --fallback --fill --threads 8 "${ORIGIN[@]}"
pids=""
for i in $(seq 1 20); do
	curl -s -o "$TESTDIR/c$i" -w '%{http_code}' "$U/slow/page" >"$TESTDIR/code$i" &
	pids="$pids $!"
done
for p in $pids; do
	wait "$p"
done
check_eq 1 "$(renders /slow/page)" "renders of /slow/page"
same=0 odd=""
for i in $(seq 1 20); do
	if [ "$(cat "$TESTDIR/code$i")" = 200 ] && [ "$(cat "$TESTDIR/c$i")" = "<h1>rendered /slow/page</h1>" ]; then
		same=$((same + 1))
	else
		odd="$odd client $i: $(cat "$TESTDIR/code$i") '$(head -c 200 "$TESTDIR/c$i" 2>/dev/null)';"
	fi
done
check_eq 20 "$same" "clients with the rendered page${odd:+ (others:$odd)}"

try "--fill stored the page in the tree and the manifest"
check_eq "<h1>rendered /slow/page</h1>" "$(cat "$T/slow/page/index.html" 2>/dev/null)" "the stored file"
in_manifest() {
	grep -q "^/slow/page	slow/page/index.html	200	text/html; charset=utf-8	" <("$CGISNAP" ls "$T")
}
wait_until 5 in_manifest || fail "manifest line not written"
check_eq 1 "$(renders /slow/page)" "still one render"
check_eq "<h1>rendered /slow/page</h1>" "$(curl -s "$U/slow/page")" "served from the tree now"
check_eq 1 "$(renders /slow/page)" "and no new render"
curl -s -o /dev/null "$U/big/one"
check_file "$T/big/one/index.html" "a bigger page"
check_file "$T/big/one/index.html.gz" "its .gz (compressible, over 1 KiB)"
check_eq gzip "$(curl -s -D - -o /dev/null -H 'Accept-Encoding: gzip' "$U/big/one" | header Content-Encoding /dev/stdin)" \
	"and served gzipped from the tree"
curl -s -o /dev/null "$U/blog/q?x=1&y=2"
check_file "$T/blog/q@x=1&y=2.html" "a query-string page under its key"
curl -s -o /dev/null "$U/missing/y"
check_no_file "$T/missing/y/index.html" "a 404 is not stored"
curl -s -o /dev/null "$U/redirect"
check_no_file "$T/redirect/index.html" "a redirect is not stored"

try "--fill takes the tree's lock: a second writer is refused, the manifest stays whole"
err=$(timeout 10 "$CGISNAP" serve "$T" --listen "127.0.0.1:$(port 1)" --fallback --fill "${ORIGIN[@]}" 2>&1 >/dev/null)
check_eq 75 "$?" "exit status"
check_match "$err" "is locked by another cgisnap \(pid $SERVE_PID\)" "message"
bg_stop "$SERVE_PID"
check_eq 0 "$?" "the filling server stops cleanly"
check_eq "" "$(awk -F'\t' 'NF != 9 && !/^#/' <("$CGISNAP" ls "$T"))" "every manifest line has 9 fields"
for t in /slow/page /big/one '/blog/q?x=1&y=2' / '/?p=5'; do
	check_eq 1 "$(awk -F'\t' -v t="$t" '$1 == t' <("$CGISNAP" ls "$T") | wc -l)" "manifest has $t once"
done

try "the stored pages survive a restart without --fallback"
serve_start "$T" "$P"
check_eq "<h1>rendered /slow/page</h1>" "$(curl -s "$U/slow/page")" "stored page"
check_eq "<h1>rendered /blog/q?x=1&y=2</h1>" "$(curl -s "$U/blog/q?x=1&y=2")" "stored query page"
bg_stop "$SERVE_PID"

try "--fill: a request while the page is renamed into place but not yet recorded waits for the render"
# The fault library holds the render thread just after the page's rename:
# the file is there, its entry not yet. The unlisted "/x" of a file
# x/index.html is otherwise answered with a 301 to "/x/".
SHIM=$TESTDIR/faultshim.so
"${CC:-cc}" -O1 -shared -fPIC -o "$SHIM" "$ROOT/tests/fixtures/faults/faultshim.c" -ldl ||
	fail "the fault library did not build"
HOLD=$TESTDIR/hold
mkdir -p "$HOLD"
T2=$TESTDIR/hold-tree
make_tree "$T2"
: >"$COUNT"
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 LD_PRELOAD=$SHIM \
	FAULT_HOLD_RENAME=/held/page/index.html FAULT_HOLD_DIR=$HOLD serve_start "$T2" "$P" --fallback --fill -v \
	"${ORIGIN[@]}"
curl -s -o "$TESTDIR/held1" -w '%{http_code}' "$U/held/page" >"$TESTDIR/held1.code" &
first=$!
wait_until 20 test -e "$HOLD/held"
check_eq 0 $? "the first request's page was renamed into place"
seen=$(grep -c '' "$TESTDIR/server.err")
curl -s -o "$TESTDIR/held2" -w '%{http_code}' "$U/held/page" >"$TESTDIR/held2.code" &
second=$!
_joined() { tail -n "+$((seen + 1))" "$TESTDIR/server.err" | grep -q "'/held/page': waiting for the render under way"; }
wait_until 20 _joined
check_eq 0 $? "the request made meanwhile waits for the render ($(cat "$TESTDIR/held2.code" 2>/dev/null))"
touch "$HOLD/go"
wait "$first" "$second"
check_eq "200 <h1>rendered /held/page</h1>" "$(cat "$TESTDIR/held1.code") $(cat "$TESTDIR/held1")" "the first request"
check_eq "200 <h1>rendered /held/page</h1>" "$(cat "$TESTDIR/held2.code") $(cat "$TESTDIR/held2")" \
	"the request made meanwhile: the page, not a redirect"
check_eq 1 "$(renders /held/page)" "one render"
bg_stop "$SERVE_PID"

try "--dynamic: every request goes to the origin, DIR may be omitted"
: >"$COUNT"
bg_start "$CGISNAP" serve --dynamic --listen "127.0.0.1:$P" "${ORIGIN[@]}" 2>>"$TESTDIR/server.err"
SERVE_PID=$BG_PID
wait_port "$P" 10 || fail "dynamic server did not start"
for i in 1 2 3; do
	check_eq "<h1>rendered /a/</h1>" "$(curl -s "$U/a/")" "rendered ($i)"
done
check_eq 3 "$(renders /a/)" "three requests, three renders"
curl -s -D "$H" -o /dev/null "$U/a/"
check_eq "" "$(header Set-Cookie "$H")" "Set-Cookie stripped"
check_eq 405 "$(code "$U/a/" -X POST)" "only GET and HEAD"
check_eq 404 "$(code "$U/.htpasswd")" "dotfiles refused before the origin"
bg_stop "$SERVE_PID"
check_eq 0 "$?" "exit status"

try "--fill stores what a crawl would: no page robots.txt disallows (it is still answered)"
printf 'User-agent: *\nDisallow: /private/\n' >"$DOC/robots.txt"
T=$TESTDIR/robots-tree
make_tree "$T"
serve_start "$T" "$P" --fallback --fill "${ORIGIN[@]}"
check_eq "<h1>rendered /private/page</h1>" "$(curl -s "$U/private/page")" "a disallowed page answered"
check_eq "<h1>rendered /public/page</h1>" "$(curl -s "$U/public/page")" "an allowed one"
check_file "$T/public/page/index.html" "the allowed page stored"
check_no_file "$T/private/page/index.html" "the disallowed page not stored"
curl -s -o /dev/null "$U/private/page"
check_eq 2 "$(renders /private/page)" "rendered again on the next request: not in the tree"
bg_stop "$SERVE_PID"
check_eq "" "$("$CGISNAP" ls "$T" | grep private)" "nor in the manifest"
rm "$DOC/robots.txt"

try "--fill refuses a tree inside --root or a mounted directory, as snapshot does"
make_tree "$DOC/snap"
before=$(cd "$DOC/snap" && find . -type f ! -name lock | sort | xargs sha256sum)
err=$(timeout 10 "$CGISNAP" serve "$DOC/snap" --listen "127.0.0.1:$(port 1)" --fallback --fill \
	"${ORIGIN[@]}" 2>&1 >/dev/null)
check_eq 2 "$?" "exit status"
check_contains "$err" "the tree '$DOC/snap' is inside the document root '$DOC'" "the message"
mkdir -p "$TESTDIR/lib"
make_tree "$TESTDIR/lib/snap"
err=$(timeout 10 "$CGISNAP" serve "$TESTDIR/lib/snap" --listen "127.0.0.1:$(port 1)" --fallback --fill \
	"${ORIGIN[@]}" --path-alias "/lib=$TESTDIR/lib" 2>&1 >/dev/null)
check_eq 2 "$?" "a mounted directory: exit status"
check_contains "$err" "is inside the mounted directory" "a mounted directory: the message"
check_eq "$before" "$(cd "$DOC/snap" && find . -type f ! -name lock | sort | xargs sha256sum)" "the tree is untouched (but its lock)"

finish
