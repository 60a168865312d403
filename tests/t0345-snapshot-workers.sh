#!/usr/bin/env bash
# t0345-snapshot-workers: --cgi php=php-cgi renders through a pool of
# persistent php-cgi FastCGI workers: the same trees as a process per
# render, a crash, a hang or a leak fails only its URL, the pool recovers
# and recycles, and no worker outlives cgisnap, however it ends.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"

# The workers' session directory is made under TMPDIR and named in their
# arguments: the process table finds them by it.
export TMPDIR=$TESTDIR/tmp
mkdir -p "$TMPDIR"
MARK=$TMPDIR/cgisnap-php-
workers() { pgrep -f -- "$MARK" || true; }
no_workers() { [ -z "$(workers)" ]; }
some_workers() { [ -n "$(workers)" ]; }
no_runtime_dir() { [ -z "$(ls "$TMPDIR" | grep cgisnap-workers-)" ]; }

# same_trees wiki|blog N: the sample site of N pages (posts) snapshotted in
# workers and in fork mode gives the same files and manifest targets, and
# leaves no worker behind.
same_trees() {
	local d=$TESTDIR/$1
	"seed_$1" "$d" "$2"
	"snap_$1" "$d" "$d-w" -j 2 2>"$TESTDIR/err-w"
	check_eq 0 $? "exit status, workers"
	"snap_$1" "$d" "$d-f" -j 2 --cgi-mode fork 2>"$TESTDIR/err-f"
	check_eq 0 $? "exit status, fork"
	check_eq "" "$(diff -r -x .cgisnap "$d-w" "$d-f")" "trees differ"
	check_eq "$(manifest_targets "$d-f")" "$(manifest_targets "$d-w")" "manifest targets"
	check_eq "" "$(workers)" "workers left after the run"
}

try "the sample wiki: workers and fork mode store byte-identical trees"
same_trees wiki 40
check_file "$TESTDIR/wiki-w/doku.php@id=wiki:syntax.html" "a page"
no_runtime_dir || fail "runtime directory left: $(ls "$TMPDIR")"

try "the sample blog: workers and fork mode store byte-identical trees"
same_trees blog 20

# Fault fixtures, linked first, then pages that must still render.
SITE=$TESTDIR/faults
mkdir -p "$SITE"
{
	echo '<html><body><a href="/crash.php">c</a> <a href="/hang.php">h</a> <a href="/leak.php">l</a>'
	for i in 1 2 3 4 5 6; do echo "<a href=\"/p$i.php\">p$i</a>"; done
	echo '</body></html>'
} >"$SITE/index.html"
cat >"$SITE/crash.php" <<'PHP'
<?php
file_put_contents(__DIR__ . '/../crashes', "x", FILE_APPEND);
echo "<p>half a pa";
posix_kill(getmypid(), 11);
PHP
printf '<?php echo "<p>"; sleep(30); echo "late</p>";\n' >"$SITE/hang.php"
printf '<?php ini_set("memory_limit", "16M"); $a = []; while (true) $a[] = str_repeat("x", 1 << 20);\n' >"$SITE/leak.php"
for i in 1 2 3 4 5 6; do
	printf '<?php echo "<p>page %s by ", getmypid(), "</p>\\n";\n' "$i" >"$SITE/p$i.php"
done

try "a crash, a hang and a leak each fail only their URL; the pool recovers"
"$CGISNAP" snapshot --root "$SITE" --cgi php=php-cgi -j 1 --timeout 2 "$TESTDIR/f-out" 2>"$TESTDIR/err"
check_eq 1 $? "exit status"
err=$(cat "$TESTDIR/err")
check_contains "$err" "failed: /crash.php: killed by signal 11 (SIGSEGV)" "crash and its reason"
check_contains "$err" "failed: /hang.php: timed out after 2 s" "hang"
check_contains "$err" "failed: /leak.php:" "leak"
check_eq 3 "$(grep -c 'failed: ' "$TESTDIR/err")" "number of failed URLs"
check_eq "xx" "$(cat "$TESTDIR/crashes" 2>/dev/null)" "the crash was tried once more, on a fresh worker"
for i in 1 2 3 4 5 6; do
	check_match "$(cat "$TESTDIR/f-out/p$i.php" 2>/dev/null)" "^<p>page $i by [0-9]+</p>$" "p$i.php stored"
done
check_eq "" "$(workers)" "workers left after the run"
no_runtime_dir || fail "runtime directory left: $(ls "$TMPDIR")"

try "a page hung in a program it started: past --timeout the program goes with its worker"
HUNG=$TESTDIR/hung
mkdir -p "$HUNG"
printf '<?php echo "<p>", shell_exec("exec sleep 301"), "</p>";\n' >"$HUNG/index.php"
printf '<?php echo "<p>quick</p>";\n' >"$HUNG/quick.php"
# serve --dynamic keeps its php-cgi: the program is looked for while it runs
P=$(port 0)
bg_start "$CGISNAP" serve --dynamic --listen "127.0.0.1:$P" --root "$HUNG" --cgi php=php-cgi -j 1 --timeout 2 \
	--access-log off 2>"$TESTDIR/serve.err"
SERVE=$BG_PID
wait_port "$P" 10 || fail "dynamic server did not start"
check_eq 502 "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$P/")" "the hung page"
check_contains "$(cat "$TESTDIR/serve.err")" "timed out after 2 s" "its reason in the log"
check_eq "<p>quick</p>" "$(curl -s "http://127.0.0.1:$P/quick.php")" "the next page"
check_eq "" "$(pgrep -f "sleep 301")" "the program left running"
bg_stop "$SERVE" TERM

try "fork mode gives the same failures (the crash runs once)"
rm -f "$TESTDIR/crashes"
"$CGISNAP" snapshot --root "$SITE" --cgi php=php-cgi --cgi-mode fork -j 1 --timeout 2 \
	"$TESTDIR/f-fork" 2>"$TESTDIR/err"
check_eq 1 $? "exit status"
check_contains "$(cat "$TESTDIR/err")" "failed: /crash.php: killed by signal 11 (SIGSEGV)" "crash"
check_eq 3 "$(grep -c 'failed: ' "$TESTDIR/err")" "number of failed URLs"
check_eq "x" "$(cat "$TESTDIR/crashes" 2>/dev/null)" "one run of the crash"

try "a worker is recycled after --cgi-max-requests requests"
rm -f "$SITE"/crash.php "$SITE"/hang.php "$SITE"/leak.php
"$CGISNAP" snapshot --root "$SITE" --cgi php=php-cgi -j 1 --cgi-max-requests 2 \
	"$TESTDIR/r-out" 2>"$TESTDIR/err"
pids=$(cat "$TESTDIR"/r-out/p*.php | sed -E 's/.* by ([0-9]+).*/\1/' | sort | uniq -c)
check_eq 3 "$(echo "$pids" | wc -l)" "distinct workers for 6 pages, 2 each: $pids"
check_eq "" "$(echo "$pids" | awk '$1 != 2')" "pages per worker"
"$CGISNAP" snapshot --root "$SITE" --cgi php=php-cgi -j 1 "$TESTDIR/r-one" 2>"$TESTDIR/err"
check_eq 1 "$(cat "$TESTDIR"/r-one/p*.php | sed -E 's/.* by ([0-9]+).*/\1/' | sort -u | wc -l)" \
	"one worker by default for 6 pages"

try "worn-out children are replaced under the same php-cgi, also when their pages ran programs"
RECYCLE=$TESTDIR/recycle
mkdir -p "$RECYCLE"
{
	echo '<html><body>'
	for i in 1 2 3 4 5 6; do echo "<a href=\"/q$i.php\">q$i</a>"; done
	echo '</body></html>'
} >"$RECYCLE/index.html"
# A program started by the page is traced too: its own hello on the slot's pipe.
for i in 1 2 3 4 5 6; do
	printf '<?php exec("/bin/true"); echo "<p>", getmypid(), " ", posix_getppid(), "</p>\n";\n' >"$RECYCLE/q$i.php"
done
"$CGISNAP" snapshot --root "$RECYCLE" --cgi php=php-cgi -j 1 --cgi-max-requests 2 "$TESTDIR/recycle-out" \
	2>"$TESTDIR/err"
check_eq 0 $? "exit status"
pairs=$(cat "$TESTDIR"/recycle-out/q*.php | sed -E 's/<p>([0-9]+) ([0-9]+)<.p>/\1 \2/')
check_eq 3 "$(echo "$pairs" | cut -d' ' -f1 | sort -u | wc -l)" "children for 6 pages, 2 each: $pairs"
check_eq 1 "$(echo "$pairs" | cut -d' ' -f2 | sort -u | wc -l)" "one php-cgi forked them all: $pairs"

try "php-cgi forks the workers as its children: all start beside the first page, and share its start-up"
AHEAD=$TESTDIR/ahead
mkdir -p "$AHEAD"
mkfifo "$TESTDIR/go"
# The one page waits until the test writes to the FIFO.
printf '<?php echo "<p>", trim(file_get_contents(%s)), "</p>";\n' "'$TESTDIR/go'" >"$AHEAD/index.php"
bg_start "$CGISNAP" snapshot --root "$AHEAD" --cgi php=php-cgi -j 2 --timeout 30 "$TESTDIR/ahead-out"
# One php-cgi (the master) and its two children, each serving one slot.
three_workers() { [ "$(workers | wc -l)" -eq 3 ]; }
wait_until 20 three_workers || fail "workers while the first page renders: $(workers | wc -l), expected 3"
master=$(for p in $(workers); do [ "$(ps -o ppid= -p "$p" | tr -d ' ')" = "$BG_PID" ] && echo "$p"; done)
check_eq 1 "$(echo "$master" | grep -c .)" "one php-cgi is cgisnap's own"
check_eq 2 "$(for p in $(workers); do ps -o ppid= -p "$p"; done | tr -d ' ' | grep -cx "$master")" \
	"the other two are its children"
echo go >"$TESTDIR/go"
wait "$BG_PID"
check_eq 0 $? "exit status"
check_eq "<p>go</p>" "$(cat "$TESTDIR/ahead-out/index.html" 2>/dev/null)" "the page"
check_eq "" "$(workers)" "workers left after the run"

try "php-cgi's master killed under two renders: another starts, both are tried again, the crawl completes"
KILLED=$TESTDIR/killed
mkdir -p "$KILLED"
printf '<html><body><a href="/w1.php">1</a> <a href="/w2.php">2</a> <a href="/p1.php">p</a></body></html>\n' \
	>"$KILLED/index.html"
# Each says it runs, then waits in the read of a FIFO of its own.
for i in 1 2; do
	mkfifo "$TESTDIR/go$i"
	printf '<?php touch(%s); echo "<p>", trim(file_get_contents(%s)), "</p>";\n' "'$TESTDIR/waiting$i'" \
		"'$TESTDIR/go$i'" >"$KILLED/w$i.php"
done
cp "$SITE/p1.php" "$KILLED/"
bg_start "$CGISNAP" snapshot --root "$KILLED" --cgi php=php-cgi -j 2 --timeout 30 "$TESTDIR/killed-out"
CRAWL=$BG_PID
master_of() { for p in $(workers); do [ "$(ps -o ppid= -p "$p" | tr -d ' ')" = "$CRAWL" ] && echo "$p"; done; }
both_waiting() { [ -e "$TESTDIR/waiting1" ] && [ -e "$TESTDIR/waiting2" ]; }
wait_until 20 both_waiting || fail "w1.php and w2.php did not both run"
first=$(master_of)
check_eq 1 "$(echo "$first" | grep -c .)" "one master"
rm -f "$TESTDIR/waiting1" "$TESTDIR/waiting2"
old_children=$(pgrep -P "$first")
kill -KILL "$first"
# Its children go with it (none may take a FIFO's line); each render is
# tried again on a new master's child, which opens its FIFO again.
gone() { for p in $old_children; do [ -d "/proc/$p" ] && [ "$(cut -d' ' -f3 "/proc/$p/stat")" != Z ] && return 1; done; return 0; }
wait_until 10 gone || fail "the master's children outlived it"
echo go1 >"$TESTDIR/go1"
echo go2 >"$TESTDIR/go2"
wait "$CRAWL"
check_eq 0 $? "exit status"
check_eq "<p>go1</p>" "$(cat "$TESTDIR/killed-out/w1.php" 2>/dev/null)" "the first page held when the master died"
check_eq "<p>go2</p>" "$(cat "$TESTDIR/killed-out/w2.php" 2>/dev/null)" "the second"
check_file "$TESTDIR/waiting1" "w1.php ran again"
check_file "$TESTDIR/waiting2" "w2.php ran again"
check_eq "" "$(workers)" "workers left after the run"

try "bad --cgi-mode is refused"
"$CGISNAP" snapshot --root "$SITE" --cgi php=php-cgi --cgi-mode spawn "$TESTDIR/bad" 2>"$TESTDIR/err"
check_eq 2 $? "exit status"
check_contains "$(cat "$TESTDIR/err")" "bad --cgi-mode 'spawn' (expected fork or workers)" "message"

try "serve --dynamic renders through the same warm workers; none is left after SIGTERM"
P=$(port 0)
bg_start "$CGISNAP" serve --dynamic --listen "127.0.0.1:$P" --root "$SITE" --cgi php=php-cgi \
	--access-log off 2>"$TESTDIR/serve.err"
SERVE=$BG_PID
wait_port "$P" 10 || fail "dynamic server did not start"
a=$(curl -s "http://127.0.0.1:$P/p1.php")
b=$(curl -s "http://127.0.0.1:$P/p2.php")
check_match "$a" "^<p>page 1 by [0-9]+</p>$" "first page"
check_eq "${a##* by }" "${b##* by }" "the second request went to the worker of the first"
# Renders passed on, never stored: opcache checks scripts as php.ini says,
# as php-fpm would; a crawl's workers check them on every request.
printf '<?php echo "<p>", ini_get("opcache.revalidate_freq"), "</p>";\n' >"$SITE/freq.php"
check_eq "$(php-cgi -q "$SITE/freq.php")" "$(curl -s "http://127.0.0.1:$P/freq.php")" \
	"serve --dynamic: opcache.revalidate_freq as php.ini says"
bg_stop "$SERVE" TERM
check_eq "" "$(workers)" "workers left after serve stopped"
no_runtime_dir || fail "runtime directory left: $(ls "$TMPDIR")"
"$CGISNAP" snapshot -q --root "$SITE" --cgi php=php-cgi --seed /freq.php "$TESTDIR/freq" 2>"$TESTDIR/err"
check_eq "<p>0</p>" "$(cat "$TESTDIR/freq/freq.php")" "a snapshot's workers: every request"
rm -f "$SITE/freq.php"

# Slow pages keep the workers busy while cgisnap is stopped.
for i in 1 2 3 4 5 6; do printf '<?php sleep(5); echo "<p>slow</p>";\n' >"$SITE/p$i.php"; done

for sig in TERM KILL; do
	try "no worker is left after SIG$sig of cgisnap"
	rm -rf "$TESTDIR/s-out"
	bg_start "$CGISNAP" snapshot --root "$SITE" --cgi php=php-cgi -j 2 "$TESTDIR/s-out" 2>/dev/null
	wait_until 20 some_workers || fail "no worker started"
	bg_stop "$BG_PID" "$sig"
	wait_until 10 no_workers || fail "workers left: $(workers)"
done

finish
