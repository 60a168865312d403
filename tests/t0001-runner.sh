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

finish
