#!/usr/bin/env bash
# bench/bench-apps.sh - the real DokuWiki (Debian's package, seeded by
# tests/lib-apps.sh as the t07xx tests seed it): cgisnap with no options
# beyond --root, --cgi and --site-url (the dokuwiki profile is detected)
# against wget --mirror through nginx + php-fpm, as a user would run them,
# in the same run: URLs fetched, content pages (the seeded pages each
# crawler ended with, at their own URL, with their text), wall time.
# Medians of RUNS (3) runs, the crawlers taking turns so that all see the
# same load. A third row: cgisnap through the same php-fpm (--fastcgi).
#
# Every crawl starts from the same wiki: the data directory (pages, and
# DokuWiki's caches, index and locks, which crawls write) is put back as
# seeded before each one. WGET_SECONDS=1200 bounds a wget run (serial, and
# it follows every action link); when it is hit the output says so.
# BENCH=apps bench/run-bench runs this section alone.
set -u
. "$(dirname "$0")/lib-bench.sh"
. "$ROOT/tests/lib-apps.sh"
bench_defaults RUNS=3 WGET_SECONDS=1200

bench_need_packages apps dokuwiki php-cgi php-fpm nginx wget

bench_start apps
calc() { awk "BEGIN { printf \"%.3f\", $* }"; }

dokuwiki_site "$WORK/dw" >"$WORK/dw.out" 2>&1 ||
	{ echo "apps: cannot seed the wiki: $(tail -3 "$WORK/dw.out")"; exit 1; }
PAGES=$(wc -l <"$DW_PAGES_FILE")
cp -a "$DW_DATA" "$WORK/data.seeded" || exit 1
fresh_data() { rm -rf "$DW_DATA" && cp -a "$WORK/data.seeded" "$DW_DATA"; }

# php-fpm as users run it for nginx (lib-bench.sh): opcache on, a child
# per core from the start; nginx, a worker per core, the wiki copy as its
# root, PHP to the pool.
SOCK=$WORK/fpm.sock
fpm_start "$SOCK" "$CORES" || exit 1
PORT=$(free_port)
nginx_start "$PORT" "$DW_ROOT" "$SOCK" doku.php || exit 1

# The URLs a snapshot must not hold: actions, old revisions, the web bug.
JUNK='[?&]do=(edit|draft|revisions|diff|admin|login|register|resendpwd|profile|media|recent|backlink|subscribe|export_)|[?&]rev=|taskrunner\.php|mediamanager\.php'

# run_wget: a fresh mirror; prints "URLS PAGES SECONDS JUNK TIMEDOUT".
run_wget() {
	local n s t
	fresh_data
	read -r n s t < <(wget_mirror "http://127.0.0.1:$PORT/doku.php")
	echo "$n $(mirror_pages "$WORK/wget" "$DW_PAGES_FILE" '/doku.php?id=%s') $s $(find "$WORK/wget" -type f | grep -cE "$JUNK") $t"
}

# run_cgisnap NAME ORIGIN...: a fresh snapshot; prints "URLS PAGES SECONDS JUNK".
run_cgisnap() {
	local name=$1 t0 t1 n
	shift
	fresh_data
	rm -rf "$WORK/$name"
	t0=$(now)
	"$CGISNAP" snapshot "$@" --site-url "$DW_URL" "$WORK/$name" >"$WORK/$name.out" 2>"$WORK/$name.err"
	t1=$(now)
	n=$(grep -vc '^#' <("$CGISNAP" ls "$WORK/$name") 2>/dev/null)
	echo "${n:-0} $(tree_pages "$WORK/$name" "$DW_PAGES_FILE" '/doku.php?id=%s') $(calc "$t1 - $t0")" \
		"$(grep -v '^#' <("$CGISNAP" ls "$WORK/$name") 2>/dev/null | cut -f1 | grep -cE "$JUNK")"
}

echo "Debian's DokuWiki $(cat "$DW_ROOT/VERSION"), $PAGES pages seeded; nginx $(nginx -v 2>&1 | sed 's|.*/||')" \
	"+ $(basename "$FPM") ($CORES children, opcache on); median of $RUNS runs"
wg_n=() wg_p=() wg_s=() cg_n=() cg_p=() cg_s=() fc_n=() fc_p=() fc_s=()
wg_junk=0 wg_timeout=0 cg_junk=0 fc_junk=0
for run in $(seq 1 "$RUNS"); do
	read -r n p s j t < <(run_wget)
	wg_n+=("$n") wg_p+=("$p") wg_s+=("$s")
	wg_junk=$j
	[ "$t" = 0 ] || wg_timeout=1
	read -r n p s j < <(run_cgisnap cgi --root "$DW_ROOT" --cgi php=php-cgi)
	cg_n+=("$n") cg_p+=("$p") cg_s+=("$s")
	cg_junk=$j
	read -r n p s j < <(run_cgisnap fcgi --root "$DW_ROOT" --fastcgi "unix:$SOCK")
	fc_n+=("$n") fc_p+=("$p") fc_s+=("$s")
	fc_junk=$j
done
head -1 "$WORK/cgi.err" | sed 's/^/(/; s/$/)/'

W_N=$(median "${wg_n[@]}") W_P=$(median "${wg_p[@]}") W_S=$(median "${wg_s[@]}")
C_N=$(median "${cg_n[@]}") C_P=$(median "${cg_p[@]}") C_S=$(median "${cg_s[@]}")
F_N=$(median "${fc_n[@]}") F_P=$(median "${fc_p[@]}") F_S=$(median "${fc_s[@]}")
printf '%-40s %6s %14s %8s %7s %6s\n' "crawler (origin)" "URLs" "content pages" "seconds" "URLs/s" "junk"
row() {
	printf '%-40s %6d %11d/%-2d %8.1f %7.1f %6d%s\n' "$1" "$2" "$3" "$PAGES" "$4" "$(calc "$2 / $4")" "$5" "${6:-}"
}
note=""
[ "$wg_timeout" = 0 ] || note=" (stopped after ${WGET_SECONDS} s at least once)"
row "wget --mirror (nginx + php-fpm)" "$W_N" "$W_P" "$W_S" "$wg_junk" "$note"
row "cgisnap, zero-config (php-cgi workers)" "$C_N" "$C_P" "$C_S" "$cg_junk"
row "cgisnap, --fastcgi (the same php-fpm)" "$F_N" "$F_P" "$F_S" "$fc_junk"
echo "  junk: action, old-revision and web-bug URLs (edit, diff, export_*, rev=, taskrunner.php, ...)"
echo "  URLs/s: not like for like: most of wget's URLs show again a page DokuWiki has rendered"
echo "  and cached already (data/cache); each of cgisnap's is a page's first render"
echo
ratio() { calc "$1 / ($2 > 0 ? $2 : 1)"; }
printf 'cgisnap (CGI) / wget: URLs %.2fx, content pages %.2fx, wall time %.2fx (%.1fx faster)\n' \
	"$(ratio "$C_N" "$W_N")" "$(ratio "$C_P" "$W_P")" "$(ratio "$C_S" "$W_S")" "$(ratio "$W_S" "$C_S")"
printf 'cgisnap (FastCGI) / wget: URLs %.2fx, content pages %.2fx, wall time %.2fx (%.1fx faster)\n' \
	"$(ratio "$F_N" "$W_N")" "$(ratio "$F_P" "$W_P")" "$(ratio "$F_S" "$W_S")" "$(ratio "$W_S" "$F_S")"
printf 'every seeded page, no junk URL: cgisnap %s, wget %s\n' \
	"$(goal "$C_P == $PAGES && $cg_junk == 0")" "$(goal "$W_P == $PAGES && $wg_junk == 0")"
echo "  wget asks for one URL at a time and follows every link (rel=nofollow and each page's"
echo "  timestamped web bug included); cgisnap renders $CORES at once and the profile keeps the content"
