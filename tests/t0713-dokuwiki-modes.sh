#!/usr/bin/env bash
# t0713-dokuwiki-modes: issue 13's "the same tree whatever runs PHP" on the
# real DokuWiki: the php-cgi worker pool (the default), a process per render
# (--cgi-mode fork) and --fastcgi to a php-cgi the test starts itself give
# byte-identical trees, files and recorded answers alike.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"
. "$(dirname "$0")/lib-apps.sh"

dokuwiki_test_site
SESS=$TESTDIR/sessions
mkdir -p "$SESS"

# snap OUT [OPTIONS...]: the zero-configuration snapshot, more options after.
snap() {
	local out=$1
	shift
	"$CGISNAP" snapshot -q --root "$DW_ROOT" --site-url "$DW_URL" "$@" "$out"
}
# same A B: the differences of two trees' files and manifests (none: alike).
same() {
	diff -r --exclude=.cgisnap "$1" "$2" 2>&1 | head -5
	diff <("$CGISNAP" ls "$1" | cut -f1-6,9) <("$CGISNAP" ls "$2" | cut -f1-6,9) | head -5
}

try "a first run settles DokuWiki's own caches and indexes"
snap "$TESTDIR/warm" --cgi php=php-cgi 2>"$TESTDIR/warm.err"
check_eq 0 $? "exit status ($(grep -v 'PHP ' "$TESTDIR/warm.err" | tail -2))"

try "workers and fork mode give the same tree"
snap "$TESTDIR/workers" --cgi php=php-cgi -j 2 2>"$TESTDIR/w.err"
check_eq 0 $? "workers ($(grep -v 'PHP ' "$TESTDIR/w.err" | tail -2))"
snap "$TESTDIR/fork" --cgi php=php-cgi --cgi-mode fork -j 2 2>"$TESTDIR/f.err"
check_eq 0 $? "fork ($(grep -v 'PHP ' "$TESTDIR/f.err" | tail -2))"
check_lt 100 "$("$CGISNAP" ls "$TESTDIR/workers" | grep -vc "^#")" "a real crawl"
check_eq "" "$(same "$TESTDIR/workers" "$TESTDIR/fork")" "workers = fork"

try "--fastcgi to a php-cgi of the test's gives the same tree"
_fastcgi_run() {
	cd "$1" && PHP_FCGI_CHILDREN=2 PHP_FCGI_MAX_REQUESTS=0 exec php-cgi -b "127.0.0.1:$2" \
		-d session.save_path="$SESS" >/dev/null 2>&1
}
p=$(port 1)
bg_start _fastcgi_run "$DW_ROOT" "$p"
FCGI=$BG_PID
wait_port "$p" || fail "php-cgi -b did not start"
snap "$TESTDIR/fastcgi" --fastcgi "127.0.0.1:$p" -j 2 2>"$TESTDIR/fc.err"
check_eq 0 $? "fastcgi ($(grep -v 'PHP ' "$TESTDIR/fc.err" | tail -2))"
check_eq "" "$(same "$TESTDIR/workers" "$TESTDIR/fastcgi")" "workers = fastcgi"
bg_stop "$FCGI"

finish
