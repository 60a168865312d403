#!/usr/bin/env bash
# t0520-watch-edge: the watcher's edges on a tiny PHP site whose slow page
# sleeps 1 s while rendering: --exec (its input, a failing command), a
# change made during a batch, SIGUSR1 and a real inotify overflow (full
# re-crawls that rewrite nothing unchanged), SIGTERM during a batch,
# restarts on an up-to-date or stale tree, --max-pages on the first crawl,
# set-up errors (no tracer, the watch limit, usage), and an HTTP origin with --depends/--always rules or
# none.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-watch.sh"

watch_test_dirs site
EXECLOG=$TESTDIR/exec.log
MARK=$TESTDIR/mark
# The tiny site of tests/fixtures/watch-site: an index listing the items,
# and a page whose render, while its text starts with "slow", announces
# itself in $MARK_DIR/rendering, then takes a second (and goes on while
# $MARK_DIR/hold exists).
watch_site "$SITE" "$MARK"
mkdir -p "$SITE/data/bulk"
echo x >"$SITE/data/bulk/a"
FIXTURE=(--root "$SITE" --cgi php=php-cgi --env "MARK_DIR=$MARK" -j 2 --source "$SITE/data")

# slow_write TEXT: make the slow page render TEXT, and wait until that
# render is under way (it sleeps for a second).
slow_write() {
	rm -f "$MARK/rendering"
	printf '%s\n' "$1" >"$SITE/data/slow.txt"
	wait_until "$WATCH_WAIT" test -e "$MARK/rendering"
}

try "the fixture is snapshotted and watched with traced dependencies"
watch_start "$LOG" "${FIXTURE[@]}" --exec "cat >> '$EXECLOG'; exit 3" "$OUT"
check_eq 0 $? "watch came up"
check_contains "$(cat "$LOG")" "watching 3 directories of 1 source (dependencies traced)" "watching line"
ITEM_A=$(manifest_field "$OUT" "/item.php?n=a" 2)
SLOW=$(manifest_field "$OUT" /slow.php 2)
check_file "$OUT/$ITEM_A" "item a"
check_file "$OUT/$SLOW" "slow page"
check_contains "$("$CGISNAP" ls --deps "$OUT")" "/	L	$SITE/data/items" "the index listed the items"

try "--exec gets the changed files on its stdin; its failure is logged, not fatal"
check_contains "$(cat "$EXECLOG")" "$ITEM_A" "the initial snapshot's files were listed"
: >"$EXECLOG"
echo "item a, edited" >"$SITE/data/items/a.txt"
wait_file_has "$EXECLOG" "$ITEM_A"
check_eq 0 $? "exec input"
check_eq "$(printf '.cgisnap/tree.db\n%s' "$ITEM_A")" "$(cat "$EXECLOG")" "only the changed file and the manifest"
check_contains "$(cat "$OUT/$ITEM_A")" "item a, edited" "published"
_failed_twice() { [ "$(grep -c "exited with status 3" "$LOG")" -ge 2 ]; }
wait_until "$WATCH_WAIT" _failed_twice
check_eq 0 $? "the failing command is logged (after the initial snapshot and this batch)"
kill -0 "$WATCH_PID" 2>/dev/null || fail "the watcher died"

has_target() {
	[ -n "$(manifest_field "$1" "$2" 2)" ]
}

try "a new file is crawled from the index that lists its directory"
echo "item d" >"$SITE/data/items/d.txt"
wait_until "$WATCH_WAIT" has_target "$OUT" "/item.php?n=d"
check_eq 0 $? "item d recorded"
check_contains "$(cat "$OUT/$(manifest_field "$OUT" "/item.php?n=d" 2)")" "item d" "item d published"

try "a change made while a batch renders starts the next batch"
watch_idle "$OUT" # item d's batch line comes after its manifest row
n=$(batches "$LOG")
slow_write "slow one"
check_eq 0 $? "the first render is under way"
printf 'slow two, final\n' >"$SITE/data/slow.txt"
wait_file_has "$OUT/$SLOW" "slow two, final"
check_eq 0 $? "the change made during the render is published"
wait_batches "$LOG" $((n + 2))
check_eq $((n + 2)) "$(batches "$LOG")" "two batches"

try "SIGUSR1: a full re-crawl that rewrites nothing unchanged"
tree_mtimes "$OUT" >"$TESTDIR/m1"
n=$(batches "$LOG")
kill -USR1 "$WATCH_PID"
wait_batches "$LOG" $((n + 1))
check_match "$(grep '^cgisnap: batch: ' "$LOG" | tail -1)" \
	"^cgisnap: batch: full re-crawl, SIGUSR1 received: [0-9]+ URLs re-rendered, 0 files changed, 0 removed, [0-9]+ ms$" \
	"batch line"
tree_mtimes "$OUT" >"$TESTDIR/m2"
check_eq "" "$(diff "$TESTDIR/m1" "$TESTDIR/m2")" "files rewritten"

try "a real inotify queue overflow: logged with its reason, then a full re-crawl"
max=$(cat /proc/sys/fs/inotify/max_queued_events 2>/dev/null || echo 0)
if [ "$max" -gt 0 ] && [ "$max" -le 200000 ]; then
	n=$(batches "$LOG")
	touch "$MARK/hold" # the render waits until the events below are made
	slow_write "slow three"
	tree_mtimes "$OUT" >"$TESTDIR/m1"
	# While the watcher renders, more events than the kernel queues.
	php -r 'chdir($argv[1]); for ($i = 0; $i < $argv[2]; $i++) rename($i % 2 ? "b" : "a", $i % 2 ? "a" : "b");' \
		"$SITE/data/bulk" $((max / 2 + 100))
	rm -f "$MARK/hold"
	wait_until "$WATCH_WAIT" grep -q 'full re-crawl, the inotify event queue overflowed' "$LOG"
	check_eq 0 $? "overflow batch line"
	# The slow render was under way when the events were lost: anything
	# it read may have changed, so its batch held the page (stale.h) and
	# the re-crawl publishes it, and rewrites nothing else.
	check_match "$(grep '^cgisnap: batch: ' "$LOG" | tail -2 | head -1)" ", 1 held \\(a source was being written\\)" \
		"the slow page's batch held it"
	check_match "$(grep 'overflowed' "$LOG")" "full re-crawl, the inotify event queue overflowed, changes were lost: [0-9]+ URLs re-rendered, 1 file changed" "only the held page rewritten by the re-crawl"
	tree_mtimes "$OUT" >"$TESTDIR/m2"
	check_eq "> $SLOW" "$(diff "$TESTDIR/m1" "$TESTDIR/m2" | grep '^>' | cut -d' ' -f1-2)" "only the slow page changed"
else
	echo "# skipped: fs.inotify.max_queued_events is '$max'"
fi

try "SIGTERM during a batch finishes it, then exits 0"
slow_write "slow four"
check_eq 0 $? "a render is under way"
watch_stop TERM
check_eq 0 "$WATCH_STATUS" "exit status"
check_contains "$(cat "$OUT/$SLOW")" "slow four" "the batch in progress was published"
check_match "$(tail -1 "$LOG")" "^cgisnap: stopped after [0-9]+ batches$" "last line"

try "SIGTERM during the first snapshot stops it after the render under way; the next start crawls again"
SITE2=$TESTDIR/site2
OUT2=$TESTDIR/out2
MARK2=$TESTDIR/mark2
watch_site "$SITE2" "$MARK2"
# The slow page, linked first, holds the one job until told.
touch "$MARK2/slow" "$MARK2/hold"
: >"$TESTDIR/log-first"
bg_start _watch_run "$TESTDIR/log-first" --root "$SITE2" --cgi php=php-cgi --env "MARK_DIR=$MARK2" \
	--env SLOW_WHEN=flag -j 1 --source "$SITE2/data" "$OUT2"
pid=$BG_PID
wait_until "$WATCH_WAIT" test -e "$MARK2/rendering"
check_eq 0 $? "the slow page's render is under way"
kill -TERM "$pid"
wait_until "$WATCH_WAIT" grep -q "stopping: SIGTERM received during the crawl" "$TESTDIR/log-first"
check_eq 0 $? "the signal was heard during the crawl: $(tail -3 "$TESTDIR/log-first")"
rm -f "$MARK2/hold" "$MARK2/slow"
bg_stop "$pid"
check_eq 0 $? "exit status"
check_not_contains "$(cat "$TESTDIR/log-first")" "cgisnap: watching" "it never watched"
check_eq "/ /slow.php" "$(manifest_targets "$OUT2" | tr '\n' ' ' | sed 's/ $//')" \
	"the renders under way recorded, no new one started"
bad=0
while IFS=$'\t' read -r target key status type bytes sha rest; do
	[ "$key" = - ] || [ "$(sha256sum <"$OUT2/$key" | cut -d' ' -f1)" = "$sha" ] || bad=$((bad + 1))
done < <("$CGISNAP" ls "$OUT2" | grep -v '^#')
check_eq 0 "$bad" "every file the manifest lists holds its recorded bytes"
watch_start "$TESTDIR/log-first2" --root "$SITE2" --cgi php=php-cgi --env "MARK_DIR=$MARK2" \
	--env SLOW_WHEN=flag -j 1 --source "$SITE2/data" "$OUT2"
check_eq 0 $? "the next start came up"
check_contains "$(cat "$TESTDIR/log-first2")" "initial snapshot: the tree has no recorded dependencies" \
	"and crawled again"
check_contains "$(manifest_targets "$OUT2")" "/item.php?n=c" "the rest is there now"
watch_stop_ok

try "a restart on an up-to-date tree skips the initial snapshot"
watch_start "$TESTDIR/log2" "${FIXTURE[@]}" "$OUT"
check_eq 0 $? "watch came up"
check_contains "$(cat "$TESTDIR/log2")" "no source changed since its last run: no initial snapshot" "no snapshot"
watch_stop_ok

try "a restart after the sources changed catches up first, without a re-crawl"
echo "item b, edited while no one watched" >"$SITE/data/items/b.txt"
watch_start "$TESTDIR/log3" "${FIXTURE[@]}" "$OUT"
check_eq 0 $? "watch came up"
check_contains "$(cat "$TESTDIR/log3")" "catching up with 1 path changed since its last run ($SITE/data/items/b.txt)" "reason"
wait_file_has "$OUT/$(manifest_field "$OUT" "/item.php?n=b" 2)" "edited while no one watched"
check_eq 0 $? "item b"
wait_batches "$TESTDIR/log3" 1
check_match "$(grep '^cgisnap: batch: ' "$TESTDIR/log3" | head -1)" ": [0-9]+ URLs? re-rendered, 1 file changed, 0 removed" "only item b rewritten"
watch_stop_ok

try "set-up errors exit 2 with a clear message"
CGISNAP_TRACE_LIB=/nonexistent/trace.so "$CGISNAP" watch "${FIXTURE[@]}" "$TESTDIR/t1" 2>"$TESTDIR/err"
check_eq 2 $? "exit status without a tracer"
check_contains "$(cat "$TESTDIR/err")" "dependency tracer '/nonexistent/trace.so' (from CGISNAP_TRACE_LIB) is not a readable file; or give --depends/--always rules, or --no-trace" "message"
"$CGISNAP" watch --root "$SITE" --cgi php=php-cgi "$TESTDIR/t2" 2>"$TESTDIR/err"
check_eq 2 $? "exit status without --source"
check_contains "$(cat "$TESTDIR/err")" "no --source given" "message"
"$CGISNAP" watch "${FIXTURE[@]}" "$SITE/data/tree" 2>"$TESTDIR/err"
check_eq 2 $? "exit status for a tree inside a source"
check_contains "$(cat "$TESTDIR/err")" "overlap: watch would see its own writes" "message"
"$CGISNAP" watch "${FIXTURE[@]}" --depends 'no arrow' "$TESTDIR/t3" 2>"$TESTDIR/err"
check_eq 2 $? "exit status for a bad rule"
check_contains "$(cat "$TESTDIR/err")" "bad --depends rule 'no arrow'" "message"
"$CGISNAP" watch --root "$SITE" --cgi php=php-cgi --source-command 'echo oops >&2; exit 3' "$TESTDIR/t4" 2>"$TESTDIR/err"
check_eq 2 $? "exit status when --source-command fails"
check_contains "$(cat "$TESTDIR/err")" "--source-command 'echo oops >&2; exit 3' exited 3" "message"
check_contains "$(cat "$TESTDIR/err")" "oops" "its own stderr shown"
"$CGISNAP" watch --root "$SITE" --cgi php=php-cgi --source-command true "$TESTDIR/t4" 2>"$TESTDIR/err"
check_eq 2 $? "exit status when --source-command prints nothing"
check_contains "$(cat "$TESTDIR/err")" "--source-command 'true' printed no source" "message"
"$CGISNAP" watch --root "$SITE" --cgi php=php-cgi --source-command 'echo data/nonexistent' "$TESTDIR/t4" 2>"$TESTDIR/err"
check_eq 2 $? "exit status when it prints a missing source"
check_contains "$(cat "$TESTDIR/err")" "source '$SITE/data/nonexistent' does not exist" "message, the path under --root"
check_no_file "$TESTDIR/t4" "no tree made"

try "--source-command: run in --root, each line it prints a source"
watch_start "$TESTDIR/srccmd.log" --root "$SITE" --cgi php=php-cgi --env "MARK_DIR=$MARK" \
	--source-command "pwd >'$MARK/cwd'; echo data/items; echo data/bulk" "$TESTDIR/srccmd"
check_eq "$SITE" "$(cat "$MARK/cwd" 2>/dev/null)" "run in --root"
check_match "$(grep '^cgisnap: watching ' "$TESTDIR/srccmd.log")" ' of 2 sources ' "both lines are sources"
watch_stop_ok

try "--max-pages bounds watch's first crawl, and says so before watching"
watch_start "$TESTDIR/logmp" "${FIXTURE[@]}" --max-pages 2 "$TESTDIR/mp"
check_eq 0 $? "watch came up"
warned=$(grep -n '^cgisnap: warning: --max-pages 2 reached: [0-9]* links\{0,1\} not crawled' "$TESTDIR/logmp" | cut -d: -f1)
watching=$(grep -n '^cgisnap: watching ' "$TESTDIR/logmp" | cut -d: -f1)
check_lt "${warned:-999}" "${watching:-0}" "the warning, then watching ($(head -c 600 "$TESTDIR/logmp"))"
check_le "$("$CGISNAP" ls "$TESTDIR/mp" | grep -vc '^#')" 2 "at most 2 URLs in the tree"
watch_stop_ok

try "without the tracer, --depends rules are enough to start; --ignore drops paths"
CGISNAP_TRACE_LIB=/nonexistent/trace.so watch_start "$TESTDIR/log4" "${FIXTURE[@]}" \
	--depends 'items/([a-z]+)\.txt$ => /item.php?n=$1' --ignore 'items/b\.txt$' "$TESTDIR/t4"
check_eq 0 $? "watch came up"
check_contains "$(cat "$TESTDIR/log4")" "dependencies come from --depends/--always only" "warning"
check_contains "$(cat "$TESTDIR/log4")" "(--depends/--always rules)" "mode"
echo "item b, ignored" >"$SITE/data/items/b.txt"
echo "item c, by rule" >"$SITE/data/items/c.txt"
wait_file_has "$TESTDIR/t4/$(manifest_field "$TESTDIR/t4" "/item.php?n=c" 2)" "item c, by rule"
check_eq 0 $? "the rule's page is published"
wait_batches "$TESTDIR/log4" 1
check_match "$(grep '^cgisnap: batch: ' "$TESTDIR/log4")" \
	"^cgisnap: batch: 1 changed \($SITE/data/items/c.txt\): 1 URL re-rendered, 1 file changed," "only c's page"
check_not_contains "$(cat "$TESTDIR/t4/$(manifest_field "$TESTDIR/t4" "/item.php?n=b" 2)")" "ignored" "b untouched"
watch_stop

try "the watch limit: an error naming the setting and the watches needed"
mkdir -p "$SITE/data/deep/a/b/c"
need=$(find "$SITE/data" -type d | wc -l)
if unshare -U -r true 2>/dev/null; then
	# A user namespace has its own limit (user.max_inotify_watches), so
	# lowering it there leaves the machine's setting alone.
	unshare -U -r sh -c 'echo 3 >/proc/sys/user/max_inotify_watches && exec "$@"' sh \
		"$CGISNAP" watch "${FIXTURE[@]}" "$TESTDIR/t5" 2>"$TESTDIR/err"
	check_eq 2 $? "exit status"
	check_match "$(cat "$TESTDIR/err")" \
		"cannot watch '$SITE/data': the inotify watch limit is reached \(fs.inotify.max_user_watches = 3\); the sources need $need watches \(one per directory\)" \
		"message"
	check_contains "$(cat "$TESTDIR/err")" "sysctl fs.inotify.max_user_watches=$((3 + need))" "suggestion"
else
	echo "# skipped: no user namespaces here (the message is unit-tested)"
fi
rm -r "$SITE/data/deep"

# ---- an HTTP origin: no tracing ----
WIKI=$TESTDIR/wiki
seed_wiki "$WIKI" 12
PORT=$(port 0)
bg_start php -S "127.0.0.1:$PORT" -t "$WIKI" >/dev/null 2>&1
wait_port "$PORT"
HTTP=(--origin "http://127.0.0.1:$PORT/" --site-url http://localhost:8080/ --strip "$WIKI_STRIP" --robots-meta ignore
	--exclude 'do=backlink' -j 2 --source "$WIKI/data/pages")
PAGE=wiki:syntax

# http_edit TAG DIR LOG: append "HTTP edit TAG." to PAGE's source, wait
# for the tree $TESTDIR/DIR to publish it and for the first batch of the
# watch logging to $TESTDIR/LOG to end.
http_edit() {
	printf '\nHTTP edit %s.\n' "$1" >>"$(wiki_file "$WIKI" "$PAGE")"
	wait_file_has "$TESTDIR/$2/$(wiki_key "$PAGE")" "HTTP edit $1."
	check_eq 0 $? "the page is published"
	wait_batches "$TESTDIR/$3" 1
}

try "an HTTP origin with --depends and --always: the rules' pages are re-rendered"
watch_start "$TESTDIR/log6" "${HTTP[@]}" --depends 'data/pages/wiki/([a-z0-9_]+)\.txt$ => /doku.php?id=wiki:$1' \
	--always '/doku.php?id=start&do=recent' "$TESTDIR/h1"
check_eq 0 $? "watch came up"
check_contains "$(cat "$TESTDIR/log6")" "(--depends/--always rules)" "mode"
http_edit H1 h1 log6
check_match "$(grep '^cgisnap: batch: ' "$TESTDIR/log6")" ": 2 URLs re-rendered, 2 files changed, 0 removed" "the page and recent changes"
check_contains "$(sed -n '/<ul class="recent">/,$p' "$TESTDIR/h1/doku.php@id=start&do=recent.html" | head -3)" \
	"title=\"$PAGE\"" "recent changes shows the page first"
watch_stop_ok

try "an HTTP origin without rules re-crawls everything on a change"
watch_start "$TESTDIR/log7" "${HTTP[@]}" "$TESTDIR/h2"
check_eq 0 $? "watch came up"
check_contains "$(cat "$TESTDIR/log7")" "(every change re-crawls)" "mode"
http_edit H2 h2 log7
check_match "$(grep '^cgisnap: batch: ' "$TESTDIR/log7")" \
	"full re-crawl, no dependencies are known \(no tracing, no --depends or --always\): [0-9]+ URLs re-rendered, [1-3] files? changed" \
	"batch line"
watch_stop_ok

finish
