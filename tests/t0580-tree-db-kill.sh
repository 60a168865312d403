#!/usr/bin/env bash
# t0580-tree-db-kill: kill -9 of watch in the middle of a batch (its files
# published, each committed to tree.db as pending first, the manifest not
# yet saved: the test hook CGISNAP_TEST_PAUSE_BATCH holds it there), and
# of snapshot in the middle of a crawl: the next run records what was
# published, and the tree ends equal to a fresh snapshot's, no unchanged
# file rewritten.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-watch.sh"

watch_wiki_test 20
HOLD=$TESTDIR/hold
P=$(wiki_pages "$SITE" howto | head -1)
mapfile -t ARGS < <(watch_wiki_args "$SITE")
ARGS+=(--exclude 'do=(backlink|index|recent)')

# row TREE TARGET: the sha256 column tree.db holds for TARGET.
row() { manifest_field "$1" "$2" 6; }
# deps TREE TARGET: the dependency sets tree.db holds for TARGET, a line each.
deps() {
	tree_sql "$1" "SELECT s.kind || ' ' || p.path || ' ' || replace(s.names, char(10), ' ') FROM url u
		JOIN url_dep d ON d.url_id = u.id JOIN depset s ON s.id = d.set_id JOIN dir p ON p.id = s.dir_id
		WHERE u.target = ? ORDER BY 1" "$2"
}
# only_p_changed BEFORE WHAT: since the mtimes BEFORE, only P's file and its .gz changed.
only_p_changed() {
	local changed
	changed=$(diff <(printf '%s\n' "$1") <(tree_mtimes "$OUT") | grep '^>' | cut -d' ' -f2)
	check_eq "$(printf '%s\n' "$key" "$key.gz")" "$changed" "$2"
}
# follows MARKER: an edit of P's source (watch running) is published.
follows() {
	printf '\n%s\n' "$1" >>"$(wiki_file "$SITE" "$P")"
	wait_file_has "$OUT/$key" "$1"
	check_eq 0 $? "an edit of P's source is published ($1)"
}
# kill_at HOOK FILE MARKER [NEWFILE LINK]: watch with the test hook
# HOOK=FILE, an edit of P's source (MARKER, and LINK to NEWFILE's page)
# and, with NEWFILE, a page source made beside it, kill -9 once the batch holds there; sets before (the tree's
# mtimes before the edit).
kill_at() {
	local hook=$1
	export "$hook=$2"
	watch_start "$LOG" "${ARGS[@]}" "$OUT"
	check_eq 0 $? "watch came up (no initial crawl to pause)"
	unset "$hook"
	before=$(tree_mtimes "$OUT")
	[ -z "${4:-}" ] || printf 'A page new to the tree.\n' >"$4"
	printf '\n%s\n%s\n' "$3" "${5:-}" >>"$(wiki_file "$SITE" "$P")"
	wait_until "$WATCH_WAIT" test -e "$2.paused"
	check_eq 0 $? "the batch paused at $hook"
	watch_stop KILL
	check_contains "$(cat "$OUT/$key")" "$3" "P's page was published"
}
# fresh_compare TREE: snapshot the site afresh and compare the trees' files.
fresh_compare() {
	rm -rf "$TESTDIR/fresh"
	snap_wiki "$SITE" "$TESTDIR/fresh" --exclude 'do=(backlink|index|recent)' 2>/dev/null
	check_eq "" "$(tree_diff_from "$TESTDIR/fresh" "$1")" "files as a fresh snapshot's"
	check_eq "" "$(tree_diff_from "$1" "$TESTDIR/fresh")" "no file a fresh snapshot lacks"
}

try "watch killed with -9 after publishing a batch, before saving it"
watch_start "$LOG" "${ARGS[@]}" "$OUT"
check_eq 0 $? "watch came up"
watch_stop
key=$(manifest_field "$OUT" "/doku.php?id=$P" 2)
old_sha=$(row "$OUT" "/doku.php?id=$P")
old_deps=$(deps "$OUT" "/doku.php?id=$P")
check_contains "$old_deps" "$(basename "$(wiki_file "$SITE" "$P")")" "P's row records its source"
kill_at CGISNAP_TEST_PAUSE_BATCH "$HOLD" "Killed batch marker."
check_eq "$old_sha" "$(row "$OUT" "/doku.php?id=$P")" "its row was not saved"
check_ne 0 "$(tree_sql "$OUT" "SELECT count(*) FROM pending")" "its pending row was committed"

try "the next watch records it and ends equal to a fresh snapshot, rewriting nothing else"
: >"$LOG"
watch_start "$LOG" "${ARGS[@]}" "$OUT"
check_eq 0 $? "watch came up"
watch_stop
check_eq "$(sha256sum <"$OUT/$key" | cut -d' ' -f1)" "$(row "$OUT" "/doku.php?id=$P")" "P's row records the published bytes"
check_eq 0 "$(tree_sql "$OUT" "SELECT count(*) FROM pending")" "nothing pending"
echo "# the restart: $(grep -E "initial snapshot" "$LOG")"
only_p_changed "$before" "only P's file (and its .gz) changed since the kill's batch began"
fresh_compare "$OUT"
check_eq "$old_deps" "$(deps "$OUT" "/doku.php?id=$P")" "P's recovered row keeps its dependencies"

try "after the restart, an edit of the recovered page's source is followed"
watch_start "$LOG" "${ARGS[@]}" "$OUT"
check_eq 0 $? "watch came up"
follows "After restart marker."
watch_stop
fresh_compare "$OUT"

try "watch killed with -9 after saving a batch, before removing its pending rows"
kill_at CGISNAP_TEST_PAUSE_SAVED "$HOLD.saved" "Killed after save marker."
check_eq "$(sha256sum <"$OUT/$key" | cut -d' ' -f1)" "$(row "$OUT" "/doku.php?id=$P")" "its row was saved"
check_ne 0 "$(tree_sql "$OUT" "SELECT count(*) FROM pending")" "its pending row is still there"
saved_deps=$(deps "$OUT" "/doku.php?id=$P")
check_contains "$saved_deps" "$(basename "$(wiki_file "$SITE" "$P")")" "the saved row records P's source"
watch_start "$LOG" "${ARGS[@]}" "$OUT"
check_eq 0 $? "watch came up again"
check_eq 0 "$(tree_sql "$OUT" "SELECT count(*) FROM pending")" "nothing pending"
check_eq "$saved_deps" "$(deps "$OUT" "/doku.php?id=$P")" "the replayed row keeps the dependencies"
only_p_changed "$before" "only P's file (and its .gz) changed"
follows "After second restart marker."
watch_stop
fresh_compare "$OUT"

try "watch killed with -9 before saving a batch that published a page new to the tree"
N=howto:recovered_new_page
NKEY=$(wiki_key "$N")
kill_at CGISNAP_TEST_PAUSE_BATCH "$HOLD.new" "Killed with a new page marker." "$(wiki_file "$SITE" "$N")" "[[$N]]"
check_contains "$(cat "$OUT/$NKEY" 2>/dev/null)" "A page new to the tree." "the new page was published"
check_eq "" "$(manifest_field "$OUT" "/doku.php?id=$N" 2)" "it has no row yet"
watch_start "$LOG" "${ARGS[@]}" "$OUT"
check_eq 0 $? "watch came up again"
check_contains "$(cat "$LOG")" "rendering again 1 page an interrupted run published" "the restart renders it again"
wait_output deps "$OUT" "/doku.php?id=$N"
check_eq 0 $? "its row records what it read"
printf '\nNew page edited after the restart.\n' >>"$(wiki_file "$SITE" "$N")"
wait_file_has "$OUT/$NKEY" "New page edited after the restart."
check_eq 0 $? "an edit of its source after the restart is published"
watch_stop
fresh_compare "$OUT"

try "snapshot killed with -9 mid-crawl, then run again"
S=$TESTDIR/snap
_snap_paused() { CGISNAP_TEST_PAUSE_BATCH=$HOLD.snap exec "$CGISNAP" snapshot --root "$SITE" --cgi php=php-cgi \
	--site-url http://localhost:8080/ --strip "$WIKI_STRIP" --robots-meta ignore --not-found '/doku.php?id=cgisnap:no-such-page' \
	--exclude 'do=(backlink|index|recent)' "$S" 2>"$TESTDIR/snap.err"; }
bg_start _snap_paused
SNAP_PID=$BG_PID
wait_until 120 test -e "$HOLD.snap.paused"
check_eq 0 $? "the crawl paused before its save"
bg_stop "$SNAP_PID" KILL
check_ne 0 "$(tree_sql "$S" "SELECT count(*) FROM pending")" "its publishes are pending"
check_eq 0 "$(tree_sql "$S" "SELECT count(*) FROM url")" "no row saved"
before=$(tree_mtimes "$S")
snap_wiki "$SITE" "$S" --exclude 'do=(backlink|index|recent)' 2>"$TESTDIR/snap2.err"
check_eq 0 $? "exit status"
check_contains "$(cat "$TESTDIR/snap2.err")" "(0 new, 0 changed," "the second run found every file recorded and the same"
check_eq "$before" "$(tree_mtimes "$S")" "no file rewritten"
check_eq 0 "$(tree_sql "$S" "SELECT count(*) FROM pending")" "nothing pending"
fresh_compare "$S"

finish
