#!/usr/bin/env bash
# t0010-cli: the binary's command line - help, version, usage errors.
. "$(dirname "$0")/lib.sh"

try "cgisnap --help lists every subcommand"
out=$("$CGISNAP" --help)
check_eq 0 $? "exit status"
for c in snapshot watch serve bench config; do
	check_match "$out" "^  $c " "help lists $c"
done

try "cgisnap --version prints the version"
out=$("$CGISNAP" --version)
check_match "$out" '^cgisnap [0-9]+\.[0-9]+\.[0-9]+$' "version line"

try "each subcommand has --help with a usage line"
for c in snapshot watch serve bench config; do
	out=$("$CGISNAP" "$c" --help 2>&1)
	check_eq 0 $? "$c --help exit status"
	check_match "$out" "^usage: cgisnap $c" "$c usage line"
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
for c in snapshot watch serve bench config; do
	err=$("$CGISNAP" "$c" --frob 2>&1 >/dev/null)
	check_eq 2 $? "$c exit status"
	check_eq "cgisnap $c: unknown option '--frob' (see 'cgisnap $c --help')" "$err" "$c message"
done

try "the man page documents every option of every subcommand's --help"
man=$ROOT/build/cgisnap.1
check_file "$man" "build/cgisnap.1"
for c in snapshot watch serve bench config; do
	for o in $("$CGISNAP" "$c" --help | grep -oE '^  (-[a-zA-Z], |    )?--[a-z][a-z0-9-]*' | sed 's/.*--//'); do
		# an entry of its own (roff writes every '-' as '\-')
		grep '^\\fB' "$man" | grep -qF -- "$(printf '%s' "--$o" | sed 's/-/\\-/g')" ||
			fail "$c --$o has no entry in the man page"
	done
	grep -qF ".SH \"CGISNAP $(echo "$c" | tr a-z A-Z)\"" "$man" || fail "no section for $c"
done

try "make deps: nothing to do when all is there; not root, it prints the exact command"
out=$("$ROOT/tools/deps.sh" build sites test 2>&1)
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

try "no subcommand is a usage error"
"$CGISNAP" >/dev/null 2>&1
check_eq 2 $? "exit status"

finish
