# bench/lib-bench.sh - what the bench-*.sh scripts share. Source it after
# setting nothing; then call bench_start NAME.
#
#   ROOT, CGISNAP, CORES    the repository, the binary ($CGISNAP if set), the cores
#   bench_start NAME        WORK: a fresh temporary directory; at exit the
#                           processes listed in $pids are stopped and WORK
#                           goes; Ctrl-C exits 130 the same way
#   free_port               a free TCP port of 127.0.0.1
#   wait_port PORT          until something accepts there (5 s at most)
#   median N...             the median of the numbers
#   goal CONDITION          "met" when the awk condition holds, else "NOT met"

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CGISNAP=${CGISNAP:-$ROOT/cgisnap}
CORES=$(nproc)
pids=""

_bench_cleanup() {
	local p
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	rm -rf "$WORK"
}

bench_start() {
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/cgisnap-bench-$1.XXXXXX")
	trap _bench_cleanup EXIT
	trap 'exit 130' INT TERM
}

free_port() {
	local p
	while :; do
		p=$((30000 + RANDOM % 30000))
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
	done
}

wait_port() {
	local i
	for i in $(seq 1 250); do
		(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
		sleep 0.02
	done
	return 1
}

median() {
	printf '%s\n' "$@" | sort -g |
		awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

goal() { awk "BEGIN { print (($*) ? \"met\" : \"NOT met\") }"; }
