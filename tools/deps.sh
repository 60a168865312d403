#!/bin/sh
# tools/deps.sh GROUP... - install the Debian packages cgisnap needs.
#
# GROUP is build, sites, test, bench, deb or fuzz (pkg:NAME asks for one package).
# Installs nothing when everything is present. As root it runs apt-get;
# otherwise it prints the exact command to run and fails.
set -u

pkgs=""
for group in "$@"; do
	case "$group" in
	build) pkgs="$pkgs gcc make pkg-config libc6-dev libxml2-dev libmicrohttpd-dev libcurl4-openssl-dev zlib1g-dev libsqlite3-dev libssl-dev" ;;
	sites) pkgs="$pkgs php-cgi php-cli php-sqlite3" ;;
	# rsync, rclone: watch --exec's mirror examples (t0563); man-db, systemd:
	# man -l and systemd-analyze on what make install puts (t0030, t0031);
	# strace: the system calls watch makes in the units' sandbox (t0031).
	# The real applications (t07xx, tests/lib-apps.sh): DokuWiki,
	# WordPress (with the theme its package recommends, the default of its
	# version) on a MariaDB the tests start themselves, and MediaWiki on
	# SQLite (php-sqlite3 is in sites).
	test) pkgs="$pkgs inotify-tools curl procps iproute2 nginx apache2 chromium python3 time clang libclang-rt-14-dev"
		pkgs="$pkgs rsync rclone man-db systemd strace"
		pkgs="$pkgs dokuwiki wordpress wordpress-theme-twentytwentythree mariadb-server php-mysql mediawiki"
		# A second FastCGI program besides php-cgi, for --cgi-spawn (t0349);
		# wrk, the keep-alive load on serve in the soak (t0586); php-fpm,
		# three pools as one --fastcgi upstream (t0322). make deps adds
		# the deb group: t0032 builds the package.
		pkgs="$pkgs libfcgi-perl wrk php-fpm" ;;
	# php-fpm: bench-apps.sh and bench-mediawiki.sh serve the real DokuWiki
	# and MediaWiki through nginx + php-fpm.
	bench) pkgs="$pkgs wrk nginx lighttpd apache2-utils wget php-fpm" ;;
	# make deb: the package's build (debian/control's Build-Depends are
	# the build group's) and its check.
	deb) pkgs="$pkgs dpkg-dev debhelper lintian" ;;
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

# The servers among these packages (MariaDB, nginx, Apache, lighttpd,
# php-fpm) are the tests' and benchmarks' to start, each on a port or
# socket of its own: a system one would hold port 80 or 3306 and outlive
# the run. So none starts during the install (a policy-rc.d that refuses,
# as Debian's container images have; one already there is put back as it
# was), and one installed now is disabled afterwards, so none starts at
# boot either.
# CGISNAP_POLICY_RC_D: another file, for tests/t0010-cli.sh.
policy=${CGISNAP_POLICY_RC_D:-/usr/sbin/policy-rc.d}
saved=""
restore_policy() {
	trap - EXIT
	if [ -n "$saved" ]; then
		mv -f "$saved" "$policy"
	else
		rm -f "$policy"
	fi
}
if [ -e "$policy" ]; then
	saved=$(mktemp "$policy.cgisnap-saved.XXXXXX") && cp -p "$policy" "$saved" ||
		{ echo "cgisnap: cannot save '$policy'" >&2; exit 1; }
fi
trap restore_policy EXIT
trap 'exit 1' INT TERM
printf '#!/bin/sh\n# tools/deps.sh (cgisnap): no service starts during its install.\nexit 101\n' \
	>"$policy.cgisnap-tmp" && chmod 755 "$policy.cgisnap-tmp" && mv -f "$policy.cgisnap-tmp" "$policy" ||
	{ echo "cgisnap: cannot write '$policy'" >&2; exit 1; }
# DokuWiki's package offers to configure the system's web servers for it
# (a debconf question): none.
echo 'dokuwiki dokuwiki/system/configure-webserver multiselect' | debconf-set-selections 2>/dev/null

# A fresh machine may have empty package lists: update once on failure.
apt-get install -y -q --no-install-recommends $missing >/dev/null 2>&1 ||
	{ apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends $missing >/dev/null; } ||
	{ echo "cgisnap: '$cmd' failed" >&2; exit 1; }
restore_policy

for p in $missing; do
	case "$p" in
	mariadb-server) svc=mariadb ;;
	nginx | apache2 | lighttpd) svc=$p ;;
	# The service is the versioned package's that php-fpm depends on
	# (php8.2-fpm).
	php-fpm)
		svc=$(dpkg-query -W -f='${Depends}' php-fpm 2>/dev/null | sed -n 's/^\(php[0-9.]*-fpm\).*/\1/p')
		[ -n "$svc" ] || continue
		;;
	*) continue ;;
	esac
	# Both the systemd unit and the SysV links: a machine may boot either.
	deb-systemd-helper disable "$svc.service" >/dev/null 2>&1
	update-rc.d "$svc" disable >/dev/null 2>&1
done
exit 0
