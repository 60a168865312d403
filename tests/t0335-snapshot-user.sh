#!/usr/bin/env bash
# Never the application as root: started by root, cgisnap runs the site's
# programs (php-cgi workers, CGI programs, --cgi-spawn workers, the seed
# and site-URL commands; under watch and serve --fill too) as an
# unprivileged user: --user, else the owner of --root, else www-data. A
# page prints the user it runs as and creates a file, whose owner says
# the same.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-watch.sh"
. "$(dirname "$0")/lib-serve.sh"

if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null || ! id www-data >/dev/null 2>&1; then
	echo "# skipped: not root, no setpriv or no www-data user: nothing to switch"
	finish
fi
# The suite renders as root (lib.sh): not here.
unset CGISNAP_USER
WWW=$(id -u www-data)
NOBODY=$(id -u nobody)
# The test's directory open to all, as /tmp is: only the site's own
# modes decide what its user may do.
chmod 755 "$TESTDIR" "$TMPDIR"

SITE=$TESTDIR/site
mkdir -p "$SITE/data"
# Each render says who runs it, and makes a file: its owner says it too.
cat >"$SITE/index.php" <<'EOF'
<?php
$name = 'made-' . preg_replace('/[^a-z0-9]/', '', $_GET['n'] ?? 'index');
@unlink(__DIR__ . "/data/$name");
file_put_contents(__DIR__ . "/data/$name", "x");
clearstatcache();
printf("<html><body><p>php uid=%d gid=%d file=%d</p><a href='/who.cgi'>cgi</a></body></html>\n",
       posix_geteuid(), posix_getegid(), fileowner(__DIR__ . "/data/$name"));
EOF
cat >"$SITE/who.cgi" <<'EOF'
#!/bin/sh
printf 'Content-Type: text/html\r\n\r\n<html><body><p>cgi uid=%s</p></body></html>\n' "$(id -u)"
EOF
chmod 755 "$SITE/who.cgi"
# The data directory is the site user's, as /var/lib/dokuwiki is.
chown www-data: "$SITE/data"

# snap NAME ARGS...: snapshot the site into $TESTDIR/NAME, stderr in
# $TESTDIR/NAME.err; its exit status.
snap() {
	local name=$1
	shift
	"$CGISNAP" snapshot --root "$SITE" --cgi php=php-cgi "$@" "$TESTDIR/$name" 2>"$TESTDIR/$name.err"
}

try "run as root, a site whose files are root's renders as www-data: php-cgi workers and a CGI program"
snap t1
check_eq 0 $? "exit status: $(cat "$TESTDIR/t1.err")"
check_contains "$(cat "$TESTDIR/t1/index.html")" "php uid=$WWW gid=$(id -g www-data) file=$WWW" "the page"
check_contains "$(cat "$TESTDIR/t1/who.cgi")" "cgi uid=$WWW" "the CGI program"
check_eq www-data "$(stat -c %U "$SITE/data/made-index")" "the file the render made"
check_contains "$(cat "$TESTDIR/t1.err")" \
	"cgisnap: running the site as www-data (uid $WWW), not root: the site's files are root's (--user USER to choose)" \
	"says so"
check_eq root "$(stat -c %U "$TESTDIR/t1/index.html")" "the tree is written as before"
# Traced as www-data: the preloaded tracer was readable and reported.
check_contains "$("$CGISNAP" why "$TESTDIR/t1" / 2>&1)" "$SITE/index.php" "the render was traced"

try "--cgi-mode fork: a php-cgi per page, as www-data too"
snap t2 --cgi-mode fork
check_eq 0 $? "exit status: $(cat "$TESTDIR/t2.err")"
check_contains "$(cat "$TESTDIR/t2/index.html")" "php uid=$WWW " "the page"

try "--cgi-spawn: the FastCGI workers cgisnap starts run as www-data, in a socket directory of theirs"
"$CGISNAP" snapshot --root "$SITE" --cgi-spawn php='php-cgi -b {socket}' "$TESTDIR/t3" 2>"$TESTDIR/t3.err"
check_eq 0 $? "exit status: $(cat "$TESTDIR/t3.err")"
check_contains "$(cat "$TESTDIR/t3/index.html")" "php uid=$WWW " "the page"

try "the commands: --seed-command and --site-url-command run as www-data, with its HOME"
snap t4 --seed-command 'echo "/index.php?n=seed$(id -u)"' \
	--site-url-command 'echo "http://u$(id -u).example/"'
check_eq 0 $? "exit status: $(cat "$TESTDIR/t4.err")"
check_file "$SITE/data/made-seed$WWW" "the seed the command printed"
check_contains "$(cat "$TESTDIR/t4.err")" "site URL http://u$WWW.example/" "the site URL it printed"
"$CGISNAP" snapshot --root "$SITE" --cgi php=php-cgi --seed-command 'echo "/index.php?n=$(basename "$HOME")"' \
	"$TESTDIR/t4b" 2>"$TESTDIR/t4b.err"
check_file "$SITE/data/made-$(basename ~www-data | tr -cd 'a-z0-9')" "HOME is www-data's ($(cat "$TESTDIR/t4b.err"))"

try "the owner of --root renders when it is not root"
chown -R nobody: "$SITE"
snap t5
check_eq 0 $? "exit status: $(cat "$TESTDIR/t5.err")"
check_contains "$(cat "$TESTDIR/t5/index.html")" "php uid=$NOBODY " "the page"
check_contains "$(cat "$TESTDIR/t5.err")" "running the site as nobody (uid $NOBODY), not root: the owner of the site's files" "says so"
chown -R root: "$SITE"
chown www-data: "$SITE/data"

try "--user USER:GROUP; --user root renders as root, on purpose, and says nothing"
snap t6 --user nobody:www-data
check_eq 0 $? "exit status: $(cat "$TESTDIR/t6.err")"
check_contains "$(cat "$TESTDIR/t6/index.html")" "php uid=$NOBODY gid=$(id -g www-data) " "the page"
check_not_contains "$(cat "$TESTDIR/t6.err")" "running the site as" "no notice for a user given"
snap t7 --user root
check_eq 0 $? "exit status: $(cat "$TESTDIR/t7.err")"
check_contains "$(cat "$TESTDIR/t7/index.html")" "php uid=0 " "the page"
CGISNAP_USER=nobody snap t7b
check_contains "$(cat "$TESTDIR/t7b/index.html")" "php uid=$NOBODY " "CGISNAP_USER is --user's default"

try "refused: a user or group that does not exist, a --root the user cannot enter"
snap t8 --user cgisnap-no-such-user
check_eq 2 $? "exit status"
check_eq "cgisnap snapshot: --user 'cgisnap-no-such-user': no such user (see 'cgisnap snapshot --help')" \
	"$(cat "$TESTDIR/t8.err")" "message"
snap t8 --user www-data:cgisnap-no-such-group
check_eq 2 $? "exit status (group)"
check_contains "$(cat "$TESTDIR/t8.err")" "no such group 'cgisnap-no-such-group'" "message"
check_no_file "$TESTDIR/t8/.cgisnap" "nothing written"
chmod 700 "$SITE"
snap t9
check_eq 2 $? "exit status"
check_eq "cgisnap: error: --root '$SITE' is not open to www-data (uid $WWW), who runs the site: give it the site's files or choose --user" \
	"$(grep -v '^cgisnap: running' "$TESTDIR/t9.err")" "message"
chmod 755 "$SITE"

try "run as another user, cgisnap renders as that user, and may not choose another"
mkdir -p "$TESTDIR/asnobody" && chown nobody: "$TESTDIR/asnobody"
as_nobody() { TMPDIR=$TESTDIR/asnobody setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
as_nobody "$CGISNAP" snapshot --root "$SITE" --cgi php=php-cgi "$TESTDIR/asnobody/t" 2>"$TESTDIR/n.err"
check_eq 0 $? "exit status: $(cat "$TESTDIR/n.err")"
check_contains "$(cat "$TESTDIR/asnobody/t/index.html")" "php uid=$NOBODY " "the page"
check_not_contains "$(cat "$TESTDIR/n.err")" "running the site as" "no notice"
as_nobody "$CGISNAP" snapshot --root "$SITE" --cgi php=php-cgi --user www-data "$TESTDIR/asnobody/t2" \
	2>"$TESTDIR/n.err"
check_eq 2 $? "exit status"
check_contains "$(cat "$TESTDIR/n.err")" "--user 'www-data': only root can run the site as another user or group" "message"

try "watch renders as www-data, the first crawl and a batch after an edit"
OUT=$TESTDIR/w
LOG=$TESTDIR/watch.log
watch_start "$LOG" --root "$SITE" --cgi php=php-cgi --source "$SITE/index.php" "$OUT"
check_eq 0 $? "watch came up: $(tail -3 "$LOG")"
check_contains "$(cat "$OUT/index.html")" "php uid=$WWW " "the first crawl"
sed -i 's|<p>php|<p>edited php|' "$SITE/index.php"
wait_file_has "$OUT/index.html" "edited php uid=$WWW "
check_eq 0 $? "the batch's render: $(cat "$OUT/index.html")"
watch_stop
check_eq 0 "$WATCH_STATUS" "watch stopped cleanly"

try "no worker running as www-data outlives cgisnap killed with SIGKILL"
# The death signal the workers ask for before they exec: the switch to
# www-data must not clear it (the kernel does, on any change of user).
for i in 1 2; do printf '<?php sleep(30); echo "<p>slow</p>";\n' >"$SITE/slow$i.php"; done
www_workers() { pgrep -u www-data -f -- "$TMPDIR/cgisnap-php-" || true; }
some_www_workers() { [ -n "$(www_workers)" ]; }
no_www_workers() { [ -z "$(www_workers)" ]; }
bg_start "$CGISNAP" snapshot -q --root "$SITE" --cgi php=php-cgi -j 2 --seed /slow1.php --seed /slow2.php \
	"$TESTDIR/killed"
wait_until 20 some_www_workers || fail "no worker started as www-data"
bg_stop "$BG_PID" KILL
wait_until 10 no_www_workers
check_eq 0 $? "workers left: $(www_workers)"
rm -f "$SITE"/slow?.php

try "serve --fill renders a missing page as www-data"
T=$TESTDIR/filled
make_tree "$T"
serve_start "$T" 0 --fallback --fill --root "$SITE" --cgi php=php-cgi
body=$(curl -s "http://127.0.0.1:$SERVE_PORT/index.php?n=fill")
check_contains "$body" "php uid=$WWW " "the page served"
check_eq www-data "$(stat -c %U "$SITE/data/made-fill")" "the file it made"
bg_stop "$SERVE_PID"

finish
