#!/usr/bin/env bash
# t0460-serve-safety: serve only what cgisnap published, with bounds
# (issue 9): a source directory is not served by mistake, scripts and
# dotfiles never; --fill stores only what the crawl rules allow, within
# caps; slow request heads are cut; a full connection table still takes
# new clients; HTTP/1.1 without Host is 400; a header value with CR/LF is
# refused; renders do not hold up files.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-serve.sh"

P=$(port 0)
U=http://127.0.0.1:$P
H=$TESTDIR/h

# start_fails WHAT PATTERN CMD...: exit status 2 and one line on stderr
# matching PATTERN (timeout: a command that starts a server fails too).
start_fails() {
	local what=$1 pattern=$2 err status
	shift 2
	err=$(timeout 5 "$@" 2>&1 >/dev/null)
	status=$?
	check_eq 2 "$status" "$what: exit status"
	check_eq 1 "$(printf '%s\n' "$err" | wc -l)" "$what: one line"
	check_match "$err" "$pattern" "$what: message"
}

# A site's source directory, as typed where the tree was meant.
SRC=$TESTDIR/www
mkdir -p "$SRC/conf" "$SRC/only-php" "$SRC/.git"
printf '<?php $db_password = "hunter2";\n' >"$SRC/conf/local.php"
printf '<?php echo "hi";\n' >"$SRC/index.php"
printf '<?php phpinfo();\n' >"$SRC/only-php/index.php"
printf '<?php secret();\n' | gzip -c >"$SRC/conf/old.php.gz"
printf '#!/bin/sh\necho secret\n' >"$SRC/run.cgi"
printf 'print "secret"\n' >"$SRC/tool.pl"
printf 'print("secret")\n' >"$SRC/app.py"
printf 'echo secret\n' >"$SRC/deploy.sh"
printf '<%% secret %%>\n' >"$SRC/page.tpl"
printf '<?php upper();\n' >"$SRC/UPPER.PHP"
printf '<?php $db_password = "hunter2";\n' >"$SRC/conf/local.php~"
printf '<?php $db_password = "hunter2";\n' >"$SRC/conf/local.php.bak"
printf '<p>an old static page</p>\n' >"$SRC/page.html.bak"
printf 'DB_PASSWORD=hunter2\n' >"$SRC/.env"
printf 'secret git config\n' >"$SRC/.git/config"
printf '<p>static page</p>\n' >"$SRC/page.html"
printf 'body { color: red }\n' >"$SRC/style.css"

try "serve refuses a directory that is not a cgisnap tree"
start_fails "source directory" \
	"^cgisnap: error: '$SRC' is not a cgisnap tree \(use --any-dir to serve a plain directory\)$" \
	"$CGISNAP" serve "$SRC" --listen "127.0.0.1:$P"
check_eq 000 "$(code "$U/conf/local.php" -m 2)" "nothing listens"

try "--any-dir serves static files, never scripts or dotfiles"
serve_start "$SRC" "$P" --any-dir --cgi tpl=/bin/cat
check_eq "<p>static page</p>" "$(curl -s "$U/page.html")" "a static page"
check_eq 200 "$(code "$U/style.css")" "a stylesheet"
check_eq 200 "$(code "$U/page.html.bak")" "a copy of a static page is no script"
for t in /conf/local.php /index.php /only-php/ /only-php/index.php /conf/old.php.gz /run.cgi \
	/tool.pl /app.py /deploy.sh /page.tpl /UPPER.PHP /.env /.git/config \
	/conf/local.php~ /conf/local.php.bak; do
	curl -s -D "$H" -o "$TESTDIR/b" "$U$t"
	check_match "$(head -1 "$H")" '^HTTP/1.1 404' "$t is 404"
	check_not_contains "$(cat "$TESTDIR/b")" "secret" "$t: no source"
	check_not_contains "$(cat "$TESTDIR/b")" "<?php" "$t: no PHP"
done
check_eq 404 "$(code "$U/")" "a directory with only index.php"
bg_stop "$SERVE_PID"

try "a tree serves a render it lists under a .php name, never an unlisted script"
T=$TESTDIR/tree
make_tree "$T"
mkdir -p "$T/conf"
printf '<?php $db_password = "hunter2";\n' >"$T/conf/local.php"
printf '<h1>rendered info</h1>\n' >"$T/info.php"
tree_put "$T" "$(manifest_line /info.php info.php 200 'text/html; charset=utf-8')"
serve_start "$T" "$P"
check_eq 404 "$(code "$U/conf/local.php")" "unlisted script"
check_not_contains "$(curl -s "$U/conf/local.php")" "hunter2" "no source"
check_eq "<h1>rendered info</h1>" "$(curl -s "$U/info.php")" "the listed render"
check_eq "page a" "$(curl -s "$U/a/")" "other files as before"
check_eq 200 "$(code "$U/a/b/c.html")" "unlisted static files as before"
for t in /.cgisnap/manifest /.cgisnap/settings /.cgisnap/404.html /%2ecgisnap/manifest /.htpasswd; do
	check_match "$(code "$U$t" --path-as-is)" '^40[04]$' "$t unreachable"
done
bg_stop "$SERVE_PID"

try "HTTP/1.1 without Host is 400 (RFC 9112); HTTP/1.0 needs none"
serve_start "$T" "$P"
out=$(raw_request "$P" 'GET /a/ HTTP/1.1\r\nConnection: close\r\n\r\n')
check_match "$(printf '%s' "$out" | head -1)" '^HTTP/1.1 400' "no Host"
out=$(raw_request "$P" 'GET /a/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
check_match "$(printf '%s' "$out" | head -1)" '^HTTP/1.1 200' "with Host"
out=$(raw_request "$P" 'GET /a/ HTTP/1.0\r\n\r\n')
check_match "$(printf '%s' "$out" | head -1)" '^HTTP/1.[01] 200' "HTTP/1.0 without Host"
bg_stop "$SERVE_PID"

try "--cache-control with CR or LF is refused by serve and config"
start_fails "serve, CR LF" "^cgisnap serve: invalid --cache-control: .*CR or LF" \
	"$CGISNAP" serve "$T" --listen "127.0.0.1:$P" --cache-control $'public\r\nX-Injected: 1'
start_fails "serve, LF" "^cgisnap serve: invalid --cache-control" \
	"$CGISNAP" serve "$T" --listen "127.0.0.1:$P" --cache-control $'public\nX-Injected: 1'
start_fails "config nginx" "^cgisnap: error: invalid --cache-control: .*CR, LF" \
	"$CGISNAP" config nginx "$T" --cache-control $'public\r\nX-Injected: 1'
start_fails "config apache" "^cgisnap: error: invalid --cache-control" \
	"$CGISNAP" config apache "$T" --cache-control $'public\nX-Injected: 1'

# The origin: a front controller that renders every URL, records each
# render, answers 404 under /missing/, sleeps under /slow/.
DOC=$TESTDIR/docroot
COUNT=$TESTDIR/renders
mkdir -p "$DOC"
cat >"$DOC/front.cgi" <<EOF
#!/bin/sh
echo "\$REQUEST_URI" >>"$COUNT"
case "\$REQUEST_URI" in
/slow/*) sleep 5 ;;
esac
case "\$REQUEST_URI" in
/missing/*)
	printf 'Status: 404 Not Found\r\nContent-Type: text/html\r\n\r\n<h1>origin 404</h1>\n' ;;
/big/*)
	printf 'Content-Type: text/plain\r\n\r\n'
	head -c 700000 /dev/zero | tr '\0' x ;;
*)
	printf 'Content-Type: text/html; charset=utf-8\r\n\r\n<h1>rendered %s</h1>\n' "\$REQUEST_URI" ;;
esac
EOF
chmod +x "$DOC/front.cgi"
ORIGIN=(--root "$DOC" --front-controller /front.cgi)

# stored TARGET: the manifest lists TARGET.
stored() {
	awk -F'\t' -v t="$1" '$1 == t { found = 1 } END { exit !found }' <("$CGISNAP" ls "$T")
}

try "--fill stores at most --fill-max pages, nothing excluded, deep, long or 404"
: >"$COUNT"
serve_start "$T" "$P" --fallback --fill --fill-max 3 --exclude '^/private/' "${ORIGIN[@]}"
ok=0
for i in 1 2 3 4 5 6; do
	[ "$(curl -s "$U/p/$i")" = "<h1>rendered /p/$i</h1>" ] && ok=$((ok + 1))
done
check_eq 6 "$ok" "every miss rendered and served"
check_eq 3 "$(find "$T/p" -name index.html | wc -l)" "pages stored under /p/"
check_eq "<h1>rendered /private/x</h1>" "$(curl -s "$U/private/x")" "an excluded URL is served"
deep=$(printf '/d%.0s' $(seq 1 40))
check_eq 200 "$(code "$U$deep")" "a 40-segment URL is served"
seg=$(head -c 150 /dev/zero | tr '\0' a)
long="/long/$seg/$seg/$seg/$seg/$seg/$seg/$seg/$seg"
check_eq 200 "$(code "$U$long")" "a URL with a 1200-byte key is served"
for i in 1 2 3; do
	check_eq 404 "$(code "$U/missing/$i")" "a 404 from the origin ($i)"
done
bg_stop "$SERVE_PID"
check_eq 3 "$(awk -F'\t' '$1 ~ /^\/p\//' <("$CGISNAP" ls "$T") | wc -l)" "manifest entries under /p/"
check_no_file "$T/private/x/index.html" "excluded URL not stored"
check_eq "" "$(ls -d "$T/d" 2>/dev/null)" "no directory chain for the deep URL"
check_eq "" "$(ls -d "$T/long" 2>/dev/null)" "nothing for the long URL"
check_eq "" "$(ls -d "$T/missing" 2>/dev/null)" "no file for a 404"
check_eq 0 "$(awk -F'\t' '$1 ~ /^\/(missing|private|d|long)\//' <("$CGISNAP" ls "$T") | wc -l)" \
	"no manifest entry for 404s, excluded, deep or long URLs"

try "--fill with --include stores only matching targets, --fill-max-mb bounds the bytes"
serve_start "$T" "$P" --fallback --fill --include '^/(blog|big)/' --fill-max-mb 1 "${ORIGIN[@]}"
check_eq 200 "$(code "$U/blog/one")" "an included URL"
check_eq 200 "$(code "$U/other/one")" "a URL not included is served"
check_eq 200 "$(code "$U/big/1")" "a 700 KB page"
check_eq 200 "$(code "$U/big/2")" "a second one, over 1 MiB in all"
bg_stop "$SERVE_PID"
check_file "$T/blog/one/index.html" "included URL stored"
check_no_file "$T/other/one/index.html" "URL not included not stored"
check_file "$T/big/1/index.html" "the first big page stored"
check_no_file "$T/big/2/index.html" "not the second: over --fill-max-mb"
check_eq 1 "$(awk -F'\t' '$1 ~ /^\/big\//' <("$CGISNAP" ls "$T") | wc -l)" "manifest entries under /big/"
start_fails "--fill-max without --fill" "^cgisnap serve: --include, --exclude, --fill-max and --fill-max-mb need --fill" \
	"$CGISNAP" serve "$T" --fill-max 3
start_fails "bad regex" "bad --include regex '\('" \
	"$CGISNAP" serve "$T" --listen "127.0.0.1:$P" --fallback --fill --include '(' "${ORIGIN[@]}"

try "a file is answered while a slow render is in progress (--threads 1)"
: >"$COUNT"
serve_start "$T" "$P" --fallback --threads 1 "${ORIGIN[@]}"
curl -s -m 20 -o "$TESTDIR/slow" "$U/slow/x" &
slow=$!
rendering() { grep -q '^/slow/x$' "$COUNT"; }
wait_until 10 rendering || fail "the slow render did not start"
check_eq "page a" "$(curl -s -m 2 "$U/a/")" "a file, within 2 s of a 5 s render"
check_eq 200 "$(code "$U/style.css" -m 2)" "another one"
check_eq "<h1>rendered /q/1</h1>" "$(curl -s -m 20 "$U/q/1")" "a second render, queued behind it"
wait "$slow"
check_eq "<h1>rendered /slow/x</h1>" "$(cat "$TESTDIR/slow")" "the slow page"
# Stopping waits for a render in progress and sends its answer.
curl -s -m 20 -o "$TESTDIR/slow" "$U/slow/y" &
slow=$!
rendering() { grep -q '^/slow/y$' "$COUNT"; }
wait_until 10 rendering || fail "the slow render did not start"
bg_stop "$SERVE_PID"
check_eq 0 "$?" "exit status of a stop during a render"
wait "$slow"
check_eq "<h1>rendered /slow/y</h1>" "$(cat "$TESTDIR/slow")" "the render in progress answered"

# trickle.py PORT N SECONDS [silent|after]: open N connections that send
# a request head one byte every 0.5 s (or nothing) and never finish it;
# print how many the server closed within SECONDS, and when the last
# went. after: each first asks for /a/ and reads the whole answer (a
# kept-alive connection), then trickles its next head.
cat >"$TESTDIR/trickle.py" <<'EOF'
import socket, sys, time
port, n, limit = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
mode = sys.argv[4] if len(sys.argv) > 4 else ""
silent = mode == "silent"
head = b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 1000
socks, pos = [], []
for i in range(n):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=2)
        if mode == "after":
            s.sendall(b"GET /a/ HTTP/1.1\r\nHost: x\r\n\r\n")
            got = b""
            while b"page a" not in got:
                got += s.recv(4096)
        s.setblocking(False)
        socks.append(s)
        pos.append(0)
    except OSError:
        pass
closed, start, last = set(), time.time(), 0
print("open", flush=True)
while time.time() - start < limit and len(closed) < len(socks):
    for i, s in enumerate(socks):
        if i in closed:
            continue
        try:
            if s.recv(4096) == b"":
                closed.add(i)
                continue
        except BlockingIOError:
            pass
        except OSError:
            closed.add(i)
            continue
        if silent:
            continue
        try:
            s.send(head[pos[i]:pos[i] + 1])
            pos[i] += 1
        except OSError:
            closed.add(i)
    last = time.time() - start
    time.sleep(0.5)
print("closed", len(closed), "of", len(socks), "after %.0f s" % last, flush=True)
EOF

try "--header-timeout: heads trickled byte by byte are cut, however slowly they come"
serve_start "$T" "$P" --header-timeout 2 --idle-timeout 30
out=$(timeout 20 python3 "$TESTDIR/trickle.py" "$P" 10 8)
check_contains "$out" "closed 10 of 10" "trickling connections closed within 8 s"
check_eq "page a" "$(curl -s -m 2 "$U/a/")" "a normal request afterwards"
bg_stop "$SERVE_PID"

try "--header-timeout: a kept-alive connection's next head trickled is cut as the first, not after --idle-timeout"
# The idle timer is kept from firing by the trickled bytes; the next
# head has --header-timeout from its first byte, as nginx's
# client_header_timeout: cut after 2 s and a tick, not after 30 + 2.
serve_start "$T" "$P" --header-timeout 2 --idle-timeout 30
out=$(timeout 30 python3 "$TESTDIR/trickle.py" "$P" 5 20 after)
check_contains "$out" "closed 5 of 5" "trickling kept-alive connections closed within 20 s"
check_le "$(echo "$out" | awk '/^closed/ { print $6 }')" 8 "seconds until the last was cut"
bg_stop "$SERVE_PID"

try "--max-per-ip is 256 by default"
serve_start "$T" "$P"
# 300 connections that send nothing for 3 s: the server closes the 44
# over the limit on arrival (give or take a few: two workers count at
# once, and wait_port's probe may not be seen closed yet).
timeout 20 python3 "$TESTDIR/trickle.py" "$P" 300 3 silent >"$TESTDIR/silent.out" &
silent=$!
wait_until 10 grep -q open "$TESTDIR/silent.out" || fail "the silent clients did not start"
check_eq "page a" "$(curl -s -m 2 --interface 127.0.0.2 "$U/a/")" "another address is served meanwhile"
wait "$silent"
closed=$(awk '/^closed/ { print $2 }' "$TESTDIR/silent.out")
check_le "$closed" 48 "connections closed"
check_le 40 "$closed" "connections closed"
bg_stop "$SERVE_PID"

try "a full table takes a new client by dropping the oldest idle connection"
serve_start "$T" "$P" --max-connections 20 --threads 2
timeout 20 python3 "$TESTDIR/trickle.py" "$P" 40 6 >"$TESTDIR/trickle.out" &
trickle=$!
wait_until 10 grep -q open "$TESTDIR/trickle.out" || fail "the trickling clients did not start"
good=0
for i in 1 2 3 4 5; do
	[ "$(curl -s -m 2 "$U/a/")" = "page a" ] && good=$((good + 1))
done
check_eq 5 "$good" "requests served while 40 slow clients fill a table of 20"
wait "$trickle"
bg_stop "$SERVE_PID"

finish
