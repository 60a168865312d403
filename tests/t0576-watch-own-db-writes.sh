#!/usr/bin/env bash
# t0576-watch-own-db-writes: a site that writes its own SQLite database
# as it renders (tests/fixtures/db-site: a hit count beside the pages, as
# MediaWiki keeps its caches and job queue) settles under watch --source
# on the database's directory: the renders' writes (traced through PHP's
# SQLite extension, which PHP loads with RTLD_DEEPBIND) start no batch
# and hold no page. A write to the same database by another program (an
# edit with php -r) is a change all the same: the page shows it.
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
wait_until "$WATCH_WAIT" grep -q "Page b was edited." "$OUT/$(page_key b)"
check_eq 0 $? "the edit published ($(grep '^cgisnap: batch: ' "$LOG" | tail -2 | cut -c1-200))"
batches_stopped "$LOG"
n=$(batches "$LOG")
sleep 2 # a quiet period is what is tested
check_eq "$n" "$(batches "$LOG")" "batches during 2 s of quiet after the edit"
watch_stop
check_eq 0 "$WATCH_STATUS" "watch exit status"

finish
