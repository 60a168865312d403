#!/usr/bin/env bash
# t0011-cli-options: command lines typed as people type them (getopt_long's
# forms, -V everywhere, "did you mean"), quoted option-file values, and
# what -c means in each command. A table: exit status, then the first line
# of stderr (or of stdout, for rows starting "out:"), then the command.
. "$(dirname "$0")/lib.sh"

SITE=$TESTDIR/site
mkdir -p "$SITE"
printf '<html><body><a href="/a.html">a</a> <a href="/skip#me.html">skip</a></body></html>\n' >"$SITE/index.html"
printf '<p>a</p>\n' >"$SITE/a.html"
printf '<p>skipped</p>\n' >"$SITE/skip#me.html"
version=$("$CGISNAP" --version)

# row EXIT EXPECTED ARGS...: EXPECTED is the first line of stderr, exactly
# (the usage suffix " (see 'cgisnap CMD --help')" included), "" for an
# empty stderr, or "out:TEXT" for the first line of stdout.
row() {
	local want_rc=$1 want=$2 rc out err
	shift 2
	out=$(cd "$TESTDIR" && timeout 60 "$CGISNAP" "$@" 2>"$TESTDIR/row.err")
	rc=$?
	err=$(cat "$TESTDIR/row.err")
	check_eq "$want_rc" "$rc" "exit status of: cgisnap $*"
	case $want in
	out:*) check_eq "${want#out:}" "$(printf '%s\n' "$out" | head -n1)" "stdout of: cgisnap $*" ;;
	*) check_eq "$want" "$(printf '%s\n' "$err" | head -n1)" "stderr of: cgisnap $*" ;;
	esac
}
see() { printf " (see 'cgisnap %s --help')" "$1"; }

try "-V and --version on every subcommand, alone or in a cluster"
for c in snapshot watch notify serve bench config profiles; do
	row 0 "out:$version" "$c" -V
	row 0 "out:$version" "$c" --version
done
row 0 "out:$version" -V
row 0 "out:$version" snapshot -qV
row 0 "out:usage: cgisnap snapshot [OPTIONS] DIR" snapshot -qh

try "getopt_long forms: clusters, attached values, '=' and '--'"
row 0 "" snapshot -qj2 --root="$SITE" --exclude=skip o1
check_file "$TESTDIR/o1/a.html" "clustered -qj2 crawled"
row 0 "" snapshot -q -j 2 --root "$SITE" -- o2
check_file "$TESTDIR/o2/a.html" "DIR after --"
row 0 "" snapshot --root "$SITE" o3 -qj1
check_file "$TESTDIR/o3/index.html" "options after the argument"
row 2 "cgisnap snapshot: unknown option '-Z' in '-qZ'$(see snapshot)" snapshot -qZ o4
row 2 "cgisnap snapshot: option '-j' needs a value (N)$(see snapshot)" snapshot -qj
row 2 "cgisnap snapshot: option '--quiet' takes no value$(see snapshot)" snapshot --quiet=yes o4
row 2 "cgisnap snapshot: option '--jobs' needs a number from 1 to 1024, not 'x'$(see snapshot)" snapshot -jx o4
check_no_file "$TESTDIR/o4" "nothing made by a bad command line"

try "a near miss is named; prefixes are not taken"
row 2 "cgisnap snapshot: unknown option '--exlude' (did you mean '--exclude'?)$(see snapshot)" snapshot --exlude x o4
row 2 "cgisnap watch: unknown option '--exlude' (did you mean '--exclude'?)$(see watch)" watch --exlude=x o4
row 2 "cgisnap snapshot: unknown option '-exclude' (did you mean '--exclude'?)$(see snapshot)" snapshot -exclude x o4
row 2 "cgisnap serve: unknown option '--verb' (did you mean '--verbose'?)$(see serve)" serve --verb o1
row 2 "cgisnap config: unknown option '--lisen' (did you mean '--listen'?)$(see config)" config nginx --lisen :80 o1
row 2 "cgisnap bench: unknown option '--concurency' (did you mean '--concurrency'?)$(see bench)" bench --concurency 2
row 2 "cgisnap notify: unknown option '--frob'$(see notify)" notify --frob o1

try "option files: quoted values lose their quotes, '#' inside quotes stays"
cat >"$TESTDIR/quoted.conf" <<CONF
# the user's file
root = "$SITE"   # a comment after the value
exclude = 'skip#me'
jobs = "2"
quiet = 'yes'
CONF
row 0 "" snapshot -c quoted.conf o5
check_file "$TESTDIR/o5/a.html" "crawled with the quoted root"
check_no_file "$TESTDIR/o5/skip#me.html" "the quoted exclude (with '#') applied"
row 0 "" snapshot --config=quoted.conf o6
check_file "$TESTDIR/o6/a.html" "--config=FILE"
printf 'root = "%s\n' "$SITE" >"$TESTDIR/open.conf"
row 2 "cgisnap snapshot: open.conf:1: missing closing quote (\")$(see snapshot)" snapshot -c open.conf o7
printf 'exlude = x\n' >"$TESTDIR/near.conf"
row 2 "cgisnap snapshot: near.conf:1: unknown option 'exlude' (did you mean 'exclude'?)$(see snapshot)" snapshot -c near.conf o7
check_no_file "$TESTDIR/o7" "nothing made by a bad option file"

try "-c is the option file in every command but bench, where it is ab's concurrency"
printf "listen = '127.0.0.1:8099'\n" >"$TESTDIR/config.conf"
row 0 "" config nginx -c config.conf o1
check_contains "$("$CGISNAP" config nginx -c "$TESTDIR/config.conf" "$TESTDIR/o1")" "listen 127.0.0.1:8099" "config -c FILE applied"
printf 'timeout = "x"\n' >"$TESTDIR/notify.conf"
row 2 "cgisnap notify: notify.conf:1: option 'timeout' needs a number from 0 to 86400, not 'x'$(see notify)" notify -c notify.conf o1
printf "any-dir = 'maybe'\n" >"$TESTDIR/serve.conf"
row 2 "cgisnap serve: serve.conf:1: option 'any-dir' takes yes or no, not 'maybe'$(see serve)" serve -c serve.conf o1
row 2 "cgisnap bench: option '--concurrency' needs a number from 1 to 100000, not 'config.conf'$(see bench)" bench -c config.conf
printf 'concurrency = "0"\n' >"$TESTDIR/bench.conf"
row 2 "cgisnap bench: bench.conf:1: option 'concurrency' needs a number from 1 to 100000, not '0'$(see bench)" bench --config bench.conf
check_contains "$("$CGISNAP" bench --help)" "(-c is ab's concurrency here" "bench --help says so"

finish
