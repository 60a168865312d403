# tests/lib-config.sh - helpers for the tests that run the configurations
# of 'cgisnap config' in real nginx and Apache (t06xx). Source after lib.sh.
#
# Every server runs in the foreground under bg_start (stopped at exit),
# on 127.0.0.1 only, with its configuration, pid file, logs and temporary
# directories under $TESTDIR: the system's nginx or Apache (and their
# /etc, /var/log and port 80) are never touched.

# As root, the servers' workers run as nobody: the trees must be readable.
[ "$(id -u)" = 0 ] && chmod 755 "$TESTDIR"

# need_program NAME...: fail (and finish) when a program is missing.
need_program() {
	local p missing=""
	for p in "$@"; do
		command -v "$p" >/dev/null 2>&1 || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	try "programs this test needs are installed"
	fail "missing:$missing (make deps installs the test packages)"
	finish
}

# three_servers_start TREE PS PN NGINX_CONF PA APACHE_CONF: cgisnap serve
# on TREE (port PS), nginx (PN) and Apache (PA) with the configurations
# cgisnap config wrote: the three servers a tree is checked on.
three_servers_start() {
	serve_start "$1" "$2"
	nginx_start nginx "$3" -- "$4"
	apache_start apache "$5" -- "$6"
}

# _ports_before_dashes ARGS...: the words of ARGS before "--" (the ports of
# nginx_start and apache_start).
_ports_before_dashes() {
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		printf '%s ' "$1"
		shift
	done
}

# nginx_start NAME PORT... -- SNIPPET...: run nginx with a main
# configuration of our own that includes each SNIPPET (a file, included
# at http level as Debian's sites-enabled are), and wait for every PORT.
nginx_start() {
	local name=$1 d=$TESTDIR/$1 ports="" f p
	shift
	ports=$(_ports_before_dashes "$@")
	shift $(($(wc -w <<<"$ports") + 1))
	mkdir -p "$d/tmp" "$d/logs"
	{
		[ "$(id -u)" = 0 ] && echo "user nobody nogroup;"
		echo "worker_processes 2;"
		echo "pid $d/nginx.pid;"
		echo "error_log $d/logs/error.log warn;"
		echo "events { worker_connections 256; }"
		echo "http {"
		echo "    access_log $d/logs/access.log;"
		# As Debian's nginx.conf has it.
		[ -f /etc/nginx/mime.types ] && echo "    include /etc/nginx/mime.types;"
		echo "    default_type application/octet-stream;"
		echo "    gzip on;"
		for t in client_body proxy fastcgi uwsgi scgi; do
			echo "    ${t}_temp_path $d/tmp/$t;"
		done
		for f in "$@"; do
			echo "    include $f;"
		done
		echo "}"
	} >"$d/nginx.conf"
	if ! nginx -t -q -p "$d" -c "$d/nginx.conf" -e "$d/logs/error.log" 2>"$d/check.err"; then
		fail "nginx does not accept the configuration: $(cat "$d/check.err")"
		return 1
	fi
	bg_start nginx -p "$d" -c "$d/nginx.conf" -e "$d/logs/error.log" -g 'daemon off;' \
		2>>"$d/logs/stderr"
	NGINX_PID=$BG_PID
	for p in $ports; do
		wait_port "$p" 10 || { fail "nginx did not listen on $p: $(cat "$d/logs/error.log")"; return 1; }
	done
}

# apache_start NAME PORT... -- SNIPPET...: the same with Apache: an
# httpd.conf of our own (mpm_event unless the system enables another MPM),
# loading the modules Debian enables and Debian's module files, run in the
# foreground.
apache_start() {
	local name=$1 d=$TESTDIR/$1 ports="" f p m mods=/usr/lib/apache2/modules
	shift
	ports=$(_ports_before_dashes "$@")
	shift $(($(wc -w <<<"$ports") + 1))
	mkdir -p "$d/run" "$d/logs"
	{
		echo "ServerRoot $d"
		echo "ServerName localhost"
		echo "PidFile $d/run/httpd.pid"
		echo "DefaultRuntimeDir $d/run"
		echo "ErrorLog $d/logs/error.log"
		echo "LogLevel warn"
		# The modules a Debian system enables (deflate, dir, alias, status,
		# negotiation...), as a real installation has them around the
		# virtual host, then those the configuration needs.
		if [ -d /etc/apache2/mods-enabled ]; then
			echo "Include /etc/apache2/mods-enabled/*.load"
			echo "Include /etc/apache2/mods-enabled/*.conf"
		fi
		for m in mpm_event authz_core rewrite headers mime proxy proxy_http; do
			echo "<IfModule !${m}_module>"
			echo "    LoadModule ${m}_module $mods/mod_$m.so"
			echo "</IfModule>"
		done
		echo "TypesConfig /etc/mime.types"
		[ "$(id -u)" = 0 ] && printf 'User nobody\nGroup nogroup\n'
		echo "<Directory />"
		echo "    Require all denied"
		echo "    AllowOverride None"
		echo "</Directory>"
		for f in "$@"; do
			echo "Include $f"
		done
	} >"$d/httpd.conf"
	if ! apache2 -t -f "$d/httpd.conf" 2>"$d/check.err"; then
		fail "Apache does not accept the configuration: $(cat "$d/check.err")"
		return 1
	fi
	bg_start apache2 -f "$d/httpd.conf" -D FOREGROUND 2>>"$d/logs/stderr"
	APACHE_PID=$BG_PID
	for p in $ports; do
		wait_port "$p" 10 || { fail "Apache did not listen on $p: $(cat "$d/logs/error.log")"; return 1; }
	done
}

# fetch_all BASE LIST OUT [CURL OPTIONS...]: request BASE + each line of
# LIST (a target, sent exactly as written) in one curl run. OUT/N is the
# body of the Nth; OUT/records has one line per target, fields separated
# by \037: status, Content-Type, Location, Cache-Control,
# Content-Encoding, body size, body SHA-256.
fetch_all() {
	local base=$1 list=$2 out=$3 n=0 t
	shift 3
	mkdir -p "$out"
	while IFS= read -r t; do
		n=$((n + 1))
		: >"$out/$n" # curl writes no file for an empty body
		t=${t//\\/\\\\}
		printf 'url = "%s%s"\noutput = "%s/%d"\n' "$base" "${t//\"/\\\"}" "$out" "$n"
	done <"$list" >"$out/curl.cfg"
	# One header per line: values may be empty.
	curl -s -g --path-as-is -K "$out/curl.cfg" "$@" \
		-w '%{http_code}\n%header{content-type}\n%header{location}\n%header{cache-control}\n%header{content-encoding}\n' \
		>"$out/meta"
	(cd "$out" && seq 1 "$n" | xargs stat -c '%s' >sizes && seq 1 "$n" | xargs sha256sum >sums)
	awk -v sizes="$out/sizes" -v sums="$out/sums" '
		{ f[(NR - 1) % 5] = $0 }
		NR % 5 == 0 {
			getline size < sizes
			getline sum < sums
			split(sum, h, " ")
			printf "%s\037%s\037%s\037%s\037%s\037%s\037%s\n", f[0], f[1], f[2], f[3], f[4], size, h[1]
		}' "$out/meta" >"$out/records"
}

# compare_fetches LIST A B NAME_A NAME_B [HOSTILE]: print one line per
# difference between two fetch_all results ("URL: field: NAME_A 'x',
# NAME_B 'y'"). Statuses must be equal; types compare without case or
# spaces; Location, Cache-Control and Content-Encoding exactly; bodies
# byte for byte (by SHA-256), except those of redirects (cgisnap serve
# sends none, the others a short HTML page of their own) and of 400s. A
# target listed in the file HOSTILE must be refused (4xx) by both; there
# cgisnap serve's 400 may be the other's 403 or 404, as the test says.
compare_fetches() {
	awk -F '\037' -v list="$1" -v na="$4" -v nb="$5" -v hostile="${6:-/dev/null}" '
		function norm(s) { gsub(/ /, "", s); return tolower(s) }
		function differ(field, x, y) { printf "%s: %s: %s \047%s\047, %s \047%s\047\n", t, field, na, x, nb, y }
		BEGIN { while ((getline line < hostile) > 0) bad[line] = 1 }
		FNR == NR { a[FNR] = $0; next }
		{
			getline t < list
			split(a[FNR], x, "\037")
			if (t in bad) {
				if (x[1] !~ /^4/ || $1 !~ /^4/)
					printf "%s: status: %s %s, %s %s (both must refuse it)\n", t, na, x[1], nb, $1
				else if (x[1] != $1 && !(x[1] == 400 && ($1 == 403 || $1 == 404)))
					differ("status", x[1], $1)
				next
			}
			if (x[1] != $1) { differ("status", x[1], $1); next }
			if (x[1] == 400) next
			if (x[3] != $3) differ("Location", x[3], $3)
			if (x[4] != $4) differ("Cache-Control", x[4], $4)
			if (x[1] ~ /^3/) next
			if (norm(x[2]) != norm($2)) differ("Content-Type", x[2], $2)
			if (x[5] != $5) differ("Content-Encoding", x[5], $5)
			if (x[7] != $7)
				printf "%s: body: %s %s bytes, %s %s bytes (different bytes)\n", t, na, x[6], nb, $6
		}' "$2/records" "$3/records"
}
