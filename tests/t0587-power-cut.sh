#!/usr/bin/env bash
# t0587-power-cut: what a power cut leaves of a tree. The tree lives on a
# throwaway ext4 filesystem (a loop mount, its journal committed only
# every 600 s): what reached that filesystem's disk is its image file, so
# a copy of the image taken with nothing synced is the disk as a power
# cut at that instant leaves it. Mounted (its journal replayed), the
# copy must hold every page a finished snapshot said it published, each
# as the manifest records it; and a cut at any instant of a run (kill -9,
# then the copy) must leave a tree the next run completes without
# refusing a file, equal to a clean snapshot.
#
# CUTS (default 4; 'make soak' runs 30) and SEED choose the instants.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-watch.sh"

if [ "$(id -u)" != 0 ] || ! command -v mkfs.ext4 >/dev/null; then
	echo "# skipped: not root or no mkfs.ext4: no filesystem of the test's own to cut the power of"
	finish
fi
CUTS=${CUTS:-4}
RANDOM=${SEED:-1}
watch_wiki_test 30
mapfile -t ARGS < <(watch_wiki_args "$SITE")
ARGS=("${ARGS[@]:0:${#ARGS[@]}-2}" --exclude 'do=(backlink|index|recent)') # snapshot: no --source
mapfile -t PAGES < <(wiki_pages "$SITE")
IMG=$TESTDIR/disk.img
MNT=$TESTDIR/disk
CUT=$TESTDIR/cut
mkdir -p "$MNT" "$CUT"
truncate -s 128M "$IMG" && mkfs.ext4 -q -F "$IMG" || fail "mkfs.ext4 failed"
if ! mount -o loop,commit=600 "$IMG" "$MNT" 2>"$TESTDIR/mount.err"; then
	echo "# skipped: this machine mounts no loop filesystem: $(cat "$TESTDIR/mount.err")"
	finish
fi
at_exit "umount '$MNT' 2>/dev/null; umount '$CUT' 2>/dev/null"
OUT=$MNT/out

# power_cut: the disk as a power cut now leaves it, mounted at CUT (the
# last one's unmounted first). Nothing is synced: what the filesystem
# only holds in memory is not in the image.
power_cut() {
	umount "$CUT" 2>/dev/null
	cp --sparse=always "$IMG" "$TESTDIR/cut.img" &&
		mount -o loop "$TESTDIR/cut.img" "$CUT" 2>"$TESTDIR/mount.err" ||
		fail "the cut disk did not mount: $(cat "$TESTDIR/mount.err")"
}

# cut_as_live: the cut disk holds the tree as the live one: every page as
# its manifest records, the same manifest, the same files.
cut_as_live() {
	check_eq "" "$(tree_consistent "$CUT/out" | head -5)" "pages not as the manifest on the cut disk"
	check_eq "$("$CGISNAP" ls "$OUT")" "$("$CGISNAP" ls "$CUT/out")" "the manifest on the cut disk"
	check_eq "" "$(same_files "$OUT" "$CUT/out" | head -5)" "files on the cut disk"
}

try "a snapshot that ended is on disk: a power cut right after it leaves every page it published"
snap_wiki "$SITE" "$OUT" "${ARGS[@]}" -q 2>"$TESTDIR/snap.err"
check_eq 0 $? "snapshot ($(tail -2 "$TESTDIR/snap.err"))"
power_cut
cut_as_live

try "an update that ended is on disk too: each changed page as published, none older"
for p in "${PAGES[@]:0:5}"; do
	printf '\nEdited before the cut.\n' >>"$(wiki_file "$SITE" "$p")"
done
rm "$(wiki_file "$SITE" "${PAGES[5]}")"
snap_wiki "$SITE" "$OUT" "${ARGS[@]}" -q 2>"$TESTDIR/snap.err"
check_eq 0 $? "snapshot ($(tail -2 "$TESTDIR/snap.err"))"
power_cut
cut_as_live
check_eq 1 "$(grep -c "Edited before the cut" "$CUT/out/$(wiki_key "${PAGES[0]}")")" "an edited page"
check_no_file "$CUT/out/$(wiki_key "${PAGES[5]}")"

try "a power cut at $CUTS instants of runs: the next run on the cut disk completes and equals a clean snapshot"
# kill -9 stops the run where the cut comes: what it wrote and did not
# sync is lost with the copy.
t0=${EPOCHREALTIME/./}
printf '\nTimed edit.\n' >>"$(wiki_file "$SITE" "${PAGES[6]}")"
snap_wiki "$SITE" "$OUT" "${ARGS[@]}" -q 2>"$TESTDIR/snap.err"
span=$(((${EPOCHREALTIME/./} - t0) / 1000 * 9 / 10))
echo "# an update run takes about $((span * 10 / 9)) ms: cuts are drawn below $span ms"
good=0
for ((k = 1; k <= CUTS; k++)); do
	for i in 1 2 3; do
		printf '\nCut %s edited this page.\n' "$k" >>"$(wiki_file "$SITE" "${PAGES[RANDOM % ${#PAGES[@]}]}")"
	done
	bg_start snap_wiki "$SITE" "$OUT" "${ARGS[@]}" -q 2>>"$TESTDIR/cut.err"
	d=$(((RANDOM * 32768 + RANDOM) % span))
	nap "$((d / 1000)).$(printf '%03d' $((d % 1000)))"
	bg_stop "$BG_PID" KILL
	power_cut
	bad=$(CRASHED=1 after_fault "$SITE" "$CUT/out" "$TESTDIR/ref" "${ARGS[@]}")
	if [ -z "$bad" ]; then
		good=$((good + 1))
	else
		echo "# cut $k after $d ms: $(printf '%s\n' "$bad" | tr '\n' ' ')"
	fi
	# the live tree goes on from where the kill left it, as a machine
	# that did not lose power would
	snap_wiki "$SITE" "$OUT" "${ARGS[@]}" -q 2>"$TESTDIR/snap.err"
done
check_eq "$CUTS" "$good" "cuts the tree survived"
echo "# power cuts: $CUTS made, $good survived"

finish
