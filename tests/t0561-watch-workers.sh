#!/usr/bin/env bash
# t0561-watch-workers: watch renders through the warm php-cgi workers
# (the default for --cgi php=php-cgi, tracing on): an edit of a PHP file
# that some pages include re-renders exactly those pages, with the edit
# seen (opcache revalidates), by the same worker process between batches.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"
. "$(dirname "$0")/lib-watch.sh"

BASE=$(cd "$TESTDIR" && pwd -P)
SITE=$BASE/site
OUT=$BASE/out
LOG=$BASE/watch.log
EXECLOG=$BASE/exec.log
export TMPDIR=$BASE/tmp
mkdir -p "$TMPDIR" "$SITE/inc"

printf '<?php function a() { return "a-one"; }\n' >"$SITE/inc/a.php"
printf '<?php function b() { return "b-one"; }\n' >"$SITE/inc/b.php"
{
	echo '<html><body>'
	for i in 1 2 3 4 5 6; do echo "<a href=\"/p$i.php\">p$i</a>"; done
	echo '</body></html>'
} >"$SITE/index.html"
# p1, p3, p5 include inc/a.php; p2, p4, p6 inc/b.php; each prints the
# pid of the process that rendered it.
for i in 1 2 3 4 5 6; do
	inc=$([ $((i % 2)) = 1 ] && echo a || echo b)
	printf '<?php require __DIR__ . "/inc/%s.php"; echo "<p>p%s ", %s(), " pid=", getmypid(), "</p>\\n";\n' \
		"$inc" "$i" "$inc" >"$SITE/p$i.php"
done

pid_of() {
	sed -n 's/.* pid=\([0-9]*\)<.*/\1/p' "$OUT/$1"
}

try "watch comes up through the workers, every page traced"
watch_start "$LOG" --root "$SITE" --cgi php=php-cgi -j 1 --source "$SITE" \
	--exec "sed '/^\\.cgisnap\\//d' >> '$EXECLOG'" "$OUT"
check_eq 0 $? "watch came up"
check_contains "$(cat "$OUT/p1.php")" "p1 a-one" "p1 stored"
check_contains "$("$CGISNAP" ls --deps "$OUT")" "/p3.php	R	$SITE/inc/a.php" "p3 depends on inc/a.php"
check_not_contains "$(cat "$LOG")" "cannot be traced" "every page traced"
check_ne "" "$(pgrep -f -- "$TMPDIR/cgisnap-php-")" "a worker runs between batches"
PID=$(pid_of p1.php)

try "an edit of inc/a.php re-renders exactly p1, p3 and p5, on the warm worker"
watch_idle "$OUT" # the initial snapshot's hook has ended
: >"$EXECLOG"
# A new mtime for opcache however fast the edit, in one rename: one change.
printf '<?php function a() { return "a-two"; }\n' >"$SITE/inc/.a.php.new"
touch -d '+2 seconds' "$SITE/inc/.a.php.new"
mv "$SITE/inc/.a.php.new" "$SITE/inc/a.php"
wait_batches "$LOG" 1
check_eq 0 $? "a batch"
check_match "$(grep '^cgisnap: batch: ' "$LOG" | head -1)" "^cgisnap: batch: [0-9]+ changed \(.*inc/a\.php\): 3 URLs re-rendered, 3 files changed" \
	"batch line"
for i in 1 3 5; do
	check_contains "$(cat "$OUT/p$i.php")" "p$i a-two" "p$i shows the edit"
done
for i in 2 4 6; do
	check_contains "$(cat "$OUT/p$i.php")" "p$i b-one" "p$i untouched"
done
watch_idle "$OUT" # the batch's hook runs after its batch line
check_eq "p1.php p3.php p5.php" "$(sort "$EXECLOG" | tr '\n' ' ' | sed 's/ $//')" "the files published"
check_eq "$PID" "$(pid_of p1.php)" "the same worker process as the initial snapshot"

try "then an edit of inc/b.php re-renders p2, p4 and p6, still the same worker"
# A new mtime for opcache however fast the edit, in one rename: one change.
printf '<?php function b() { return "b-two"; }\n' >"$SITE/inc/.b.php.new"
touch -d '+2 seconds' "$SITE/inc/.b.php.new"
mv "$SITE/inc/.b.php.new" "$SITE/inc/b.php"
wait_batches "$LOG" 2
check_match "$(grep '^cgisnap: batch: ' "$LOG" | sed -n 2p)" "3 URLs re-rendered, 3 files changed" "batch line"
for i in 2 4 6; do
	check_contains "$(cat "$OUT/p$i.php")" "p$i b-two" "p$i shows the edit"
done
check_contains "$(cat "$OUT/p1.php")" "p1 a-two" "p1 as it was"
check_eq "$PID" "$(pid_of p2.php)" "the same worker process"

try "SIGTERM stops watch and its workers"
watch_stop_ok
check_eq "" "$(pgrep -f -- "$TMPDIR/cgisnap-php-" || true)" "workers left"

finish
