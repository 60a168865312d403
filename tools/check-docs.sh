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
	"$(dirname "$0")/mkdocopts.sh" "$bin" "$cmd" | sed -n 's/^- `\([^`]*\)`.*/\1/p' |
		grep -o -- '--[a-z][a-z0-9-]*' | sort -u | while read -r opt; do
			case $opt in
			--help | --version | --config) also=$docs/options.md ;;
			*) also=/dev/null ;;
			esac
			grep -q -e "$opt\$" -e "$opt[^a-z0-9-]" "$page" "$also" ||
				echo "$cmd: '$opt' is in its --help but not in docs/$(basename "$page")"
		done
done | grep . && exit 1
exit 0
