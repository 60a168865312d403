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
	# One grep and one awk per room: a process per file is slow on a
	# loaded machine, and t0021 runs this check several times.
	grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*"' "$dir"/*.c "$dir"/*.h 2>/dev/null |
		awk -v room="$room" -v allowed=" $room $allowed " '{
			i = index($0, ":"); path = substr($0, 1, i - 1); rest = substr($0, i + 1)
			j = index(rest, ":"); line = substr(rest, 1, j - 1)
			split(substr(rest, j + 1), q, "\""); inc = q[2]
			n = split(path, part, "/"); f = "lib/" room "/" part[n]
			if (index(inc, "/") == 0) {
				printf "%s:%s: \"%s\" names no room\n", f, line, inc
				next
			}
			to = substr(inc, 1, index(inc, "/") - 1)
			if (index(allowed, " " to " ") == 0)
				printf "%s:%s: \"%s\": room %s may not include %s\n", f, line, inc, room, to
		}'
done <<EOT
$rooms
EOT
}
out=$(check)
[ -z "$out" ] && exit 0
printf '%s\n' "$out"
exit 1
