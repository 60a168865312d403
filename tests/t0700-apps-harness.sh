#!/usr/bin/env bash
# t0700-apps-harness: the real applications of tests/lib-apps.sh work as
# test subjects with today's cgisnap: Debian's DokuWiki, seeded in a
# directory of the test's own, and Debian's WordPress on a MariaDB the test
# starts and stops itself, both snapshotted through php-cgi; and nothing
# of the packages' system files changes. Only what is true today is
# asserted (every seeded page stored); what issue 12 will change (junk
# URL families, theme images stored as 404) is printed as "# baseline"
# lines, the figures its acceptance tests (t07xx) improve on.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"
. "$(dirname "$0")/lib-apps.sh"

apps_need dokuwiki wordpress

# What the packages put under /etc and /var/lib, and their database's
# files: names, types, modes, link targets, and the checksum of each file
# (what this user may read of them: the same both times).
SYSTEM_DIRS="/etc/dokuwiki /var/lib/dokuwiki /etc/wordpress /var/lib/wordpress /etc/mysql /var/lib/mysql"
system_listing() {
	local d
	for d in $SYSTEM_DIRS; do
		[ -e "$d" ] || continue
		find "$d" -printf '%p %y %m %u %l\n' 2>/dev/null
		find "$d" -type f -readable -exec md5sum {} + 2>/dev/null
	done | LC_ALL=C sort
}
system_listing >"$TESTDIR/system.before"

# elapsed START: seconds since START (date +%s.%N), one decimal.
elapsed() {
	awk -v s="$1" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }'
}

# family_counts OUT PATTERN...: "PATTERN=N" for the targets matching each.
family_counts() {
	local out=$1 p
	shift
	for p in "$@"; do
		printf ' %s=%s' "$p" "$(manifest_targets "$out" | grep -cE -- "$p")"
	done
}

try "dokuwiki_site: a seeded DokuWiki of the test's own, beside the package"
dokuwiki_site "$TESTDIR/dw" >"$TESTDIR/dw.out" 2>&1
check_eq 0 $? "dokuwiki_site exit status ($(tail -3 "$TESTDIR/dw.out"))"
cat "$TESTDIR/dw.out"
check_file "$DW_ROOT/doku.php" "the root has the package's doku.php"
check_le 45 "$(wc -l <"$DW_PAGES_FILE")" "seeded pages"
check_file "$DW_DATA/pages/wiki/page01.txt" "pages live in the test's data directory"
check_contains "$(cat "$DW_ROOT/inc/preload.php")" "$TESTDIR/dw/conf/" "DOKU_CONF is the test's own"

try "a snapshot of the real DokuWiki stores the start page and every seeded page"
start=$(date +%s.%N)
# --profile none: the baseline is cgisnap without the dokuwiki profile
# (t0710 is the snapshot with it).
"$CGISNAP" snapshot --root "$DW_ROOT" --cgi php=php-cgi --site-url "$DW_URL" --seed /doku.php \
	--profile none --max-pages 2000 -j 2 "$TESTDIR/dw-out" >"$TESTDIR/dw-snap.out" 2>"$TESTDIR/dw-snap.err"
status=$?
secs=$(elapsed "$start")
# 0, or 1 should a URL fail (the rest published): never a usage error.
check_le "$status" 1 "snapshot exit status ($(grep -v 'PHP Warning' "$TESTDIR/dw-snap.err" | tail -3))"
key=$(manifest_field "$TESTDIR/dw-out" "/doku.php?id=start" 2)
check_contains "$(cat "$TESTDIR/dw-out/$key" 2>/dev/null)" "Welcome to the cgisnap test wiki" "the start page"
check_eq "" "$(dokuwiki_missing_pages "$TESTDIR/dw-out")" "seeded pages not stored with their text"
check_eq 200 "$(manifest_field "$TESTDIR/dw-out" "/lib/exe/fetch.php?media=wiki:badge.png" 3)" \
	"the image from data/media"
echo "# baseline dokuwiki: $(manifest_targets "$TESTDIR/dw-out" | wc -l) URLs for $(wc -l <"$DW_PAGES_FILE") pages in $secs s;$(
	family_counts "$TESTDIR/dw-out" 'taskrunner\.php' 'do=index' 'do=diff' 'do=export_raw' \
		'do=export_xhtml' 'do=(edit|admin|login|recent|revisions|backlink|media)' 'rev=')"
echo "# baseline dokuwiki: $(awk -F'\t' '!/^#/ && $3 == 404' <("$CGISNAP" ls "$TESTDIR/dw-out") | wc -l) URLs stored as 404 ($(
	awk -F'\t' '!/^#/ && $3 == 404 && $1 ~ /^\/lib\/(tpl|plugins)\//' <("$CGISNAP" ls "$TESTDIR/dw-out") | wc -l
	) under lib/tpl and lib/plugins, the package's links to /var/lib/dokuwiki); $(grep -c 'PHP Warning' "$TESTDIR/dw-snap.err") PHP warnings"

try "mariadb_start: a MariaDB of the test's own, on a unix socket only"
mariadb_start "$TESTDIR/db"
check_eq 0 $? "mariadb_start exit status ($(tail -3 "$TESTDIR/db/error.log" 2>/dev/null))"
check_eq "1	$TESTDIR/db/db/" "$(mariadb_sql 'SELECT @@skip_networking, @@datadir' | tail -1)" \
	"no TCP, the test's datadir"

try "wordpress_site: WordPress installed and seeded through its own PHP API"
wordpress_site "$TESTDIR/wp" >"$TESTDIR/wp.out" 2>&1
check_eq 0 $? "wordpress_site exit status ($(tail -3 "$TESTDIR/wp.out"))"
cat "$TESTDIR/wp.out"
check_eq 20 "$(grep -c $'\tpost$' "$WP_POSTS_FILE")" "posts listed"
check_eq 3 "$(grep -c $'\tpage$' "$WP_POSTS_FILE")" "pages listed"
check_eq 23 "$(mariadb_sql "SELECT COUNT(*) FROM wp_posts WHERE post_status = 'publish'" wordpress | tail -1)" \
	"published posts and pages in the database"
check_eq 12 "$(mariadb_sql "SELECT COUNT(*) FROM wp_comments WHERE comment_approved = '1'" wordpress | tail -1)" \
	"approved comments"
check_eq "/%year%/%monthnum%/%postname%/" \
	"$(mariadb_sql "SELECT option_value FROM wp_options WHERE option_name = 'permalink_structure'" wordpress | tail -1)" \
	"pretty permalinks"

try "a snapshot of the real WordPress stores the front page and every post, page and term archive"
start=$(date +%s.%N)
"$CGISNAP" snapshot --root "$WP_ROOT" --cgi php=php-cgi --front-controller /index.php \
	--site-url "$WP_URL" --max-pages 2000 -j 2 "$TESTDIR/wp-out" >"$TESTDIR/wp-snap.out" 2>"$TESTDIR/wp-snap.err"
status=$?
secs=$(elapsed "$start")
check_le "$status" 1 "snapshot exit status ($(tail -3 "$TESTDIR/wp-snap.err"))"
key=$(manifest_field "$TESTDIR/wp-out" / 2)
check_contains "$(cat "$TESTDIR/wp-out/$key" 2>/dev/null)" "<title>Test blog" "the front page"
missing=""
while IFS=$'\t' read -r path title kind; do
	# The theme links no month archive: those are for later tests.
	[ "$kind" != month ] || continue
	key=$(manifest_field "$TESTDIR/wp-out" "$path" 2)
	if [ "$(manifest_field "$TESTDIR/wp-out" "$path" 3)" != 200 ] || [ -z "$key" ] || [ "$key" = - ] ||
		! grep -qF "<title>$title &#8211; Test blog</title>" "$TESTDIR/wp-out/$key"; then
		missing="$missing $path"
	fi
done <"$WP_POSTS_FILE"
check_eq "" "$missing" "seeded URLs not stored with their title"
echo "# baseline wordpress: $(manifest_targets "$TESTDIR/wp-out" | wc -l) URLs for $(grep -cE $'\t(post|page)$' "$WP_POSTS_FILE") posts and pages in $secs s;$(
	family_counts "$TESTDIR/wp-out" '[?&]p=[0-9]' '/feed/$' '/feed/[0-9]' '/page/[0-9]' 'wp-sitemap' \
		'wp-(admin|login)|xmlrpc|replytocom|wp-json|oembed|[?&]s=')"
echo "# baseline wordpress: $(awk -F'\t' '!/^#/ && $3 == 404' <("$CGISNAP" ls "$TESTDIR/wp-out") | wc -l) URLs stored as 404"

try "mariadb_stop: the server stops, by its PID, cleanly"
pid=$MARIADB_PID
mariadb_stop
check_eq 0 $? "mariadbd exit status"
check_eq "" "$(ps -o pid= -p "$pid")" "no mariadbd left"
check_no_file "$MARIADB_SOCK" "its socket is gone"

try "nothing of the packages' files under /etc and /var/lib changed"
system_listing >"$TESTDIR/system.after"
check_eq "" "$(diff "$TESTDIR/system.before" "$TESTDIR/system.after" | head -5)" "system files"

finish
