#!/usr/bin/env bash
# t0550-watch-notify-poll: a page whose data lives in a SQLite database
# that no watched source holds (inotify cannot see it change): 'cgisnap
# notify' (the control socket: URLs, --path, --wait, --idle, bad items, no watch
# running, a killed watch's socket, another user) and 'watch --poll' (the
# change published; a poll that finds nothing changed writes nothing).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"
. "$(dirname "$0")/lib-watch.sh"

SITE=$TESTDIR/site
DB=$TESTDIR/db/blog.sqlite
OUT=$TESTDIR/out
LOG=$TESTDIR/watch.log
mkdir -p "$SITE/data" "$TESTDIR/db"
cat >"$SITE/post.php" <<'EOF'
<?php
$id = (int)($_GET['id'] ?? 0);
if ($id === 99) {
    http_response_code(500);
    echo "database error\n";
    exit;
}
$db = new PDO('sqlite:' . getenv('BLOG_DB'));
$st = $db->prepare('SELECT title, body FROM posts WHERE id = ?');
$st->execute([$id]);
$row = $st->fetch(PDO::FETCH_ASSOC);
header('Content-Type: text/html; charset=utf-8');
if (!$row) {
    http_response_code(404);
    echo "no such post\n";
    exit;
}
echo "<!DOCTYPE html><html><body><h1>", htmlspecialchars($row['title']), "</h1><p>",
    htmlspecialchars($row['body']), "</p><a href=\"/\">home</a></body></html>\n";
EOF
cat >"$SITE/index.php" <<'EOF'
<?php
$db = new PDO('sqlite:' . getenv('BLOG_DB'));
header('Content-Type: text/html; charset=utf-8');
echo "<!DOCTYPE html><html><body><p>", htmlspecialchars(file_get_contents(__DIR__ . '/data/banner.txt')), "</p><ul>\n";
foreach ($db->query('SELECT id, title FROM posts ORDER BY id') as $r)
    echo "<li><a href=\"/post.php?id=", (int)$r['id'], "\">", htmlspecialchars($r['title']), "</a></li>\n";
echo "</ul></body></html>\n";
EOF
echo "banner one" >"$SITE/data/banner.txt"

# sql STATEMENT: run it on the blog's database, as the CMS would.
sql() {
	php -r '$db = new PDO("sqlite:" . $argv[1]); $db->exec($argv[2]) !== false or exit(1);' "$DB" "$1"
}
sql "CREATE TABLE posts (id INTEGER PRIMARY KEY, title TEXT, body TEXT)"
sql "INSERT INTO posts VALUES (1, 'First post', 'body one'), (2, 'Second post', 'body two')"

# Traced (the db is read, but lies outside --root and every --source);
# / is --always: its list of titles comes from the database too.
ORIGIN=(--root "$SITE" --cgi php=php-cgi --env "BLOG_DB=$DB" -j 2)
FIXTURE=("${ORIGIN[@]}" --source "$SITE/data")
post_file() {
	printf '%s/%s' "$OUT" "$(manifest_field "$OUT" "/post.php?id=$1" 2)"
}

try "notify before any watch: not a tree, then no watch running"
mkdir "$OUT"
"$CGISNAP" notify "$OUT" /post.php?id=1 2>"$TESTDIR/err"
check_eq 2 $? "exit status for a directory that is no tree"
check_contains "$(cat "$TESTDIR/err")" "is not a cgisnap tree" "message"
"$CGISNAP" snapshot -q "${ORIGIN[@]}" "$OUT" 2>"$TESTDIR/err"
check_eq 0 $? "snapshot"
"$CGISNAP" notify "$OUT" /post.php?id=1 2>"$TESTDIR/err"
check_eq 1 $? "exit status without a watch"
check_eq "cgisnap: error: no watch is running on '$OUT' (no .cgisnap/control)" "$(cat "$TESTDIR/err")" "message"

try "watch makes its control socket, mode 0600; a second watch is refused and leaves it alone"
watch_start "$LOG" "${FIXTURE[@]}" --always / "$OUT"
check_eq 0 $? "watch came up"
check_eq "socket 600" "$(stat -c '%F %a' "$OUT/.cgisnap/control")" "the socket"
INODE=$(stat -c %i "$OUT/.cgisnap/control")
"$CGISNAP" watch "${FIXTURE[@]}" "$OUT" 2>"$TESTDIR/err2"
check_eq 75 $? "second watch's exit status"
check_contains "$(cat "$TESTDIR/err2")" "is locked by another cgisnap" "message"
check_eq "$INODE" "$(stat -c %i "$OUT/.cgisnap/control")" "the live socket is untouched"
check_contains "$(cat "$(post_file 1)")" "First post" "post 1 published"

try "a database update is not seen by inotify: a later source change's batch leaves the post stale"
sql "UPDATE posts SET title = 'First post, edited' WHERE id = 1"
echo "banner two" >"$SITE/data/banner.txt"
wait_file_has "$OUT/index.html" "banner two"
check_eq 0 $? "the banner's batch ran"
check_contains "$(cat "$OUT/index.html")" "First post, edited" "the index re-rendered (it read the banner)"
check_not_contains "$(cat "$(post_file 1)")" "edited" "the post is still the old one"

try "notify --wait URL: published when it returns, with the files it wrote"
"$CGISNAP" notify --wait "$OUT" '/post.php?id=1' >"$TESTDIR/out1" 2>"$TESTDIR/err"
check_eq 0 $? "exit status"
check_contains "$(cat "$(post_file 1)")" "First post, edited" "the post has the new title"
check_eq "$(manifest_field "$OUT" "/post.php?id=1" 2)" "$(cat "$TESTDIR/out1")" "stdout: the file written"
check_match "$(cat "$TESTDIR/err")" "^cgisnap: published: [0-9]+ URLs re-rendered, 1 file changed, 0 removed$" "summary"
check_match "$(grep '^cgisnap: batch: ' "$LOG" | tail -1)" \
	"^cgisnap: batch: 1 notified \(/post.php\?id=1\): 2 URLs re-rendered, 1 file changed" "batch line (the post and /)"

try "notify without --wait queues; the page follows"
sql "UPDATE posts SET body = 'body two, edited' WHERE id = 2"
"$CGISNAP" notify "$OUT" "http://localhost/post.php?id=2" 2>"$TESTDIR/err"
check_eq 0 $? "exit status"
check_eq "cgisnap: notified: 1 URL and 0 paths queued" "$(cat "$TESTDIR/err")" "message"
wait_file_has "$(post_file 2)" "body two, edited"
check_eq 0 $? "post 2 published"
"$CGISNAP" notify --wait -q "$OUT" '/post.php?id=2' >/dev/null
check_eq 0 $? "and its batch is over (the next one came after it)"

try "notify --idle: answered once every change read is published, a removal's settle window too; it queues nothing"
n=$(batches "$LOG")
echo "banner three" >"$SITE/data/banner.txt"
# A name removed may start a source's deletion: its batch waits out the
# longer tree window (500 ms) of quiet, which --idle waits for too.
: >"$SITE/data/scratch" && rm "$SITE/data/scratch"
"$CGISNAP" notify --idle "$OUT" >"$TESTDIR/out1" 2>"$TESTDIR/err"
check_eq 0 $? "exit status"
check_eq "cgisnap: idle: nothing pending" "$(cat "$TESTDIR/err")" "message"
check_contains "$(cat "$OUT/index.html")" "banner three" "the change is published when it returns"
check_contains "$(grep '^cgisnap: batch: ' "$LOG" | tail -n +$((n + 1)))" "$SITE/data/scratch" \
	"the removal's batch line is logged"
n=$(batches "$LOG")
"$CGISNAP" notify --idle -q "$OUT" >"$TESTDIR/out1" 2>"$TESTDIR/err"
check_eq 0 $? "again, nothing pending: exit status"
check_eq "" "$(cat "$TESTDIR/out1" "$TESTDIR/err")" "nothing said (-q)"
check_eq "$n" "$(batches "$LOG")" "no batch: not even the --always page renders"
"$CGISNAP" notify --idle "$OUT" /post.php?id=1 2>"$TESTDIR/err"
check_eq 2 $? "--idle with a URL"
check_contains "$(cat "$TESTDIR/err")" "--idle goes alone" "message"
python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"idle\nurl /x\n\n")
print(s.makefile().readline(), end="")' "$OUT/.cgisnap/control" >"$TESTDIR/raw"
check_eq "error bad request: 'idle' goes alone" "$(cat "$TESTDIR/raw")" "the protocol's 'idle' with a URL"

try "notify --wait of a page that did not change writes nothing"
n1=$(stat -c '%i %Y' "$(post_file 1)")
m1=$(stat -c '%i %Y' "$OUT/.cgisnap/tree.db")
"$CGISNAP" notify --wait -q "$OUT" '/post.php?id=1' >"$TESTDIR/out1" 2>"$TESTDIR/err"
check_eq 0 $? "exit status"
check_eq "" "$(cat "$TESTDIR/out1" "$TESTDIR/err")" "nothing written, nothing said (-q)"
check_eq "$n1" "$(stat -c '%i %Y' "$(post_file 1)")" "the page file"
check_eq "$m1" "$(stat -c '%i %Y' "$OUT/.cgisnap/tree.db")" "the manifest"

try "bad items: a non-URL, another site's URL, nothing at all"
"$CGISNAP" notify "$OUT" post.php 2>"$TESTDIR/err"
check_eq 2 $? "a relative name"
check_contains "$(cat "$TESTDIR/err")" "'post.php' is not a URL of the site: give a target starting with '/'" "message"
"$CGISNAP" notify --wait "$OUT" /post.php?id=1 http://elsewhere.example/x 2>"$TESTDIR/err"
check_eq 1 $? "another site's URL"
check_eq "cgisnap: error: 'http://elsewhere.example/x' is not a URL of the site 'http://localhost/'" \
	"$(cat "$TESTDIR/err")" "message"
"$CGISNAP" notify "$OUT" 2>"$TESTDIR/err"
check_eq 2 $? "no item"
check_contains "$(cat "$TESTDIR/err")" "nothing to notify" "message"
python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"frobnicate /x\n\n")
print(s.makefile().readline(), end="")' "$OUT/.cgisnap/control" >"$TESTDIR/raw"
check_match "$(cat "$TESTDIR/raw")" "^error bad request line 'frobnicate /x'" "a bad protocol line"
kill -0 "$WATCH_PID" 2>/dev/null || fail "the watcher died"

try "notify --wait of a page that fails: its reason, and exit status 1"
"$CGISNAP" notify --wait "$OUT" '/post.php?id=99' '/post.php?id=1' >/dev/null 2>"$TESTDIR/err"
check_eq 1 $? "exit status"
check_contains "$(cat "$TESTDIR/err")" "cgisnap: warning: failed: /post.php?id=99: HTTP status 500" "the reason"
check_contains "$(cat "$TESTDIR/err")" "cgisnap: error: 1 of the 2 notified URLs failed" "the last line"

try "peers that connect and say nothing do not keep a notify out"
python3 -c 'import socket, subprocess, sys
idle = []
for i in range(16):
    s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); idle.append(s)
rc = subprocess.run(sys.argv[2:]).returncode
idle[0].settimeout(60)
print(rc, idle[0].makefile().readline(), end="")' \
	"$OUT/.cgisnap/control" "$CGISNAP" notify --wait -q "$OUT" '/post.php?id=1' >"$TESTDIR/raw"
check_eq "0 error dropped: 16 notifies at once, and this one had not sent its request" "$(cat "$TESTDIR/raw")" \
	"the notify's status, and what the oldest idle peer heard"

try "notify --path: a file's dependents re-render, and --depends rules match it"
"$CGISNAP" notify --wait "$OUT" --path "$SITE/data/banner.txt" >"$TESTDIR/out1" 2>"$TESTDIR/err"
check_eq 0 $? "exit status"
check_contains "$(grep '^cgisnap: batch: ' "$LOG" | tail -1)" "1 changed ($SITE/data/banner.txt)" "batch line"
check_contains "$(cat "$TESTDIR/err")" "URL re-rendered, 0 files changed" "the index re-rendered, unchanged"
watch_stop_ok
check_no_file "$OUT/.cgisnap/control" "the socket is removed at exit"
watch_start "$LOG" "${FIXTURE[@]}" --depends 'blog\.sqlite$ => /post.php?id=2' "$OUT"
check_eq 0 $? "watch came up with a rule"
sql "UPDATE posts SET title = 'Second post, edited' WHERE id = 2"
"$CGISNAP" notify --wait -q "$OUT" --path "$DB" >"$TESTDIR/out1"
check_eq 0 $? "exit status"
check_contains "$(cat "$(post_file 2)")" "Second post, edited" "the rule's page re-rendered"

try "another user is refused: by the socket's mode, and by watch itself"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
	# Every directory on the way open to all: only the socket's mode stops them.
	chmod 755 "$TESTDIR" "$OUT" "$OUT/.cgisnap"
	as_nobody "$CGISNAP" notify "$OUT" /post.php?id=1 2>"$TESTDIR/err"
	check_eq 1 $? "exit status (mode 0600)"
	check_contains "$(cat "$TESTDIR/err")" "permission denied" "message"
	# Even a socket opened to all hears only its own user and root.
	chmod 666 "$OUT/.cgisnap/control"
	as_nobody "$CGISNAP" notify "$OUT" /post.php?id=1 2>"$TESTDIR/err"
	check_eq 1 $? "exit status (SO_PEERCRED)"
	check_match "$(cat "$TESTDIR/err")" "^cgisnap: error: uid [0-9]+ may not notify this watch: only uid 0 and root may$" "message"
	wait_until "$WATCH_WAIT" grep -q "refused a notify from uid" "$LOG"
	check_eq 0 $? "watch logs the refusal"
	chmod 600 "$OUT/.cgisnap/control"
	chmod 700 "$TESTDIR"
else
	echo "# skipped: not root, or no setpriv: cannot run as another user"
fi

try "a killed watch's socket: notify says no watch runs; the next watch replaces it"
watch_stop KILL
check_eq "socket" "$(stat -c '%F' "$OUT/.cgisnap/control")" "left behind"
"$CGISNAP" notify "$OUT" /post.php?id=1 2>"$TESTDIR/err"
check_eq 1 $? "exit status"
check_contains "$(cat "$TESTDIR/err")" "no watch is running on '$OUT' (.cgisnap/control was left by one that was killed)" "message"
watch_start "$LOG" "${FIXTURE[@]}" --always / "$OUT"
check_eq 0 $? "watch came up"
"$CGISNAP" notify --wait -q "$OUT" /post.php?id=1 >/dev/null
check_eq 0 $? "notify works again"

try "a notified page that now answers 404 leaves the tree, as in any batch"
KEY2=$(manifest_field "$OUT" "/post.php?id=2" 2)
sql "DELETE FROM posts WHERE id = 2"
"$CGISNAP" notify --wait -q "$OUT" /post.php?id=2 >"$TESTDIR/out1"
check_eq 0 $? "exit status"
check_no_file "$OUT/$KEY2" "the post's file"
check_eq 404 "$(manifest_field "$OUT" "/post.php?id=2" 3)" "recorded as not found"
check_contains "$(cat "$TESTDIR/out1")" "$KEY2" "stdout names the removed file"
sql "INSERT INTO posts VALUES (2, 'Second post', 'body two')"
"$CGISNAP" notify --wait -q "$OUT" /post.php?id=2 >/dev/null
check_eq 0 $? "back"
check_contains "$(cat "$(post_file 2)")" "body two" "published again"

try "a notify while a source is missing is queued, held, and published when it is back"
mv "$SITE/data" "$SITE/data.away"
wait_until "$WATCH_WAIT" grep -q "source '$SITE/data' is missing" "$LOG"
check_eq 0 $? "watch saw it go"
sql "UPDATE posts SET title = 'First post, held' WHERE id = 1"
"$CGISNAP" notify "$OUT" '/post.php?id=1' 2>"$TESTDIR/err"
check_eq 0 $? "exit status"
check_eq "cgisnap: notified: 1 URL and 0 paths queued (held until the missing source '$SITE/data' is back)" \
	"$(cat "$TESTDIR/err")" "message"
"$CGISNAP" notify --idle "$OUT" 2>"$TESTDIR/err"
check_eq 1 $? "notify --idle meanwhile: exit status"
check_eq "cgisnap: error: source '$SITE/data' is missing: changes wait until it is back" \
	"$(cat "$TESTDIR/err")" "its message"
mv "$SITE/data.away" "$SITE/data"
wait_file_has "$(post_file 1)" "First post, held"
check_eq 0 $? "published once the source is back"
"$CGISNAP" notify --idle -q "$OUT"
check_eq 0 $? "notify --idle once it is back and published"

watch_stop_ok

try "a tree deeper than a socket address holds (108 bytes) is reached through /proc/self/fd"
LONG=$TESTDIR/$(printf '%080d' 0)/$(printf '%080d' 0)/out
mkdir -p "$LONG"
watch_start "$TESTDIR/log-long" "${FIXTURE[@]}" --always / "$LONG"
check_eq 0 $? "watch came up"
check_eq socket "$(stat -c '%F' "$LONG/.cgisnap/control")" "the socket"
"$CGISNAP" notify --wait "$LONG" '/post.php?id=1' >/dev/null 2>"$TESTDIR/err"
check_eq 0 $? "exit status"
check_contains "$(cat "$TESTDIR/err")" "published: 2 URLs re-rendered" "message"
watch_stop_ok

try "--poll needs pages to poll"
"$CGISNAP" watch "${FIXTURE[@]}" --poll 1 "$OUT" 2>"$TESTDIR/err"
check_eq 2 $? "exit status"
check_contains "$(cat "$TESTDIR/err")" "--poll re-renders the --always pages and those of --depends rules" "message"

polls() {
	grep -c '^cgisnap: debug: poll: .* nothing changed' "$1"
}
_polls_at_least() {
	[ "$(polls "$1")" -ge "$2" ]
}

try "--poll S: a database change is published without any notify"
watch_start "$LOG" "${FIXTURE[@]}" -v --poll 1 --always '/post.php?id=2' \
	--depends 'never-matches => /post.php?id=$1' "$OUT"
check_eq 0 $? "watch came up"
sql "UPDATE posts SET body = 'polled body' WHERE id = 2"
sql "UPDATE posts SET body = 'polled body one' WHERE id = 1"
wait_file_has "$(post_file 2)" "polled body"
check_eq 0 $? "the --always page"
wait_file_has "$(post_file 1)" "polled body one"
check_eq 0 $? "a page the rule's URL can name"
# A poll that found nothing comes after the batch that published them.
n=$(polls "$LOG")
wait_until "$WATCH_WAIT" _polls_at_least "$LOG" $((n + 1))
check_eq 0 $? "settled"
check_match "$(grep '^cgisnap: batch: poll' "$LOG" | head -1)" "^cgisnap: batch: poll: [0-9]+ URLs re-rendered, [12] files? changed" "batch line"

try "--poll: a poll that finds nothing changed writes nothing and logs only with -v"
tree_mtimes "$OUT" >"$TESTDIR/m1"
meta1=$(stat -c '%i %Y' "$OUT/.cgisnap/tree.db")
b=$(batches "$LOG")
n=$(polls "$LOG")
wait_until "$WATCH_WAIT" _polls_at_least "$LOG" $((n + 2))
check_eq 0 $? "two more polls ran"
tree_mtimes "$OUT" >"$TESTDIR/m2"
check_eq "" "$(diff "$TESTDIR/m1" "$TESTDIR/m2")" "files rewritten"
check_eq "$meta1" "$(stat -c '%i %Y' "$OUT/.cgisnap/tree.db")" "manifest and deps"
check_eq "$b" "$(batches "$LOG")" "no batch line"
watch_stop_ok

finish
