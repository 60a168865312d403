#!/bin/sh
# tools/mkman.sh CGISNAP - print the man page cgisnap(1), made from the
# binary's own --help texts, so the page can never drift from them.
set -eu
bin=${1:-./cgisnap}
version=$("$bin" --version | cut -d' ' -f2)

# roff: escape backslashes; a leading '.' or "'" would be a request.
esc() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/" -e 's/-/\\-/g'; }

# body: one --help text as roff. Option lines become .TP entries (their
# continuation lines join them), headings ("Options:") bold, other indented
# lines keep their layout, plain paragraphs fill.
body() {
	esc | awk '
	function flush_pre() { if (pre) { print ".fi"; pre = 0 } }
	/^usage: / { next }
	/^       cgisnap / { next }
	/^$/ { flush_pre(); print ".PP"; opt = 0; next }
	/^[A-Z][^ ].*:$/ { flush_pre(); print ".SS " $0; opt = 0; next }
	/^  (\\-[a-zA-Z], |    )?\\-\\-[a-z][^ ]*( \047[^\047]*\047| [^ ]+)?(  +[^ ]|$)/ {
		flush_pre()
		line = $0; sub(/^  /, "", line); sub(/^    /, "", line)
		tag = line; text = ""
		if (match(line, /  +/)) {
			tag = substr(line, 1, RSTART - 1); text = substr(line, RSTART + RLENGTH)
		}
		print ".TP"; print "\\fB" tag "\\fR"; if (text != "") print text
		opt = 1; next
	}
	opt && /^                               / { sub(/^ +/, ""); print; next }
	/^ / { opt = 0; if (!pre) { print ".nf"; pre = 1 } print; next }
	{ flush_pre(); opt = 0; print }
	END { flush_pre() }'
}

cat <<EOF2
.TH CGISNAP 1 "" "cgisnap $version" "User Commands"
.SH NAME
cgisnap \\- turn a slow dynamic website into a fast static one
.SH SYNOPSIS
.B cgisnap
.I COMMAND
.RI [ OPTIONS ]
.br
.B cgisnap
.I COMMAND
.B \\-\\-help
.SH DESCRIPTION
EOF2
"$bin" --help | body
for cmd in $("$bin" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p'); do
	echo ".SH \"CGISNAP $(echo "$cmd" | tr a-z A-Z)\""
	"$bin" "$cmd" --help | sed -n 's/^usage: \(.*\)/\1/p; s/^       \(cgisnap .*\)/\1/p' | esc |
		sed 's/^/.B /; s/$/\n.br/'
	"$bin" "$cmd" --help | body
done
cat <<'EOF2'
.SH FILES
.TP
.I DIR/.cgisnap/
cgisnap's own files in a snapshot tree: tree.db (the manifest: one row per URL and
what each page's render read; docs/tree-db.md, cgisnap ls), settings, profile, lastrun (what the last run did: cgisnap status), 404.html, lock, and control (the
socket of a running watch, for cgisnap notify).
No server may serve anything under it.
.SH "SEE ALSO"
The README and docs/url-keys.md in the source tree.
EOF2
