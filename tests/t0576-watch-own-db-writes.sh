#!/usr/bin/env bash
# t0576-watch-own-db-writes: a site that writes its own SQLite database
# as it renders (tests/fixtures/db-site: a hit count beside the pages, as
# MediaWiki keeps its caches and job queue) settles under watch --source
# on the database's directory: the renders' writes (traced through PHP's
# SQLite extension, which PHP loads with RTLD_DEEPBIND) start no batch
# and hold no page. A write to the same database by another program (an
# edit with php -r) is a change all the same: the page shows it, also
# when it lands while a batch renders, after the render that writes the
# database ended.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/lib-watch.sh"

SITE=$TESTDIR/site
OUT=$TESTDIR/out
LOG=$TESTDIR/watch.log
mkdir -p "$SITE/data"
cp "$ROOT/tests/fixtures/db-site/index.php" "$SITE/"

# sql STATEMENT: run it on the site's database, as another program.
sql() {
	php -r '$db = new PDO("sqlite:" . $argv[1]); $db->exec("PRAGMA journal_mode=WAL"); $db->exec($argv[2]) !== false or exit(1);' \
		"$SITE/data/site.sqlite" "$1"
}

sql "CREATE TABLE pages (name TEXT PRIMARY KEY, body TEXT)" &&
	sql "INSERT INTO pages VALUES ('a', 'Page a says one.'), ('b', 'Page b says two.'), ('c', 'Page c says three.')" ||
	fail "cannot make the database"

page_key() {
	manifest_field "$OUT" "/index.php?page=$1" 2
}

# published_then_quiet PAGE TEXT: PAGE's file comes to show TEXT, and two
# seconds of quiet after that bring no batch.
published_then_quiet() {
	wait_until "$WATCH_WAIT" grep -q "$2" "$OUT/$(page_key "$1")"
	check_eq 0 $? "the edit published ($(grep '^cgisnap: batch: ' "$LOG" | tail -2 | cut -c1-200))"
	watch_idle "$OUT"
	local n
	n=$(batches "$LOG")
	sleep 2 # a quiet period is what is tested
	check_eq "$n" "$(batches "$LOG")" "batches during 2 s of quiet after the edit"
}

try "the renders' own writes to the database start no batch and hold no page"
watch_start "$LOG" --root "$SITE" --cgi php=php-cgi --site-url http://localhost:8080/ --seed /index.php \
	--source "$SITE/data" --progress none "$OUT"
check_eq 0 $? "watch came up ($(tail -3 "$LOG"))"
check_contains "$(cat "$OUT/$(page_key b)" 2>&1)" "Page b says two." "page b stored"
"$CGISNAP" notify -q --wait "$OUT" "/index.php?page=a" >/dev/null
check_eq 0 $? "notify"
n=$(batches "$LOG")
sleep 2 # a quiet period is what is tested: nothing may happen in it
check_eq "$n" "$(batches "$LOG")" "batches during 2 s of quiet ($(grep '^cgisnap: batch: ' "$LOG" | tail -1 | cut -c1-200))"
check_eq 0 "$(grep -c 'held (a source was being written)' "$LOG")" "pages held"

try "another program's write to the same database is a change: the page shows it"
sql "UPDATE pages SET body = 'Page b was edited.' WHERE name = 'b'"
check_eq 0 $? "the edit"
published_then_quiet b "Page b was edited."

try "another program's write while a batch renders, after the render that writes the same database, is a change"
# A batch of page a (it writes the database: its hit count) and a slow
# page that waits on a file outside the sources: the edit of page c
# lands while the slow page renders, after page a's render ended.
MARK=$TESTDIR/mark
mkdir -p "$MARK"
cat >"$SITE/slow.php" <<'PHP'
<?php
touch(getenv('MARK_DIR') . '/rendering');
for ($i = 0; $i < 3000 && file_exists(getenv('MARK_DIR') . '/hold'); $i++)
    usleep(10000);
header('Content-Type: text/html');
echo "<p>slow</p>\n";
PHP
watch_stop
watch_start "$LOG" --root "$SITE" --cgi php=php-cgi --site-url http://localhost:8080/ --seed /index.php \
	--seed /slow.php --env "MARK_DIR=$MARK" --source "$SITE/data" --progress none -j 2 -v "$OUT"
check_eq 0 $? "watch came up ($(tail -3 "$LOG"))"
touch "$MARK/hold"
rm -f "$MARK/rendering"
a_renders=$(grep -c ' /index.php?page=a$' "$LOG")
"$CGISNAP" notify -q "$OUT" "/index.php?page=a" /slow.php >/dev/null
wait_until "$WATCH_WAIT" test -e "$MARK/rendering"
check_eq 0 $? "the slow page renders"
wait_count "$LOG" ' /index.php?page=a$' $((a_renders + 1))
check_eq 0 $? "page a's render ended"
sql "UPDATE pages SET body = 'Page c was edited mid-batch.' WHERE name = 'c'"
check_eq 0 $? "the edit"
rm -f "$MARK/hold"
published_then_quiet c "Page c was edited mid-batch."
watch_stop_ok

finish
