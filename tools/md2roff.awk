# tools/md2roff.awk - the markdown of docs/ as man(7) roff, for mkman.sh.
#
# The subset docs/ pages are written in: headings (# .SH, ## and ### .SS),
# paragraphs, "- " lists (continuation lines indented two spaces), code
# blocks (indented four spaces), tables ("| a | b |": a .TP per row, its
# first cell the tag), and inside text `code`, **bold** and [text](link).
# Anything else is text. Variables (awk -v):
#   notitle=1     drop the page's "# " title (mkman gives the section)
#   nooptions=1   drop "## Options..." sections: the --help texts give them
#
# roff is line-based: a backslash is escaped, a line that would start with
# '.' or "'" gets \& so it is never taken for a request, and blank lines
# become .PP or .sp (a blank input line is a warning under man --warnings).

function esc(s) {
	gsub(/\\/, "\\e", s)
	gsub(/-/, "\\-", s)
	return s
}
function lead(s) { return (s ~ /^[.']/) ? "\\&" s : s }
function plain(s,   i) {
	while (match(s, /\*\*[^*]+\*\*/))
		s = substr(s, 1, RSTART - 1) "\\fB" substr(s, RSTART + 2, RLENGTH - 4) "\\fR" substr(s, RSTART + RLENGTH)
	while (match(s, /\[[^]]*\]\([^)]*\)/)) {
		i = index(substr(s, RSTART, RLENGTH), "](")
		s = substr(s, 1, RSTART - 1) substr(s, RSTART + 1, i - 2) " (" \
			substr(s, RSTART + i + 1, RLENGTH - i - 2) ")" substr(s, RSTART + RLENGTH)
	}
	return s
}
# inline: one line of text. A `code` span may go on over a line break, as
# in markdown: incode carries it to the next line of the block.
function inline(s,   out, n, part, i) {
	n = split(esc(s), part, "`")
	out = incode ? "\\fB" : ""
	for (i = 1; i <= n; i++) {
		if (i > 1) { incode = !incode; out = out (incode ? "\\fB" : "\\fR") }
		out = out (incode ? part[i] : plain(part[i]))
	}
	if (incode) out = out "\\fR"
	sub(/\\fB\\fR$/, "", out)
	return lead(out)
}
function cells(line, a,   n, i) {
	sub(/^\| */, "", line); sub(/ *\|$/, "", line)
	n = split(line, a, / *\| */)
	return n
}
function endcode() { if (code) { print ".fi"; print ".RE"; code = 0; blank = 0 } }
function endblock() { endcode(); state = ""; incode = 0 }

BEGIN { state = ""; code = 0; blank = 0; skip = 0; first = 1 }

/^#+ / {
	endblock()
	level = match($0, /[^#]/) - 1
	title = substr($0, level + 2)
	if (level == 1 && notitle) { first = 0; next }
	if (level == 2) skip = nooptions && title ~ /^Options/
	if (skip) next
	if (level == 1) print ".SH \"" toupper(esc(title)) "\""
	else print ".SS \"" esc(title) "\""
	state = "heading"
	next
}
skip { next }

/^$/ { incode = 0; if (code) blank = 1; else if (state != "") state = "gap"; next }

code && /^    / {
	if (blank) { print ".sp"; blank = 0 }
	print lead(esc(substr($0, 5)))
	next
}
/^    / && state != "list" && state != "text" {
	endcode()
	print ".PP"; print ".RS 4"; print ".nf"
	code = 1; blank = 0; state = "code"
	print lead(esc(substr($0, 5)))
	next
}
{ endcode() }

/^\|/ {
	if ($0 ~ /^\|[-:| ]+\|$/) next
	n = cells($0, c)
	if (state != "table") { print ".PP"; state = "table" }
	print ".TP"
	print inline(c[1])
	rest = ""
	for (i = 2; i <= n; i++) rest = rest (i > 2 ? "; " : "") c[i]
	if (rest != "") print inline(rest)
	next
}
/^- / {
	if (state != "list" && state != "gap-list") print ".PP"
	print ".IP \\(bu 2"
	print inline(substr($0, 3))
	state = "list"
	next
}
state == "list" && /^  / { sub(/^ +/, ""); print inline($0); next }
{
	if (state != "text") print ".PP"
	sub(/^ +/, "")
	print inline($0)
	state = "text"
}
END { endcode() }
