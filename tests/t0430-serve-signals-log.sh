#!/usr/bin/env bash
# t0430-serve-signals-log: the access log (format, buffering, off, '-'),
# SIGHUP reopening it, SIGTERM/SIGINT stopping gracefully, and the
# one-line errors of a server that cannot start.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-serve.sh"

T=$TESTDIR/tree
make_tree "$T"
LOG=$TESTDIR/access.log
P=$(port 0)
U=http://127.0.0.1:$P

lines() {
	if [ -f "$1" ]; then wc -l <"$1"; else echo 0; fi
}
has_lines() {
	[ "$(lines "$1")" -ge "$2" ]
}

try "access log lines are in combined format, written within a second"
serve_start "$T" "$P" --access-log "$LOG"
curl -s -o /dev/null -A 'TestAgent/1.0 "quoted"' -e 'http://ref.example/page' "$U/a/"
curl -s -o /dev/null "$U/missing"
curl -s -o /dev/null -I "$U/style.css"
curl -s -o /dev/null -X POST "$U/"
wait_until 3 has_lines "$LOG" 4 || fail "lines not written within 3 s"
first=$(sed -n 1p "$LOG")
check_match "$first" '^127\.0\.0\.1 - - \[[0-9]{2}/[A-Z][a-z]{2}/[0-9]{4}:[0-9]{2}:[0-9]{2}:[0-9]{2} [+-][0-9]{4}\] "GET /a/ HTTP/1\.1" 200 7 "http://ref\.example/page" "TestAgent/1\.0 \\"quoted\\""$' \
	"combined format, quotes escaped"
check_match "$(sed -n 2p "$LOG")" '"GET /missing HTTP/1\.1" 404 [0-9]+ "-" "curl/' "404 line"
check_match "$(sed -n 3p "$LOG")" '"HEAD /style\.css HTTP/1\.1" 200 - ' "HEAD: no body bytes"
check_match "$(sed -n 4p "$LOG")" '"POST / HTTP/1\.1" 405 ' "405 line"

try "SIGHUP reopens the log (logrotate)"
mv "$LOG" "$LOG.1"
kill -HUP "$SERVE_PID"
# The reopen happens on the server's next turn: keep asking until a line
# lands in the new file.
reopened() {
	curl -s -o /dev/null "$U/after-hup"
	[ -f "$LOG" ] && grep -q 'GET /after-hup' "$LOG"
}
wait_until 5 reopened || fail "no new log file after SIGHUP"
check_eq 4 "$(lines "$LOG.1")" "old lines stay in the moved file"
check_eq 0 "$(grep -c after-hup "$LOG.1")" "nothing new in the moved file"
check_eq 1 "$(kill -0 "$SERVE_PID" 2>/dev/null && echo 1)" "the server lives on"

try "SIGTERM: every request is in the log, exit status 0"
rm -f "$LOG" "$LOG.1"
kill -HUP "$SERVE_PID"
wait_until 5 test -f "$LOG" || true
: >"$LOG"
for i in $(seq 1 30); do
	curl -s -o /dev/null "$U/a/?n=$i"
done
bg_stop "$SERVE_PID" TERM
check_eq 0 "$?" "exit status"
check_eq 30 "$(grep -c 'GET /a/?n=' "$LOG")" "all 30 requests logged"
check_contains "$(cat "$TESTDIR/server.err")" "cgisnap: stopped" "says it stopped"

try "SIGINT stops gracefully too"
serve_start "$T" "$P" --access-log "$LOG"
curl -s -o /dev/null "$U/?sigint=1"
bg_stop "$SERVE_PID" INT
check_eq 0 "$?" "exit status"
check_eq 1 "$(grep -c 'sigint=1' "$LOG")" "request logged"

try "a request in flight is finished before the server exits"
DOC=$TESTDIR/docroot
mkdir -p "$DOC"
cat >"$DOC/slow.cgi" <<EOF
#!/bin/sh
: >"$TESTDIR/slow-started"
sleep 1
printf 'Content-Type: text/plain\r\n\r\nslow page done\n'
EOF
chmod +x "$DOC/slow.cgi"
serve_start "$T" "$P" --access-log "$LOG" --fallback --root "$DOC"
curl -s -o "$TESTDIR/slow.out" -w '%{http_code}' "$U/slow.cgi" >"$TESTDIR/slow.code" &
client=$!
wait_until 10 test -f "$TESTDIR/slow-started" || fail "the render did not start"
kill -TERM "$SERVE_PID"
wait "$client"
check_eq 200 "$(cat "$TESTDIR/slow.code")" "status of the request in flight"
check_eq "slow page done" "$(cat "$TESTDIR/slow.out")" "its body"
wait "$SERVE_PID"
check_eq 0 "$?" "exit status"
check_eq 1 "$(grep -c 'GET /slow.cgi' "$LOG")" "logged"
check_eq 000 "$(code "$U/")" "no longer accepting"

try "--access-log off writes nothing; '-' writes to standard output"
rm -f "$LOG"
serve_start "$T" "$P" --access-log off
curl -s -o /dev/null "$U/"
kill -HUP "$SERVE_PID"
check_eq 200 "$(code "$U/")" "SIGHUP without a log is harmless"
bg_stop "$SERVE_PID"
check_eq 0 "$?" "exit status"
check_no_file "$LOG" "no log file"
check_no_file "$TESTDIR/off" "no file named off"
out=$("$CGISNAP" serve "$T" --listen "127.0.0.1:$P" --access-log - 2>/dev/null &
	pid=$!
	wait_port "$P" 10
	curl -s -o /dev/null "$U/style.css"
	kill -TERM "$pid"
	wait "$pid")
check_match "$out" '"GET /style\.css HTTP/1\.1" 200 ' "line on standard output"
serve_start "$T" "$P"
curl -s -o /dev/null "$U/"
bg_stop "$SERVE_PID"
check_eq "" "$(ls "$TESTDIR" | grep -i log)" "default: no log file anywhere"

# start_fails WHAT PATTERN ARGS...: the server refuses to start with exit
# status 2 and one line on stderr matching PATTERN.
start_fails() {
	local what=$1 pattern=$2 err status
	shift 2
	err=$(timeout 10 "$CGISNAP" serve "$@" 2>&1 >/dev/null)
	status=$?
	check_eq 2 "$status" "$what: exit status"
	check_eq 1 "$(printf '%s\n' "$err" | wc -l)" "$what: one line"
	check_match "$err" "$pattern" "$what: message"
}

try "clear one-line errors, exit status 2"
start_fails "missing tree" "^cgisnap: error: cannot open tree '$TESTDIR/nope': No such file or directory$" \
	"$TESTDIR/nope" --listen "127.0.0.1:$P"
start_fails "tree is a file" "^cgisnap: error: cannot open tree '.*index.html': Not a directory$" \
	"$T/index.html" --listen "127.0.0.1:$P"
# Something else holds a port (a plain listening socket).
BUSY_PORT=$(port 4)
bg_start python3 -c 'import socket,sys,time
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1); print("ready", flush=True); time.sleep(30)' "$BUSY_PORT" >"$TESTDIR/busy"
busy=$BG_PID
wait_until 5 grep -q ready "$TESTDIR/busy"
start_fails "port in use" "^cgisnap: error: cannot listen on '127\.0\.0\.1:$BUSY_PORT': Address already in use$" \
	"$T" --listen "127.0.0.1:$BUSY_PORT"
start_fails "bad address" "invalid listen address 'nonsense'" "$T" --listen nonsense
start_fails "bad port" "invalid listen address '127\.0\.0\.1:99999'" "$T" --listen 127.0.0.1:99999
start_fails "no directory" "^cgisnap serve: no tree directory given" --listen "127.0.0.1:$P"
start_fails "two directories" "^cgisnap serve: expected one tree directory" "$T" "$T"
start_fails "unknown option" "^cgisnap serve: unknown option '--frob'" "$T" --frob
start_fails "bad number" "'--threads' needs a number" "$T" --threads many
start_fails "--fill alone" "^cgisnap serve: --fill needs --fallback" "$T" --fill
start_fails "fallback without origin" "no origin given" "$T" --fallback --listen "127.0.0.1:$P"
start_fails "unwritable log" "cannot open access log '/nonexistent/dir/log'" "$T" \
	--access-log /nonexistent/dir/log --listen "127.0.0.1:$P"
bg_stop "$busy"

try "--help documents every option and its default"
help=$("$CGISNAP" serve --help)
for o in listen threads access-log cache-mb cache-control idle-timeout max-connections \
	max-per-ip fallback fill dynamic root cgi fastcgi origin site-url timeout; do
	check_contains "$help" "--$o" "--$o"
done
check_contains "$help" "default 127.0.0.1:8080" "listen default"
check_contains "$help" "port 0: a free port" "listen on port 0"
check_contains "$help" "default 64" "cache default"
check_contains "$help" 'public, max-age=60' "Cache-Control default"
check_contains "$help" "default off" "access log default"

finish
