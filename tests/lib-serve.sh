# tests/lib-serve.sh - helpers for the 'cgisnap serve' tests (t04xx).
# Source after lib.sh. Trees are built by hand, in the documented text
# format (lib/tree/manifest.h: what cgisnap ls prints, and older trees kept),
# then turned into tree.db by cgisnap's own migration (manifest_commit),
# so these tests do not depend on the crawler.

# manifest_line TARGET KEY STATUS TYPE [LOCATION]: one manifest line
# ("-" for empty fields).
manifest_line() {
	printf '%s\t%s\t%s\t%s\t0\t-\t1\t0\t%s\n' "$1" "$2" "$3" "$4" "${5:--}"
}

# manifest_start DIR: a fresh .cgisnap/manifest with its header line.
manifest_start() {
	mkdir -p "$1/.cgisnap"
	printf '# target\tkey\tstatus\ttype\tbytes\tsha256\trender_ms\tchanged\tlocation\n' \
		>"$1/.cgisnap/manifest"
}

# manifest_commit DIR: migrate DIR's text manifest to tree.db now, quietly
# (the log line is t0582's), so that the commands under test find a tree.db.
manifest_commit() {
	"$CGISNAP" ls "$1" >/dev/null 2>"$TESTDIR/migrate.err" || fail "migrating $1: $(cat "$TESTDIR/migrate.err")"
}

# same_mtime FILE REF: give FILE the modification time of REF, to the
# nanosecond (what snapshot does for FILE.gz).
same_mtime() {
	touch -d "$(stat -c '%y' "$2")" "$1"
}

# make_tree DIR: the standard tree of the serve tests.
make_tree() {
	local d=$1
	mkdir -p "$d/a/b" "$d/docs" "$d/feed" "$d/emptydir"
	printf '<h1>home</h1>\n' >"$d/index.html"
	printf 'body { color: red }\n' >"$d/style.css"
	printf 'page a\n' >"$d/a/index.html"
	printf 'deep\n' >"$d/a/b/c.html"
	printf 'wiki start page\n' >"$d/doku.php@id=start.html"
	printf 'blog page 2\n' >"$d/@paged=2.html"
	printf '{"ok":true}\n' >"$d/data.json"
	printf '<rss></rss>\n' >"$d/feed/index.html"
	printf 'plain text\n' >"$d/notes.txt"
	: >"$d/empty.txt"
	# A compressible page with a fresh .gz, and one whose .gz is stale.
	seq 1 3000 >"$d/docs/big.txt"
	gzip -9 -c "$d/docs/big.txt" >"$d/docs/big.txt.gz"
	same_mtime "$d/docs/big.txt.gz" "$d/docs/big.txt"
	seq 1 2000 >"$d/docs/stale.txt"
	gzip -9 -c "$d/docs/stale.txt" >"$d/docs/stale.txt.gz"
	touch -d '2001-01-01 00:00:00' "$d/docs/stale.txt.gz"
	# Things that must never be served.
	printf 'admin:$apr1$secret\n' >"$d/.htpasswd"
	mkdir -p "$d/.git"
	printf 'secret git config\n' >"$d/.git/config"
	manifest_start "$d"
	{
		manifest_line / index.html 200 'text/html; charset=utf-8'
		manifest_line /style.css style.css 200 'text/css'
		manifest_line /a/ a/index.html 200 'text/html; charset=utf-8'
		manifest_line '/doku.php?id=start' 'doku.php@id=start.html' 200 'text/html; charset=utf-8'
		manifest_line '/?paged=2' '@paged=2.html' 200 'text/html; charset=utf-8'
		manifest_line '/?p=5' - 301 - 'http://localhost/2020/05/hello/'
		manifest_line /old-page - 302 - 'http://localhost/a/'
		manifest_line /feed/ feed/index.html 200 'application/rss+xml; charset=utf-8'
		manifest_line /gone - 410 - -
		manifest_line /deleted - 404 - -
		manifest_line /failed - 500 - -
	} >>"$d/.cgisnap/manifest"
	printf 'site-url = http://localhost/\nsort-query = no\n' >"$d/.cgisnap/settings"
	printf '<h1>Custom not found</h1>\n' >"$d/.cgisnap/404.html"
	manifest_commit "$d"
}

# serve_start DIR PORT [OPTIONS...]: start 'cgisnap serve' in the
# background (stderr in $TESTDIR/server.err) and wait for its port. PORT
# 0 lets the server take a free one: no other program can take it first
# (lib.sh's port); SERVE_PORT is the one it took, read from its log.
serve_start() {
	local dir=$1 p=$2 seen
	shift 2
	[ ! -e "$dir/.cgisnap/manifest" ] || manifest_commit "$dir"
	seen=$(cat "$TESTDIR/server.err" 2>/dev/null | wc -l)
	bg_start "$CGISNAP" serve "$dir" --listen "127.0.0.1:$p" "$@" 2>>"$TESTDIR/server.err"
	SERVE_PID=$BG_PID
	if [ "$p" = 0 ]; then
		wait_until 10 _serve_port "$seen" || fail "server did not say its port: $(cat "$TESTDIR/server.err")"
		p=${SERVE_PORT:-0}
	fi
	SERVE_PORT=$p
	wait_port "$p" 10 || fail "server on port $p did not start: $(cat "$TESTDIR/server.err")"
}

# _serve_port SEEN: set SERVE_PORT from the 'serving' line of server.err
# after its first SEEN lines.
_serve_port() {
	SERVE_PORT=$(tail -n +"$(($1 + 1))" "$TESTDIR/server.err" |
		sed -n 's|^cgisnap: serving .* on http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' | head -1)
	[ -n "$SERVE_PORT" ]
}

# code URL [CURL OPTIONS...]: the status code of a request.
code() {
	local u=$1
	shift
	curl -s -o /dev/null -w '%{http_code}' "$@" "$u"
}

# header NAME FILE: the value of header NAME in a dumped header file.
header() {
	grep -i "^$1:" "$2" | head -1 | sed 's/^[^:]*: *//' | tr -d '\r'
}

# raw_request PORT REQUEST: send REQUEST (with \r\n line ends already in it)
# exactly as given over a plain socket; print the whole answer.
raw_request() {
	local p=$1 req=$2
	exec 5<>"/dev/tcp/127.0.0.1/$p" || return 1
	printf '%b' "$req" >&5
	timeout 5 cat <&5
	exec 5<&-
}

# fallback_origin: the set-up of the --fallback/--fill tests, the front
# controller's answers read from stdin (shell, $REQUEST_URI in its
# environment). Sets T (the standard tree), DOC (the origin's docroot:
# front.cgi records each render's URL in $COUNT, then answers), ORIGIN
# (serve's options for it), P and U (the port to serve on and its URL).
fallback_origin() {
	T=$TESTDIR/tree
	make_tree "$T"
	DOC=$TESTDIR/docroot
	COUNT=$TESTDIR/renders
	mkdir -p "$DOC"
	{
		printf '#!/bin/sh\necho "$REQUEST_URI" >>"%s"\n' "$COUNT"
		cat
	} >"$DOC/front.cgi"
	chmod +x "$DOC/front.cgi"
	ORIGIN=(--root "$DOC" --front-controller /front.cgi)
	P=$(port 0)
	U=http://127.0.0.1:$P
}

# renders URL: how many times fallback_origin's front controller rendered URL.
renders() {
	if [ -f "$COUNT" ]; then grep -c -- "^$1\$" "$COUNT"; else echo 0; fi
}
