#!/usr/bin/env bash
# t0030-cron-install: what a sysadmin's cron line and 'make install' rely on.
# A busy tree (another cgisnap holds its lock) exits 75, silently under -q;
# make install into a DESTDIR puts every file where the README says, the
# bash completion answers, and the man page has its sections.
. "$(dirname "$0")/lib.sh"

SITE=$TESTDIR/site
mkdir -p "$SITE"
printf '<a href="b.html">b</a>\n' >"$SITE/index.html"
printf 'b\n' >"$SITE/b.html"

try "a first snapshot makes the tree"
"$CGISNAP" snapshot -q --root "$SITE" "$TESTDIR/t" 2>"$TESTDIR/err"
check_eq 0 $? "exit status: $(cat "$TESTDIR/err")"
check_file "$TESTDIR/t/b.html"

# Another cgisnap holding the lock: flock(1) takes the same flock(2) lock
# on the file, and its shell writes its pid there as a writer does (one
# that ended emptied the file), for as long as its sleep runs (stopped at
# the end).
LOCK=$TESTDIR/t/.cgisnap/lock
bg_start flock -x "$LOCK" sh -c 'echo $$ >"$0"; exec sleep 120' "$LOCK"
HOLDER=$BG_PID
wait_until 5 sh -c "! flock -xn '$LOCK' true && test -s '$LOCK'" || fail "flock never took the lock"
touch "$SITE/b.html"

try "snapshot -q of a busy tree exits 75 and prints nothing (cron mails nothing)"
"$CGISNAP" snapshot -q --root "$SITE" "$TESTDIR/t" >"$TESTDIR/out" 2>"$TESTDIR/err"
check_eq 75 $? "exit status"
check_eq "" "$(cat "$TESTDIR/err" "$TESTDIR/out")" "output"

try "without -q it says who holds the tree, still exit 75"
"$CGISNAP" snapshot --root "$SITE" "$TESTDIR/t" 2>"$TESTDIR/err"
check_eq 75 $? "exit status"
check_eq "cgisnap: error: tree '$TESTDIR/t' is locked by another cgisnap (pid $(cat "$LOCK"))" "$(cat "$TESTDIR/err")" "message"

try "watch -q of a busy tree exits 75 silently too"
timeout 20 "$CGISNAP" watch -q --root "$SITE" --source "$SITE" --no-trace --always / "$TESTDIR/t" \
	>"$TESTDIR/out" 2>"$TESTDIR/err"
check_eq 75 $? "exit status"
check_eq "" "$(cat "$TESTDIR/err" "$TESTDIR/out")" "output"

try "a set-up error is still exit 2 and said under -q: the two stay apart"
"$CGISNAP" snapshot -q --root "$TESTDIR/no-such-site" "$TESTDIR/t" 2>"$TESTDIR/err"
check_eq 2 $? "exit status"
check_contains "$(cat "$TESTDIR/err")" "no-such-site" "message"

try "the help texts say what 75 means"
check_contains "$("$CGISNAP" snapshot --help)" "75 the tree is busy" "snapshot --help"
check_contains "$("$CGISNAP" watch --help)" "75 the tree is busy" "watch --help"

bg_stop "$HOLDER"

try "once the lock is free the same cron line runs"
"$CGISNAP" snapshot -q --root "$SITE" "$TESTDIR/t" 2>"$TESTDIR/err"
check_eq 0 $? "exit status: $(cat "$TESTDIR/err")"

# ----------------------------------------------------------- make install
# A copy of the sources, built there as a packager would (plain make, a
# PREFIX of its own), so that the binary under test here is never rebuilt.
SRC=$TESTDIR/src
DEST=$TESTDIR/dest
P=/opt/cgisnap-t0030
mkdir -p "$SRC"
(cd "$ROOT" && git ls-files -z -co --exclude-standard | tar --null -T - -cf -) | tar -xf - -C "$SRC"

try "make install PREFIX DESTDIR puts every file under DESTDIR/PREFIX"
# Unoptimised (a packager's CFLAGS, as dpkg-buildpackage gives its own):
# what is tested is where the files go, and the build takes half the time.
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u DEVELOPER -u SANITIZE \
	make -C "$SRC" --no-print-directory -j2 install PREFIX="$P" DESTDIR="$DEST" CFLAGS=-O0 >"$TESTDIR/make.log" 2>&1
check_eq 0 $? "make install: $(tail -5 "$TESTDIR/make.log")"
for f in bin/cgisnap lib/cgisnap/cgisnap-trace.so share/man/man1/cgisnap.1 \
	share/cgisnap/profiles/dokuwiki.conf share/cgisnap/profiles/wordpress.conf share/cgisnap/profiles/wordpress-boot.php \
	lib/systemd/system/cgisnap-watch@.service lib/systemd/system/cgisnap-serve@.service \
	share/bash-completion/completions/cgisnap share/doc/cgisnap/README.md share/doc/cgisnap/LICENSE \
	share/doc/cgisnap/url-keys.md; do
	check_file "$DEST$P/$f"
done
check_eq "" "$(find "$DEST" -path "$DEST$P" -prune -o -print | grep -v -x -e "$DEST" -e "$DEST/opt")" \
	"nothing outside DESTDIR/PREFIX"
check_eq 755 "$(stat -c %a "$DEST$P/bin/cgisnap")" "the binary's mode"
check_eq "ExecStart=$P/bin/cgisnap watch -c /etc/cgisnap/%i.conf /srv/cgisnap/%i" \
	"$(grep '^ExecStart=' "$DEST$P/lib/systemd/system/cgisnap-watch@.service")" "the watch unit runs the installed binary"
check_eq "ExecStart=$P/bin/cgisnap serve -c /etc/cgisnap/%i-serve.conf /srv/cgisnap/%i" \
	"$(grep '^ExecStart=' "$DEST$P/lib/systemd/system/cgisnap-serve@.service")" "the serve unit too"
check_eq "" "$(grep -l '@BINDIR@' "$DEST$P/lib/systemd/system/"*)" "no placeholder left"
check_contains "$("$DEST$P/bin/cgisnap" watch --help)" "$P/lib/cgisnap/cgisnap-trace.so" \
	"the installed binary looks for the tracer where it was installed"

try "make uninstall removes what install put there"
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u DEVELOPER -u SANITIZE \
	make -C "$SRC" --no-print-directory uninstall PREFIX="$P" DESTDIR="$DEST" CFLAGS=-O0 >"$TESTDIR/make.log" 2>&1
check_eq 0 $? "make uninstall: $(tail -5 "$TESTDIR/make.log")"
check_eq "" "$(find "$DEST" -type f)" "files left"
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u DEVELOPER -u SANITIZE \
	make -C "$SRC" --no-print-directory install PREFIX="$P" DESTDIR="$DEST" CFLAGS=-O0 >"$TESTDIR/make.log" 2>&1

COMP=$DEST$P/share/bash-completion/completions/cgisnap

# complete WORDS...: what the completion offers for the last word.
complete_words() {
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _cgisnap; printf "%s\n" "${COMPREPLY[@]}"' \
		sh "$COMP" "$@"
}

try "the bash completion registers itself and completes subcommands"
check_eq "complete -o filenames -F _cgisnap cgisnap" "$(bash -c 'source "$1"; complete -p cgisnap' sh "$COMP")" \
	"complete -p"
check_eq "snapshot" "$(complete_words cgisnap snap)" "cgisnap snap<TAB>"
check_eq "$(printf 'serve\nsnapshot\nstatus')" "$(complete_words cgisnap s | sort)" "cgisnap s<TAB>"
check_eq "$(printf 'apache\nnginx')" "$(complete_words cgisnap config "" | grep -v -e --help | sort)" "config <TAB>"

try "each subcommand's options come from its --help, the option file's -c too"
check_eq "--no-trace" "$(complete_words cgisnap watch --no-t)" "watch --no-t<TAB>"
check_eq "--exec" "$(complete_words cgisnap watch --exe)" "watch --exe<TAB>"
check_eq "$(printf -- '--fill\n--fill-max\n--fill-max-mb')" "$(complete_words cgisnap serve --fil)" "serve --fil<TAB>"
check_contains "$(complete_words cgisnap snapshot -)" "--config" "snapshot's -c FILE"
check_eq "--config" "$(complete_words cgisnap bench --conf)" "bench's option file is --config (its -c is the concurrency)"
# Every option a --help lists is offered, for every subcommand.
for c in snapshot watch notify serve bench config; do
	want=$("$CGISNAP" "$c" --help | sed -n 's/^  \(-[a-zA-Z], \)\{0,1\} *\(--[a-z][a-z0-9-]*\)\( [^ ]*\)\{0,1\}  .*/\2/p' | sort -u)
	sub=()
	[ "$c" != config ] || sub=(nginx)
	got=$(complete_words cgisnap "$c" "${sub[@]}" -- | sort -u)
	check_eq "" "$(comm -23 <(printf '%s\n' "$want") <(printf '%s\n' "$got"))" "$c: options missing"
done
mkdir -p "$TESTDIR/cwd/some-dir"
check_eq "some-dir" "$(cd "$TESTDIR/cwd" && complete_words cgisnap snapshot --root so)" "a value completes file names"

try "man -l renders the page with EXIT STATUS, FILES, EXAMPLES and SEE ALSO"
command -v man >/dev/null || fail "man is missing (man-db: tools/deps.sh test)"
page=$(MANWIDTH=100 man -l "$DEST$P/share/man/man1/cgisnap.1" 2>"$TESTDIR/man.err")
check_eq 0 $? "man -l status"
check_eq "" "$(cat "$TESTDIR/man.err")" "no warnings"
for h in NAME SYNOPSIS DESCRIPTION "EXIT STATUS" FILES EXAMPLES "SEE ALSO"; do
	check_eq 1 "$(printf '%s\n' "$page" | grep -c -x -- "$h")" "section $h"
done
check_match "$(printf '%s\n' "$page" | sed -n '/^EXIT STATUS$/,/^FILES$/p')" "^ +75 +the tree is busy" "75 under EXIT STATUS"
check_contains "$page" "$P/lib/cgisnap/cgisnap-trace.so" "FILES names the installed tracer"
check_contains "$page" "$P/bin/cgisnap snapshot -q -c /etc/cgisnap/wiki.conf" "the cron example uses the installed path"
warn=$(man --warnings -l "$DEST$P/share/man/man1/cgisnap.1" 2>&1 >/dev/null)
check_eq "" "$warn" "groff warnings"

finish
