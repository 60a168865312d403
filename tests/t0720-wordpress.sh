#!/usr/bin/env bash
# t0720-wordpress: Debian's real WordPress (tests/lib-apps.sh) snapshotted
# with the WordPress profile (profiles/wordpress.conf, detected by
# wp-includes/version.php) and nothing but --root and --cgi: the site URL
# is WordPress's own 'home' option (the profile's --site-url-command,
# profiles/wordpress-siteurl.php), the tree the same as with --site-url;
# every seeded post, page and archive stored; the ?p=N shortlinks recorded
# as 301s and replayed by cgisnap serve; no dashboard, login, XML-RPC,
# REST, search or reply URLs, even where a post links them; ?ver= assets
# stored once, as their files (nginx with the generated configuration
# answering both alike); a link check of the served tree finds
# nothing broken; 10 pages load in Chromium without a failed resource;
# and under watch, a post edited through WordPress's own PHP API (as
# wp-admin saves it) reaches the tree through the profile's must-use
# plugin (profiles/wordpress-mu-plugin.php, which runs cgisnap notify),
# with no --source (the profile names wp-content and wp-config.php) and
# traced, so that an edit of the theme re-renders the pages.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"
. "$(dirname "$0")/lib-serve.sh"
. "$(dirname "$0")/lib-watch.sh"
. "$(dirname "$0")/lib-config.sh"
. "$(dirname "$0")/lib-apps.sh"

apps_need wordpress
PS=$(port 0)
SITE_URL=http://127.0.0.1:$PS/
OUT=$TESTDIR/out
# What the profile keeps out of the tree: the asserted families.
JUNK='^/wp-(admin|login\.php|comments-post\.php|json)|^/xmlrpc\.php|[?&](replytocom|s|rest_route)=|/embed/$'

# wp_php CODE: run CODE in php-cli with the test's WordPress loaded (as a
# request for the site URL would load it).
wp_php() {
	php -d display_errors=stderr -r '
		$_SERVER["HTTP_HOST"] = $argv[2]; $_SERVER["SERVER_NAME"] = "127.0.0.1";
		$_SERVER["REQUEST_URI"] = "/"; $_SERVER["SERVER_PROTOCOL"] = "HTTP/1.1";
		require $argv[1] . "/wp-load.php";
		wp_set_current_user(1);
		eval($argv[3]);' "$WP_ROOT" "127.0.0.1:$PS" "$1"
}

try "a seeded WordPress of the test's own, for the address it is served on"
mariadb_start "$TESTDIR/db"
check_eq 0 $? "mariadb_start ($(tail -3 "$TESTDIR/db/error.log" 2>/dev/null))"
wordpress_site "$TESTDIR/wp" "$SITE_URL" >"$TESTDIR/wp.out" 2>&1
check_eq 0 $? "wordpress_site ($(tail -3 "$TESTDIR/wp.out"))"
cat "$TESTDIR/wp.out"
# A post linking what a static copy must not hold, without nofollow: the
# profile, not the theme's rel attributes, keeps them out.
wp_php '$id = wp_insert_post(array("post_title" => "Harness links", "post_status" => "publish",
	"post_date" => "2024-05-28 10:00:00", "post_date_gmt" => "2024-05-28 10:00:00",
	"post_content" => "<p>Seeded post links: <a href=\"/wp-admin/\">admin</a> <a href=\"/wp-login.php\">login</a>
	<a href=\"/xmlrpc.php\">rpc</a> <a href=\"/wp-json/\">api</a> <a href=\"/?s=harness\">search</a>
	<a href=\"/?replytocom=1#respond\">reply</a> <a href=\"/wp-json/oembed/1.0/embed?url=x\">oembed</a>
	<a href=\"/wp-comments-post.php\">comment</a></p>"), true);
	if (is_wp_error($id)) exit(1);
	echo wp_make_link_relative(get_permalink($id)), "\n";' >"$TESTDIR/links-post" 2>"$TESTDIR/links-post.err"
check_eq 0 $? "the post of links ($(cat "$TESTDIR/links-post.err"))"
check_eq /2024/05/harness-links/ "$(cat "$TESTDIR/links-post")" "its permalink"
# Comments show Gravatar images, from the internet: none here.
wp_php 'update_option("show_avatars", 0);'
check_eq 0 $? "avatars off"

try "a snapshot with the profile stores every seeded post, page, category, tag, author and month archive"
"$CGISNAP" snapshot --root "$WP_ROOT" --cgi php=php-cgi -j 2 \
	"$OUT" >"$TESTDIR/snap.out" 2>"$TESTDIR/snap.err"
check_eq 0 $? "snapshot exit status ($(tail -3 "$TESTDIR/snap.err"))"
check_eq "cgisnap: using profile wordpress (found wp-includes/version.php); --profile none to turn it off" \
	"$(head -1 "$TESTDIR/snap.err")" "the profile is detected"
check_eq "cgisnap: site URL $SITE_URL (from the profile's --site-url-command); --site-url URL to give another" \
	"$(sed -n 2p "$TESTDIR/snap.err")" "the site URL is WordPress's home"
check_contains "$(cat "$OUT/.cgisnap/settings")" "site-url = $SITE_URL" "the tree records it"
missing=""
while IFS=$'\t' read -r path title kind; do
	key=$(manifest_field "$OUT" "$path" 2)
	if [ "$(manifest_field "$OUT" "$path" 3)" != 200 ] || [ -z "$key" ] || [ "$key" = - ] ||
		! grep -qF "<title>$title &#8211; Test blog</title>" "$OUT/$key"; then
		missing="$missing $path"
	fi
done <"$WP_POSTS_FILE"
check_eq "" "$missing" "seeded URLs not stored with their title"
# The theme links no month archive, nor do the sitemaps: the profile's
# --seed-command (profiles/wordpress-archives.php) seeds them.
check_eq 5 "$(awk -F'\t' '$3 == "month"' "$WP_POSTS_FILE" | wc -l)" "month archives seeded (January to May)"
check_eq 200 "$(manifest_field "$OUT" /2024/ 3)" "the year archive"
for t in / /page/2/ /feed/ /comments/feed/ /2024/01/harness-post-01/feed/ /category/news/feed/ \
	/wp-sitemap.xml /wp-sitemap-posts-post-1.xml; do
	check_eq 200 "$(manifest_field "$OUT" "$t" 3)" "$t"
done
echo "# wordpress with the profile: $(manifest_targets "$OUT" | wc -l) URLs"

try "the same tree as with --site-url given (then the profile's command does not run)"
"$CGISNAP" snapshot --root "$WP_ROOT" --cgi php=php-cgi --site-url "$SITE_URL" -j 2 \
	"$OUT" >"$TESTDIR/snap2.out" 2>"$TESTDIR/snap2.err"
check_eq 0 $? "snapshot exit status ($(tail -3 "$TESTDIR/snap2.err"))"
check_not_contains "$(cat "$TESTDIR/snap2.err")" "site-url-command" "the command did not run"
check_match "$(cat "$TESTDIR/snap2.err")" ' \(0 new, 0 changed, [1-9][0-9]* unchanged\), 0 removed' \
	"nothing written or removed"

try "no dashboard, login, XML-RPC, REST, oEmbed, search or reply URL was crawled"
check_eq "" "$(manifest_targets "$OUT" | grep -E -- "$JUNK|wlwmanifest")" "such URLs in the manifest"

try "?ver= assets: one file each, named as the site names it, and the linked URL answers with it"
ver=$(manifest_targets "$OUT" | grep -E '^/wp-includes/.*\.css\?ver=' | head -1)
check_ne "" "$ver" "a stylesheet linked with ?ver="
check_eq "$(echo "${ver%%\?*}" | sed 's|^/||')" "$(manifest_field "$OUT" "$ver" 2)" "its file"
check_eq "" "$(find "$OUT" -name '*@ver=*')" "files named with the query"

serve_start "$OUT" "$PS"
try "cgisnap serve replays the ?p=N shortlinks as 301s, and answers the ?ver= URLs with the file"
n=0
# The shortlinks as the manifest recorded them, each checked against WordPress.
while IFS=$'\t' read -r target location; do
	code=$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' "http://127.0.0.1:$PS$target")
	check_eq "301 $location" "$code" "$target from serve"
	n=$((n + 1))
done < <(awk -F'\t' '!/^#/ && $1 ~ /^\/\?p=[0-9]+$/ { print $1 "\t" $9 }' <("$CGISNAP" ls "$OUT"))
check_le 21 "$n" "shortlinks recorded (20 posts, the post of links)"
check_eq "$SITE_URL"2024/01/harness-post-01/ \
	"$(curl -s -o /dev/null -w '%{redirect_url}' "http://127.0.0.1:$PS/?p=$(wp_php \
		'echo get_page_by_path("harness-post-01", OBJECT, "post")->ID;')")" \
	"post 01's shortlink, as WordPress numbers it"
curl -s -o "$TESTDIR/ver.css" "http://127.0.0.1:$PS$ver"
check_cmp "$WP_ROOT${ver%%\?*}" "$TESTDIR/ver.css" "$ver from serve"

try "cgisnap serve answers every month archive with its page"
bad=""
while IFS=$'\t' read -r path title kind; do
	[ "$kind" = month ] || continue
	curl -s "http://127.0.0.1:$PS$path" | grep -qF "<title>$title &#8211; Test blog</title>" || bad="$bad $path"
done <"$WP_POSTS_FILE"
check_eq "" "$bad" "month archives not served with their title"

try "a link check of the served tree finds no broken link"
check_links wordpress '[1-9][0-9]*' 0 --site "$SITE_URL" --skip "$JUNK" "http://127.0.0.1:$PS" "$OUT"

try "10 pages load in Chromium with no failed resource"
if command -v chromium >/dev/null 2>&1; then
	{
		echo /
		awk -F'\t' '!/^#/ && $3 == 200 && $4 ~ /^text\/html/ && $1 != "/" { print $1 }' <("$CGISNAP" ls "$OUT") |
			LC_ALL=C sort | awk '{ a[NR] = $0 } END { for (k = 0; k < 9; k++) print a[int(k * NR / 9) + 1] }'
	} | sed "s|^|http://127.0.0.1:$PS|" >"$TESTDIR/pages"
	python3 "$ROOT/tests/lib-browser.py" $(cat "$TESTDIR/pages") >"$TESTDIR/browser" 2>&1
	check_eq 10 "$(grep -c '^ok ' "$TESTDIR/browser")" "pages without a problem"
	while IFS= read -r line; do
		fail "${line#FAIL }"
	done < <(grep -v '^ok ' "$TESTDIR/browser")
else
	echo "# SKIP chromium is not installed (make deps installs it)"
fi
bg_stop "$SERVE_PID"

try "nginx with 'cgisnap config nginx' replays the shortlinks and answers the ?ver= URLs alike"
if command -v nginx >/dev/null 2>&1; then
	"$CGISNAP" config nginx --listen "127.0.0.1:$PS" "$OUT" >"$TESTDIR/nginx.conf" 2>"$TESTDIR/config.err"
	check_eq 0 $? "config exit status ($(cat "$TESTDIR/config.err"))"
	if nginx_start nginx "$PS" -- "$TESTDIR/nginx.conf"; then
		while IFS=$'\t' read -r target location; do
			check_eq "301 $location" "$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' \
				"http://127.0.0.1:$PS$target")" "$target from nginx"
		done < <(awk -F'\t' '!/^#/ && $1 ~ /^\/\?p=[0-9]+$/ { print $1 "\t" $9 }' <("$CGISNAP" ls "$OUT"))
		curl -s -o "$TESTDIR/ver-nginx.css" "http://127.0.0.1:$PS$ver"
		check_cmp "$WP_ROOT${ver%%\?*}" "$TESTDIR/ver-nginx.css" "$ver from nginx"
		bg_stop "$NGINX_PID"
	fi
else
	echo "# SKIP nginx is not installed (make deps installs it)"
fi

try "under watch with no --source, a post saved through WordPress's PHP API reaches the tree (the must-use plugin)"
mkdir -p "$WP_ROOT/wp-content/mu-plugins"
cp "$ROOT/profiles/wordpress-mu-plugin.php" "$WP_ROOT/wp-content/mu-plugins/cgisnap-notify.php"
sed -i "s|^if (!defined('ABSPATH'))|define('CGISNAP_TREE', '$OUT');\ndefine('CGISNAP_BIN', '$CGISNAP');\n&|" \
	"$WP_ROOT/wp-config.php"
# No --source: the profile's --source-command names wp-content and
# wp-config.php; the database changes come by notify. Traced: the tree
# has no recorded dependencies yet, so watch first re-crawls the site to
# record them (issue 14 will have snapshot record them).
# No --site-url: the profile's command gives it, as to snapshot.
started=$(date +%s)
watch_start "$TESTDIR/watch.log" --root "$WP_ROOT" --cgi php=php-cgi -j 2 "$OUT"
check_eq 0 $? "watch came up ($(tail -3 "$TESTDIR/watch.log"))"
echo "# traced watch up after $(($(date +%s) - started)) s: $(grep '^cgisnap: watching ' "$TESTDIR/watch.log")"
check_match "$(grep '^cgisnap: watching ' "$TESTDIR/watch.log")" ' of 2 sources \(dependencies traced\)' \
	"wp-content and wp-config.php watched, traced"
wp_php '$p = get_page_by_path("harness-post-20", OBJECT, "post");
	$r = wp_update_post(array("ID" => $p->ID, "post_title" => "Harness post 20 edited",
		"post_content" => "<!-- wp:paragraph -->\n<p>Edited in wp-admin, now in the tree.</p>\n<!-- /wp:paragraph -->"), true);
	if (is_wp_error($r)) exit(1);' 2>"$TESTDIR/edit.err"
check_eq 0 $? "wp_update_post ($(cat "$TESTDIR/edit.err"))"
# Post 20, the newest of the seeded ones: on the front page, in the feed
# (the profile's --always pages) and first in its category's archive.
wait_file_has "$OUT/2024/05/harness-post-20/index.html" "Edited in wp-admin, now in the tree."
check_eq 0 $? "the post's page ($(tail -3 "$TESTDIR/watch.log"))"
for key in index.html feed/index.html category/releases/index.html 2024/05/harness-post-20/feed/index.html; do
	wait_file_has "$OUT/$key" "Harness post 20 edited"
	check_eq 0 $? "$key shows the new title"
done

try "under the same watch, an edit of the theme (a file of wp-content) re-renders the pages that read it"
# The footer template part every page includes: what the traced renders
# recorded of the theme, the profile's sources being where inotify sees it.
# The post's batches end first: their lines are not the edit's.
watch_idle "$OUT"
n=$(batches "$TESTDIR/watch.log")
printf '\n<!-- wp:paragraph -->\n<p>Footer edited under watch.</p>\n<!-- /wp:paragraph -->\n' \
	>>"$WP_ROOT/wp-content/themes/twentytwentythree/parts/footer.html"
for key in index.html 2024/01/harness-post-01/index.html category/news/index.html; do
	wait_file_has "$OUT/$key" "Footer edited under watch."
	check_eq 0 $? "$key shows the new footer ($(tail -2 "$TESTDIR/watch.log"))"
done
# Every page of the theme shows it (feeds and files do not).
_wp_footerless() {
	awk -F'\t' '!/^#/ && $3 == 200 && $4 ~ /^text\/html/ { print $2 }' <("$CGISNAP" ls "$OUT") |
		while IFS= read -r k; do grep -qF "Footer edited under watch." "$OUT/$k" || echo "$k"; done
}
# The edit's batches (a page held as WordPress wrote beside it is
# rendered again a second later) have ended: every page they re-rendered
# is published.
watch_idle "$OUT"
check_eq 0 $? "the edit's batches ended ($(tail -2 "$TESTDIR/watch.log"))"
check_eq "" "$(_wp_footerless | head -5)" "pages without the new footer"
grep '^cgisnap: batch: ' "$TESTDIR/watch.log" | tail -n +$((n + 1)) | sed 's/.*): /# theme edit: /'
watch_stop
check_eq 0 "$WATCH_STATUS" "watch exit status"

mariadb_stop
try "without its database, the profile's site URL command fails: exit 2, saying why, nothing made"
"$CGISNAP" snapshot --root "$WP_ROOT" --cgi php=php-cgi "$TESTDIR/out-nodb" >/dev/null 2>"$TESTDIR/nodb.err"
check_eq 2 $? "snapshot exit status ($(cat "$TESTDIR/nodb.err"))"
check_match "$(sed -n 2p "$TESTDIR/nodb.err")" "^wordpress-siteurl.php: WordPress did not load: .*database" \
	"the helper says what WordPress said, on one line"
check_match "$(tail -1 "$TESTDIR/nodb.err")" \
	"^cgisnap snapshot: --site-url-command 'php -f \"[^\"]*/wordpress-siteurl.php\"' exited 1 \(it printed ''\)" \
	"cgisnap names the command"
check_no_file "$TESTDIR/out-nodb" "nothing made"
finish
