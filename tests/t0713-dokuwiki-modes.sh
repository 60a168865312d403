#!/usr/bin/env bash
# t0713-dokuwiki-modes: issue 13's "the same tree whatever runs PHP" on the
# real DokuWiki: the php-cgi worker pool (the default), a process per render
# (--cgi-mode fork) and --fastcgi to a php-cgi the test starts itself give
# byte-identical trees, files and recorded answers alike. And wherever the
# wiki is mounted: under Debian's Alias /dokuwiki, the dokuwiki profile is
# found in the mount and its rules apply there.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"
. "$(dirname "$0")/lib-serve.sh"
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

try "mounted as Debian mounts it (Alias /dokuwiki), the profile is found in the mount and moved under it"
# No --root: the wiki's files are a --path-alias, as --apache-conf
# /etc/dokuwiki/apache.conf gives. The profile's rules, written for a wiki
# at /, apply under /dokuwiki/: the same URLs as at the root, each under
# /dokuwiki (the site's /robots.txt aside, which the mount does not hold).
# DokuWiki's render cache is keyed by host, not by base: the pages
# rendered at / above would come back with their links to /doku.php.
find "$DW_DATA/cache" -type f -delete
"$CGISNAP" snapshot -q --path-alias "/dokuwiki=$DW_ROOT" --cgi php=php-cgi \
	--site-url "${DW_URL%/}/dokuwiki/" -j 2 "$TESTDIR/mounted" 2>"$TESTDIR/m.err"
check_eq 0 $? "exit status ($(grep -v 'PHP ' "$TESTDIR/m.err" | tail -2))"
check_eq dokuwiki "$(cat "$TESTDIR/mounted/.cgisnap/profile")" "the tree records the profile"
"$CGISNAP" snapshot --path-alias "/dokuwiki=$DW_ROOT" --cgi php=php-cgi --site-url "${DW_URL%/}/dokuwiki/" \
	--seed /dokuwiki/doku.php?id=start "$TESTDIR/said" 2>&1 | head -1 >"$TESTDIR/said.err"
check_eq "cgisnap: using profile dokuwiki (found doku.php under --path-alias /dokuwiki=$(realpath "$DW_ROOT")); --profile none to turn it off" \
	"$(cat "$TESTDIR/said.err")" "the line that says so"
targets() { "$CGISNAP" ls "$1" | awk -F'\t' '!/^#/ { print $1, $3 }' | LC_ALL=C sort; }
check_eq "$(targets "$TESTDIR/workers" | grep -v '^/robots\.txt ' | sed 's|^/|/dokuwiki/|; s|^/dokuwiki/ |/dokuwiki/ |')" \
	"$(targets "$TESTDIR/mounted" | grep -v '^/dokuwiki ')" "every URL and status, under /dokuwiki"
# The --canonical rules moved too: a page's own sitemap answers a 302 to
# the one kept, under /dokuwiki (written for /, the rule would send it to
# /doku.php).
serve_start "$TESTDIR/mounted" 0
id=$(cut -f1 "$DW_PAGES_FILE" | grep -vx start | head -1)
check_eq "302 ${DW_URL%/}/dokuwiki/doku.php?id=start&do=index" \
	"$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' "http://127.0.0.1:$SERVE_PORT/dokuwiki/doku.php?id=$id&do=index")" \
	"a page's own sitemap"
bg_stop "$SERVE_PID"

finish
