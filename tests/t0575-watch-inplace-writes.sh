#!/usr/bin/env bash
# t0575-watch-inplace-writes: a source written in place (O_TRUNC, then
# the writes, then the close) never gets a page published from half of
# it. Page sources of the sample wiki are rewritten again and again under
# watch, by shell redirection (printf > f, small and big), by a slow
# writer that pauses between its halves, by dd conv=notrunc over the old
# bytes, by truncate then an append, by sed -i and by vim (in place and
# by rename); every version of the page the tree held (the --exec hook
# copies the page after each batch that wrote it) is one a complete
# source gives: it holds the begin and the end marker of one same
# version. At the end the tree holds the last version. Then the case
# t0563 once met: a static site, untraced, two pages rewritten line by
# line in turn. Before watch held such renders (watch/stale.h), pages
# from empty and half sources were published here in most runs.
# T0575_V=1 runs watch with -v (its log says why each page was held).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-watch.sh"

WSITE=$TESTDIR/wiki
WOUT=$TESTDIR/wout
LOG=$TESTDIR/watch.log
VERS=$TESTDIR/versions
mkdir -p "$VERS"
seed_wiki "$WSITE" 30
P=$(cd "$WSITE/data/pages" && find howto -name '*.txt' ! -name start.txt | LC_ALL=C sort | head -1 |
	sed 's/\.txt$//; s|/|:|g')
F=$(wiki_file "$WSITE" "$P")
KEY=$(wiki_key "$P")

# The hook: after each batch that wrote the page, a copy of it, named by
# the time (the order of the versions).
HOOK=$TESTDIR/hook
cat >"$HOOK" <<'SH'
#!/bin/sh
if grep -qxF -- "$1" "$CGISNAP_WRITTEN"; then
	cp -- "$1" "$2/$(date +%s%N)"
fi
SH
chmod +x "$HOOK"

mapfile -t ARGS < <(watch_wiki_args "$WSITE")
ARGS+=(--exclude 'do=backlink' --seed /)
ARGS+=(${T0575_V:+-v})

# pad SIZE: about SIZE bytes of x in lines of 70, made once per size
# (PADS) by run_style, outside the subshells that call version.
declare -A PADS
pad() {
	[ -n "${PADS[$1]:-}" ] || PADS[$1]=$(head -c "$1" /dev/zero | tr '\0' 'x' | fold -w 70)
}

# version K SIZE: the text of version K, about SIZE bytes: its begin marker
# first, its end marker last.
version() {
	printf '====== In place ======\n\nInplace begin %s.\n\n%s\n\nInplace end %s.\n' "$1" "${PADS[$2]}" "$1"
}

# check_versions WHAT: every copy the hook made holds one version whole;
# the copies are then forgotten. One awk reads them all: "FILE BEGIN END"
# for each copy whose first begin and first end marker are not one
# version (an empty copy too).
check_versions() {
	local copies=("$VERS"/*) bad n=0 line
	[ -e "${copies[0]}" ] && n=${#copies[@]}
	check_ne 0 "$n" "$1: the hook copied the page"
	[ "$n" -gt 0 ] || return 0
	bad=$(awk 'BEGIN {
		for (i = 1; i < ARGC; i++) {
			b = ""; e = ""
			while ((getline line < ARGV[i]) > 0) {
				if (b == "" && match(line, /Inplace begin [0-9]+\./)) b = substr(line, RSTART + 14, RLENGTH - 15)
				if (e == "" && match(line, /Inplace end [0-9]+\./)) e = substr(line, RSTART + 12, RLENGTH - 13)
			}
			close(ARGV[i])
			if (b == "" || b != e) printf "%s \047%s\047 \047%s\047\n", ARGV[i], b, e
		}
	}' "${copies[@]}")
	local count=0
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		count=$((count + 1))
		[ "$count" -le 3 ] && fail "$1: a version published from half a source (begin, end: ${line#* }): $(grep -c . "${line%% *}") lines"
		[ -n "${KEEP_TESTDIR:-}" ] && cp "${line%% *}" "$TESTDIR/bad.$count"
	done <<<"$bad"
	echo "    # $1: $n versions published, $count from half a source"
	rm -f "$VERS"/*
}

_copied() {
	grep -rqF -- "$1" "$VERS"
}

# settled K: the tree holds version K of the page, and the hook of the
# batch that published it has copied it.
settled() {
	wait_file_has "$WOUT/$KEY" "Inplace end $1." && wait_until "$WATCH_WAIT" _copied "Inplace end $1."
}

watch_start "$LOG" "${ARGS[@]}" --exec "'$HOOK' '$KEY' '$VERS'" "$WOUT"
check_eq 0 $? "watch came up: $(tail -3 "$LOG")"
# the hook ran after the initial snapshot too: that copy is no edit's
wait_output ls "$VERS"
rm -f "$VERS"/*
k=0

# run_style WHAT ROUNDS WRITER SIZE: ROUNDS versions written with WRITER
# (a function: WRITER FILE TEXT K) one after the other, no pause.
run_style() {
	local what=$1 rounds=$2 writer=$3 size=$4 i
	try "$what: no page from half a source"
	pad "$size"
	for i in $(seq 1 "$rounds"); do
		k=$((k + 1))
		"$writer" "$F" "$(version "$k" "$size")" "$k"
	done
	settled "$k"
	check_eq 0 $? "settled on version $k: $(tail -3 "$LOG")"
	check_versions "$what"
}

w_printf() { printf '%s\n' "$2" >"$1"; }
w_slow() { # the first half, a pause, the rest: an editor writing a big file
	local half=$((${#2} / 2))
	{ printf '%s' "${2:0:half}"; sleep 0.03; printf '%s\n' "${2:half}"; } >"$1"
}
w_dd() { printf '%s\n' "$2" | dd of="$1" conv=notrunc bs=512 status=none; }
w_truncate() { truncate -s 0 "$1" && printf '%s\n' "$2" >>"$1"; }
# sed -i and vim edit the last version: its markers become K's.
w_sed() { sed -i "s/Inplace begin [0-9]*\./Inplace begin $3./; s/Inplace end [0-9]*\./Inplace end $3./" "$1"; }
# vim with backupcopy=yes writes the file in place (its backup is a copy);
# with auto, here, it renames the file to its backup and writes a new one.
w_vim() {
	vim -u NONE -i NONE -N -n -es -c "set backupcopy=$VIM_BACKUPCOPY" \
		-c "%s/Inplace begin [0-9]*\./Inplace begin $3./" -c "%s/Inplace end [0-9]*\./Inplace end $3./" \
		-c wq "$1" </dev/null
}

run_style "printf > file, small" 30 w_printf 100
run_style "printf > file, 200 KB (many writes)" 15 w_printf 200000
run_style "a slow writer pausing between its halves" 15 w_slow 4000
# dd writes over the old bytes without truncating: each version is as
# long as the last, so that what it leaves is the new one whole.
run_style "dd conv=notrunc over the old bytes" 20 w_dd 4000
run_style "truncate, then an append" 20 w_truncate 4000
run_style "sed -i (a temporary file renamed over it)" 15 w_sed 4000
if command -v vim >/dev/null; then
	VIM_BACKUPCOPY=yes
	run_style "vim, backupcopy=yes (in place)" 10 w_vim 4000
	VIM_BACKUPCOPY=auto
	run_style "vim, backupcopy=auto" 10 w_vim 4000
fi

watch_stop
check_eq 0 "$WATCH_STATUS" "watch stopped cleanly"

# ---------------------------------------------------------------- static
# The case t0563 once met: a static site, untraced (every change a full
# re-crawl, the files copied as the crawl reads them), two pages rewritten
# in place one after the other, line by line (many writes each), while
# the crawl of the first one's change runs.
SITE=$TESTDIR/site
SOUT=$TESTDIR/sout
SLOG=$TESTDIR/swatch.log
SVERS=$TESTDIR/sversions
mkdir -p "$SITE" "$SVERS/a.html" "$SVERS/b.html"
printf '<a href="a.html">a</a> <a href="b.html">b</a>\n' >"$SITE/index.html"
lines() { # lines FILE K: K's begin marker, 80 lines, its end marker, each a write
	local i
	{
		printf '<p>Inplace begin %s.</p>\n' "$2"
		for i in $(seq 1 80); do printf '<p>line %d of a long page</p>\n' "$i"; done
		printf '<p>Inplace end %s.</p>\n' "$2"
	} >"$1"
}
lines "$SITE/a.html" 0
lines "$SITE/b.html" 0
SHOOK=$TESTDIR/shook
cat >"$SHOOK" <<'SH'
#!/bin/sh
for p in a.html b.html; do
	if grep -qxF -- "$p" "$CGISNAP_WRITTEN"; then
		cp -- "$p" "$1/$p/$(date +%s%N)"
	fi
done
SH
chmod +x "$SHOOK"

try "a static site, untraced: two pages rewritten line by line, in turn, never published half"
watch_start "$SLOG" --root "$SITE" --source "$SITE" --no-trace --exec "'$SHOOK' '$SVERS'" "$SOUT"
check_eq 0 $? "watch came up: $(tail -3 "$SLOG")"
wait_output ls "$SVERS/a.html"
rm -f "$SVERS"/*/*
for s in $(seq 1 15); do
	lines "$SITE/a.html" "$s"
	lines "$SITE/b.html" "$s"
done
_static_settled() {
	grep -rqF "Inplace end $s." "$SVERS/a.html" && grep -rqF "Inplace end $s." "$SVERS/b.html"
}
wait_until "$WATCH_WAIT" _static_settled
check_eq 0 $? "settled on version $s: $(tail -3 "$SLOG")"
VERS=$SVERS/a.html check_versions "a.html"
VERS=$SVERS/b.html check_versions "b.html"

try "a page held while its source is being written: counted as held in lastrun and status"
# Every batch of this site is a full re-crawl (no dependencies known),
# and records its run: one that renders a.html while a writer still has
# it open holds that page and says so, until the close re-renders it.
(
	exec 7>>"$SITE/a.html"
	for i in 1 2 3 4 5 6; do
		printf 'more %s\n' "$i" >&7
		sleep 0.2 # keeps the file open for writing a while: what is tested
	done
) &
writer=$!
_held() {
	cp "$SOUT/.cgisnap/lastrun" "$TESTDIR/lastrun" && "$CGISNAP" status "$SOUT" >"$TESTDIR/status" &&
		grep -qx 'held = 1' "$TESTDIR/lastrun" && grep -qF ' 0 failed, 1 held, 0 skipped;' "$TESTDIR/status"
}
wait_until "$WATCH_WAIT" _held
check_eq 0 $? "lastrun and status: one held ($(grep '^held' "$TESTDIR/lastrun"); $(tail -2 "$SLOG"))"
wait "$writer"
_published() { grep -qx 'more 6' "$SOUT/a.html"; }
wait_until "$WATCH_WAIT" _published
check_eq 0 $? "once closed, the page is published"
watch_stop
check_eq 0 "$WATCH_STATUS" "watch stopped cleanly"

finish
