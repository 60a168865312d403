# tests/lib-watch.sh - helpers for the watch tests (source after lib.sh;
# it brings lib-snapshot.sh). Nothing here sleeps to wait for a result:
# every wait polls (wait_until) for what the test expects, with a bound.

declare -F snap_wiki >/dev/null || . "$(dirname "${BASH_SOURCE[0]}")/lib-snapshot.sh"

# watch_test_dirs [SITE]: where a watch test keeps its site ($TESTDIR/wiki,
# or SITE under $TESTDIR), its tree and watch's log: SITE, OUT and LOG.
watch_test_dirs() {
	SITE=$TESTDIR/${1:-wiki}
	OUT=$TESTDIR/out
	LOG=$TESTDIR/watch.log
}

# watch_wiki_test PAGES: watch_test_dirs, and the sample wiki seeded there.
watch_wiki_test() {
	sample_site_test wiki "$1"
	LOG=$TESTDIR/watch.log
}

# How long a batch may take before a test gives up (seconds).
WATCH_WAIT=${WATCH_WAIT:-90}

_watch_run() {
	local log=$1
	shift
	exec "$CGISNAP" watch "$@" 2>>"$log"
}

# watch_start LOG ARGS...: run 'cgisnap watch ARGS' in the background, its
# stderr appended to LOG, and wait until it watches (after the initial
# snapshot). Sets WATCH_PID; 1 when it did not come up (LOG says why).
watch_start() {
	local log=$1
	shift
	: >"$log"
	bg_start _watch_run "$log" "$@"
	WATCH_PID=$BG_PID
	wait_until "$WATCH_WAIT" grep -q '^cgisnap: watching ' "$log"
}

# watch_stop [SIG]: signal the watcher (TERM) and wait for it, and for its
# renders; its exit status goes to WATCH_STATUS (not a subshell: only this
# shell can wait).
watch_stop() {
	bg_stop "$WATCH_PID" "${1:-TERM}"
	WATCH_STATUS=$?
}

# watch_stop_ok [SIG]: watch_stop, and check that it exited 0.
watch_stop_ok() {
	watch_stop "$@"
	check_eq 0 "$WATCH_STATUS" "exit status"
}

# batches LOG: how many batch lines LOG holds.
batches() {
	grep -c '^cgisnap: batch: ' "$1"
}

_count_at_least() {
	[ "$(grep -c -- "$2" "$1")" -ge "$3" ]
}

# wait_count FILE REGEX N: wait until at least N lines of FILE match REGEX
# (counted again at each try).
wait_count() {
	wait_until "$WATCH_WAIT" _count_at_least "$1" "$2" "$3"
}

_has_output() {
	[ -n "$("$@")" ]
}

# wait_output CMD...: wait until CMD prints something (run again at each
# try: 'wait_until test -n "$(CMD)"' would run it only once).
wait_output() {
	wait_until "$WATCH_WAIT" _has_output "$@"
}

_since_has() {
	tail -n "+$(($2 + 1))" "$1" | grep -Eq -- "$3"
}

# wait_log_since LOG N ERE: wait until a line of LOG after its first N
# matches ERE: a line logged before (the same URL re-rendered for an
# earlier change) must not end the wait.
wait_log_since() {
	wait_until "$WATCH_WAIT" _since_has "$1" "$2" "$3"
}

# check_edit_batches DIR LOG FROM: once the watcher of the tree DIR has
# nothing pending (watch_idle), the batches of LOG after its batch FROM
# (an edit's) re-rendered at most the files they changed + 2, and changed
# one at least. A page held (a source was being written as it rendered:
# more likely on a busy machine) is rendered again by the next batch: its
# first render is not counted.
check_edit_batches() {
	local rendered=0 changed=0 held=0 line r c h
	watch_idle "$1" || fail "watch never came to rest: $(grep '^cgisnap: batch: ' "$2" | tail -1)"
	shift
	while read -r line; do
		r=$(printf '%s\n' "$line" | grep -oE '[0-9]+ URLs? re-rendered' | grep -oE '^[0-9]+')
		c=$(printf '%s\n' "$line" | grep -oE '[0-9]+ files? changed' | grep -oE '^[0-9]+')
		h=$(printf '%s\n' "$line" | grep -oE '[0-9]+ held' | grep -oE '^[0-9]+')
		rendered=$((rendered + ${r:-0}))
		changed=$((changed + ${c:-0}))
		held=$((held + ${h:-0}))
		echo "# batch: ${line#cgisnap: batch: * changed (*): }"
	done < <(grep '^cgisnap: batch: ' "$1" | tail -n +"$(($2 + 1))")
	check_le 1 "$changed" "files changed by the edit's batches"
	check_le $((rendered - held)) $((changed + 2)) \
		"URLs re-rendered by the edit's batches ($rendered, $held of them held, $changed files changed)"
}

# wait_batches LOG N: wait until LOG holds at least N batch lines.
wait_batches() {
	wait_count "$1" '^cgisnap: batch: ' "$2"
}

# watch_idle DIR: return when the watcher of the tree DIR has nothing
# pending: every change it has read is rendered and published (a page
# held as a source was being written, and its retry, included), the
# events queued before the request read too ('cgisnap notify --idle').
# The log then holds every line of those batches. 1 when it never came.
watch_idle() {
	"$CGISNAP" notify -q --idle --timeout 120 "$1" >/dev/null
}

# watch_site DIR MARK: the tiny PHP site of tests/fixtures/watch-site (an
# index listing data/items, the items, a page that renders slowly on
# demand) in DIR, with items a, b and c, the slow page's text "fast", and
# the directory MARK for its MARK_DIR.
watch_site() {
	mkdir -p "$1/data/items" "$2" && cp "$ROOT/tests/fixtures/watch-site/"*.php "$1/" || return 1
	for n in a b c; do echo "item $n" >"$1/data/items/$n.txt"; done
	echo fast >"$1/data/slow.txt"
}

# synth_site DIR PAGES: the synthetic site of bench/synth in DIR: page.cgi
# built, PAGES pages generated. Non-zero when a step failed (it says why).
synth_site() {
	mkdir -p "$1" && "${CC:-cc}" -O2 -std=c11 -o "$1/page.cgi" "$ROOT/bench/synth/page.c" &&
		"$1/page.cgi" --generate "$1" "$2"
}

# synth_snapshot SITE OUT PAGES: synth_site SITE PAGES, its data made older
# than the snapshot by more than any clock's granularity (watch has no
# catch-up batch to run), snapshotted (traced, -j 2) into OUT; the
# snapshot's stderr in $TESTDIR/snap.err. Non-zero when a step failed.
synth_snapshot() {
	synth_site "$1" "$3" || return 1
	find "$1/data" -exec touch -d '-1 min' {} +
	"$CGISNAP" snapshot -q --root "$1" --seed '/page.cgi?id=0' -j 2 "$2" 2>"$TESTDIR/snap.err"
}

_file_has() {
	grep -qF -- "$2" "$1"
}

# wait_file_has FILE TEXT: wait until FILE exists and contains TEXT.
wait_file_has() {
	wait_until "$WATCH_WAIT" _file_has "$1" "$2"
}

_file_lacks() {
	! grep -qF -- "$2" "$1"
}

# wait_file_lacks FILE TEXT: wait until FILE no longer contains TEXT.
wait_file_lacks() {
	wait_until "$WATCH_WAIT" _file_lacks "$1" "$2"
}

# wait_gone PATH: wait until nothing is at PATH.
wait_gone() {
	wait_until "$WATCH_WAIT" test ! -e "$1"
}

# watch_wiki_args SITE: the options snap_wiki uses, for watch, with the
# wiki's data/ as the source (one per line: mapfile -t reads them).
watch_wiki_args() {
	printf '%s\n' --root "$1" --cgi php=php-cgi --site-url http://localhost:8080/ \
		--strip "$WIKI_STRIP" --robots-meta ignore --not-found '/doku.php?id=cgisnap:no-such-page' -j 2 \
		--source "$1/data"
}

# wiki_key ID: the tree file of a wiki page view.
wiki_key() {
	printf 'doku.php@id=%s.html' "$1"
}

# wiki_file SITE ID: the source file of a wiki page.
wiki_file() {
	printf '%s/data/pages/%s.txt' "$1" "$(printf '%s' "$2" | tr ':' '/')"
}

_key_after() {
	tail -n "+$(($2 + 1))" "$1" | grep -qxF -- "$3"
}

# watch_settle SITE EXECLOG ID: every change made so far has been handled.
# Page ID (one no other change touches) gets a unique line; its batch
# comes after every earlier change's, and the --exec hook ('cat >>
# EXECLOG') receiving its file means that batch is done.
_settle_n=0
watch_settle() {
	local site=$1 execlog=$2 id=$3 seen
	_settle_n=$((_settle_n + 1))
	seen=$(wc -l <"$execlog" 2>/dev/null || echo 0)
	printf '\nSettle marker %s-%s.\n' "$$" "$_settle_n" >>"$(wiki_file "$site" "$id")"
	wait_until "$WATCH_WAIT" _key_after "$execlog" "$seen" "$(wiki_key "$id")"
}

# tree_diff_from FRESH TREE: every file of FRESH (outside .cgisnap) exists
# in TREE with the same bytes; prints the ones that do not.
tree_diff_from() {
	(cd "$1" && find . -path ./.cgisnap -prune -o -type f -printf '%P\n') | LC_ALL=C sort |
		while IFS= read -r f; do
			cmp -s "$1/$f" "$2/$f" || echo "$f"
		done
}
