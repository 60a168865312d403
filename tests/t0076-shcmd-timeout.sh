#!/usr/bin/env bash
# t0076-shcmd-timeout: the commands that ask the site itself
# (--seed-command, --site-url-command, watch's --source-command) are
# bounded (lib/base/shcmd.h: 60 s, here a few hundred ms through the test hook
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

# times_out WHAT OUT MESSAGE ARGS...: cgisnap ARGS... OUT exits 2 with the one
# line MESSAGE and makes nothing.
times_out() {
	local what=$1 out=$2 msg=$3 rc
	shift 3
	timeout "$HANG" "$CGISNAP" "$@" "$out" 2>"$out.err"
	rc=$?
	check_eq 2 "$rc" "$what: exit status ($(cat "$out.err"))"
	check_eq "$msg" "$(cat "$out.err")" "$what: the one line"
	check_no_file "$out" "$what: nothing made"
}

# seed_times_out WHAT OUT CMD: a snapshot whose --seed-command is CMD times out.
seed_times_out() {
	times_out "$1" "$2" "cgisnap: error: --seed-command '$3': timed out after 400 ms" \
		snapshot -q --root "$SITE" --site-url http://localhost:8080/ --seed-command "$3"
}

try "--seed-command that sleeps: timed out, exit 2, one line, nothing made, the command killed"
seed_times_out "seed" "$TESTDIR/s1" "echo \$\$ >'$TESTDIR/seed.pid'; sleep 30; echo /b.html"
wait_until 5 gone "$TESTDIR/seed.pid"
check_eq 0 $? "the command's shell is gone"

try "a command that exits but leaves a child holding its stdout: timed out, the child killed too"
seed_times_out "a child in the background" "$TESTDIR/s2" \
	"echo /b.html; sh -c 'echo \$\$ >\"$TESTDIR/child.pid\"; exec sleep 30' &"
wait_until 5 gone "$TESTDIR/child.pid"
check_eq 0 $? "the background child is gone ($(cat "$TESTDIR/child.pid" 2>/dev/null))"

try "a command that closes its stdout and runs on: timed out (the wait for its exit is bounded too)"
seed_times_out "stdout closed" "$TESTDIR/s3" "echo /b.html; exec >&-; sleep 30"

try "--site-url-command that sleeps: timed out; a whole number of seconds is said in seconds"
# (snapshot says its site URL errors as usage errors, pointing at --help)
cmd='sleep 30; echo http://localhost/'
CGISNAP_TEST_SHCMD_TIMEOUT_MS=1000 times_out "site URL" "$TESTDIR/s4" \
	"cgisnap snapshot: --site-url-command '$cmd': timed out after 1 s (see 'cgisnap snapshot --help')" \
	snapshot -q --root "$SITE" --site-url-command "$cmd"

try "watch --source-command that sleeps: timed out before watch makes anything"
times_out "watch" "$TESTDIR/w1" "cgisnap: error: --source-command 'sleep 30; echo .': timed out after 400 ms" \
	watch --root "$SITE" --source-command 'sleep 30; echo .'

try "a command within the bound: its answer is used"
timeout "$HANG" "$CGISNAP" snapshot -q --root "$SITE" --site-url http://localhost:8080/ \
	--seed-command 'sleep 0.05; echo /b.html' "$TESTDIR/ok" 2>"$TESTDIR/ok.err"
check_eq 0 $? "exit status ($(cat "$TESTDIR/ok.err"))"
check_eq 200 "$(manifest_field "$TESTDIR/ok" /b.html 3)" "the seed was crawled"

finish
