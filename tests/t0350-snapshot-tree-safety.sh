#!/usr/bin/env bash
# t0350-snapshot-tree-safety: the tree is cgisnap's and only cgisnap's. It
# never writes or removes through a symbolic link, claims a directory only
# when it is empty or already a tree (or with --force), never overlaps the
# site, never overwrites or prunes a file it did not publish, and records
# every publish before it happens, so that a run killed with -9 or cut
# short by a full disk leaves nothing unrecorded.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-serve.sh"

SITE=$TESTDIR/site
mkdir -p "$SITE/x/page" "$SITE/k" "$SITE/e"
printf '<p>the site page</p>\n' >"$SITE/x/page/index.html"
printf '<p>other</p>\n' >"$SITE/other.html"
printf '<p>a</p>\n' >"$SITE/a.html"
printf '<p>b</p>\n' >"$SITE/b.html"
cat >"$SITE/index.html" <<'HTML'
<html><body><a href="/a.html">a</a> <a href="/b.html">b</a></body></html>
HTML
printf '#!/bin/sh\nprintf "Content-Type: text/html\\n\\nscript output\\n"\n' >"$SITE/ok.sh"
chmod +x "$SITE/ok.sh"

snap() { "$CGISNAP" snapshot --root "$SITE" -j 1 "$@"; }
# tree_files DIR: the files of a tree outside .cgisnap, sorted.
tree_files() { (cd "$1" && find . -path ./.cgisnap -prune -o \( -type f -o -type l \) -printf '%P\n' | LC_ALL=C sort); }
LINK_MSG="'x' is a symbolic link: cgisnap never writes or removes through one"

try "pruning never follows a symbolic link out of the tree (the outside file survives)"
T=$TESTDIR/t1
snap --seed /x/page/ "$T" 2>/dev/null
check_eq 0 $? "first snapshot"
check_file "$T/x/page/index.html"
mkdir -p "$TESTDIR/outside/page"
printf 'precious\n' >"$TESTDIR/outside/page/index.html"
rm -rf "$T/x"
ln -s "$TESTDIR/outside" "$T/x"
err=$(snap --seed /other.html "$T" 2>&1)
check_eq 0 $? "exit status"
check_eq "precious" "$(cat "$TESTDIR/outside/page/index.html")" "the file outside the tree"
check_contains "$err" "0 removed" "summary"
check_contains "$err" "warning: not removing 'x/page/index.html': $LINK_MSG" "the link is named"

try "publishing never writes through a symbolic link"
err=$(snap --seed /x/page/ "$T" 2>&1)
check_eq 1 $? "exit status"
check_contains "$err" "failed: /x/page/: $LINK_MSG" "the URL fails naming the link"
check_eq "precious" "$(cat "$TESTDIR/outside/page/index.html")" "the file outside the tree"
check_eq "page" "$(ls "$TESTDIR/outside")" "nothing new outside"

try "a non-empty directory that is not a tree is refused with exit 2, nothing written"
D=$TESTDIR/users
mkdir -p "$D"
printf 'my own page\n' >"$D/index.html"
err=$(snap "$D" 2>&1)
check_eq 2 $? "exit status"
check_eq "cgisnap: error: '$D' is not empty and not a cgisnap tree (use --force to adopt it)" "$err" "message"
check_eq "index.html" "$(ls -A "$D")" "nothing written"
mkdir -p "$TESTDIR/empty"
snap --seed /other.html "$TESTDIR/empty" 2>/dev/null
check_eq 0 $? "an empty directory is claimed"
snap --seed /other.html "$TESTDIR/empty" 2>/dev/null
check_eq 0 $? "and is a tree from then on"

try "--force adopts a directory; the user's files are neither overwritten nor pruned"
printf 'my notes\n' >"$D/notes.txt"
err=$(snap --force "$D" 2>&1)
check_eq 1 $? "exit status: the URL whose file is the user's fails"
check_contains "$err" "failed: /: 'index.html' was not published by cgisnap: not overwriting it" "reason"
check_eq "my own page" "$(cat "$D/index.html")" "the user's page"
check_file "$D/a.html" "the other pages are stored"
snap --seed /other.html "$D" 2>/dev/null
check_eq 0 $? "a later complete run"
check_eq "my own page" "$(cat "$D/index.html")" "the user's page is not pruned"
check_eq "my notes" "$(cat "$D/notes.txt")" "nor their other files"
check_no_file "$D/a.html" "cgisnap's own pages are"

try "the tree may not be or lie inside the document root"
err=$(snap "$SITE" 2>&1)
check_eq 2 $? "the root itself"
check_eq "cgisnap: error: the tree '$SITE' is inside the document root '$SITE': cgisnap does not write into the site" "$err" "message"
err=$(snap "$SITE/out/deeper" 2>&1)
check_eq 2 $? "a directory under the root, not there yet"
check_contains "$err" "the tree '$SITE/out/deeper' is inside the document root" "message"
check_no_file "$SITE/out" "nothing created in the site"
ln -s "$SITE" "$TESTDIR/site-link"
err=$(snap "$TESTDIR/site-link/x/../out" 2>&1)
check_eq 2 $? "through a symbolic link and '..'"
err=$(snap --force "$SITE" 2>&1)
check_eq 2 $? "--force does not change that"
check_eq "#!/bin/sh" "$(head -1 "$SITE/ok.sh")" "the site's script is intact"
err=$("$CGISNAP" snapshot --root "$SITE/x" --seed /page/ "$SITE" 2>&1)
check_eq 2 $? "a tree around the root"
check_contains "$err" "the document root '$SITE/x' is inside the tree '$SITE'" "message"

try "a published file the user changed is neither overwritten nor pruned"
T=$TESTDIR/t6
snap --seed /a.html --seed /b.html "$T" 2>/dev/null
check_eq 0 $? "first snapshot"
printf 'edited by hand\n' >"$T/b.html"
err=$(snap --seed /a.html --seed /b.html "$T" 2>&1)
check_eq 1 $? "exit status"
check_contains "$err" "failed: /b.html: 'b.html' was changed since cgisnap published it: not overwriting it" "reason"
check_eq "edited by hand" "$(cat "$T/b.html")" "not overwritten"
err=$(snap --seed /a.html "$T" 2>&1)
check_eq 0 $? "a complete run without /b.html"
check_contains "$err" "warning: not removing 'b.html': it was changed since cgisnap published it" "warned"
check_eq "edited by hand" "$(cat "$T/b.html")" "not pruned"
err=$(snap --seed /a.html "$T" 2>&1)
check_not_contains "$err" "b.html" "warned once: the file is no longer cgisnap's"
check_file "$T/b.html" "and stays"

try "kill -9 mid-crawl: the next run knows the interrupted run's files and prunes them"
MARK=$TESTDIR/slow.pid
for i in 1 2 3 4 5; do printf '<p>k%s</p>\n' "$i" >"$SITE/k/k$i.html"; done
{
	printf '<html><body>'
	for i in 1 2 3 4 5; do printf '<a href="/k/k%s.html">k%s</a> ' "$i" "$i"; done
	printf '<a href="/k/slow.cgi">slow</a></body></html>\n'
} >"$SITE/k/index.html"
# The last page announces itself and hangs until killed: by then the five
# pages before it (one worker, in link order) are published.
printf '#!/bin/sh\necho $$ >"%s.tmp" && mv "%s.tmp" "%s"\nexec sleep 60\n' "$MARK" "$MARK" "$MARK" >"$SITE/k/slow.cgi"
chmod +x "$SITE/k/slow.cgi"
T=$TESTDIR/t7
"$CGISNAP" snapshot --root "$SITE" -j 1 --seed /k/ "$T" 2>/dev/null &
snap_pid=$!
wait_until 30 test -s "$MARK" || fail "the crawl never reached the slow page"
{
	kill -9 "$snap_pid"
	wait "$snap_pid"
} 2>/dev/null # no "Killed" line from the shell
kill "$(cat "$MARK")" 2>/dev/null
check_file "$T/k/k5.html" "the interrupted run published pages"
check_eq 0 "$(tree_sql "$T" "SELECT count(*) FROM url")" "but saved no manifest"
check_eq 6 "$(tree_sql "$T" "SELECT line FROM pending" | grep -c '^/k/')" "each publish is pending"
err=$(snap --seed /other.html "$T" 2>&1)
check_eq 0 $? "exit status"
check_contains "$err" "recorded 6 files an interrupted run had published" "recovery reported"
check_contains "$err" "6 removed" "pruned"
check_no_file "$T/k" "no file of the interrupted run is left"
check_eq "$(printf 'other.html')" "$(tree_files "$T")" "the tree holds what the manifest says"
check_eq 0 "$(tree_sql "$T" "SELECT count(*) FROM pending")" "the pending rows go once the manifest is saved"
rm -f "$SITE/k/slow.cgi"

try "temp files a writer that died left where no pending row leads go with the next writer; a clean end leaves none to go"
T=$TESTDIR/t7b
snap --seed /x/page/ "$T" 2>/dev/null
check_eq 0 $? "snapshot"
check_eq "" "$(cat "$T/.cgisnap/lock")" "the lock file of a writer that ended is empty"
# As kill -9 during a .gz repaired beside an unchanged page leaves them
# (no pending row): its pid in the lock, temps deep in the tree and in
# .cgisnap; and a dotfile of the user's that only looks alike.
echo 999999 >"$T/.cgisnap/lock"
echo half >"$T/x/page/.cgisnap-tmp-999999-1"
echo half >"$T/.cgisnap/.cgisnap-tmp-999999-2"
mkdir "$T/x/page/.cgisnap-tmp-dir"
snap --seed /x/page/ "$T" 2>/dev/null
check_eq 0 $? "the next snapshot"
check_no_file "$T/x/page/.cgisnap-tmp-999999-1"
check_no_file "$T/.cgisnap/.cgisnap-tmp-999999-2"
check_eq "" "$(find "$T" -name '.cgisnap-tmp-*' -type f)" "temp files left"
check_eq yes "$([ -d "$T/x/page/.cgisnap-tmp-dir" ] && echo yes)" "a directory so named (no temp of cgisnap's) stays"
echo half >"$T/x/page/.cgisnap-tmp-999999-3" # after a clean end: no one's to clean
snap --seed /x/page/ "$T" 2>/dev/null
check_file "$T/x/page/.cgisnap-tmp-999999-3"
rm -rf "$T/x/page/.cgisnap-tmp-999999-3" "$T/x/page/.cgisnap-tmp-dir"

try "a full disk (here EFBIG from ulimit -f) leaves every published file recorded"
for i in $(seq 1 60); do printf '<p>page number %s of the e section</p>\n' "$i" >"$SITE/e/page-with-a-long-name-$i.html"; done
for i in $(seq 1 3000); do echo "<p>line $i of a page too big for the file size limit</p>"; done >"$SITE/e/big.html"
{
	printf '<html><body><a href="/e/big.html">big</a>\n'
	for i in $(seq 1 60); do printf '<a href="/e/page-with-a-long-name-%s.html">%s</a>\n' "$i" "$i"; done
	printf '</body></html>\n'
} >"$SITE/e/index.html"
T=$TESTDIR/t8
# A file may not grow past 64 KiB: the big page and, after a while, the
# database's write-ahead log (each pending row's commit adds a page to it)
# fail with EFBIG (SIGXFSZ ignored).
err=$( (trap '' XFSZ; ulimit -f 64; exec "$CGISNAP" snapshot --root "$SITE" -j 1 --seed /e/ "$T") 2>&1)
check_eq 1 $? "exit status"
check_contains "$err" "File too large" "the writes failed"
published=$(tree_files "$T")
check_ne "" "$published" "some pages were published before"
check_contains "$err" "cannot record" "and then the database"
# Recorded: a key of the manifest (when it could still be saved) or of
# a pending row; a .gz goes with its page.
recorded=$(cat <("$CGISNAP" ls "$T") <(tree_sql "$T" "SELECT line FROM pending") 2>/dev/null | cut -f2)
unrecorded=$(for f in $published; do printf '%s\n' "$recorded" | grep -qxF "${f%.gz}" || echo "$f"; done)
check_eq "" "$unrecorded" "published files neither in the manifest nor pending"
check_no_file "$T/e/big.html" "the page that could not be written"
check_eq "" "$(find "$T" -name '.cgisnap-tmp-*')" "no temp file left"
err=$(snap --seed /other.html "$T" 2>&1)
check_eq 0 $? "the next run"
check_eq "other.html" "$(tree_files "$T")" "every file of the failed run pruned"

# recorded_now: the pending rows, then the manifest (in that order: a save
# between the two has the row in the manifest before it deletes the pending one).
recorded_now() { tree_sql "$T" "SELECT line FROM pending"; "$CGISNAP" ls "$T"; }

try "serve --fill records each stored page as pending before answering"
T=$TESTDIR/t9
snap --seed /other.html "$T" 2>/dev/null
P=$(port 0)
serve_start "$T" "$P" --fallback --fill --root "$SITE"
check_eq "<p>a</p>" "$(curl -s "http://127.0.0.1:$P/a.html")" "filled from the origin"
# Recorded at once: pending, or already in the manifest its
# once-a-second save wrote (which deletes the pending rows).
check_contains "$(recorded_now)" "/a.html	a.html	200" "recorded"
# A static file is hashed too: ownership is checked by size and sha256.
sha=$(sha256sum "$SITE/a.html" | cut -d' ' -f1)
check_eq "$sha" "$(recorded_now | awk -F'\t' '$1 == "/a.html" { print $6; exit }')" "sha256 recorded"
bg_stop "$SERVE_PID" KILL
err=$(snap --seed /other.html "$T" 2>&1)
check_eq 0 $? "the next snapshot"
check_no_file "$T/a.html" "the filled page is known and pruned"

try "serve --fill replays the pending rows an interrupted run left, then deletes them"
T=$TESTDIR/t10
snap --seed / "$T" 2>/dev/null
# As a run killed between publishing /a.html and saving would leave it:
# the file is there, its row is pending and not in the manifest.
line=$(grep -P '^/a\.html\t' <("$CGISNAP" ls "$T"))
check_ne "" "$line" "manifest line of /a.html"
tree_sql "$T" "DELETE FROM url WHERE target = ?" /a.html
tree_sql "$T" "INSERT INTO pending (line) VALUES (?)" "$line"
P=$(port 1)
: >"$TESTDIR/server.err"
serve_start "$T" "$P" --fallback --fill --root "$SITE"
check_contains "$(cat "$TESTDIR/server.err")" "recorded 1 files an interrupted run had published" "replayed"
_pending_gone() { [ "$(tree_sql "$T" "SELECT count(*) FROM pending")" = 0 ]; }
wait_until 10 _pending_gone
check_eq 0 $? "the pending rows go once the manifest is saved"
check_contains "$("$CGISNAP" ls "$T")" "$line" "the manifest records /a.html again"
bg_stop "$SERVE_PID"

finish
