#!/usr/bin/env bash
# bench/bench-explode.sh - sample-sites/repo, a repository browser that
# explodes as cgit, Fossil and wikis do (its README says how): cgisnap with
# no options beyond --root and --cgi against wget --mirror through nginx +
# php-fpm, as a user would run them, in the same run. URLs fetched, files
# stored, the pages a reader needs (23 pages and 3 assets, as t0745 counts
# them) each crawler ended with, wall time; medians of RUNS (3) runs, the
# crawlers taking turns. wget follows every view (each login page links a
# login page whose returnto is longer, without end): WGET_SECONDS (120)
# bounds a run, and the output says when it was hit.
# BENCH=explode bench/run-bench runs this section alone.
set -u
. "$(dirname "$0")/lib-bench.sh"
bench_defaults RUNS=3 WGET_SECONDS=120

bench_need_packages explode php-cgi php-fpm nginx wget

bench_start explode
calc() { awk "BEGIN { printf \"%.3f\", $* }"; }

SITE=$WORK/site
cp -r "$ROOT/sample-sites/repo" "$SITE" || exit 1
SOCK=$WORK/fpm.sock
fpm_start "$SOCK" "$CORES" || exit 1
PORT=$(free_port)
nginx_start "$PORT" "$SITE" "$SOCK" index.php || exit 1

# The pages a reader needs and their assets: target and a line of its text.
grep -v '^#' "$ROOT/tests/fixtures/repo-expected.tsv" >"$WORK/expected"
NEEDED=$(wc -l <"$WORK/expected")

# wget_needed DIR: how many of them the mirror holds with their text
# (wget names a query URL's file index.html?QUERY, '/' in the query as
# %2F; an asset by its path).
wget_needed() {
	local n=0 t q text f
	while IFS=$'\t' read -r t text; do
		case $t in
		/ | /\?*)
			q=${t#/}
			q=${q#\?}
			f=$1/127.0.0.1:$PORT/index.html${q:+?${q//\//%2F}}
			;;
		*) f=$1/127.0.0.1:$PORT$t ;;
		esac
		[ -f "$f" ] && grep -qF -- "$text" "$f" && n=$((n + 1))
	done <"$WORK/expected"
	echo "$n"
}

# tree_needed DIR: how many of them the tree stores with their text.
tree_needed() {
	local n=0 t text key ls
	ls=$("$CGISNAP" ls "$1")
	while IFS=$'\t' read -r t text; do
		key=$(awk -F'\t' -v u="$t" '$1 == u && $3 == 200 { print $2; exit }' <<<"$ls")
		[ -n "$key" ] && [ "$key" != - ] && grep -qF -- "$text" "$1/$key" && n=$((n + 1))
	done <"$WORK/expected"
	echo "$n"
}

# run_wget: a fresh mirror; prints "URLS FILES NEEDED SECONDS TIMEDOUT".
run_wget() {
	local n s t
	read -r n s t < <(wget_mirror "http://127.0.0.1:$PORT/")
	echo "$n $(find "$WORK/wget" -type f | wc -l) $(wget_needed "$WORK/wget") $s $t"
}

# run_cgisnap: a fresh zero-config snapshot; prints "URLS FILES NEEDED SECONDS".
run_cgisnap() {
	local t0 t1 n files
	rm -rf "$WORK/tree"
	t0=$(now)
	"$CGISNAP" snapshot --root "$SITE" --cgi php=php-cgi --progress none "$WORK/tree" >"$WORK/tree.out" 2>"$WORK/tree.err"
	t1=$(now)
	n=$(sed -n 's/.*: \([0-9]*\) URLs in .*/\1/p' "$WORK/tree.err" | head -1)
	files=$(awk -F'\t' '!/^#/ && $2 != "-"' <("$CGISNAP" ls "$WORK/tree") | wc -l)
	echo "${n:-0} $files $(tree_needed "$WORK/tree") $(calc "$t1 - $t0")"
}

echo "sample-sites/repo: $NEEDED pages and assets a reader needs; nginx $(nginx -v 2>&1 | sed 's|.*/||')" \
	"+ $(basename "$FPM") ($CORES children); median of $RUNS runs; wget stopped after $WGET_SECONDS s"
wg_n=() wg_f=() wg_p=() wg_s=() cg_n=() cg_f=() cg_p=() cg_s=()
wg_timeout=0
for run in $(seq 1 "$RUNS"); do
	read -r n f p s t < <(run_wget)
	wg_n+=("$n") wg_f+=("$f") wg_p+=("$p") wg_s+=("$s")
	[ "$t" = 0 ] || wg_timeout=1
	read -r n f p s < <(run_cgisnap)
	cg_n+=("$n") cg_f+=("$f") cg_p+=("$p") cg_s+=("$s")
done
W_N=$(median "${wg_n[@]}") W_F=$(median "${wg_f[@]}") W_P=$(median "${wg_p[@]}") W_S=$(median "${wg_s[@]}")
C_N=$(median "${cg_n[@]}") C_F=$(median "${cg_f[@]}") C_P=$(median "${cg_p[@]}") C_S=$(median "${cg_s[@]}")
printf '%-40s %8s %8s %8s %8s\n' "crawler (origin)" "URLs" "files" "needed" "seconds"
row() { printf '%-40s %8d %8d %5d/%-2d %8.1f%s\n' "$1" "$2" "$3" "$4" "$NEEDED" "$5" "${6:-}"; }
note=""
[ "$wg_timeout" = 0 ] || note=" (stopped after ${WGET_SECONDS} s: not finished)"
row "wget --mirror (nginx + php-fpm)" "$W_N" "$W_F" "$W_P" "$W_S" "$note"
row "cgisnap, zero-config (php-cgi workers)" "$C_N" "$C_F" "$C_P" "$C_S"
echo "  URLs: asked of the site (cgisnap: its summary's count, views cut unrendered included);"
echo "  files: what the mirror or tree holds; needed: the pages and assets a reader needs, with their text"
printf 'every needed page, files at most twice as many: cgisnap %s, wget %s\n' \
	"$(goal "$C_P == $NEEDED && $C_F <= 2 * $NEEDED")" "$(goal "$W_P == $NEEDED && $W_F <= 2 * $NEEDED")"
