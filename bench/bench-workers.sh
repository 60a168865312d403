#!/usr/bin/env bash
# bench/bench-workers.sh - php at php-fpm speed without a server: cgisnap's
# own php-cgi workers (--cgi php=php-cgi, the default) against a process
# per page (--cgi-mode fork) and against --fastcgi to php-fpm with the same
# number of workers (a static pool of one child per core, opcache on, as
# bench-apps.sh runs it), in the same run:
#
#   1. snapshot wall time, the sample wiki (PAGES=1000 seeded); the
#      workers also with --no-trace, for what tracing the renders (the
#      default, so that watch can start on the tree) costs;
#   2. snapshot wall time, Debian's DokuWiki (seeded by tests/lib-apps.sh;
#      its data put back as seeded before each crawl);
#   3. requests per second on the DokuWiki start page: 'cgisnap serve
#      --dynamic' (workers, --jobs = cores) against nginx + php-fpm, both
#      driven by cgisnap's load generator (cgisnap bench --dynamic-url,
#      keep-alive, 10 connections, DURATION=10 s each).
#
# Medians of RUNS (3) runs, the modes taking turns so that all see the same
# load. Goals (issue 13): workers within 1.25x of php-fpm's wall time, at
# least 5x faster than fork; serve --dynamic at least 0.8x nginx + php-fpm;
# (issue 25) traced at most 1.15x untraced.
# Prints figures and whether each goal was met; never fails on them.
# BENCH=workers bench/run-bench runs this section alone.
set -u
. "$(dirname "$0")/lib-bench.sh"
. "$ROOT/tests/lib-apps.sh"
bench_defaults PAGES=1000 RUNS=3
SECONDS_EACH=${DURATION:-10}

bench_need_packages workers php-cgi php-fpm nginx dokuwiki

bench_start workers
calc() { awk "BEGIN { printf \"%.3f\", $* }"; }

SOCK=$WORK/fpm.sock
fpm_start "$SOCK" "$CORES" || exit 1

# crawl NAME ARGS...: a fresh snapshot with CORES renders at once; prints
# "URLS SECONDS". BEFORE, when set, runs first (the DokuWiki's data).
crawl() {
	local name=$1 t0 t1 n
	shift
	[ -z "${BEFORE:-}" ] || $BEFORE
	rm -rf "$WORK/$name"
	t0=$(now)
	"$CGISNAP" snapshot -q -j "$CORES" "$@" "$WORK/$name" 2>"$WORK/$name.err"
	t1=$(now)
	n=$("$CGISNAP" ls "$WORK/$name" 2>/dev/null | grep -vc '^#')
	echo "${n:-0} $(calc "$t1 - $t0")"
}

# crawl_modes LABEL ARGS...: workers (traced, as by default, and
# untraced), fork and php-fpm, RUNS times in turn; the table rows and the
# ratios with their goals.
crawl_modes() {
	local label=$1 run n s w=() u=() f=() p=() nw nu nf np
	shift
	for run in $(seq 1 "$RUNS"); do
		read -r nw s < <(crawl workers "$@" --cgi php=php-cgi)
		w+=("$s")
		read -r nu s < <(crawl untraced "$@" --cgi php=php-cgi --no-trace)
		u+=("$s")
		read -r nf s < <(crawl fork "$@" --cgi php=php-cgi --cgi-mode fork)
		f+=("$s")
		read -r np s < <(crawl fpm "$@" --fastcgi "unix:$SOCK")
		p+=("$s")
	done
	local sw su sf sp
	sw=$(median "${w[@]}") su=$(median "${u[@]}") sf=$(median "${f[@]}") sp=$(median "${p[@]}")
	echo "$label: snapshot -j $CORES, median of $RUNS"
	printf '  %-44s %6s %9s %8s\n' "origin" "URLs" "seconds" "URLs/s"
	printf '  %-44s %6d %9.2f %8.1f\n' "--cgi php=php-cgi (workers, $CORES)" "$nw" "$sw" "$(calc "$nw / $sw")"
	printf '  %-44s %6d %9.2f %8.1f\n' "--cgi php=php-cgi --no-trace (workers, $CORES)" "$nu" "$su" \
		"$(calc "$nu / $su")"
	printf '  %-44s %6d %9.2f %8.1f\n' "--cgi php=php-cgi --cgi-mode fork" "$nf" "$sf" "$(calc "$nf / $sf")"
	printf '  %-44s %6d %9.2f %8.1f\n' "--fastcgi php-fpm ($CORES children, opcache on)" "$np" "$sp" \
		"$(calc "$np / $sp")"
	local vs_fpm vs_fork vs_untraced
	vs_fpm=$(calc "$sw / $sp") vs_fork=$(calc "$sf / $sw") vs_untraced=$(calc "$sw / $su")
	printf '  traced / untraced wall time: %.2fx  (goal <= 1.15x: %s)\n' "$vs_untraced" \
		"$(goal "$vs_untraced <= 1.15")"
	printf '  workers / php-fpm wall time: %.2fx  (goal <= 1.25x: %s)\n' "$vs_fpm" "$(goal "$vs_fpm <= 1.25")"
	printf '  fork / workers wall time:    %.2fx  (goal >= 5x: %s)\n' "$vs_fork" "$(goal "$vs_fork >= 5")"
	[ "$nw" = "$nu" ] && [ "$nw" = "$nf" ] && [ "$nw" = "$np" ] || echo "  (the modes stored different URL counts: see $WORK/*.err)"
	echo "  php-fpm stays up through the runs (warm opcache); the workers start cold with each snapshot"
}

# 1. The sample wiki.
STRIP='<img src="[^"]*taskrunner\.php[^>]*>'
SITE=$WORK/wiki
bench_seed_wiki "$SITE" "$PAGES"
crawl_modes "sample wiki, $PAGES pages" --root "$SITE" --site-url http://localhost:8080/ --strip "$STRIP"

# 2. The real DokuWiki, as bench-apps.sh crawls it (the profile is detected).
echo
dokuwiki_site "$WORK/dw" >"$WORK/dw.out" 2>&1 ||
	{ echo "workers: cannot seed DokuWiki: $(tail -3 "$WORK/dw.out")"; exit 1; }
cp -a "$DW_DATA" "$WORK/data.seeded" || exit 1
fresh_data() { rm -rf "$DW_DATA" && cp -a "$WORK/data.seeded" "$DW_DATA"; }
BEFORE=fresh_data crawl_modes "Debian's DokuWiki $(cat "$DW_ROOT/VERSION"), $(wc -l <"$DW_PAGES_FILE") pages" \
	--root "$DW_ROOT" --site-url "$DW_URL"
fresh_data

# 3. serve --dynamic against nginx + php-fpm on the start page.
echo
PAGE=/doku.php
ngx_port=$(free_port)
nginx_start "$ngx_port" "$DW_ROOT" "$SOCK" doku.php || exit 1
dyn_port=$(free_port)
"$CGISNAP" serve --dynamic --listen "127.0.0.1:$dyn_port" --jobs "$CORES" --root "$DW_ROOT" --cgi php=php-cgi \
	--site-url "$DW_URL" --access-log off 2>"$WORK/serve.err" &
pids="$pids $!"
wait_port "$dyn_port" || { echo "workers: serve --dynamic did not start: $(tail -3 "$WORK/serve.err")"; exit 1; }
# rps URL: requests per second of SECONDS_EACH s of load (after a warm-up).
rps() {
	"$CGISNAP" bench --dynamic-url "$1" --url "$PAGE" -d "$SECONDS_EACH" -c 10 -k --json >"$WORK/rps.json" \
		2>"$WORK/rps.err" || { echo 0; return; }
	php -r '$j = json_decode(file_get_contents($argv[1]), true);
		printf("%.1f %d %d", $j["dynamic"]["requests_per_s"], $j["dynamic"]["failed"], $j["dynamic"]["non_2xx"]);' \
		"$WORK/rps.json"
}
c=() g=()
for run in $(seq 1 "$RUNS"); do
	read -r r fc nc < <(rps "http://127.0.0.1:$dyn_port/")
	c+=("$r")
	read -r r fn nn < <(rps "http://127.0.0.1:$ngx_port/")
	g+=("$r")
done
rc=$(median "${c[@]}") rn=$(median "${g[@]}")
echo "DokuWiki start page ($PAGE), keep-alive, 10 connections, $SECONDS_EACH s each, median of $RUNS"
printf '  %-44s %9s %7s %8s\n' "server" "req/s" "failed" "non-2xx"
printf '  %-44s %9.1f %7d %8d\n' "cgisnap serve --dynamic (php-cgi workers, $CORES)" "$rc" "$fc" "$nc"
printf '  %-44s %9.1f %7d %8d\n' "nginx + php-fpm ($CORES children, opcache on)" "$rn" "$fn" "$nn"
ratio=$(calc "$rc / ($rn > 0 ? $rn : 1)")
printf '  serve --dynamic / nginx + php-fpm: %.2fx  (goal >= 0.8x: %s)\n' "$ratio" "$(goal "$ratio >= 0.8")"
echo "  the load generator shares the $CORES cores with the servers"
