#!/usr/bin/env bash
# t0510-watch-blog: 'cgisnap watch' on the sample blog through php-cgi,
# with its SQLite database as the one watched file: edits through
# bin/edit.php, a database replaced by a rename, and a post that moves
# (its old URL now 404s and leaves the tree).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-watch.sh"

watch_test_dirs blog
DB=$SITE/wp-content/database.sqlite
seed_blog "$SITE" 5

# post_path ID: the URL path of a post ("/2024/03/slug/").
post_path() {
	php -r '$db = new PDO("sqlite:" . $argv[1]);
		$r = $db->query("SELECT slug, published_at FROM posts WHERE id = " . (int) $argv[2])->fetch();
		echo "/", substr($r["published_at"], 0, 4), "/", substr($r["published_at"], 5, 2), "/", $r["slug"], "/";' \
		"$DB" "$1"
}

try "the blog is snapshotted first, every page depending on the database"
watch_start "$LOG" --root "$SITE" --cgi php=php-cgi --front-controller /index.php \
	--site-url http://localhost:8080/ -j 2 --source "$DB" "$OUT"
check_eq 0 $? "watch came up"
check_contains "$(cat "$LOG")" "initial snapshot: the tree is empty" "reason"
check_contains "$(cat "$LOG")" "watching 1 directory of 1 source (dependencies traced)" "one directory for one file"
check_file "$OUT/index.html" "home page"
check_contains "$("$CGISNAP" ls --deps "$OUT")" "/	R	$DB" "the home page read the database"

try "a title changed with bin/edit.php reaches the post and the home page"
POST=$(post_path 3)
check_file "$OUT${POST}index.html" "post 3 stored"
php "$SITE/bin/edit.php" --dir "$SITE" --post 3 --title "Watched Title One" >/dev/null
wait_file_has "$OUT${POST}index.html" "Watched Title One"
check_eq 0 $? "the post page"
wait_file_has "$OUT/index.html" "Watched Title One"
check_eq 0 $? "the home page"
wait_batches "$LOG" 1
# Under load the write may be seen in two batches (the first before the
# title is in): the first may have changed one file only; a page that
# read the database while edit.php still wrote it (its journal) is held,
# and rendered again after.
check_match "$(grep '^cgisnap: batch: ' "$LOG" | head -1)" \
	"^cgisnap: batch: 1 changed \($DB\): [0-9]+ URLs re-rendered, [0-9]+ files? changed, 0 removed(, [0-9]+ held \(a source was being written\))?, [0-9]+ ms$" \
	"batch line"

try "the database replaced by a rename is still watched"
cp "$DB" "$SITE/wp-content/db.new"
php -r '$db = new PDO("sqlite:" . $argv[1]); $db->exec("UPDATE posts SET title = '"'Renamed In Title'"' WHERE id = 3");' \
	"$SITE/wp-content/db.new"
mv "$SITE/wp-content/db.new" "$DB"
wait_file_has "$OUT${POST}index.html" "Renamed In Title"
check_eq 0 $? "the post shows the new database's title"
php "$SITE/bin/edit.php" --dir "$SITE" --post 3 --append "Appended after the rename." >/dev/null
wait_file_has "$OUT${POST}index.html" "Appended after the rename."
check_eq 0 $? "an edit after the rename is seen too"

try "a post that moves: the new URL is crawled, the old one leaves the tree"
OLD=$(post_path 5)
check_file "$OUT${OLD}index.html" "post 5 stored"
php "$SITE/bin/edit.php" --dir "$SITE" --post 5 --slug watched-new-slug >/dev/null
NEW=$(post_path 5)
check_ne "$OLD" "$NEW" "the URL moved"
wait_file_has "$OUT${NEW}index.html" "<html"
check_eq 0 $? "the new URL is stored"
wait_gone "$OUT${OLD}index.html"
check_eq 0 $? "the old URL's file is removed"
# The manifest is saved after the removals: wait for it too.
_old_is_404() { [ "$(manifest_field "$OUT" "$OLD" 3)" = 404 ]; }
wait_until "$WATCH_WAIT" _old_is_404
check_eq 404 "$(manifest_field "$OUT" "$OLD" 3)" "the old URL is recorded as 404"

try "SIGTERM stops the watcher with status 0"
watch_stop_ok
check_eq "" "$(grep -E 'error|warning' "$LOG")" "errors or warnings logged"

finish
