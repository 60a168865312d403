#!/usr/bin/env bash
# t0360-snapshot-input: what snapshot refuses - a script's source published
# as a file, a crawl without bound, option files that never end, URLs that
# are not the site's.
. "$(dirname "$0")/lib.sh"

SITE=$TESTDIR/site
mkdir -p "$SITE/tools"
printf '<?php echo "<p>secret: ", getenv("DB_PASSWORD"), "</p>";\n' >"$SITE/index.php"
printf '<p>about</p>\n' >"$SITE/about.html"
printf '#!/bin/sh\necho installed\n' >"$SITE/tools/install"
printf '#!/bin/sh\necho hello\n' >"$SITE/tools/run.sh"
printf '<p>old page</p>\n' >"$SITE/tools/Legacy.PHP"
FIXTURES=$ROOT/tests/fixtures/cgi/docroot

# stored OUT: every file of the tree outside .cgisnap, sorted.
stored() { (cd "$1" && find . -path ./.cgisnap -prune -o -type f -printf '%P\n' | LC_ALL=C sort); }
targets() { grep -v '^#' <("$CGISNAP" ls "$1") | cut -f1 | LC_ALL=C sort; }

try "--root without --cgi never stores index.php's source: the URL fails, exit 1"
"$CGISNAP" snapshot --root "$SITE" --seed / --seed /about.html "$TESTDIR/a" 2>"$TESTDIR/err"
check_eq 1 $? "exit status"
check_contains "$(cat "$TESTDIR/err")" "failed: /: 'index.php' would be published as source: add --cgi php=php-cgi" "message"
check_eq "" "$(grep -rl 'DB_PASSWORD' "$TESTDIR/a")" "the source is nowhere in the tree"
check_no_file "$TESTDIR/a/index.html"
check_file "$TESTDIR/a/about.html" "other pages are stored"
check_not_contains "$(targets "$TESTDIR/a")" "index.php" "no manifest line for the source"

try "the extension is case-insensitive and the hint names the file's own extension"
"$CGISNAP" snapshot --root "$SITE" --seed /tools/Legacy.PHP "$TESTDIR/b" 2>"$TESTDIR/err"
check_eq 1 $? "exit status"
check_contains "$(cat "$TESTDIR/err")" "'tools/Legacy.PHP' would be published as source: add --cgi PHP=php-cgi" "message"
check_no_file "$TESTDIR/b/tools/Legacy.PHP"

try "a '#!' script without an extension is refused too"
"$CGISNAP" snapshot --root "$SITE" --seed /tools/install "$TESTDIR/c" 2>"$TESTDIR/err"
check_eq 1 $? "exit status"
check_contains "$(cat "$TESTDIR/err")" "'tools/install' would be published as source: add --cgi EXT=PROGRAM" "message"
check_eq "" "$(stored "$TESTDIR/c")" "nothing stored"
"$CGISNAP" snapshot --root "$SITE" --seed /tools/run.sh "$TESTDIR/c2" 2>"$TESTDIR/err"
check_eq 1 $? "a .sh file: exit status"
check_contains "$(cat "$TESTDIR/err")" "'tools/run.sh' would be published as source: add --cgi sh=sh" "a .sh file"

try "a link to a script, or a copy of one under another name, is refused too"
ln -s ../index.php "$SITE/tools/readme.txt"
cp "$SITE/index.php" "$SITE/index.php.bak"
"$CGISNAP" snapshot --root "$SITE" --seed /tools/readme.txt --seed /index.php.bak "$TESTDIR/c3" 2>"$TESTDIR/err"
check_eq 1 $? "exit status"
check_contains "$(cat "$TESTDIR/err")" "failed: /tools/readme.txt: 'tools/readme.txt' would be published as source: add --cgi php=php-cgi" "the link"
check_contains "$(cat "$TESTDIR/err")" "failed: /index.php.bak: 'index.php.bak' would be published as source: it starts with '<?php'" "the copy"
check_eq "" "$(stored "$TESTDIR/c3")" "nothing stored"
rm "$SITE/tools/readme.txt" "$SITE/index.php.bak"

try "--static-ext publishes such files as they are"
"$CGISNAP" snapshot --root "$SITE" --static-ext sh --static-ext '' --seed /tools/run.sh \
	--seed /tools/install "$TESTDIR/d" 2>"$TESTDIR/err"
check_eq 0 $? "exit status"
check_cmp "$SITE/tools/run.sh" "$TESTDIR/d/tools/run.sh" "the .sh download"
key=$(awk -F'\t' '$1 == "/tools/install" { print $2 }' <("$CGISNAP" ls "$TESTDIR/d"))
check_cmp "$SITE/tools/install" "$TESTDIR/d/$key" "the extensionless file"
"$CGISNAP" snapshot --root "$SITE" --static-ext .SH --seed /tools/run.sh "$TESTDIR/d2" 2>/dev/null
check_eq 0 $? "--static-ext .SH: a dot and the case do not matter"
"$CGISNAP" snapshot --root "$SITE" --static-ext sh --seed /tools/install "$TESTDIR/d3" 2>/dev/null
check_eq 1 $? "--static-ext sh does not cover a file without an extension"
check_match "$("$CGISNAP" snapshot --help)" "--static-ext EXT " "in --help"
err=$("$CGISNAP" snapshot --root "$SITE" --static-ext a.b "$TESTDIR/d4" 2>&1)
check_eq 2 $? "a bad --static-ext: exit status"
check_eq "cgisnap: error: bad --static-ext value 'a.b' (expected an extension, e.g. sh)" "$err" "message"

try "a front controller that would be published as source is a set-up error"
err=$("$CGISNAP" snapshot --root "$SITE" --front-controller /index.php "$TESTDIR/e" 2>&1)
check_eq 2 $? "exit status"
check_eq "cgisnap: error: front controller '/index.php' would be published as source: add --cgi php=php-cgi" "$err" "message"
check_no_file "$TESTDIR/e" "no tree created"

try "with --cgi php=php-cgi the same site renders"
if command -v php-cgi >/dev/null; then
	"$CGISNAP" snapshot --root "$SITE" --cgi php=php-cgi --seed / "$TESTDIR/f" 2>/dev/null
	check_eq 0 $? "exit status"
	check_contains "$(cat "$TESTDIR/f/index.html")" "<p>secret: </p>" "rendered, not copied"
else
	fail "php-cgi is missing"
fi

try "--help shows the --max-pages default and --loop-warn"
out=$("$CGISNAP" snapshot --help)
check_match "$out" "--max-pages N +.*default 100000; 0: no bound" "max-pages default"
check_match "$out" "--loop-warn N " "loop-warn"

try "a crawl that reaches 80% of --max-pages says so while it runs"
"$CGISNAP" snapshot --root "$FIXTURES" --seed '/pager.cgi?n=1' --max-pages 10 -j 1 "$TESTDIR/g" 2>"$TESTDIR/err"
check_eq 4 $? "exit status: cut short"
err=$(cat "$TESTDIR/err")
check_contains "$err" "warning: 8 of --max-pages 10 URLs: is a calendar or pager looping? (--exclude it, or raise --max-pages; 0: no bound)" "80% line"
check_eq 1 "$(grep -c 'of --max-pages' "$TESTDIR/err")" "said once"
check_contains "$err" "warning: --max-pages 10 reached" "the bound's note"
# /robots.txt and /sitemap.xml are URLs of the crawl too (404: not recorded)
check_eq $((10 - 2)) "$(targets "$TESTDIR/g" | grep -c '^/pager.cgi?n=')" "pages recorded"
"$CGISNAP" snapshot --root "$FIXTURES" --seed '/pager.cgi?n=1' --max-pages 10 -j 1 "$TESTDIR/g2" -q 2>"$TESTDIR/err"
check_contains "$(cat "$TESTDIR/err")" "of --max-pages 10 URLs" "also with -q"

try "a parameter taking ever-new values is reported once, and the crawl stops at --max-pages"
"$CGISNAP" snapshot --root "$FIXTURES" --seed '/pager.cgi?n=1' --loop-warn 5 --max-pages 30 -j 2 "$TESTDIR/h" 2>"$TESTDIR/err"
check_eq 4 $? "exit status: cut short"
err=$(cat "$TESTDIR/err")
check_contains "$err" "warning: '/pager.cgi?n=…' has 5+ distinct values of 'n' (a pager or calendar loop? use --exclude or --max-pages)" "warning"
check_eq 1 "$(grep -c 'distinct values' "$TESTDIR/err")" "said once"
check_eq $((30 - 2)) "$(targets "$TESTDIR/h" | grep -c '^/pager.cgi?n=')" "stopped at --max-pages"
"$CGISNAP" snapshot --root "$FIXTURES" --seed '/pager.cgi?n=1' --loop-warn 0 --max-pages 30 "$TESTDIR/h2" 2>"$TESTDIR/err"
check_not_contains "$(cat "$TESTDIR/err")" "distinct values" "--loop-warn 0: never"

try "many values found side by side on one page are no loop"
mkdir -p "$TESTDIR/list"
{
	printf '<html><body>\n'
	for i in $(seq 1 40); do printf '<a href="/item.html?id=%d">%d</a>\n' "$i" "$i"; done
	printf '</body></html>\n'
} >"$TESTDIR/list/index.html"
printf '<p>an item</p>\n' >"$TESTDIR/list/item.html"
"$CGISNAP" snapshot --root "$TESTDIR/list" --loop-warn 5 "$TESTDIR/i" 2>"$TESTDIR/err"
check_eq 0 $? "exit status"
check_not_contains "$(cat "$TESTDIR/err")" "distinct values" "no warning"
check_eq 40 "$(targets "$TESTDIR/i" | grep -c '^/item.html?id=')" "every item stored"

try "an option file over 1 MiB is refused at once, /dev/zero too"
head -c $((1024 * 1024 + 1)) /dev/zero | tr '\0' '#' >"$TESTDIR/big.conf"
err=$("$CGISNAP" snapshot -c "$TESTDIR/big.conf" --root "$SITE" "$TESTDIR/j" 2>&1)
check_eq 2 $? "exit status"
check_contains "$err" "'$TESTDIR/big.conf' is larger than 1 MiB" "message"
check_no_file "$TESTDIR/j" "no tree created"
err=$(timeout 20 "$CGISNAP" snapshot -c /dev/zero --root "$SITE" "$TESTDIR/j" 2>&1)
check_eq 2 $? "/dev/zero: exit status"
check_contains "$err" "'/dev/zero' is larger than 1 MiB" "/dev/zero: message"
head -c $((1024 * 1024)) /dev/zero | tr '\0' '#' >"$TESTDIR/max.conf"
"$CGISNAP" snapshot -c "$TESTDIR/max.conf" --root "$SITE" --seed /about.html "$TESTDIR/j2" 2>/dev/null
check_eq 0 $? "exactly 1 MiB (one long comment line) is fine"

try "a NUL byte in an option file names the file and line"
printf 'max-pages = 5\n# fine\nseed = /a\0b\n' >"$TESTDIR/nul.conf"
err=$("$CGISNAP" snapshot -c "$TESTDIR/nul.conf" --root "$SITE" "$TESTDIR/k" 2>&1)
check_eq 2 $? "exit status"
check_contains "$err" "$TESTDIR/nul.conf:3: NUL byte" "message"
check_eq 1 "$(printf '%s\n' "$err" | wc -l)" "one line"

try "a port out of range is called so"
err=$("$CGISNAP" snapshot --root "$SITE" --site-url http://a:99999/ "$TESTDIR/l" 2>&1)
check_eq 2 $? "exit status"
check_contains "$err" "invalid site URL 'http://a:99999/': port out of range" "site URL"
err=$("$CGISNAP" snapshot --root "$SITE" --alias http://a:0/ "$TESTDIR/l" 2>&1)
check_eq 2 $? "alias: exit status"
check_contains "$err" "invalid alias URL 'http://a:0/': port out of range" "alias"
check_no_file "$TESTDIR/l" "no tree created"

try "a seed that is not a URL of the site is a usage error naming it"
for seed in 'javascript:' 'mailto:a@b' 'http://elsewhere.example/' 'http://localhost:99999/x'; do
	err=$("$CGISNAP" snapshot --root "$SITE" --seed "$seed" "$TESTDIR/m" 2>&1)
	check_eq 2 $? "exit status for '$seed'"
	check_eq 1 "$(printf '%s\n' "$err" | wc -l)" "one line for '$seed'"
	check_contains "$err" "--seed '$seed'" "names '$seed'"
done
check_contains "$("$CGISNAP" snapshot --root "$SITE" --seed javascript: "$TESTDIR/m" 2>&1)" \
	"not an http or https URL" "why: the scheme"
check_contains "$("$CGISNAP" snapshot --root "$SITE" --seed http://elsewhere.example/ "$TESTDIR/m" 2>&1)" \
	"not a URL of the site 'http://localhost/'" "why: the host"
check_no_file "$TESTDIR/m" "no tree created"
"$CGISNAP" snapshot --root "$SITE" --alias http://www.example.org/ --seed http://www.example.org/about.html \
	--seed about.html "$TESTDIR/m2" 2>/dev/null
check_eq 0 $? "an alias's URL and a relative seed are the site's"

finish
