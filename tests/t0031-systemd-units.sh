#!/usr/bin/env bash
# t0031-systemd-units: the template units of contrib/ pass systemd-analyze
# verify without a word and score at most UNIT_EXPOSURE_MAX ("OK") in
# systemd-analyze security --offline=yes, which needs no running systemd
# (systemd 252); they hold no capability. Then watch runs the way the watch
# unit's sandbox lets it (a mount namespace: / read-only but the tree, a
# private runtime directory as TMPDIR, no capability, no new privileges):
# the tracer still sees what php-cgi reads, and every system call made
# (strace) is one the units' SystemCallFilter= allows.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-watch.sh"

# The threshold the units' comments and docs/watch.md state: systemd calls
# 2.0 "OK" (below 4.0; 9.2 is "UNSAFE", the units' score before).
UNIT_EXPOSURE_MAX=2.0

command -v systemd-analyze >/dev/null || fail "systemd-analyze is missing (systemd: tools/deps.sh test)"

# The units as make makes them (tools' sed of @BINDIR@), pointing at the
# binary under test, so that verify finds the program it would run; the man
# page their Documentation= names is found through MANPATH.
UNITS=$TESTDIR/units
mkdir -p "$UNITS" "$TESTDIR/man/man1"
for f in "$ROOT"/contrib/*.service.in; do
	sed "s|@BINDIR@|$(dirname "$CGISNAP")|g" "$f" >"$UNITS/$(basename "$f" .in)"
done
ln -s cgisnap-watch@.service "$UNITS/cgisnap-watch@wiki.service"
ln -s cgisnap-serve@.service "$UNITS/cgisnap-serve@wiki.service"
tools_man() { "$ROOT/tools/mkman.sh" "$CGISNAP"; }
tools_man >"$TESTDIR/man/man1/cgisnap.1"
export MANPATH=$TESTDIR/man

try "the units are templates: cgisnap-watch@.service and cgisnap-serve@.service, one option file each"
check_file "$UNITS/cgisnap-watch@.service"
check_file "$UNITS/cgisnap-serve@.service"
check_eq "ExecStart=$(dirname "$CGISNAP")/cgisnap watch -c /etc/cgisnap/%i.conf /srv/cgisnap/%i" \
	"$(grep '^ExecStart=' "$UNITS/cgisnap-watch@.service")" "watch's command line"
check_eq "ReadWritePaths=/srv/cgisnap/%i" "$(grep '^ReadWritePaths=' "$UNITS/cgisnap-watch@.service")" \
	"watch writes the tree alone"
check_eq "" "$(grep '^ReadWritePaths=' "$UNITS/cgisnap-serve@.service")" "serve writes nothing but its logs"

for u in cgisnap-watch@.service cgisnap-watch@wiki.service cgisnap-serve@.service cgisnap-serve@wiki.service; do
	try "systemd-analyze verify $u says nothing"
	out=$(cd "$UNITS" && systemd-analyze verify "./$u" 2>&1)
	check_eq 0 $? "status: $out"
	check_eq "" "$out" "output"
done

for u in cgisnap-watch@.service cgisnap-serve@.service; do
	try "systemd-analyze security --offline=yes $u: at most $UNIT_EXPOSURE_MAX"
	out=$(cd "$UNITS" && systemd-analyze security --offline=yes "./$u" 2>&1)
	score=$(printf '%s\n' "$out" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\) .*/\1/p')
	check_ne "" "$score" "a score: $(printf '%s\n' "$out" | tail -2)"
	check_eq 1 "$(awk -v s="$score" -v m="$UNIT_EXPOSURE_MAX" 'BEGIN { print (s != "" && s <= m) ? 1 : 0 }')" \
		"exposure $score"
	for want in "NoNewPrivileges=" "CapabilityBoundingSet=~CAP_NET_(BIND_SERVICE" "CapabilityBoundingSet=~CAP_SYS_ADMIN" \
		"ProtectSystem=" "ProtectHome=" "PrivateTmp=" "SystemCallArchitectures=" "RestrictNamespaces=~user" \
		"LockPersonality=" "ProtectKernelTunables=" "ProtectKernelModules=" "AmbientCapabilities="; do
		check_contains "$out" "✓ $want" "$want"
	done
	check_eq "" "$(grep -E '^(AmbientCapabilities|CapabilityBoundingSet)=.' "$UNITS/$u")" "no capability given"
done

try "watch under the watch unit's sandbox: / read-only, the tree writable, no capability, traced"
if ! unshare -m true 2>/dev/null || ! command -v setpriv >/dev/null; then
	echo "# no mount namespace here (unshare -m) or no setpriv: the run under the sandbox is not tried"
else
	SITE=$TESTDIR/wiki
	OUT=$TESTDIR/tree
	RUN=$TESTDIR/run
	LOG=$TESTDIR/watch.log
	seed_wiki "$SITE" 20
	mkdir -p "$OUT" "$RUN"
	mapfile -t ARGS < <(watch_wiki_args "$SITE")
	# ReadWritePaths= the tree (the sample wiki writes nothing of its own
	# that matters: a real DokuWiki's data/ needs the drop-in the unit's
	# comment shows); RuntimeDirectory= as TMPDIR; / read-only as
	# ProtectSystem=strict; CapabilityBoundingSet= and NoNewPrivileges=.
	# The tracer is the one beside the binary under test, as without the
	# sandbox.
	sandbox() {
		exec unshare -m sh -c '
			set -e
			mount --make-rprivate /
			mount --bind / /
			mount --bind "$1" "$1"
			mount --bind "$4" "$4"
			mount -t tmpfs -o mode=0700 tmpfs "$3"
			mount -o remount,bind,ro /
			shift 4
			exec setpriv --no-new-privs --bounding-set=-all --inh-caps=-all "$@"
		' sh "$OUT" "$SITE" "$RUN" "$TRACES" env TMPDIR="$RUN" "$@" 2>>"$LOG"
	}
	# Under strace (when there), inside the sandbox: every system call of
	# watch, its renders and the tracer, for SystemCallFilter= below; its
	# log in a directory of its own, writable (not the service's).
	TRACES=$TESTDIR/traces
	mkdir -p "$TRACES"
	STRACE=()
	if command -v strace >/dev/null; then
		# LeakSanitizer cannot run under ptrace (it fails the exit):
		# under SANITIZE=1 the traced watch checks everything else.
		STRACE=(strace -f -qq -o "$TRACES/strace.log" --)
		[ "${SANITIZE:-}" != 1 ] || STRACE+=(env "ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0")
	fi
	: >"$LOG"
	bg_start sandbox "${STRACE[@]}" "$CGISNAP" watch "${ARGS[@]}" --exclude 'do=backlink' "$OUT"
	WATCH_PID=$BG_PID
	wait_until "$WATCH_WAIT" grep -q '^cgisnap: watching ' "$LOG"
	check_eq 0 $? "watch came up: $(tail -3 "$LOG")"
	check_contains "$(cat "$LOG")" "(dependencies traced)" "traced"
	check_eq "0" "$(grep -c 'failed: ' "$LOG")" "no render failed"
	check_match "$("$CGISNAP" ls --deps "$OUT" 2>/dev/null)" "	R	$SITE/data/pages/" "renders' reads recorded"
	touch "$TESTDIR/outside" 2>/dev/null
	check_eq 0 $? "(the test itself can still write outside the namespace)"
	P=$(wiki_pages "$SITE" | head -1)
	printf '\nSandboxed edit S1.\n' >>"$(wiki_file "$SITE" "$P")"
	wait_file_has "$OUT/$(wiki_key "$P")" "Sandboxed edit S1."
	check_eq 0 $? "an edit re-renders its page"
	# TERM to watch itself (its pid is in the lock), strace ends with it.
	kill -TERM "$(cat "$OUT/.cgisnap/lock")"
	# strace writes its log as it ends: let it end with watch rather
	# than signal it too (a loaded machine may take a while).
	ended() { [ ! -e "/proc/$1/stat" ] || [ "$(cut -d' ' -f3 "/proc/$1/stat")" = Z ]; }
	wait_until 30 ended "$WATCH_PID"
	bg_stop "$WATCH_PID"
	check_eq 0 $? "watch stopped cleanly"
	check_eq "" "$(grep -i -e 'read-only' -e 'permission denied' -e 'operation not permitted' "$LOG")" \
		"nothing refused by the sandbox"

	try "every system call of watch, php-cgi and the tracer passes the units' SystemCallFilter="
	if [ ${#STRACE[@]} = 0 ]; then
		echo "# no strace here: the system calls are not checked"
	else
		# @system-service less @privileged, groups expanded.
		expand() {
			systemd-analyze syscall-filter "$1" | tail -n +2 | sed 's/^ *//; /^#/d; /^$/d' |
				while read -r x; do
					case $x in
					@*) expand "$x" ;;
					*) echo "$x" ;;
					esac
				done
		}
		expand @system-service | sort -u >"$TESTDIR/allowed"
		expand @privileged | sort -u >"$TESTDIR/privileged"
		sed -n 's/^[0-9]* *\([a-z_][a-z0-9_]*\)(.*/\1/p' "$TRACES/strace.log" | sort -u >"$TESTDIR/used"
		check_lt 20 "$(wc -l <"$TESTDIR/used")" "system calls seen"
		check_contains "$(cat "$TESTDIR/used")" "inotify_add_watch" "watch's own among them"
		check_eq "" "$(comm -23 "$TESTDIR/used" "$TESTDIR/allowed")" "calls outside @system-service"
		# SQLite gives a new -wal file its database's owner with fchown,
		# only when running as root (the test; the units run as
		# www-data, and EPERM would be ignored there).
		check_eq "" "$(comm -12 "$TESTDIR/used" "$TESTDIR/privileged" | grep -vx fchown)" "calls of @privileged"
		check_eq "" "$(grep -o 'socket(AF_[A-Z0-9]*' "$TRACES/strace.log" | sort -u |
			grep -v -e 'AF_UNIX$' -e 'AF_INET$' -e 'AF_INET6$')" "address families beyond RestrictAddressFamilies="
	fi
fi

finish
