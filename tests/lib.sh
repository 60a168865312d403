# tests/lib.sh - shared harness for the integration tests (tNNNN-topic.sh).
#
# A test script sources this file, then runs cases:
#
#     . "$(dirname "$0")/lib.sh"
#     try "snapshot stores the front page"
#     "$CGISNAP" snapshot --root "$site" "$TESTDIR/out" 2>"$TESTDIR/err"
#     check_eq 0 $? "exit status"
#     check_contains "$(cat "$TESTDIR/out/index.html")" "<h1>" "front page"
#     finish
#
# A case passes when none of its checks failed. Every failure names the case
# and what was expected versus seen. finish prints the script's counts on
# a line "# counts: PASSED FAILED" that tests/run adds up, and exits non-zero
# when anything failed. $TESTDIR is a fresh directory removed at exit, $ROOT
# the repository, $CGISNAP the binary under test. Background processes
# started with bg_start are stopped at exit, with whatever they forked.

set -u
# The suite runs the programs of Debian's packages (tools/deps.sh installs
# them), not what a user's PATH puts first: a version manager's shim
# (pyenv's python3 is a bash script) took 0.7 s of CPU a call here, and
# another python3 may lack what the tests import.
PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CGISNAP=${CGISNAP:-$ROOT/cgisnap}
# Run as root (as CI is), cgisnap would render the tests' sites as
# www-data, who cannot enter a test's private directory: the suite
# renders as the user it runs as, and t0028 tests the switch itself.
if [ "$(id -u)" = 0 ]; then export CGISNAP_USER=${CGISNAP_USER:-root}; fi
TEST_NAME=$(basename "$0" .sh)
TESTDIR=$(mktemp -d "${TMPDIR:-/tmp}/cgisnap-$TEST_NAME.XXXXXX")
# What the programs a test runs keep in TMPDIR (cgisnap's PHP session and
# worker directories) goes with the test's directory, also when the test
# kills them with SIGKILL before they could remove it.
mkdir -p "$TESTDIR/tmp" && export TMPDIR=$TESTDIR/tmp
# Numbered like git's tests: the number picks a port range of its own.
TEST_NUMBER=$(printf '%s' "$TEST_NAME" | sed -n 's/^t0*\([0-9][0-9]*\).*/\1/p')
TEST_NUMBER=${TEST_NUMBER:-0}

_cases_passed=0
_cases_failed=0
_case=""
_case_failures=0
_bg_pids=""

# at_exit CMD: run CMD (eval) when the script ends, once its background
# processes are gone and before its directory goes.
_at_exit=()
at_exit() {
	_at_exit+=("$1")
}

_cleanup() {
	local p status=$?
	# Only the script's own shell cleans up: a subshell may inherit the trap
	# (one signalled before it could exec its command runs it).
	[ "$BASHPID" = "$$" ] || return 0
	# A second signal (timeout sends one to the process and one to its
	# group) must not cut the cleanup short.
	trap - EXIT
	trap '' INT TERM
	# Every group gets TERM at once, then each is given the grace period;
	# one TERM each: a second one can cut a script's own EXIT trap short.
	for p in $_bg_pids; do
		_bg_ours "$p" && kill -TERM "$p" 2>/dev/null
		_bg_members "$p" | grep -vx "$p" | xargs -r kill -TERM 2>/dev/null
	done
	for p in $_bg_pids; do
		_bg_end "$p"
	done
	# at_exit's commands, last first (a filesystem the test mounted).
	local i
	for ((i = ${#_at_exit[@]} - 1; i >= 0; i--)); do
		eval "${_at_exit[i]}" || true
	done
	# Only once the servers are gone can their ports go to another test.
	_ports_release
	# KEEP_TESTDIR=1 keeps every script's directory, =failed only a failed
	# one's (to look into a failure a loop of runs met once).
	if [ "${KEEP_TESTDIR:-}" = failed ] && [ "$status" -eq 0 ] && [ "${_cases_failed:-0}" -eq 0 ]; then
		rm -rf "$TESTDIR"
	elif [ -n "${KEEP_TESTDIR:-}" ]; then
		echo "# kept $TESTDIR"
	else
		rm -rf "$TESTDIR"
	fi
}
trap _cleanup EXIT

_end_case() {
	[ -n "$_case" ] || return 0
	# CASE_TIMES=1: each case's seconds, to find where a script's time goes.
	[ -z "${CASE_TIMES:-}" ] || awk -v a="$_case_start" -v b="$EPOCHREALTIME" -v c="$_case" \
		'BEGIN { printf "# %7.1f s  %s\n", b - a, c }'
	if [ "$_case_failures" -eq 0 ]; then
		_cases_passed=$((_cases_passed + 1))
		echo "ok - $TEST_NAME: $_case"
	else
		_cases_failed=$((_cases_failed + 1))
		echo "FAIL - $TEST_NAME: $_case"
	fi
	_case=""
}

# try TITLE: start a new case (ends the previous one).
try() {
	_end_case
	_case=$1
	_case_failures=0
	_case_start=$EPOCHREALTIME
}

# fail WHAT: record a failure of the current case with a message.
fail() {
	_case_failures=$((_case_failures + 1))
	echo "    not ok: $*"
}

_show() {
	# Long values are cut so a failure stays readable.
	local s=$1
	if [ ${#s} -gt 300 ]; then
		s="${s:0:300}... (${#1} bytes)"
	fi
	printf '%s' "$s"
}

check_eq() {
	[ "$1" = "$2" ] && return 0
	case "$1$2" in
	*"
"*) # Lists: the lines that differ say more than a cut of both.
		fail "${3:-value}: expected and saw differ ('-' expected only, '+' seen only):
$(diff <(printf '%s\n' "$1") <(printf '%s\n' "$2") | grep '^[<>]' | sed 's/^</-/; s/^>/+/' | head -20)" ;;
	*) fail "${3:-value}: expected '$(_show "$1")', saw '$(_show "$2")'" ;;
	esac
}

check_ne() {
	[ "$1" != "$2" ] || fail "${3:-value}: expected anything but '$(_show "$1")'"
}

check_contains() {
	case "$1" in
	*"$2"*) ;;
	*) fail "${3:-text}: expected to contain '$(_show "$2")', saw '$(_show "$1")'" ;;
	esac
}

check_not_contains() {
	case "$1" in
	*"$2"*) fail "${3:-text}: expected not to contain '$(_show "$2")', saw '$(_show "$1")'" ;;
	esac
}

check_match() {
	printf '%s' "$1" | grep -Eq -- "$2" ||
		fail "${3:-text}: expected to match /$2/, saw '$(_show "$1")'"
}

check_no_match() {
	if printf '%s' "$1" | grep -Eq -- "$2"; then
		fail "${3:-text}: expected not to match /$2/, saw '$(_show "$1")'"
	fi
}

# check_file PATH [what]: PATH exists as a regular file.
check_file() {
	[ -f "$1" ] || fail "${2:-file}: expected file '$1' to exist"
}

# check_no_file PATH [what]: nothing at PATH.
check_no_file() {
	[ ! -e "$1" ] || fail "${2:-file}: expected '$1' not to exist"
}

# check_cmp FILE1 FILE2 [what]: byte-identical files.
check_cmp() {
	cmp -s "$1" "$2" || fail "${3:-files}: '$1' and '$2' differ ($(cmp "$1" "$2" 2>&1 | head -1))"
}

# check_lt A B [what]: number A < number B.
check_lt() {
	[ "$1" -lt "$2" ] 2>/dev/null || fail "${3:-number}: expected $1 < $2"
}

# check_le A B [what]: number A <= number B.
check_le() {
	[ "$1" -le "$2" ] 2>/dev/null || fail "${3:-number}: expected $1 <= $2"
}

# Ports. Why a reservation and not a check: a port found free by trying
# to connect to it may be taken before the test's server binds it, by the
# other script tests/run runs beside this one or by a second suite on the
# machine (check-then-bind). So port hands out a port only once it has
# recorded it, under one lock for every run on the machine, as this
# script's: a file named by the port in CGISNAP_TEST_PORTS holding the
# owner's pid and start time. A port recorded for another live owner is
# never handed out; the records go at exit, and one whose owner died
# without its exit (kill -9) is taken over. A port that a program outside
# the suite listens on is skipped too; one that such a program takes
# after that is the only race left, and a test whose server can tell the
# port it got (cgisnap serve --listen 127.0.0.1:0) avoids even that.
CGISNAP_TEST_PORTS=${CGISNAP_TEST_PORTS:-/tmp/cgisnap-test-ports}

# _proc_start PID: PID's start time (clock ticks since boot), or nothing.
_proc_start() {
	local stat
	read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
	set -- ${stat##*) }
	echo "${20}"
}
_port_owner="$$ $(_proc_start $$)"

# _port_take P: record P as this script's, unless a live owner other than
# this script has it. Run with the registry's lock held.
_port_take() {
	local f=$CGISNAP_TEST_PORTS/$1 pid start
	if [ -f "$f" ] && read -r pid start <"$f" && [ "$pid $start" != "$_port_owner" ] &&
		[ "$(_proc_start "$pid")" = "$start" ]; then
		return 1
	fi
	echo "$_port_owner" >"$f"
}

# port_reserve P: reserve TCP port P for this script, if no other test
# has it and nothing listens on it. 0 when P is this script's now.
port_reserve() (
	mkdir -p "$CGISNAP_TEST_PORTS" 2>/dev/null && chmod 1777 "$CGISNAP_TEST_PORTS" 2>/dev/null
	[ -e "$CGISNAP_TEST_PORTS/lock" ] || : >>"$CGISNAP_TEST_PORTS/lock"
	exec 8<"$CGISNAP_TEST_PORTS/lock" && flock -w 30 8 || {
		echo "cannot lock '$CGISNAP_TEST_PORTS/lock'" >&2
		exit 2
	}
	local ours=""
	[ "$(cat "$CGISNAP_TEST_PORTS/$1" 2>/dev/null)" = "$_port_owner" ] && ours=1
	_port_take "$1" || exit 1
	if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then
		# Something listens there (one of this script's servers keeps it).
		[ -n "$ours" ] || rm -f "$CGISNAP_TEST_PORTS/$1"
		exit 1
	fi
)

# port N: a TCP port on 127.0.0.1 reserved for this script (N in 0..9),
# first tried from the test's number, else below the kernel's ephemeral
# range. CGISNAP_TEST_PORT_BASE (default 20000) moves the first tries.
port() {
	local p=$((${CGISNAP_TEST_PORT_BASE:-20000} + (TEST_NUMBER % 4000) * 10 + ${1:-0})) tries=0 rc
	local lo=32768 hi=60999
	read -r lo hi </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null
	while :; do
		# Never a port of the kernel's ephemeral range: any program's
		# outgoing connection may be given one of those at any moment.
		if [ "$p" -ge "$lo" ] && [ "$p" -le "$hi" ]; then
			rc=1
		else
			port_reserve "$p"
			rc=$?
		fi
		[ "$rc" -eq 0 ] && break
		[ "$rc" -eq 1 ] && [ "$tries" -lt 200 ] || return 1
		p=$((10000 + RANDOM % 10000))
		tries=$((tries + 1))
	done
	echo "$p"
}

# _ports_release: give back the ports this script reserved.
_ports_release() {
	local f
	for f in "$CGISNAP_TEST_PORTS"/[0-9]*; do
		[ "$(cat "$f" 2>/dev/null)" = "$_port_owner" ] && rm -f "$f"
	done
	return 0
}

# Background processes. bg_start gives each one a process group of its own
# (job control on for that one fork), so that stopping it reaches what it
# forked as well: php -S and FastCGI workers, nginx and Apache children, the
# renders of a server. tests/run fails a script that leaves anything behind.
#
# BG_GRACE: seconds a stopped process may take to exit before it is killed.
BG_GRACE=${BG_GRACE:-30}
_bg_sid=$(ps -o sid= -p $$ | tr -d ' ')

# _bg_ours PID: PID is a child of this shell, alive (not a zombie): a
# number the system has since given to someone else is never signalled.
# (Not its session: a daemon such as php-cgi -b may have left it.)
_bg_ours() {
	local stat
	read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
	set -- ${stat##*) }
	[ "$1" != Z ] && [ "$2" = "$BASHPID" ]
}

# _bg_members PGID: the live processes of group PGID in this session (the
# group's number may be someone else's once it is empty).
_bg_members() {
	ps -e -o pid=,pgid=,sid=,stat= |
		awk -v g="$1" -v s="$_bg_sid" '$2 == g && $3 == s && $4 !~ /^Z/ { print $1 }'
}

_bg_gone() {
	! _bg_ours "$1"
}

_bg_group_empty() {
	[ -z "$(_bg_members "$1")" ]
}

# _bg_end PID: the end of stopping PID, signalled already: give it the
# grace period, then KILL its group; wait for it (its status is ours); then
# what is left of its group gets TERM, the grace period and KILL.
_bg_end() {
	local pid=$1 status
	wait_until "$BG_GRACE" _bg_gone "$pid" || kill -KILL -- "-$pid" "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	status=$?
	if ! _bg_group_empty "$pid"; then
		_bg_members "$pid" | xargs -r kill -TERM 2>/dev/null
		if ! wait_until "$BG_GRACE" _bg_group_empty "$pid"; then
			_bg_members "$pid" | xargs -r kill -KILL 2>/dev/null
			wait_until 5 _bg_group_empty "$pid"
		fi
	fi
	_bg_pids=" $_bg_pids "
	_bg_pids=${_bg_pids// $pid / }
	return "$status"
}

# bg_start CMD...: run CMD (a program or a function) in the background, in
# a process group of its own, standard input from /dev/null; stopped at
# exit. Sets BG_PID (the group's leader).
bg_start() {
	set -m
	"$@" </dev/null &
	BG_PID=$!
	set +m
	_bg_pids="$_bg_pids $BG_PID"
}

# bg_stop PID [SIG]: stop a process of bg_start: SIG (TERM) to it alone, so
# that its own handling of the signal is what a test sees; KILL after
# BG_GRACE seconds; then the rest of its group goes too. Returns its exit
# status.
bg_stop() {
	_bg_ours "$1" && kill "-${2:-TERM}" "$1" 2>/dev/null
	_bg_end "$1"
}

# nap SECONDS: sleep without a process: read -t on a FIFO nobody writes.
# A poll loop that ran sleep(1) forked and exec'ed twenty times a second,
# each costing more CPU than most of the checks it waited between, and
# taken from the script running beside it.
_nap_fd=""
nap() {
	if [ -z "$_nap_fd" ]; then
		[ -p "$TESTDIR/.nap" ] || mkfifo "$TESTDIR/.nap" 2>/dev/null
		# The group, not exec, gets 2>/dev/null: on exec itself it
		# would silence the script's stderr for good.
		{ exec {_nap_fd}<>"$TESTDIR/.nap"; } 2>/dev/null || { _nap_fd=""; sleep "$1"; return 0; }
	fi
	read -r -t "$1" -u "$_nap_fd"
	return 0
}

# wait_until SECONDS CMD...: poll CMD until it succeeds, every 20 ms for
# the first second, then every 50 ms; 1 on timeout, with a comment line
# naming the wait: a wait that runs out where the test goes on anyway is
# time lost, and this is where it shows.
wait_until() {
	local ms=$(($1 * 1000)) start=${EPOCHREALTIME/./} waited
	shift
	while ! "$@" 2>/dev/null; do
		waited=$(((${EPOCHREALTIME/./} - start) / 1000))
		if [ "$waited" -ge "$ms" ]; then
			printf '# wait_until: gave up after %s s: %s\n' "$((ms / 1000))" "$*" | cut -c1-200 >&2
			return 1
		fi
		if [ "$waited" -lt 1000 ]; then nap 0.02; else nap 0.05; fi
	done
}

# wait_port PORT [SECONDS]: wait until a server of this test accepts on
# 127.0.0.1:PORT; 1 when none did in time. A program outside the test
# that took the port after port() reserved it (the one race a reservation
# leaves) is not taken for the test's server: 2, with a comment line
# naming it, so that the test fails saying so instead of talking to it.
wait_port() {
	wait_until "${2:-10}" bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" || return 1
	_port_ours "$1" && return 0
	printf '# wait_port: port %s is held by a program outside this test: %s\n' "$1" \
		"$(ss -Hltnp "sport = :$1" 2>/dev/null | grep -o 'users:.*' | head -1)" >&2
	return 2
}

# _port_ours PORT: a process listening on PORT is this test's: of its
# session, or marked as its by tests/run (a daemon may leave the session).
# Without ss(8) to ask, any listener is taken as the test's.
_port_ours() {
	local pid sid
	command -v ss >/dev/null || return 0
	for pid in $(ss -Hltnp "sport = :$1" 2>/dev/null | grep -oE 'pid=[0-9]+' | cut -d= -f2); do
		sid=$(ps -o sid= -p "$pid" 2>/dev/null | tr -d ' ')
		[ "$sid" = "$_bg_sid" ] && return 0
		[ -n "${CGISNAP_TEST_RUN:-}" ] &&
			tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qxF "CGISNAP_TEST_RUN=$CGISNAP_TEST_RUN" &&
			return 0
	done
	return 1
}

# cgi_env DOCROOT SCRIPT_NAME TARGET: print env(1) arguments for a CGI request.
cgi_env() {
	local root=$1 script=$2 target=$3 query=""
	case "$target" in *\?*) query=${target#*\?} ;; esac
	printf '%s\n' REDIRECT_STATUS=200 GATEWAY_INTERFACE=CGI/1.1 SERVER_PROTOCOL=HTTP/1.1 \
		SERVER_SOFTWARE=cgisnap-test REQUEST_METHOD=GET "SCRIPT_NAME=$script" \
		"SCRIPT_FILENAME=$root$script" "DOCUMENT_ROOT=$root" "REQUEST_URI=$target" \
		"QUERY_STRING=$query" HTTP_HOST=localhost:8080 SERVER_NAME=localhost \
		SERVER_PORT=8080 REMOTE_ADDR=127.0.0.1 PATH=/usr/bin:/bin
}

# cgi NAME BODY [DIR]: a shell CGI program DIR/NAME (DIR: $SITE) whose
# script is BODY.
cgi() {
	local dir=${3:-$SITE}
	printf '#!/bin/sh\n%s\n' "$2" >"$dir/$1"
	chmod +x "$dir/$1"
}

# seed_wiki DIR [PAGES]: a fresh copy of the sample wiki in DIR, seeded.
seed_wiki() {
	mkdir -p "$1"
	cp -r "$ROOT/sample-sites/wiki/." "$1/"
	rm -rf "$1/data"
	php "$1/bin/seed.php" --pages "${2:-200}" --dir "$1" >/dev/null
}

# wiki_pages SITE [NS]: the ids of the pages of namespace NS (every
# namespace without NS) of the sample wiki in SITE, start pages left out,
# sorted: "howto:page03" lines.
wiki_pages() {
	(cd "$1/data/pages" && find "${2:-.}" -name '*.txt' ! -name start.txt) |
		sed 's|^\./||; s/\.txt$//; s|/|:|g' | LC_ALL=C sort
}

# seed_blog DIR [POSTS] [SITE_URL]: a fresh copy of the sample blog in DIR, seeded.
seed_blog() {
	mkdir -p "$1"
	cp -r "$ROOT/sample-sites/blog/." "$1/"
	php "$1/bin/seed.php" --posts "${2:-500}" --site-url "${3:-http://localhost:8080}" --dir "$1" >/dev/null
}

# finish: end the last case, print the counts, exit non-zero on failure.
finish() {
	_end_case
	echo "# counts: $_cases_passed $_cases_failed"
	[ "$_cases_failed" -eq 0 ]
	exit $?
}

# tree_sql DIR SQL [ARG...]: run one SQL statement on DIR/.cgisnap/tree.db
# (the schema is docs/tree-db.md), each ? bound to the next ARG, in one
# transaction as a second writer would; rows it returns are printed, tab
# separated. For the tests that edit a tree's metadata behind cgisnap.
tree_sql() {
	python3 - "$@" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1] + "/.cgisnap/tree.db", timeout=10)
with db:
    for row in db.execute(sys.argv[2], sys.argv[3:]):
        print("\t".join("" if v is None else str(v) for v in row))
db.close()
PY
}

# tree_put DIR LINE...: record each manifest text line (cgisnap ls's
# columns) in DIR's tree.db, replacing the row of the same target.
tree_put() {
	python3 - "$@" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1] + "/.cgisnap/tree.db", timeout=10)
with db:
    for line in sys.argv[2:]:
        f = [None if v == "-" else v for v in line.rstrip("\n").split("\t")]
        sha = bytes.fromhex(f[5]) if f[5] else None
        db.execute("INSERT INTO url (target, key, status, type, bytes, sha256, render_ms, changed, location, fp)"
                   " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0) ON CONFLICT (target) DO UPDATE SET key = excluded.key,"
                   " status = excluded.status, type = excluded.type, bytes = excluded.bytes,"
                   " sha256 = excluded.sha256, render_ms = excluded.render_ms, changed = excluded.changed,"
                   " location = excluded.location, fp = 0",
                   (f[0], f[1], int(f[2]), f[3], int(f[4]), sha, int(f[6]), int(f[7]), f[8]))
db.close()
PY
}
