#!/usr/bin/env bash
# bench/bench-mediawiki.sh - the real MediaWiki (Debian's package, SQLite,
# seeded by tests/lib-apps.sh as t0740 seeds it: 44 pages), which no
# profile names: cgisnap with no options beyond the mount, the CGI handler
# and the site URL, against wget --mirror through nginx + php-fpm, as a
# user would run them, in the same run. URLs fetched, files stored, the
# seeded pages each crawler ended with (at their URL, with their text),
# view URLs stored (edit, history, info, oldid, diff, login?returnto=),
# wall time. Medians of RUNS (3) runs, the crawlers taking turns;
# each crawl starts from the wiki as seeded (its data directory put back).
# wget follows every view and special page: WGET_SECONDS (300) bounds a
# run, and the output says when it was hit.
# BENCH=mediawiki bench/run-bench runs this section alone.
set -u
. "$(dirname "$0")/lib-bench.sh"
. "$ROOT/tests/lib-apps.sh"
bench_defaults RUNS=3 WGET_SECONDS=300

bench_need_packages mediawiki mediawiki php-cgi php-fpm php-sqlite3 nginx wget

bench_start mediawiki
calc() { awk "BEGIN { printf \"%.3f\", $* }"; }

mediawiki_site "$WORK/mw" >"$WORK/mw.out" 2>&1 ||
	{ echo "mediawiki: cannot seed the wiki: $(tail -3 "$WORK/mw.out")"; exit 1; }
PAGES=$(wc -l <"$MW_PAGES_FILE")
cp -a "$MW_DATA" "$WORK/data.seeded" || exit 1
fresh_data() { rm -rf "$MW_DATA" && cp -a "$WORK/data.seeded" "$MW_DATA"; }

# nginx serves the wiki at /mediawiki as Debian's Apache alias does: a
# document root of its own holding the icon and a link to the wiki.
NGXROOT=$WORK/ngxroot
mkdir -p "$NGXROOT" && cp "$MW_DOCROOT/favicon.ico" "$NGXROOT/" && ln -s "$MW_ROOT" "$NGXROOT/mediawiki" || exit 1
SOCK=$WORK/fpm.sock
fpm_start "$SOCK" "$CORES" || exit 1
PORT=$(free_port)
nginx_start "$PORT" "$NGXROOT" "$SOCK" index.php || exit 1

# The URLs a snapshot must not hold: the views of pages (as t0740 counts
# them). Feeds, the API's RSD and Special:Random (a redirect) are linked
# resources, not views.
JUNK='[?&](action=(edit|history|info|raw)|oldid=|diff=|returnto=)'

# run_wget: a fresh mirror; prints "URLS FILES PAGES SECONDS JUNK TIMEDOUT".
run_wget() {
	local n s t
	fresh_data
	read -r n s t < <(wget_mirror "http://127.0.0.1:$PORT/mediawiki/index.php?title=Main_Page")
	echo "$n $(find "$WORK/wget" -type f | wc -l) $(mirror_pages "$WORK/wget" "$MW_PAGES_FILE" %s) $s" \
		"$(find "$WORK/wget" -type f | grep -cE "$JUNK") $t"
}

# run_cgisnap: a fresh snapshot; prints "URLS FILES PAGES SECONDS JUNK".
run_cgisnap() {
	local t0 t1 out=$WORK/cgi
	fresh_data
	rm -rf "$out"
	t0=$(now)
	"$CGISNAP" snapshot --root "$MW_DOCROOT" --path-alias "/mediawiki=$MW_ROOT" --cgi php=php-cgi \
		--site-url "$MW_URL" "$out" >"$out.out" 2>"$out.err"
	t1=$(now)
	echo "$(grep -vc '^#' <("$CGISNAP" ls "$out") 2>/dev/null || echo 0)" \
		"$(awk -F'\t' '!/^#/ && $2 != "-"' <("$CGISNAP" ls "$out") 2>/dev/null | wc -l)" \
		"$(tree_pages "$out" "$MW_PAGES_FILE" %s)" "$(calc "$t1 - $t0")" \
		"$(grep -v '^#' <("$CGISNAP" ls "$out") 2>/dev/null | cut -f1 | grep -cE "$JUNK")"
}

echo "Debian's MediaWiki $(dpkg-query -W -f='${Version}' mediawiki), SQLite, $PAGES pages seeded;" \
	"nginx $(nginx -v 2>&1 | sed 's|.*/||') + $(basename "$FPM") ($CORES children, opcache on); median of $RUNS runs"
wg_n=() wg_f=() wg_p=() wg_s=() cg_n=() cg_f=() cg_p=() cg_s=()
wg_junk=0 wg_timeout=0 cg_junk=0
for run in $(seq 1 "$RUNS"); do
	read -r n f p s j t < <(run_wget)
	wg_n+=("$n") wg_f+=("$f") wg_p+=("$p") wg_s+=("$s")
	wg_junk=$j
	[ "$t" = 0 ] || wg_timeout=1
	read -r n f p s j < <(run_cgisnap)
	cg_n+=("$n") cg_f+=("$f") cg_p+=("$p") cg_s+=("$s")
	cg_junk=$j
done
grep -E '^cgisnap: (stored|skipped [0-9]+ URLs)' "$WORK/cgi.err" | cut -c1-200 | sed 's/^/(/; s/$/)/'


W_N=$(median "${wg_n[@]}") W_F=$(median "${wg_f[@]}") W_P=$(median "${wg_p[@]}") W_S=$(median "${wg_s[@]}")
C_N=$(median "${cg_n[@]}") C_F=$(median "${cg_f[@]}") C_P=$(median "${cg_p[@]}") C_S=$(median "${cg_s[@]}")
printf '%-40s %6s %6s %13s %8s %6s\n' "crawler (origin)" "URLs" "files" "seeded pages" "seconds" "views"
row() {
	printf '%-40s %6d %6d %10d/%-2d %8.1f %6d%s\n' "$1" "$2" "$3" "$4" "$PAGES" "$5" "$6" "${7:-}"
}
note=""
[ "$wg_timeout" = 0 ] || note=" (stopped after ${WGET_SECONDS} s at least once)"
row "wget --mirror (nginx + php-fpm)" "$W_N" "$W_F" "$W_P" "$W_S" "$wg_junk" "$note"
row "cgisnap, zero-config (php-cgi workers)" "$C_N" "$C_F" "$C_P" "$C_S" "$cg_junk"
echo "  URLs: wget's downloads; cgisnap's URLs of the tree (stored, redirects, not found)"
echo "  views: files or URLs stored that are views of a page (action=edit, history, info, raw;"
echo "  oldid=, diff=, login?returnto=), none of which a reader of the static site needs"
echo
ratio() { calc "$1 / ($2 > 0 ? $2 : 1)"; }
printf 'cgisnap / wget: URLs %.2fx, files %.2fx, seeded pages %.2fx, wall time %.2fx (%.1fx faster)\n' \
	"$(ratio "$C_N" "$W_N")" "$(ratio "$C_F" "$W_F")" "$(ratio "$C_P" "$W_P")" "$(ratio "$C_S" "$W_S")" \
	"$(ratio "$W_S" "$C_S")"
printf 'every seeded page, no view stored: cgisnap %s, wget %s\n' \
	"$(goal "$C_P == $PAGES && $cg_junk == 0")" "$(goal "$W_P == $PAGES && $wg_junk == 0")"
