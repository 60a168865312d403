#!/usr/bin/env bash
# t0563-watch-exec-mirror: watch --exec keeps a mirror exact. The hook is
# docs/watch.md's rsync example: 'rsync -a -I --files-from=-' of what the batch
# wrote (stdin), then rm -f / rmdir of what it removed ($CGISNAP_REMOVED).
# After edits, deletions and renames (pages whose .gz comes and goes,
# directories emptied) the mirror equals the tree byte for byte, .gz files
# and the .cgisnap/ files serve and nginx read included, and nothing else
# of .cgisnap/ is on it. Once through a static site (every change a full
# re-crawl), once through the sample wiki on php-cgi, traced.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"
. "$(dirname "$0")/lib-watch.sh"

command -v rsync >/dev/null || fail "rsync is missing (tools/deps.sh test installs it)"
command -v rclone >/dev/null || fail "rclone is missing (tools/deps.sh test installs it)"
# rclone without a configuration file says so on every run.
export RCLONE_CONFIG=/dev/null

# The hook, as a script: "start" and "done" lines around docs/watch.md's
# commands, so that a test knows when a batch's mirroring has finished.
HOOK=$TESTDIR/mirror-hook
# With a third argument, docs/watch.md's rclone commands mirror there too
# (a local directory as the remote; rmdirs does what a bucket needs not).
cat >"$HOOK" <<'EOF'
#!/bin/sh
m=$1 log=$2 r=${3:-}
echo start >>"$log"
cat "$CGISNAP_WRITTEN" >>"$log.written"
cat "$CGISNAP_REMOVED" >>"$log.removed"
if [ -n "$r" ]; then
	rclone -q copy --files-from "$CGISNAP_WRITTEN" . "$r" &&
		grep -v "/\$" "$CGISNAP_REMOVED" | rclone -q delete --files-from - "$r" &&
		rclone -q rmdirs --leave-root "$r" || exit 1
fi
rsync -a -I --files-from=- . "$m/" || exit 1
while IFS= read -r p; do
	case $p in
	*/) rmdir -- "$m/$p" ;;
	*) rm -f -- "$m/$p" ;;
	esac
done <"$CGISNAP_REMOVED"
echo done >>"$log"
EOF
chmod +x "$HOOK"

# mirror_same TREE MIRROR: prints every difference (none: the same).
mirror_same() {
	diff -r --no-dereference --exclude=.cgisnap "$1" "$2" 2>&1
	local f
	for f in tree.db settings 404.html; do
		if [ -e "$1/.cgisnap/$f" ]; then
			cmp "$1/.cgisnap/$f" "$2/.cgisnap/$f" 2>&1
		fi
	done
	(cd "$1/.cgisnap" && ls -A tree.db settings 404.html 2>/dev/null) >"$TESTDIR/meta.want"
	ls -A "$2/.cgisnap" | diff "$TESTDIR/meta.want" - | sed 's/^/.cgisnap: /'
}

_mirrored() {
	grep -qF -- "$3" "$1" 2>/dev/null && [ "$(tail -n 1 "$2")" = done ]
}

# mirror_settle FILE TOKEN MIRROR LOG: wait until the mirror's FILE holds
# TOKEN and the hook that copied it has finished: every change made before
# TOKEN was written has been mirrored.
mirror_settle() {
	wait_until "$WATCH_WAIT" _mirrored "$3/$1" "$4" "$2"
}

# ---------------------------------------------------------------- static
SITE=$TESTDIR/site
OUT=$TESTDIR/out
M=$TESTDIR/mirror
RM=$TESTDIR/rclone-mirror
LOG=$TESTDIR/watch.log
HLOG=$TESTDIR/hook.log
mkdir -p "$SITE/sec/deep" "$M" "$RM"
big() { # big FILE WORD: over PUBLISH_GZIP_MIN, so it gets a .gz
	# written aside and renamed in, as an editor saves: a batch that starts
	# between two writes never reads half a page
	for i in $(seq 1 80); do printf '<p>%s line %d of a long page</p>\n' "$2" "$i"; done >"$1.tmp~"
	mv "$1.tmp~" "$1"
}
index() { # the front page links to each of "$@"
	{ for p in "$@"; do printf '<a href="%s">%s</a>\n' "$p" "$p"; done; } >"$SITE/index.html"
}
big "$SITE/big.html" first
big "$SITE/sec/a.html" a-first
printf 'deep\n' >"$SITE/sec/deep/b.html"
printf 'to be moved\n' >"$SITE/move.html"
printf 'sentinel 0\n' >"$SITE/sentinel.html"
index big.html sec/a.html sec/deep/b.html move.html sentinel.html
n=0
settle_static() {
	n=$((n + 1))
	printf 'sentinel %s\n' "$n" >"$SITE/sentinel.html"
	mirror_settle sentinel.html "sentinel $n" "$M" "$HLOG"
}

try "the initial snapshot is mirrored whole into an empty directory"
watch_start "$LOG" --root "$SITE" --source "$SITE" --no-trace --exec "'$HOOK' '$M' '$HLOG' '$RM'" "$OUT"
check_eq 0 $? "watch came up: $(cat "$LOG")"
wait_until "$WATCH_WAIT" grep -qx done "$HLOG"
check_eq 0 $? "the hook ran after the initial snapshot"
check_file "$OUT/big.html.gz" "a .gz in the tree"
check_file "$M/big.html.gz" "and on the mirror"
check_eq "" "$(mirror_same "$OUT" "$M")" "differences"
check_contains "$(cat "$HLOG.written")" ".cgisnap/tree.db" "the manifest is listed"
check_contains "$(cat "$HLOG.written")" ".cgisnap/settings" "the settings are listed"
check_not_contains "$(cat "$HLOG.written")" ".cgisnap/deps" "watch's own files are not"

try "edits: pages and their .gz rewritten on the mirror"
big "$SITE/big.html" second
big "$SITE/sec/a.html" a-second
settle_static
check_eq 0 $? "settled: $(tail -3 "$LOG")"
check_contains "$(zcat "$M/big.html.gz")" "second line 80" "the mirror's .gz is the new page"
check_eq "" "$(mirror_same "$OUT" "$M")" "differences"

try "deletions: a page and the directory it leaves empty go; a page that shrank loses its .gz"
rm "$SITE/sec/deep/b.html"
rmdir "$SITE/sec/deep"
printf 'small now\n' >"$SITE/big.html"
index big.html sec/a.html move.html sentinel.html
settle_static
check_eq 0 $? "settled: $(tail -3 "$LOG")"
check_no_file "$OUT/sec/deep" "the tree lost sec/deep"
check_no_file "$M/sec/deep" "so did the mirror"
check_no_file "$M/big.html.gz" "the stale .gz is gone from the mirror"
check_contains "$(cat "$HLOG.removed")" "sec/deep/" "the directory was listed as removed"
check_eq "" "$(mirror_same "$OUT" "$M")" "differences"

try "renames: the old file and its directory go, the new one comes"
mkdir -p "$SITE/moved"
mv "$SITE/move.html" "$SITE/moved/here.html"
mv "$SITE/sec/a.html" "$SITE/a-top.html"
rmdir "$SITE/sec"
index big.html a-top.html moved/here.html sentinel.html
settle_static
check_eq 0 $? "settled: $(tail -3 "$LOG")"
check_file "$M/moved/here.html" "the new name"
check_file "$M/a-top.html.gz" "with its .gz"
check_no_file "$M/move.html" "the old name"
check_no_file "$M/sec" "the emptied directory"
check_eq "" "$(mirror_same "$OUT" "$M")" "differences"
check_eq "" "$(mirror_same "$OUT" "$RM")" "differences of the rclone mirror"
watch_stop
check_eq 0 "$WATCH_STATUS" "watch stopped cleanly"

# ------------------------------------------------------------------ wiki
WSITE=$TESTDIR/wiki
WOUT=$TESTDIR/wout
WM=$TESTDIR/wmirror
WLOG=$TESTDIR/wwatch.log
WHLOG=$TESTDIR/whook.log
mkdir -p "$WM"
seed_wiki "$WSITE" 30
pages_in() {
	(cd "$WSITE/data/pages" && find "$1" -name '*.txt' ! -name start.txt | sed 's/\.txt$//; s|/|:|g' | LC_ALL=C sort)
}
P=$(pages_in howto | head -1)
Q=$(pages_in reference | head -1)
R=$(pages_in projects | head -1)
SENTINEL=$(pages_in team | head -1)
mapfile -t ARGS < <(watch_wiki_args "$WSITE")
ARGS+=(--exclude 'do=backlink' --seed /)
w=0
settle_wiki() {
	w=$((w + 1))
	printf '\nMirror settle W%s.\n' "$w" >>"$(wiki_file "$WSITE" "$SENTINEL")"
	mirror_settle "$(wiki_key "$SENTINEL")" "Mirror settle W$w." "$WM" "$WHLOG"
}

try "the wiki through php-cgi: the initial snapshot mirrored, .gz files and the 404 page included"
watch_start "$WLOG" "${ARGS[@]}" --exec "'$HOOK' '$WM' '$WHLOG'" "$WOUT"
check_eq 0 $? "watch came up: $(tail -3 "$WLOG")"
wait_until "$WATCH_WAIT" grep -qx done "$WHLOG"
check_eq 0 $? "the hook ran"
check_file "$WM/$(wiki_key "$P").gz" "a page's .gz on the mirror"
check_file "$WM/.cgisnap/404.html" "the 404 page"
check_eq "" "$(mirror_same "$WOUT" "$WM")" "differences"

try "an edit, a deletion and a rename of page sources under watch, then the same trees"
printf '\nMirror edit M1.\n' >>"$(wiki_file "$WSITE" "$P")"
rm "$(wiki_file "$WSITE" "$Q")"
rdir=$(dirname "$(wiki_file "$WSITE" "$R")")
mv "$(wiki_file "$WSITE" "$R")" "$rdir/renamed_by_t0563.txt"
RNEW=$(printf '%s' "${R%:*}"):renamed_by_t0563
# the new name is linked from P, so that the crawl reaches it
printf '\nSee [[%s]].\n' "$RNEW" >>"$(wiki_file "$WSITE" "$P")"
settle_wiki
check_eq 0 $? "settled: $(tail -3 "$WLOG")"
wait_until "$WATCH_WAIT" test -e "$WOUT/$(wiki_key "$RNEW")"
settle_wiki
check_contains "$(cat "$WM/$(wiki_key "$P")")" "Mirror edit M1." "the edit on the mirror"
check_contains "$(zcat "$WM/$(wiki_key "$P").gz")" "Mirror edit M1." "and in its .gz"
check_no_file "$WOUT/$(wiki_key "$Q")" "the deleted page left the tree"
check_no_file "$WM/$(wiki_key "$Q")" "and the mirror"
check_no_file "$WM/$(wiki_key "$Q").gz" "with its .gz"
check_file "$WM/$(wiki_key "$RNEW")" "the renamed page on the mirror"
check_no_file "$WM/$(wiki_key "$R")" "its old name gone"
check_eq "" "$(mirror_same "$WOUT" "$WM")" "differences"
watch_stop
check_eq 0 "$WATCH_STATUS" "watch stopped cleanly"

finish
