#!/bin/sh
# tools/check-rooms.sh [TOP] - check lib/'s include rule (docs/hacking.md,
# "Rooms"): each room includes only itself and the rooms its row of the
# table names, by room ("tree/manifest.h"), and never a command's header.
# Prints one line per include that breaks the rule, or per room missing
# from the table, its folder or its README.md; exits 1 when there is any.
top=${1:-$(dirname "$0")/..}
table="$top/docs/hacking.md"
[ -r "$table" ] || { echo "check-rooms: cannot read '$table'" >&2; exit 2; }
# "| `room` | owns | may include |" rows: room, then the rooms it may include.
rooms=$(sed -n 's/^| `\([a-z]*\)` |.*| \([^|]*\) |$/\1 \2/p' "$table" | sed 's/—//')
[ -n "$rooms" ] || { echo "check-rooms: no room table in '$table'" >&2; exit 2; }
check() {
for dir in "$top"/lib/*/; do
	room=$(basename "$dir")
	printf '%s\n' "$rooms" | grep -q "^$room\\b" ||
		echo "lib/$room/: not a room of docs/hacking.md's table"
done
while read -r room allowed; do
	dir="$top/lib/$room"
	[ -d "$dir" ] || { echo "lib/$room/: in docs/hacking.md's table but not there"; continue; }
	[ -f "$dir/README.md" ] || echo "lib/$room/README.md: missing (what the room owns)"
	for f in "$dir"/*.c "$dir"/*.h; do
		[ -f "$f" ] || continue
		grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
			sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1 \2/' |
			while read -r line inc; do
				case "$inc" in
				*/*) to=${inc%%/*} ;;
				*) echo "lib/$room/$(basename "$f"):$line: \"$inc\" names no room"; continue ;;
				esac
				case " $room $allowed " in
				*" $to "*) ;;
				*) echo "lib/$room/$(basename "$f"):$line: \"$inc\": room $room may not include $to" ;;
				esac
			done
	done
done <<EOT
$rooms
EOT
}
out=$(check)
[ -z "$out" ] && exit 0
printf '%s\n' "$out"
exit 1
