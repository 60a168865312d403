#!/bin/sh
# tools/check-docs.sh [CGISNAP [DOCS]] - check that each command's docs page
# names every option its --help lists, so that the manual (and the man page
# made from it) cannot fall behind the binary. A command's page is
# DOCS/COMMAND.md; notify's is watch.md, and status, why, ls and profiles
# share inspect.md. --help, --version and --config, which every command
# has, may be on options.md instead. Prints one line per option or page
# missing; exits 1 when there is any.
bin=${1:-$(dirname "$0")/../cgisnap}
docs=${2:-$(dirname "$0")/../docs}
cmds=$("$bin" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p')
[ -n "$cmds" ] || { echo "check-docs: no commands in '$bin --help'" >&2; exit 2; }
for cmd in $cmds; do
	case $cmd in
	notify) page=$docs/watch.md ;;
	status | why | ls | profiles) page=$docs/inspect.md ;;
	*) page=$docs/$cmd.md ;;
	esac
	[ -f "$page" ] || { echo "$cmd: no docs page '$(basename "$page")'"; continue; }
	# One awk per command: the page (and options.md) read once, every
	# option looked for in it, followed by the end of a line or a
	# character no option name holds.
	"$(dirname "$0")/mkdocopts.sh" "$bin" "$cmd" | sed -n 's/^- `\([^`]*\)`.*/\1/p' |
		grep -o -- '--[a-z][a-z0-9-]*' | sort -u |
		awk -v cmd="$cmd" -v page="$page" -v common="$docs/options.md" '
			function slurp(file, into,    line, k) {
				k = 0
				while ((getline line < file) > 0)
					into[++k] = line
				close(file)
				return k
			}
			function holds(lines, k, opt,    j) {
				for (j = 1; j <= k; j++)
					if (match(lines[j], opt "($|[^a-z0-9-])"))
						return 1
				return 0
			}
			{ opts[++n] = $0 }
			END {
				np = slurp(page, text)
				nc = slurp(common, shared)
				name = page
				sub(/.*\//, "", name)
				for (i = 1; i <= n; i++) {
					opt = opts[i]
					if (holds(text, np, opt))
						continue
					if ((opt == "--help" || opt == "--version" || opt == "--config") && holds(shared, nc, opt))
						continue
					printf "%s: \047%s\047 is in its --help but not in docs/%s\n", cmd, opt, name
				}
			}'
done | grep . && exit 1
exit 0
