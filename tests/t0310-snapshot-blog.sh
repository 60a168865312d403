#!/usr/bin/env bash
# t0310-snapshot-blog: snapshot the sample blog (front controller, absolute
# links, legacy redirects, a feed) through php-cgi.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"

sample_site_test blog 40

try "a snapshot of the blog completes with exit status 0"
snap_blog "$SITE" "$OUT" -j 2 2>"$TESTDIR/err"
check_eq 0 $? "exit status"
check_match "$(cat "$TESTDIR/err")" ", 0 failed," "no failures"
check_file "$OUT/index.html" "home page"
check_file "$OUT/page/2/index.html" "second page of posts"
check_file "$OUT/feed/index.html" "the feed"

try "every published post is stored under its pretty URL"
posts=$(php -r '$db = new PDO("sqlite:" . $argv[1]);
	foreach ($db->query("SELECT published_at, slug FROM posts WHERE status = '"'publish'"'") as $r)
		echo substr($r[0], 0, 4), "/", substr($r[0], 5, 2), "/", $r[1], "\n";' "$SITE/wp-content/database.sqlite")
n=0
missing=""
for p in $posts; do
	n=$((n + 1))
	[ -f "$OUT/$p/index.html" ] || missing="$missing $p"
done
check_eq 40 "$n" "published posts"
check_eq "" "$missing" "posts without a file"

try "absolute links to the site URL count as internal: tags, months, uploads are stored"
check_ne 0 "$(manifest_targets "$OUT" | grep -c '^/tag/[^/]*/$')" "tag pages"
check_ne 0 "$(manifest_targets "$OUT" | grep -c '^/20[0-9][0-9]/[0-9][0-9]/$')" "month archives"
img=$(manifest_targets "$OUT" | grep -m1 '^/wp-content/uploads/.*\.png$')
check_ne "" "$img" "an uploaded image"
[ -z "$img" ] || check_cmp "$SITE$img" "$OUT$img" "uploaded image copied"
check_ne 0 "$(manifest_targets "$OUT" | grep -c -- '-2x\.png$')" "images named only in srcset"

try "query-string assets keep their type: style.css?ver=1.0 is stored as CSS"
key=$(manifest_field "$OUT" "/wp-content/themes/plain/style.css?ver=1.0" 2)
check_eq "wp-content/themes/plain/style.css@ver=1.0.css" "$key" "key"
check_cmp "$SITE/wp-content/themes/plain/style.css" "$OUT/$key" "bytes"

try "legacy /?p=ID links are recorded as 301 redirects to the pretty URL"
redirs=$(awk -F'\t' '$1 ~ /^\/\?p=[0-9]+$/ && $3 == 301 { n++ } END { print n + 0 }' <("$CGISNAP" ls "$OUT"))
check_ne 0 "$redirs" "recorded /?p= redirects"
line=$(awk -F'\t' '$1 ~ /^\/\?p=[0-9]+$/ { print; exit }' <("$CGISNAP" ls "$OUT"))
loc=$(printf '%s' "$line" | cut -f9)
check_match "$loc" '^http://localhost:8080/20[0-9][0-9]/[0-9][0-9]/[^/]+/$' "Location"
check_eq "-" "$(printf '%s' "$line" | cut -f2)" "no file for a redirect"
check_file "$OUT${loc#http://localhost:8080}index.html" "redirect target stored"

try "the feed is stored with its type, and what it links is stored"
check_match "$(manifest_field "$OUT" /feed/ 4)" '^application/rss\+xml' "feed type"
check_eq "$(grep -c '<item>' "$OUT/feed/index.html")" 20 "feed items"

try "reply links (rel=nofollow) and the comment form are not followed"
check_eq "" "$(manifest_targets "$OUT" | grep -E 'replytocom|wp-comments-post')" "nofollow targets"

try "every followable internal link resolves to something the manifest records"
check_eq "" "$(linkcheck "$OUT" http://localhost:8080)" "unresolved links"

try "stored bodies equal a fresh direct render"
for t in / /page/2/ "${loc#http://localhost:8080}" /feed/; do
	key=$(manifest_field "$OUT" "$t" 2)
	direct_render "$SITE" /index.php "$t" >"$TESTDIR/direct"
	cmp -s "$TESTDIR/direct" "$OUT/$key" || fail "$t differs from a direct render"
done

try "the blog's 404 page is kept as the tree's 404 page"
check_contains "$(cat "$OUT/.cgisnap/404.html" 2>/dev/null)" "Nothing found" "404 body"

try "a title change in the database reaches the post and the home page on the next run"
id=$(php "$SITE/bin/edit.php" --dir "$SITE" --post 40 --title "A Brand New Title" | tail -1 | cut -d' ' -f2)
snap_blog "$SITE" "$OUT" 2>"$TESTDIR/err2"
check_eq 0 $? "exit status"
check_contains "$(cat "$OUT${id}index.html" 2>/dev/null)" "A Brand New Title" "post page"
check_contains "$(cat "$OUT/index.html")" "A Brand New Title" "home page"
check_match "$(cat "$TESTDIR/err2")" "\(0 new, [1-9][0-9]* changed" "summary"

finish
