#!/usr/bin/env bash
# t0420-serve-cache: the in-memory cache never outlives a change of the
# tree: replaced, rewritten, deleted and new files, new directories,
# moved directories, .gz siblings, manifest, settings and 404 page.
# Changes are checked by polling with a bound, never by sleeping.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-serve.sh"

T=$TESTDIR/tree
make_tree "$T"
serve_start "$T" 0
P=$SERVE_PORT
U=http://127.0.0.1:$P

# publish FILE CONTENT: replace FILE by rename, as snapshot and watch do.
publish() {
	local dir=${1%/*}
	[ -d "$dir" ] || mkdir -p "$dir"
	printf '%s' "$2" >"$dir/.tmp-$$"
	mv "$dir/.tmp-$$" "$1"
}

# body_is URL WANT: the body of URL is WANT (for wait_until).
body_is() {
	[ "$(curl -s "$1")" = "$2" ]
}

# code_is URL WANT
code_is() {
	[ "$(code "$1")" = "$2" ]
}

try "a replaced file is served new right after the change"
check_eq "page a" "$(curl -s "$U/a/")" "cached first"
check_eq "page a" "$(curl -s "$U/a/")" "and again from the cache"
publish "$T/a/index.html" "page a, version 2"
# The bound: 2 s. In practice the first or second poll sees it.
start=$(date +%s%N)
wait_until 2 body_is "$U/a/" "page a, version 2" || fail "old bytes still served after 2 s"
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
check_lt "$elapsed_ms" 2000 "milliseconds until the new bytes"
for i in 1 2 3 4 5; do
	check_eq "page a, version 2" "$(curl -s "$U/a/")" "never the old bytes again ($i)"
done

try "a file rewritten in place is served new"
check_eq "plain text" "$(curl -s "$U/notes.txt")" "cached first"
printf 'rewritten in place' >"$T/notes.txt"
wait_until 2 body_is "$U/notes.txt" "rewritten in place" || fail "in-place write not seen"

try "a deleted file is 404 right after"
check_eq 200 "$(code "$U/a/b/c.html")" "cached first"
rm "$T/a/b/c.html"
wait_until 2 code_is "$U/a/b/c.html" 404 || fail "deleted file still served"
check_eq 404 "$(code "$U/a/b/c.html")" "and stays gone"

try "a new file in a new subdirectory is served"
check_eq 404 "$(code "$U/new/dir/page.html")" "missing first"
mkdir -p "$T/new/dir"
publish "$T/new/dir/page.html" "brand new"
wait_until 2 body_is "$U/new/dir/page.html" "brand new" || fail "new file not served"
publish "$T/new/dir/page.html" "brand new, changed"
wait_until 2 body_is "$U/new/dir/page.html" "brand new, changed" ||
	fail "change in the new directory not seen (is it watched?)"
mkdir -p "$T/new2/x/y"
printf 'nested at once' >"$T/new2/x/y/z.html"
wait_until 2 body_is "$U/new2/x/y/z.html" "nested at once" || fail "nested new directories"
publish "$T/new2/x/y/z.html" "nested, changed"
wait_until 2 body_is "$U/new2/x/y/z.html" "nested, changed" || fail "change under nested new directories"

try "a moved directory: old URLs 404, new URLs served and watched"
publish "$T/mv1/page.html" "in mv1"
wait_until 2 body_is "$U/mv1/page.html" "in mv1" || fail "mv1 served"
mv "$T/mv1" "$T/mv2"
wait_until 2 code_is "$U/mv1/page.html" 404 || fail "old directory still served"
check_eq "in mv1" "$(curl -s "$U/mv2/page.html")" "new name"
publish "$T/mv2/page.html" "in mv2, changed"
wait_until 2 body_is "$U/mv2/page.html" "in mv2, changed" || fail "moved directory not watched"

try "a .gz that appears or goes stale is seen"
seq 1 500 >"$T/docs/late.txt"
check_eq "" "$(curl -s -D - -o /dev/null -H 'Accept-Encoding: gzip' "$U/docs/late.txt" | header Content-Encoding /dev/stdin)" \
	"no .gz yet"
gzip -9 -c "$T/docs/late.txt" >"$T/docs/.late.tmp"
touch -d "$(stat -c '%y' "$T/docs/late.txt")" "$T/docs/.late.tmp"
mv "$T/docs/.late.tmp" "$T/docs/late.txt.gz"
gz_is() {
	[ "$(curl -s -D - -o /dev/null -H 'Accept-Encoding: gzip' "$U/docs/late.txt" | header Content-Encoding /dev/stdin)" = "$1" ]
}
wait_until 2 gz_is gzip || fail "new .gz not used"
publish "$T/docs/late.txt" "$(seq 1 600)"
wait_until 2 gz_is "" || fail "a .gz older than its page was still sent"
check_eq "$(seq 1 600)" "$(curl -s -H 'Accept-Encoding: gzip' "$U/docs/late.txt")" "the new plain bytes"

try "manifest changes are picked up: redirects, types, new entries"
check_eq 404 "$(code "$U/moved-later")" "not a redirect yet"
check_match "$(curl -s -D - -o /dev/null "$U/feed/" | header Content-Type /dev/stdin)" '^application/rss' "old type"
# As a writer beside the server would: one transaction (tests/lib.sh).
tree_put "$T" "$(manifest_line /moved-later - 301 - 'http://localhost/a/')" \
	"$(manifest_line /feed/ feed/index.html 200 'application/atom+xml')" \
	"$(manifest_line '/?page_id=7' 'a/index.html' 200 'text/html; charset=utf-8')"
wait_until 2 code_is "$U/moved-later" 301 || fail "new redirect not replayed"
type_is() {
	[ "$(curl -s -D - -o /dev/null "$U/feed/" | header Content-Type /dev/stdin)" = "$1" ]
}
wait_until 2 type_is "application/atom+xml" || fail "new type not used"
check_eq "page a, version 2" "$(curl -s "$U/?page_id=7")" "new entry with a query"

try "settings changes are picked up (the query policy)"
check_eq 404 "$(code "$U/doku.php?zz=1&id=start")" "unsorted query: no such key"
printf 'site-url = http://localhost/\nsort-query = yes\nignore-param = zz\n' >"$T/.cgisnap/.s"
mv "$T/.cgisnap/.s" "$T/.cgisnap/settings"
wait_until 2 body_is "$U/doku.php?zz=1&id=start" "wiki start page" || fail "ignore-param not applied"

try "a new 404 page is used"
check_eq "<h1>Custom not found</h1>" "$(curl -s "$U/nothing-here")" "old page"
printf '<h1>New not found</h1>\n' >"$T/.cgisnap/.n"
mv "$T/.cgisnap/.n" "$T/.cgisnap/404.html"
wait_until 2 body_is "$U/nothing-here" "<h1>New not found</h1>" || fail "new 404 page not used"

try "many files replaced at once are all served new"
# One curl asks for many URLs (one connection, no process per request);
# -w puts a newline after each body.
urls=() v2=""
for i in $(seq 1 50); do
	printf 'v1 %d' "$i" >"$T/docs/m$i.txt"
	urls+=("$U/docs/m$i.txt")
	v2+="v2 $i"$'\n'
done
check_eq "$(seq -f 'v1 %g' 1 50)" "$(curl -s -w '\n' "${urls[@]}")" "the first versions served (and cached)"
for i in $(seq 1 50); do
	publish "$T/docs/m$i.txt" "v2 $i"
done
all_new() { [ "$(curl -s -w '\n' "${urls[@]}")" = "${v2%$'\n'}" ]; }
wait_until 5 all_new || fail "files still old: $(curl -s -w '\n' "${urls[@]}" | grep -c '^v1 ')"

try "readers during rapid replacement see whole versions only"
pad=$(head -c 3000 /dev/zero | tr '\0' x)
publish "$T/race.html" "version 0 $pad"
(
	for v in $(seq 1 60); do
		publish "$T/race.html" "version $v $pad"
	done
) &
writer=$!
# Rounds of 20 requests while the writer runs (at least 6 rounds).
race=()
for i in $(seq 1 20); do race+=("$U/race.html"); done
: >"$TESTDIR/race.out"
rounds=0
while kill -0 "$writer" 2>/dev/null || [ "$rounds" -lt 6 ]; do
	curl -s -w '\n' "${race[@]}" >>"$TESTDIR/race.out"
	rounds=$((rounds + 1))
done
wait "$writer"
check_eq "$((rounds * 20))" "$(wc -l <"$TESTDIR/race.out")" "answers"
check_eq 0 "$(grep -cvE "^version [0-9]+ x{3000}\$" "$TESTDIR/race.out")" "torn or mixed bodies"
wait_until 2 body_is "$U/race.html" "version 60 $pad" || fail "last version not served"

try "a big file (mapped, not read into memory) is served whole, new after a rename or an in-place write"
head -c 3145728 /dev/urandom >"$TESTDIR/big1"
head -c 2097152 /dev/urandom >"$TESTDIR/big2"
cp "$TESTDIR/big1" "$T/docs/.big.tmp" && mv "$T/docs/.big.tmp" "$T/docs/big.bin"
for i in 1 2; do
	curl -s -o "$TESTDIR/got" "$U/docs/big.bin"
	check_cmp "$TESTDIR/big1" "$TESTDIR/got" "request $i"
done
check_eq "bytes 1000-1999/3145728" "$(curl -s -r 1000-1999 -D - -o "$TESTDIR/got" "$U/docs/big.bin" |
	tr -d '\r' | sed -n 's/^Content-Range: //Ip')" "a range's Content-Range"
check_cmp <(tail -c +1001 "$TESTDIR/big1" | head -c 1000) "$TESTDIR/got" "the range's bytes"
cp "$TESTDIR/big2" "$T/docs/.big.tmp" && mv "$T/docs/.big.tmp" "$T/docs/big.bin"
big_is() { curl -s -o "$TESTDIR/got" "$U/docs/big.bin" && cmp -s "$1" "$TESTDIR/got"; }
wait_until 2 big_is "$TESTDIR/big2" || fail "the renamed-in version not served"
cp "$TESTDIR/big1" "$T/docs/big.bin" # in place: truncated, then written
wait_until 2 big_is "$TESTDIR/big1" || fail "the version written in place not served"

try "a big file truncated in place while it is being sent ends that answer only"
head -c 33554432 /dev/zero >"$T/docs/huge.bin"
curl -s -o /dev/null "$U/docs/huge.bin" # cached (mapped) first
# A reader with a small receive buffer holds the answer in the server's
# send buffer; the file shrinks to nothing under it.
got=$(timeout 20 python3 - "$P" "$T/docs/huge.bin" <<'PY'
import os, socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
s.connect(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"GET /docs/huge.bin HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
n = len(s.recv(65536))
os.truncate(sys.argv[2], 0)
while True:
    b = s.recv(1 << 20)
    if not b:
        break
    n += len(b)
print(n)
PY
)
check_eq 0 $? "the reader ended within 20 s (the connection was closed; sendfile left it hanging)"
check_lt "${got:-0}" 33554432 "bytes received of 32 MiB ($got)"
kill -0 "$SERVE_PID"
check_eq 0 $? "serve is still running"
check_eq 200 "$(code "$U/a/")" "and answers"
wait_until 2 code_is "$U/docs/huge.bin" 200 || fail "the truncated file not served"
check_eq 0 "$(curl -s "$U/docs/huge.bin" | wc -c)" "the truncated file's new length"

try "a small cache (--cache-mb 1) evicts without serving wrong bytes"
P2=$(port 1)
serve_start "$T" "$P2" --cache-mb 1
for i in $(seq 1 40); do
	head -c 20000 /dev/zero | tr '\0' "$((i % 10))" >"$T/docs/e$i.bin"
done
# Every body, in order, twice (the second round after evictions), is
# the files' bytes.
evict=()
for i in $(seq 1 40); do evict+=("http://127.0.0.1:$P2/docs/e$i.bin"); done
for round in 1 2; do
	cmp -s <(curl -s "${evict[@]}") <(cd "$T/docs" && cat $(printf 'e%d.bin ' $(seq 1 40)))
	check_eq 0 $? "round $round: the bodies are the files' bytes"
done
bg_stop "$SERVE_PID"

finish
