#!/bin/sh
# tools/mkcompletion.sh CGISNAP - print the bash completion of cgisnap,
# made from the binary's own --help texts (whose option lines come from
# the option tables), so that it can never drift from them: the
# subcommands, then each one's options; an option taking a value
# completes file names, as does any other word.
set -eu
bin=${1:-./cgisnap}
cmds=$("$bin" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p')

# optlines CMD: "NAME VALUED" for each option of CMD's --help ("-j 1",
# "--jobs 1", "--quiet 0"): an option line as tools/mkman.sh reads it
# ("  -j, --jobs N   help", two spaces or more before the help), so that
# examples and prose are never taken for options. Each name once.
optlines() {
	"$bin" "$1" --help | awk -v q="'" '
	$0 ~ "^  (-[a-zA-Z], |    )?--[a-z][^ ]*( " q "[^" q "]*" q "| [^ ]+)?(  +[^ ]|$)" {
		line = $0; sub(/^ +/, "", line)
		short = ""
		if (line ~ /^-[a-zA-Z], /) { short = substr(line, 1, 2); line = substr(line, 5) }
		split(line, w, " "); name = w[1]
		valued = (substr(line, length(name) + 1, 2) ~ /^ [^ ]/) ? 1 : 0
		if (short != "" && !(short in seen)) { seen[short] = 1; print short, valued }
		if (!(name in seen)) { seen[name] = 1; print name, valued }
	}'
}

cat <<EOF2
# bash completion for cgisnap $("$bin" --version | cut -d' ' -f2) (made by tools/mkcompletion.sh)
_cgisnap() {
	local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]} cmd=\${COMP_WORDS[1]:-}
	if [ "\$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=(\$(compgen -W "$(echo $cmds) --help --version" -- "\$cur"))
		return
	fi
	local opts="" valued=""
	case \$cmd in
EOF2
for c in $cmds; do
	all=$(optlines "$c" | cut -d' ' -f1 | tr '\n' ' ' | sed 's/ $//')
	v=$(optlines "$c" | sed -n 's/ 1$//p' | tr '\n' ' ' | sed 's/ $//')
	# "Options (also from a file with -c FILE ...)": the option file,
	# which the option parser handles for the command, out of the tables.
	if "$bin" "$c" --help | grep -q 'with -c FILE' && ! "$bin" "$c" --help | grep -q -e '-c, --config'; then
		all="$all -c --config"
		v="$v -c --config"
	fi
	printf '\t%s)\n\t\topts="%s"\n\t\tvalued="%s" ;;\n' "$c" "$all" "$v"
done
cat <<EOF2
	*) return ;;
	esac
	if [ "\$cmd" = config ] && [ "\$COMP_CWORD" -eq 2 ]; then
		COMPREPLY=(\$(compgen -W "nginx apache --help" -- "\$cur"))
		return
	fi
	case " \$valued " in
	*" \$prev "*) COMPREPLY=(\$(compgen -f -- "\$cur")); return ;;
	esac
	case \$cur in
	-*) COMPREPLY=(\$(compgen -W "\$opts" -- "\$cur")) ;;
	*) COMPREPLY=(\$(compgen -f -- "\$cur")) ;;
	esac
}
complete -o filenames -F _cgisnap cgisnap
EOF2
