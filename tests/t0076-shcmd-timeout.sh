#!/usr/bin/env bash
# t0076-shcmd-timeout: the commands that ask the site itself
# (--seed-command, --site-url-command, watch's --source-command) are
# bounded (lib/shcmd.h: 60 s, here a few hundred ms through the test hook
# CGISNAP_TEST_SHCMD_TIMEOUT_MS). One that sleeps, one that exits but
# leaves a child holding its stdout, one that closes its stdout and runs
# on: exit 2, one line naming the option, the command and the bound,
# nothing made, and nothing of the command left running. A command within
# the bound still works.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"

SITE=$TESTDIR/site
mkdir -p "$SITE"
printf '<html><body><a href="/b.html">b</a></body></html>\n' >"$SITE/index.html"
printf '<html><body>b</body></html>\n' >"$SITE/b.html"
export CGISNAP_TEST_SHCMD_TIMEOUT_MS=400
# Without the bound these would hang for 30 s: timeout(1) turns that into
# exit 124, a failure, well before.
HANG=20

# gone PIDFILE: the process whose pid is in PIDFILE is no more.
gone() {
	local pid
	pid=$(cat "$1" 2>/dev/null) || return 1
	[ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null
}

# timed_out WHAT OUT ERR MESSAGE: exit 2, ERR is the one line MESSAGE, OUT not made.
timed_out() {
	check_eq 2 "$4" "$1: exit status ($(cat "$3"))"
	check_eq "$5" "$(cat "$3")" "$1: the one line"
	check_no_file "$2" "$1: nothing made"
}

try "--seed-command that sleeps: timed out, exit 2, one line, nothing made, the command killed"
cmd="echo \$\$ >'$TESTDIR/seed.pid'; sleep 30; echo /b.html"
timeout "$HANG" "$CGISNAP" snapshot -q --root "$SITE" --site-url http://localhost:8080/ --seed-command "$cmd" \
	"$TESTDIR/s1" 2>"$TESTDIR/s1.err"
timed_out "seed" "$TESTDIR/s1" "$TESTDIR/s1.err" $? \
	"cgisnap: error: --seed-command '$cmd': timed out after 400 ms"
wait_until 5 gone "$TESTDIR/seed.pid"
check_eq 0 $? "the command's shell is gone"

try "a command that exits but leaves a child holding its stdout: timed out, the child killed too"
cmd="echo /b.html; sh -c 'echo \$\$ >\"$TESTDIR/child.pid\"; exec sleep 30' &"
timeout "$HANG" "$CGISNAP" snapshot -q --root "$SITE" --site-url http://localhost:8080/ --seed-command "$cmd" \
	"$TESTDIR/s2" 2>"$TESTDIR/s2.err"
timed_out "a child in the background" "$TESTDIR/s2" "$TESTDIR/s2.err" $? \
	"cgisnap: error: --seed-command '$cmd': timed out after 400 ms"
wait_until 5 gone "$TESTDIR/child.pid"
check_eq 0 $? "the background child is gone ($(cat "$TESTDIR/child.pid" 2>/dev/null))"

try "a command that closes its stdout and runs on: timed out (the wait for its exit is bounded too)"
cmd="echo /b.html; exec >&-; sleep 30"
timeout "$HANG" "$CGISNAP" snapshot -q --root "$SITE" --site-url http://localhost:8080/ --seed-command "$cmd" \
	"$TESTDIR/s3" 2>"$TESTDIR/s3.err"
timed_out "stdout closed" "$TESTDIR/s3" "$TESTDIR/s3.err" $? \
	"cgisnap: error: --seed-command '$cmd': timed out after 400 ms"

try "--site-url-command that sleeps: timed out; a whole number of seconds is said in seconds"
CGISNAP_TEST_SHCMD_TIMEOUT_MS=1000 timeout "$HANG" "$CGISNAP" snapshot -q --root "$SITE" \
	--site-url-command 'sleep 30; echo http://localhost/' "$TESTDIR/s4" 2>"$TESTDIR/s4.err"
# (snapshot says its site URL errors as usage errors, pointing at --help)
check_eq 2 $? "exit status ($(cat "$TESTDIR/s4.err"))"
check_eq 1 "$(wc -l <"$TESTDIR/s4.err")" "one line"
check_contains "$(cat "$TESTDIR/s4.err")" \
	"--site-url-command 'sleep 30; echo http://localhost/': timed out after 1 s" "the message"
check_no_file "$TESTDIR/s4" "nothing made"

try "watch --source-command that sleeps: timed out before watch makes anything"
timeout "$HANG" "$CGISNAP" watch --root "$SITE" --source-command 'sleep 30; echo .' "$TESTDIR/w1" \
	2>"$TESTDIR/w1.err"
timed_out "watch" "$TESTDIR/w1" "$TESTDIR/w1.err" $? \
	"cgisnap: error: --source-command 'sleep 30; echo .': timed out after 400 ms"

try "a command within the bound: its answer is used"
timeout "$HANG" "$CGISNAP" snapshot -q --root "$SITE" --site-url http://localhost:8080/ \
	--seed-command 'sleep 0.05; echo /b.html' "$TESTDIR/ok" 2>"$TESTDIR/ok.err"
check_eq 0 $? "exit status ($(cat "$TESTDIR/ok.err"))"
check_eq 200 "$(manifest_field "$TESTDIR/ok" /b.html 3)" "the seed was crawled"

finish
