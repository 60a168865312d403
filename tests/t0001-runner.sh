#!/usr/bin/env bash
# The runner itself: every failing script is named under "# failed:", and
# the totals add up, whatever way the script failed.
. "$(dirname "$0")/lib.sh"

d=$TESTDIR/scripts
mkdir -p "$d"
printf '#!/bin/bash\necho "# counts: 3 0"\nexit 0\n' > "$d/t9000-good.sh"
printf '#!/bin/bash\necho "# counts: 1 2"\nexit 1\n' > "$d/t9001-cases.sh"
printf '#!/bin/bash\necho "# counts: 2 0"\nexit 3\n' > "$d/t9002-status.sh"
printf '#!/bin/bash\necho "died early"\nexit 1\n' > "$d/t9003-died.sh"

try "a run with failing scripts lists each of them and ends with the totals"
out=$(TESTS_DIR=$d "$ROOT/tests/run" t9 2>&1)
check_eq 1 $? "runner exit status"
check_contains "$out" "# failed: t9001-cases t9002-status t9003-died" "failed list"
check_contains "$out" "FAIL - t9002-status: exit status 3" "exit status named"
check_contains "$out" "FAIL - t9003-died: ended without a result" "no result named"
check_eq "6 passed, 4 failed" "$(printf '%s\n' "$out" | tail -1)" "closing line"

try "a run where every script passes lists none and exits 0"
out=$(TESTS_DIR=$d "$ROOT/tests/run" t9000 2>&1)
check_eq 0 $? "runner exit status"
check_not_contains "$out" "# failed:" "no failed list"
check_eq "3 passed, 0 failed" "$(printf '%s\n' "$out" | tail -1)" "closing line"

try "KEEP_TESTDIR=failed keeps the directory of a failed script only"
d3=$TESTDIR/keep
mkdir -p "$d3"
for n in t9010-keep-pass t9011-keep-fail; do
	printf '#!/bin/bash\n. "%s/tests/lib.sh"\ntry x\necho "$TESTDIR" >"%s/%s.dir"\n%s\nfinish\n' \
		"$ROOT" "$d3" "$n" "$([ "$n" = t9011-keep-fail ] && echo 'fail "on purpose"')" >"$d3/$n.sh"
done
out=$(KEEP_TESTDIR=failed TESTS_DIR=$d3 "$ROOT/tests/run" t9 2>&1)
check_eq "1 passed, 1 failed" "$(printf '%s\n' "$out" | tail -1)" "closing line"
check_no_file "$(cat "$d3/t9010-keep-pass.dir")" "the passed script's directory"
[ -d "$(cat "$d3/t9011-keep-fail.dir")" ] || fail "the failed script's directory is gone"
check_contains "$out" "# kept $(cat "$d3/t9011-keep-fail.dir")" "named"
rm -rf "$(cat "$d3/t9011-keep-fail.dir")"

# Scripts that leave processes behind write their pids to $pids/NAME.
pids=$TESTDIR/pids
mkdir -p "$pids"
d2=$TESTDIR/leaky
mkdir -p "$d2"
# A plain background sleep, one double-forked (its parent gone) and one
# that setsid()ed out of the script's session: only the environment mark
# finds that one.
# Each pid is written once it runs sleep: a busy machine may not have
# exec'd it yet when the script ends, and the runner would name a bash.
cat >"$d2/t9100-leaky.sh" <<EOF
#!/bin/bash
running() { for _ in \$(seq 1 2000); do [ "\$(cat /proc/\$1/comm 2>/dev/null)" != sleep ] || return 0; sleep 0.005; done; }
sleep 1001 &
running \$! && echo \$! >"$pids/plain"
( sleep 1002 & running \$! && echo \$! >"$pids/double" ) &
wait \$!
( setsid sleep 1003 & running \$! && echo \$! >"$pids/setsid" )
echo "# counts: 1 0"
EOF
# Through lib.sh: a server that forks (as php -S with workers does), left
# to the cleanup at exit, and one stopped with bg_stop, whose child must
# be gone when bg_stop returns.
cat >"$d2/t9101-forks.sh" <<EOF
#!/bin/bash
. "$ROOT/tests/lib.sh"
try "a forking server left to the cleanup at exit"
bg_start bash -c 'sleep 1004 & echo \$! >"$pids/worker"; wait'
wait_until 10 test -s "$pids/worker" || fail "no worker"
try "bg_stop stops the children too"
bg_start bash -c 'sleep 1005 & echo \$! >"$pids/child"; wait'
wait_until 10 test -s "$pids/child" || fail "no child"
bg_stop "\$BG_PID"
check_eq 143 "\$?" "status of the stopped leader"
ps -o stat= -p "\$(cat "$pids/child")" | grep -qv Z && fail "its child still runs"
finish
EOF
# One deaf to TERM, its child too: KILL after BG_GRACE seconds.
cat >"$d2/t9102-deaf.sh" <<EOF
#!/bin/bash
. "$ROOT/tests/lib.sh"
BG_GRACE=1
try "a server deaf to TERM is killed after the grace period"
bg_start bash -c 'trap "" TERM; sleep 1006 & echo \$! >"$pids/deaf"; wait'
wait_until 10 test -s "$pids/deaf" || fail "no child"
bg_stop "\$BG_PID"
check_eq 137 "\$?" "status of the killed leader"
ps -o stat= -p "\$(cat "$pids/deaf")" | grep -qv Z && fail "its child still runs"
finish
EOF
# One stopped by the runner's timeout: its cleanup still runs.
cat >"$d2/t9103-slow.sh" <<EOF
#!/bin/bash
. "$ROOT/tests/lib.sh"
try "never ends"
bg_start sleep 1007
echo "\$BG_PID" >"$pids/slow"
echo "\$TESTDIR" >"$pids/testdir"
sleep 1008
finish
EOF

# alive NAME: the process whose pid is in $pids/NAME runs (a zombie not yet
# reaped does not count).
alive() {
	local pid state
	pid=$(cat "$pids/$1" 2>/dev/null) || return 1
	state=$(ps -o stat= -p "$pid") || return 1
	case "$state" in *Z*) return 1 ;; esac
}

try "a script that leaves processes running fails, naming them; they are killed"
out=$(TESTS_DIR=$d2 "$ROOT/tests/run" t9100 2>&1)
check_eq 1 $? "runner exit status"
check_contains "$out" "FAIL - t9100-leaky: left processes running: " "leftovers reported"
for what in plain:1001 double:1002 setsid:1003; do
	pid=$(cat "$pids/${what%:*}" 2>/dev/null)
	check_match "$out" "left processes running: .*$pid sleep ${what#*:}" "the ${what%:*} sleep named"
	alive "${what%:*}" && fail "the ${what%:*} sleep still runs"
done
check_contains "$out" "# failed: t9100-leaky" "failed list"
check_eq "1 passed, 1 failed" "$(printf '%s\n' "$out" | tail -1)" "closing line"

try "bg_start's processes and what they fork are stopped, by bg_stop or at exit"
# A bound, for a stop that would wait forever.
out=$(TESTS_DIR=$d2 TEST_TIMEOUT=60 "$ROOT/tests/run" t9101 t9102 2>&1)
check_eq 0 $? "runner exit status"
check_not_contains "$out" "left processes" "no leftovers"
check_eq "3 passed, 0 failed" "$(printf '%s\n' "$out" | tail -1)" "closing line"
for what in worker child deaf; do
	alive "$what" && fail "the $what sleep still runs"
done

try "a script stopped by the timeout still stops its processes and removes its directory"
out=$(TESTS_DIR=$d2 TEST_TIMEOUT=10 "$ROOT/tests/run" t9103 2>&1)
check_eq 1 $? "runner exit status"
check_contains "$out" "FAIL - t9103-slow: timed out" "timeout named"
check_not_contains "$out" "left processes" "no leftovers"
alive slow && fail "its background sleep still runs"
check_file "$pids/testdir" "the script wrote its directory's name"
[ -s "$pids/testdir" ] && check_no_file "$(cat "$pids/testdir")" "its directory"

try "wait_port takes the test's own server, never a program outside the test that took its port"
# listener PORT PIDFILE: listen on PORT until killed, pid in PIDFILE.
listener() {
	python3 -c 'import os, socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen()
open(sys.argv[2], "w").write("%d\n" % os.getpid())
time.sleep(600)' "$@"
}
P=$(port 0)
# Outside: a session of its own, without the run's mark (as any program
# of the machine).
env -u CGISNAP_TEST_RUN setsid -f bash -c "$(declare -f listener); listener $P '$pids/outside'"
wait_until 30 test -s "$pids/outside"
err=$(wait_port "$P" 30 2>&1)
check_eq 2 $? "wait_port's status on an outside program"
check_contains "$err" "port $P is held by a program outside this test: users:((\"python3\"" "it names the program"
kill "$(cat "$pids/outside")"
wait_until 30 sh -c "! kill -0 $(cat "$pids/outside") 2>/dev/null"
bg_start listener "$P" "$pids/ours"
wait_port "$P" 30
check_eq 0 $? "wait_port's status on the test's own server"
bg_stop "$BG_PID"

try "port never hands out a port of the kernel's ephemeral range, where outgoing connections get theirs"
read -r lo hi </proc/sys/net/ipv4/ip_local_port_range
# A base that would put this script's first tries inside the range.
P=$(CGISNAP_TEST_PORT_BASE=$((lo - (TEST_NUMBER % 4000) * 10)) port 5)
check_eq 0 $? "port's status"
[ "$P" -lt "$lo" ] || [ "$P" -gt "$hi" ] || fail "port $P is in the ephemeral range $lo-$hi"

# What a broken runner left is not this script's leftover.
for f in "$pids"/*; do
	[ "${f##*/}" != testdir ] || continue
	[ -s "$f" ] && alive "${f##*/}" && kill -KILL "$(cat "$f")"
done

finish
