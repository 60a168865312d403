#!/usr/bin/env bash
# t0540-watch-tracer: the tracer in every kind of CGI program watch runs,
# none of which it may crash or disturb: C programs (dynamically linked)
# opening files from a library's constructor, their own constructor and
# several threads; one using openat/fopen/opendir/the stat family/access;
# Perl, Python and shell CGIs; a statically linked program (untraceable:
# said once, its page re-rendered on every change); a program closing
# every descriptor, and one putting a pipe of its own on fd 3. Each page
# is stored with the body expected, its dependencies recorded (or its
# untraced state), and an edit of its data file re-renders it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"
. "$(dirname "$0")/lib-watch.sh"

FIX=$ROOT/tests/fixtures/tracer
TRACE_LIB=$ROOT/build/cgisnap-trace.so
# Real paths: the tracer reports what the kernel resolves.
BASE=$(cd "$TESTDIR" && pwd -P)
SITE=$BASE/site
LIB=$BASE/lib
OUT=$BASE/out
LOG=$BASE/watch.log
EXECLOG=$BASE/exec.log
mkdir -p "$SITE/data/v/list" "$LIB"

try "the fixtures build (dynamically linked C, a library with a constructor, static when libc.a is there)"
cc -O2 -fPIC -shared -o "$LIB/libearly.so" "$FIX/early.c" &&
	cc -O2 -pthread -o "$SITE/threads.cgi" "$FIX/threads.c" -Wl,--no-as-needed -L"$LIB" -learly \
		-Wl,-rpath,"$LIB" &&
	cc -O2 -o "$SITE/variants.cgi" "$FIX/variants.c" &&
	cc -O2 -o "$SITE/closer.cgi" "$FIX/closer.c" &&
	cc -O2 -o "$SITE/dup2.cgi" "$FIX/dup2.c"
check_eq 0 $? "cc"
HAVE_STATIC=yes
if ! cc -O2 -static -DDATA='"data/static.txt"' -o "$SITE/static.cgi" "$FIX/reader.c" 2>"$BASE/cc.err"; then
	HAVE_STATIC=
	echo "# skipped: static linking fails here ($(head -1 "$BASE/cc.err")): no statically linked case"
fi
cp "$FIX/perl.pl" "$FIX/python.py" "$FIX/shell.cgi" "$SITE/"
PERL=$(command -v perl)
PYTHON=$(PATH=/usr/bin:/bin command -v python3 || command -v python3)

for f in lib ctor main thread0 thread1 thread2 thread3 closer dup2 perl python shell static; do
	echo "$f one" >"$SITE/data/$f.txt"
done
for f in openat fopen stat lstat fstatat statx; do
	echo "$f one" >"$SITE/data/v/$f.txt"
done
touch "$SITE/data/v/list/a" "$SITE/data/v/list/b" "$SITE/data/v/faccessat.txt"
{
	for p in threads.cgi variants.cgi closer.cgi dup2.cgi perl.pl python.py shell.cgi ${HAVE_STATIC:+static.cgi}; do
		printf '<a href="/%s">%s</a>\n' "$p" "$p"
	done
} >"$SITE/index.html"

# page TARGET: the stored body of a page.
page() {
	cat "$OUT/$(manifest_field "$OUT" "$1" 2)" 2>/dev/null
}

# deps_of TARGET: the page's lines of the deps file, "KIND PATH".
deps_of() {
	awk -F'\t' -v t="$1" '$1 == t { print $2, $3 }' <("$CGISNAP" ls --deps "$OUT")
}

# edit FILE TEXT TARGET: write TEXT into FILE and wait for the page to
# show it.
edit() {
	printf '%s\n' "$2" >"$1"
	wait_until "$WATCH_WAIT" _page_has "$3" "$2"
}

_page_has() {
	page "$1" | grep -qF -- "$2"
}

try "the library alone, on a pipe: each variant reported with its kind, no line torn"
(cd "$SITE" && LD_PRELOAD=$TRACE_LIB CGISNAP_TRACE_FD=3 ./variants.cgi 3>&1 >/dev/null) | sort -u >"$BASE/lines"
check_eq 0 "${PIPESTATUS[0]}" "exit status"
lines=$(cat "$BASE/lines")
for f in openat fopen stat lstat fstatat statx; do
	check_contains "$lines" "R $SITE/data/v/$f.txt" "$f"
done
check_contains "$lines" "L $SITE/data/v/list" "opendir"
check_contains "$lines" "E $SITE/data/v/access.txt" "access (of a missing file)"
check_contains "$lines" "E $SITE/data/v/faccessat.txt" "faccessat"
check_match "$lines" "^H [0-9]+$" "the hello line"
check_eq "" "$(grep -Ev '^(H [0-9]+|[RELW] /.*)$' "$BASE/lines")" "malformed lines"

try "every program is snapshotted and watched; none crashes"
watch_start "$LOG" --root "$SITE" --cgi "pl=$PERL" --cgi "py=$PYTHON" --seed / -j 2 \
	--source "$SITE/data" --exec "cat >> '$EXECLOG'" "$OUT"
check_eq 0 $? "watch came up"
check_contains "$(cat "$LOG")" "0 failed" "no render failed"
check_not_contains "$(cat "$LOG")" "signal" "no render killed by a signal"
check_eq "lib=lib one
ctor=ctor one
main=main one
thread0=thread0 one
thread1=thread1 one
thread2=thread2 one
thread3=thread3 one
thread4=thread0 one
thread5=thread1 one
thread6=thread2 one
thread7=thread3 one" "$(page /threads.cgi)" "threads page"
check_eq "openat=openat one
fopen=fopen one
listed=2
stat=9
lstat=10
fstatat=12
statx=10
access=no
faccessat=yes" "$(page /variants.cgi)" "variants page"
check_eq "read=perl one" "$(page /perl.pl)" "perl page"
check_eq "read=python one
flag=no" "$(page /python.py)" "python page"
check_eq "read=shell one" "$(page /shell.cgi)" "shell page"
check_eq "read=closer one" "$(page /closer.cgi)" "closer page"

try "C: reads from a library's constructor (before the tracer's), its own, main and 8 threads are recorded"
d=$(deps_of /threads.cgi)
for f in lib ctor main thread0 thread1 thread2 thread3; do
	check_contains "$d" "R $SITE/data/$f.txt" "$f"
done
check_not_contains "$d" "U " "traced whole"

try "C variants: recorded as R, L, E and A (looked for, not there) through watch"
d=$(deps_of /variants.cgi)
for f in openat fopen stat lstat fstatat statx; do
	check_contains "$d" "R $SITE/data/v/$f.txt" "$f"
done
check_contains "$d" "L $SITE/data/v/list" "listing"
check_contains "$d" "A $SITE/data/v/access.txt" "access of a missing file"
check_contains "$d" "E $SITE/data/v/faccessat.txt" "faccessat"

try "Perl, Python and shell: traced, their data files recorded"
check_contains "$(deps_of /perl.pl)" "R $SITE/data/perl.txt" "perl"
check_contains "$(deps_of /python.py)" "R $SITE/data/python.txt" "python"
check_contains "$(deps_of /python.py)" "A $SITE/data/python-flag" "python's existence check (a stat of a missing file)"
check_contains "$(deps_of /shell.cgi)" "R $SITE/data/shell.txt" "the shell's cat"
check_not_contains "$(deps_of /perl.pl; deps_of /python.py; deps_of /shell.cgi)" "U " "none untraced"

try "a program that closes every descriptor: said once, untraced, not silently incomplete"
check_eq "U $SITE/closer.cgi" "$(deps_of /closer.cgi)" "closer deps"
check_eq 1 "$(grep -c "warning: '$SITE/closer.cgi' closed or replaced the trace descriptor: its pages cannot be traced and re-render on every change" "$LOG")" "one warning"

try "a program that puts its own pipe on fd 3: nothing written into it, the page untraced"
check_eq "dup2 one
pipe=0" "$(page /dup2.cgi)" "dup2 page: cat's output, 0 bytes of trace in the program's pipe"
check_eq "U $SITE/dup2.cgi" "$(deps_of /dup2.cgi)" "dup2 deps"

if [ -n "$HAVE_STATIC" ]; then
	try "a statically linked program: stored, said once to be untraceable"
	check_eq "read=static one" "$(page /static.cgi)" "static page"
	check_eq "U $SITE/static.cgi" "$(deps_of /static.cgi)" "static deps"
	check_eq 1 "$(grep -c "warning: '$SITE/static.cgi' is statically linked: its pages cannot be traced and re-render on every change" "$LOG")" "one warning"
fi

try "an edit of each traced data file re-renders its page"
edit "$SITE/data/lib.txt" "lib two" /threads.cgi
check_eq 0 $? "lib.txt (read in a library's constructor)"
edit "$SITE/data/thread2.txt" "thread2 two" /threads.cgi
check_eq 0 $? "thread2.txt"
edit "$SITE/data/v/openat.txt" "openat two" /variants.cgi
check_eq 0 $? "openat.txt"
echo "statx two, longer" >"$SITE/data/v/statx.txt" # the page shows its size
wait_until "$WATCH_WAIT" _page_has /variants.cgi "statx=18"
check_eq 0 $? "statx.txt"
touch "$SITE/data/v/access.txt"
wait_until "$WATCH_WAIT" _page_has /variants.cgi "access=yes"
check_eq 0 $? "access.txt created"
touch "$SITE/data/v/list/c"
wait_until "$WATCH_WAIT" _page_has /variants.cgi "listed=3"
check_eq 0 $? "a name added to the listed directory"
edit "$SITE/data/perl.txt" "perl two" /perl.pl
check_eq 0 $? "perl.txt"
edit "$SITE/data/python.txt" "python two" /python.py
check_eq 0 $? "python.txt"
touch "$SITE/data/python-flag"
wait_until "$WATCH_WAIT" _page_has /python.py "flag=yes"
check_eq 0 $? "python-flag created"
edit "$SITE/data/shell.txt" "shell two" /shell.cgi
check_eq 0 $? "shell.txt"

try "untraced pages re-render on every change; each is still said only once"
edit "$SITE/data/closer.txt" "closer two" /closer.cgi
check_eq 0 $? "closer.txt"
edit "$SITE/data/dup2.txt" "dup2 two" /dup2.cgi
check_eq 0 $? "dup2.txt"
check_contains "$(page /dup2.cgi)" "pipe=0" "still nothing in the program's pipe"
if [ -n "$HAVE_STATIC" ]; then
	edit "$SITE/data/static.txt" "static two" /static.cgi
	check_eq 0 $? "static.txt"
	check_eq 1 "$(grep -c "'$SITE/static.cgi' is statically linked" "$LOG")" "static: one warning in all"
fi
check_eq 1 "$(grep -c "'$SITE/closer.cgi' closed or replaced" "$LOG")" "closer: one warning in all"
check_not_contains "$(cat "$LOG")" "failed:" "no render failed"

try "SIGTERM stops it with status 0"
watch_stop_ok

try "a restart keeps the untraced state: an edit still re-renders those pages"
watch_start "$LOG" --root "$SITE" --cgi "pl=$PERL" --cgi "py=$PYTHON" --seed / -j 2 \
	--source "$SITE/data" "$OUT"
check_eq 0 $? "watch came up"
edit "$SITE/data/closer.txt" "closer three" /closer.cgi
check_eq 0 $? "closer.txt"
watch_stop_ok

finish
