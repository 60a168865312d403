#!/usr/bin/env bash
# t0450-serve-keepalive-limits: many clients on kept-alive connections all
# get the right bytes; idle and slow clients are cut off; connection
# limits hold while others are served.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-serve.sh"

T=$TESTDIR/tree
make_tree "$T"
head -c 200000 /dev/urandom >"$T/docs/blob.bin"
P=$(port 0)
U=http://127.0.0.1:$P

try "50 clients x 20 requests on one connection each: every body right"
serve_start "$T" "$P"
paths=(/ /a/ /style.css /docs/big.txt /docs/blob.bin '/doku.php?id=start' /notes.txt /feed/ /a/b/c.html /data.json)
files=(index.html a/index.html style.css docs/big.txt docs/blob.bin 'doku.php@id=start.html' notes.txt feed/index.html a/b/c.html data.json)
urls=()
: >"$TESTDIR/expected"
for i in $(seq 0 19); do
	urls+=("$U${paths[$((i % 10))]}")
	cat "$T/${files[$((i % 10))]}" >>"$TESTDIR/expected"
done
pids=""
for c in $(seq 1 50); do
	curl -s --keepalive -w '%{stderr}%{num_connects} %{http_code}\n' "${urls[@]}" \
		>"$TESTDIR/body$c" 2>"$TESTDIR/conn$c" &
	pids="$pids $!"
done
for p in $pids; do
	wait "$p"
done
right=0 connects=0 ok=0
for c in $(seq 1 50); do
	cmp -s "$TESTDIR/body$c" "$TESTDIR/expected" && right=$((right + 1))
	connects=$((connects + $(awk '{ s += $1 } END { print s + 0 }' "$TESTDIR/conn$c")))
	ok=$((ok + $(grep -c ' 200$' "$TESTDIR/conn$c")))
done
check_eq 50 "$right" "clients with every body right"
check_eq 1000 "$ok" "200 answers"
check_eq 50 "$connects" "connections opened (one per client: kept alive)"
bg_stop "$SERVE_PID"

try "--idle-timeout closes idle and slow (slowloris) connections"
serve_start "$T" "$P" --idle-timeout 1
start=$(date +%s)
# Half a request, then silence: the server must hang up on its own.
out=$(exec 5<>"/dev/tcp/127.0.0.1/$P"; printf 'GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ' >&5; timeout 10 cat <&5 2>/dev/null; echo "closed")
elapsed=$(($(date +%s) - start))
check_contains "$out" "closed" "the connection was closed"
check_le "$elapsed" 5 "seconds until the server hung up"
# An idle kept-alive connection goes too.
start=$(date +%s)
out=$(exec 5<>"/dev/tcp/127.0.0.1/$P"; printf 'GET /notes.txt HTTP/1.1\r\nHost: x\r\n\r\n' >&5; timeout 10 cat <&5 2>/dev/null; echo "closed")
elapsed=$(($(date +%s) - start))
check_contains "$out" "plain text" "answered first"
check_le "$elapsed" 5 "idle keep-alive closed"
bg_stop "$SERVE_PID"

try "slow clients hold their connection only: others are served meanwhile"
serve_start "$T" "$P" --idle-timeout 3
for i in $(seq 1 20); do
	(exec 5<>"/dev/tcp/127.0.0.1/$P"; printf 'GET / HTTP/1.1\r\nHost: x\r\n' >&5; sleep 4) 2>/dev/null &
done
good=0
for i in $(seq 1 20); do
	[ "$(curl -s -m 2 "$U/a/")" = "page a" ] && good=$((good + 1))
done
check_eq 20 "$good" "good requests while 20 slow clients hang on"
bg_stop "$SERVE_PID"
wait 2>/dev/null

# held_open: two connections, each answered once and then kept open. A
# connection the server has not yet seen closed (wait_port's probe) still
# counts against the limit for a moment: try again until both are served.
# (CI once saw the script killed by SIGPIPE, exit 141, writing to one.)
held_open() {
	local line tries=0
	while [ "$tries" -lt 50 ]; do
		exec 6<>"/dev/tcp/127.0.0.1/$P" 7<>"/dev/tcp/127.0.0.1/$P"
		# A connection over the limit is closed at once: a write to it
		# raises SIGPIPE, so each write has a subshell of its own.
		(printf 'GET / HTTP/1.1\r\nHost: x\r\n\r\n' >&6) 2>/dev/null
		(printf 'GET / HTTP/1.1\r\nHost: x\r\n\r\n' >&7) 2>/dev/null
		read -r -t 5 line <&6 && read -r -t 5 line <&7 && return 0
		exec 6<&- 7<&-
		tries=$((tries + 1))
		nap 0.1
	done
	fail "the two held connections were not served"
}

try "--max-per-ip and --max-connections bound open connections"
serve_start "$T" "$P" --max-per-ip 2
# A full request answered on each proves the server has accepted both
# (and keep-alive holds them open) before the third one knocks.
held_open
check_eq 000 "$(code "$U/" -m 3)" "a third connection from the same address"
exec 6<&- 7<&-
served_again() {
	[ "$(code "$U/" -m 2)" = 200 ]
}
wait_until 5 served_again || fail "served again once the others closed"
bg_stop "$SERVE_PID"
serve_start "$T" "$P" --threads 1 --max-connections 2
# A full request answered on each proves the server has accepted both
# (and keep-alive holds them open) before the third one knocks. A full
# table makes room by cutting the oldest idle connection (issue 9: it used
# to refuse the newcomer, which let idle or slow clients lock everyone out).
held_open
check_eq 200 "$(code "$U/" -m 3)" "a third connection replaces an idle one"
cut=0
for fd in 6 7; do
	timeout 3 cat <&$fd >/dev/null 2>&1 && cut=$((cut + 1))
done
check_eq 1 "$cut" "held connections the server closed"
exec 6<&- 7<&-
wait_until 5 served_again || fail "served again once the others closed"
bg_stop "$SERVE_PID"

finish
