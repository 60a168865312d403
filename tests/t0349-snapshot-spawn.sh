#!/usr/bin/env bash
# t0349-snapshot-spawn: --cgi-spawn EXT='COMMAND' runs any program that
# serves FastCGI on a socket it is given as a pool of workers: a second
# real FastCGI program (Perl's FCGI, tests/fixtures/spawn/tpl.pl) on fd 0
# and on a socket it binds ({socket}), php-cgi spelled as a command (the
# same trees as --cgi), the pool's semantics (persistent, a crash retried
# once, a hang killed, recycling, nothing left however cgisnap ends), *.cgi
# still a process per render, watch through the same pool (untraced), and
# bad values refused in one line.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"

export TMPDIR=$TESTDIR/tmp
mkdir -p "$TMPDIR"
# The program under its own path, so that the process table finds it.
APP=$TESTDIR/bin/tpl.pl
mkdir -p "$TESTDIR/bin"
cp "$ROOT/tests/fixtures/spawn/tpl.pl" "$APP"
chmod +x "$APP"
workers() { pgrep -f -- "$TESTDIR/bin/" || true; }
no_workers() { [ -z "$(workers)" ]; }
some_workers() { [ -n "$(workers)" ]; }
no_runtime_dir() { [ -z "$(ls "$TMPDIR" | grep cgisnap-workers-)" ]; }

SITE=$TESTDIR/site
mkdir -p "$SITE/sub"
{
	echo '<html><body>'
	for i in 1 2 3 4 5 6; do echo "<a href=\"/p$i.tpl?n=$i\">p$i</a>"; done
	echo '<a href="/sub/q.tpl">q</a> <a href="/a.cgi">a</a> <a href="/b.cgi">b</a>'
	echo '</body></html>'
} >"$SITE/index.html"
for i in 1 2 3 4 5 6; do
	printf '<p>page %s, query {{query}}</p>\n<a href="/sub/q.tpl?from=%s">q</a>\n' "$i" "$i" >"$SITE/p$i.tpl"
done
printf '<p>q: {{query}}</p>\n' >"$SITE/sub/q.tpl"
for c in a b; do
	cat >"$SITE/$c.cgi" <<'EOF'
#!/bin/sh
printf 'Content-Type: text/plain\n\n'
if [ -S /dev/stdin ]; then echo "stdin is a socket"; else echo "a process per render"; fi
echo "pid $$"
EOF
	chmod +x "$SITE/$c.cgi"
done

try "a Perl FastCGI program on fd 0 and on its own socket: the same tree as a process per render"
"$CGISNAP" snapshot --root "$SITE" --cgi tpl="$APP" -j 2 "$TESTDIR/fork" 2>"$TESTDIR/err"
check_eq 0 $? "exit status, fork ($(cat "$TESTDIR/err"))"
"$CGISNAP" snapshot --root "$SITE" --cgi-spawn tpl="perl '$APP'" -j 2 "$TESTDIR/fd0" 2>"$TESTDIR/err"
check_eq 0 $? "exit status, fd 0 ($(cat "$TESTDIR/err"))"
"$CGISNAP" snapshot --root "$SITE" --cgi-spawn tpl="'$APP' --socket {socket}" -j 2 "$TESTDIR/bound" \
	2>"$TESTDIR/err"
check_eq 0 $? "exit status, {socket} ($(cat "$TESTDIR/err"))"
check_eq "<p>page 3, query n=3</p>" "$(head -1 "$TESTDIR/fd0/p3.tpl@n=3.html")" "a page rendered by the pool"
check_file "$TESTDIR/fd0/sub/q.tpl@from=6.html" "a page found on a page"
check_eq "" "$(diff -r -x .cgisnap -x '*.cgi' "$TESTDIR/fork" "$TESTDIR/fd0")" "fd 0 tree differs"
check_eq "" "$(diff -r -x .cgisnap -x '*.cgi' "$TESTDIR/fork" "$TESTDIR/bound")" "{socket} tree differs"
check_eq "$(manifest_targets "$TESTDIR/fork")" "$(manifest_targets "$TESTDIR/fd0")" "manifest targets"
check_eq "" "$(workers)" "workers left after the runs"
no_runtime_dir || fail "runtime directory left: $(ls "$TMPDIR")"

try "plain executable *.cgi keeps a process per render beside the pool"
for c in a b; do
	check_eq "a process per render" "$(head -1 "$TESTDIR/fd0/$c.cgi")" "$c.cgi's stdin"
done
check_ne "$(sed -n 2p "$TESTDIR/fd0/a.cgi")" "$(sed -n 2p "$TESTDIR/fd0/b.cgi")" "two processes for two pages"

try "php-cgi spelled as a command, on fd 0 and with -b {socket}: the sample wiki's tree as --cgi"
seed_wiki "$TESTDIR/wiki" 30
snap_wiki "$TESTDIR/wiki" "$TESTDIR/wiki-cgi" -j 2 2>"$TESTDIR/err"
check_eq 0 $? "exit status, --cgi"
for cmd in "php-cgi" "php-cgi -b {socket}"; do
	rm -rf "$TESTDIR/wiki-spawn"
	"$CGISNAP" snapshot --root "$TESTDIR/wiki" --cgi-spawn php="$cmd" --site-url http://localhost:8080/ \
		--strip "$WIKI_STRIP" --robots-meta ignore --not-found '/doku.php?id=cgisnap:no-such-page' -j 2 \
		"$TESTDIR/wiki-spawn" 2>"$TESTDIR/err"
	check_eq 0 $? "exit status, --cgi-spawn php='$cmd' ($(cat "$TESTDIR/err"))"
	check_eq "" "$(diff -r -x .cgisnap "$TESTDIR/wiki-cgi" "$TESTDIR/wiki-spawn")" "'$cmd': trees differ"
	check_eq "$(manifest_targets "$TESTDIR/wiki-cgi")" "$(manifest_targets "$TESTDIR/wiki-spawn")" \
		"'$cmd': manifest targets"
done
check_eq "" "$(pgrep -f -- "$TMPDIR/cgisnap-workers-" || true)" "php-cgi left after the runs"

# Pages that say which process rendered them.
PIDS=$TESTDIR/pids
mkdir -p "$PIDS"
{
	for i in 1 2 3 4 5 6; do echo "<a href=\"/p$i.tpl\">p$i</a>"; done
} >"$PIDS/index.html"
for i in 1 2 3 4 5 6; do printf 'page %s by {{pid}}\n' "$i" >"$PIDS/p$i.tpl"; done
pids_of() { cat "$1"/p*.tpl | sed -E 's/.* by ([0-9]+).*/\1/' | sort | uniq -c; }

for cmd in "perl '$APP'" "'$APP' --socket {socket}"; do
	try "the workers persist and are recycled after --cgi-max-requests ($cmd)"
	rm -rf "$TESTDIR/r1" "$TESTDIR/r2"
	"$CGISNAP" snapshot --root "$PIDS" --cgi-spawn tpl="$cmd" -j 1 "$TESTDIR/r1" 2>"$TESTDIR/err"
	check_eq 0 $? "exit status ($(cat "$TESTDIR/err"))"
	check_eq 1 "$(pids_of "$TESTDIR/r1" | wc -l)" "one worker for 6 pages: $(pids_of "$TESTDIR/r1")"
	"$CGISNAP" snapshot --root "$PIDS" --cgi-spawn tpl="$cmd" -j 1 --cgi-max-requests 2 "$TESTDIR/r2" \
		2>"$TESTDIR/err"
	check_eq 0 $? "exit status ($(cat "$TESTDIR/err"))"
	p=$(pids_of "$TESTDIR/r2")
	check_eq 3 "$(echo "$p" | wc -l)" "distinct workers for 6 pages, 2 each: $p"
	check_eq "" "$(echo "$p" | awk '$1 != 2')" "pages per worker"
	check_eq "" "$(workers)" "workers left after the run"
done

# Faults: linked first, then pages that must still render.
FAULTS=$TESTDIR/faults
mkdir -p "$FAULTS"
{
	echo '<a href="/crash.tpl">c</a> <a href="/hang.tpl">h</a>'
	for i in 1 2 3 4; do echo "<a href=\"/p$i.tpl\">p$i</a>"; done
} >"$FAULTS/index.html"
printf 'crash\n%s\n' "$TESTDIR/crashes" >"$FAULTS/crash.tpl"
printf 'hang\n' >"$FAULTS/hang.tpl"
for i in 1 2 3 4; do printf 'page %s\n' "$i" >"$FAULTS/p$i.tpl"; done

try "a crash is retried once on a fresh worker and fails its URL only; a hang is killed at --timeout"
"$CGISNAP" snapshot --root "$FAULTS" --cgi-spawn tpl="perl '$APP'" -j 1 --timeout 2 "$TESTDIR/f-out" \
	2>"$TESTDIR/err"
check_eq 1 $? "exit status"
err=$(cat "$TESTDIR/err")
check_contains "$err" "failed: /crash.tpl: killed by signal 11 (SIGSEGV)" "the crash and its reason"
check_contains "$err" "failed: /hang.tpl: timed out after 2 s" "the hang"
check_eq 2 "$(grep -c 'failed: ' "$TESTDIR/err")" "number of failed URLs"
check_eq "xx" "$(cat "$TESTDIR/crashes" 2>/dev/null)" "the crash ran twice"
for i in 1 2 3 4; do check_eq "page $i" "$(cat "$TESTDIR/f-out/p$i.tpl" 2>/dev/null)" "p$i.tpl stored"; done
check_eq "" "$(workers)" "workers left after the run"
no_runtime_dir || fail "runtime directory left: $(ls "$TMPDIR")"

try "a program that never listens on {socket} fails its pages with the reason"
"$CGISNAP" snapshot --root "$PIDS" --cgi-spawn tpl="'$APP' --socket /nonexistent/dir/s {socket}" -j 1 \
	"$TESTDIR/n-out" 2>"$TESTDIR/err"
check_eq 1 $? "exit status"
check_match "$(cat "$TESTDIR/err")" "failed: /p1.tpl: exited with status [0-9]+ before listening on '$TMPDIR/cgisnap-workers-[^/]+/w0.sock'" \
	"reason"
check_eq "" "$(workers)" "workers left after the run"

# Slow pages keep the workers busy while cgisnap is stopped.
for i in 1 2 3 4; do printf 'hang\n' >"$FAULTS/p$i.tpl"; done
for sig in TERM KILL; do
	for cmd in "perl '$APP'" "'$APP' --socket {socket}"; do
		try "no worker is left after SIG$sig of cgisnap ($cmd)"
		rm -rf "$TESTDIR/s-out"
		bg_start "$CGISNAP" snapshot --root "$FAULTS" --cgi-spawn tpl="$cmd" -j 2 "$TESTDIR/s-out" 2>/dev/null
		wait_until 20 some_workers || fail "no worker started"
		sleep 0.3
		bg_stop "$BG_PID" "$sig"
		wait_until 10 no_workers || fail "workers left: $(workers)"
	done
done

try "watch renders through the pool too: its pages said once to be untraced, re-rendered on a change"
. "$ROOT/tests/lib-watch.sh"
for i in 1 2 3 4 5 6; do printf 'page %s by {{pid}}\n' "$i" >"$PIDS/p$i.tpl"; done
LOG=$TESTDIR/watch.log
watch_start "$LOG" --root "$PIDS" --cgi-spawn tpl="perl '$APP'" -j 1 --source "$PIDS" "$TESTDIR/w-out" ||
	fail "watch did not start: $(cat "$LOG")"
check_eq 1 "$(grep -c "warning: 'perl '$APP'' runs as a --cgi-spawn FastCGI worker, which is not traced: its pages cannot be traced and re-render on every change" "$LOG")" \
	"one warning ($(cat "$LOG"))"
check_eq 1 "$(pids_of "$TESTDIR/w-out" | wc -l)" "one worker rendered the snapshot"
some_workers || fail "the pool is not kept warm between batches"
printf 'page 6 edited by {{pid}}\n' >"$PIDS/p6.tpl"
wait_file_has "$TESTDIR/w-out/p6.tpl" "page 6 edited" || fail "p6 not re-rendered: $(cat "$LOG")"
watch_stop
check_eq 0 "$WATCH_STATUS" "watch's exit status"
wait_until 10 no_workers || fail "workers left after watch: $(workers)"

try "bad --cgi-spawn values are refused in one line, exit 2"
bad() {
	"$CGISNAP" snapshot --root "$PIDS" "$@" "$TESTDIR/bad" 2>"$TESTDIR/err"
	check_eq 2 $? "exit status for $*"
	check_eq 1 "$(wc -l <"$TESTDIR/err")" "one line for $*: $(cat "$TESTDIR/err")"
	cat "$TESTDIR/err"
}
check_contains "$(bad --cgi-spawn tpl=)" "bad --cgi-spawn value 'tpl=' (expected EXT=COMMAND)" "empty command"
check_contains "$(bad --cgi-spawn "=perl x")" "bad --cgi-spawn value '=perl x' (expected EXT=COMMAND)" "no EXT"
check_contains "$(bad --cgi-spawn 'tpl=no-such-program-xyz -b {socket}')" \
	"--cgi-spawn program 'no-such-program-xyz' is not on PATH" "missing program"
check_contains "$(bad --cgi tpl="$APP" --cgi-spawn tpl="perl '$APP'")" \
	"bad --cgi-spawn value 'tpl=perl '$APP'': *.tpl has a handler already" "two handlers"
check_eq "" "$(workers)" "workers left"

finish
