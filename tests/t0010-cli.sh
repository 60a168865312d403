#!/usr/bin/env bash
# t0010-cli: the binary's command line - help, version, usage errors.
. "$(dirname "$0")/lib.sh"

try "cgisnap --help lists every subcommand"
out=$("$CGISNAP" --help)
check_eq 0 $? "exit status"
for c in snapshot watch notify serve bench config profiles; do
	check_match "$out" "^  $c " "help lists $c"
done

try "cgisnap --version prints the version"
out=$("$CGISNAP" --version)
check_match "$out" '^cgisnap [0-9]+\.[0-9]+\.[0-9]+$' "version line"

# Every subcommand, the inspection commands too (cli_parsed answers for all).
ALL_COMMANDS="snapshot watch notify serve bench config profiles status why ls"

try "each subcommand has --help with a usage line, and --version"
for c in $ALL_COMMANDS; do
	out=$("$CGISNAP" "$c" --help 2>&1)
	check_eq 0 $? "$c --help exit status"
	check_match "$out" "^usage: cgisnap $c" "$c usage line"
	out=$("$CGISNAP" "$c" --version 2>&1)
	check_eq 0 $? "$c --version exit status"
	check_match "$out" '^cgisnap [0-9]+\.[0-9]+\.[0-9]+$' "$c version line"
done

try "an unknown subcommand is one line, exit status 2"
err=$("$CGISNAP" frobnicate 2>&1 >/dev/null)
check_eq 2 $? "exit status"
check_eq "cgisnap: unknown command 'frobnicate' (see 'cgisnap --help')" "$err" "message"

try "an unknown option is one line naming it, exit status 2"
err=$("$CGISNAP" --frob 2>&1 >/dev/null)
check_eq 2 $? "exit status (top level)"
check_eq 1 "$(printf '%s\n' "$err" | wc -l)" "one line"
check_contains "$err" "'--frob'" "names the option"
for c in $ALL_COMMANDS; do
	err=$("$CGISNAP" "$c" --frob 2>&1 >/dev/null)
	check_eq 2 $? "$c exit status"
	check_eq "cgisnap $c: unknown option '--frob' (see 'cgisnap $c --help')" "$err" "$c message"
done

try "the man page documents every option of every subcommand's --help"
man=$ROOT/build/cgisnap.1
check_file "$man" "build/cgisnap.1"
# The page's entry lines, read once: the options are looked up by bash.
entries=$(grep '^\\fB' "$man")
for c in snapshot watch notify serve bench config; do
	for o in $("$CGISNAP" "$c" --help | grep -oE '^  (-[a-zA-Z], |    )?--[a-z][a-z0-9-]*' | sed 's/.*--//'); do
		# an entry of its own (roff writes every '-' as '\-')
		o="--$o"
		[[ $entries == *"${o//-/\\-}"* ]] || fail "$c $o has no entry in the man page"
	done
	grep -qF ".SH \"CGISNAP $(echo "$c" | tr a-z A-Z)\"" "$man" || fail "no section for $c"
done

try "make deps: nothing to do when all is there; not root, it prints the exact command"
out=$("$ROOT/tools/deps.sh" build sites test deb 2>&1)
check_eq 0 $? "exit status with every package installed"
check_eq "" "$out" "output with every package installed"
if command -v setpriv >/dev/null; then
	# a copy the unprivileged user can reach (the checkout may be under /root)
	pub=$(mktemp -d /tmp/cgisnap-deps.XXXXXX)
	cp "$ROOT/tools/deps.sh" "$pub/"
	chmod 755 "$pub" "$pub/deps.sh"
	out=$(cd / && setpriv --reuid=65534 --regid=65534 --clear-groups "$pub/deps.sh" build pkg:cgisnap-no-such-package 2>&1)
	check_eq 1 $? "exit status as an ordinary user"
	check_contains "$out" "run as root: apt-get update && apt-get install -y --no-install-recommends cgisnap-no-such-package" "the command"
	check_not_contains "$out" "libxml2-dev" "installed packages are not asked for"
	rm -rf "$pub"
else
	fail "setpriv (util-linux) is missing"
fi

try "make deps as root: no service starts during the install, none is enabled after, policy-rc.d restored"
# apt-get and the rest are stand-ins that record what they were asked and
# what policy-rc.d answered while "installing"; no package is touched.
fake=$TESTDIR/fakebin
mkdir -p "$fake"
printf '#!/bin/sh\n[ "$1" = -u ] && { echo 0; exit; }; exec /usr/bin/id "$@"\n' >"$fake/id"
# php-fpm's service is the package it depends on (php8.2-fpm).
printf '#!/bin/sh\ncase "$*" in *Depends*php-fpm) echo php8.2-fpm ;; esac\nexit 0\n' >"$fake/dpkg-query"
printf '#!/bin/sh\necho "apt-get $*" >>"$DEPS_LOG"; "$CGISNAP_POLICY_RC_D" mariadb start; echo "policy $?" >>"$DEPS_LOG"; exit "${APT_STATUS:-0}"\n' >"$fake/apt-get"
printf '#!/bin/sh\necho "${0##*/} $*" >>"$DEPS_LOG"\n' >"$fake/deb-systemd-helper"
cp "$fake/deb-systemd-helper" "$fake/update-rc.d"
printf '#!/bin/sh\ncat >/dev/null\n' >"$fake/debconf-set-selections"
chmod +x "$fake"/*
printf '#!/bin/sh\n# the admin'"'"'s own\nexit 0\n' >"$TESTDIR/policy"
chmod +x "$TESTDIR/policy"
cp -p "$TESTDIR/policy" "$TESTDIR/policy.orig"
log=$TESTDIR/deps.log
DEPS_LOG=$log CGISNAP_POLICY_RC_D=$TESTDIR/policy PATH="$fake:$PATH" \
	"$ROOT/tools/deps.sh" pkg:mariadb-server pkg:hello >"$TESTDIR/deps.out" 2>&1
check_eq 0 $? "exit status ($(cat "$TESTDIR/deps.out"))"
check_contains "$(cat "$log")" "policy 101" "services refused during the install"
check_contains "$(cat "$log")" "deb-systemd-helper disable mariadb.service" "the systemd unit disabled"
check_contains "$(cat "$log")" "update-rc.d mariadb disable" "the SysV links disabled"
check_not_contains "$(grep -v '^apt-get' "$log")" "hello" "a package without a service is left alone"
rm -f "$log"
DEPS_LOG=$log CGISNAP_POLICY_RC_D=$TESTDIR/policy PATH="$fake:$PATH" \
	"$ROOT/tools/deps.sh" pkg:php-fpm >"$TESTDIR/deps.out" 2>&1
check_eq 0 $? "php-fpm: exit status ($(cat "$TESTDIR/deps.out"))"
check_contains "$(cat "$log")" "deb-systemd-helper disable php8.2-fpm.service" "php-fpm's versioned unit disabled"
check_contains "$(cat "$log")" "update-rc.d php8.2-fpm disable" "and its SysV links"
check_cmp "$TESTDIR/policy.orig" "$TESTDIR/policy" "the admin's policy-rc.d put back"
check_eq "" "$(ls "$TESTDIR" | grep 'policy\.cgisnap')" "no temporary file left"
rm -f "$TESTDIR/policy" "$log"
DEPS_LOG=$log CGISNAP_POLICY_RC_D=$TESTDIR/policy APT_STATUS=100 PATH="$fake:$PATH" \
	"$ROOT/tools/deps.sh" pkg:mariadb-server >/dev/null 2>&1
check_eq 1 $? "exit status when apt-get fails"
check_contains "$(cat "$log")" "policy 101" "refused then too"
check_no_file "$TESTDIR/policy" "no policy-rc.d left where there was none"

try "cgisnap profiles lists each shipped profile: description, detection, what it sets"
out=$("$CGISNAP" profiles 2>&1)
check_eq 0 $? "exit status"
check_match "$out" "^Site profiles in '$ROOT/profiles'" "found beside the binary of a checkout"
check_match "$out" '^dokuwiki: DokuWiki' "the DokuWiki profile and its description"
check_match "$out" '^  detect: file doku\.php, file inc/init\.php' "its detection rule"
check_match "$out" '^    exclude = .*do=\(edit' "the options it sets"
check_match "$out" '^    strip = .*taskrunner' "its strip rule"
check_eq "$out" "$("$CGISNAP" snapshot --list-profiles 2>&1)" "snapshot --list-profiles says the same"
check_eq "$out" "$("$CGISNAP" watch --list-profiles 2>&1)" "and watch --list-profiles"
err=$("$CGISNAP" profiles extra 2>&1 >/dev/null)
check_eq 2 $? "an argument is a usage error"
check_contains "$err" "cgisnap profiles: takes no arguments" "message"
check_match "$("$CGISNAP" snapshot --help)" '^ +--profile NAME ' "snapshot --help has --profile"
check_match "$("$CGISNAP" watch --help)" '^ +--profile NAME ' "watch --help has --profile"

try "CGISNAP_PROFILE_DIR chooses where profiles are read; an unknown --profile names the ones there"
mkdir -p "$TESTDIR/prof"
printf '# description: mine\n# detect: file mine.marker\nexclude = ^/private/\n' >"$TESTDIR/prof/mine.conf"
out=$(CGISNAP_PROFILE_DIR=$TESTDIR/prof "$CGISNAP" profiles)
check_match "$out" '^mine: mine$' "the directory's profile"
check_not_contains "$out" "dokuwiki" "and only its"
err=$(CGISNAP_PROFILE_DIR=$TESTDIR/prof "$CGISNAP" snapshot --root "$TESTDIR" --cgi php=php-cgi \
	--profile nosuch "$TESTDIR/out" 2>&1 >/dev/null)
check_eq 2 $? "exit status"
check_eq 1 "$(printf '%s\n' "$err" | wc -l)" "one line"
check_contains "$err" "no profile 'nosuch'" "names the wrong one"
check_contains "$err" "(profiles: mine)" "and the ones there are"
check_no_file "$TESTDIR/out" "nothing made"
err=$("$CGISNAP" snapshot --root "$TESTDIR" --profile ../../etc/passwd "$TESTDIR/out" 2>&1 >/dev/null)
check_eq 2 $? "a path is no profile name"
check_contains "$err" "bad profile name '../../etc/passwd'" "message"
printf '# description: broken\n# detect: file x\nno-such-option = 1\n' >"$TESTDIR/prof/broken.conf"
err=$(CGISNAP_PROFILE_DIR=$TESTDIR/prof "$CGISNAP" snapshot --root "$TESTDIR" --profile broken \
	"$TESTDIR/out" 2>&1 >/dev/null)
check_eq 2 $? "a broken profile is a usage error"
check_contains "$err" "broken.conf:3: unknown option 'no-such-option'" "naming its file and line"

try "no subcommand is a usage error"
"$CGISNAP" >/dev/null 2>&1
check_eq 2 $? "exit status"

finish
