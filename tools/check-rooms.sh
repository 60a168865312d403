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
# One grep over every room, one awk to judge each include against the table.
(cd "$top" && grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' lib/*/*.c lib/*/*.h) |
	awk -v rooms="$rooms" '
	BEGIN {
		n = split(rooms, rows, "\n")
		for (i = 1; i <= n; i++) {
			k = split(rows[i], w, " ")
			for (j = 1; j <= k; j++)
				may[w[1] " " w[j]] = 1
		}
	}
	{
		split($0, f, ":")          # lib/ROOM/FILE, LINE, the directive
		split(f[1], p, "/")
		room = p[2]
		match($0, /"[^"]*"/)
		inc = substr($0, RSTART + 1, RLENGTH - 2)
		if (index(inc, "/") == 0)
			print f[1] ":" f[2] ": \"" inc "\" names no room"
		else if (!may[room " " substr(inc, 1, index(inc, "/") - 1)])
			print f[1] ":" f[2] ": \"" inc "\": room " room " may not include " substr(inc, 1, index(inc, "/") - 1)
	}'
while read -r room allowed; do
	dir="$top/lib/$room"
	[ -d "$dir" ] || { echo "lib/$room/: in docs/hacking.md's table but not there"; continue; }
	[ -f "$dir/README.md" ] || echo "lib/$room/README.md: missing (what the room owns)"
done <<EOT
$rooms
EOT
}
out=$(check)
[ -z "$out" ] && exit 0
printf '%s\n' "$out"
exit 1
