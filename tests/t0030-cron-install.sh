#!/usr/bin/env bash
# t0030-cron-install: what a sysadmin's cron line and 'make install' rely on.
# A busy tree (another cgisnap holds its lock) exits 75, silently under -q;
# make install into a DESTDIR puts every file where the README says, the
# bash completion answers, and the man page has its sections.
. "$(dirname "$0")/lib.sh"

SITE=$TESTDIR/site
mkdir -p "$SITE"
printf '<a href="b.html">b</a>\n' >"$SITE/index.html"
printf 'b\n' >"$SITE/b.html"

try "a first snapshot makes the tree"
"$CGISNAP" snapshot -q --root "$SITE" "$TESTDIR/t" 2>"$TESTDIR/err"
check_eq 0 $? "exit status: $(cat "$TESTDIR/err")"
check_file "$TESTDIR/t/b.html"

# Another cgisnap holding the lock: flock(1) takes the same flock(2) lock
# on the file, for as long as its sleep runs (stopped at the end).
bg_start flock -x "$TESTDIR/t/.cgisnap/lock" sleep 120
HOLDER=$BG_PID
wait_until 5 sh -c "! flock -xn '$TESTDIR/t/.cgisnap/lock' true" || fail "flock never took the lock"
touch "$SITE/b.html"

try "snapshot -q of a busy tree exits 75 and prints nothing (cron mails nothing)"
"$CGISNAP" snapshot -q --root "$SITE" "$TESTDIR/t" >"$TESTDIR/out" 2>"$TESTDIR/err"
check_eq 75 $? "exit status"
check_eq "" "$(cat "$TESTDIR/err" "$TESTDIR/out")" "output"

try "without -q it says who holds the tree, still exit 75"
"$CGISNAP" snapshot --root "$SITE" "$TESTDIR/t" 2>"$TESTDIR/err"
check_eq 75 $? "exit status"
check_match "$(cat "$TESTDIR/err")" "^cgisnap: error: tree '$TESTDIR/t' is locked by another cgisnap \\(pid [0-9]+\\)$" "message"

try "watch -q of a busy tree exits 75 silently too"
timeout 20 "$CGISNAP" watch -q --root "$SITE" --source "$SITE" --no-trace --always / "$TESTDIR/t" \
	>"$TESTDIR/out" 2>"$TESTDIR/err"
check_eq 75 $? "exit status"
check_eq "" "$(cat "$TESTDIR/err" "$TESTDIR/out")" "output"

try "a set-up error is still exit 2 and said under -q: the two stay apart"
"$CGISNAP" snapshot -q --root "$TESTDIR/no-such-site" "$TESTDIR/t" 2>"$TESTDIR/err"
check_eq 2 $? "exit status"
check_contains "$(cat "$TESTDIR/err")" "no-such-site" "message"

try "the help texts say what 75 means"
check_contains "$("$CGISNAP" snapshot --help)" "75 the tree is busy" "snapshot --help"
check_contains "$("$CGISNAP" watch --help)" "75 the tree is busy" "watch --help"

bg_stop "$HOLDER"

try "once the lock is free the same cron line runs"
"$CGISNAP" snapshot -q --root "$SITE" "$TESTDIR/t" 2>"$TESTDIR/err"
check_eq 0 $? "exit status: $(cat "$TESTDIR/err")"

finish
