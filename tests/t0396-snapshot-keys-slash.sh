#!/usr/bin/env bash
# t0396-snapshot-keys-slash: a URL with an encoded slash in a path segment
# (a repository browser's /tool/x%2Fy, whose program gets PATH_INFO /x/y)
# is stored under a key that keeps "%2F" in one file name
# (tool/x%2Fy/index.html), served back from it by cgisnap serve, passed on
# as it came with --dynamic and --fallback, and never a path separator on
# disk: /tool/a%2F..%2Fb reaches neither /tool/b's file nor any other.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-serve.sh"

FIX=$ROOT/tests/fixtures/mounts
SITE=$TESTDIR/site
BIN=$TESTDIR/bin
OUT=$TESTDIR/out
mkdir -p "$SITE/a" "$BIN"
cc -std=c11 -O0 -o "$BIN/tool" "$FIX/tool.c" || fail "cannot compile tests/fixtures/mounts/tool.c"
printf '<p>the secret page</p>\n' >"$SITE/b.html"
printf '<p>a page of a/</p>\n' >"$SITE/a/index.html"
MOUNTS=(--script-alias "/tool=$BIN/tool")

try "snapshot stores /tool/x%2Fy as the one file tool/x%2Fy/index.html"
"$CGISNAP" snapshot --root "$SITE" "${MOUNTS[@]}" --site-url http://localhost/ --max-depth 0 \
	--seed '/tool/x%2Fy' --seed '/tool/x/y' --seed '/tool/b' --seed '/tool/src%2Fmain.c?id=1' \
	"$OUT" 2>"$TESTDIR/err"
check_eq 0 $? "exit status ($(grep -E 'failed|error' "$TESTDIR/err" | head -3))"
page=$(cat "$OUT/tool/x%2Fy/index.html" 2>/dev/null)
check_contains "$page" "PATH_INFO=/x/y"$'\n' "the program got PATH_INFO /x/y"
check_contains "$page" "REQUEST_URI=/tool/x%2Fy"$'\n' "and REQUEST_URI as it came"
check_contains "$(cat "$OUT/tool/x/y/index.html" 2>/dev/null)" "REQUEST_URI=/tool/x/y"$'\n' \
	"/tool/x/y is another page, in its own file"
check_contains "$(cat "$OUT/tool/src%2Fmain.c@id=1.html" 2>/dev/null)" "PATH_INFO=/src/main.c"$'\n' \
	"with a query"
check_eq "tool/x%2Fy/index.html" "$(awk -F'\t' '$1 == "/tool/x%2Fy" { print $2 }' <("$CGISNAP" ls "$OUT"))" \
	"manifest key"

P=$(port 0)
U=http://127.0.0.1:$P
try "serve answers /tool/x%2Fy from its key; %2F never separates on disk"
serve_start "$OUT" "$P"
check_eq "$(cat "$OUT/tool/x%2Fy/index.html")" "$(curl -s "$U/tool/x%2Fy")" "/tool/x%2Fy"
check_eq "$(cat "$OUT/tool/x%2Fy/index.html")" "$(curl -s "$U/tool/x%2fy")" "/tool/x%2fy is the same URL"
check_eq "$(cat "$OUT/tool/x/y/index.html")" "$(curl -s "$U/tool/x/y")" "/tool/x/y its own page"
check_eq 200 "$(code "$U/tool/src%2Fmain.c?id=1")" "with a query"
check_eq 404 "$(code "$U/tool/a%2F..%2Fb")" "/tool/a%2F..%2Fb does not reach tool/b/"
check_eq 404 "$(code "$U/tool/x%2F..%2Fb")" "nor from a directory that exists"
check_eq 404 "$(code "$U/tool%2Fb")" "/tool%2Fb is not /tool/b"
check_eq 404 "$(code "$U/tool/x%2Fy%2Findex.html")" "nor is the file's name with %2F"
check_eq 404 "$(code "$U/tool/x%252Fy")" "%252F is another URL"
check_eq 404 "$(code "$U/..%2Fetc%2Fpasswd")" "a name starting with '.'"
check_eq 400 "$(code "$U/tool/x%00y")" "%00 stays refused"
bg_stop "$SERVE_PID"

try "serve --dynamic passes an encoded slash on to the program"
serve_start "$OUT" "$P" --dynamic --root "$SITE" "${MOUNTS[@]}"
body=$(curl -s "$U/tool/p%2Fq")
check_contains "$body" "PATH_INFO=/p/q"$'\n' "PATH_INFO decoded"
check_contains "$body" "REQUEST_URI=/tool/p%2Fq"$'\n' "REQUEST_URI as it came"
check_not_contains "$(curl -s "$U/a%2F..%2Fb.html")" "the secret page" "never b.html through a%2F..%2F"
bg_stop "$SERVE_PID"

try "serve --fallback renders and stores what the tree lacks, %2F and all"
serve_start "$OUT" "$P" --fallback --fill --root "$SITE" "${MOUNTS[@]}"
body=$(curl -s "$U/tool/new%2Fpage")
check_contains "$body" "PATH_INFO=/new/page"$'\n' "PATH_INFO decoded"
check_contains "$(cat "$OUT/tool/new%2Fpage/index.html" 2>/dev/null)" "PATH_INFO=/new/page"$'\n' \
	"--fill stored it under its key"
check_eq "$(cat "$OUT/tool/x%2Fy/index.html")" "$(curl -s "$U/tool/x%2Fy")" "a stored one from the tree"
check_not_contains "$(curl -s "$U/a%2F..%2Fb.html")" "the secret page" "never b.html through a%2F..%2F"
check_no_file "$OUT/b.html" "nothing stored for it"
bg_stop "$SERVE_PID"

finish
