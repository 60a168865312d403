#!/usr/bin/env bash
# t0325-snapshot-http-polite: an HTTP origin is asked as wget would ask it:
# --user-agent, --header lines and --netrc's basic auth arrive with every
# request (a php -S router logs what it was sent), --wait spaces the
# requests' starts over all connections, and bad values are set-up errors.
. "$(dirname "$0")/lib.sh"
command -v php >/dev/null || { echo "php (php-cli) is missing"; exit 1; }

SITE=$TESTDIR/site
LOG=$TESTDIR/requests.log
mkdir -p "$SITE"
# Every request is logged (arrival time, URI, the headers that matter) and
# answered by the router: / links to six pages.
cat >"$SITE/router.php" <<'PHP'
<?php
$h = function ($k) { return isset($_SERVER[$k]) ? $_SERVER[$k] : '-'; };
file_put_contents(getenv('POLITE_LOG'), sprintf("%.6f\t%s\t%s\t%s\t%s\t%s\t%s\n", microtime(true),
	$h('REQUEST_URI'), $h('HTTP_USER_AGENT'), $h('HTTP_X_TEST'), $h('HTTP_X_OTHER'),
	$h('PHP_AUTH_USER') . ':' . $h('PHP_AUTH_PW'), $h('HTTP_ACCEPT')), FILE_APPEND | LOCK_EX);
$uri = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
header('Content-Type: text/html');
if ($uri === '/') {
	echo "<html><body>";
	for ($i = 1; $i <= 6; $i++)
		echo "<a href=\"/p$i.html\">p$i</a>\n";
	echo "</body></html>\n";
} elseif (preg_match('#^/p[1-6]\.html$#', $uri)) {
	echo "<p>page $uri</p>\n";
} else {
	http_response_code(404);
	echo "Not Found\n";
}
PHP
_http_run() {
	cd "$SITE" && POLITE_LOG=$LOG PHP_CLI_SERVER_WORKERS=4 exec php -S "127.0.0.1:$1" router.php \
		>/dev/null 2>&1
}
p=$(port 0)
bg_start _http_run "$p"
wait_port "$p" || fail "php -S did not start"
ORIGIN=http://127.0.0.1:$p/
version=$("$CGISNAP" --version | cut -d' ' -f2)

# requests: the log's lines for page requests (the probe of / included).
col() { cut -f"$1" "$LOG" | sort -u | tr '\n' ' ' | sed 's/ $//'; }

try "--user-agent and --header lines (from an option file, quoted) arrive with every request"
: >"$LOG"
cat >"$TESTDIR/polite.conf" <<'CONF'
user-agent = "Polite Bot/1.0 (+mailto:ops@example.org)"
header = 'X-Test: one # two'
header = "X-Other: two"
CONF
"$CGISNAP" snapshot -q -c "$TESTDIR/polite.conf" --origin "$ORIGIN" -j 3 \
	"$TESTDIR/o1" 2>"$TESTDIR/err"
check_eq 0 $? "exit status"
check_eq "" "$(cat "$TESTDIR/err")" "stderr"
check_file "$TESTDIR/o1/p6.html" "the last page"
check_le 8 "$(wc -l <"$LOG")" "requests logged"
check_eq "Polite Bot/1.0 (+mailto:ops@example.org)" "$(col 3)" "User-Agent of every request"
check_eq "one # two" "$(col 4)" "X-Test of every request"
check_eq "two" "$(col 5)" "X-Other of every request"
check_eq "-:-" "$(col 6)" "no credentials without --netrc"

try "the default User-Agent names cgisnap and its version; 'Name:' drops a libcurl header"
: >"$LOG"
"$CGISNAP" snapshot -q --origin "$ORIGIN" --header 'Accept:' "$TESTDIR/o2" 2>"$TESTDIR/err"
check_eq 0 $? "exit status"
check_eq "cgisnap/$version" "$(col 3)" "User-Agent"
check_eq "-" "$(col 7)" "no Accept header"

try "--netrc FILE: basic auth for the origin's host"
: >"$LOG"
printf 'machine elsewhere.example login bob password nope\nmachine 127.0.0.1\n  login alice password "s3 cret"\n' >"$TESTDIR/netrc"
chmod 600 "$TESTDIR/netrc"
"$CGISNAP" snapshot -q --origin "$ORIGIN" --netrc "$TESTDIR/netrc" "$TESTDIR/o3" 2>"$TESTDIR/err"
check_eq 0 $? "exit status"
check_eq "alice:s3 cret" "$(col 6)" "credentials of every request"

try "--wait 0.2 spaces the starts of the requests over all -j 4 connections"
: >"$LOG"
start=$(date +%s.%N)
"$CGISNAP" snapshot -q --origin "$ORIGIN" --wait 0.2 -j 4 "$TESTDIR/o4" 2>"$TESTDIR/err"
check_eq 0 $? "exit status"
end=$(date +%s.%N)
check_file "$TESTDIR/o4/p6.html" "the last page"
n=$(wc -l <"$LOG")
check_le 8 "$n" "requests logged"
# Lower bounds only: N requests started 0.2 s apart span (N-1) * 0.2 s at
# least (less 50 ms for the first one's connection set-up), and so does
# the whole run.
span=$(cut -f1 "$LOG" | sort -n | awk 'NR == 1 { a = $1 } { b = $1 } END { printf "%.3f", b - a }')
check_eq 1 "$(awk -v s="$span" -v n="$n" 'BEGIN { print (s >= (n - 1) * 0.2 - 0.05) }')" \
	"first to last request: $span s for $n requests"
check_eq 1 "$(awk -v s="$start" -v e="$end" -v n="$n" 'BEGIN { print (e - s >= (n - 1) * 0.2) }')" \
	"the run's wall time for $n requests"

try "bad politeness options are set-up errors: one line naming the thing, exit 2, nothing made"
bad() {
	local want=$1
	shift
	"$CGISNAP" snapshot "$@" "$TESTDIR/bad" 2>"$TESTDIR/err"
	check_eq 2 $? "exit status of $*"
	check_eq 1 "$(wc -l <"$TESTDIR/err")" "one line for $*"
	check_contains "$(cat "$TESTDIR/err")" "$want" "message for $*"
}
bad "bad --header 'X-A: b...': it holds a line break" --origin "$ORIGIN" --header $'X-A: b\r\nX-Evil: 1'
bad "bad --header 'X-A b': expected 'Name: value'" --origin "$ORIGIN" --header 'X-A b'
bad "bad --header ': v': expected 'Name: value'" --origin "$ORIGIN" --header ': v'
bad "bad --user-agent: it holds a line break" --origin "$ORIGIN" --user-agent $'a\nb'
bad "bad --wait '-1': not a number of seconds from 0 to 3600" --origin "$ORIGIN" --wait -1
bad "bad --wait 'nan': not a number of seconds from 0 to 3600" --origin "$ORIGIN" --wait nan
bad "cannot read --netrc file '$TESTDIR/none': No such file or directory" --origin "$ORIGIN" --netrc "$TESTDIR/none"
bad "--wait is for an HTTP origin (--origin URL)" --root "$SITE" --wait 1
bad "--header is for an HTTP origin (--origin URL)" --root "$SITE" --header 'X-A: b'
check_no_file "$TESTDIR/bad" "no tree"

finish
