#!/usr/bin/env bash
# t0012-docs-options: the manual in docs/ and the binary cannot drift:
# tools/check-docs.sh finds every option of every command's --help on the
# command's docs page (and is seen to fail on a copy with one taken out);
# tools/md2roff.awk turns the markdown the pages use into roff; and the man
# page is made of both, each command's --help then its page's text.
. "$(dirname "$0")/lib.sh"

try "every option of every command's --help is on its docs page"
out=$("$ROOT/tools/check-docs.sh" "$CGISNAP" "$ROOT/docs" 2>&1)
check_eq 0 $? "check-docs on docs/: $out"

try "an option or a page missing from docs/ is named"
mkdir -p "$TESTDIR/docs" && cp "$ROOT"/docs/*.md "$TESTDIR/docs/"
grep -v -e '--no-gzip' "$ROOT/docs/snapshot.md" >"$TESTDIR/docs/snapshot.md"
grep -v -e '--deps' -e '--help' "$ROOT/docs/inspect.md" >"$TESTDIR/docs/inspect.md"
rm "$TESTDIR/docs/config.md"
out=$("$ROOT/tools/check-docs.sh" "$CGISNAP" "$TESTDIR/docs" 2>&1)
check_eq 1 $? "status"
check_contains "$out" "snapshot: '--no-gzip' is in its --help but not in docs/snapshot.md" "an option of snapshot"
check_contains "$out" "ls: '--deps' is in its --help but not in docs/inspect.md" "ls, on the shared page"
check_contains "$out" "config: no docs page 'config.md'" "a page missing"
check_not_contains "$out" "'--help'" "--help, on options.md, need not be on every page"
grep -v -e '--help' "$ROOT/docs/options.md" >"$TESTDIR/docs/options.md"
out=$("$ROOT/tools/check-docs.sh" "$CGISNAP" "$TESTDIR/docs" 2>&1)
check_contains "$out" "status: '--help' is in its --help but not in docs/inspect.md" "nor on options.md"

try "md2roff: headings, paragraphs, lists, code blocks, tables and inline markup"
cat >"$TESTDIR/in.md" <<'MD'
# Title

A `code span
over a line` and **bold**, a [link](docs/x.md) and a\back-slash.
.starts with a dot

## Section

- one `--opt`
  goes on
- two

    code --line \n

    after a blank

| a | b | c |
|---|---|---|
| `x` | y | z |

### Sub

## Options

- `--left-out`: the --help texts give these
MD
got=$(awk -v nooptions=1 -f "$ROOT/tools/md2roff.awk" "$TESTDIR/in.md")
want='.SH "TITLE"
.PP
A \fBcode span\fR
\fBover a line\fR and \fBbold\fR, a link (docs/x.md) and a\eback\-slash.
\&.starts with a dot
.SS "Section"
.PP
.IP \(bu 2
one \fB\-\-opt\fR
goes on
.IP \(bu 2
two
.PP
.RS 4
.nf
code \-\-line \en
.sp
after a blank
.fi
.RE
.PP
.TP
a
b; c
.TP
\fBx\fR
y; z
.SS "Sub"'
check_eq "$want" "$got" "the roff"
got=$(awk -v notitle=1 -f "$ROOT/tools/md2roff.awk" "$TESTDIR/in.md")
check_not_contains "$got" '.SH "TITLE"' "notitle drops the title"
check_contains "$got" '\fB\-\-left\-out\fR' "without nooptions the Options section stays"

try "the man page holds each command's --help and its docs page, without the pages' option lists"
man=$ROOT/build/cgisnap.1
check_file "$man" "build/cgisnap.1"
for page in snapshot watch serve bench config; do
	check_contains "$(cat "$man")" ".SS \"In detail ($page.md)\"" "$page.md in its command's section"
done
check_contains "$(cat "$man")" '.SH "COMMAND LINES AND OPTION FILES"' "options.md"
check_contains "$(cat "$man")" '.SH "CGISNAP STATUS, WHY, LS AND PROFILES: READING A TREE"' "inspect.md"
check_contains "$(cat "$man")" 'There is no fixed debounce' "watch.md's text"
check_not_contains "$(cat "$man")" 'Every option of' "the pages' option lists left out"
check_eq "" "$(man --warnings -l "$man" 2>&1 >/dev/null)" "groff warnings"

finish
