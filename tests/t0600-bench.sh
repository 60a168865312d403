#!/usr/bin/env bash
# t0600-bench: 'cgisnap bench' with real servers - the sample wiki against
# its snapshot, failure counting (length, non-2xx), --json, servers the
# user runs, keep-alive seen from the server's side, interruption, and
# usage errors. Every run is bounded by a small -n.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"
. "$(dirname "$0")/lib-serve.sh"

sample_site_test wiki 12
snap_wiki "$SITE" "$OUT" -q 2>"$TESTDIR/snap.err" || fail "snapshot of the wiki failed: $(cat "$TESTDIR/snap.err")"
WIKI_ORIGIN=(--root "$SITE" --cgi php=php-cgi --site-url http://localhost:8080/)

# json FILE EXPR: evaluate a PHP expression over the decoded JSON $j.
json() {
	php -r '$j = json_decode(file_get_contents($argv[1]), true);
		if ($j === null) { echo "INVALID JSON"; exit(1); }
		echo eval("return " . $argv[2] . ";");' "$1" "$2"
}

# A CGI program whose body is 1..7 bytes long, one byte more on each
# request (a counter file): a page that changes length between requests.
DOC=$TESTDIR/doc
mkdir -p "$DOC"
cat >"$DOC/vary.cgi" <<EOF
#!/bin/sh
n=\$(cat "$TESTDIR/counter" 2>/dev/null || echo 0)
n=\$((n + 1))
echo "\$n" >"$TESTDIR/counter"
printf 'Content-Type: text/plain\n\n'
head -c \$(( (n - 1) % 7 + 1 )) /dev/zero | tr '\0' x
EOF
chmod +x "$DOC/vary.cgi"
# Its snapshot stand-in: a fixed file under the same URL.
VTREE=$TESTDIR/vtree
mkdir -p "$VTREE"
printf 'xxx' >"$VTREE/vary.cgi"
# A tree, which lists the page: serve sends no unlisted script file.
manifest_start "$VTREE"
manifest_line /vary.cgi vary.cgi 200 'text/plain' >>"$VTREE/.cgisnap/manifest"
manifest_commit "$VTREE"

try "the wiki against its snapshot: both sides, every request counted, static faster"
"$CGISNAP" bench "${WIKI_ORIGIN[@]}" --tree "$OUT" -n 40 -c 4 -k --sample 5 --json \
	>"$TESTDIR/wiki.json" 2>"$TESTDIR/wiki.err"
check_eq 0 $? "exit status"
check_eq ok "$(json "$TESTDIR/wiki.json" '"ok"')" "valid JSON"
check_eq 5 "$(json "$TESTDIR/wiki.json" 'count($j["urls"])')" "a sample of 5 URLs"
check_contains "$(json "$TESTDIR/wiki.json" '$j["urls_from"]')" "5 of the" "the sample says how many"
check_eq 40 "$(json "$TESTDIR/wiki.json" '$j["static"]["complete"]')" "static: complete = -n"
check_eq 0 "$(json "$TESTDIR/wiki.json" '$j["static"]["failed"]')" "static: no failure"
check_eq 0 "$(json "$TESTDIR/wiki.json" '$j["static"]["non_2xx"]')" "static: all 2xx"
check_eq 40 "$(json "$TESTDIR/wiki.json" '$j["dynamic"]["complete"] + $j["dynamic"]["failed_connect"]
	+ $j["dynamic"]["failed_receive"] + $j["dynamic"]["failed_exceptions"]')" "dynamic: every request counted once"
check_eq 4 "$(json "$TESTDIR/wiki.json" '$j["static"]["connections"]')" "keep-alive: one connection each"
check_eq 1 "$(json "$TESTDIR/wiki.json" '(int)($j["ratio"] > 1)')" "ratio static/dynamic > 1"
check_eq 1 "$(json "$TESTDIR/wiki.json" '(int)($j["static"]["requests_per_s"] > $j["dynamic"]["requests_per_s"])')" \
	"the static side served more requests per second"
check_eq 1 "$(json "$TESTDIR/wiki.json" '(int)(abs($j["ratio"] - $j["static"]["requests_per_s"]
	/ $j["dynamic"]["requests_per_s"]) <= 0.01 * $j["ratio"] + 0.01)')" "the ratio is the quotient of the rates"
check_eq 1 "$(json "$TESTDIR/wiki.json" '(int)(abs($j["static"]["requests_per_s"] - $j["static"]["complete"]
	/ $j["static"]["time_s"]) <= 0.01 * $j["static"]["requests_per_s"] + 1)')" "requests/s = complete / time"
check_eq 1 "$(json "$TESTDIR/wiki.json" '(int)($j["static"]["latency_ms"]["p50"] <= $j["static"]["latency_ms"]["p90"]
	&& $j["static"]["latency_ms"]["p90"] <= $j["static"]["latency_ms"]["p99"]
	&& $j["static"]["latency_ms"]["p99"] <= $j["static"]["latency_ms"]["max"])')" "percentiles in order"
check_eq 1 "$(json "$TESTDIR/wiki.json" '(int)($j["dynamic"]["peak_rss_kb"] > 0 && $j["static"]["peak_rss_kb"] > 0)')" \
	"peak RSS of both servers"

try "the text table: ab's rows for both sides, the length note and the ratio"
"$CGISNAP" bench "${WIKI_ORIGIN[@]}" --tree "$OUT" -n 12 -c 3 --url / \
	--url '/doku.php?id=wiki:syntax' >"$TESTDIR/wiki.txt" 2>"$TESTDIR/wiki.err"
check_eq 0 $? "exit status"
txt=$(cat "$TESTDIR/wiki.txt")
check_match "$txt" 'dynamic +static' "column heads"
check_match "$txt" 'Complete requests: +12 +12' "complete = -n on both sides"
check_match "$txt" 'Failed requests: +[0-9]+ +0' "no failure on the static side"
for row in 'Connect:' 'Receive:' 'Length:' 'Exceptions:' 'Non-2xx responses:' 'Total transferred:' \
	'HTML transferred:' 'Requests per second:' 'Transfer rate:' 'Latency 50%:' 'Latency 90%:' \
	'Latency 99%:' 'Latency max:'; do
	check_contains "$txt" "$row" "row $row"
done
check_match "$txt" 'Connections opened: +12 +12' "no keep-alive: a connection per request"
check_contains "$txt" "Length failures are complete responses whose body length differs" "the length note"
ratio=$(printf '%s\n' "$txt" | sed -n 's/^Ratio static\/dynamic: \([0-9.]*\).*/\1/p')
check_eq 1 "$(awk -v r="$ratio" 'BEGIN { print (r > 1) ? 1 : 0 }')" "ratio '$ratio' > 1"

try "a page whose length varies shows as length failures; a 404 as non-2xx"
rm -f "$TESTDIR/counter"
"$CGISNAP" bench --root "$DOC" --tree "$VTREE" --url /vary.cgi --url /no-such-page \
	-n 28 -c 1 -k --no-warmup --json >"$TESTDIR/vary.json" 2>"$TESTDIR/vary.err"
check_eq 0 $? "exit status"
# 14 requests of vary.cgi: lengths 1..7, 1..7; only 2 equal the first.
check_eq 12 "$(json "$TESTDIR/vary.json" '$j["dynamic"]["failed_length"]')" "dynamic: length failures"
check_eq 12 "$(json "$TESTDIR/vary.json" '$j["dynamic"]["failed"]')" "dynamic: failed = length failures"
check_eq 28 "$(json "$TESTDIR/vary.json" '$j["dynamic"]["complete"]')" "dynamic: length failures are complete"
check_eq 14 "$(json "$TESTDIR/vary.json" '$j["dynamic"]["non_2xx"]')" "dynamic: the 404s"
check_eq 0 "$(json "$TESTDIR/vary.json" '$j["static"]["failed"]')" "static: the file never varies"
check_eq 14 "$(json "$TESTDIR/vary.json" '$j["static"]["non_2xx"]')" "static: the 404s"
check_eq 14 "$(cat "$TESTDIR/counter")" "vary.cgi ran once per dynamic request"

try "--dynamic-url and --static-url measure servers the user runs"
PD=$(port 1)
PS=$(port 2)
bg_start "$CGISNAP" serve --dynamic --root "$DOC" --listen "127.0.0.1:$PD" --access-log "$TESTDIR/dyn.log" \
	2>>"$TESTDIR/server.err"
DYN_PID=$BG_PID
serve_start "$VTREE" "$PS" --access-log "$TESTDIR/static.log"
STATIC_PID=$SERVE_PID
wait_port "$PD" || fail "dynamic server did not start"
printf '# paths\n/vary.cgi\n' >"$TESTDIR/urls"
"$CGISNAP" bench --dynamic-url "http://127.0.0.1:$PD/" --static-url "http://127.0.0.1:$PS" \
	--urls "$TESTDIR/urls" -n 15 -c 3 -k >"$TESTDIR/user.txt" 2>"$TESTDIR/user.err"
check_eq 0 $? "exit status"
txt=$(cat "$TESTDIR/user.txt")
check_contains "$txt" "at http://127.0.0.1:$PD/" "the dynamic URL"
check_contains "$txt" "at http://127.0.0.1:$PS" "the static URL"
check_match "$txt" 'Complete requests: +15 +15' "complete = -n"
check_match "$txt" 'Server peak RSS: +- +-' "no RSS for servers bench did not start"
bg_stop "$DYN_PID"
bg_stop "$STATIC_PID"
# Warm-up (one request per URL) + 15 measured, seen by each server.
check_eq 16 "$(grep -c 'GET /vary.cgi' "$TESTDIR/dyn.log")" "requests in the dynamic server's log"
check_eq 16 "$(grep -c 'GET /vary.cgi' "$TESTDIR/static.log")" "requests in the static server's log"
check_contains "$(cat "$TESTDIR/dyn.log")" "cgisnap-bench/" "the generator's User-Agent"

try "-k keeps connections open; without it, one connection per request (seen by the server)"
# tw PORT: TCP connections to or from PORT now in TIME-WAIT (each closed
# connection leaves one, on one side or the other, for a minute).
tw() {
	ss -Htan state time-wait "( sport = :$1 or dport = :$1 )" 2>/dev/null | wc -l
}
# fresh_port: a port below the ephemeral range, reserved (lib.sh's
# port_reserve), with no TIME-WAIT left from earlier runs.
fresh_port() {
	local p
	while :; do
		p=$((21000 + RANDOM % 11000))
		port_reserve "$p" || continue
		[ "$(tw "$p")" = 0 ] && { echo "$p"; return; }
	done
}
PK=$(fresh_port)
serve_start "$VTREE" "$PK"
"$CGISNAP" bench --static-url "http://127.0.0.1:$PK/" --url /vary.cgi -n 200 -c 4 -k --no-warmup --json \
	>"$TESTDIR/ka.json" 2>>"$TESTDIR/ka.err"
check_eq 200 "$(json "$TESTDIR/ka.json" '$j["static"]["complete"]')" "keep-alive: complete"
check_eq 4 "$(json "$TESTDIR/ka.json" '$j["static"]["connections"]')" "keep-alive: connections opened"
bg_stop "$SERVE_PID"
PN=$(fresh_port)
serve_start "$VTREE" "$PN"
"$CGISNAP" bench --static-url "http://127.0.0.1:$PN/" --url /vary.cgi -n 200 -c 4 --no-warmup --json \
	>"$TESTDIR/noka.json" 2>>"$TESTDIR/ka.err"
check_eq 200 "$(json "$TESTDIR/noka.json" '$j["static"]["complete"]')" "no keep-alive: complete"
check_eq 200 "$(json "$TESTDIR/noka.json" '$j["static"]["connections"]')" "no keep-alive: connections opened"
bg_stop "$SERVE_PID"
if command -v ss >/dev/null; then
	# 4 kept-alive connections and bench's first probe connection.
	check_le "$(tw "$PK")" 8 "closed connections after 200 kept-alive requests"
	check_le 195 "$(tw "$PN")" "closed connections after 200 requests without keep-alive"
else
	echo "    (ss is not installed: connections not checked from the server's side)"
fi

try "SIGINT stops the run and both servers, exit status 130"
"$CGISNAP" bench --root "$DOC" --tree "$VTREE" --url /vary.cgi -d 60 -c 2 >/dev/null 2>"$TESTDIR/int.err" &
BENCH_PID=$!
two_servers() { [ "$(pgrep -P "$BENCH_PID" | wc -l)" -eq 2 ]; }
wait_until 10 two_servers || fail "bench did not start two servers"
kids=$(pgrep -P "$BENCH_PID" | tr '\n' ' ')
sleep 0.3
kill -INT "$BENCH_PID"
wait "$BENCH_PID"
check_eq 130 $? "exit status"
check_contains "$(cat "$TESTDIR/int.err")" "interrupted" "says so"
left=""
for k in $kids; do
	kill -0 "$k" 2>/dev/null && left="$left $k"
done
check_eq "" "$left" "servers still running"

try "usage and set-up errors: one line, exit status 2"
# expect_error MESSAGE-PART ARGS...: bench fails with status 2 and one line.
expect_error() {
	local want=$1 err
	shift
	err=$("$CGISNAP" bench "$@" 2>&1 >/dev/null)
	local status=$?
	check_eq 2 "$status" "exit status of bench $*"
	check_eq 1 "$(printf '%s\n' "$err" | wc -l)" "one line for bench $*"
	check_contains "$err" "$want" "message for bench $*"
}
expect_error "no --tree given" "${WIKI_ORIGIN[@]}"
expect_error "no origin given" --tree "$OUT"
expect_error "cannot open tree '$TESTDIR/nope'" --tree "$TESTDIR/nope" "${WIKI_ORIGIN[@]}"
expect_error "document root '$TESTDIR/nope' is not a directory" --tree "$OUT" --root "$TESTDIR/nope"
expect_error "cannot connect to 'http://127.0.0.1:$(port 4)/'" --static-url "http://127.0.0.1:$(port 4)/"
expect_error "not an http:// URL" --dynamic-url https://127.0.0.1/
expect_error "give -n or -d, not both" --tree "$OUT" "${WIKI_ORIGIN[@]}" -n 5 -d 5
expect_error "needs seconds" --tree "$OUT" "${WIKI_ORIGIN[@]}" -d soon
expect_error "origin options are for the server bench starts" --static-url http://127.0.0.1:1/ --root "$SITE"
expect_error "does not start with '/'" --tree "$OUT" "${WIKI_ORIGIN[@]}" --url doku.php
expect_error "cannot read" --tree "$OUT" "${WIKI_ORIGIN[@]}" --urls "$TESTDIR/no-such-list"
expect_error "unexpected argument" "$OUT" "${WIKI_ORIGIN[@]}"

# The server is there and answers the probe; with 32 descriptors at most,
# the 64 client threads cannot each have their epoll instance.
try "every origin option reaches the dynamic server bench starts (--static-ext)"
printf 'echo not a script here\n' >"$DOC/notes.sh"
STREE=$TESTDIR/stree
mkdir -p "$STREE"
cp "$DOC/notes.sh" "$STREE/notes.sh"
manifest_start "$STREE"
manifest_line /notes.sh notes.sh 200 'application/octet-stream' >>"$STREE/.cgisnap/manifest"
manifest_commit "$STREE"
"$CGISNAP" bench --root "$DOC" --static-ext sh --tree "$STREE" --url /notes.sh \
	-n 4 -c 1 --no-warmup --json >"$TESTDIR/static-ext.json" 2>"$TESTDIR/static-ext.err"
check_eq 0 $? "exit status ($(cat "$TESTDIR/static-ext.err"))"
check_eq 0 "$(json "$TESTDIR/static-ext.json" '$j["dynamic"]["non_2xx"]')" "dynamic: --static-ext sh publishes notes.sh"
check_eq 0 "$(json "$TESTDIR/static-ext.json" '$j["static"]["non_2xx"]')" "static: the tree's copy"

try "a failure during the measurement is exit status 1, not 2 (usage)"
PF=$(port 5)
serve_start "$VTREE" "$PF"
err=$( (ulimit -n 32 && exec "$CGISNAP" bench --static-url "http://127.0.0.1:$PF/" --url /vary.cgi -n 64 \
	-c 64 --client-threads 64 --no-warmup) 2>&1 >/dev/null)
check_eq 1 $? "exit status"
check_eq 1 "$(printf '%s\n' "$err" | grep -c 'error:')" "one error: $err"
check_contains "$(printf '%s\n' "$err" | tail -1)" "error: cannot create an epoll instance" "last line"
bg_stop "$SERVE_PID"

finish
