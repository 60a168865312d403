#!/usr/bin/env bash
# t0712-seed-render-query: the two options the application profiles use
# besides their URL rules, on a plain tree of files: --seed-command adds a
# seed for each line it prints (run in --root: a page no link reaches is
# stored), and fails the run in one line, exit 2 and nothing made, when it
# fails or prints a URL of another site; --render-query rules are checked
# before anything is made, and a target they match is asked of the origin
# with their parameters added, recorded and stored as crawled; a target
# --render-alone matches renders with no other render under way. (t0711
# and t0720 use them on the real DokuWiki and WordPress.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"

site=$TESTDIR/site
mkdir -p "$site"
printf '<html><body><a href="/b.html">b</a></body></html>\n' >"$site/index.html"
printf '<html><body>b</body></html>\n' >"$site/b.html"
printf '<html><body>Orphan page, linked from nowhere.</body></html>\n' >"$site/orphan.html"
printf '/orphan.html\r\n\nhttp://localhost:8080/b.html\n' >"$site/seeds.txt"

try "--seed-command: each line it prints, run in --root, is a seed"
"$CGISNAP" snapshot -q --root "$site" --site-url http://localhost:8080/ --seed-command 'cat seeds.txt' \
	"$TESTDIR/out" 2>"$TESTDIR/err"
check_eq 0 $? "exit status ($(cat "$TESTDIR/err"))"
check_eq 200 "$(manifest_field "$TESTDIR/out" /orphan.html 3)" "the page no link reaches"
check_eq 200 "$(manifest_field "$TESTDIR/out" / 3)" "the site URL is still a seed"
check_contains "$(cat "$TESTDIR/out/orphan.html")" "Orphan page" "its file"

try "--seed-command asks as a request to the site would: HTTP_HOST and SERVER_NAME are the site URL's"
# Debian's WordPress picks /etc/wordpress/config-HOST.php by HTTP_HOST.
env -u HTTP_HOST -u SERVER_NAME "$CGISNAP" snapshot -q --root "$site" --site-url http://blog.example.org:8080/ \
	--seed-command 'printf "%s %s\n" "$HTTP_HOST" "$SERVER_NAME" >'"$TESTDIR/seen" "$TESTDIR/h" 2>"$TESTDIR/h.err"
check_eq 0 $? "exit status ($(cat "$TESTDIR/h.err"))"
check_eq "blog.example.org:8080 blog.example.org" "$(cat "$TESTDIR/seen" 2>/dev/null)" "the site URL's host"
HTTP_HOST=mine.example SERVER_NAME=mine.example "$CGISNAP" snapshot -q --root "$site" \
	--site-url http://blog.example.org/ --seed-command 'printf "%s\n" "$HTTP_HOST" >'"$TESTDIR/seen" "$TESTDIR/h2" 2>/dev/null
check_eq "mine.example" "$(cat "$TESTDIR/seen" 2>/dev/null)" "one the caller set is kept"

try "--seed-command that fails, or prints another site's URL: exit 2, one line, nothing made"
"$CGISNAP" snapshot -q --root "$site" --seed-command 'exit 3' "$TESTDIR/f1" 2>"$TESTDIR/f1.err"
check_eq 2 $? "exit status"
check_eq "cgisnap: error: --seed-command 'exit 3' exited 3" "$(cat "$TESTDIR/f1.err")" "the message"
check_no_file "$TESTDIR/f1" "nothing made"
"$CGISNAP" snapshot -q --root "$site" --seed-command 'echo http://elsewhere.example/x' "$TESTDIR/f2" \
	2>"$TESTDIR/f2.err"
check_eq 2 $? "exit status"
check_eq 1 "$(wc -l <"$TESTDIR/f2.err")" "one line"
check_match "$(cat "$TESTDIR/f2.err")" "^cgisnap: error: --seed-command 'echo http://elsewhere.example/x': .*elsewhere\.example/x.*not a URL of the site" \
	"the message names the command and the URL"
check_no_file "$TESTDIR/f2" "nothing made"

try "--render-query: the origin is asked with the parameters added, the page recorded and stored as crawled"
cgi=$TESTDIR/cgi
mkdir -p "$cgi"
cat >"$cgi/index.html" <<'HTML'
<html><body><a href="/q.sh">plain</a> <a href="/q.sh?x=1">with x</a> <a href="/other.sh">other</a></body></html>
HTML
for f in q other; do
	printf '#!/bin/sh\nprintf "Content-Type: text/html\\r\\n\\r\\n<p>asked with [%%s]</p>\\n" "$QUERY_STRING"\n' >"$cgi/$f.sh"
done
"$CGISNAP" snapshot -q --root "$cgi" --cgi sh=sh --render-query '^/q\.sh => purge=1&via=$0' \
	--render-query '^/ => never=1' "$TESTDIR/rq" 2>"$TESTDIR/rq.err"
check_eq 0 $? "exit status ($(cat "$TESTDIR/rq.err"))"
check_contains "$(cat "$TESTDIR/rq/$(manifest_field "$TESTDIR/rq" /q.sh 2)" 2>/dev/null)" \
	"asked with [purge=1&via=/q.sh]" "/q.sh asked with the rule's parameters (\$0: the match)"
check_contains "$(cat "$TESTDIR/rq/$(manifest_field "$TESTDIR/rq" '/q.sh?x=1' 2)" 2>/dev/null)" \
	"asked with [x=1&purge=1&via=/q.sh]" "/q.sh?x=1: added after its own query"
check_contains "$(cat "$TESTDIR/rq/$(manifest_field "$TESTDIR/rq" /other.sh 2)" 2>/dev/null)" \
	"asked with [never=1]" "the first matching rule wins"
check_eq "" "$(manifest_targets "$TESTDIR/rq" | grep -E 'purge|never')" "no target carries the added parameters"

try "--render-alone: no other render runs while a target it matches renders, and the crawl goes on around it"
# Each render notes its start and end (a line appended: atomic for lines
# this short) and takes 150 ms; four jobs would run them all at once.
ra=$TESTDIR/ra
mkdir -p "$ra"
{
	printf '<html><body>'
	for i in 1 2 3 4 5 6 7 8; do printf '<a href="/p.sh?n=%s">%s</a> ' "$i" "$i"; done
	printf '<a href="/feed.sh">feed</a> <a href="/feed.sh?type=atom">atom</a></body></html>\n'
} >"$ra/index.html"
for f in p feed; do
	printf '#!/bin/sh\necho "start $SCRIPT_NAME?$QUERY_STRING" >>%s\nsleep 0.15\necho "end $SCRIPT_NAME?$QUERY_STRING" >>%s\nprintf "Content-Type: text/html\\r\\n\\r\\n<p>%%s</p>\\n" "$QUERY_STRING"\n' \
		"$TESTDIR/ra.log" "$TESTDIR/ra.log" >"$ra/$f.sh"
done
"$CGISNAP" snapshot -q --root "$ra" --cgi sh=sh --jobs 4 --render-alone '^/feed\.sh' "$TESTDIR/ra-out" \
	2>"$TESTDIR/ra.err"
check_eq 0 $? "exit status ($(cat "$TESTDIR/ra.err"))"
check_eq 20 "$(grep -c . "$TESTDIR/ra.log")" "renders noted (10, each a start and an end)"
# Between a feed's start and its end, no other line.
check_eq "" "$(awk '/^start \/feed/ { open = $2; next } open != "" && !($1 == "end" && $2 == open) { print "during " open ": " $0 } /^end \/feed/ { open = "" }' "$TESTDIR/ra.log")" \
	"renders beside a --render-alone one"
# The others do run at once (the option is no --jobs 1).
check_match "$(grep -A1 '^start /p.sh' "$TESTDIR/ra.log" | grep -c '^start /p.sh')" '^[2-9]$|^[1-9][0-9]$' \
	"pages started together"

try "a bad --render-query rule: exit 2, one line naming it, nothing made"
for rule in 'x => a b' 'x' '( => a=1' 'x => ?a=1' 'x => novalue'; do
	"$CGISNAP" snapshot -q --root "$site" --render-query "$rule" "$TESTDIR/f3" 2>"$TESTDIR/f3.err"
	check_eq 2 $? "exit status for '$rule'"
	check_eq 1 "$(wc -l <"$TESTDIR/f3.err")" "one line for '$rule'"
	check_contains "$(cat "$TESTDIR/f3.err")" "--render-query" "the option named for '$rule'"
	check_no_file "$TESTDIR/f3" "nothing made for '$rule'"
done

finish
