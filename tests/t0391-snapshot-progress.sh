#!/usr/bin/env bash
# t0391-snapshot-progress: what a snapshot says while it runs and at its
# end. -v prints a line per URL whose category is the summary's; the
# summary adds up (URLs = stored + redirects + not found + failed +
# skipped) on the sample wiki and blog, on CGI programs that misbehave
# and on a page that becomes the redirect to its slash form; on a
# terminal (script(1)'s pty) a bar with done/total, percentage, rate,
# ETA and the current URL, its total the last run's URLs; without one a
# line every --progress-interval seconds; -q and --progress=none: none.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"

# summary_adds_up FILE: the URLs of the summary are the sum of its parts.
summary_adds_up() {
	local urls parts
	urls=$(sed -n 's/.*: \([0-9]*\) URLs in .*/\1/p' "$1")
	parts=$(sed -n 's/.*stored \([0-9]*\) files ([^)]*), [0-9]* removed, \([0-9]*\) redirects, \([0-9]*\) not found, \([0-9]*\) failed, \([0-9]*\) skipped.*/\1+\2+\3+\4+\5/p' "$1")
	check_ne "" "$parts" "summary line"
	check_ne "" "$urls" "URLs line"
	check_eq "$urls" "$((parts))" "URLs = stored + redirects + not found + failed + skipped ($parts)"
}

# url_lines FILE: the -v line of each URL, the last one of a target
# (a URL can change category: a page that became a redirect).
url_lines() {
	grep -E '^cgisnap: ([0-9]{3}|-) [a-z-]+ [0-9]+ ms [0-9]+ bytes /' "$1" |
		awk '{ last[$8] = $0 } END { for (t in last) print last[t] }' | LC_ALL=C sort -k8
}

# summary_field FILE WORDS: the number before WORDS in the summary line.
summary_field() {
	sed -n "s/.*[ (]\([0-9]*\) $2[,)].*/\1/p" "$1" | tail -1
}

# lines_match_summary FILE: per category, the -v lines count what the summary says.
lines_match_summary() {
	local lines=$TESTDIR/lines
	url_lines "$1" >"$lines"
	check_eq "$(sed -n 's/.*: \([0-9]*\) URLs in .*/\1/p' "$1")" "$(wc -l <"$lines")" "one -v line per URL"
	local cat word
	for cat in new:new changed:changed unchanged:unchanged redirect:redirects not-found:"not found" \
		failed:failed skipped:skipped; do
		word=${cat#*:}
		check_eq "$(summary_field "$1" "$word")" "$(awk -v c="${cat%%:*}" '$3 == c' "$lines" | wc -l)" \
			"-v lines of '${cat%%:*}' = the summary's $word"
	done
}

WIKI=$TESTDIR/wiki
seed_wiki "$WIKI" 60

try "wiki: a -v line per URL, and the summary adds up"
snap_wiki "$WIKI" "$TESTDIR/w" -j 2 -v 2>"$TESTDIR/w.err"
check_eq 0 $? "exit status"
summary_adds_up "$TESTDIR/w.err"
lines_match_summary "$TESTDIR/w.err"
check_eq "$(manifest_targets "$TESTDIR/w")" "$(url_lines "$TESTDIR/w.err" | awk '{ print $8 }' | LC_ALL=C sort)" \
	"the -v lines name the manifest's URLs"
line=$(grep -E ' /doku\.php\?id=start$' "$TESTDIR/w.err" | tail -1)
check_match "$line" "^cgisnap: 200 new [0-9]+ ms [1-9][0-9]* bytes /doku\.php\?id=start$" "the start page's line"
check_eq "$(manifest_field "$TESTDIR/w" '/doku.php?id=start' 5)" "$(echo "$line" | awk '{ print $6 }')" \
	"its bytes are the manifest's"

try "wiki re-run: unchanged pages say so, and it still adds up"
snap_wiki "$WIKI" "$TESTDIR/w" -j 2 -v 2>"$TESTDIR/w2.err"
check_eq 0 $? "exit status"
summary_adds_up "$TESTDIR/w2.err"
lines_match_summary "$TESTDIR/w2.err"
check_match "$(cat "$TESTDIR/w2.err")" "cgisnap: 200 unchanged [0-9]+ ms [0-9]+ bytes /doku\.php\?id=start" "start unchanged"

try "blog: the summary adds up"
BLOG=$TESTDIR/blog
seed_blog "$BLOG" 40
snap_blog "$BLOG" "$TESTDIR/b" -j 2 -v 2>"$TESTDIR/b.err"
check_eq 0 $? "exit status"
summary_adds_up "$TESTDIR/b.err"
lines_match_summary "$TESTDIR/b.err"

# CGI programs that fail, time out, answer 500 or too much, and a 404.
EDGE=$TESTDIR/edge
mkdir -p "$EDGE"
cat >"$EDGE/index.html" <<'HTML'
<html><body><a href="/good.cgi">good</a> <a href="/crash.cgi">crash</a> <a href="/hang.cgi">hang</a>
<a href="/garbage.cgi">garbage</a> <a href="/huge.cgi">huge</a> <a href="/local.cgi">local</a>
<a href="/loop.cgi">loop</a> <a href="/error.cgi">500</a> <a href="/missing.html">missing</a>
<a href="/moved.cgi">moved</a> <a href="/x.tgz">archive</a></body></html>
HTML
cgi good.cgi 'printf "Content-Type: text/html\n\n<p>good page</p>\n"' "$EDGE"
cgi crash.cgi 'printf "Content-Type: text/html\n\n<p>half a pa"; kill -SEGV $$' "$EDGE"
cgi hang.cgi 'printf "Content-Type: text/html\n\n"; exec sleep 30' "$EDGE"
cgi garbage.cgi 'printf "this is not a header\n\n<p>body</p>\n"' "$EDGE"
cgi huge.cgi 'printf "Content-Type: text/plain\n\n"; exec yes xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' "$EDGE"
cgi local.cgi 'printf "Location: /good.cgi\n\n"' "$EDGE"
cgi loop.cgi 'printf "Location: /loop.cgi\n\n"' "$EDGE"
cgi error.cgi 'printf "Status: 500 Internal Server Error\nContent-Type: text/html\n\n<p>oops</p>\n"' "$EDGE"
cgi moved.cgi 'printf "Status: 301 Moved\nLocation: http://localhost/good.cgi\n\n"' "$EDGE"

try "an edge site with failures, skips, redirects and a 404: the summary adds up"
"$CGISNAP" snapshot --root "$EDGE" --site-url http://localhost/ --timeout 2 --max-output 1 -j 2 -v \
	"$TESTDIR/e" 2>"$TESTDIR/e.err"
check_eq 1 $? "exit status (some URLs failed)"
summary_adds_up "$TESTDIR/e.err"
lines_match_summary "$TESTDIR/e.err"
check_match "$(cat "$TESTDIR/e.err")" ", 1 redirects, 2 not found, 5 failed, 1 skipped," "categories"
check_match "$(cat "$TESTDIR/e.err")" "cgisnap: 500 failed [0-9]+ ms 0 bytes /error\.cgi" "the 500's line"
check_match "$(cat "$TESTDIR/e.err")" "cgisnap: 404 not-found [0-9]+ ms [0-9]+ bytes /missing\.html" "the 404's line"
check_match "$(cat "$TESTDIR/e.err")" "cgisnap: - skipped [0-9]+ ms [0-9]+ bytes /huge\.cgi" "the skip's line"

# A program answering /app/x and /app/x/ with different bodies: /app/x
# is stored first (-j 1, linked first), then becomes the redirect to
# /app/x/, which takes its file: counted once, as a redirect.
SL=$TESTDIR/slash
mkdir -p "$SL"
printf '#!/bin/sh\nprintf "Content-Type: text/html\\n\\n<p>URI=%%s</p><a href=\\"/app/x\\">x</a> <a href=\\"/app/x/\\">x/</a>\\n" "$REQUEST_URI"\n' >"$SL/app.sh"
chmod +x "$SL/app.sh"
printf '<a href="/app/">app</a>\n' >"$SL/index.html"
try "a page that becomes its slash form's redirect is counted once, as a redirect"
"$CGISNAP" snapshot --root "$SL" --script-alias "/app=$SL/app.sh" --site-url http://localhost/ -j 1 -v \
	"$TESTDIR/s" 2>"$TESTDIR/s.err"
check_eq 0 $? "exit status"
summary_adds_up "$TESTDIR/s.err"
lines_match_summary "$TESTDIR/s.err"
check_eq 301 "$(manifest_field "$TESTDIR/s" /app/x 3)" "/app/x is a 301"
check_contains "$(cat "$TESTDIR/s.err")" " skipped, $(awk -F'\t' '!/^#/ && $2 != "-" { s += $5 } END { print s }' <("$CGISNAP" ls "$TESTDIR/s")) bytes" \
	"the summary's bytes are those of the files stored"
check_match "$(url_lines "$TESTDIR/s.err")" "cgisnap: 301 redirect [0-9]+ ms 0 bytes /app/x"$'\n' "its last line"

# Without a terminal: a line per interval. The pages sleep, so that the
# crawl lasts several intervals whatever the machine's speed.
SLOW=$TESTDIR/slow
mkdir -p "$SLOW"
for i in 1 2 3 4 5 6; do
	printf '#!/bin/sh\nsleep 0.7\nprintf "Content-Type: text/html\\n\\n<p>page %s</p>\\n"\n' "$i" >"$SLOW/p$i.cgi"
	chmod +x "$SLOW/p$i.cgi"
	echo "<a href=\"/p$i.cgi\">$i</a>" >>"$SLOW/index.html"
done
# The bar, on a pty. The second run's total is the first run's URLs.
try "on a terminal: a bar with done/total, %, pages/s, ETA and the URL; the total from the last run"
command -v script >/dev/null || fail "script(1) is missing"
total=$(grep -vc '^#' <("$CGISNAP" ls "$TESTDIR/w"))
COLUMNS=200 script -qfec "stty cols 200 2>/dev/null; $CGISNAP snapshot --root $WIKI --cgi php=php-cgi \
	--site-url http://localhost:8080/ --strip '$WIKI_STRIP' --robots-meta ignore --not-found '/doku.php?id=cgisnap:no-such-page' \
	-j 2 $TESTDIR/w" /dev/null >"$TESTDIR/tty" 2>&1
check_eq 0 $? "exit status"
bars=$(tr '\r' '\n' <"$TESTDIR/tty" | sed 's/\x1b\[K//g' | grep -E '^\[[=> ]{20}\] ')
check_ne "" "$bars" "a bar was drawn ($(head -c 300 "$TESTDIR/tty" | tr '\r\033' '| '))"
check_match "$bars" "^\[[=> ]{20}\] [0-9]+/$total [0-9]+% [0-9.]+ pages/s ETA ([0-9]+ (s|min)|\?)  /" \
	"bar fields, total $total from the manifest"
check_match "$bars" " /doku\.php[^ ]*$" "the current URL ends the line"

try "on a terminal, a fresh tree: the total is the URLs known so far, a lower bound"
script -qfec "$CGISNAP snapshot --root $SLOW --site-url http://localhost/ -j 1 $TESTDIR/f" \
	/dev/null >"$TESTDIR/tty2" 2>&1
check_match "$(tr '\r' '\n' <"$TESTDIR/tty2")" "\] [0-9]+/[0-9]+\+ [0-9]+% " "total marked with '+'"

try "-q and --progress=none draw nothing on a terminal"
script -qfec "$CGISNAP snapshot -q --root $EDGE --site-url http://localhost/ --seed /good.cgi $TESTDIR/f" \
	/dev/null >"$TESTDIR/tty3" 2>&1
check_not_contains "$(cat "$TESTDIR/tty3")" "pages/s" "-q"
script -qfec "$CGISNAP snapshot --progress=none --root $EDGE --site-url http://localhost/ --seed /good.cgi $TESTDIR/f" \
	/dev/null >"$TESTDIR/tty4" 2>&1
check_not_contains "$(cat "$TESTDIR/tty4")" "ETA" "--progress=none"
check_contains "$(cat "$TESTDIR/tty4")" "URLs in" "the summary still"

try "no terminal: a progress line every --progress-interval seconds"
"$CGISNAP" snapshot --root "$SLOW" --site-url http://localhost/ -j 1 --progress-interval 1 \
	"$TESTDIR/l" 2>"$TESTDIR/l.err"
check_eq 0 $? "exit status"
check_match "$(cat "$TESTDIR/l.err")" "^cgisnap: progress: [0-9]+/[0-9]+\+? URLs \([0-9]+%\), [0-9.]+ pages/s, ETA ([0-9]+ (s|min)|\?), 0 failed$" \
	"a progress line"
check_le 2 "$(grep -c '^cgisnap: progress: ' "$TESTDIR/l.err")" "several of them"
"$CGISNAP" snapshot --root "$SLOW" --site-url http://localhost/ -j 1 --progress-interval 1 --progress=none \
	"$TESTDIR/l" 2>"$TESTDIR/l2.err"
check_not_contains "$(cat "$TESTDIR/l2.err")" "progress:" "--progress=none: none"
"$CGISNAP" snapshot --root "$SLOW" --site-url http://localhost/ -j 1 --progress-interval 1 -q \
	"$TESTDIR/l" 2>"$TESTDIR/l3.err"
check_eq "" "$(cat "$TESTDIR/l3.err")" "-q: nothing at all"

try "a bad --progress is a usage error"
err=$("$CGISNAP" snapshot --progress=fancy --root "$SLOW" "$TESTDIR/bad" 2>&1)
check_eq 2 $? "exit status"
check_contains "$err" "bad --progress 'fancy': bar, line or none" "message"
check_no_file "$TESTDIR/bad/.cgisnap/tree.db" "nothing written"

finish
