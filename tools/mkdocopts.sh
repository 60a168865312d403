#!/bin/sh
# tools/mkdocopts.sh CGISNAP COMMAND - print COMMAND's options as the
# markdown list of its docs page's "Options" section, made from its --help
# (one "- `TAG`: text" item per option line of its "Options" and "Origin
# options" sections, continuation lines joined).
# For writing that section; tools/check-docs.sh checks it stays complete.
set -eu
"$1" "$2" --help | awk '
	function flush() { if (tag != "") print "- `" tag "`" (text != "" ? ": " text : ""); tag = "" }
	/^[A-Z].*:$/ { flush(); inopt = ($0 ~ /^([A-Z][a-z]+ )?[Oo]ptions/); next }
	inopt && /^  (-[a-zA-Z], |    )?--[a-z]/ {
		flush()
		line = $0; sub(/^ +/, "", line)
		tag = line; text = ""
		if (match(line, /  +/)) {
			tag = substr(line, 1, RSTART - 1); text = substr(line, RSTART + RLENGTH)
		}
		next
	}
	tag != "" && /^                               / { sub(/^ +/, ""); text = text (text != "" ? " " : "") $0; next }
	{ flush() }
	END { flush() }'
