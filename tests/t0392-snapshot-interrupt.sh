#!/usr/bin/env bash
# t0392-snapshot-interrupt: Ctrl-C (SIGINT) stops a snapshot: the renders
# under way finish, what was published is said and recorded in the
# manifest (nothing left pending), nothing is pruned, the exit status is
# 130; the next run finds those files its own (unchanged) and finishes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"

SITE=$TESTDIR/site
OUT=$TESTDIR/out
mkdir -p "$SITE"
# Slow pages, so that the signal comes while most are still to render.
for i in 1 2 3 4 5 6 7 8 9 10; do
	printf '#!/bin/sh\nsleep 0.4\nprintf "Content-Type: text/html\\n\\n<p>page %s</p>\\n"\n' "$i" >"$SITE/p$i.cgi"
	chmod +x "$SITE/p$i.cgi"
	echo "<a href=\"/p$i.cgi\">$i</a>" >>"$SITE/index.html"
done
printf '<p>old</p>\n' >"$SITE/old.html"

try "a first complete run"
echo '<a href="/old.html">old</a>' >>"$SITE/index.html"
"$CGISNAP" snapshot --root "$SITE" --site-url http://localhost/ -j 4 "$OUT" 2>"$TESTDIR/err0"
check_eq 0 $? "exit status"
check_file "$OUT/old.html" "old page stored"
# old.html is no longer linked: a complete run would prune it.
sed -i '/old\.html/d' "$SITE/index.html"
for i in 1 2 3 4 5 6 7 8 9 10; do printf '#!/bin/sh\nsleep 0.4\nprintf "Content-Type: text/html\\n\\n<p>page %s, edited</p>\\n"\n' "$i" >"$SITE/p$i.cgi"; done

try "SIGINT stops the crawl: exit 130, what was published said and recorded"
"$CGISNAP" snapshot --root "$SITE" --site-url http://localhost/ -j 1 -v "$OUT" 2>"$TESTDIR/err" &
pid=$!
wait_until 20 sh -c "[ \$(grep -c ' changed .* /p[0-9]*\.cgi\$' '$TESTDIR/err') -ge 2 ]" ||
	fail "no two pages changed in time"
kill -INT "$pid"
wait "$pid"
check_eq 130 $? "exit status"
err=$(cat "$TESTDIR/err")
check_match "$err" "warning: interrupted: [0-9]+ files published \(0 new, [0-9]+ changed\), [0-9]+ unchanged, all recorded in the manifest; nothing was pruned" \
	"the interrupted line"
published=$(grep -cE '^cgisnap: 200 changed .* /p[0-9]+\.cgi$' "$TESTDIR/err")
check_lt "$published" 10 "it stopped before the end ($published of 10 pages)"
check_match "$err" "interrupted: $((published + 1)) files published \(0 new, $((published + 1)) changed\)" \
	"the count is the pages published (and the index)"
for t in $(grep -oE '^cgisnap: 200 changed .* /p[0-9]+\.cgi$' "$TESTDIR/err" | awk '{ print $8 }'); do
	key=${t#/}
	check_contains "$(cat "$OUT/$key")" "edited" "$t published"
	check_eq "$(sha256sum <"$OUT/$key" | cut -d' ' -f1)" "$(manifest_field "$OUT" "$t" 6)" "$t recorded with its bytes"
done
check_eq 0 "$(tree_sql "$OUT" 'SELECT count(*) FROM pending')" "nothing pending: the manifest holds it all"
check_file "$OUT/old.html" "nothing pruned"
check_eq 200 "$(manifest_field "$OUT" /old.html 3)" "old.html still recorded"
notyet=$(for i in 1 2 3 4 5 6 7 8 9 10; do grep -q "page $i, edited" "$OUT/p$i.cgi" || echo "p$i"; done | head -1)
check_ne "" "$notyet" "a page not reached is as the last run left it"
check_eq 200 "$(manifest_field "$OUT" "/$notyet.cgi" 3)" "and still recorded"
check_match "$("$CGISNAP" status "$OUT")" "last run: snapshot at [0-9-]+ [0-9:]+ UTC, [0-9.]+ s: interrupted \(exit status 130\)" \
	"status tells the run was interrupted"

try "the next run finds the tree consistent, finishes and prunes"
"$CGISNAP" snapshot --root "$SITE" --site-url http://localhost/ -j 4 "$OUT" 2>"$TESTDIR/err2"
check_eq 0 $? "exit status"
check_match "$(cat "$TESTDIR/err2")" "\(0 new, $((10 - published)) changed, [0-9]+ unchanged\), 1 removed" \
	"the published pages are unchanged, the rest changed, old.html removed"
check_no_file "$OUT/old.html" "pruned now"

try "a second SIGINT stops at once; the next run records what it had published"
for i in 1 2 3 4 5 6 7 8 9 10; do printf '#!/bin/sh\nsleep 0.4\nprintf "Content-Type: text/html\\n\\n<p>page %s, again</p>\\n"\n' "$i" >"$SITE/p$i.cgi"; done
"$CGISNAP" snapshot --root "$SITE" --site-url http://localhost/ -j 1 -v "$OUT" 2>"$TESTDIR/err3" &
pid=$!
wait_until 20 sh -c "grep -q ' changed .* /p[0-9]*\.cgi\$' '$TESTDIR/err3'" || fail "no page changed in time"
kill -INT "$pid"
sleep 0.1
kill -INT "$pid" 2>/dev/null
wait "$pid"
rc=$?
check_ne 0 "$rc" "exit status ($rc)"
"$CGISNAP" snapshot --root "$SITE" --site-url http://localhost/ -j 4 "$OUT" 2>"$TESTDIR/err4"
check_eq 0 $? "exit status of the next run"
check_match "$(cat "$TESTDIR/err4")" "\(0 new, [0-9]+ changed, [0-9]+ unchanged\), 0 removed" "no file was foreign to it"
check_not_contains "$(cat "$TESTDIR/err4")" "not overwriting" "every file it published is its own"

finish
