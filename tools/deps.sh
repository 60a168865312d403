#!/bin/sh
# tools/deps.sh GROUP... - install the Debian packages cgisnap needs.
#
# GROUP is build, sites, test, bench or fuzz (pkg:NAME asks for one package).
# Installs nothing when everything is present. As root it runs apt-get;
# otherwise it prints the exact command to run and fails.
set -u

pkgs=""
for group in "$@"; do
	case "$group" in
	build) pkgs="$pkgs gcc make pkg-config libc6-dev libxml2-dev libmicrohttpd-dev libcurl4-openssl-dev zlib1g-dev" ;;
	sites) pkgs="$pkgs php-cgi php-cli php-sqlite3" ;;
	test) pkgs="$pkgs inotify-tools curl procps iproute2 nginx apache2 chromium python3 time clang libclang-rt-14-dev" ;;
	bench) pkgs="$pkgs wrk nginx lighttpd apache2-utils wget" ;;
	# make fuzz alone; make test runs the fuzzers too (the test group).
	fuzz) pkgs="$pkgs clang libclang-rt-14-dev" ;;
	pkg:*) pkgs="$pkgs ${group#pkg:}" ;;
	*) echo "deps.sh: unknown group '$group'" >&2; exit 2 ;;
	esac
done

missing=""
for p in $pkgs; do
	# A package counts as present only when dpkg says it is installed.
	status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null)
	case "$status" in
	ii*) ;;
	*) missing="$missing $p" ;;
	esac
done
[ -n "$missing" ] || exit 0

cmd="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" != 0 ]; then
	echo "cgisnap: missing Debian packages:$missing" >&2
	echo "cgisnap: run as root: apt-get update && $cmd" >&2
	exit 1
fi
echo "cgisnap: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# A fresh machine may have empty package lists: update once on failure.
apt-get install -y -q --no-install-recommends $missing >/dev/null 2>&1 ||
	{ apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends $missing >/dev/null; } ||
	{ echo "cgisnap: '$cmd' failed" >&2; exit 1; }
