#!/usr/bin/env bash
# t0322-snapshot-fastcgi-pool: --fastcgi repeated is an upstream pool, as
# nginx's upstream is: three php-fpm pools on 127.0.0.1, .2 and .3 share a
# crawl's pages, one killed while it renders leaves the tree complete with
# nothing failed (its pages rendered again on the others), and a server
# that does not answer at the start is a set-up error naming it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"

FPM=$(ls /usr/sbin/php-fpm[0-9]* 2>/dev/null | tail -1)
[ -n "$FPM" ] || fail "php-fpm is not installed (make deps installs it)"

SITE=$TESTDIR/site
mkdir -p "$SITE" "$TESTDIR/waiting" "$TESTDIR/sessions"
# 40 pages; from page 20 on, each render says which pool runs it, then
# waits for the test's go: the crawl is sure to have renders under way on
# every pool when one is killed.
cat >"$SITE/index.php" <<'PHP'
<?php
echo "<h1>pages</h1>\n";
for ($n = 1; $n <= 40; $n++)
	echo "<a href=\"/page.php?n=$n\">page $n</a>\n";
PHP
cat >"$SITE/page.php" <<PHP
<?php
\$n = (int)\$_GET['n'];
if (\$n >= 20) {
	touch('$TESTDIR/waiting/' . getenv('POOL') . "-\$n");
	for (\$i = 0; \$i < 1500 && !file_exists('$TESTDIR/go'); \$i++)
		usleep(20000);
}
echo "<p>page \$n</p>\n";
PHP

P=$(port 1)
# fpm_pool N: php-fpm in the foreground on 127.0.0.N:P, two children, its
# requests logged; FPM_PID is its master.
fpm_pool() {
	local conf=$TESTDIR/fpm$1.conf
	{
		echo "[global]"
		echo "pid = $conf.pid"
		echo "error_log = $conf.log"
		echo "daemonize = no"
		echo "[p$1]"
		[ "$(id -u)" != 0 ] || printf 'user = root\ngroup = root\n'
		echo "listen = 127.0.0.$1:$P"
		echo "pm = static"
		echo "pm.max_children = 2"
		echo "access.log = $TESTDIR/access$1.log"
		echo 'access.format = "%r%Q%q"'
		echo "env[POOL] = p$1"
		echo "php_admin_value[session.save_path] = $TESTDIR/sessions"
	} >"$conf"
	: >"$TESTDIR/access$1.log"
	bg_start "$FPM" -y "$conf" $([ "$(id -u)" != 0 ] || echo -R) -F
	FPM_PID=$BG_PID
	wait_until 10 bash -c "exec 3<>/dev/tcp/127.0.0.$1/$P" || fail "php-fpm on 127.0.0.$1:$P did not start: $(tail -3 "$conf.log")"
}
fpm_pool 1
fpm_pool 2
FPM2=$FPM_PID
fpm_pool 3
POOL=(--fastcgi "127.0.0.1:$P" --fastcgi "127.0.0.2:$P" --fastcgi "127.0.0.3:$P")

try "the pages spread over the three pools; one killed mid-crawl leaves nothing failed"
"$CGISNAP" snapshot --root "$SITE" "${POOL[@]}" -j 6 "$TESTDIR/out" 2>"$TESTDIR/err" &
SNAP=$!
# A render of pool 2 is under way: kill its master and children at once,
# as a machine that vanishes.
wait_until 30 compgen -G "$TESTDIR/waiting/p2-*" >/dev/null || fail "no render waits on pool 2"
kill -KILL "$FPM2" $(pgrep -P "$FPM2") 2>/dev/null
{ wait "$FPM2"; } 2>/dev/null
wait_until 10 bash -c "! exec 3<>/dev/tcp/127.0.0.2/$P" || fail "pool 2 still answers"
touch "$TESTDIR/go"
wait "$SNAP"
check_eq 0 $? "exit status ($(tail -3 "$TESTDIR/err"))"
err=$(cat "$TESTDIR/err")
check_match "$err" ", 0 failed, " "nothing failed"
check_contains "$err" "127.0.0.2:$P" "the lost server named"
check_contains "$err" "its pages go to the other --fastcgi servers" "what became of its pages"
for n in $(seq 1 40); do
	key=$(manifest_field "$TESTDIR/out" "/page.php?n=$n" 2)
	check_eq "<p>page $n</p>" "$(cat "$TESTDIR/out/$key" 2>&1)" "page $n stored ('$key')"
done
for i in 1 2 3; do
	check_ne 0 "$(grep -c '^/page.php?n=' "$TESTDIR/access$i.log")" "pool $i rendered pages"
done
# The renders pool 2 had under way when it went were rendered elsewhere.
for f in "$TESTDIR"/waiting/p2-*; do
	n=${f##*-}
	check_eq 1 "$(cat "$TESTDIR/access1.log" "$TESTDIR/access3.log" | grep -cx "/page.php?n=$n")" \
		"page $n, lost with pool 2, rendered again on pool 1 or 3"
done

try "a server of the pool that does not answer at the start: exit 2, named"
"$CGISNAP" snapshot --root "$SITE" "${POOL[@]}" "$TESTDIR/out2" 2>"$TESTDIR/err2"
check_eq 2 $? "exit status"
check_contains "$(cat "$TESTDIR/err2")" "cannot connect to FastCGI server '127.0.0.2:$P'" "named"
check_no_file "$TESTDIR/out2/index.html" "nothing rendered"

finish
