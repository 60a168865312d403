#!/usr/bin/env bash
# t0448-serve-fill-db: serve keeps no manifest in memory, --fill included:
# each target is looked up in tree.db (a row committed after the start
# too), a --fill save writes the rows of the pages it stored and no other,
# and many serving threads, each on a connection of its own, answer from
# one committed state while another writer commits.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"
. "$(dirname "$0")/lib-serve.sh"

fallback_origin <<'EOF'
printf 'Content-Type: text/html; charset=utf-8\r\n\r\n<h1>rendered %s</h1>\n' "$REQUEST_URI"
EOF

try "--fill saves the row of the page it stored, and leaves every other row as it is"
# Rows whose fingerprint is not what this cgisnap computes (as another
# version may have written them): a save of the whole manifest would
# write each anew, a save of what was filled none of them.
tree_sql "$T" "UPDATE url SET fp = 0"
rows=$(tree_sql "$T" "SELECT count(*) FROM url")
before=$("$CGISNAP" ls "$T")
serve_start "$T" "$P" --fallback --fill --threads 4 "${ORIGIN[@]}"
check_eq "<h1>rendered /new/page</h1>" "$(curl -s "$U/new/page")" "rendered"
saved() { [ "$(manifest_field "$T" /new/page 2)" = new/page/index.html ]; }
wait_until 5 saved || fail "the stored page is not in cgisnap ls"
check_eq "<h1>rendered /new/page</h1>" "$(cat "$T/new/page/index.html" 2>/dev/null)" "the stored file"
check_eq "$rows" "$(tree_sql "$T" "SELECT count(*) FROM url WHERE fp = 0")" "the other rows untouched, fp included"
check_eq "$((rows + 1))" "$(tree_sql "$T" "SELECT count(*) FROM url")" "one row more"
check_eq "$before" "$("$CGISNAP" ls "$T" | grep -v '^/new/page	')" "cgisnap ls: the other lines as before"
journal_empty() { [ "$(tree_sql "$T" "SELECT count(*) FROM pending")" = 0 ]; }
wait_until 5 journal_empty || fail "the journal was not emptied after the save"
check_eq "<h1>rendered /new/page</h1>" "$(curl -s "$U/new/page")" "served from the tree now"
check_eq 1 "$(renders /new/page)" "one render"

try "--fill answers from tree.db as it is now: a row committed after its start"
tree_put "$T" "$(manifest_line /late - 301 - http://localhost/a/)"
curl -s -D "$TESTDIR/h" -o /dev/null "$U/late"
check_match "$(head -1 "$TESTDIR/h")" '^HTTP/1.1 301' "the row's redirect"
check_eq "http://localhost/a/" "$(header Location "$TESTDIR/h")" "its Location"
check_eq 0 "$(renders /late)" "not rendered"
check_no_file "$T/late/index.html" "nor stored"
bg_stop "$SERVE_PID"
check_eq 0 "$?" "the filling server stops cleanly"
check_eq 301 "$(manifest_field "$T" /late 3)" "the other writer's row stays"

try "8 threads answer 200 pages from one committed state while a writer flips them"
N=200
mkdir -p "$T/v0" "$T/v1"
lines() { # lines VERSION: the rows of the N pages in that version
	local i type=text/plain
	[ "$1" = 1 ] && type=text/csv
	for ((i = 0; i < N; i++)); do
		printf '/n/%d\tv%d/%d.txt\t200\t%s\t0\t-\t1\t0\t-\n' "$i" "$1" "$i" "$type"
	done
}
for ((i = 0; i < N; i++)); do
	echo "$i v0" >"$T/v0/$i.txt"
	echo "$i v1" >"$T/v1/$i.txt"
done
mapfile -t rows0 < <(lines 0)
tree_put "$T" "${rows0[@]}"
: >"$TESTDIR/server.err"
serve_start "$T" "$P" --threads 8
# flip: every page to the other version, in one transaction each time,
# as a second writer would (tree_put's statement, in one process to
# commit often), until $TESTDIR/stop exists; $TESTDIR/flips counts them.
flip() {
	python3 - "$T/.cgisnap/tree.db" "$TESTDIR/stop" "$TESTDIR/flips" <<'PY'
import os, sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], timeout=10)
k = 0
while not os.path.exists(sys.argv[2]):
    k += 1
    v = k % 2
    with db:
        db.execute("UPDATE url SET key = printf('v%d/', ?) || substr(key, 4), type = ?, fp = 0"
                   " WHERE target LIKE '/n/%'", (v, "text/csv" if v else "text/plain"))
    with open(sys.argv[3], "w") as f:
        f.write("%d\n" % k)
    time.sleep(0.005)
db.close()
PY
}
# ask R: 5 rounds of the N pages over one keep-alive connection, each
# answer as a line "I vX" (the body) and a line "|STATUS TYPE URL".
ask() {
	local round i
	for round in 1 2 3 4 5; do
		for ((i = 0; i < N; i++)); do
			echo "url = \"$U/n/$i\""
			echo 'write-out = "|%{http_code} %{content_type} %{url_effective}\n"'
		done | curl -s -K -
	done >"$TESTDIR/answers.$1"
}
bg_start flip
FLIP_PID=$BG_PID
wait_until 10 test -e "$TESTDIR/flips" || fail "the writer did not commit"
pids=""
for r in 1 2 3 4 5 6 7 8; do
	ask "$r" &
	pids="$pids $!"
done
for p in $pids; do
	wait "$p"
done
touch "$TESTDIR/stop"
wait_until 20 ! kill -0 "$FLIP_PID" 2>/dev/null
bg_stop "$FLIP_PID"
cat "$TESTDIR"/answers.* >"$TESTDIR/answers"
# Each body "I vX" is followed by "|200 TYPE URL", TYPE that of version X
# and URL page I's.
bad=$(awk -v n="$N" '
	FNR % 2 == 1 { body = $0; next }
	{
		split(body, b, " ")
		split($0, w, " ")
		url = w[3]
		sub(/.*\/n\//, "", url)
		want = b[2] == "v1" ? "text/csv" : "text/plain"
		if (w[1] != "|200" || w[2] != want || url != b[1] || (b[2] != "v0" && b[2] != "v1"))
			print body " " $0
		ok++
	}
	END { if (ok != 8 * 5 * n) print "answers: " ok " of " 8 * 5 * n }' "$TESTDIR"/answers.*)
check_eq "" "$bad" "every answer the right page in one committed state"
check_ne 0 "$(grep -c ' v0$' "$TESTDIR/answers")" "version 0 answered"
check_ne 0 "$(grep -c ' v1$' "$TESTDIR/answers")" "version 1 answered"
echo "# $(cat "$TESTDIR/flips") commits during $((8 * 5 * N)) answers"
bg_stop "$SERVE_PID"
check_eq "" "$(grep -v '^$' "$TESTDIR/server.err" | grep -iv 'serving\|stopped')" "no warning from the server"

finish
