#!/usr/bin/env bash
# t0399-snapshot-views-volatile: two generic rules of a zero-configuration
# crawl, on a small application of the kind wikis and repository browsers
# are (tests/fixtures/views-site): every page links its views (edit,
# history, login?returnto=), each robots noindex, and every render writes
# a fresh CSP nonce, a request id and its render time.
#  - Views are cut by family once 8 of a family said noindex: rendered
#    URLs stay near the pages' count, the summary names the families and
#    --noindex-sample; --noindex-sample 0 renders every view.
#  - What changes on every render is found by itself: a second run
#    rewrites no file (.cgisnap/volatile names the spans), an edit of one
#    page's text rewrites that page alone, and watch republishes nothing
#    when a source is rewritten with the same text.
#  - --write-profile writes both down; -c with that file gives the same
#    tree in a new directory without learning them again.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/lib-snapshot.sh"
. "$ROOT/tests/lib-watch.sh"

SITE=$TESTDIR/site
OUT=$TESTDIR/out
PAGES=20
mkdir -p "$SITE/data"
cp "$ROOT/tests/fixtures/views-site/index.php" "$SITE/"
for i in $(seq -f %02g 1 $PAGES); do
	echo "Page $i says hello." >"$SITE/data/p$i.txt"
done

# snap OUT [OPTIONS...]
snap() {
	local out=$1
	shift
	"$CGISNAP" snapshot --root "$SITE" --cgi php=php-cgi --site-url http://localhost:8080/ \
		--seed /index.php --progress none "$@" "$out"
}

# count ERR REGEX: lines of ERR (a -v run's) matching REGEX.
count() {
	grep -cE "$2" "$1"
}

try "views are cut by family once 8 said noindex; the summary names them and the option"
snap "$OUT" -v -j 1 >"$TESTDIR/snap1.out" 2>"$TESTDIR/snap1.err"
check_eq 0 $? "exit status ($(grep -v ' ms ' "$TESTDIR/snap1.err" | tail -3))"
check_eq $((PAGES + 1)) "$(count "$TESTDIR/snap1.err" '^cgisnap: 200 new ')" "pages stored"
# 40 edit and history views, 20 login forms: 8 of each family rendered.
check_eq 16 "$(count "$TESTDIR/snap1.err" '^cgisnap: 200 skipped ')" "views rendered (noindex)"
check_eq 44 "$(count "$TESTDIR/snap1.err" '^cgisnap: - skipped 0 ms ')" "views cut, not rendered"
check_contains "$(cat "$TESTDIR/snap1.err")" \
	"cgisnap: skipped 44 URLs not rendered, in 2 families whose first 8 pages all said robots noindex ('/index.php?action=…&page=…' 32, '/index.php?page=…&returnto=…' 12): --noindex-sample 0 to render them" \
	"the summary line"
check_eq "" "$(manifest_targets "$OUT" | grep -E 'action=|returnto=')" "views stored"

try "--noindex-sample 0 renders every view"
snap "$TESTDIR/all" -v -j 1 --noindex-sample 0 >/dev/null 2>"$TESTDIR/all.err"
check_eq 0 $? "exit status"
check_eq 60 "$(count "$TESTDIR/all.err" '^cgisnap: 200 skipped ')" "views rendered"
check_eq 0 "$(count "$TESTDIR/all.err" '^cgisnap: - skipped ')" "views cut"
check_not_contains "$(cat "$TESTDIR/all.err")" "not rendered" "no summary line of cut views"

try "a second run rewrites no file: the nonce, the request id and the render time are found by themselves"
before=$(tree_mtimes "$OUT")
snap "$OUT" >"$TESTDIR/snap2.out" 2>"$TESTDIR/snap2.err"
check_eq 0 $? "exit status"
check_contains "$(cat "$TESTDIR/snap2.err")" "stored $((PAGES + 1)) files (0 new, 0 changed, $((PAGES + 1)) unchanged)" "summary"
check_eq "$before" "$(tree_mtimes "$OUT")" "files and their times"
rules=$(cat "$OUT/.cgisnap/volatile" 2>&1)
check_contains "$rules" $'\tnonce="' "the nonce is a learned span"
check_contains "$rules" $'\tRendered in ' "the render time too"
check_contains "$rules" $'\trequestId = "' "the request id too"
page=$(cat "$OUT/$(manifest_field "$OUT" "/index.php?page=p05" 2)")
nonce=$(printf '%s' "$page" | sed -n 's/.*<script nonce="\([^"]*\)".*/\1/p')
check_contains "$page" "Page 05 says hello." "the stored page is whole"
check_match "$nonce" '^[A-Za-z0-9+/]{16}$' "its nonce"

try "an edit of one page's text rewrites that page alone"
echo "Page 05 was edited." >"$SITE/data/p05.txt"
snap "$OUT" -v >"$TESTDIR/snap3.out" 2>"$TESTDIR/snap3.err"
check_eq 0 $? "exit status"
check_eq "/index.php?page=p05" "$(sed -nE 's/^cgisnap: 200 (new|changed) [0-9]+ ms [0-9]+ bytes //p' "$TESTDIR/snap3.err")" \
	"pages written"
check_contains "$(cat "$OUT/$(manifest_field "$OUT" "/index.php?page=p05" 2)")" "Page 05 was edited." "the edit stored"

try "an edit beside a learned span is an edit: 'v1' two spaces before a nonce is content"
mkdir -p "$TESTDIR/near/data"
echo v1 >"$TESTDIR/near/data/v"
cat >"$TESTDIR/near/index.cgi" <<'SH'
#!/bin/sh
printf 'Content-Type: text/html\n\n<p>doc %s  %s</p>\n' "$(cat data/v)" "$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
SH
chmod +x "$TESTDIR/near/index.cgi"
near() { "$CGISNAP" snapshot --root "$TESTDIR/near" --seed /index.cgi --progress none "$TESTDIR/near-out" 2>"$TESTDIR/near.err"; }
near && near
check_contains "$(cat "$TESTDIR/near.err")" "(0 new, 0 changed, 1 unchanged)" "the second run learned the nonce"
echo v2 >"$TESTDIR/near/data/v"
near
check_contains "$(cat "$TESTDIR/near.err")" "(0 new, 1 changed, 0 unchanged)" "the third run rewrote the page"
check_match "$(cat "$TESTDIR/near-out/index.cgi")" "^<p>doc v2  [0-9a-f]{16}</p>$" "with the edit"

try "--write-profile keeps what the run learned: the view families and the spans, the aliases as comments"
snap "$OUT" --write-profile "$TESTDIR/learned.conf" >/dev/null 2>"$TESTDIR/wp.err"
check_eq 0 $? "exit status ($(tail -2 "$TESTDIR/wp.err"))"
check_contains "$(cat "$TESTDIR/wp.err")" "wrote what the run learned to '$TESTDIR/learned.conf'" "said"
profile=$(cat "$TESTDIR/learned.conf")
check_eq "# cgisnap profile, written by 'cgisnap snapshot --write-profile'" "$(head -1 <<<"$profile")" "first line"
check_eq "$(printf '%s\n' "view-family = '/index.php?action=…&page=…'  # 32 URLs not rendered" \
	"view-family = '/index.php?page=…&returnto=…'  # 12 URLs not rendered")" \
	"$(grep '^view-family' <<<"$profile")" "the view families, with what each left out"
check_eq "$(grep -v '^#' "$OUT/.cgisnap/volatile" | sort)" \
	"$(sed -n "s/^volatile = '\(.*\)'\$/\1/p" <<<"$profile" | sort)" "the spans, as the tree keeps them"

try "-c with that profile gives the same tree in a new directory, and a second run there learns nothing again"
snap "$TESTDIR/p" -v -j 2 -c "$TESTDIR/learned.conf" >/dev/null 2>"$TESTDIR/p1.err"
check_eq 0 $? "exit status ($(grep -v ' ms ' "$TESTDIR/p1.err" | tail -3))"
check_eq "$(manifest_targets "$OUT")" "$(manifest_targets "$TESTDIR/p")" "the same URLs"
check_eq 16 "$(count "$TESTDIR/p1.err" '^cgisnap: 200 skipped ')" "views rendered: the first of each family, as sampled"
check_contains "$(cat "$TESTDIR/p1.err")" \
	"cgisnap: skipped 44 URLs not rendered, in 2 families --view-family names ('/index.php?action=…&page=…' 32, '/index.php?page=…&returnto=…' 12): without those --view-family lines they are sampled" \
	"the summary names the given families"
snap "$TESTDIR/p" -c "$TESTDIR/learned.conf" >/dev/null 2>"$TESTDIR/p2.err"
check_eq 0 $? "exit status"
check_contains "$(cat "$TESTDIR/p2.err")" "stored $((PAGES + 1)) files (0 new, 0 changed, $((PAGES + 1)) unchanged)" \
	"every page unchanged"
# Learning a span writes .cgisnap/volatile; the profile's spans left nothing to learn.
check_no_file "$TESTDIR/p/.cgisnap/volatile" "spans learned again"

try "--write-profile never overwrites a file it did not write; bad --view-family and --volatile are set-up errors"
printf 'my notes\n' >"$TESTDIR/notes"
err=$(snap "$TESTDIR/q" --write-profile "$TESTDIR/notes" 2>&1)
check_eq 2 $? "exit status"
check_contains "$err" "--write-profile '$TESTDIR/notes' exists and is not a profile cgisnap wrote: not overwritten" "message"
check_eq "my notes" "$(cat "$TESTDIR/notes")" "the file"
check_no_file "$TESTDIR/q" "no tree made"
err=$(snap "$TESTDIR/q" --view-family edit 2>&1)
check_eq 2 $? "bad --view-family: exit status"
check_contains "$err" "bad --view-family 'edit': a family as the summary names it" "message"
err=$(snap "$TESTDIR/q" --volatile 'nonce="' 2>&1)
check_eq 2 $? "bad --volatile: exit status"
check_contains "$err" "bad --volatile 'nonce=\"': the bytes a span may hold, a tab, the text before it" "message"

try "watch: a source rewritten with the same text republishes nothing; an edit is published"
LOG=$TESTDIR/watch.log
watch_start "$LOG" --root "$SITE" --cgi php=php-cgi --site-url http://localhost:8080/ --seed /index.php \
	--source "$SITE/data" --progress none "$OUT" || fail "watch did not start: $(tail -3 "$LOG")"
n=$(batches "$LOG")
cp "$SITE/data/p06.txt" "$SITE/data/p06.tmp" && mv "$SITE/data/p06.tmp" "$SITE/data/p06.txt"
wait_batches "$LOG" $((n + 1)) || fail "no batch for the rewrite: $(tail -3 "$LOG")"
check_match "$(grep '^cgisnap: batch: ' "$LOG" | tail -1)" ': [0-9]+ URLs? re-rendered, 0 files changed, 0 removed' \
	"the batch of the rewrite"
echo "Page 07 was edited under watch." >"$SITE/data/p07.tmp" && mv "$SITE/data/p07.tmp" "$SITE/data/p07.txt"
wait_until 30 grep -q "Page 07 was edited under watch." "$OUT/$(manifest_field "$OUT" "/index.php?page=p07" 2)" ||
	fail "the edit was not published: $(tail -3 "$LOG")"
watch_stop

finish
