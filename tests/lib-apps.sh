# tests/lib-apps.sh - the real applications as test subjects: Debian 12's
# DokuWiki and WordPress (on a MariaDB of the test's own), each in a
# directory of the test's, seeded the same way every time (source after
# lib.sh). Nothing under /etc or /var/lib is written: the package trees
# are only read.
#
#     . "$(dirname "$0")/lib.sh"
#     . "$(dirname "$0")/lib-apps.sh"
#     apps_need dokuwiki          # skip the script unless it can run
#     dokuwiki_site "$TESTDIR/dw"  # sets DW_ROOT DW_DATA DW_URL
#     mariadb_start "$TESTDIR/db" && wordpress_site "$TESTDIR/wp"
#     ...
#     mariadb_stop
#
# DokuWiki (package dokuwiki, /usr/share/dokuwiki). The package splits the
# application the FHS way: the code in /usr/share/dokuwiki, whose
# inc/preload.php points DOKU_CONF at /etc/dokuwiki (local.php there sets
# useacl = 1 and, through dokuwiki.php, savedir = /var/lib/dokuwiki/data),
# and lib/tpl and lib/plugins are symbolic links to /var/lib/dokuwiki/lib/
# (writable by the extension manager). DokuWiki finds its code from the
# script it runs (doku.php: DOKU_INC = dirname(__FILE__); lib/exe/*.php:
# two levels up) and then loads DOKU_INC/inc/preload.php, which may define
# DOKU_CONF; without it DOKU_CONF is DOKU_INC/conf/. PHP resolves symbolic
# links in __FILE__, so a tree of links to the package would run with the
# package's DOKU_INC, preload and so /etc/dokuwiki: the root here is a copy
# (5 MiB, 3000 files, under a second) of /usr/share/dokuwiki as it is,
# its two links out to /var/lib/dokuwiki/lib included, so that cgisnap
# meets the package's layout; only inc/preload.php is our own, pointing
# DOKU_CONF at a conf/ beside the root (copies of /etc/dokuwiki's files
# and our local.php), whose savedir is a data/ beside the root.
#
# Using /usr/share/dokuwiki itself as --root (what issue 12's zero-config
# runs will do) needs the pages where the package's configuration says:
# either seed /var/lib/dokuwiki/data/pages (and meta, media) and restore it
# afterwards, with /etc/dokuwiki/local.php's useacl = 1 kept (anonymous
# reading is allowed by Debian's acl.auth.php, but the pages then show
# login links), or use the package preload's farm: a directory
# /etc/dokuwiki/farm/default/ (or farm/PORT.HOST/ for one virtual host)
# with a local.php whose savedir is the test's own; DokuWiki picks it by
# HTTP_HOST. Both write under /etc or /var/lib for the length of a test
# (and must be removed by a trap, and cannot run unprivileged), which is
# why the copy is the default here.
#
# WordPress (package wordpress, /usr/share/wordpress). Debian's
# wp-config.php loads /etc/wordpress/config-HOST.php by HTTP_HOST (or
# $_SERVER[WORDPRESS_CONFIG], still a file under /etc/wordpress), and sets
# WP_CONTENT_DIR to /var/lib/wordpress/wp-content. wp-load.php takes
# ABSPATH from its own __DIR__ and reads ABSPATH/wp-config.php, so again
# the root is a copy (56 MiB, under a second) with our own wp-config.php:
# database on our MariaDB's socket, WP_CONTENT_DIR the copy's own
# wp-content (which has the package's theme, twentytwentythree), no cron
# (it would request wp-cron.php over HTTP on every page), no HTTP to
# anywhere but localhost, no updates. A config file under /etc/wordpress
# created and removed by a trap would work too, but it writes /etc, needs
# root, and two tests at once would fight over config-localhost.php.

# MediaWiki (package mediawiki, /usr/share/mediawiki; Debian's Apache
# configuration mounts /var/lib/mediawiki, links to it, at /mediawiki).
# MediaWiki's install path is includes/'s parent (PHP resolves links in
# __DIR__) and it reads $IP/LocalSettings.php, which the package links to
# /etc/mediawiki: so the root here has copies of the entry points,
# includes/ (36 MiB, a second) and mw-config/, links to the package's
# other directories (vendor, languages, resources, skins, maintenance),
# and our own LocalSettings.php, written by MediaWiki's installer for an
# SQLite database in a data/ beside the root. Maintenance scripts run
# through the link find the package's path, so they are given
# MW_INSTALL_PATH and --conf.

# apps_need dokuwiki|wordpress|mediawiki...: the packages they need are installed;
# when some are missing, as root install them (make test has done so
# already; failing to is a failure of the script), otherwise end the
# script as skipped: exit 0 after a "# SKIP" line.
apps_need() {
	local a pkgs="" p missing=""
	for a in "$@"; do
		case "$a" in
		dokuwiki) pkgs="$pkgs dokuwiki php-cgi php-cli" ;;
		wordpress) pkgs="$pkgs wordpress wordpress-theme-twentytwentythree mariadb-server php-mysql php-cgi php-cli" ;;
		mediawiki) pkgs="$pkgs mediawiki php-sqlite3 php-cgi php-cli" ;;
		esac
	done
	for p in $pkgs; do
		case " $missing " in *" $p "*) continue ;; esac
		case "$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null)" in
		ii*) ;;
		*) missing="$missing $p" ;;
		esac
	done
	[ -n "$missing" ] || return 0
	if [ "$(id -u)" != 0 ]; then
		echo "# SKIP $TEST_NAME: missing Debian packages:$missing (make deps, as root, installs them)"
		echo "# counts: 0 0"
		exit 0
	fi
	# Root could have them: not having them is a failure, not a skip.
	"$ROOT/tools/deps.sh" $(printf ' pkg:%s' $missing) && return 0
	try "the Debian packages this test needs are installed"
	fail "cannot install:$missing"
	finish
}

# missing_pages TREE FILE FORMAT: the names of FILE's seeded pages (lines
# "NAME<TAB>SENTENCE"; a page's target is printf FORMAT NAME) that TREE
# does not store with their sentence, on one line.
missing_pages() {
	local name sentence key missing=""
	while IFS=$'\t' read -r name sentence; do
		key=$(manifest_field "$1" "$(printf "$3" "$name")" 2)
		if [ -z "$key" ] || [ "$key" = - ] || ! grep -qF "$sentence" "$1/$key"; then
			missing="$missing $name"
		fi
	done <"$2"
	echo "$missing"
}

# dokuwiki_missing_pages TREE: the ids of the seeded pages ($DW_PAGES_FILE)
# that TREE does not store with their sentence, on one line.
dokuwiki_missing_pages() {
	missing_pages "$1" "$DW_PAGES_FILE" '/doku.php?id=%s'
}

# dokuwiki_test_site: what a DokuWiki test starts from: apps_need
# dokuwiki, then dokuwiki_site in $TESTDIR/dw; a wiki that cannot be
# seeded ends the script with one failed case saying why.
dokuwiki_test_site() {
	apps_need dokuwiki
	dokuwiki_site "$TESTDIR/dw" >"$TESTDIR/dw.out" 2>&1 && return 0
	try "dokuwiki_site"
	fail "cannot seed the wiki: $(tail -3 "$TESTDIR/dw.out")"
	finish
}

# The fixed moment every seeded file and post carries.
APPS_DATE='2024-03-01 12:00:00 UTC'

# dokuwiki_site DIR: a DokuWiki in DIR (DIR/root, DIR/conf, DIR/data) with
# 49 pages in four namespaces (DW_NAMESPACES). Sets DW_ROOT (--root), DW_DATA (its savedir), DW_URL
# (the --site-url to snapshot it with), and DW_PAGES_FILE (a list of
# "ID<TAB>SENTENCE", one line a seeded page, SENTENCE found on that page
# only); prints them on a comment line. 1 when something failed.
dokuwiki_site() {
	local dir=$1 f ns n i id next
	DW_ROOT=$dir/root DW_DATA=$dir/data DW_URL=http://localhost:8080/
	DW_PAGES_FILE=$dir/pages.tsv
	mkdir -p "$dir/conf" || return 1
	cp -a /usr/share/dokuwiki "$DW_ROOT" || return 1
	# Ours instead of the package's: no /etc/dokuwiki, no farm.
	cat >"$DW_ROOT/inc/preload.php" <<-PHP || return 1
	<?php
	// tests/lib-apps.sh: this copy's configuration is its own.
	if (!defined('DOKU_CONF')) define('DOKU_CONF', '$dir/conf/');
	PHP
	# The package's defaults (dokuwiki.php, mime.conf, ...), not its
	# local.php nor the ACL files (links into /var/lib/dokuwiki/acl).
	for f in /etc/dokuwiki/*; do
		case "${f##*/}" in
		local.php | local.php.dist | acl.auth.php | users.auth.php | *.dist | apache.conf | lighttpd.conf | htaccess) ;;
		*) [ -f "$f" ] && { cp -L "$f" "$dir/conf/" || return 1; } ;;
		esac
	done
	cat >"$dir/conf/local.php" <<-PHP || return 1
	<?php
	// tests/lib-apps.sh: a public wiki of the test's own.
	\$conf['title'] = 'cgisnap test wiki';
	\$conf['savedir'] = '$DW_DATA';
	\$conf['license'] = 'cc-by-sa';
	// Anyone may read: no ACL, so no login needed (nor offered).
	\$conf['useacl'] = 0;
	// Nothing phones home: no update check, no reverse DNS of visitors.
	\$conf['updatecheck'] = 0;
	\$conf['dnslookups'] = 0;
	// DokuWiki's defaults, said here because the tests depend on them:
	// doku.php?id= URLs, and a missing page answers 200 with a "this
	// topic does not exist yet" text.
	\$conf['userewrite'] = 0;
	\$conf['send404'] = 0;
	PHP
	for f in pages meta media media_meta attic media_attic cache index locks tmp log; do
		mkdir -p "$DW_DATA/$f" || return 1
	done

	# The pages: start, and in each namespace an index page linking to
	# its pages; each page links to the next in its namespace and to a page
	# of the next namespace.
	: >"$DW_PAGES_FILE"
	_dw_page start "Welcome to the cgisnap test wiki. Seeded page start opens the wiki." \
		"$(for ns in $DW_NAMESPACES; do printf '  * [[%s:index|The %s namespace]]\n' "$ns" "$ns"; done)" || return 1
	set -- $DW_NAMESPACES
	for ns in "$@"; do
		n=$(_dw_count "$ns")
		_dw_page "$ns:index" "Seeded page $ns index lists its namespace." \
			"$(for i in $(seq -f %02g 1 "$n"); do printf '  * [[%s:page%s]]\n' "$ns" "$i"; done)" || return 1
	done
	for ns in "$@"; do
		n=$(_dw_count "$ns")
		next=$(_dw_next_ns "$ns")
		for i in $(seq -f %02g 1 "$n"); do
			id=$ns:page$i
			_dw_page "$id" "Seeded page $ns page$i has a sentence of its own." \
				"  * next: [[$ns:page$(printf %02d $((10#$i % n + 1)))]]
  * elsewhere: [[$next:page01]]
  * up: [[$ns:index]] and [[start]]" || return 1
		done
	done
	# One page with a table, an image from data/media and a code block
	# whose file name makes a download link (do=export_code).
	mkdir -p "$DW_DATA/media/wiki" &&
		cp /usr/share/dokuwiki/lib/images/license/button/cc-by-sa.png "$DW_DATA/media/wiki/badge.png" || return 1
	cat >>"$DW_DATA/pages/wiki/page01.txt" <<-'TXT' || return 1

	===== A table and an image =====

	^ Name ^ Pages ^
	| wiki | the first namespace |
	| howto | the last one |

	{{wiki:badge.png|The license badge}}

	===== A code block with a download link =====

	<code php hello.php>
	<?php echo "hello from the code block";
	</code>
	TXT
	# What DokuWiki's editor makes of a saved page besides its file: the
	# metadata (the abstract the feeds show) and the search index, made by
	# DokuWiki's own indexer as after an import of page files. Without
	# them the first feed render finds no abstracts (DokuWiki renders at
	# most 5 pages' metadata per request), and the next one does.
	(cd "$DW_ROOT" && php -d error_reporting=E_ERROR bin/indexer.php -q) >"$dir/indexer.log" 2>&1 ||
		{ sed 's/^/# /' "$dir/indexer.log" >&2; return 1; }
	# DokuWiki makes a random secret on first use: the media tokens (tok=)
	# and so the image URLs would differ from run to run.
	printf 'cgisnap-test-wiki-salt' >"$DW_DATA/meta/_htcookiesalt2" || return 1
	# Fixed times: "last modified" lines, and the tseed of the style and
	# script URLs (taken from the configuration files' times).
	find "$DW_DATA" "$dir/conf" -type f -exec touch -d "$APPS_DATE" {} + || return 1
	echo "# dokuwiki: root $DW_ROOT data $DW_DATA url $DW_URL ($(wc -l <"$DW_PAGES_FILE") pages)"
}

# The namespaces, and how many pages each has (49 pages with start).
DW_NAMESPACES="wiki projects people howto"
_dw_count() {
	case "$1" in
	wiki) echo 10 ;;
	projects) echo 13 ;;
	people) echo 11 ;;
	*) echo 10 ;;
	esac
}

_dw_next_ns() {
	case "$1" in
	wiki) echo projects ;;
	projects) echo people ;;
	people) echo howto ;;
	*) echo wiki ;;
	esac
}

# _dw_page ID SENTENCE LINKS: write page ID (a heading, SENTENCE, a
# second-level heading, LINKS) and list it in DW_PAGES_FILE.
_dw_page() {
	local file=$DW_DATA/pages/${1//://}.txt
	mkdir -p "${file%/*}" || return 1
	printf '====== %s ======\n\n%s\n\n===== Links =====\n\n%s\n' "${1##*:}" "$2" "$3" >"$file" || return 1
	printf '%s\t%s\n' "$1" "$2" >>"$DW_PAGES_FILE"
}

# mariadb_start DIR: a MariaDB server of the test's own: datadir DIR/db,
# socket DIR/mysql.sock (MARIADB_SOCK), no TCP, none of /etc/mysql's
# settings (--no-defaults), root without a password; in the background
# (bg_start), stopped by mariadb_stop or at the script's exit. 1 when it did
# not come up (DIR/install.log, DIR/error.log say why).
mariadb_start() {
	local dir=$1 user
	user=$(id -un)
	MARIADB_DIR=$dir MARIADB_SOCK=$dir/mysql.sock
	# A unix socket's path has at most 107 bytes.
	[ "${#MARIADB_SOCK}" -lt 100 ] || { echo "# mariadb: socket path '$MARIADB_SOCK' too long" >&2; return 1; }
	mkdir -p "$dir" || return 1
	# Small logs and buffers: a test's database is a few MiB, and the
	# default 96 MiB redo log would be most of its disk and time.
	mariadb-install-db --no-defaults --datadir="$dir/db" --user="$user" \
		--auth-root-authentication-method=normal --skip-test-db \
		--innodb-log-file-size=8M >"$dir/install.log" 2>&1 || return 1
	bg_start _mariadbd_run "$dir" --no-defaults --datadir="$dir/db" --socket="$MARIADB_SOCK" \
		--skip-networking --pid-file="$dir/mariadbd.pid" --user="$user" \
		--log-error="$dir/error.log" --innodb-log-file-size=8M \
		--innodb-buffer-pool-size=32M --skip-log-bin
	MARIADB_PID=$BG_PID
	# _mariadb_up stops the wait when the server died: it must be alive.
	wait_until 60 _mariadb_up && _bg_ours "$MARIADB_PID" ||
		{ echo "# mariadb: did not start, see $dir/error.log" >&2; return 1; }
}

# _mariadbd_run DIR ARGS...: the server, what it says before its log is
# open going to DIR/error.log too.
_mariadbd_run() {
	local dir=$1
	shift
	exec mariadbd "$@" 2>>"$dir/error.log"
}

# _mariadb_up: the server answers, or has died (no use waiting).
_mariadb_up() {
	_bg_ours "$MARIADB_PID" || return 0
	[ -S "$MARIADB_SOCK" ] && mariadb_sql 'SELECT 1' >/dev/null
}

# mariadb_sql SQL [DATABASE]: run SQL on the test's server as root.
mariadb_sql() {
	mariadb --no-defaults --socket="$MARIADB_SOCK" -uroot --batch -e "$1" ${2:+"$2"}
}

# mariadb_stop: stop the server (TERM: it shuts down cleanly) and wait for
# it; returns its exit status.
mariadb_stop() {
	[ -n "${MARIADB_PID:-}" ] || return 0
	bg_stop "$MARIADB_PID"
	local status=$?
	MARIADB_PID=""
	return "$status"
}

# wordpress_site DIR [URL]: a WordPress in DIR/root for site URL (default
# http://localhost:8080/), database 'wordpress' on mariadb_start's server,
# installed and seeded through php-cli: WP_POSTS posts over several months,
# 3 pages, categories, tags and comments, all with fixed dates; pretty
# permalinks /%year%/%monthnum%/%postname%/ (answered by index.php as the
# front controller). Sets WP_ROOT, WP_URL, and WP_POSTS_FILE: a list of
# "PATH<TAB>TITLE<TAB>KIND", one line a seeded post, page, category or tag
# (PATH its permalink, relative to the site). 1 when something failed
# (DIR/install.log says why).
wordpress_site() {
	local dir=$1 url=${2:-http://localhost:8080/}
	WP_ROOT=$dir/root WP_URL=${url%/}/ WP_POSTS_FILE=$dir/posts.tsv
	mkdir -p "$dir" || return 1
	cp -a /usr/share/wordpress "$WP_ROOT" || return 1
	# The copy's own content directory: the package's theme and plugins,
	# uploads of its own (the package's are links to /var/lib/wordpress).
	rm -f "$WP_ROOT/wp-config.php"
	cat >"$WP_ROOT/wp-config.php" <<-PHP || return 1
	<?php
	// tests/lib-apps.sh: this copy's configuration is its own.
	define('DB_NAME', 'wordpress');
	define('DB_USER', 'root');
	define('DB_PASSWORD', '');
	define('DB_HOST', 'localhost:$MARIADB_SOCK');
	define('DB_CHARSET', 'utf8mb4');
	define('DB_COLLATE', '');
	\$table_prefix = 'wp_';
	// Fixed keys: cookies and nonces differ only by time, not by run.
	foreach (array('AUTH', 'SECURE_AUTH', 'LOGGED_IN', 'NONCE') as \$k) {
		define(\$k . '_KEY', 'cgisnap-test-' . \$k);
		define(\$k . '_SALT', 'cgisnap-test-salt-' . \$k);
	}
	define('WP_CONTENT_DIR', __DIR__ . '/wp-content');
	// Nothing runs behind a page's back or phones home: no cron (it
	// requests wp-cron.php over HTTP), no update checks, no HTTP to
	// anywhere but this machine.
	define('DISABLE_WP_CRON', true);
	define('AUTOMATIC_UPDATER_DISABLED', true);
	define('WP_AUTO_UPDATE_CORE', false);
	define('WP_HTTP_BLOCK_EXTERNAL', true);
	define('WP_DEBUG', false);
	if (!defined('ABSPATH')) define('ABSPATH', __DIR__ . '/');
	require_once ABSPATH . 'wp-settings.php';
	PHP
	mkdir -p "$WP_ROOT/wp-content/uploads" || return 1
	mariadb_sql 'CREATE DATABASE wordpress CHARACTER SET utf8mb4' || return 1
	php -d display_errors=stderr "$ROOT/tests/fixtures/apps/wp-seed.php" "$WP_ROOT" "$WP_URL" \
		"$WP_POSTS_FILE" >"$dir/install.log" 2>&1 || { sed 's/^/# /' "$dir/install.log" >&2; return 1; }
	echo "# wordpress: root $WP_ROOT url $WP_URL ($(wc -l <"$WP_POSTS_FILE") URLs seeded)"
}

# mediawiki_site DIR: a MediaWiki in DIR (DIR/root, mounted at /mediawiki;
# DIR/data, its SQLite database; DIR/docroot, an empty document root)
# with MW_NPAGES pages "Page NN" in a ring, a Main Page listing them and
# the three project pages the footer links to. Sets
# MW_ROOT, MW_DATA, MW_DOCROOT, MW_URL (the --site-url) and MW_PAGES_FILE
# ("TARGET<TAB>SENTENCE", one line a seeded page, SENTENCE found on that
# page only); 1 when something failed.
MW_NPAGES=40
mediawiki_site() {
	local dir=$1 f i next
	MW_ROOT=$dir/root MW_DATA=$dir/data MW_DOCROOT=$dir/docroot MW_URL=http://localhost:8080/mediawiki/
	MW_PAGES_FILE=$dir/pages.tsv
	mkdir -p "$MW_ROOT/images" "$MW_ROOT/extensions" "$MW_DATA" "$MW_DOCROOT" "$dir/seed" || return 1
	for f in /usr/share/mediawiki/*; do
		case "${f##*/}" in
		LocalSettings.php | config | extensions | images) ;;
		includes | mw-config) cp -a "$f" "$MW_ROOT/" || return 1 ;;
		*) if [ -d "$f" ]; then ln -s "$f" "$MW_ROOT/"; else cp -a "$f" "$MW_ROOT/"; fi || return 1 ;;
		esac
	done
	mw_php maintenance/install.php --dbtype sqlite --dbpath "$MW_DATA" --dbname wiki \
		--server http://localhost:8080 --scriptpath /mediawiki --pass cgisnap-test-password \
		--confpath "$MW_ROOT" --skins Vector "Test Wiki" Admin >"$dir/install.out" 2>&1 ||
		{ tail -5 "$dir/install.out"; return 1; }
	cat >>"$MW_ROOT/LocalSettings.php" <<-'PHP' || return 1
	# tests/lib-apps.sh: each view parsed afresh (a page saved before the
	# page it links to would keep a red link in the parser cache).
	$wgParserCacheType = CACHE_NONE;
	PHP
	: >"$MW_PAGES_FILE"
	{
		echo "Welcome to the cgisnap test wiki. Seeded page Main Page lists the others."
		for i in $(seq -f %02g 1 "$MW_NPAGES"); do echo "* [[Page $i]]"; done
	} >"$dir/seed/Main Page.txt" || return 1
	printf '/mediawiki/index.php?title=Main_Page\tSeeded page Main Page lists the others.\n' >>"$MW_PAGES_FILE"
	for i in $(seq -f %02g 1 "$MW_NPAGES"); do
		next=$(printf %02d $((10#$i % MW_NPAGES + 1)))
		cat >"$dir/seed/Page $i.txt" <<-TXT || return 1
		Seeded page $i has a sentence of its own.

		See [[Page $next]] and [[Main Page]].

		== A section ==
		Some '''bold''' text and a list:
		* one
		* two
		TXT
		printf '/mediawiki/index.php?title=Page_%s\tSeeded page %s has a sentence of its own.\n' "$i" "$i" \
			>>"$MW_PAGES_FILE"
	done
	for f in About "Privacy policy" "General disclaimer"; do
		echo "Seeded page $f says what the test wiki is." >"$dir/seed/Test Wiki:$f.txt" || return 1
		printf '/mediawiki/index.php?title=Test_Wiki:%s\tSeeded page %s says what the test wiki is.\n' \
			"${f// /_}" "$f" >>"$MW_PAGES_FILE"
	done
	# The site's icon, in the document root as on a real server (the skin
	# links /favicon.ico).
	cp /usr/share/mediawiki/resources/assets/poweredby_mediawiki_88x31.png "$MW_DOCROOT/favicon.ico" || return 1
	# Dated now: the installer's Main Page is newer than any date given.
	mw_php maintenance/importTextFiles.php --overwrite -s seed -u Admin "$dir/seed/"*.txt \
		>"$dir/import.out" 2>&1 || { tail -5 "$dir/import.out"; return 1; }
	mw_php maintenance/runJobs.php >"$dir/jobs.out" 2>&1 || { tail -5 "$dir/jobs.out"; return 1; }
	# A wiki people read has been visited: its caches (localisation,
	# ResourceLoader's records of its first builds) are warm.
	"$CGISNAP" snapshot --root "$MW_DOCROOT" --path-alias "/mediawiki=$MW_ROOT" --cgi php=php-cgi \
		--site-url "$MW_URL" --max-depth 0 --progress none -q "$dir/visited" >"$dir/visit.out" 2>&1 ||
		{ tail -5 "$dir/visit.out"; return 1; }
	rm -rf "$dir/visited"
	echo "# mediawiki_site: MW_ROOT=$MW_ROOT MW_DATA=$MW_DATA MW_URL=$MW_URL ($(wc -l <"$MW_PAGES_FILE") pages)"
}

# mw_php SCRIPT ARGS...: run one of the wiki's PHP scripts (a path under
# MW_ROOT) as its maintenance scripts expect: this wiki's install path
# and LocalSettings.php, whatever the links to the package say.
mw_php() {
	local script=$1
	shift
	case "$script" in maintenance/install.php) ;; *) set -- --conf "$MW_ROOT/LocalSettings.php" "$@" ;; esac
	(cd "$MW_ROOT" && MW_INSTALL_PATH=$MW_ROOT php "$script" "$@")
}

# mediawiki_missing_pages TREE: the targets of $MW_PAGES_FILE that TREE
# does not store with their sentence, on one line.
mediawiki_missing_pages() {
	missing_pages "$1" "$MW_PAGES_FILE" '%s'
}
