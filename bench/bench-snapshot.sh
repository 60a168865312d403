#!/usr/bin/env bash
# bench/bench-snapshot.sh - crawl speed: cgisnap snapshot of the sample wiki
# through each origin (CGI, FastCGI, HTTP), next to wget --mirror of the same
# site over HTTP, in the same run. Prints figures; never fails on them.
#
# PAGES=1000 (wiki size), ROWS=workers (only the --cgi workers vs fork row) or
# ROWS=sync (only the durability row: synced vs --no-sync),
# WGET_SECONDS=1200 (wget is serial: a bound on its
# run; when it is hit, its rate is taken over what it fetched and the output
# says so). Rates compare complete snapshots: the pages a crawler ends with,
# divided by the time it took to get them.
set -u
. "$(dirname "$0")/lib-bench.sh"
bench_defaults PAGES=1000 WGET_SECONDS=1200
bench_start snapshot

STRIP='<img src="[^"]*taskrunner\.php[^>]*>'
SITE=$WORK/wiki
mkdir -p "$WORK/sessions"
bench_seed_wiki "$SITE" "$PAGES"

# calc EXPR: floating-point arithmetic (awk: no bc needed).
calc() { awk "BEGIN { printf \"%.3f\", $* }"; }
# goal EXPR: "met" when the comparison holds.

# crawl NAME ARGS...: a fresh snapshot; prints "URLS SECONDS" and keeps the tree.
crawl() {
	local name=$1 t0 t1 n
	shift
	rm -rf "$WORK/$name"
	t0=$(now)
	"$CGISNAP" snapshot -q -j "$CORES" --site-url http://localhost:8080/ --strip "$STRIP" "$@" "$WORK/$name" \
		2>"$WORK/$name.err"
	t1=$(now)
	n=$(grep -vc '^#' <("$CGISNAP" ls "$WORK/$name"))
	echo "$n $(calc "$t1 - $t0")"
}

rate() { calc "$1 / $2"; }

echo "sample wiki: $PAGES pages seeded; $CORES cores; cgisnap renders $CORES pages at once"

median3() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
if [ "${ROWS:-}" != sync ]; then
	# 0. CGI: php-cgi as cgisnap's own persistent workers vs a process per page,
	#    the median of 3 runs each (runs alternate, so both see the same load).
	w_runs=() f_runs=()
	for run in 1 2 3; do
		read -r n_w s < <(crawl workers --root "$SITE" --cgi php=php-cgi --cgi-mode workers)
		w_runs+=("$s")
		read -r n_f s < <(crawl fork --root "$SITE" --cgi php=php-cgi --cgi-mode fork)
		f_runs+=("$s")
	done
	s_w=$(median3 "${w_runs[@]}")
	s_f=$(median3 "${f_runs[@]}")
	printf 'CGI php-cgi, median of 3: workers %d URLs in %.2f s, fork %d URLs in %.2f s: workers %.1fx faster\n' \
		"$n_w" "$s_w" "$n_f" "$s_f" "$(calc "$s_f / $s_w")"
fi

# 0b. Durability: the workers' crawl as it runs by default (each file synced
#     before its rename, its directory after, tree.db's commits synced) and
#     with --no-sync, the median of 3 runs each, alternating.
if [ "${ROWS:-}" != workers ]; then
	y_runs=() n_runs=()
	for run in 1 2 3; do
		read -r n_y s < <(crawl synced --root "$SITE" --cgi php=php-cgi)
		y_runs+=("$s")
		read -r n_n s < <(crawl unsynced --root "$SITE" --cgi php=php-cgi --no-sync)
		n_runs+=("$s")
	done
	s_y=$(median3 "${y_runs[@]}")
	s_n=$(median3 "${n_runs[@]}")
	printf 'durability, median of 3: synced %d URLs in %.2f s (%.1f pages/s), --no-sync %d URLs in %.2f s (%.1f pages/s): syncing costs %.0f%%\n' \
		"$n_y" "$s_y" "$(rate "$n_y" "$s_y")" "$n_n" "$s_n" "$(rate "$n_n" "$s_n")" "$(calc "($s_y / $s_n - 1) * 100")"
fi
[ -z "${ROWS:-}" ] || exit 0
printf '%-34s %8s %9s %9s\n' "crawler / origin" "URLs" "seconds" "pages/s"

# 1. CGI: php-cgi run directly, one process per page.
read -r n_cgi s_cgi < <(crawl cgi --root "$SITE" --cgi php=php-cgi --cgi-mode fork)
printf '%-34s %8d %9.1f %9.1f\n' "cgisnap, CGI (php-cgi)" "$n_cgi" "$s_cgi" "$(rate "$n_cgi" "$s_cgi")"
render_ms=$(awk -F'\t' '!/^#/ && $7 > 0 { s += $7 } END { print s + 0 }' <("$CGISNAP" ls "$WORK/cgi"))
ideal=$(calc "$render_ms / 1000 / $CORES")

# 2. FastCGI: php-cgi -b with a child per core (opcache on: a long-lived process).
p=$(free_port)
(cd "$SITE" && PHP_FCGI_CHILDREN=$CORES PHP_FCGI_MAX_REQUESTS=0 exec php-cgi -b "127.0.0.1:$p" \
	-d session.save_path="$WORK/sessions" >/dev/null 2>&1) &
pids="$pids $!"
wait_port "$p"
read -r n_fcgi s_fcgi < <(crawl fcgi --fastcgi "127.0.0.1:$p" --root "$SITE")
printf '%-34s %8d %9.1f %9.1f\n' "cgisnap, FastCGI (php-cgi -b)" "$n_fcgi" "$s_fcgi" "$(rate "$n_fcgi" "$s_fcgi")"

# 3. HTTP: the wiki behind cgisnap's own dynamic server (php-cgi workers),
#    which wget crawls too.
hp=$(free_port)
"$CGISNAP" serve --dynamic --listen "127.0.0.1:$hp" --root "$SITE" --cgi php=php-cgi \
	--site-url http://localhost:8080/ --access-log off 2>"$WORK/serve.err" &
pids="$pids $!"
wait_port "$hp"
read -r n_http s_http < <(crawl http --origin "http://127.0.0.1:$hp/")
printf '%-34s %8d %9.1f %9.1f\n' "cgisnap, HTTP (serve --dynamic)" "$n_http" "$s_http" "$(rate "$n_http" "$s_http")"

# 4. wget --mirror against the same HTTP server, as users run it.
mkdir -p "$WORK/wget"
t0=$(now)
(cd "$WORK/wget" && timeout "$WGET_SECONDS" wget -q --mirror --no-parent -e robots=on \
	"http://127.0.0.1:$hp/doku.php" >/dev/null 2>&1)
wstatus=$?
t1=$(now)
s_wget=$(calc "$t1 - $t0")
n_wget=$(find "$WORK/wget" -type f | wc -l)
note=""
[ "$wstatus" -ne 124 ] || note=" (stopped after ${WGET_SECONDS} s, not finished)"
printf '%-34s %8d %9.1f %9.1f%s\n' "wget --mirror, HTTP (serve --dynamic)" "$n_wget" "$s_wget" "$(rate "$n_wget" "$s_wget")" "$note"
n_actions=$(find "$WORK/wget" -type f \( -name '*do=edit*' -o -name '*do=revisions*' -o -name '*export_raw*' -o -name '*rev=*' -o -name '*taskrunner*' \) | wc -l)

n_useful=$((n_wget - n_actions))
printf '%-34s %8d %9.1f %9.1f\n' "  of which site pages" "$n_useful" "$s_wget" "$(rate "$n_useful" "$s_wget")"
echo "  (wget also fetched $n_actions edit/revision/export/web-bug URLs: it ignores rel=nofollow"
echo "   and every page's timestamped web bug is a new URL; cgisnap stores none of them)"

echo
ratio=$(calc "($n_http / $s_http) / ($n_wget / $s_wget)")
useful_ratio=$(calc "($n_http / $s_http) / ($n_useful / $s_wget)")
printf 'cgisnap (HTTP) / wget, URLs per second:       %.2fx  (goal >= 2x: %s)\n' "$ratio" "$(goal "$ratio >= 2")"
printf 'cgisnap (HTTP) / wget, site pages per second: %.2fx  (goal >= 2x: %s)\n' "$useful_ratio" \
	"$(goal "$useful_ratio >= 2")"
echo "  both crawl the same server, whose $CORES cores render through php-cgi workers: wget asks for"
echo "  one page at a time, cgisnap for $CORES; the server's CPU bounds both"
over=$(calc "100 * ($s_cgi - $ideal) / $ideal")
printf 'CGI crawl: %.1f s wall vs %.1f s of summed render time / %d cores: %+.1f%%  (goal within 10%%: %s)\n' \
	"$s_cgi" "$ideal" "$CORES" "$over" "$(goal "$over <= 10")"
