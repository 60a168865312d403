#!/usr/bin/env bash
# bench/bench-dynamic.sh - what a snapshot buys: 'cgisnap bench' of each
# sample site, dynamic (php-cgi renders every request, through 'cgisnap
# serve --dynamic') against static (its snapshot through 'cgisnap serve'),
# with keep-alive, 10 connections, DURATION seconds a side. docs/benchmarks.md
# quotes these tables. Prints figures; never fails on them.
#
# PAGES=100 (wiki), POSTS=100 (blog), DURATION=10, CONNS=10.
set -u
. "$(dirname "$0")/lib-bench.sh"
bench_defaults PAGES=100 POSTS=100 DURATION=10 CONNS=10
bench_start dynamic

bench_need_tools php php-cgi

WIKI_STRIP='<img src="[^"]*taskrunner\.php[^>]*>'
SITE_URL=http://localhost:8080/

# The sites, seeded as tests/lib.sh seeds them, in temporary copies.
WIKI=$WORK/wiki
bench_seed_wiki "$WIKI" "$PAGES"
BLOG=$WORK/blog
mkdir -p "$BLOG"
cp -r "$ROOT/sample-sites/blog/." "$BLOG/"
php "$BLOG/bin/seed.php" --posts "$POSTS" --site-url "${SITE_URL%/}" --dir "$BLOG" >/dev/null

WIKI_ORIGIN=(--root "$WIKI" --cgi php=php-cgi --site-url "$SITE_URL")
BLOG_ORIGIN=(--root "$BLOG" --cgi php=php-cgi --front-controller /index.php --site-url "$SITE_URL")

# snap NAME ORIGIN... -- SNAPSHOT-OPTIONS...: snapshot into $WORK/NAME.out.
snap() {
	local name=$1 origin=() t0
	shift
	while [ "$1" != -- ]; do origin+=("$1"); shift; done
	shift
	t0=$(date +%s)
	"$CGISNAP" snapshot -q -j "$CORES" "${origin[@]}" "$@" "$WORK/$name.out" 2>"$WORK/$name.err" ||
		{ echo "the snapshot of the $name failed:"; tail -5 "$WORK/$name.err"; exit 1; }
	echo "$name: $(grep -vc '^#' <("$CGISNAP" ls "$WORK/$name.out")) URLs snapshotted in $(($(date +%s) - t0)) s"
}

snap wiki "${WIKI_ORIGIN[@]}" -- --strip "$WIKI_STRIP" --robots-meta ignore --not-found '/doku.php?id=cgisnap:no-such-page'
snap blog "${BLOG_ORIGIN[@]}" --
echo "$CORES cores, shared by the load generator, the servers and php-cgi; each side measured"
echo "alone ('cgisnap serve' threads: one per core; php-cgi: a process per dynamic request)"

# run NAME ORIGIN...: the bench of one site.
run() {
	local name=$1
	shift
	echo
	echo "=== $name: cgisnap bench -k -c $CONNS -d $DURATION"
	"$CGISNAP" bench "$@" --tree "$WORK/$name.out" -k -c "$CONNS" -d "$DURATION" 2>"$WORK/$name.bench.err" ||
		{ echo "(cgisnap bench failed:)"; tail -5 "$WORK/$name.bench.err"; }
}
run wiki "${WIKI_ORIGIN[@]}"
run blog "${BLOG_ORIGIN[@]}"
