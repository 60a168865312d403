#!/usr/bin/env bash
# t0032-deb: the Debian package. 'make deb' builds it with
# dpkg-buildpackage from a copy of the source, lintian finds no error in
# it; it holds the binary, the tracer library, the man page, the bash
# completion, the profiles, the systemd template units and the docs where
# Debian puts them; 'apt-get install ./cgisnap_*.deb' installs it (no
# unit enabled), the installed cgisnap snapshots the sample wiki, and a
# purge takes every file away again.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || fail "installing a package needs root (make test runs as root in CI)"
! dpkg-query -W -f='${db:Status-Abbrev}' cgisnap 2>/dev/null | grep -q '^i' ||
	fail "a cgisnap package is installed here already: this test installs and purges its own"
VERSION=$(sed -n 's/^VERSION = //p' "$ROOT/Makefile")
DEB=$TESTDIR/deb

try "make deb builds it, and lintian finds no error"
# No debug symbols package: the test's time, not what it checks.
DEB_BUILD_OPTIONS=noautodbgsym make -C "$ROOT" --no-print-directory deb DEB_DIR="$DEB" >"$TESTDIR/make.out" 2>&1
check_eq 0 $? "make deb ($(tail -5 "$TESTDIR/make.out"))"
PKG=$DEB/cgisnap_${VERSION}_$(dpkg --print-architecture).deb
check_file "$PKG" "the package, of the Makefile's version"
check_eq "$VERSION" "$(dpkg-parsechangelog -l "$ROOT/debian/changelog" -S Version)" "debian/changelog's version"

try "it holds each file where Debian puts it"
contents=$(dpkg-deb -c "$PKG" | awk '{ print $6 }')
for f in ./usr/bin/cgisnap ./usr/lib/cgisnap/cgisnap-trace.so ./usr/share/man/man1/cgisnap.1.gz \
	./usr/share/bash-completion/completions/cgisnap ./usr/share/cgisnap/profiles/dokuwiki.conf \
	./usr/share/cgisnap/profiles/wordpress.conf ./lib/systemd/system/cgisnap-watch@.service \
	./lib/systemd/system/cgisnap-serve@.service ./usr/share/doc/cgisnap/snapshot.md \
	./usr/share/doc/cgisnap/copyright ./usr/share/doc/cgisnap/changelog.gz; do
	check_contains "$contents" "$f" "$f"
done
check_contains "$(dpkg-deb -f "$PKG" Depends)" "libmicrohttpd" "the libraries it links, as dependencies"

# Another dpkg run of this machine's (a trigger's, an upgrade's) may hold
# dpkg's lock for a while: apt-get waits for it, dpkg alone would fail.
APT=(apt-get -y -o DPkg::Lock::Timeout=300)

try "apt-get install ./cgisnap_*.deb, then the installed cgisnap snapshots a site"
at_exit "${APT[*]} purge cgisnap >/dev/null 2>&1"
"${APT[@]}" install "$PKG" >"$TESTDIR/apt.out" 2>&1
check_eq 0 $? "apt-get install ($(tail -3 "$TESTDIR/apt.out"))"
check_eq "cgisnap $VERSION" "$(/usr/bin/cgisnap --version 2>&1 | head -1)" "the installed binary"
for u in cgisnap-watch@ cgisnap-serve@; do
	check_eq "" "$(find /etc/systemd/system -name "$u*" 2>/dev/null)" "$u not enabled"
done
seed_wiki "$TESTDIR/wiki" 5
/usr/bin/cgisnap snapshot --root "$TESTDIR/wiki" --cgi php=php-cgi -q "$TESTDIR/out" 2>"$TESTDIR/snap.err"
check_eq 0 $? "snapshot with the installed binary ($(tail -3 "$TESTDIR/snap.err"))"
check_file "$TESTDIR/out/doku.php@id=start.html" "the start page"
# The profiles are looked for where the package put them.
/usr/bin/cgisnap snapshot --root "$TESTDIR/wiki" --profile nosuch "$TESTDIR/out2" 2>"$TESTDIR/prof.err"
check_contains "$(cat "$TESTDIR/prof.err")" "no profile 'nosuch' in '/usr/share/cgisnap/profiles' (profiles: dokuwiki, wordpress)" \
	"the profiles' directory"

try "a purge takes every file away"
"${APT[@]}" purge cgisnap >"$TESTDIR/purge.out" 2>&1
check_eq 0 $? "apt-get purge ($(tail -3 "$TESTDIR/purge.out"))"
for f in /usr/bin/cgisnap /usr/lib/cgisnap /usr/share/cgisnap /usr/share/doc/cgisnap /lib/systemd/system/cgisnap-watch@.service; do
	check_no_file "$f" "$f gone"
done
finish
