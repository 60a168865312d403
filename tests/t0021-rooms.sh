#!/usr/bin/env bash
# t0021-rooms: lib/'s include rule (docs/hacking.md, "Rooms"), checked by
# tools/check-rooms.sh on the tree, and on copies with each kind of break
# planted, so that the check itself is seen to fail; and no C file over
# 700 lines.
. "$(dirname "$0")/lib.sh"

try "every room of lib/ includes only the rooms below it"
out=$("$ROOT/tools/check-rooms.sh" "$ROOT" 2>&1)
check_eq 0 $? "check-rooms on the tree: $out"

# copy: docs/hacking.md and lib/ alone, in $TESTDIR/NAME.
copy() {
	rm -rf "${TESTDIR:?}/$1" && mkdir -p "$TESTDIR/$1/docs" &&
		cp -r "$ROOT/lib" "$TESTDIR/$1/" && cp "$ROOT/docs/hacking.md" "$TESTDIR/$1/docs/"
}

try "an include that goes up, sideways or names no room is named with its line"
copy up
printf '#include "crawl/crawl.h"\n' >>"$TESTDIR/up/lib/tree/publish.h"
out=$("$ROOT/tools/check-rooms.sh" "$TESTDIR/up" 2>&1)
check_eq 1 $? "status, up"
check_match "$out" '^lib/tree/publish.h:[0-9]+: "crawl/crawl.h": room tree may not include crawl$' "up"
copy side
printf '#include "origin/origin.h"\n' >>"$TESTDIR/side/lib/tree/answer.c"
out=$("$ROOT/tools/check-rooms.sh" "$TESTDIR/side" 2>&1)
check_eq 1 $? "status, sideways"
check_match "$out" 'lib/tree/answer.c:[0-9]+: "origin/origin.h": room tree may not include origin' "sideways"
copy bare
printf '#include "commands.h"\n' >>"$TESTDIR/bare/lib/cli/crawlopts.c"
out=$("$ROOT/tools/check-rooms.sh" "$TESTDIR/bare" 2>&1)
check_eq 1 $? "status, a command's header"
check_match "$out" 'lib/cli/crawlopts.c:[0-9]+: "commands.h" names no room' "a command's header"

try "a room missing from the table, its folder or its README is named"
copy rooms
mkdir "$TESTDIR/rooms/lib/stray" && rm "$TESTDIR/rooms/lib/url/README.md"
out=$("$ROOT/tools/check-rooms.sh" "$TESTDIR/rooms" 2>&1)
check_eq 1 $? "status"
check_contains "$out" "lib/stray/: not a room of docs/hacking.md's table" "a folder not in the table"
check_contains "$out" "lib/url/README.md: missing" "a room without its README"
rm -r "$TESTDIR/rooms/lib/deps"
out=$("$ROOT/tools/check-rooms.sh" "$TESTDIR/rooms" 2>&1)
check_contains "$out" "lib/deps/: in docs/hacking.md's table but not there" "a room of the table not there"

try "no C file is over 700 lines (issue 22: a file that grows past it is split by job)"
long=$(cd "$ROOT" && find . -name '*.c' -not -path './build/*' -not -path './.git/*' -print0 | xargs -0 wc -l | awk '$2 != "total" && $1 > 700 { print $2 " (" $1 " lines)" }')
check_eq "" "$long" "C files over 700 lines"

finish
