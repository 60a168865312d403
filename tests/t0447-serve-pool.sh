#!/usr/bin/env bash
# t0447-serve-pool: serve --dynamic, --fallback and --fill render through
# the worker pool with a bounded line: many concurrent slow requests to
# real php-cgi workers (--cgi: php-cgi's children, and --cgi-spawn) never
# run more than --jobs rendering processes (the process table sampled
# under the load) and all answer
# 200; a worker crash fails its request only, the next one succeeds; no
# worker is left after SIGTERM.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-serve.sh"

# The workers are found by their runtime or session directory, named in
# their arguments and made under TMPDIR.
export TMPDIR=$TESTDIR/tmp
mkdir -p "$TMPDIR"
MARK_CGI=$TMPDIR/cgisnap-php-
MARK_SPAWN=$TMPDIR/cgisnap-workers-
# The processes that render: a php-cgi whose children serve (the master of
# --cgi's workers, docs/snapshot.md) renders nothing itself.
count() {
	local p n=0
	for p in $(pgrep -f -- "$1"); do
		pgrep -P "$p" -f -- "$1" >/dev/null || n=$((n + 1))
	done
	echo "$n"
}
none_of() { [ "$(count "$1")" = 0 ]; }

SITE=$TESTDIR/site
mkdir -p "$SITE"
printf '<?php usleep(600000); echo "<p>slow ", $_GET["n"] ?? "", "</p>";\n' >"$SITE/slow.php"
printf '<?php echo "<p>quick</p>";\n' >"$SITE/quick.php"
printf '<?php echo "<p>half a pa"; posix_kill(getmypid(), 11);\n' >"$SITE/crash.php"

# load PORT MARK N PATH: N concurrent GETs of PATH?n=I; prints the
# largest number of MARK processes seen while they ran, then each
# status code (sorted, counted).
load() {
	local p=$1 mark=$2 n=$3 path=$4 i max=0 c
	rm -f "$TESTDIR"/code.*
	for i in $(seq 1 "$n"); do
		curl -s -o /dev/null -w '%{http_code}\n' --max-time 30 "http://127.0.0.1:$p$path?n=$i" \
			>"$TESTDIR/code.$i" &
	done
	# Until every answer is in (30 s at most: curl's own bound).
	for _ in $(seq 1 600); do
		c=$(count "$mark")
		[ "$c" -gt "$max" ] && max=$c
		[ "$(cat "$TESTDIR"/code.* | wc -c)" -ge $((3 * n)) ] && break
		nap 0.05
	done
	wait
	echo "$max"
	cat "$TESTDIR"/code.* | sort | uniq -c | sed 's/^ *//'
}

P=$(port 0)
for how in cgi spawn; do
	if [ "$how" = cgi ]; then
		ORIGIN=(--cgi php=php-cgi)
		MARK=$MARK_CGI
	else
		ORIGIN=(--cgi-spawn php='php-cgi -b {socket}')
		MARK=$MARK_SPAWN
	fi
	try "serve --dynamic --jobs 2 ($how): 10 slow requests at once, 2 workers at most, all 200"
	bg_start "$CGISNAP" serve --dynamic --listen "127.0.0.1:$P" --threads 4 --jobs 2 --root "$SITE" \
		"${ORIGIN[@]}" 2>"$TESTDIR/serve.err"
	SERVE=$BG_PID
	wait_port "$P" 10 || fail "server did not start: $(cat "$TESTDIR/serve.err")"
	out=$(load "$P" "$MARK" 10 /slow.php)
	check_eq 2 "$(echo "$out" | head -1)" "most workers seen at once"
	check_eq "10 200" "$(echo "$out" | tail -n +2)" "status codes"
	check_contains "$(cat "$TESTDIR/serve.err")" "renders: 2 at once," "the start line says how many"

	try "a crash fails its own request only ($how); the requests beside it and the next one succeed"
	rm -f "$TESTDIR"/code.*
	pids=""
	for i in 1 2 3; do
		curl -s -o /dev/null -w '%{http_code}\n' --max-time 30 "http://127.0.0.1:$P/slow.php?n=$i" \
			>"$TESTDIR/code.$i" &
		pids="$pids $!"
	done
	check_eq 502 "$(code "http://127.0.0.1:$P/crash.php")" "the crash"
	wait $pids
	check_eq "3 200" "$(cat "$TESTDIR"/code.* | sort | uniq -c | sed 's/^ *//')" "the slow requests beside it"
	check_eq 200 "$(code "http://127.0.0.1:$P/quick.php")" "the next request"
	check_eq "<p>quick</p>" "$(curl -s "http://127.0.0.1:$P/quick.php")" "its body"
	check_contains "$(cat "$TESTDIR/serve.err")" "cannot render '/crash.php': killed by signal 11 (SIGSEGV)" \
		"the crash's reason in the log"
	check_le "$(count "$MARK")" 2 "workers after the crash"

	try "no worker is left after SIGTERM of serve ($how)"
	bg_stop "$SERVE" TERM
	wait_until 10 none_of "$MARK" || fail "workers left: $(pgrep -af -- "$MARK")"
	[ -z "$(ls "$TMPDIR" | grep cgisnap-workers-)" ] || fail "runtime directory left: $(ls "$TMPDIR")"
done

try "serve --fallback --fill --jobs 2: pages the tree lacks, rendered 2 at a time and stored"
T=$TESTDIR/tree
make_tree "$T"
bg_start "$CGISNAP" serve "$T" --listen "127.0.0.1:$P" --threads 4 --jobs 2 --fallback --fill --root "$SITE" \
	--cgi php=php-cgi 2>"$TESTDIR/serve.err"
SERVE=$BG_PID
wait_port "$P" 10 || fail "server did not start: $(cat "$TESTDIR/serve.err")"
out=$(load "$P" "$MARK_CGI" 8 /slow.php)
check_eq 2 "$(echo "$out" | head -1)" "most workers seen at once"
check_eq "8 200" "$(echo "$out" | tail -n +2)" "status codes"
check_eq "<p>slow 5</p>" "$(curl -s "http://127.0.0.1:$P/slow.php?n=5")" "a page"
bg_stop "$SERVE" TERM
wait_until 10 none_of "$MARK_CGI" || fail "workers left: $(pgrep -af -- "$MARK_CGI")"
check_eq "<p>slow 5</p>" "$(cat "$T/slow.php@n=5.html" 2>/dev/null)" "--fill stored it"

try "serve --jobs is checked like any number"
"$CGISNAP" serve --dynamic --jobs 0 --root "$SITE" --cgi php=php-cgi 2>"$TESTDIR/err"
check_eq 2 $? "exit status"
check_contains "$(cat "$TESTDIR/err")" "--jobs" "the message names the option"

finish
