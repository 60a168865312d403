#!/usr/bin/env bash
# t0348-snapshot-workers-traced: dependency tracing inside persistent
# php-cgi workers. watch's initial snapshot records the same dependencies
# of every page in worker mode as in fork mode (a process per render) on
# both sample sites; and each page's own, not its neighbour's, through a
# worker that crashes mid-request or is recycled every two requests, also
# in a php-cgi whose realpath cache the tracer cannot empty.
#
# The one difference allowed: php-cgi looks for php.ini (and
# php-cgi-fcgi.ini) in its working directory as it starts. In fork mode
# that is the script's directory, at every render; a worker starts once,
# in --root, and that is what it read and what its pages record.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"
. "$(dirname "$0")/lib-watch.sh"

# Real paths: the tracer reports what the kernel resolves.
BASE=$(cd "$TESTDIR" && pwd -P)
export TMPDIR=$BASE/tmp
mkdir -p "$TMPDIR"

# deps_of OUT: the recorded dependencies, but the start-up's php.ini look-ups.
deps_of() {
	grep -Ev '/php(-cgi-fcgi)?\.ini$' <("$CGISNAP" ls --deps "$1") | LC_ALL=C sort
}

# initial LOG OUT ARGS...: watch's initial snapshot, then stop.
initial() {
	local log=$1 out=$2
	shift 2
	watch_start "$log" "$@" "$out" || { fail "watch did not come up: $(tail -3 "$log")"; return 1; }
	watch_stop
	check_eq 0 "$WATCH_STATUS" "watch's exit status"
}

# fresh_copy SEED: SITE becomes a copy of SEED, times and all.
fresh_copy() {
	rm -rf "$SITE"
	cp -a "$1" "$SITE"
}

try "the sample wiki: the same dependencies in worker and fork mode"
# One seed, copied with its times (the wiki's CSS URL holds a hash of
# them), to the same path for each mode: the paths recorded are alike.
SITE=$BASE/wiki
seed_wiki "$BASE/wiki-seed" 30
for mode in fork workers; do
	fresh_copy "$BASE/wiki-seed"
	mapfile -t ARGS < <(watch_wiki_args "$SITE")
	initial "$BASE/wiki-$mode.log" "$BASE/wiki-$mode" "${ARGS[@]}" --cgi-mode "$mode"
done
check_contains "$("$CGISNAP" ls --deps "$BASE/wiki-workers")" "	R	$SITE/inc/parser.php" \
	"a PHP file opcache keeps compiled is recorded"
check_eq "$(deps_of "$BASE/wiki-fork")" "$(deps_of "$BASE/wiki-workers")" "dependencies"
check_ne 0 "$(deps_of "$BASE/wiki-workers" | wc -l)" "dependencies recorded"
check_eq "" "$(diff -r -x .cgisnap "$BASE/wiki-fork" "$BASE/wiki-workers")" "trees"
check_not_contains "$(cat "$BASE/wiki-workers.log")" "cannot be traced" "every page traced"

try "the sample blog: the same dependencies in worker and fork mode"
SITE=$BASE/blog
seed_blog "$BASE/blog-seed" 12
for mode in fork workers; do
	fresh_copy "$BASE/blog-seed"
	initial "$BASE/blog-$mode.log" "$BASE/blog-$mode" --root "$SITE" --cgi php=php-cgi \
		--front-controller /index.php --site-url http://localhost:8080/ -j 2 \
		--source "$SITE/wp-content/database.sqlite" --cgi-mode "$mode"
done
check_eq "$(deps_of "$BASE/blog-fork")" "$(deps_of "$BASE/blog-workers")" "dependencies"
check_contains "$("$CGISNAP" ls --deps "$BASE/blog-workers")" "/	R	$SITE/wp-content/database.sqlite" \
	"the home page read the database"
check_eq "" "$(diff -r -x .cgisnap "$BASE/blog-fork" "$BASE/blog-workers")" "trees"

# Pages that each read a data file of their own and include one of two
# PHP files; one that crashes its worker mid-request after reading its
# own file.
SITE=$BASE/pages
mkdir -p "$SITE/data" "$SITE/inc"
printf '<?php function a() { return "A"; }\n' >"$SITE/inc/a.php"
printf '<?php function b() { return "B"; }\n' >"$SITE/inc/b.php"
{
	echo '<html><body><a href="/crash.php">c</a>'
	for i in 1 2 3 4 5 6 7; do echo "<a href=\"/p$i.php\">p$i</a>"; done
	echo '</body></html>'
} >"$SITE/index.html"
for i in 1 2 3 4 5 6 7; do
	inc=$([ $((i % 2)) = 1 ] && echo a || echo b)
	echo "data $i" >"$SITE/data/p$i.txt"
	printf '<?php require __DIR__ . "/inc/%s.php"; echo "<p>", %s(), " ", trim(file_get_contents(__DIR__ . "/data/p%s.txt")), " pid=", getmypid(), "</p>\\n";\n' \
		"$inc" "$inc" "$i" >"$SITE/p$i.php"
done
cat >"$SITE/crash.php" <<'PHP'
<?php
echo file_get_contents(__DIR__ . '/data/crash.txt');
posix_kill(getmypid(), 11);
PHP
echo crash >"$SITE/data/crash.txt"

# page_deps OUT TARGET: the kinds and paths TARGET depends on.
page_deps() {
	awk -F'\t' -v t="$2" '$1 == t { print $2, $3 }' <("$CGISNAP" ls --deps "$1")
}

try "a crashing worker and one recycled every two requests: each page records its own files"
for mode in fork workers; do
	initial "$BASE/pages-$mode.log" "$BASE/pages-$mode" --root "$SITE" --cgi php=php-cgi -j 1 \
		--cgi-max-requests 2 --source "$SITE" --cgi-mode "$mode"
	check_contains "$(cat "$BASE/pages-$mode.log")" "failed: /crash.php: killed by signal 11 (SIGSEGV)" \
		"$mode: the crash"
done
for i in 1 2 3 4 5 6 7; do
	inc=$([ $((i % 2)) = 1 ] && echo a || echo b)
	deps=$(page_deps "$BASE/pages-workers" "/p$i.php")
	check_contains "$deps" "R $SITE/data/p$i.txt" "p$i reads its data"
	check_contains "$deps" "R $SITE/inc/$inc.php" "p$i includes inc/$inc.php"
	check_eq 2 "$(grep -c "$SITE/\(data\|inc\)/" <<<"$deps")" "p$i: its own two files, no other page's"
done
check_eq "$(deps_of "$BASE/pages-fork")" "$(deps_of "$BASE/pages-workers")" "dependencies, workers and fork"
pids=$(cat "$BASE"/pages-workers/p*.php | sed -n 's/.* pid=\([0-9]*\)<.*/\1/p')
check_eq 7 "$(wc -l <<<"$pids")" "pages with a pid"
check_eq 4 "$(sort -u <<<"$pids" | wc -l)" "7 pages from 4 workers: recycled every 2 requests"
check_not_contains "$("$CGISNAP" ls --deps "$BASE/pages-workers")" "data/crash.txt" \
	"the crashed render's reads went to no other page"

# The tracer empties PHP's realpath cache between requests only in a
# php-cgi that exports the function (Debian's, above); elsewhere cgisnap
# turns the cache off. Such a php-cgi: a copy with the name changed in
# its symbol table (its opcache, which imports the function, then does
# not load: both modes run without).
try "a php-cgi that does not export realpath_cache_clean: each page still records its own files"
mkdir -p "$BASE/bin"
sed 's/realpath_cache_clean/realpath_cache_clexn/' "$(readlink -f "$(command -v php-cgi)")" >"$BASE/bin/php-cgi"
chmod +x "$BASE/bin/php-cgi"
for mode in fork workers; do
	initial "$BASE/pages-renamed-$mode.log" "$BASE/pages-renamed-$mode" --root "$SITE" \
		--cgi php="$BASE/bin/php-cgi" -j 1 --cgi-max-requests 2 --source "$SITE" --cgi-mode "$mode"
done
check_contains "$(page_deps "$BASE/pages-renamed-workers" /p3.php)" "R $SITE/inc/a.php" "p3 includes inc/a.php"
check_eq "$(deps_of "$BASE/pages-renamed-fork")" "$(deps_of "$BASE/pages-renamed-workers")" \
	"dependencies, workers and fork"

try "traced workers keep PHP's realpath cache where the tracer can empty it, else turn it off"
RC=$BASE/rc
mkdir -p "$RC"
printf '<?php echo "<p>", ini_get("realpath_cache_size"), "</p>\n";\n' >"$RC/index.php"
"$CGISNAP" snapshot -q --root "$RC" --cgi php=php-cgi "$BASE/rc-debian" 2>"$BASE/rc.err"
check_eq 0 $? "exit status: $(cat "$BASE/rc.err")"
check_match "$(cat "$BASE/rc-debian/index.html")" '^<p>[1-9][0-9]*[KM]?</p>$' "Debian's php-cgi: the cache on"
"$CGISNAP" snapshot -q --root "$RC" --cgi php="$BASE/bin/php-cgi" "$BASE/rc-renamed" 2>"$BASE/rc.err"
check_eq "<p>0</p>" "$(cat "$BASE/rc-renamed/index.html")" "without realpath_cache_clean: the cache off"

finish
