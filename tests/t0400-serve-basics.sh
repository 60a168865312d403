#!/usr/bin/env bash
# t0400-serve-basics: 'cgisnap serve' speaks HTTP correctly on a tree built
# by hand: mapping, redirects, types, 404 page, HEAD, validators, ranges,
# gzip, methods, Cache-Control.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-serve.sh"

T=$TESTDIR/tree
make_tree "$T"
H=$TESTDIR/headers
B=$TESTDIR/body
# Port 0: the server takes a free port and says which.
serve_start "$T" 0
P=$SERVE_PORT
U=http://127.0.0.1:$P

try "--listen 127.0.0.1:0 takes a free port, named in the 'serving' line"
check_ne 0 "$P" "port"
check_match "$(cat "$TESTDIR/server.err")" "^cgisnap: serving .* on http://127\.0\.0\.1:$P/ " "log line"

try "the front page comes with its headers"
curl -s -D "$H" -o "$B" "$U/"
check_eq "HTTP/1.1 200 OK" "$(head -1 "$H" | tr -d '\r')" "status line"
check_eq "<h1>home</h1>" "$(cat "$B")" "body"
check_eq "text/html; charset=utf-8" "$(header Content-Type "$H")" "Content-Type"
check_eq 14 "$(header Content-Length "$H")" "Content-Length"
check_match "$(header ETag "$H")" '^"[0-9a-f-]+"$' "strong ETag"
check_eq "$(TZ=GMT date -r "$T/index.html" '+%a, %d %b %Y %H:%M:%S GMT')" \
	"$(header Last-Modified "$H")" "Last-Modified is the file's mtime"
check_eq "public, max-age=60" "$(header Cache-Control "$H")" "default Cache-Control"
check_eq "bytes" "$(header Accept-Ranges "$H")" "Accept-Ranges"
check_eq "" "$(header Vary "$H")" "no Vary without a .gz"

try "directory URLs find index.html; no directory listings"
check_eq "page a" "$(curl -s "$U/a/")" "/a/"
check_eq "301 http://localhost/a/" "$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' "$U/a")" \
	"/a (no dot: a directory key) is a 301 to its slash form"
check_eq "deep" "$(curl -s "$U/a/b/c.html")" "deep file"
check_eq 404 "$(code "$U/emptydir/")" "directory without index.html"
check_eq 404 "$(code "$U/docs/")" "directory with files but no index"
check_eq 404 "$(code "$U/a/b/")" "subdirectory without index"

try "query-string URLs map to their keys (doku.php@id=start.html)"
check_eq "wiki start page" "$(curl -s "$U/doku.php?id=start")" "/doku.php?id=start"
check_eq "blog page 2" "$(curl -s "$U/?paged=2")" "/?paged=2"
check_eq 404 "$(code "$U/doku.php?id=other")" "another query is not that file"
check_eq 404 "$(code "$U/doku.php")" "the script name alone is not that file"

try "recorded redirects are replayed, query-string URLs included"
curl -s -D "$H" -o /dev/null "$U/?p=5"
check_match "$(head -1 "$H")" '^HTTP/1.1 301' "301 for /?p=5"
check_eq "http://localhost/2020/05/hello/" "$(header Location "$H")" "Location"
curl -s -D "$H" -o /dev/null "$U/old-page"
check_match "$(head -1 "$H")" '^HTTP/1.1 302' "302 for /old-page"
check_eq "http://localhost/a/" "$(header Location "$H")" "Location of the 302"

try "content types: the manifest's, else by extension"
curl -s -D "$H" -o /dev/null "$U/feed/"
check_eq "application/rss+xml; charset=utf-8" "$(header Content-Type "$H")" "manifest type"
curl -s -D "$H" -o /dev/null "$U/style.css"
check_eq "text/css" "$(header Content-Type "$H")" "manifest type for css"
curl -s -D "$H" -o /dev/null "$U/notes.txt"
check_match "$(header Content-Type "$H")" '^text/plain' "unlisted .txt"
curl -s -D "$H" -o /dev/null "$U/data.json"
check_match "$(header Content-Type "$H")" '^application/json' "unlisted .json"
curl -s -D "$H" -o /dev/null "$U/feed/index.html"
check_match "$(header Content-Type "$H")" '^text/html' "the file by its own name: by extension"

try "missing URLs get the tree's 404 page; 404/410 entries their status"
curl -s -D "$H" -o "$B" "$U/no/such/page"
check_match "$(head -1 "$H")" '^HTTP/1.1 404' "status"
check_eq "<h1>Custom not found</h1>" "$(cat "$B")" "the tree's 404 page"
check_match "$(header Content-Type "$H")" '^text/html' "404 page type"
curl -s -D "$H" -o "$B" "$U/gone"
check_match "$(head -1 "$H")" '^HTTP/1.1 410' "410 from the manifest"
check_eq "<h1>Custom not found</h1>" "$(cat "$B")" "410 body"
check_eq 404 "$(code "$U/deleted")" "404 from the manifest"
check_eq 404 "$(code "$U/failed")" "an entry without a file"

try "HEAD has the headers and no body"
curl -s -I -o "$H" "$U/docs/big.txt"
check_match "$(head -1 "$H")" '^HTTP/1.1 200' "status"
check_eq "$(stat -c %s "$T/docs/big.txt")" "$(header Content-Length "$H")" "Content-Length of the body"
check_ne "" "$(header ETag "$H")" "ETag"
out=$(raw_request "$P" "HEAD /index.html HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
check_contains "$out" "Content-Length: 14" "raw HEAD length"
check_not_contains "$out" "<h1>home" "raw HEAD has no body"
check_eq 404 "$(code "$U/nope" -I)" "HEAD of a missing URL"

try "If-None-Match and If-Modified-Since give 304"
curl -s -D "$H" -o /dev/null "$U/style.css"
etag=$(header ETag "$H")
lm=$(header Last-Modified "$H")
curl -s -D "$H" -H "If-None-Match: $etag" "$U/style.css" >"$B"
check_match "$(head -1 "$H")" '^HTTP/1.1 304' "INM exact"
check_eq 0 "$(stat -c %s "$B")" "304 has no body"
check_eq "$etag" "$(header ETag "$H")" "304 repeats the ETag"
check_eq 304 "$(code "$U/style.css" -H "If-None-Match: W/$etag")" "INM weak form"
check_eq 304 "$(code "$U/style.css" -H "If-None-Match: \"x\", $etag")" "INM list"
check_eq 304 "$(code "$U/style.css" -H "If-None-Match: *")" "INM *"
check_eq 200 "$(code "$U/style.css" -H 'If-None-Match: "other"')" "INM other tag"
check_eq 304 "$(code "$U/style.css" -H "If-Modified-Since: $lm")" "IMS equal"
check_eq 304 "$(code "$U/style.css" -H "If-Modified-Since: $(TZ=GMT date -d '+1 day' '+%a, %d %b %Y %H:%M:%S GMT')")" "IMS later"
check_eq 200 "$(code "$U/style.css" -H 'If-Modified-Since: Sat, 01 Jan 2000 00:00:00 GMT')" "IMS earlier"
check_eq 200 "$(code "$U/style.css" -H 'If-Modified-Since: garbage')" "IMS unreadable"
check_eq 200 "$(code "$U/style.css" -H 'If-None-Match: "other"' -H "If-Modified-Since: $lm")" \
	"If-None-Match wins over If-Modified-Since"
check_eq 304 "$(code "$U/style.css" -I -H "If-None-Match: $etag")" "HEAD with INM"

try "If-Match and If-Unmodified-Since give 412"
check_eq 412 "$(code "$U/style.css" -H 'If-Match: "other"')" "If-Match other"
check_eq 200 "$(code "$U/style.css" -H "If-Match: $etag")" "If-Match same"
check_eq 412 "$(code "$U/style.css" -H 'If-Unmodified-Since: Sat, 01 Jan 2000 00:00:00 GMT')" "IUS earlier"

try "Range gives 206 with Content-Range, 416 when unsatisfiable"
size=$(stat -c %s "$T/docs/big.txt")
curl -s -D "$H" -o "$B" -r 0-9 "$U/docs/big.txt"
check_match "$(head -1 "$H")" '^HTTP/1.1 206' "status"
check_eq "bytes 0-9/$size" "$(header Content-Range "$H")" "Content-Range"
check_eq 10 "$(header Content-Length "$H")" "Content-Length"
check_eq "$(head -c 10 "$T/docs/big.txt")" "$(cat "$B")" "the bytes"
check_eq "" "$(header Content-Encoding "$H")" "ranges are not gzipped"
curl -s -o "$B" -r 100- "$U/docs/big.txt"
check_cmp "$B" <(tail -c +101 "$T/docs/big.txt") "open-ended range"
curl -s -o "$B" -r -20 "$U/docs/big.txt"
check_cmp "$B" <(tail -c 20 "$T/docs/big.txt") "suffix range"
curl -s -o "$B" -H 'Accept-Encoding: gzip' -r 5-14 "$U/docs/big.txt"
check_eq "$(head -c 15 "$T/docs/big.txt" | tail -c 10)" "$(cat "$B")" "range with gzip accepted: identity bytes"
curl -s -D "$H" -o "$B" -r "$size-" "$U/docs/big.txt"
check_match "$(head -1 "$H")" '^HTTP/1.1 416' "416"
check_eq "bytes */$size" "$(header Content-Range "$H")" "416 Content-Range"
check_eq 200 "$(code "$U/docs/big.txt" -r 0-1,5-6)" "several ranges: whole 200"
check_eq 200 "$(code "$U/docs/big.txt" -H 'Range: pages=1-2')" "other unit: 200"
check_eq 206 "$(code "$U/docs/big.txt" -r 0-1 -H "If-Range: $(curl -sI "$U/docs/big.txt" | header ETag /dev/stdin)")" \
	"If-Range with the current ETag"
check_eq 200 "$(code "$U/docs/big.txt" -r 0-1 -H 'If-Range: "old"')" "If-Range with an old ETag"
check_eq 416 "$(code "$U/empty.txt" -r 0-)" "empty file: nothing to range"

try "gzip: the fresh .gz to clients that accept it, with Vary"
curl -s -D "$H" -o "$B" -H 'Accept-Encoding: gzip, deflate' "$U/docs/big.txt"
check_eq gzip "$(header Content-Encoding "$H")" "Content-Encoding"
check_eq "Accept-Encoding" "$(header Vary "$H")" "Vary"
check_eq "$(stat -c %s "$T/docs/big.txt.gz")" "$(header Content-Length "$H")" "length of the .gz"
check_cmp "$B" "$T/docs/big.txt.gz" "the .gz bytes"
check_match "$(header Content-Type "$H")" '^text/plain' "type of the content, not application/gzip"
gz_etag=$(header ETag "$H")
curl -s -D "$H" -o "$B" "$U/docs/big.txt"
check_eq "" "$(header Content-Encoding "$H")" "no Accept-Encoding: plain"
check_eq "Accept-Encoding" "$(header Vary "$H")" "plain also says Vary"
check_cmp "$B" "$T/docs/big.txt" "plain bytes"
check_ne "$gz_etag" "$(header ETag "$H")" "each representation has its own ETag"
check_eq 304 "$(code "$U/docs/big.txt" -H 'Accept-Encoding: gzip' -H "If-None-Match: $gz_etag")" "304 for the gzip ETag"
curl -s -D "$H" -o /dev/null -H 'Accept-Encoding: gzip;q=0, deflate' "$U/docs/big.txt"
check_eq "" "$(header Content-Encoding "$H")" "gzip;q=0 refuses it"
curl -s -D "$H" -o "$B" -H 'Accept-Encoding: gzip' "$U/docs/stale.txt"
check_eq "" "$(header Content-Encoding "$H")" "a stale .gz (other mtime) is ignored"
check_eq "" "$(header Vary "$H")" "no Vary without a fresh .gz"
check_cmp "$B" "$T/docs/stale.txt" "stale: plain bytes"
check_eq 200 "$(code "$U/docs/big.txt.gz")" "the .gz itself is a file like any other"

try "methods other than GET and HEAD: 405 with Allow"
for m in POST PUT DELETE OPTIONS PATCH TRACE; do
	curl -s -D "$H" -o /dev/null -X "$m" "$U/"
	check_match "$(head -1 "$H")" '^HTTP/1.1 405' "$m status"
	check_eq "GET, HEAD" "$(header Allow "$H")" "$m Allow"
done
check_eq 405 "$(code "$U/index.html" --data 'a=1&b=2')" "POST with a body"
check_eq 405 "$(code "$U/no/such" -X PUT)" "PUT to a missing URL"

try "empty files, HTTP/1.0 and absolute-form requests"
curl -s -D "$H" -o "$B" "$U/empty.txt"
check_match "$(head -1 "$H")" '^HTTP/1.1 200' "empty file status"
check_eq 0 "$(header Content-Length "$H")" "empty file length"
out=$(raw_request "$P" "GET /a/ HTTP/1.0\r\n\r\n")
check_match "$out" '^HTTP/1.[01] 200' "HTTP/1.0 request"
check_contains "$out" "page a" "HTTP/1.0 body"
out=$(raw_request "$P" "GET http://localhost/style.css HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
check_contains "$out" "color: red" "absolute-form target"

try "the same file under differently spelled URLs"
check_eq "page a" "$(curl -s --path-as-is "$U/%61/")" "/%61/ is /a/"
check_eq "wiki start page" "$(curl -s "$U/doku.php?id=%73tart")" "%73 in the query"
check_eq "page a" "$(curl -s "$U/a/")" "and the plain spelling again (route cache)"

try "--cache-control sets or drops the header; --cache-mb 0 still serves"
P2=$(port 1)
serve_start "$T" "$P2" --cache-control 'no-cache' --cache-mb 0
curl -s -D "$H" -o "$B" "http://127.0.0.1:$P2/style.css"
check_eq "no-cache" "$(header Cache-Control "$H")" "custom value"
check_eq "body { color: red }" "$(cat "$B")" "body without the memory cache"
check_eq gzip "$(curl -s -D - -o /dev/null -H 'Accept-Encoding: gzip' "http://127.0.0.1:$P2/docs/big.txt" | header Content-Encoding /dev/stdin)" \
	"gzip without the memory cache"
check_eq 206 "$(code "http://127.0.0.1:$P2/docs/big.txt" -r 1-2)" "range without the memory cache"
bg_stop "$SERVE_PID"
P3=$(port 2)
serve_start "$T" "$P3" --cache-control off
curl -s -D "$H" -o /dev/null "http://127.0.0.1:$P3/style.css"
check_eq "" "$(header Cache-Control "$H")" "off: no header"
bg_stop "$SERVE_PID"

try "the server wrote nothing unexpected on stderr"
check_eq "" "$(grep -v '^cgisnap: serving\|^cgisnap: stopped' "$TESTDIR/server.err")" "stderr"

finish
