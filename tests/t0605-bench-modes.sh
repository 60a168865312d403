#!/usr/bin/env bash
# t0605-bench-modes: 'cgisnap bench' says what each side's renders ran on,
# in text and JSON, and the label is what ran: the dynamic side goes
# through the php-cgi worker pool by default (a few processes serve every
# request), a process per request with --cgi-mode fork, and the FastCGI
# or HTTP server given; servers the user runs are "not known".
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-serve.sh"

export TMPDIR=$TESTDIR/tmp
mkdir -p "$TMPDIR"
SITE=$TESTDIR/site
PIDS=$TESTDIR/pids
mkdir -p "$SITE"
# Each render notes the process that ran it.
printf '<?php file_put_contents("%s", getmypid() . "\\n", FILE_APPEND); echo "<p>page</p>";\n' "$PIDS" \
	>"$SITE/index.php"
# The snapshot stand-in: one page under the same URL.
T=$TESTDIR/tree
mkdir -p "$T"
printf '<p>page</p>' >"$T/index.html"
manifest_start "$T"
manifest_line / index.html 200 'text/html; charset=utf-8' >>"$T/.cgisnap/manifest"

json() {
	php -r '$j = json_decode(file_get_contents($argv[1]), true);
		if ($j === null) { echo "INVALID JSON"; exit(1); }
		$v = eval("return " . $argv[2] . ";"); echo $v === null ? "null" : $v;' "$1" "$2"
}
BENCH=(--tree "$T" --url / -n 30 -c 3 -k --server-threads 2)

try "the default: php-cgi workers, as many as the dynamic server's threads; 30 requests, 2 processes"
rm -f "$PIDS"
"$CGISNAP" bench --root "$SITE" --cgi php=php-cgi "${BENCH[@]}" --json >"$TESTDIR/w.json" 2>"$TESTDIR/err"
check_eq 0 $? "exit status ($(cat "$TESTDIR/err"))"
check_eq "php-cgi workers (2)" "$(json "$TESTDIR/w.json" '$j["dynamic"]["mode"]')" "dynamic mode (JSON)"
check_eq "static files" "$(json "$TESTDIR/w.json" '$j["static"]["mode"]')" "static mode (JSON)"
check_eq 30 "$(json "$TESTDIR/w.json" '$j["dynamic"]["complete"]')" "dynamic: complete"
check_le "$(sort -u "$PIDS" | wc -l)" 2 "processes that rendered $(wc -l <"$PIDS") requests"
check_le 30 "$(wc -l <"$PIDS")" "renders"
"$CGISNAP" bench --root "$SITE" --cgi php=php-cgi "${BENCH[@]}" >"$TESTDIR/w.txt" 2>"$TESTDIR/err"
check_eq 0 $? "exit status, text ($(cat "$TESTDIR/err"))"
check_contains "$(cat "$TESTDIR/w.txt")" "dynamic  mode: php-cgi workers (2)" "dynamic mode (text)"
check_contains "$(cat "$TESTDIR/w.txt")" "static   mode: static files" "static mode (text)"

try "--cgi-mode fork: labelled fork, a process per request"
rm -f "$PIDS"
"$CGISNAP" bench --root "$SITE" --cgi php=php-cgi --cgi-mode fork "${BENCH[@]}" --json \
	>"$TESTDIR/f.json" 2>"$TESTDIR/err"
check_eq 0 $? "exit status ($(cat "$TESTDIR/err"))"
check_eq "fork" "$(json "$TESTDIR/f.json" '$j["dynamic"]["mode"]')" "dynamic mode"
check_eq "$(wc -l <"$PIDS")" "$(sort -u "$PIDS" | wc -l)" "one process per render"

try "--cgi-spawn: labelled with its command and pool size"
"$CGISNAP" bench --root "$SITE" --cgi-spawn php='php-cgi -b {socket}' "${BENCH[@]}" --json \
	>"$TESTDIR/s.json" 2>"$TESTDIR/err"
check_eq 0 $? "exit status ($(cat "$TESTDIR/err"))"
check_eq "'php-cgi -b {socket}' workers (2)" "$(json "$TESTDIR/s.json" '$j["dynamic"]["mode"]')" "dynamic mode"

try "--fastcgi and --origin: labelled with the server's address"
PF=$(port 0)
PH=$(port 1)
bg_start env PHP_FCGI_CHILDREN=2 php-cgi -b "127.0.0.1:$PF"
FCGI=$BG_PID
wait_port "$PF" 10 || fail "php-cgi -b did not start"
"$CGISNAP" bench --root "$SITE" --fastcgi "127.0.0.1:$PF" "${BENCH[@]}" --json >"$TESTDIR/c.json" 2>"$TESTDIR/err"
check_eq 0 $? "exit status ($(cat "$TESTDIR/err"))"
check_eq "fastcgi 127.0.0.1:$PF" "$(json "$TESTDIR/c.json" '$j["dynamic"]["mode"]')" "FastCGI mode"
bg_start "$CGISNAP" serve --dynamic --listen "127.0.0.1:$PH" --root "$SITE" --cgi php=php-cgi 2>"$TESTDIR/serve.err"
HTTP=$BG_PID
wait_port "$PH" 10 || fail "origin server did not start"
"$CGISNAP" bench --origin "http://127.0.0.1:$PH/" "${BENCH[@]}" --json >"$TESTDIR/h.json" 2>"$TESTDIR/err"
check_eq 0 $? "exit status ($(cat "$TESTDIR/err"))"
check_eq "http http://127.0.0.1:$PH" "$(json "$TESTDIR/h.json" '$j["dynamic"]["mode"]')" "HTTP mode"

try "servers the user runs: the mode is not known (null, and said so in text)"
"$CGISNAP" bench --dynamic-url "http://127.0.0.1:$PH/" --url / -n 5 --json >"$TESTDIR/u.json" 2>"$TESTDIR/err"
check_eq 0 $? "exit status ($(cat "$TESTDIR/err"))"
check_eq null "$(json "$TESTDIR/u.json" '$j["dynamic"]["mode"]')" "mode in JSON"
"$CGISNAP" bench --dynamic-url "http://127.0.0.1:$PH/" --url / -n 5 >"$TESTDIR/u.txt" 2>"$TESTDIR/err"
check_contains "$(cat "$TESTDIR/u.txt")" "dynamic  mode: not known (a server bench did not start)" "mode in text"
bg_stop "$HTTP"
bg_stop "$FCGI"

finish
