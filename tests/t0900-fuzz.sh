#!/usr/bin/env bash
# The fuzz targets of tests/fuzz/: make builds them, each runs a few seconds
# from its committed seeds and finds nothing, the seeds are only read, and
# the checks are real: inverted (CGISNAP_FUZZ_SELFTEST=1) they fail on the
# first seed and libFuzzer saves that input.
. "$(dirname "$0")/lib.sh"

# tests/run points the sanitizers of SANITIZE=1 builds at a log file; the
# fuzzers report on stderr, where these checks read them.
unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS
# Each target runs this many inputs (a second or so for the slowest,
# links_html, on an idle machine): a count, not a time, so that a loaded
# machine (a make test beside this one) makes the run longer, never the
# check fail. FUZZ_SECONDS only bounds it.
runs_wanted=${FUZZ_RUNS:-200}
names=$(cd "$ROOT/tests/fuzz" && ls fuzz_*.c | sed 's/^fuzz_//; s/\.c$//')

try "every target has a seed corpus"
check_ne "" "$names" "targets found"
for n in $names; do
	count=$(find "$ROOT/tests/fuzz/corpus/$n" -type f 2>/dev/null | wc -l)
	[ "$count" -ge 3 ] || fail "$n: $count seed files in tests/fuzz/corpus/$n"
done

try "make fuzz-build builds every target with libFuzzer"
out=$(make -C "$ROOT" -j2 --no-print-directory fuzz-build 2>&1)
check_eq 0 $? "make fuzz-build status: $out"
for n in $names; do
	[ -x "$ROOT/build/fuzz/fuzz_$n" ] || fail "build/fuzz/fuzz_$n was not built"
done

try "each target's seeds violate nothing"
for n in $names; do
	out=$("$ROOT/build/fuzz/fuzz_$n" "$ROOT"/tests/fuzz/corpus/"$n"/* 2>&1)
	check_eq 0 $? "$n on its seeds: $(printf '%s' "$out" | grep -m1 -E 'invariant|ERROR')"
	seeds=$(find "$ROOT/tests/fuzz/corpus/$n" -type f | wc -l)
	check_eq "$seeds" "$(printf '%s\n' "$out" | grep -c '^Executed ')" "$n: seeds run"
done

try "inverted checks fail each target on its first seed"
for n in $names; do
	seed=$(ls "$ROOT/tests/fuzz/corpus/$n" | head -1)
	out=$(CGISNAP_FUZZ_SELFTEST=1 "$ROOT/build/fuzz/fuzz_$n" "$ROOT/tests/fuzz/corpus/$n/$seed" 2>&1)
	check_ne 0 $? "$n self-test exit status"
	check_contains "$out" "invariant broken at tests/fuzz/" "$n self-test message"
	check_contains "$out" "(self-test)" "$n self-test mode"
done

try "while fuzzing, a broken check stops the run and saves the input"
for n in $names; do
	mkdir -p "$TESTDIR/selftest-$n"
	cp "$ROOT"/tests/fuzz/corpus/"$n"/* "$TESTDIR/selftest-$n/"
	out=$(CGISNAP_FUZZ_SELFTEST=1 "$ROOT/build/fuzz/fuzz_$n" -max_total_time=5 \
		-artifact_prefix="$TESTDIR/selftest-$n-" "$TESTDIR/selftest-$n" 2>&1)
	check_ne 0 $? "$n self-test exit status"
	saved=$(ls "$TESTDIR"/selftest-"$n"-crash-* 2>/dev/null | head -1)
	check_ne "" "$saved" "$n: crashing input saved"
	[ -n "$saved" ] || continue
	check_contains "$out" "Test unit written to $saved" "$n: input named"
	# The saved input replays the failure, and holds nothing really wrong.
	CGISNAP_FUZZ_SELFTEST=1 "$ROOT/build/fuzz/fuzz_$n" "$saved" >/dev/null 2>&1
	check_ne 0 $? "$n: saved input replayed in self-test mode"
	"$ROOT/build/fuzz/fuzz_$n" "$saved" >/dev/null 2>&1
	check_eq 0 $? "$n: saved input replayed"
done

try "make fuzz runs every target on $runs_wanted inputs from a copy of its seeds and finds nothing"
before=$(cd "$ROOT/tests/fuzz/corpus" && find . -type f | sort | xargs sha256sum)
out=$(make -C "$ROOT" --no-print-directory fuzz FUZZ_SECONDS=120 FUZZ_RUNS="$runs_wanted" \
	FUZZ_CORPUS="$TESTDIR/corpus" FUZZ_ARTIFACTS="$TESTDIR/artifacts" 2>&1)
status=$?
check_eq 0 $status "make fuzz status"
if [ $status -ne 0 ]; then
	printf '%s\n' "$out" | grep -E 'invariant broken|ERROR|SUMMARY|^fuzz ' | head -20 | sed 's/^/    /'
fi
check_eq "" "$(ls "$TESTDIR/artifacts" 2>/dev/null)" "nothing found"
# "fuzz NAME: S s" starts each target's output, libFuzzer's "Done N runs in
# S second(s)" ends it.
runs=$(printf '%s\n' "$out" | awk '/^fuzz [a-z_]*: /{n=$2; sub(":", "", n)}
	/^Done [0-9]+ runs/{print n, $2}')
for n in $names; do
	r=$(printf '%s\n' "$runs" | awk -v n="$n" '$1 == n {print $2}')
	[ "${r:-}" = "$runs_wanted" ] || fail "$n: ran '${r:-no}' inputs, expected $runs_wanted"
	[ "$(ls "$TESTDIR/corpus/$n" | wc -l)" -ge "$(ls "$ROOT/tests/fuzz/corpus/$n" | wc -l)" ] ||
		fail "$n: the working corpus lacks the seeds"
done
after=$(cd "$ROOT/tests/fuzz/corpus" && find . -type f | sort | xargs sha256sum)
check_eq "$before" "$after" "the committed corpus is unchanged"

finish
