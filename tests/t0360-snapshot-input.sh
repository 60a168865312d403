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
targets() { grep -v '^#' "$1/.cgisnap/manifest" | cut -f1 | LC_ALL=C sort; }

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
