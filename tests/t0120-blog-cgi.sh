#!/usr/bin/env bash
# t0120-blog-cgi: the sample blog (sample-sites/blog) run directly through
# php-cgi - seeding, URL scheme, redirects, headers, feed, site URL.
. "$(dirname "$0")/lib.sh"

SITE=http://localhost:8080
BLOG=$TESTDIR/blog
SESSIONS=$TESTDIR/sessions

# sql QUERY [DIR]: rows of a query on a blog's database, columns joined by |.
sql() {
	php -r '$d = new PDO("sqlite:" . $argv[1]);
		foreach ($d->query($argv[2])->fetchAll(PDO::FETCH_NUM) as $r) echo implode("|", $r), "\n";' \
		"${2:-$BLOG}/wp-content/database.sqlite" "$1"
}

# dump DIR: every table of a blog's database, rows in rowid order.
dump() {
	php -r '$d = new PDO("sqlite:" . $argv[1]);
		foreach ($d->query("SELECT name, sql FROM sqlite_master ORDER BY name")->fetchAll(PDO::FETCH_NUM) as [$name, $ddl]) {
			echo $ddl, "\n";
			if (str_starts_with((string) $ddl, "CREATE TABLE"))
				foreach ($d->query("SELECT * FROM \"$name\" ORDER BY rowid")->fetchAll(PDO::FETCH_NUM) as $r)
					echo json_encode($r), "\n";
		}' "$1/wp-content/database.sqlite"
}

# req URI [METHOD] [VAR=VALUE...]: one request through the front controller.
# Sets STATUS (200 when php-cgi prints no Status line), HEAD (CR-stripped
# header block), BODY and ERR (stderr). A POST body is read from $POST_DATA.
req() {
	local uri=$1 method=${2:-GET} envs
	shift 2 2>/dev/null || shift $#
	mapfile -t envs < <(cgi_env "$BLOG" /index.php "$uri")
	envs=("${envs[@]/#REQUEST_METHOD=GET/REQUEST_METHOD=$method}" "BLOG_SESSION_DIR=$SESSIONS")
	if [ "$method" = POST ]; then
		envs+=("CONTENT_LENGTH=${#POST_DATA}" CONTENT_TYPE=application/x-www-form-urlencoded)
	fi
	printf '%s' "${POST_DATA:-}" |
		env -i "${envs[@]}" "$@" php-cgi -d error_reporting=-1 >"$TESTDIR/resp" 2>"$TESTDIR/resp.err"
	HEAD=$(sed -n '1,/^\r\{0,1\}$/p' "$TESTDIR/resp" | tr -d '\r')
	BODY=$(sed '1,/^\r\{0,1\}$/d' "$TESTDIR/resp")
	ERR=$(cat "$TESTDIR/resp.err")
	STATUS=$(printf '%s\n' "$HEAD" | sed -n 's/^Status: \([0-9][0-9]*\).*/\1/p')
	STATUS=${STATUS:-200}
}

# header NAME: value of a header of the last response (first one).
header() {
	printf '%s\n' "$HEAD" | grep -i "^$1:" | head -1 | sed 's/^[^:]*: //'
}

# count TEXT ERE: number of matches of ERE in TEXT.
count() {
	printf '%s' "$1" | grep -Eo -- "$2" | wc -l | tr -d ' '
}

# post_path ID [DIR]: /YYYY/MM/slug/ of a post.
post_path() {
	sql "SELECT '/' || substr(published_at, 1, 4) || '/' || substr(published_at, 6, 2) || '/' || slug || '/'
		FROM posts WHERE id = $1" "${2:-$BLOG}"
}

# ---------------------------------------------------------------------------
try "seed --posts 60 builds the database, wp-config.php and PNG uploads"
seed_blog "$BLOG" 60
check_eq 0 $? "seed exit status"
check_file "$BLOG/wp-content/database.sqlite" "database"
check_eq 60 "$(sql 'SELECT COUNT(*) FROM posts')" "posts"
check_eq 60 "$(sql 'SELECT COUNT(DISTINCT slug) FROM posts')" "unique slugs"
check_eq 30 "$(sql 'SELECT COUNT(*) FROM tags')" "tags"
check_eq 0 "$(sql 'SELECT COUNT(*) FROM (SELECT post_id, COUNT(*) n FROM comments GROUP BY post_id) WHERE n > 8')" \
	"posts with more than 8 comments"
check_lt 60 "$(sql 'SELECT COUNT(*) FROM comments')" "comments (60 posts, 0-8 each)"
check_eq "1|1" "$(sql "SELECT MIN(published_at) >= '2019-01-01', MAX(published_at) < '2026-01-01' FROM posts")" \
	"dates within 2019-01 .. 2025-12"
check_contains "$(cat "$BLOG/wp-config.php" 2>/dev/null)" "'$SITE'" "wp-config.php site URL"
pngs=$(cd "$BLOG/wp-content/uploads" 2>/dev/null && find . -name '*.png' ! -name '*-2x.png' | sort)
check_ne "" "$pngs" "uploaded images"
for f in $pngs; do
	one=$BLOG/wp-content/uploads/$f two=${one%.png}-2x.png
	check_file "$two" "2x variant of $f"
	# Signature, IHDR dimensions (2x is twice the size), IEND at the end.
	dims=$(php -r 'foreach (array_slice($argv, 1) as $f) { $d = file_get_contents($f);
		if (substr($d, 0, 8) !== "\x89PNG\r\n\x1a\n" || substr($d, 12, 4) !== "IHDR" || substr($d, -8, 4) !== "IEND") { echo "bad $f"; exit; }
		echo implode("x", unpack("N2", $d, 16)), " "; }' "$one" "$two")
	if [[ $dims =~ ^([0-9]+)x([0-9]+)\ ([0-9]+)x([0-9]+)\ $ ]]; then
		check_eq "$((BASH_REMATCH[1] * 2))x$((BASH_REMATCH[2] * 2))" "${BASH_REMATCH[3]}x${BASH_REMATCH[4]}" \
			"2x dimensions of $f"
	else
		fail "PNG structure of $f: $dims"
	fi
done

try "the same arguments give identical content, other arguments do not"
seed_blog "$TESTDIR/again" 60
seed_blog "$TESTDIR/other" 61
check_eq "$(dump "$BLOG" | md5sum)" "$(dump "$TESTDIR/again" | md5sum)" "database dump of two seeds"
check_ne "$(dump "$BLOG" | md5sum)" "$(dump "$TESTDIR/other" | md5sum)" "database dump with --posts 61"
check_eq "$(cd "$BLOG/wp-content/uploads" && find . -type f | sort | xargs md5sum)" \
	"$(cd "$TESTDIR/again/wp-content/uploads" && find . -type f | sort | xargs md5sum)" "uploads of two seeds"
check_ne 0 "$(dump "$BLOG" | wc -l)" "dump is not empty"

try "the default seed makes 500 posts in a few seconds"
start=$(date +%s%N)
seed_blog "$TESTDIR/big"
check_eq 0 $? "seed exit status"
check_lt $((($(date +%s%N) - start) / 1000000)) 10000 "milliseconds to seed 500 posts"
check_eq 500 "$(sql 'SELECT COUNT(*) FROM posts' "$TESTDIR/big")" "posts"
check_eq 500 "$(sql 'SELECT COUNT(DISTINCT slug) FROM posts' "$TESTDIR/big")" "unique slugs"
check_lt 1000 "$(sql 'SELECT COUNT(*) FROM comments' "$TESTDIR/big")" "comments"
check_lt 20 "$(sql "SELECT COUNT(*) FROM posts WHERE body LIKE '%](/?p=%'" "$TESTDIR/big")" "posts with legacy ?p= links"

try "home page: 10 posts, pagination, session cookie, no-cache"
req /
check_eq 200 "$STATUS" "status"
check_eq "" "$ERR" "stderr"
check_match "$(header Content-Type)" '^text/html; charset=UTF-8$' "Content-Type"
check_match "$(header Set-Cookie)" '^PHPSESSID=[a-z0-9,-]+; path=/' "Set-Cookie"
check_eq "no-cache" "$(header Cache-Control)" "Cache-Control"
check_eq 10 "$(count "$BODY" '<article id="post-[0-9]+"')" "posts listed"
newest=$(sql "SELECT id FROM posts ORDER BY published_at DESC, id DESC LIMIT 1")
check_contains "$BODY" "<article id=\"post-$newest\"" "newest post listed"
check_contains "$BODY" "href=\"$SITE/page/2/\"" "link to page 2"
check_contains "$BODY" "<link rel=\"next\" href=\"$SITE/page/2/\">" "rel=next"
check_not_contains "$BODY" 'rel="prev"' "no rel=prev on page 1"
check_contains "$BODY" "<link rel=\"alternate\" type=\"application/rss+xml\" title=\"Plain Notes &raquo; Feed\" href=\"$SITE/feed/\">" "feed link"
check_contains "$BODY" "href=\"$SITE/wp-content/themes/plain/style.css?ver=1.0\"" "stylesheet"
check_contains "$BODY" "src=\"$SITE/wp-content/themes/plain/script.js?ver=1.0\"" "script"
check_eq 5 "$(printf '%s' "$BODY" | sed -n '/widget_recent_entries/,/<\/section>/p' | grep -c '<li>')" "recent posts in the sidebar"
check_contains "$BODY" "href=\"$SITE/tag/php/\"" "tag cloud"
check_match "$BODY" "href=\"$SITE/20[0-9]{2}/[01][0-9]/\">[A-Z][a-z]+ 20[0-9]{2}</a>&nbsp;\\([0-9]+\\)" "month archive links"

try "page 2 and the last page; beyond the last page is 404"
req /page/2/
check_eq 200 "$STATUS" "page 2 status"
check_contains "$BODY" "<link rel=\"prev\" href=\"$SITE/\">" "page 2 rel=prev"
check_contains "$BODY" "<link rel=\"next\" href=\"$SITE/page/3/\">" "page 2 rel=next"
req /page/6/
check_eq 200 "$STATUS" "page 6 of 60 posts"
check_eq 10 "$(count "$BODY" '<article id="post-[0-9]+"')" "posts on page 6"
check_not_contains "$BODY" 'rel="next"' "no rel=next on the last page"
req /page/7/
check_eq 404 "$STATUS" "page 7 of 60 posts"
check_contains "$BODY" "Nothing found" "404 body"
req /page/1/
check_eq 301 "$STATUS" "/page/1/ status"
check_eq "$SITE/" "$(header Location)" "/page/1/ redirect"

# A post with tags, at least two comments and a neighbour on each side.
pid=$(sql "SELECT p.id FROM posts p WHERE (SELECT COUNT(*) FROM comments c WHERE c.post_id = p.id) >= 2
	AND EXISTS (SELECT 1 FROM post_tags WHERE post_id = p.id) AND p.id > 1 AND p.id < 60 ORDER BY p.id LIMIT 1")
ppath=$(post_path "$pid")

try "a post page shows its title, tags, comments and navigation"
req "$ppath"
check_eq 200 "$STATUS" "status of $ppath"
check_eq "" "$ERR" "stderr"
title=$(sql "SELECT title FROM posts WHERE id = $pid")
check_contains "$BODY" "<h1 class=\"entry-title\">$title</h1>" "title"
check_contains "$BODY" "<title>$title &#8211; Plain Notes</title>" "document title"
for tag in $(sql "SELECT t.slug FROM tags t JOIN post_tags pt ON pt.tag_id = t.id WHERE pt.post_id = $pid"); do
	check_contains "$BODY" "href=\"$SITE/tag/$tag/\" rel=\"tag\"" "tag link $tag"
done
ncomments=$(sql "SELECT COUNT(*) FROM comments WHERE post_id = $pid AND approved = 1")
check_contains "$BODY" "class=\"comments-title\" data-count=\"$ncomments\">$ncomments Comments" "comment count"
check_eq "$ncomments" "$(count "$BODY" '<li id="comment-[0-9]+"')" "comments listed"
check_eq "$ncomments" "$(count "$BODY" '<a rel="nofollow" class="comment-reply-link" href="[^"]*\?replytocom=[0-9]+#respond"')" \
	"nofollow reply links"
check_contains "$BODY" "<form action=\"$SITE/wp-comments-post.php\" method=\"post\"" "comment form"
check_contains "$BODY" "href=\"$SITE$(post_path $((pid - 1)))\" rel=\"prev\"" "previous post link"
check_contains "$BODY" "href=\"$SITE$(post_path $((pid + 1)))\" rel=\"next\"" "next post link"
check_contains "$BODY" "<link rel=\"shortlink\" href=\"$SITE/?p=$pid\">" "shortlink"
check_match "$(header Set-Cookie)" '^PHPSESSID=' "Set-Cookie"

try "legacy /?p=ID answers 301 to the absolute pretty URL"
req "/?p=$pid"
check_eq 301 "$STATUS" "status"
check_eq "$SITE$ppath" "$(header Location)" "Location"
check_match "$(header Set-Cookie)" '^PHPSESSID=' "Set-Cookie on the redirect"
check_eq "no-cache" "$(header Cache-Control)" "Cache-Control on the redirect"
req "/?p=99999"
check_eq 404 "$STATUS" "unknown id"
legacy=$(sql "SELECT id FROM posts WHERE body LIKE '%](/?p=%' LIMIT 1")
req "$(post_path "$legacy")"
check_match "$BODY" "<a href=\"$SITE/\\?p=[0-9]+\">" "old-style absolute ?p= link in a body"

try "a missing trailing slash answers 301 to the slash form"
for p in /tag/php /feed "${ppath%/}" "$(sql "SELECT '/' || substr(published_at, 1, 4) || '/' || substr(published_at, 6, 2) FROM posts LIMIT 1")"; do
	req "$p?x=1"
	check_eq 301 "$STATUS" "status of $p"
	check_eq "$SITE$p/?x=1" "$(header Location)" "Location of $p"
done
req /no-such-thing
check_eq 404 "$STATUS" "no redirect when the slash form is no page either"

try "unknown URLs answer 404 with the normal layout"
for p in /no/such/page/ /tag/no-such-tag/ /2031/01/ /2019/01/no-such-post/ /wp-content/database.sqlite; do
	req "$p"
	check_eq 404 "$STATUS" "status of $p"
	check_contains "$BODY" '<h1 class="page-title">Nothing found</h1>' "body of $p"
	check_contains "$BODY" "<p class=\"site-title\"><a href=\"$SITE/\" rel=\"home\">Plain Notes</a></p>" "layout of $p"
	check_contains "$BODY" 'class="widget widget_tag_cloud"' "sidebar of $p"
	check_match "$(header Set-Cookie)" '^PHPSESSID=' "Set-Cookie of $p"
done

try "tag and month archives list their posts"
tag=$(sql "SELECT t.slug FROM tags t JOIN post_tags pt ON pt.tag_id = t.id GROUP BY t.id ORDER BY COUNT(*) DESC, t.slug LIMIT 1")
ntag=$(sql "SELECT COUNT(*) FROM post_tags pt JOIN tags t ON t.id = pt.tag_id WHERE t.slug = '$tag'")
req "/tag/$tag/"
check_eq 200 "$STATUS" "tag status"
check_eq $((ntag < 10 ? ntag : 10)) "$(count "$BODY" '<article id="post-[0-9]+"')" "posts on /tag/$tag/"
check_contains "$BODY" "<span class=\"tag-link-count\"> ($ntag)</span>" "count in the tag cloud"
req "/tag/$tag/page/2/"
check_eq "$([ "$ntag" -gt 10 ] && echo 200 || echo 404)" "$STATUS" "/tag/$tag/page/2/ ($ntag posts)"
month=$(sql "SELECT substr(published_at, 1, 7) FROM posts GROUP BY 1 ORDER BY COUNT(*) DESC, 1 LIMIT 1")
nmonth=$(sql "SELECT COUNT(*) FROM posts WHERE substr(published_at, 1, 7) = '$month'")
req "/${month/-//}/"
check_eq 200 "$STATUS" "month status"
check_eq $((nmonth < 10 ? nmonth : 10)) "$(count "$BODY" '<article id="post-[0-9]+"')" "posts on /${month/-//}/"

try "the feed is well-formed RSS 2.0 with 20 absolute items"
req /feed/
check_eq 200 "$STATUS" "status"
check_eq "application/rss+xml; charset=UTF-8" "$(header Content-Type)" "Content-Type"
check_match "$(header Set-Cookie)" '^PHPSESSID=' "Set-Cookie"
check_eq 20 "$(count "$BODY" '<item>')" "items"
check_eq 21 "$(count "$BODY" "<link>$SITE/[^<]*</link>")" "absolute <link>s (channel + items)"
check_eq 0 "$(count "$BODY" '<link>[^h]')" "relative <link>s"
check_contains "$BODY" "<link>$SITE/$(sql "SELECT substr(published_at, 1, 4) || '/' || substr(published_at, 6, 2) || '/' || slug FROM posts
	ORDER BY published_at DESC, id DESC LIMIT 1")/</link>" "newest post in the feed"
check_match "$BODY" '^<\?xml version="1.0" encoding="UTF-8"\?>' "XML declaration"
printf '%s\n' "$BODY" >"$TESTDIR/feed.xml"
if command -v xmllint >/dev/null; then
	xmllint --noout "$TESTDIR/feed.xml" 2>"$TESTDIR/xml.err"
	check_eq 0 $? "xmllint: $(head -3 "$TESTDIR/xml.err")"
elif php -m | grep -qx SimpleXML; then
	check_eq 20 "$(php -r 'echo count(simplexml_load_file($argv[1])->channel->item);' "$TESTDIR/feed.xml")" "SimpleXML items"
elif command -v python3 >/dev/null; then
	check_eq 20 "$(python3 -c 'import sys, xml.dom.minidom as m; print(len(m.parse(sys.argv[1]).getElementsByTagName("item")))' \
		"$TESTDIR/feed.xml")" "minidom items"
else
	check_contains "$BODY" '</channel>' "document end"
fi

try "BLOG_SITE_URL overrides the configured site URL"
other=https://blog.example:8443
req / GET "BLOG_SITE_URL=$other"
check_not_contains "$BODY" "localhost:8080" "configured URL gone"
check_contains "$BODY" "href=\"$other/page/2/\"" "pagination link"
check_contains "$BODY" "href=\"$other$(post_path "$newest")\"" "post link"
check_contains "$BODY" "href=\"$other/wp-content/themes/plain/style.css?ver=1.0\"" "stylesheet"
check_eq 0 "$(count "$BODY" '(href|src)="/')" "root-relative links"
req "$(post_path "$legacy")" GET "BLOG_SITE_URL=$other"
check_not_contains "$BODY" "localhost:8080" "configured URL gone from a post with internal links"
check_eq 0 "$(count "$BODY" '(href|src|srcset)="/')" "root-relative links in a post"
check_contains "$BODY" "<a href=\"$other/?p=" "legacy link with the overriding URL"
req "/?p=$pid" GET "BLOG_SITE_URL=$other"
check_eq "$other$ppath" "$(header Location)" "Location of /?p=$pid"
req /feed/ GET "BLOG_SITE_URL=$other"
check_eq 21 "$(count "$BODY" "<link>$other/[^<]*</link>")" "feed links"
req / GET "BLOG_SITE_URL="
check_contains "$BODY" "href=\"$SITE/page/2/\"" "empty BLOG_SITE_URL falls back to wp-config.php"

try "images in posts exist as files with 2x srcset variants"
ipid=$(sql "SELECT id FROM posts WHERE body LIKE '%[image %' LIMIT 1")
req "$(post_path "$ipid")"
img=$(printf '%s' "$BODY" | grep -Eo "<img src=\"$SITE/wp-content/uploads/[^\"]+\" srcset=\"[^\"]+\"" | head -1)
check_match "$img" "srcset=\"$SITE/wp-content/uploads/[0-9/]+[a-z0-9-]+\\.png 1x, $SITE/wp-content/uploads/[0-9/]+[a-z0-9-]+-2x\\.png 2x\"" "img srcset"
for url in $(printf '%s' "$img" | grep -Eo "$SITE/wp-content/uploads/[^\" ]+\\.png" | sort -u); do
	check_file "$BLOG/${url#$SITE/}" "file behind $url"
done
css=$(tr '\n' ' ' <"$BLOG/wp-content/themes/plain/style.css")
check_match "$css" 'body \{[^}]*background-color: #fafafa' "body background in style.css"
check_match "$css" '\.site-title \{[^}]*color: rgb\(34, 85, 136\)' ".site-title colour in style.css"
check_file "$BLOG/wp-content/themes/plain/script.js" "script.js"

try "renders are repeatable, write nothing under the site; sessions go to BLOG_SESSION_DIR"
rm -rf "$SESSIONS"
touch "$TESTDIR/marker"
for p in / /page/2/ "$ppath" /feed/ "/?p=$pid" /nope/ "/tag/$tag/"; do
	req "$p"
done
check_eq "" "$(find "$BLOG" -newer "$TESTDIR/marker")" "files changed under the site"
check_eq 7 "$(find "$SESSIONS" -name 'sess_*' | wc -l | tr -d ' ')" "session files, one per cookie-less request"
first=$BODY
req "/tag/$tag/"
check_eq "$first" "$BODY" "two renders of /tag/$tag/"

try "bin/edit.php changes show up on the next render"
out=$(php "$BLOG/bin/edit.php" --dir "$BLOG" --post "$newest" --title "Edited Title For Watchers" --add-comment "Fresh remark")
check_eq 0 $? "edit exit status"
check_eq "$newest $(post_path "$newest")" "$out" "edit output"
req "$(post_path "$newest")"
check_contains "$BODY" '<h1 class="entry-title">Edited Title For Watchers</h1>' "new title on the post"
check_contains "$BODY" "Fresh remark" "new comment on the post"
n=$(sql "SELECT COUNT(*) FROM comments WHERE post_id = $newest")
check_contains "$BODY" "data-count=\"$n\"" "comment count"
req /
check_contains "$BODY" '>Edited Title For Watchers</a></h2>' "new title on the home page"
check_contains "$BODY" '<li><a href="'"$SITE$(post_path "$newest")"'">Edited Title For Watchers</a></li>' "new title in the sidebar"
php "$BLOG/bin/edit.php" --dir "$BLOG" --post "$newest" --status draft >/dev/null
req "$(post_path "$newest")"
check_eq 404 "$STATUS" "a draft is gone"
php "$BLOG/bin/edit.php" --dir "$BLOG" --post 99999 --title x 2>/dev/null
check_eq 2 $? "edit of an unknown post"

try "a comment POST is stored and redirects back to the post"
POST_DATA="comment_post_ID=$pid&comment_parent=0&author=Poster&email=&url=&comment=Posted+through+the+form"
req /wp-comments-post.php POST
POST_DATA=
check_eq 302 "$STATUS" "status"
cid=$(sql "SELECT MAX(id) FROM comments")
check_eq "$SITE$ppath#comment-$cid" "$(header Location)" "Location"
check_eq "Poster|Posted through the form" "$(sql "SELECT author, body FROM comments WHERE id = $cid")" "stored comment"
req /wp-comments-post.php
check_eq 405 "$STATUS" "GET of the comment endpoint"

try "php -S router mode serves static files and the pages, not the database"
# http_get PORT PATH: raw HTTP/1.0 request, the status line and headers.
http_get() {
	exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
	printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$2" >&3
	sed -n '1,/^\r\{0,1\}$/p' <&3 | tr -d '\r'
	exec 3<&-
}
p=$(port 0)
_php_s() {
	cd "$BLOG" && BLOG_SESSION_DIR=$SESSIONS BLOG_SITE_URL=http://127.0.0.1:$p exec php -S "127.0.0.1:$p" index.php
}
bg_start _php_s >"$TESTDIR/php-s.log" 2>&1
if wait_port "$p" 10; then
	out=$(http_get "$p" /wp-content/themes/plain/style.css?ver=1.0)
	check_match "$out" '^HTTP/1\.[01] 200' "style.css status"
	check_match "$out" 'Content-Type: text/css' "style.css type"
	first=${pngs%%$'\n'*}
	out=$(http_get "$p" "/wp-content/uploads/${first#./}")
	check_match "$out" 'Content-Type: image/png' "upload served as a file"
	out=$(http_get "$p" /tag/php)
	check_match "$out" '^HTTP/1\.[01] 301' "redirect status"
	check_contains "$out" "Location: http://127.0.0.1:$p/tag/php/" "redirect location"
	for f in /wp-content/database.sqlite /wp-config.php /bin/seed.php /wp-includes/load.php; do
		check_match "$(http_get "$p" "$f")" '^HTTP/1\.[01] 404' "$f hidden"
	done
else
	fail "php -S did not start: $(cat "$TESTDIR/php-s.log")"
fi
bg_stop "$BG_PID"

finish
