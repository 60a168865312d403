#!/usr/bin/env bash
# t0020-build: the Makefile's knobs, read from what make would run (make -n,
# nothing is built): warnings are errors only for developers.
. "$(dirname "$0")/lib.sh"

# A make that sees only what a user typed: nothing of the make test that
# runs this script (its MAKEFLAGS and DEVELOPER=1) leaks in.
plain_make() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u DEVELOPER -u SANITIZE \
		make -C "$ROOT" --no-print-directory "$@" 2>&1
}

try "plain make warns without -Werror; DEVELOPER=1 and make test use it"
out=$(plain_make -n -B cgisnap)
check_eq 0 $? "make -n status: $out"
check_match "$out" "-Wall -Wextra .*-c -o build/obj-warn/lib/base/buf.o lib/base/buf.c" "compiles lib/base/buf.c apart"
check_not_contains "$out" "-Werror" "plain make"
out=$(plain_make -n -B cgisnap DEVELOPER=1)
check_match "$out" "-Werror.*-c -o build/obj/lib/base/buf.o lib/base/buf.c" "DEVELOPER=1"
# make test passes DEVELOPER=1 to the build it starts (and to tests/run).
out=$(plain_make -n -B test T=t9999-none)
check_match "$out" "-Werror.*-c -o build/obj/lib/base/buf.o lib/base/buf.c" "make test"
check_match "$out" "tests/run t9999-none" "make test runs the tests"
out=$(plain_make -n -B unit)
check_match "$out" "-Werror.*-c -o build/obj/lib/base/buf.o lib/base/buf.c" "make unit"
out=$(plain_make -n -B unit DEVELOPER=0)
check_not_contains "$out" "-Werror" "make unit DEVELOPER=0"
out=$(plain_make -n -B cgisnap SANITIZE=1)
check_match "$out" "-c -o build/san-warn/lib/base/buf.o lib/base/buf.c" "plain SANITIZE=1 apart"
check_not_contains "$out" "-Werror" "plain SANITIZE=1"

try "make install puts the site profiles under PREFIX/share/cgisnap/profiles, where the binary looks"
out=$(plain_make -n -B install PREFIX=/opt/t0020 DESTDIR=/tmp/t0020-destdir)
check_eq 0 $? "make -n status: $out"
check_match "$out" "CGISNAP_PROFILEDIR='\"/opt/t0020/share/cgisnap/profiles\"'.*-c -o build/obj-warn/lib/cli/profileopts.o" \
	"the binary is told PREFIX's directory"
check_match "$out" "install -d .*/tmp/t0020-destdir/opt/t0020/share/cgisnap/profiles" "the directory made under DESTDIR"
check_match "$out" "install -m 644 .*profiles/dokuwiki.conf.* /tmp/t0020-destdir/opt/t0020/share/cgisnap/profiles/" \
	"the profiles installed"
check_match "$out" "install -m 644 .*profiles/dokuwiki-sources.php.* /tmp/t0020-destdir/opt/t0020/share/cgisnap/profiles/" \
	"and the helpers they run"
out=$(plain_make -n uninstall PREFIX=/opt/t0020 DESTDIR=/tmp/t0020-destdir)
check_contains "$out" "/tmp/t0020-destdir/opt/t0020/share/cgisnap/profiles/dokuwiki.conf" "and uninstalled"

try "the tracer library takes CFLAGS and LDFLAGS, never the sanitizers"
out=$(plain_make -n -B build/cgisnap-trace.so CFLAGS="-O1 -DT0020_MARK" LDFLAGS="-Wl,-z,now")
check_eq 0 $? "make -n status: $out"
check_match "$out" "-O1 -DT0020_MARK.*-Wl,-z,now.*-o build/cgisnap-trace.so" "flags on its line"
check_no_match "$out" "-O2 .*-o build/cgisnap-trace.so" "no -O2 of its own"
out=$(plain_make -n -B build/cgisnap-trace.so SANITIZE=1)
check_not_contains "$out" "-fsanitize" "SANITIZE=1"
# V=1 shows its command instead of one LINK line.
out=$(plain_make -n -B build/cgisnap-trace.so)
check_contains "$out" "echo '  LINK    build/cgisnap-trace.so'" "quiet"
out=$(plain_make -n -B build/cgisnap-trace.so V=1)
check_not_contains "$out" "LINK" "V=1"
check_match "$out" "-fPIC.*-o build/cgisnap-trace.so" "V=1 command"

# In a copy that holds the Makefile alone: the checkout's build stays.
try "make clean removes the outputs of every mode, the tracer, the man page and fuzzing"
mkdir -p "$TESTDIR/copy" && cp "$ROOT/Makefile" "$TESTDIR/copy/"
(
	cd "$TESTDIR/copy" &&
		mkdir -p build/obj/lib/base build/san/lib/base build/obj-warn/lib/base build/san-warn/lib/base build/fuzz/tests/fuzz &&
		touch build/obj/lib/base/buf.o build/san/lib/base/buf.o build/obj-warn/lib/base/buf.o build/san-warn/lib/base/buf.o \
			build/fuzz/tests/fuzz/fuzz_url.o \
			build/cgisnap-trace.so build/cgisnap.1 build/LINKED build/TRACE_FLAGS cgisnap
)
out=$(plain_make -C "$TESTDIR/copy" clean)
check_eq 0 $? "make clean status: $out"
check_eq "" "$(cd "$TESTDIR/copy" && find build cgisnap 2>/dev/null)" "left behind"
check_file "$TESTDIR/copy/Makefile" "the Makefile"
out=$(plain_make -C "$TESTDIR/copy" clean SANITIZE=1)
check_eq 0 $? "make clean SANITIZE=1 with nothing to remove"

# A pkg-config that knows every library but libmicrohttpd, as on a machine
# without libmicrohttpd-dev.
try "a library pkg-config does not know stops the build with its Debian package's name"
mkdir -p "$TESTDIR/bin"
real=$(command -v pkg-config)
printf '#!/bin/sh\nfor a; do [ "$a" != libmicrohttpd ] || exit 1; done\nexec %s "$@"\n' "$real" \
	> "$TESTDIR/bin/pkg-config"
chmod +x "$TESTDIR/bin/pkg-config"
out=$(PATH=$TESTDIR/bin:$PATH plain_make -n cgisnap)
check_ne 0 $? "make status"
check_contains "$out" "missing 'libmicrohttpd' (Debian package libmicrohttpd-dev)" "names it"
check_not_contains "$out" "libxml2-dev" "only the missing one"
check_not_contains "$out" ".h:" "no header error"
check_eq 1 "$(printf '%s\n' "$out" | wc -l)" "one line"
out=$(PATH=$TESTDIR/bin:$PATH plain_make -n clean)
check_eq 0 $? "make clean still works: $out"
out=$(plain_make -n cgisnap PKG_CONFIG="$TESTDIR/no-pkg-config")
check_ne 0 $? "make status without pkg-config"
check_contains "$out" "cannot find '$TESTDIR/no-pkg-config': install pkg-config" "names pkg-config"

finish
