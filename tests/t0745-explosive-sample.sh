#!/usr/bin/env bash
# t0745-explosive-sample: sample-sites/repo, a repository browser that
# explodes as cgit, Fossil and wikis do (every file at every revision,
# diffs of every pair, blame, timelines, help of every command, login
# with returnto every page, skins and toggles on every page, a tarball
# per revision, a CSP nonce and the render time in every page, one query
# spelled two ways), snapshotted with no option but the root and the CGI
# handler: every page a reader needs and its assets stored, nothing more
# than twice that, exit 0; a second run rewrites no file; the served tree
# has no broken link but the views left out.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"
. "$(dirname "$0")/lib-serve.sh"

SITE=$TESTDIR/site
OUT=$TESTDIR/out
cp -r "$ROOT/sample-sites/repo" "$SITE"

# The pages a reader needs, each with a line of its text; then the assets.
grep -v '^#' "$ROOT/tests/fixtures/repo-expected.tsv" >"$TESTDIR/expected"
EXPECTED=$(wc -l <"$TESTDIR/expected")

snap() {
	"$CGISNAP" snapshot --root "$SITE" --cgi php=php-cgi --progress none -v "$@" "$OUT"
}

try "zero configuration: every page a reader needs stored with its text, at most twice as many files"
snap >"$TESTDIR/snap1.out" 2>"$TESTDIR/snap1.err"
check_eq 0 $? "exit status ($(grep -v ' ms ' "$TESTDIR/snap1.err" | tail -3))"
missing=""
while IFS=$'\t' read -r target text; do
	key=$(manifest_field "$OUT" "$target" 2)
	if [ -z "$key" ] || [ "$key" = - ] || ! grep -qF -- "$text" "$OUT/$key"; then
		missing="$missing $target"
	fi
done <"$TESTDIR/expected"
check_eq "" "$missing" "pages not stored with their text"
stored=$(stored_files "$OUT")
check_le "$stored" $((2 * EXPECTED)) "files stored ($EXPECTED expected)"
grep -v ' ms \|debug: \|^  ' "$TESTDIR/snap1.err" | sed 's/^/# /'

try "the views are left out by what the pages say, each rule named in the summary"
read -r rendered cut < <(render_counts "$TESTDIR/snap1.err")
check_le "$rendered" $((10 * EXPECTED)) "URLs rendered"
check_le 200 "$cut" "URLs cut with their families, not rendered"
err=$(cat "$TESTDIR/snap1.err")
check_match "$err" "skipped $cut URLs not rendered, in [0-9]+ families whose first 8 pages all said robots noindex" "views cut"
check_match "$err" "URLs recorded as a redirect to the page their <link rel=canonical> names: .*--no-canonical-links" \
	"skins and toggles"
check_match "$err" "5 URLs recorded as a redirect to another spelling of their file: /\?p=file&name=[a-z]+%2F" \
	"the second spelling"
check_match "$err" "skipped [0-9]+ archives? \(e\.g\. /\?p=tarball&rev=r[0-9]+\): --keep-archives" "tarballs"
check_eq "" "$(manifest_targets "$OUT" | grep -E '[?&](rev|from|returnto|skin|ws|cmd)=' | grep -v '^/?p=tarball' |
	while read -r t; do [ "$(manifest_field "$OUT" "$t" 2)" = - ] || echo "$t"; done)" "views stored as files"

try "a second run rewrites no file: the nonce and the render time are found by themselves"
snap >"$TESTDIR/snap2.out" 2>"$TESTDIR/snap2.err"
check_eq 0 $? "exit status"
check_match "$(cat "$TESTDIR/snap2.err")" "stored $stored files \(0 new, 0 changed, $stored unchanged\)" "second run"
check_contains "$(cat "$OUT/.cgisnap/volatile")" 'nonce="' "the nonce, a learned span"
key=$(manifest_field "$OUT" /?p=log 2)
check_eq 1 "$(grep -c "<script nonce=\"[A-Za-z0-9+/=]*\" src=\"/app.js\">" "$OUT/$key")" "the stored page keeps its nonce attribute"

try "a browser-style link check of the served tree finds nothing broken but the views left out"
P=$(port 0)
serve_start "$OUT" "$P"
skips=()
while read -r pattern; do
	skips+=(--skip "$pattern")
done < <(skipped_patterns "$TESTDIR/snap1.err")
check_links repo '[0-9]+' 0 --site http://localhost/ "${skips[@]}" "http://127.0.0.1:$P" "$OUT"
bg_stop "$SERVE_PID"

finish
