#!/bin/sh
# tools/mkman.sh CGISNAP [LIBDIR PROFILEDIR UNITDIR DOCDIR] - print the man
# page cgisnap(1), made from the binary's own --help texts and the manual's
# pages in docs/, so the page can never drift from either; the directories
# (make install's) go to FILES. Each command's section is its --help, then
# docs/COMMAND.md without its option list (tools/md2roff.awk); options.md
# follows the description, inspect.md the commands.
set -eu
bin=${1:-./cgisnap}
libdir=${2:-/usr/local/lib/cgisnap}
profiledir=${3:-/usr/local/share/cgisnap/profiles}
unitdir=${4:-/usr/local/lib/systemd/system}
docdir=${5:-/usr/local/share/doc/cgisnap}
docs=$(dirname "$0")/../docs
bindir=$(dirname "$(dirname "$libdir")")/bin
version=$("$bin" --version | cut -d' ' -f2)

# roff: escape backslashes; a leading '.' or "'" would be a request.
esc() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/" -e 's/-/\\-/g'; }

# page FILE [TITLE]: a docs/ page as roff; without TITLE its own title is
# dropped and its text follows a subsection naming it.
page() {
	if [ $# -gt 1 ]; then
		awk -v nooptions=1 -f "$(dirname "$0")/md2roff.awk" "$1"
	else
		echo ".SS \"In detail ($(basename "$1"))\""
		awk -v notitle=1 -v nooptions=1 -f "$(dirname "$0")/md2roff.awk" "$1"
	fi
}

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
page "$docs/options.md" title
for cmd in $("$bin" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p'); do
	echo ".SH \"CGISNAP $(echo "$cmd" | tr a-z A-Z)\""
	"$bin" "$cmd" --help | sed -n 's/^usage: \(.*\)/\1/p; s/^       \(cgisnap .*\)/\1/p' | esc |
		sed 's/^/.B /; s/$/\n.br/'
	"$bin" "$cmd" --help | body
	[ ! -f "$docs/$cmd.md" ] || page "$docs/$cmd.md"
done
page "$docs/inspect.md" title
cat <<EOF2
.SH "EXIT STATUS"
Each command's section above gives the details; across commands:
.TP
.B 0
success.
.TP
.B 1
a partial failure: some URLs failed (the rest is published), a watch that
stopped on an error, a notify that was not delivered, a bench side that failed,
a verify that found URLs whose answer would change.
.TP
.B 2
a usage or set\-up error, said in one line naming what is wrong; nothing in
the tree was changed.
.TP
.B 75
the tree is busy: another snapshot, watch or serve \-\-fill holds its lock
(sysexits' EX_TEMPFAIL, "try again later"). Nothing was changed, and under
\fB\-q\fR nothing is printed, so that a cron job overlapping a running watch
mails nothing.
.TP
.B 130
interrupted (snapshot, bench, verify).
.SH FILES
.TP
.I DIR/.cgisnap/
cgisnap's own files in a snapshot tree: tree.db (the manifest: one row per URL and
what each page's render read; docs/tree-db.md, cgisnap ls), settings, profile,
lastrun (what the last run did: cgisnap status), 404.html, lock, and control
(the socket of a running watch, for cgisnap notify).
No server may serve anything under it; a mirror needs only tree.db (checkpointed
before the hook), settings and 404.html of it (watch \-\-exec lists them when they change).
.TP
.I $libdir/cgisnap\-trace.so
the dependency tracer watch preloads into CGI programs.
.TP
.I $profiledir/
the site profiles (NAME.conf, option files) and the helpers they run.
.TP
.I /etc/cgisnap/NAME.conf
the option file (\-c) of the systemd unit cgisnap\-watch@NAME;
.I /etc/cgisnap/NAME\-serve.conf
that of cgisnap\-serve@NAME. Both serve the tree
.IR /srv/cgisnap/NAME .
.TP
.I $unitdir/
cgisnap\\-watch@.service and cgisnap\\-serve@.service: the hardened systemd
template units.
.TP
.I $docdir/
the README and the documents of docs/.
.SH EXAMPLES
Snapshot a PHP wiki without a web server, then keep it fresh, mirrored to an
edge server:
.PP
.nf
.RS
cgisnap snapshot \-\-root /var/www/wiki \-\-cgi php=php\-cgi /srv/wiki
cgisnap watch \-\-root /var/www/wiki \-\-cgi php=php\-cgi \e
    \-\-source /var/www/wiki/data \e
    \-\-exec 'rsync \-a \-I \-\-files\-from=\- . edge1:/srv/wiki/' /srv/wiki
.RE
.fi
.PP
From cron, options in a file; a run that meets a running watch exits 75,
silently:
.PP
.nf
.RS
*/15 * * * *  www\-data  $bindir/cgisnap snapshot \-q \-c /etc/cgisnap/wiki.conf /srv/wiki
.RE
.fi
.PP
Under systemd, with /etc/cgisnap/wiki.conf and /etc/cgisnap/wiki\-serve.conf:
.PP
.nf
.RS
systemctl enable \-\-now cgisnap\-watch@wiki cgisnap\-serve@wiki
.RE
.fi
.PP
Serve the tree, or have nginx serve it:
.PP
.nf
.RS
cgisnap serve \-\-listen 127.0.0.1:8080 /srv/wiki
cgisnap config nginx /srv/wiki > /etc/nginx/sites\-enabled/wiki
.RE
.fi
.SH "SEE ALSO"
.BR nginx (8),
.BR apache2 (8),
.BR rsync (1),
.BR rclone (1),
.BR systemd.exec (5),
.BR crontab (5).
The README and docs/: a page per command (snapshot.md, watch.md, serve.md,
config.md, bench.md, verify.md, inspect.md, options.md), and url\-keys.md, links.md,
families.md and tree\-db.md, installed in $docdir.
EOF2
