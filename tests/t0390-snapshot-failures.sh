#!/usr/bin/env bash
# t0390-snapshot-failures: failures are said, never silent. A CGI program
# that writes a complete response and exits non-zero gives that response
# (RFC 3875), with a warning; a seed answering an error, or a crawl that is
# mostly 404, fails the run with a message that names it; at -v the text
# of each error page, and why a path was refused, are shown.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-serve.sh"
. "$(dirname "$0")/lib-snapshot.sh"
. "$(dirname "$0")/lib-watch.sh"

SITE=$TESTDIR/site
OUTSIDE=$TESTDIR/outside
mkdir -p "$SITE/data" "$OUTSIDE/tpl"

# Debian's wp-config.php without its config file: a complete 404 page
# explaining the problem, then exit 1.
cgi wp.cgi 'printf "Status: 404 Not Found\nContent-Type: text/html\n\n<html><head><title>404 Not Found</title></head><body>\n<p>could not find config-localhost.php</p>\n</body></html>\n"; exit 1'
cgi ok-exit1.cgi 'printf "Content-Type: text/html\n\n<p>a page, then exit 1</p>\n"; exit 1'
cgi garbage.cgi 'printf "could not connect to the database\n"; exit 2'
cgi error.cgi 'printf "Status: 500 Internal Server Error\nContent-Type: text/html\n\n<h1>oops: the cache is not writable</h1>\n"'
printf '<p>x</p>\n' >"$OUTSIDE/tpl/x.css"
ln -s "$OUTSIDE/tpl" "$SITE/tpl"
mkdir -p "$SITE/.git"
printf '[core]\n' >"$SITE/.git/config"

manifest_status() { # manifest_status DIR TARGET
	awk -F'\t' -v t="$2" '$1 == t { print $3 }' <("$CGISNAP" ls "$1")
}

try "an exit-1 program's complete 404 page is its response: recorded, warned about, and the seed fails the run"
"$CGISNAP" snapshot --root "$SITE" --seed /wp.cgi "$TESTDIR/a" 2>"$TESTDIR/err"
check_eq 1 $? "exit status"
err=$(cat "$TESTDIR/err")
check_eq 404 "$(manifest_status "$TESTDIR/a" /wp.cgi)" "the 404 is recorded"
check_contains "$err" "cgisnap: warning: /wp.cgi: the CGI program exited with status 1 after a complete response" "warning"
check_eq 1 "$(grep -c 'exited with status 1' "$TESTDIR/err")" "warned once"
check_contains "$err" "cgisnap: error: the seed '/wp.cgi' answered 404: could not find config-localhost.php" \
	"the seed is named with what its page said"
check_not_contains "$err" "failed: /wp.cgi" "not reported as a failed render"
check_not_contains "$err" "cgisnap: /wp.cgi: 404:" "no page text without -v"
check_contains "$err" "1 not found, 0 failed" "the summary still adds up"
check_contains "$err" "nothing was pruned" "nothing pruned"

try "-v shows the first lines of the error page's text"
"$CGISNAP" snapshot --root "$SITE" --seed /wp.cgi -v "$TESTDIR/a" 2>"$TESTDIR/err"
check_eq 1 $? "exit status"
check_contains "$(cat "$TESTDIR/err")" "cgisnap: /wp.cgi: 404: could not find config-localhost.php" "body line"

try "a 200 page from a program that exits 1 is stored, with a warning"
"$CGISNAP" snapshot --root "$SITE" --seed /ok-exit1.cgi "$TESTDIR/b" 2>"$TESTDIR/err"
check_eq 0 $? "exit status"
check_eq "<p>a page, then exit 1</p>" "$(cat "$TESTDIR/b/ok-exit1.cgi" 2>/dev/null)" "stored"
check_contains "$(cat "$TESTDIR/err")" "warning: /ok-exit1.cgi: the CGI program exited with status 1 after a complete response" "warning"

try "a program that exits non-zero without a response still fails; -v shows what it wrote"
"$CGISNAP" snapshot --root "$SITE" --seed /garbage.cgi -v "$TESTDIR/c" 2>"$TESTDIR/err"
check_eq 1 $? "exit status"
err=$(cat "$TESTDIR/err")
check_contains "$err" "failed: /garbage.cgi: exited with status 2" "the failure"
check_contains "$err" "cgisnap: /garbage.cgi: output: could not connect to the database" "its output at -v"
check_no_file "$TESTDIR/c/garbage.cgi" "nothing stored"

try "a seed answering 500 fails as a URL and is named as the seed"
"$CGISNAP" snapshot --root "$SITE" --seed /error.cgi "$TESTDIR/d" 2>"$TESTDIR/err"
check_eq 1 $? "exit status"
err=$(cat "$TESTDIR/err")
check_contains "$err" "failed: /error.cgi: HTTP status 500" "the failed URL"
check_contains "$err" "the seed '/error.cgi' answered 500: oops: the cache is not writable" "the seed"

try "every seed counts: one good and one missing, and the default seed /"
printf '<p>home</p>\n' >"$SITE/home.html"
"$CGISNAP" snapshot --root "$SITE" --seed /home.html --seed /nothing.html "$TESTDIR/e" 2>"$TESTDIR/err"
check_eq 1 $? "exit status"
err=$(cat "$TESTDIR/err")
check_contains "$err" "the seed '/nothing.html' answered 404: Not Found" "the missing seed"
check_not_contains "$err" "the seed '/home.html'" "the good seed is not named"
check_file "$TESTDIR/e/home.html" "the good seed is stored"
"$CGISNAP" snapshot --root "$SITE" "$TESTDIR/f" 2>"$TESTDIR/err"
check_eq 1 $? "exit status without an index file"
check_contains "$(cat "$TESTDIR/err")" "the seed '/' answered 404" "the default seed"

try "a seed's redirect passes the check on to its target; one off the site fails"
mkdir -p "$SITE/empty"
"$CGISNAP" snapshot --root "$SITE" --seed /empty "$TESTDIR/e3" 2>"$TESTDIR/err"
check_eq 1 $? "exit status"
check_contains "$(cat "$TESTDIR/err")" "the seed '/empty/' answered 404" "the redirect's target"
cgi away.cgi 'printf "Status: 301 Moved Permanently\nLocation: http://blog.example/\n\n"'
"$CGISNAP" snapshot --root "$SITE" --seed /away.cgi "$TESTDIR/e4" 2>"$TESTDIR/err"
check_eq 1 $? "exit status"
check_contains "$(cat "$TESTDIR/err")" \
	"the seed '/away.cgi' redirects to 'http://blog.example/', outside the site 'http://localhost/': check --site-url" \
	"off the site"

try "the --not-found page's program is warned about too, and its page kept"
"$CGISNAP" snapshot --root "$SITE" --seed /home.html --not-found /wp.cgi "$TESTDIR/e2" 2>"$TESTDIR/err"
check_eq 0 $? "exit status"
check_contains "$(cat "$TESTDIR/err")" "warning: /wp.cgi: the CGI program exited with status 1 after a complete response" "warning"
check_contains "$(cat "$TESTDIR/e2/.cgisnap/404.html" 2>/dev/null)" "could not find config-localhost.php" "404 page"

try "a seed that answered 404 prunes nothing: the last good pages stay"
S2=$TESTDIR/site2
mkdir -p "$S2"
printf '<a href="/a.html">a</a>\n' >"$S2/index.html"
printf '<p>a</p>\n' >"$S2/a.html"
"$CGISNAP" snapshot --root "$S2" "$TESTDIR/g" 2>"$TESTDIR/err"
check_eq 0 $? "first run"
rm "$S2/index.html"
"$CGISNAP" snapshot --root "$S2" "$TESTDIR/g" 2>"$TESTDIR/err"
check_eq 1 $? "second run"
check_contains "$(cat "$TESTDIR/err")" "the crawl failed; nothing was pruned" "said"
check_file "$TESTDIR/g/a.html" "a page no longer reached is kept"
check_file "$TESTDIR/g/index.html" "the seed's last good page is kept"

# links N M: an index linking N pages that exist and M that do not.
links_site() {
	rm -rf "$TESTDIR/links"
	mkdir -p "$TESTDIR/links"
	local i
	{
		for i in $(seq 1 "$1"); do
			printf '<a href="/good%d.html">g</a>\n' "$i"
			printf '<p>good %d</p>\n' "$i" >"$TESTDIR/links/good$i.html"
		done
		for i in $(seq 1 "$2"); do printf '<a href="/missing%d.html">m</a>\n' "$i"; done
	} >"$TESTDIR/links/index.html"
}

try "most URLs answering 404 fails the run: more than half of those rendered"
# The issue's case: --root at the program's directory, whose links all
# point under the URL it is meant to be mounted at.
mkdir -p "$TESTDIR/tool"
printf '#!/bin/sh\nprintf "Content-Type: text/html\\n\\n"\nfor p in log tree refs about stats summary; do printf "<a href=\\"/tool/%%s\\">%%s</a>\\n" $p $p; done\n' \
	>"$TESTDIR/tool/tool.cgi"
chmod +x "$TESTDIR/tool/tool.cgi"
"$CGISNAP" snapshot --root "$TESTDIR/tool" --seed /tool.cgi "$TESTDIR/h" 2>"$TESTDIR/err"
check_eq 1 $? "exit status"
err=$(cat "$TESTDIR/err")
check_contains "$err" "error: 6 of 7 URLs answered 404 (e.g. '/tool/about', '/tool/log', '/tool/refs'): check --root and --site-url" \
	"the message, with examples in sort order"
check_contains "$err" "stored 1 files" "the program's page is stored"
links_site 4 6
"$CGISNAP" snapshot --root "$TESTDIR/links" "$TESTDIR/i" 2>"$TESTDIR/err"
check_eq 1 $? "6 of 11 answered 404"
check_contains "$(cat "$TESTDIR/err")" "6 of 11 URLs answered 404" "message"

try "half or fewer, or fewer than five, answering 404 is a site with broken links"
links_site 5 5
"$CGISNAP" snapshot --root "$TESTDIR/links" "$TESTDIR/j" 2>"$TESTDIR/err"
check_eq 0 $? "5 of 11"
check_not_contains "$(cat "$TESTDIR/err")" "URLs answered 404" "no message"
links_site 0 4
"$CGISNAP" snapshot --root "$TESTDIR/links" "$TESTDIR/k" 2>"$TESTDIR/err"
check_eq 0 $? "4 of 5"
check_contains "$(cat "$TESTDIR/err")" "4 not found, 0 failed" "counted as not found"

try "under --no-follow-symlinks a link leaving the root, or a dotfile, is a 404 that -v explains"
printf '<link rel="stylesheet" href="/tpl/x.css"><a href="/.git/config">git</a>\n' >"$SITE/refused.html"
"$CGISNAP" snapshot --root "$SITE" --seed /refused.html --no-follow-symlinks -v "$TESTDIR/l" 2>"$TESTDIR/err"
check_eq 0 $? "exit status: two 404s are no failed run"
err=$(cat "$TESTDIR/err")
check_eq 404 "$(manifest_status "$TESTDIR/l" /tpl/x.css)" "still a 404"
check_contains "$err" "cgisnap: /tpl/x.css: 404: 'tpl' is a symbolic link leaving the document root; --no-follow-symlinks is set" "the link"
check_contains "$err" "cgisnap: /.git/config: 404: '.git': a path segment starting with '.' is never served" "the dotfile"
check_no_file "$TESTDIR/l/tpl/x.css" "nothing from outside the root"
"$CGISNAP" snapshot --root "$SITE" --seed /refused.html --no-follow-symlinks "$TESTDIR/l" 2>"$TESTDIR/err"
check_not_contains "$(cat "$TESTDIR/err")" "symbolic link" "not said without -v"

try "serve --dynamic answers an exit-1 program's 404 page as it was written"
P=$(port 0)
serve_start "$TESTDIR/a" "$P" --dynamic --root "$SITE"
curl -s -o "$TESTDIR/body" -w '%{http_code}' "http://127.0.0.1:$P/wp.cgi" >"$TESTDIR/code"
check_eq 404 "$(cat "$TESTDIR/code")" "status"
check_contains "$(cat "$TESTDIR/body")" "could not find config-localhost.php" "body"
bg_stop "$SERVE_PID"
check_contains "$(cat "$TESTDIR/server.err")" "warning: /wp.cgi: the CGI program exited with status 1 after a complete response" \
	"the warning is logged"

try "watch logs the warning too"
printf 'x\n' >"$SITE/data/x.txt"
watch_start "$TESTDIR/watch.log" --root "$SITE" --seed /ok-exit1.cgi --source "$SITE/data" "$TESTDIR/m"
check_eq 0 $? "watch came up"
watch_stop
check_contains "$(cat "$TESTDIR/watch.log")" "warning: /ok-exit1.cgi: the CGI program exited with status 1 after a complete response" "warning"
check_file "$TESTDIR/m/ok-exit1.cgi" "stored"

finish
