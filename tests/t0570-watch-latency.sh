#!/usr/bin/env bash
# t0570-watch-latency: when watch starts a batch, on a tiny PHP site
# whose index lists the items' directory (so an editor's temporary file
# there would start a batch of its own) and whose slow page sleeps 1 s
# while a flag file exists. Behaviour, never wall time: the -v log line
# "batch due ..." says why each batch started, and --debounce is set to
# 30 s, so a batch that waited for it would say so (and come late).
#   - the first change after quiet starts its batch at once;
#   - a change made while a batch renders is published by the next batch
#     (the render that read the file while it changed is held, not
#     published: watch/stale.h);
#   - editor saves (sed -i, vim, gedit's .goutputstream rename, a
#     write-temp-then-rename) are one batch each;
#   - several quick writes to one file end in the last one published;
#   - a save that may still be under way (a file removed) waits out the
#     settle window only.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-watch.sh"

watch_test_dirs site
EXECLOG=$TESTDIR/exec.log
CONTENTS=$TESTDIR/contents
MARK=$TESTDIR/mark
# The tiny site of tests/fixtures/watch-site; with SLOW_WHEN=flag, while
# $MARK_DIR/slow exists its slow page says so in $MARK_DIR/rendering and
# takes a second (the flag is outside the sources: no change).
watch_site "$SITE" "$MARK"
for n in d e; do echo "item $n" >"$SITE/data/items/$n.txt"; done
echo "slow zero" >"$SITE/data/slow.txt"
# The hook records each published file's content, batch by batch.
HOOK="sed '/^\\.cgisnap\\//d' | while read -r f; do printf '%s: %s\n' \"\$f\" \"\$(sed -n 's/.*<p>\\(.*\\)<\\/p>.*/\\1/p' \"\$f\")\"; done >> '$CONTENTS'; echo ---- >> '$CONTENTS'"

# item_key N: the tree file of item N.
item_key() { manifest_field "$OUT" "/item.php?n=$1" 2; }
# last_due: the reason of the latest batch's start.
last_due() { grep '^cgisnap: debug: batch due ' "$LOG" | tail -1; }
# settle_on N TEXT: write TEXT to item N (a later batch than every change
# before) and wait until it is published: all before it is handled.
settle_on() {
	printf '%s\n' "$2" >"$SITE/data/items/$1.txt"
	wait_file_has "$OUT/$(item_key "$1")" "$2"
}

try "the fixture is snapshotted and watched, --debounce 30 s"
watch_start "$LOG" --root "$SITE" --cgi php=php-cgi --env "MARK_DIR=$MARK" --env SLOW_WHEN=flag -j 2 \
	--source "$SITE/data" --debounce 30000 -v --exec "$HOOK" "$OUT"
check_eq 0 $? "watch came up"
check_contains "$(cat "$LOG")" "(dependencies traced)" "watching line"
check_file "$OUT/$(item_key a)" "item a"
check_contains "$("$CGISNAP" ls --deps "$OUT")" "/	L	$SITE/data/items" "the index listed the items"

try "the first change after quiet starts its batch at once"
n=$(batches "$LOG")
echo "item a, edited" >"$SITE/data/items/a.txt"
wait_file_has "$OUT/$(item_key a)" "item a, edited"
check_eq 0 $? "published"
wait_batches "$LOG" $((n + 1))
check_match "$(last_due)" "^cgisnap: debug: batch due at once: no save under way, [0-9]+ ms after its first change, 0 paths left open$" "why it started"
check_match "$(grep '^cgisnap: batch: ' "$LOG" | tail -1)" \
	"^cgisnap: batch: 1 changed \($SITE/data/items/a.txt\): 1 URL re-rendered, 1 file changed, 0 removed, [0-9]+ ms$" "batch line"

try "a change made while a batch renders is published by the next batch"
# The last batch's hook runs after its batch line: it ends before this.
watch_idle "$OUT"
: >"$CONTENTS"
SLOW=$(manifest_field "$OUT" /slow.php 2)
n=$(batches "$LOG")
touch "$MARK/slow"
rm -f "$MARK/rendering"
echo "slow one" >"$SITE/data/slow.txt"
wait_until "$WATCH_WAIT" test -e "$MARK/rendering"
check_eq 0 $? "the first render is under way"
echo "slow two, final" >"$SITE/data/slow.txt"
rm -f "$MARK/slow"
wait_file_has "$OUT/$SLOW" "slow two, final"
check_eq 0 $? "the change made during the render is published"
wait_batches "$LOG" $((n + 2))
check_eq $((n + 2)) "$(batches "$LOG")" "two batches"
wait_count "$CONTENTS" '^----$' 2
# The first render read slow.txt while it was rewritten: its page is held
# (it might have read half of it): the batch wrote no page (its hook had
# only the manifest to copy).
check_match "$(grep '^cgisnap: batch: ' "$LOG" | tail -2 | head -1)" ", 1 held \(a source was being written\)" \
	"the first batch held the page"
check_eq "----
$SLOW: slow two, final
----" "$(cat "$CONTENTS")" "what each batch published"
check_eq "slow two, final" "$(sed -n 's/.*<p>\(.*\)<\/p>.*/\1/p' "$OUT/$SLOW")" "the tree's file"

# save_is_one_batch NAME CMD...: run the editor command that saves item b
# with new text, and check that its save was one batch: the page shows it,
# and the marker change after it is the batch right after.
save_is_one_batch() {
	local name=$1 text n
	shift
	text=$(printf 'item b, saved by %s' "$name")
	n=$(batches "$LOG")
	"$@"
	wait_file_has "$OUT/$(item_key b)" "$text"
	check_eq 0 $? "$name: published"
	settle_on e "item e, after $name"
	check_eq 0 $? "$name: the marker after it published"
	wait_batches "$LOG" $((n + 2)) # the line comes after the files
	check_eq $((n + 2)) "$(batches "$LOG")" "$name: batches for the save and the marker"
	check_match "$(grep '^cgisnap: batch: ' "$LOG" | tail -2 | head -1)" \
		"^cgisnap: batch: [0-9]+ changed \(.*$SITE/data/items/b.txt.*\): [0-9]+ URLs? re-rendered" "$name: its batch line"
}

try "sed -i (a temporary sedXXXXXX renamed over the file) is one batch"
save_is_one_batch "sed" sed -i 's/^.*$/item b, saved by sed/' "$SITE/data/items/b.txt"

try "gedit's save (.goutputstream-XXXXXX renamed over the file) is one batch"
gedit_save() {
	php -r '$d = dirname($argv[1]); $t = "$d/.goutputstream-" . substr(md5(uniqid()), 0, 6);
		file_put_contents($t, "item b, saved by gedit\n"); rename($t, $argv[1]);' "$SITE/data/items/b.txt"
}
save_is_one_batch "gedit" gedit_save

try "vim's save (the 4913 probe, the file renamed to its backup, written anew) is one batch"
vim_steps() {
	# what vim 9 does with 'writebackup' and backupcopy=auto, in one process
	php -r '$f = $argv[1]; $d = dirname($f);
		$p = fopen("$d/4913", "x"); fclose($p); unlink("$d/4913");
		rename($f, "$f~"); file_put_contents($f, "item b, saved by vim steps in php\n"); chmod($f, 0644);
		unlink("$f~");' "$SITE/data/items/b.txt"
}
save_is_one_batch "vim steps in php" vim_steps
if command -v vim >/dev/null; then
	# vim_save HOW SETTINGS: the real vim saves b: it renames the file to
	# its backup b.txt~, writes it anew and removes the backup (auto: after
	# its 4913 probe). backupskip's default skips /tmp/*, where TESTDIR is.
	vim_save() {
		HOME=$TESTDIR vim -u NONE -i NONE -N -n -es -c "set backupskip= writebackup $2" -c "%s/.*/item b, saved by $1/" -c 'wq' \
			"$SITE/data/items/b.txt" </dev/null >/dev/null 2>&1
	}
	save_is_one_batch "real vim" vim_save "real vim" "backupcopy=auto"
	save_is_one_batch "real vim, no probe" vim_save "real vim, no probe" "backupcopy=no"
else
	echo "# skipped: no vim (the same steps were taken by php)"
fi

try "several quick writes to one file end in the last one published"
n=$(batches "$LOG")
for i in $(seq 1 30); do printf 'item c, write %d\n' "$i" >"$SITE/data/items/c.txt"; done
wait_file_has "$OUT/$(item_key c)" "item c, write 30"
check_eq 0 $? "the last write published"
settle_on e "item e, after the writes"
check_eq "item c, write 30" "$(sed -n 's/.*<p>\(.*\)<\/p>.*/\1/p' "$OUT/$(item_key c)")" "and still there"
check_le "$(($(batches "$LOG") - n))" 31 "batches"

try "a removal (a save may follow) waits out the settle window, not --debounce"
# The last page's batch line comes after its file: counted with it.
watch_idle "$OUT"
n=$(batches "$LOG")
rm "$SITE/data/items/d.txt"
wait_gone "$OUT/$(item_key d)"
check_eq 0 $? "item d left the tree"
wait_batches "$LOG" $((n + 1))
check_match "$(last_due)" "^cgisnap: debug: batch due after the settle window: a save may have been under way, [0-9]+ ms after its first change, 1 path left open$" "why it started"
check_eq $((n + 1)) "$(batches "$LOG")" "one batch"

watch_stop_ok

finish
