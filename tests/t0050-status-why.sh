#!/usr/bin/env bash
# t0050-status-why: 'cgisnap status DIR' and 'cgisnap why DIR URL' on a
# real tree of the sample wiki, its dependencies recorded by watch: URLs
# by status, files, dependency counts, profile and settings, the last
# run and its failures; a page's dependencies by kind; --path: which
# pages a change of a file or directory touches. Expected figures come
# from the tree's own files, read here with awk.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-watch.sh"

watch_wiki_test 40
P=$(wiki_pages "$SITE" howto | head -1)
mapfile -t ARGS < <(watch_wiki_args "$SITE")
ARGS+=(--exclude 'do=backlink' --ignore-param 'utm_*')

try "watch makes the tree, with its dependencies"
watch_start "$LOG" "${ARGS[@]}" "$OUT"
check_eq 0 $? "watch came up ($(tail -3 "$LOG"))"
watch_stop
check_file "$OUT/.cgisnap/tree.db" "metadata recorded"

M=$TESTDIR/manifest.tsv
"$CGISNAP" ls "$OUT" >"$M"
D=$TESTDIR/deps.tsv
"$CGISNAP" ls --deps "$OUT" >"$D"
try "status: URLs by status, files, dependencies, profile, settings, the last run"
st=$("$CGISNAP" status "$OUT" 2>"$TESTDIR/err")
check_eq 0 $? "exit status ($(cat "$TESTDIR/err"))"
check_eq "" "$(cat "$TESTDIR/err")" "nothing on stderr"
urls=$(grep -vc '^#' "$M")
files=$(awk -F'\t' '!/^#/ && $2 != "-"' "$M" | wc -l)
bytes=$(awk -F'\t' '!/^#/ && $2 != "-" { s += $5 } END { print s + 0 }' "$M")
check_contains "$st" "URLs: $urls, $files with a file ($bytes bytes)" "URL and file counts"
for code in $(awk -F'\t' '!/^#/ { print $3 }' "$M" | sort -u); do
	check_contains "$st" "  $code: $(awk -F'\t' -v c="$code" '!/^#/ && $3 == c' "$M" | wc -l)" "status $code"
done
pages=$(cut -f1 "$D" | grep -v '^#' | sort -u | wc -l)
kinds=""
for k in R E L C U; do kinds="$kinds${kinds:+, }$k $(awk -F'\t' -v k="$k" '$2 == k' "$D" | wc -l)"; done
check_contains "$st" "dependencies: $pages pages record what their render read: $kinds" "dependency counts"
check_contains "$st" "profile: $(cat "$OUT/.cgisnap/profile")" "profile"
check_contains "$st" "site: http://localhost:8080/" "site URL"
check_contains "$st" "  --ignore-param utm_*" "the query policy it was made with"
check_match "$st" "last run: watch \(initial snapshot\) at 20[0-9-]+ [0-9:]+ UTC, [0-9.]+ s: complete \(exit status 0\)" \
	"last run"
check_match "$st" "  $urls URLs: $files stored \([0-9]+ new, 0 changed, 0 unchanged\), [0-9]+ redirects, [0-9]+ not found, 0 failed, 0 held, 0 skipped; 0 files removed" \
	"its counts"

try "why: a page's dependencies, grouped by kind"
T="/doku.php?id=$P"
src=$(wiki_file "$SITE" "$P")
w=$("$CGISNAP" why "$OUT" "$T" 2>"$TESTDIR/err")
check_eq 0 $? "exit status ($(cat "$TESTDIR/err"))"
check_match "$w" "^$(printf '%s' "$T" | sed 's/[?.]/\\&/g'): 200, file doku\.php@id=$P\.html \([0-9]+ bytes, text/html[^)]*\)" "the page"
n=$(awk -F'\t' -v t="$T" '$1 == t' "$D" | wc -l)
check_contains "$w" "depends on $n paths:" "how many"
nr=$(awk -F'\t' -v t="$T" '$1 == t && $2 == "R"' "$D" | wc -l)
check_contains "$w" "  R read ($nr):" "the R group"
check_contains "$w" "    $src"$'\n' "its source, read"
nl=$(awk -F'\t' -v t="$T" '$1 == t && $2 == "L"' "$D" | wc -l)
[ "$nl" -gt 0 ] && check_contains "$w" "  L directory listed ($nl):" "the L group"
check_eq "$w" "$("$CGISNAP" why "$OUT" "http://localhost:8080$T")" "an absolute URL is the same page"
check_eq "$w" "$("$CGISNAP" why "$OUT" "$T&utm_source=x")" "the tree's query policy applies"

try "why --path: the pages a change of a file touches"
w=$("$CGISNAP" why "$OUT" --path "$src" 2>"$TESTDIR/err")
check_eq 0 $? "exit status ($(cat "$TESTDIR/err"))"
dir=${src%/*}
expect=$(awk -F'\t' -v p="$src" -v d="$dir" '($2 ~ /^[RE]$/ && $3 == p) || ($2 ~ /^[LC]$/ && $3 == d) || $2 == "U" { print $1 }' "$D" | LC_ALL=C sort -u)
got=$(printf '%s\n' "$w" | sed -n 's/^  [RELCUA] \([^ ]*\)  (.*/\1/p' | LC_ALL=C sort -u)
check_eq "$expect" "$got" "the pages whose recorded dependencies it touches"
check_contains "$w" "  R $T  (read $src)" "the page itself, by R"
check_contains "$w" "$(printf '%s\n' "$expect" | grep -c .) pages" "the count"
(cd "$SITE/data/pages" && "$CGISNAP" why "$OUT" --path "${src#$SITE/data/pages/}" >"$TESTDIR/rel")
check_eq "$w" "$(cat "$TESTDIR/rel")" "a relative path is taken from the working directory"

try "why --path a directory: also everything recorded below it"
w=$("$CGISNAP" why "$OUT" --path "$SITE/data/pages/howto")
expect=$(awk -F'\t' -v d="$SITE/data/pages/howto" -v up="$SITE/data/pages" \
	'$3 == d || index($3, d "/") == 1 || ($2 ~ /^[LC]$/ && $3 == up) || $2 == "U" { print $1 }' "$D" | LC_ALL=C sort -u)
got=$(printf '%s\n' "$w" | sed -n 's/^  [RELCUA] \([^ ]*\)  (.*/\1/p' | LC_ALL=C sort -u)
check_ne "" "$expect" "some pages"
check_eq "$expect" "$got" "pages"
w=$("$CGISNAP" why "$OUT" --path "$SITE/data/pages/howto" "$T")
check_match "$w" "^  R $(printf '%s' "$T" | sed 's/[?.]/\\&/g')  " "with URL: that page only"
check_contains "$w" "1 page" "one"

try "bad input: one line, the thing named"
err=$("$CGISNAP" why "$OUT" /doku.php?id=no:such:page 2>&1)
check_eq 1 $? "exit status of a URL not in the tree"
check_eq "cgisnap: error: '/doku.php?id=no:such:page' is not in the manifest of '$OUT'" "$err" "message"
err=$("$CGISNAP" why "$OUT" http://elsewhere.example/x 2>&1)
check_eq 2 $? "exit status of another site's URL"
check_contains "$err" "'http://elsewhere.example/x' is not a URL of the site 'http://localhost:8080/'" "message"
err=$("$CGISNAP" status "$SITE" 2>&1)
check_eq 2 $? "status of a directory that is no tree"
check_eq "cgisnap: error: '$SITE' is not a cgisnap tree (no .cgisnap/)" "$err" "message"
err=$("$CGISNAP" status "$TESTDIR/missing" 2>&1)
check_eq 2 $? "status of a missing directory"
check_contains "$err" "cannot open tree '$TESTDIR/missing'" "message"
err=$("$CGISNAP" why "$OUT" 2>&1)
check_eq 2 $? "why without a URL"
check_contains "$err" "no URL given (or --path P)" "message"
check_contains "$("$CGISNAP" status --help)" "usage: cgisnap status DIR" "status --help"
check_contains "$("$CGISNAP" why --help)" "--path P" "why --help"

# A snapshot with failures: status names them, and the result.
EDGE=$TESTDIR/edge
mkdir -p "$EDGE"
printf '<a href="/crash.cgi">c</a> <a href="/error.cgi">e</a> <a href="/ok.html">ok</a>\n' >"$EDGE/index.html"
printf '<p>ok</p>\n' >"$EDGE/ok.html"
printf '#!/bin/sh\nprintf "Content-Type: text/html\\n\\n<p>half"; kill -SEGV $$\n' >"$EDGE/crash.cgi"
printf '#!/bin/sh\nprintf "Status: 500 Oops\\nContent-Type: text/html\\n\\n<p>oops</p>\\n"\n' >"$EDGE/error.cgi"
chmod +x "$EDGE"/*.cgi
try "status after a snapshot with failures: the result and each failure"
"$CGISNAP" snapshot --root "$EDGE" --site-url http://localhost/ -q "$TESTDIR/e" 2>/dev/null
check_eq 1 $? "the snapshot's exit status"
st=$("$CGISNAP" status "$TESTDIR/e")
check_match "$st" "last run: snapshot at [0-9-]+ [0-9:]+ UTC, [0-9.]+ s: partial \(exit status 1\)" "result"
check_contains "$st" "  4 URLs: 2 stored (2 new, 0 changed, 0 unchanged), 0 redirects, 0 not found, 2 failed, 0 held, 0 skipped" "counts"
check_contains "$st" "failures of the last run (2):" "failures heading"
check_contains "$st" "  /crash.cgi: killed by signal 11 (SIGSEGV)" "a failure and why"
check_contains "$st" "  /error.cgi: HTTP status 500" "another"
check_contains "$st" "dependencies: none recorded" "a snapshot records no dependencies"
check_contains "$st" "profile: none" "no profile"

finish
