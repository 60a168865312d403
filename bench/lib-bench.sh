# bench/lib-bench.sh - what the bench-*.sh scripts share. Source it after
# setting nothing; then call bench_start NAME.
#
#   ROOT, CGISNAP, CORES    the repository, the binary ($CGISNAP if set), the cores
#   bench_start NAME        WORK: a fresh temporary directory; at exit the
#                           processes listed in $pids are stopped and WORK
#                           goes; Ctrl-C exits 130 the same way
#   free_port               a free TCP port of 127.0.0.1
#   wait_port PORT          until something accepts there (5 s at most)
#   median N...             the median of the numbers
#   goal CONDITION          "met" when the awk condition holds, else "NOT met"
#   fpm_start SOCK N        php-fpm as users run it for nginx: its own php.ini
#                           (opcache on), a static pool of N children on unix
#                           socket SOCK; 1 and a line when it cannot start
#   nginx_start PORT ROOT SOCK INDEX
#                           nginx, a worker per core, ROOT's *.php to SOCK
#   nginx_temp_paths DIR    nginx's temporary directories, all under DIR (for
#                           a configuration that writes nothing under /var)
#   bench_need_tools TOOL...
#                           when a TOOL is not installed (on PATH or in
#                           /usr/sbin), a "skipped:" line and exit 0
#   bench_need_packages NAME PKG...
#                           when a Debian package is not installed, a line
#                           naming them all and exit 1 (php-fpm: its binary too)
#   now                     the wall clock in seconds, with nanoseconds

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CGISNAP=${CGISNAP:-$ROOT/cgisnap}
# The bench's sites live in private directories: run as root, render as
# root (as nginx's php-fpm pool here runs them).
if [ "$(id -u)" = 0 ]; then export CGISNAP_USER=${CGISNAP_USER:-root}; fi
CORES=$(nproc)
pids=""

_bench_cleanup() {
	local p
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	rm -rf "$WORK"
}

# bench_defaults NAME=VALUE...: each NAME the environment left unset or
# empty gets VALUE: a script's knobs, listed in its header, on one line.
bench_defaults() {
	local kv name
	for kv in "$@"; do
		name=${kv%%=*}
		[ -n "${!name:-}" ] || printf -v "$name" '%s' "${kv#*=}"
	done
}

# bench_seed_wiki DIR PAGES: a fresh copy of the sample wiki in DIR,
# seeded with PAGES pages.
bench_seed_wiki() {
	mkdir -p "$1"
	cp -r "$ROOT/sample-sites/wiki/." "$1/"
	rm -rf "$1/data"
	php "$1/bin/seed.php" --pages "$2" --dir "$1" >/dev/null
}

bench_start() {
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/cgisnap-bench-$1.XXXXXX")
	trap _bench_cleanup EXIT
	trap 'exit 130' INT TERM
}

free_port() {
	local p
	while :; do
		p=$((30000 + RANDOM % 30000))
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
	done
}

wait_port() {
	local i
	for i in $(seq 1 250); do
		(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
		sleep 0.02
	done
	return 1
}

median() {
	printf '%s\n' "$@" | sort -g |
		awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

goal() { awk "BEGIN { print (($*) ? \"met\" : \"NOT met\") }"; }

now() { date +%s.%N; }

# mirror_pages DIR LIST FORMAT: how many lines "KEY<TAB>SENTENCE" of LIST
# wget's mirror DIR holds at the URL printf FORMAT KEY makes (a target,
# /doku.php?id=%s), with the sentence.
mirror_pages() {
	local n=0 key sentence f
	while IFS=$'\t' read -r key sentence; do
		# shellcheck disable=SC2059
		f=$1/127.0.0.1:$PORT$(printf "$3" "$key")
		[ -f "$f" ] && grep -qF "$sentence" "$f" && n=$((n + 1))
	done <"$2"
	echo "$n"
}

# tree_pages DIR LIST FORMAT: the same for a cgisnap tree: stored at that
# URL with status 200.
tree_pages() {
	local n=0 key sentence file
	while IFS=$'\t' read -r key sentence; do
		# shellcheck disable=SC2059
		file=$(awk -F'\t' -v u="$(printf "$3" "$key")" '!/^#/ && $1 == u && $3 == 200 { print $2; exit }' \
			<("$CGISNAP" ls "$1"))
		[ -n "$file" ] && [ "$file" != - ] && grep -qF "$sentence" "$1/$file" && n=$((n + 1))
	done <"$2"
	echo "$n"
}

# wget_mirror URL: a fresh wget --mirror of URL into $WORK/wget (robots.txt
# ignored: the crawlers compared are told nothing either), bounded by
# WGET_SECONDS; prints "URLS SECONDS TIMEDOUT": the URLs it downloaded (its
# own count, its last line; a run cut short has none: the URLs its log
# names), its wall time, 1 when the bound stopped it.
wget_mirror() {
	local t0 t1 st n
	rm -rf "$WORK/wget"
	mkdir -p "$WORK/wget"
	t0=$(now)
	# --foreground: wget stays in this process group, so Ctrl-C stops it too.
	(cd "$WORK/wget" && timeout --foreground "$WGET_SECONDS" wget -nv -o "$WORK/wget.log" --mirror --no-parent \
		-e robots=off "$1")
	st=$?
	t1=$(now)
	n=$(sed -n 's/^Downloaded: \([0-9]*\) files.*/\1/p' "$WORK/wget.log" | tail -1)
	[ -n "$n" ] || n=$(grep -c ' URL:' "$WORK/wget.log")
	echo "$n $(awk "BEGIN { printf \"%.3f\", $t1 - $t0 }") $([ "$st" = 124 ] && echo 1 || echo 0)"
}

# A section without its peers is skipped, not failed: make bench runs every
# section, and a machine may lack one peer.
bench_need_tools() {
	local tool
	for tool in "$@"; do
		if ! command -v "$tool" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$tool" ]; then
			echo "skipped: '$tool' is not installed (make deps-bench installs it)"
			exit 0
		fi
	done
}

FPM=$(ls /usr/sbin/php-fpm[0-9]* 2>/dev/null | tail -1)

# php-fpm in the foreground, so that its PID is the master's and stopping
# it stops all. As root the children run as root too (-R): the sites are
# root's copies.
fpm_start() {
	local sock=$1 n=$2 conf=$WORK/fpm-$RANDOM i
	[ -n "$FPM" ] || { echo "php-fpm is not installed (make deps-bench, as root)"; return 1; }
	mkdir -p "$WORK/sessions"
	{
		echo "[global]"
		echo "pid = $conf.pid"
		echo "error_log = $conf.log"
		echo "daemonize = no"
		echo "[pool]"
		[ "$(id -u)" != 0 ] || printf 'user = root\ngroup = root\n'
		echo "listen = $sock"
		echo "pm = static"
		echo "pm.max_children = $n"
		echo "php_admin_value[opcache.enable] = 1"
		echo "php_admin_value[session.save_path] = $WORK/sessions"
	} >"$conf"
	"$FPM" -y "$conf" $([ "$(id -u)" != 0 ] || echo -R) -F >"$conf.out" 2>&1 &
	pids="$pids $!"
	for i in $(seq 1 250); do [ -S "$sock" ] && return 0; sleep 0.02; done
	echo "php-fpm did not start: $(tail -3 "$conf.log" "$conf.out")"
	return 1
}

bench_need_packages() {
	local name=$1 p missing=""
	shift
	for p in "$@"; do
		case "$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null)" in
		ii*) [ "$p" != php-fpm ] || [ -n "$FPM" ] || missing="$missing php-fpm" ;; # its binary
		*) missing="$missing $p" ;;
		esac
	done
	if [ -n "$missing" ]; then
		echo "$name: missing Debian packages:$missing (make deps-bench, as root, installs them)"
		exit 1
	fi
}

nginx_temp_paths() {
	local t
	for t in client_body proxy fastcgi uwsgi scgi; do
		echo "	${t}_temp_path $1/${t#client_};"
	done
}

nginx_start() {
	local port=$1 root=$2 sock=$3 index=$4 ngx=$WORK/nginx-$1
	mkdir -p "$ngx/logs" "$ngx/tmp"
	cat >"$ngx/nginx.conf" <<NGINX
$([ "$(id -u)" != 0 ] || echo "user root root;")
worker_processes $CORES;
pid $ngx/nginx.pid;
error_log $ngx/logs/error.log;
events { worker_connections 256; }
http {
	include /etc/nginx/mime.types;
	access_log off;
$(nginx_temp_paths "$ngx/tmp")
	server {
		listen 127.0.0.1:$port;
		root $root;
		index $index;
		location ~ \.php\$ {
			include /etc/nginx/fastcgi_params;
			fastcgi_param SCRIPT_FILENAME \$document_root\$fastcgi_script_name;
			fastcgi_pass unix:$sock;
		}
	}
}
NGINX
	nginx -p "$ngx" -c "$ngx/nginx.conf" -e "$ngx/logs/error.log" -g 'daemon off;' 2>"$ngx/logs/stderr" &
	pids="$pids $!"
	wait_port "$port" || { echo "nginx did not start: $(tail -3 "$ngx/logs/stderr" "$ngx/logs/error.log")"; return 1; }
}
