#!/usr/bin/env bash
# t0588-full-disk: a tree on a small filesystem of its own (tmpfs, as
# root) that fills up in the middle of a run, at a different point each
# time: every page a run published is first recorded, so the run that
# meets the full disk says so in one line per failure, exits 1 (some
# URLs failed; 2 when not even tree.db opens), and leaves the tree and
# tree.db consistent, every page
# published before intact; once there is room again, the next run
# completes and the tree equals a clean snapshot.
#
# The filesystem is filled to within FREE KiB of full by a file of the
# test's, FREE stepping from 0 up to what a run needs (FREE_STEPS, six
# by default; 'make soak' runs fifteen).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-watch.sh"

if [ "$(id -u)" != 0 ]; then
	echo "# skipped: not root: no filesystem of the test's own to fill"
	finish
fi
watch_wiki_test 30
mapfile -t ARGS < <(watch_wiki_args "$SITE")
ARGS=("${ARGS[@]:0:${#ARGS[@]}-2}" --exclude 'do=(backlink|index|recent)') # snapshot: no --source
mapfile -t PAGES < <(wiki_pages "$SITE")
SMALL=$TESTDIR/small
mkdir -p "$SMALL"
if ! mount -t tmpfs -o size=32m tmpfs "$SMALL" 2>"$TESTDIR/mount.err"; then
	echo "# skipped: this machine mounts no tmpfs: $(cat "$TESTDIR/mount.err")"
	finish
fi
at_exit "umount '$SMALL' 2>/dev/null"
OUT=$SMALL/out
REF=$TESTDIR/ref

# free_kib: what the small filesystem has free.
free_kib() { df -k --output=avail "$SMALL" | tail -1 | tr -d ' '; }

snap_wiki "$SITE" "$OUT" "${ARGS[@]}" -q 2>"$TESTDIR/snap.err"
check_eq 0 $? "the first snapshot ($(tail -2 "$TESTDIR/snap.err"))"
used=$(du -sk "$OUT" | cut -f1)
echo "# the tree takes $used KiB"

try "a disk that fills during an update, at $(wc -w <<<"${FREE_STEPS:-0 32 48 80 128 256}") points of it: one line per failure, exit 1 (2), the tree whole; then all of it"
steps=0
for free in ${FREE_STEPS:-0 32 48 80 128 256}; do
	steps=$((steps + 1))
	# every page changes (the tagline every page shows) and three get longer
	sed -i "s/^\$conf\['tagline'\].*/\$conf['tagline'] = 'Full disk step $steps';/" "$SITE/conf/local.php"
	for i in 1 2 3; do
		printf '\nStep %s made this page longer: %s\n' "$steps" "$(head -c 3000 /dev/zero | tr '\0' x)" \
			>>"$(wiki_file "$SITE" "${PAGES[RANDOM % ${#PAGES[@]}]}")"
	done
	rm -f "$SMALL/filler"
	avail=$(free_kib)
	[ "$avail" -gt "$free" ] && fallocate -l $(((avail - free) * 1024)) "$SMALL/filler"
	snap_wiki "$SITE" "$OUT" "${ARGS[@]}" -q 2>"$TESTDIR/full.err"
	rc=$?
	bad=""
	if [ "$rc" != 0 ]; then
		# 1: the URLs that could not be written failed; 2: not even
		# tree.db could be opened (one line says so)
		[ "$rc" = 1 ] || [ "$rc" = 2 ] || bad+="exit status $rc, not 1 or 2; "
		[ "$rc" != 2 ] || [ "$(grep -c . "$TESTDIR/full.err")" = 1 ] || bad+="exit 2 with more than one line; "
		grep -q 'No space left on device' "$TESTDIR/full.err" || bad+="no line says the disk is full; "
		bad+=$(stray_lines "$TESTDIR/full.err")
	fi
	# looked at with room again: a reader of tree.db needs a few pages
	# of its own (its shared-memory index)
	rm -f "$SMALL/filler"
	bad+=$(after_fault "$SITE" "$OUT" "$REF" "${ARGS[@]}")
	echo "# $free KiB free: the run exited $rc ($(grep -c . "$TESTDIR/full.err") lines)" \
		"$(head -1 "$TESTDIR/full.err" | cut -c1-160)"
	tally_fault "$free KiB free" "$bad"
done
check_eq "$steps" "$SURVIVED" "full disks the tree came through whole"

finish
