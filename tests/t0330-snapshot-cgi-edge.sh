#!/usr/bin/env bash
# t0330-snapshot-cgi-edge: CGI programs that misbehave each give their own
# clear error for their URL, while every other page is stored.
. "$(dirname "$0")/lib.sh"

SITE=$TESTDIR/site
OUT=$TESTDIR/out
mkdir -p "$SITE/sub"

cat >"$SITE/index.html" <<'HTML'
<html><head><title>edge cases</title><link rel="stylesheet" href="/style.css"></head><body>
<a href="/good.cgi">good</a> <a href="/crash.cgi">crash</a> <a href="/hang.cgi">hang</a>
<a href="/garbage.cgi">garbage</a> <a href="/notype.cgi">no type</a> <a href="/huge.cgi">huge</a>
<a href="/local.cgi">local redirect</a> <a href="/loop.cgi">loop</a> <a href="/latin1.cgi">bytes</a>
<a href="/broken.cgi">broken html</a> <a href="/fail.cgi">exit 3</a> <a href="/sub">dir without slash</a>
<a href="/error.cgi">500</a> <a href="/missing.html">missing</a> <a href="/splitcr.cgi">bare CR</a>
</body></html>
HTML
printf 'body { background: url(/bg.png) }\n' >"$SITE/style.css"
printf '\x89PNG\r\n\x1a\n' >"$SITE/bg.png"
printf '<p>sub index</p>\n' >"$SITE/sub/index.html"
cgi good.cgi 'printf "Content-Type: text/html\n\n<p>good page</p>\n"'
cgi crash.cgi 'printf "Content-Type: text/html\n\n<p>half a pa"; kill -SEGV $$'
cgi hang.cgi 'printf "Content-Type: text/html\n\n"; exec sleep 30'
cgi garbage.cgi 'printf "this is not a header\n\n<p>body</p>\n"'
cgi notype.cgi 'printf "X-Powered-By: sh\n\n<p>a body without a type</p>\n"'
cgi huge.cgi 'printf "Content-Type: text/plain\n\n"; exec yes xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'
cgi local.cgi 'printf "Location: /good.cgi\n\n"'
cgi loop.cgi 'printf "Location: /loop.cgi\n\n"'
cgi latin1.cgi 'printf "Content-Type: text/html; charset=ISO-8859-1\n\n<p>caf\351 \377\376 na\357ve</p>\n"'
cgi broken.cgi 'printf "Content-Type: text/html\n\n<html><body><div><p><table><tr><td><a href=/from-broken.html>x<b><i></div></table><a href=\"/also-broken.html\"\n"'
cgi fail.cgi 'printf "Content-Type: text/html\n\n<p>looks fine</p>\n"; exit 3'
# A bare CR in a header: a client would read two headers from it.
cgi splitcr.cgi 'printf "Content-Type: text/html\rSet-Cookie: evil=1\n\n<p>split</p>\n"'
cgi error.cgi 'printf "Status: 500 Internal Server Error\nContent-Type: text/html\n\n<p>oops</p>\n"'
printf '<p>found from broken html</p>\n' >"$SITE/from-broken.html"
printf '<p>also found</p>\n' >"$SITE/also-broken.html"

try "each misbehaving program fails its own URL; the run exits 1"
"$CGISNAP" snapshot --root "$SITE" --timeout 2 --max-output 1 -j 2 "$OUT" 2>"$TESTDIR/err"
check_eq 1 $? "exit status"
err=$(cat "$TESTDIR/err")
check_contains "$err" "failed: /crash.cgi: killed by signal 11 (SIGSEGV)" "crash"
check_contains "$err" "failed: /hang.cgi: timed out after 2 s" "hang"
check_contains "$err" "failed: /garbage.cgi: malformed header from script: 'this is not a header'" "garbage headers"
check_contains "$err" "failed: /notype.cgi: no Content-Type" "no Content-Type"
check_contains "$err" "skipped 1 response over --max-output 1 MiB (e.g. /huge.cgi)" "output cap: skipped, not failed"
check_contains "$err" "failed: /loop.cgi: local redirect loop" "redirect loop"
check_contains "$err" "warning: /fail.cgi: the CGI program exited with status 3 after a complete response" \
	"non-zero exit after a complete response: a warning, not a failure (RFC 3875)"
check_contains "$err" "failed: /error.cgi: HTTP status 500" "status 500"
check_contains "$err" "failed: /splitcr.cgi: malformed header from script: 'Content-Type: text/html\x0dSet-Cookie: evil=1'" \
	"a bare CR in a header line"
check_eq 7 "$(grep -c 'failed: ' "$TESTDIR/err")" "number of failed URLs"

try "the other pages are stored as the programs wrote them"
check_eq "<p>good page</p>" "$(cat "$OUT/good.cgi" 2>/dev/null)" "good.cgi"
check_eq "<p>good page</p>" "$(cat "$OUT/local.cgi" 2>/dev/null)" "local redirect served the target's body"
check_eq "<p>looks fine</p>" "$(cat "$OUT/fail.cgi" 2>/dev/null)" "a complete response before exit 3 is stored"
printf '<p>caf\351 \377\376 na\357ve</p>\n' >"$TESTDIR/latin1"
check_cmp "$TESTDIR/latin1" "$OUT/latin1.cgi" "non-UTF-8 bytes kept exactly"
check_file "$OUT/from-broken.html" "link inside malformed HTML"
check_file "$OUT/also-broken.html" "link after the damage"
check_file "$OUT/bg.png" "image named by the stylesheet"
check_file "$OUT/sub/index.html" "directory index"

try "failed URLs leave no file, and what was published before stays"
for f in crash.cgi hang.cgi garbage.cgi notype.cgi huge.cgi loop.cgi error.cgi splitcr.cgi; do
	check_no_file "$OUT/$f" "$f"
done
check_eq "" "$(find "$OUT" -name '.cgisnap-tmp-*')" "temporary files"

try "a redirect and a 404 are recorded in the manifest"
check_eq "301" "$(awk -F'\t' '$1 == "/sub" { print $3 }' <("$CGISNAP" ls "$OUT"))" "directory redirect status"
check_eq "http://localhost/sub/" "$(awk -F'\t' '$1 == "/sub" { print $9 }' <("$CGISNAP" ls "$OUT"))" "redirect target"
check_eq "404" "$(awk -F'\t' '$1 == "/missing.html" { print $3 }' <("$CGISNAP" ls "$OUT"))" "404 recorded"
check_eq "text/html; charset=ISO-8859-1" "$(awk -F'\t' '$1 == "/latin1.cgi" { print $4 }' <("$CGISNAP" ls "$OUT"))" "content type kept"

try "a page that works again is stored on the next run; one that breaks keeps its old file"
cgi crash.cgi 'printf "Content-Type: text/html\n\n<p>fixed</p>\n"'
cgi good.cgi 'printf "Content-Type: text/html\n\n<p>ha"; kill -SEGV $$'
"$CGISNAP" snapshot --root "$SITE" --timeout 2 --max-output 1 -j 2 "$OUT" 2>"$TESTDIR/err2"
check_eq 1 $? "exit status"
check_eq "<p>fixed</p>" "$(cat "$OUT/crash.cgi" 2>/dev/null)" "repaired page stored"
check_eq "<p>good page</p>" "$(cat "$OUT/good.cgi" 2>/dev/null)" "broken page keeps its last good version"
check_contains "$(cat "$TESTDIR/err2")" "nothing was pruned" "no pruning after failures"

try "stderr of the programs goes to .cgisnap/error.log, one summary line per run; -v shows each line"
cgi noisy.cgi 'echo "deprecated: something" >&2; echo "deprecated: more" >&2; printf "Content-Type: text/plain\n\nok\n"'
"$CGISNAP" snapshot --root "$SITE" --seed /noisy.cgi --max-depth 0 "$TESTDIR/out3" 2>"$TESTDIR/err3"
check_eq 0 $? "exit status"
check_not_contains "$(cat "$TESTDIR/err3")" "cgisnap: /noisy.cgi: deprecated" "no terminal line per stderr line"
check_contains "$(cat "$TESTDIR/err3")" \
	"cgisnap: the programs wrote 2 lines to stderr (the first: /noisy.cgi: deprecated: something), in $TESTDIR/out3/.cgisnap/error.log (-v shows each)" \
	"the summary line"
check_match "$(cat "$TESTDIR/out3/.cgisnap/error.log")" \
	"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z /noisy.cgi: deprecated: something"$'\n'"[0-9TZ:-]+ /noisy.cgi: deprecated: more$" \
	"the file: each line with its time and URL"
"$CGISNAP" snapshot --root "$SITE" --seed /noisy.cgi --max-depth 0 -v "$TESTDIR/out3" 2>"$TESTDIR/err3"
check_contains "$(cat "$TESTDIR/err3")" "cgisnap: /noisy.cgi: deprecated: something" "-v: each line, prefixed with its URL"
check_contains "$(cat "$TESTDIR/err3")" "the programs wrote 2 lines to stderr" "-v: the summary counts this run only"
check_eq 4 "$(grep -c deprecated "$TESTDIR/out3/.cgisnap/error.log")" "the file keeps the runs' lines"
# An error log grown past 1 MiB is moved aside once, not grown for ever.
head -c 1100000 /dev/zero | tr '\0' x >"$TESTDIR/out3/.cgisnap/error.log"
"$CGISNAP" snapshot --root "$SITE" --seed /noisy.cgi --max-depth 0 -q "$TESTDIR/out3" 2>"$TESTDIR/err3"
check_eq "" "$(cat "$TESTDIR/err3")" "-q: no summary line"
check_eq 1100000 "$(stat -c %s "$TESTDIR/out3/.cgisnap/error.log.1")" "the big log moved to error.log.1"
check_eq 2 "$(grep -c deprecated "$TESTDIR/out3/.cgisnap/error.log")" "a fresh error.log"
# ... and one that passes 1 MiB while it is open (watch keeps it open for
# months) is turned over there and then: 3 renders of 600 KB of warnings.
cgi loud.cgi 'i=0; while [ $i -lt 6000 ]; do echo "warning $i of a render that complains a lot, line after line after line" >&2; i=$((i + 1)); done
printf "Content-Type: text/html\n\n<a href=\"loud.cgi?2\">2</a><a href=\"loud.cgi?3\">3</a>\n"'
rm -f "$TESTDIR/out3/.cgisnap/error.log"*
"$CGISNAP" snapshot --root "$SITE" --seed /loud.cgi --max-depth 1 -q -j 1 "$TESTDIR/out3" 2>"$TESTDIR/err3"
check_eq 0 $? "exit status ($(tail -2 "$TESTDIR/err3"))"
check_file "$TESTDIR/out3/.cgisnap/error.log.1" "turned over within the run"
check_le "$(stat -c %s "$TESTDIR/out3/.cgisnap/error.log")" $((1024 * 1024)) "error.log within 1 MiB"
check_le "$(stat -c %s "$TESTDIR/out3/.cgisnap/error.log.1")" $((1024 * 1024 + 200)) "error.log.1 within 1 MiB and a line"
check_eq 18000 "$(cat "$TESTDIR/out3/.cgisnap/error.log"* | grep -c 'a render that complains')" "every line in one of them"

try "a program runs with Apache's PATH, not the caller's; --env PATH= sets it"
# A stock Python CGI script, and a python3 of the caller's own first on
# the caller's PATH (as pyenv or a virtualenv puts one).
mkdir -p "$TESTDIR/py" "$TESTDIR/callerbin"
cat >"$TESTDIR/py/env.cgi" <<'PY'
#!/usr/bin/env python3
import os
print("Content-Type: text/plain\n\nPATH=" + os.environ["PATH"])
PY
printf '#!/bin/sh\nprintf "Content-Type: text/plain\\n\\nthe caller'"'"'s python3\\n"\n' >"$TESTDIR/callerbin/python3"
chmod +x "$TESTDIR/py/env.cgi" "$TESTDIR/callerbin/python3"
PATH="$TESTDIR/callerbin:$PATH" "$CGISNAP" snapshot --root "$TESTDIR/py" --seed /env.cgi "$TESTDIR/py-out" 2>"$TESTDIR/err-py"
check_eq 0 $? "exit status ($(cat "$TESTDIR/err-py"))"
check_eq "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" "$(cat "$TESTDIR/py-out/env.cgi")" \
	"the system's python3, with Apache's PATH"
PATH="$TESTDIR/callerbin:$PATH" "$CGISNAP" snapshot --root "$TESTDIR/py" --seed /env.cgi \
	--env "PATH=$TESTDIR/callerbin:/usr/bin:/bin" "$TESTDIR/py-out2" 2>"$TESTDIR/err-py"
check_eq 0 $? "exit status ($(cat "$TESTDIR/err-py"))"
check_eq "the caller's python3" "$(cat "$TESTDIR/py-out2/env.cgi")" "--env PATH= wins"

finish
