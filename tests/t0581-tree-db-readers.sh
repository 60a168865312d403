#!/usr/bin/env bash
# t0581-tree-db-readers: serve, reading the tree while watch commits 200
# batches, never answers from a half-updated state: a page flipping
# between a 301 and a 200 of its own type is, in every answer, either the
# redirect (its Location, no body of the page) or the page (its type, the
# bytes of one even state), never a mix of two states.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-watch.sh"
. "$(dirname "$0")/lib-serve.sh"

watch_test_dirs site
ANSWERS=$TESTDIR/answers
mkdir -p "$SITE/data"
echo 0 >"$SITE/data/state"
# flip.cgi: an odd state is a redirect, an even one a text/csv page.
cat >"$SITE/flip.cgi" <<SH
#!/bin/sh
read n <"$SITE/data/state"
if [ \$((n % 2)) = 1 ]; then
	printf 'Status: 301 Moved Permanently\r\nLocation: http://localhost/moved-%s.html\r\n\r\n' "\$n"
else
	printf 'Content-Type: text/csv\r\n\r\nstate,%s\n' "\$n"
fi
SH
chmod +x "$SITE/flip.cgi"
printf '<a href="/flip.cgi">flip</a>\n' >"$SITE/index.html"

# state_is N: the tree records flip.cgi as state N does.
state_is() {
	local want=200
	[ $(($1 % 2)) = 1 ] && want=301
	[ "$(manifest_field "$OUT" /flip.cgi 3)" = "$want" ]
}
# ask PORT: answer lines "STATUS TYPE LOCATION BODY" until $TESTDIR/stop
# exists, then $TESTDIR/asked. One process, a new connection per request
# (as a browser's first visit), a few milliseconds apart: hundreds of
# answers a second for little CPU, where a curl per answer took 60 ms.
cat >"$TESTDIR/ask.py" <<'PY'
import http.client, os, sys, time
port, answers, stop, asked = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
with open(answers, "a") as out:
    while not os.path.exists(stop):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        c.request("GET", "/flip.cgi")
        r = c.getresponse()
        body = r.read().decode("utf-8", "replace").replace("\n", " ")
        out.write("%d %s %s %s\n" % (r.status, r.getheader("Content-Type", ""), r.getheader("Location", ""), body))
        c.close()
        time.sleep(0.005)
open(asked, "w").close()
PY
ask() {
	python3 "$TESTDIR/ask.py" "$1" "$ANSWERS" "$TESTDIR/stop" "$TESTDIR/asked"
}

try "200 batches flip the page while serve answers it"
watch_start "$LOG" --root "$SITE" -j 1 --source "$SITE/data" --site-url http://localhost/ "$OUT"
check_eq 0 $? "watch came up"
P=$(port 1)
: >"$TESTDIR/server.err"
serve_start "$OUT" "$P"
bg_start ask "$P"
ASK_PID=$BG_PID
lost=0
for n in $(seq 1 200); do
	echo "$n" >"$SITE/data/state.tmp" && mv "$SITE/data/state.tmp" "$SITE/data/state"
	wait_until 20 state_is "$n" || { lost=$((lost + 1)); break; }
done
touch "$TESTDIR/stop"
wait_until 20 test -e "$TESTDIR/asked"
bg_stop "$ASK_PID"
check_eq 0 "$lost" "every state reached the tree (the last: $n)"
wait_batches "$LOG" 200 # the last batch line comes after its commit
check_le 200 "$(batches "$LOG")" "a batch per change"
bad=$(awk '
	function num(s, from) { return substr(s, from) + 0 }
	$1 == 301 {
		ok = match($0, /http:\/\/localhost\/moved-[0-9]+\.html/) && num(substr($0, RSTART, RLENGTH), 24) % 2 == 1
		if (!ok || $0 ~ /state,/) print
		next
	}
	$1 == 200 { if ($2 != "text/csv" || $3 !~ /^state,[0-9]+$/ || num($3, 7) % 2 != 0 || NF != 3) print; next }
	{ print }' "$ANSWERS")
check_eq "" "$bad" "every answer one committed state"
check_ne 0 "$(grep -c '^301 ' "$ANSWERS")" "redirects answered"
check_ne 0 "$(grep -c '^200 ' "$ANSWERS")" "pages answered"
echo "# $(wc -l <"$ANSWERS") answers during the batches"
bg_stop "$SERVE_PID"
watch_stop
check_eq 0 "$WATCH_STATUS" "watch exit status"

finish
