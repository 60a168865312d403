#!/usr/bin/env bash
# bench/bench-loadgen.sh - is the load generator of 'cgisnap bench' honest?
# The same target (cgisnap serve, a static file) measured by wrk and by
# cgisnap bench with the same shape: keep-alive, CONNS connections, one
# client thread each, DURATION seconds; median of ROUNDS runs, the two
# taking turns. Goal: within 10% of wrk. Also, for information, ab against
# cgisnap bench without keep-alive (a connection per request). Prints
# figures; never fails on them.
#
# ROUNDS=3, DURATION=5, CONNS=10, AB_REQUESTS=20000, FILE_BYTES=4096.
set -u
. "$(dirname "$0")/lib-bench.sh"
bench_defaults ROUNDS=3 DURATION=5 CONNS=10 AB_REQUESTS=20000 FILE_BYTES=4096
bench_start loadgen

bench_need_tools wrk ab php

# json_get FILE EXPR: a value from cgisnap bench --json ($s is the measured side).
json_get() {
	php -r '$j = json_decode(file_get_contents($argv[1]), true); $s = $j["static"];
		echo eval("return " . $argv[2] . ";");' "$1" "$2"
}
# cpu_pct "USER SYS" SECONDS: CPU time as a share of the wall time.
cpu_pct() { echo "$1" | awk -v w="$2" '{ printf "%.0f", 100 * ($1 + $2) / w }'; }

mkdir -p "$WORK/tree"
head -c "$FILE_BYTES" /dev/urandom | base64 -w 76 | head -c "$FILE_BYTES" >"$WORK/tree/file.txt"
P=$(free_port)
# The figure must be the server's capacity, which two honest clients agree
# on: one server thread (a core of its own, the client has the other) that
# reads the file for every request (--cache-mb 0), so that the server, not
# the client, runs out of CPU first. With the server on every core, the
# client spending less CPU per request leaves it more; with a server
# faster than the client, the clients measure themselves.
"$CGISNAP" serve "$WORK/tree" --any-dir --threads 1 --cache-mb 0 --listen "127.0.0.1:$P" --access-log off \
	2>"$WORK/serve.err" &
pids="$pids $!"
wait_port "$P" || { echo "cgisnap serve did not start: $(cat "$WORK/serve.err")"; exit 1; }
URL=http://127.0.0.1:$P/file.txt
curl -s -o /dev/null "$URL" # warm the server's cache

TIMEFORMAT='%U %S'
# run_wrk: requests per second and the client's CPU share.
run_wrk() {
	local out cpu
	{ time wrk -t 1 -c "$CONNS" -d "${DURATION}s" "$URL" >"$WORK/wrk.out" 2>&1; } 2>"$WORK/wrk.time"
	out=$(awk '/^Requests\/sec:/ { print $2 }' "$WORK/wrk.out")
	cpu=$(cpu_pct "$(tail -1 "$WORK/wrk.time")" "$DURATION")
	echo "${out:-0} $cpu"
}
# run_bench ARGS...: cgisnap bench on the same file; rate and CPU share.
run_bench() {
	"$CGISNAP" bench --static-url "http://127.0.0.1:$P/" --url /file.txt -c "$CONNS" --client-threads 1 \
		--no-warmup --json "$@" >"$WORK/bench.json" 2>"$WORK/bench.err" || { echo "0 0"; return; }
	echo "$(json_get "$WORK/bench.json" '$s["requests_per_s"]') $(json_get "$WORK/bench.json" \
		'round(100 * $s["client_cpu_busiest"])') $(json_get "$WORK/bench.json" '$s["failed"] + $s["non_2xx"]')"
}
# run_ab: requests per second and ab's CPU share.
run_ab() {
	local out wall
	{ time ab -q -c "$CONNS" -n "$AB_REQUESTS" "$URL" >"$WORK/ab.out" 2>&1; } 2>"$WORK/ab.time"
	out=$(awk '/^Requests per second:/ { print $4 }' "$WORK/ab.out")
	wall=$(awk '/^Time taken for tests:/ { print $5 }' "$WORK/ab.out")
	echo "${out:-0} $(cpu_pct "$(tail -1 "$WORK/ab.time")" "${wall:-1}")"
}

echo "target: cgisnap serve with 1 thread (a core of its own; the client has the other) reading"
echo "a $FILE_BYTES-byte file for every request (--cache-mb 0), so the server is the bottleneck;"
echo "on 127.0.0.1; median of $ROUNDS runs, the two clients taking turns"
wrk_rates=() bench_rates=() wrk_cpu=() bench_cpu=() bad=0
for round in $(seq 1 "$ROUNDS"); do
	if [ $((round % 2)) = 1 ]; then
		read -r r c < <(run_wrk)
		wrk_rates+=("$r") wrk_cpu+=("$c")
		read -r r c f < <(run_bench -k -d "$DURATION")
		bench_rates+=("$r") bench_cpu+=("$c") bad=$((bad + ${f:-0}))
	else
		read -r r c f < <(run_bench -k -d "$DURATION")
		bench_rates+=("$r") bench_cpu+=("$c") bad=$((bad + ${f:-0}))
		read -r r c < <(run_wrk)
		wrk_rates+=("$r") wrk_cpu+=("$c")
	fi
done
w=$(median "${wrk_rates[@]}")
b=$(median "${bench_rates[@]}")
diff=$(awk -v b="$b" -v w="$w" 'BEGIN { printf "%+.1f", 100 * (b - w) / w }')
goal=$(awk -v d="$diff" 'BEGIN { print (d <= 10 && d >= -10) ? "met" : "NOT met" }')
echo
echo "keep-alive, $CONNS connections, 1 client thread, ${DURATION} s per run"
printf '  %-24s %12s   %s\n' "client" "requests/s" "runs; client CPU (% of a core)"
printf '  %-24s %12.0f   %s; %s\n' "wrk -t1" "$w" "${wrk_rates[*]}" "${wrk_cpu[*]}"
printf '  %-24s %12.0f   %s; %s\n' "cgisnap bench -k" "$b" "${bench_rates[*]}" "${bench_cpu[*]}"
echo "  difference: $diff% of wrk's figure (goal within 10%: $goal)"
[ "$bad" = 0 ] || echo "  cgisnap bench counted $bad failed or non-2xx requests"
if [ "$goal" != met ]; then
	echo "  (the runs vary by themselves on a shared machine: compare the spread of each client's runs"
	echo "   above with the difference before blaming either; a client near 100% of its core was"
	echo "   the bottleneck itself)"
fi

ab_rates=() nb_rates=() ab_cpu=() nb_cpu=()
for round in $(seq 1 "$ROUNDS"); do
	read -r r c < <(run_ab)
	ab_rates+=("$r") ab_cpu+=("$c")
	read -r r c f < <(run_bench -n "$AB_REQUESTS")
	nb_rates+=("$r") nb_cpu+=("$c")
done
a=$(median "${ab_rates[@]}")
nb=$(median "${nb_rates[@]}")
echo
echo "a new connection per request, $CONNS at once, $AB_REQUESTS requests per run (for information)"
printf '  %-24s %12.0f   %s; %s\n' "ab" "$a" "${ab_rates[*]}" "${ab_cpu[*]}"
printf '  %-24s %12.0f   %s; %s\n' "cgisnap bench" "$nb" "${nb_rates[*]}" "${nb_cpu[*]}"
echo "  difference: $(awk -v b="$nb" -v w="$a" 'BEGIN { printf "%+.1f", 100 * (b - w) / w }')% of ab's figure"
echo "  (both wait for the server to close each connection; the client that spends less CPU per"
echo "   request leaves more of the machine to the kernel's connection work: compare the CPU shares, a"
echo "   single-threaded client near 100% was the bottleneck itself)"
