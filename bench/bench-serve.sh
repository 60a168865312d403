#!/usr/bin/env bash
# bench/bench-serve.sh - static serving speed: cgisnap serve next to nginx
# and lighttpd on the same snapshot tree, in the same run, with wrk
# (keep-alive) and ab (a new connection per request), for a typical wiki
# page, a 100-byte file, a 1 MiB and a 100 MiB file. Prints requests per
# second per server (median of ROUNDS rounds, the servers taking turns in
# each), cgisnap's ratio to nginx (goal: >= 1.0 in every row), each
# server's CPU per request and cgisnap serve's peak memory. Figures, never
# pass/fail.
#
# ROUNDS=3, DURATION=5 (seconds per wrk run), CONNS=50 (HUGE_CONNS=8 for
# the 100 MiB file), AB_REQUESTS=20000 (AB_BIG_REQUESTS=2000 for the 1 MiB
# file, AB_HUGE_REQUESTS=40 for the 100 MiB one), PAGES=60 (wiki size),
# FILES="0 1 2 3" (the rows: the page, 100 B, 1 MiB, 100 MiB).
set -u
. "$(dirname "$0")/lib-bench.sh"
bench_defaults ROUNDS=3 DURATION=5 CONNS=50 HUGE_CONNS=8 AB_REQUESTS=20000 AB_BIG_REQUESTS=2000 \
	AB_HUGE_REQUESTS=40 PAGES=60 FILES="0 1 2 3"
bench_start serve

bench_need_tools wrk ab nginx lighttpd php php-cgi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
LIGHTTPD=$(command -v lighttpd || echo /usr/sbin/lighttpd)

calc() { awk "BEGIN { printf \"%.2f\", $* }"; }

# The tree: the sample wiki's snapshot, plus a 100-byte, a 1 MiB and a 100 MiB file.
SITE=$WORK/wiki
TREE=$WORK/tree
bench_seed_wiki "$SITE" "$PAGES"
"$CGISNAP" snapshot -q -j "$CORES" --root "$SITE" --cgi php=php-cgi --site-url http://localhost:8080/ \
	--strip '<img src="[^"]*taskrunner\.php[^>]*>' "$TREE" 2>"$WORK/snapshot.err" ||
	{ echo "the snapshot of the wiki failed:"; cat "$WORK/snapshot.err"; exit 1; }
head -c 100 /dev/zero | tr '\0' x >"$TREE/bench-100b.txt"
head -c 1048576 /dev/urandom >"$TREE/bench-1mib.bin"
head -c 104857600 /dev/urandom >"$TREE/bench-100mib.bin"
# The typical page: the wiki page (a page view, no action) closest to 20 KB
# among those of 10-40 KB, else the largest.
read -r PAGE_BYTES PAGE_TARGET PAGE_KEY < <(awk -F'\t' '!/^#/ && $3 == 200 && $4 ~ /^text\/html/ && $2 != "-" && $1 !~ /&/ \
	{ d = $5 - 20000; if (d < 0) d = -d; if ($5 < 10000 || $5 > 40000) d += 1e9; print d, $5, $1, $2 }' \
	<("$CGISNAP" ls "$TREE") | sort -g | head -1 | cut -d' ' -f2-)
[ -n "${PAGE_KEY:-}" ] || { echo "no HTML page in the snapshot"; exit 1; }

# cgisnap serve: its defaults (a worker thread per core, cache on), no log.
P_CGISNAP=$(free_port)
"$CGISNAP" serve "$TREE" --listen "127.0.0.1:$P_CGISNAP" --access-log off 2>"$WORK/cgisnap.err" &
CGISNAP_PID=$!
pids="$pids $CGISNAP_PID"

# nginx: a worker per core, sendfile, open_file_cache, no access log; every
# path it writes (pid, logs, temp dirs) in the temp dir, nothing under /var.
N=$WORK/nginx
mkdir -p "$N/tmp"
P_NGINX=$(free_port)
{
	[ "$(id -u)" != 0 ] || echo "user root;" # workers must read the temp dir (mode 700)
	cat <<EOF
worker_processes $CORES;
daemon off;
pid $N/nginx.pid;
lock_file $N/nginx.lock;
error_log $N/error.log warn;
events { worker_connections 4096; }
http {
	include /etc/nginx/mime.types;
	default_type application/octet-stream;
	access_log off;
	sendfile on;
	tcp_nopush on;
	open_file_cache max=10000 inactive=60s;
	open_file_cache_valid 60s;
	keepalive_requests 1000000;
$(nginx_temp_paths "$N/tmp")
	server {
		listen 127.0.0.1:$P_NGINX;
		root $TREE;
	}
}
EOF
} >"$N/nginx.conf"
"$NGINX" -e "$N/error.log" -p "$N" -c "$N/nginx.conf" 2>"$N/start.err" &
NGINX_PID=$!
pids="$pids $NGINX_PID"

# lighttpd: its defaults (one process, sendfile), no access log.
L=$WORK/lighttpd
mkdir -p "$L"
P_LIGHTTPD=$(free_port)
cat >"$L/lighttpd.conf" <<EOF
server.document-root = "$TREE"
server.bind = "127.0.0.1"
server.port = $P_LIGHTTPD
server.errorlog = "$L/error.log"
server.max-keep-alive-requests = 1000000
server.max-connections = 4096
mimetype.assign = ( ".html" => "text/html", ".txt" => "text/plain", "" => "application/octet-stream" )
EOF
"$LIGHTTPD" -D -f "$L/lighttpd.conf" 2>"$L/start.err" &
LIGHTTPD_PID=$!
pids="$pids $LIGHTTPD_PID"

for s in cgisnap:$P_CGISNAP nginx:$P_NGINX lighttpd:$P_LIGHTTPD; do
	wait_port "${s#*:}" || { echo "${s%%:*} did not start:"; cat "$WORK"/*.err "$N"/*.err "$L"/*.err 2>/dev/null; exit 1; }
done

SERVERS=(cgisnap nginx lighttpd)
declare -A PORT=([cgisnap]=$P_CGISNAP [nginx]=$P_NGINX [lighttpd]=$P_LIGHTTPD)
# The processes of each server (nginx's workers are found as its children).
declare -A SPIDS=([cgisnap]=$CGISNAP_PID [nginx]=$NGINX_PID [lighttpd]=$LIGHTTPD_PID)
PATHS=("/$PAGE_KEY" /bench-100b.txt /bench-1mib.bin /bench-100mib.bin)
NAMES=("wiki page, $((PAGE_BYTES / 1024)) KiB" "100 B file" "1 MiB file" "100 MiB file")
# conns_for I: the connections for file I (fewer for the 100 MiB file: 50
# of them at once would each wait seconds for their answer).
conns_for() { if [ "$1" = 3 ]; then echo "$HUGE_CONNS"; else echo "$CONNS"; fi; }

# path_for SERVER I: what SERVER is asked for file I. cgisnap serve answers
# the page under its dynamic URL (its real use: a manifest lookup); nginx
# and lighttpd get the file's own name (their cheapest path, no rewrite).
path_for() {
	if [ "$2" = 0 ] && [ "$1" = cgisnap ]; then
		echo "$PAGE_TARGET"
	else
		echo "${PATHS[$2]}"
	fi
}

# Every server must give the same bytes for every file before any figure.
for i in $FILES; do
	want=$(sha256sum <"$TREE${PATHS[$i]}" | cut -c1-64)
	for s in "${SERVERS[@]}"; do
		got=$(curl -sf "http://127.0.0.1:${PORT[$s]}$(path_for "$s" "$i")" | sha256sum | cut -c1-64)
		[ "$got" = "$want" ] || { echo "$s does not serve $(path_for "$s" "$i") correctly"; exit 1; }
	done
done

# ticks SERVER: CPU time (clock ticks) its processes used so far.
TICK_HZ=$(getconf CLK_TCK)
ticks() {
	local p t=0 v
	for p in ${SPIDS[$1]} $(for q in ${SPIDS[$1]}; do pgrep -P "$q"; done); do
		v=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | awk '{ print $12 + $13 }')
		t=$((t + ${v:-0}))
	done
	echo "$t"
}
# run_wrk PORT PATH CONNS: "REQUESTS_PER_S REQUESTS"; errors go to stderr, named.
run_wrk() {
	wrk -t "$CORES" -c "$3" -d "${DURATION}s" --timeout 30s "http://127.0.0.1:$1$2" 2>&1 |
		awk -v what="wrk $2 (port $1):" '/ requests in / { n = $1 } /^Requests\/sec:/ { r = $2 }
			/Non-2xx|Socket errors/ { print what, $0 > "/dev/stderr" } END { print r + 0, n + 0 }'
}
# run_ab PORT PATH COUNT CONNS: "REQUESTS_PER_S REQUESTS"; errors go to stderr, named.
run_ab() {
	ab -q -c "$4" -n "$3" "http://127.0.0.1:$1$2" 2>&1 |
		awk -v what="ab $2 (port $1):" '/^Complete requests:/ { n = $3 } /^Requests per second:/ { r = $4 }
			/^(Failed requests|Non-2xx responses):/ && $3 > 0 { print what, $0 > "/dev/stderr" }
			END { print r + 0, n + 0 }'
}
# measure TOOL SERVER I: one run; adds its rate to RATE and the server's
# CPU per request (microseconds) to CPU.
declare -A RATE CPU
measure() {
	local tool=$1 s=$2 i=$3 t0 t1 rps n path
	path=$(path_for "$s" "$i")
	t0=$(ticks "$s")
	if [ "$tool" = wrk ]; then
		read -r rps n < <(run_wrk "${PORT[$s]}" "$path" "$(conns_for "$i")" 2>>"$WORK/errors")
	else
		n=$AB_REQUESTS
		[ "$i" != 2 ] || n=$AB_BIG_REQUESTS
		[ "$i" != 3 ] || n=$AB_HUGE_REQUESTS
		read -r rps n < <(run_ab "${PORT[$s]}" "$path" "$n" "$(conns_for "$i")" 2>>"$WORK/errors")
	fi
	t1=$(ticks "$s")
	RATE[$tool,$i,$s]="${RATE[$tool,$i,$s]:-} ${rps:-0}"
	CPU[$tool,$i,$s]="${CPU[$tool,$i,$s]:-} $(awk -v t=$((t1 - t0)) -v n="${n:-0}" -v hz="$TICK_HZ" \
		'BEGIN { printf "%.1f", (n > 0 ? t / hz * 1e6 / n : 0) }')"
}

echo "tree: the sample wiki ($PAGES pages) snapshotted, a 100-byte, a 1 MiB, a 100 MiB file; the wiki page"
echo "  ($PAGE_BYTES bytes) is $PAGE_TARGET for cgisnap serve (manifest lookup), its file"
echo "  /$PAGE_KEY for nginx and lighttpd"
echo "wrk: keep-alive, $CONNS connections ($HUGE_CONNS for 100 MiB), $CORES threads, ${DURATION} s per run; ab: a new"
echo "  connection per request, -c the same, $AB_REQUESTS requests ($AB_BIG_REQUESTS for 1 MiB, $AB_HUGE_REQUESTS for 100 MiB);"
echo "  median of $ROUNDS rounds, servers taking turns"
echo "servers: cgisnap serve ($CORES threads, cache on), nginx ($CORES workers, sendfile, open_file_cache),"
echo "  lighttpd (one process, its defaults); none writes an access log"
echo "note: $CORES cores, shared by the load generator and the server under test: a server that"
echo "  needs less CPU per request leaves more to the client, so these are relative figures"
start=$(date +%s)
for round in $(seq 1 "$ROUNDS"); do
	for i in $FILES; do
		for tool in wrk ab; do
			for k in 0 1 2; do
				measure "$tool" "${SERVERS[$(((k + round + i) % 3))]}" "$i"
			done
		done
	done
done
elapsed=$(($(date +%s) - start))
RSS=$(awk '/^VmHWM:/ { printf "%.1f MiB", $2 / 1024 }' "/proc/$CGISNAP_PID/status" 2>/dev/null)
ANON=$(awk '/^RssAnon:/ { printf "%.1f MiB", $2 / 1024 }' "/proc/$CGISNAP_PID/status" 2>/dev/null)

echo
printf '%-5s %-20s %10s %10s %10s %14s   %s\n' tool file cgisnap nginx lighttpd cgisnap/nginx \
	"server CPU per request [us]: cgisnap nginx lighttpd"
short=""
for tool in wrk ab; do
	for i in $FILES; do
		c=$(median ${RATE[$tool,$i,cgisnap]})
		n=$(median ${RATE[$tool,$i,nginx]})
		l=$(median ${RATE[$tool,$i,lighttpd]})
		ratio=$(calc "$c / ($n + 1e-9)")
		mark="    "
		if awk "BEGIN { exit !($ratio < 1.0) }"; then
			mark=" <1 "
			short="$short $tool:$i"
		fi
		printf '%-5s %-20s %10.0f %10.0f %10.0f %10s%s   %7.1f %7.1f %7.1f\n' "$tool" "${NAMES[$i]}" \
			"$c" "$n" "$l" "$ratio" "$mark" "$(median ${CPU[$tool,$i,cgisnap]})" \
			"$(median ${CPU[$tool,$i,nginx]})" "$(median ${CPU[$tool,$i,lighttpd]})"
	done
done
echo "requests per second, median of $ROUNDS; goal cgisnap/nginx >= 1.0 in every row"
echo "cgisnap serve peak RSS (VmHWM): ${RSS:-unknown}, its own memory now (RssAnon) ${ANON:-unknown}: the"
echo "  rest is the big files it maps (the kernel's page cache, shared); measured in ${elapsed} s"
if [ -s "$WORK/errors" ]; then
	echo "errors seen by the load generators (first 5):"
	head -5 "$WORK/errors" | sed 's/^/  /'
fi
for s in $short; do
	tool=${s%%:*}
	i=${s#*:}
	cc=$(median ${CPU[$tool,$i,cgisnap]})
	cn=$(median ${CPU[$tool,$i,nginx]})
	echo "why '$tool, ${NAMES[$i]}' falls short: cgisnap serve used $cc us of CPU per request, nginx $cn;"
	if awk "BEGIN { exit !($cc <= 1.1 * $cn) }"; then
		echo "  no more CPU than nginx (+10%): the gap is not the server's own cost;"
		if [ "$i" -ge 2 ]; then
			echo "  serve maps a big file and sends it with send(2) (one call per socket buffer), where"
			echo "  nginx uses sendfile with 2 MiB pieces: the client's reads decide"
		else
			echo "  the shared machine (the load generator, anything else running) varies run to run"
		fi
	else
		if [ "$i" -ge 2 ]; then
			echo "  serve maps files over 256 KiB and sends them with send(2), which copies them into"
			echo "  the socket; nginx's sendfile does not copy (libmicrohttpd sends a file descriptor"
			echo "  128 KiB per sendfile call, which measured slower still: docs/benchmarks.md)"
		fi
		if [ "$tool" = ab ]; then
			echo "  a new connection per request is the costly case for libmicrohttpd: it clears a"
			echo "  16 KiB memory pool for every connection (serve's CONNECTION_MEMORY, sized for 8 KiB"
			echo "  of headers), where nginx starts with a pool under 1 KiB"
		elif [ "$i" != 2 ]; then
			echo "  with keep-alive the server's CPU per request decides, on $CORES cores shared with wrk"
		fi
	fi
done
