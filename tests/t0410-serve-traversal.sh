#!/usr/bin/env bash
# t0410-serve-traversal: no request reads outside the tree, under
# .cgisnap/, or a dotfile, however it is spelled; a flood of such requests
# does not stop good ones being served.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-serve.sh"

T=$TESTDIR/tree
make_tree "$T"
# Secrets: outside the tree, and inside it where nothing may be served.
printf 'OUTSIDE-SECRET\n' >"$TESTDIR/secret.txt"
mkdir -p "$TESTDIR/outdir"
printf 'OUTDIR-SECRET\n' >"$TESTDIR/outdir/index.html"
printf 'OUTDIR-SECRET\n' >"$TESTDIR/outdir/secret.txt"
printf 'HTPASSWD-SECRET\n' >"$T/.htpasswd"
printf 'GIT-SECRET\n' >"$T/.git/config"
tree_put "$T" "$(manifest_line /MANIFEST-SECRET index.html 200 text/html)"
printf '# SETTINGS-SECRET\n' >>"$T/.cgisnap/settings"
ln -s ../secret.txt "$T/leak"
ln -s ../secret.txt "$T/leak.html"
ln -s "$TESTDIR/secret.txt" "$T/leak-abs.html"
ln -s "$TESTDIR/outdir" "$T/outdir"
ln -s ../outdir "$T/outdir-rel"
ln -s /etc "$T/etc"
# A .gz sibling that is a link out of the tree, with the page's mtime.
printf 'plain page\n' >"$T/page.html"
ln -s "$TESTDIR/secret.txt" "$T/page.html.gz"
touch -h -d "$(stat -c '%y' "$T/page.html")" "$T/page.html.gz"
# Links that stay inside the tree are followed (openat2 RESOLVE_BENEATH).
ln -s index.html "$T/alias.html"
ln -s a "$T/alias-dir"

serve_start "$T" 0
P=$SERVE_PORT
U=http://127.0.0.1:$P

SECRETS='OUTSIDE-SECRET|OUTDIR-SECRET|HTPASSWD-SECRET|GIT-SECRET|MANIFEST-SECRET|SETTINGS-SECRET|root:x:0:0|apr1'

# raw_get PATH: send "GET PATH" exactly as written; print the answer
# (read by bash itself, up to the server's close or 5 s: the flood below
# sends hundreds).
raw_get() {
	local answer
	exec 5<>"/dev/tcp/127.0.0.1/$P" || return 1
	printf 'GET %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n' "$1" >&5
	IFS= read -r -d '' -t 5 -u 5 answer
	exec 5<&-
	printf '%s' "$answer"
}

HOSTILE=(
	'/../secret.txt'
	'/../../../../../../etc/passwd'
	'/..%2fsecret.txt'
	'/%2e%2e/secret.txt'
	'/%2e%2e%2fsecret.txt'
	'/%2E%2E/secret.txt'
	'/.%2e/secret.txt'
	'/%2e./secret.txt'
	'/a/../../secret.txt'
	'/a/%2e%2e/%2e%2e/secret.txt'
	'/index.html/../../secret.txt'
	'//../secret.txt'
	'/%c0%ae%c0%ae/secret.txt'
	'/%c0%ae%c0%ae%c0%afsecret.txt'
	'/%e0%80%ae%e0%80%ae/secret.txt'
	'/%c1%9c..%c1%9csecret.txt'
	'/%252e%252e/secret.txt'
	'/..\secret.txt'
	'/..%5csecret.txt'
	'/a\..\..\secret.txt'
	'/%00/../secret.txt'
	'/.%00./secret.txt'
	'/..;/secret.txt'
	'/leak'
	'/leak/'
	'/leak.html'
	'/leak-abs.html'
	'/leak.html?x=1'
	'/outdir/'
	'/outdir/secret.txt'
	'/outdir-rel/secret.txt'
	'/etc/passwd'
	'/etc/passwd/'
	'/.cgisnap/manifest'
	'/.cgisnap/settings'
	'/.cgisnap/lock'
	'/.cgisnap/'
	'/%2ecgisnap/manifest'
	'/%2Ecgisnap%2Fmanifest'
	'/.cgisnap%2fmanifest'
	'/a/../.cgisnap/manifest'
	'/./.cgisnap/manifest'
	'/a/%2e%2e/.cgisnap/settings'
	'/.htpasswd'
	'/%2ehtpasswd'
	'/a/..%2f.htpasswd'
	'/.htpasswd%00.html'
	'/index.html%00.htpasswd'
	'/.git/config'
	'/%2egit/config'
	'http://localhost/../secret.txt'
	'http://localhost/.cgisnap/manifest'
	'/?../../secret.txt'
	'/MANIFEST-SECRET/../.cgisnap/manifest'
)

# check_refused WHAT STATUS BODY: a 400 or 404 that names no secret. Bash
# builtins only: this runs a hundred times.
check_refused() {
	[[ $2 =~ ^(400|404)$ ]] || fail "status for $1: expected 400 or 404, saw '$2'"
	[[ $3 =~ $SECRETS ]] && fail "body for $1 holds a secret: '${BASH_REMATCH[0]}'"
	return 0
}

try "at least 40 hostile paths, sent raw: 400 or 404, never a secret"
check_le 40 "${#HOSTILE[@]}" "number of hostile paths"
for path in "${HOSTILE[@]}"; do
	out=$(raw_get "$path")
	status=${out%%$'\r'*}
	check_refused "$path" "${status:9:3}" "$out"
done

try "the same paths through curl --path-as-is"
for path in "${HOSTILE[@]}"; do
	case "$path" in http:* | *\\*) continue ;; esac
	body=$(curl -s --path-as-is -o - -w '\n%{http_code}' "$U$path")
	check_refused "$path" "${body##*$'\n'}" "$body"
done

try "a .gz sibling that links out of the tree is never sent"
curl -s -D "$TESTDIR/h" -o "$TESTDIR/b" -H 'Accept-Encoding: gzip' "$U/page.html"
check_eq "plain page" "$(cat "$TESTDIR/b")" "the plain page instead"
check_eq "" "$(header Content-Encoding "$TESTDIR/h")" "no Content-Encoding"

try "links inside the tree that stay inside are followed"
check_eq "<h1>home</h1>" "$(curl -s "$U/alias.html")" "file link"
check_eq "page a" "$(curl -s "$U/alias-dir/")" "directory link"

try "oversized and malformed requests are refused, the server lives on"
long=$(head -c 70000 /dev/zero | tr '\0' a)
out=$(exec 5<>"/dev/tcp/127.0.0.1/$P"; printf 'GET / HTTP/1.1\r\nHost: x\r\nX-Big: %s\r\n\r\n' "$long" >&5; timeout 5 cat <&5 2>/dev/null)
# libmicrohttpd answers 431 and closes; the reset may beat the answer.
[ -z "$out" ] || check_match "$(printf '%s' "$out" | head -1)" '^HTTP/1\.1 4[0-9][0-9]' "huge header refused"
check_eq 200 "$(code "$U/")" "still serving after a huge header"
out=$(exec 5<>"/dev/tcp/127.0.0.1/$P"; printf 'GET /%s HTTP/1.1\r\nHost: x\r\n\r\n' "$long" >&5; timeout 5 cat <&5 2>/dev/null)
[ -z "$out" ] || check_match "$(printf '%s' "$out" | head -1)" '^HTTP/1\.1 4[0-9][0-9]' "huge target refused"
check_no_match "$out" "$SECRETS" "huge target"
out=$(exec 5<>"/dev/tcp/127.0.0.1/$P"; printf 'GARBAGE\r\n\r\n' >&5; timeout 5 cat <&5 2>/dev/null)
check_no_match "$out" "$SECRETS" "garbage request"
check_eq 200 "$(code "$U/")" "still serving"

try "a flood of bad requests does not stop good ones"
flood() {
	local i
	for i in $(seq 1 20); do
		for path in '/../secret.txt' '/%2e%2e/secret.txt' '/.cgisnap/manifest' '/leak' '/%c0%ae%c0%ae/x'; do
			raw_get "$path" >/dev/null 2>&1
		done
	done
}
pids=""
for n in 1 2 3; do
	flood &
	pids="$pids $!"
done
# Rounds of 10 good requests, each on a connection of its own, from one
# curl, for as long as the flood lasts (5 rounds at least).
any_alive() {
	local p
	for p; do kill -0 "$p" 2>/dev/null && return 0; done
	return 1
}
good=() asked=0 answered=0
for i in $(seq 1 10); do good+=("$U/a/"); done
while [ "$asked" -lt 50 ] || any_alive $pids; do
	answered=$((answered + $(curl -s -m 5 -H 'Connection: close' -w '\n' "${good[@]}" | grep -c '^page a$')))
	asked=$((asked + 10))
done
for p in $pids; do
	wait "$p"
done
check_eq "$asked" "$answered" "good requests answered during the flood"
check_eq 200 "$(code "$U/")" "still serving after it"

finish
