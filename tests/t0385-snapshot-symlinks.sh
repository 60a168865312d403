#!/usr/bin/env bash
# t0385-snapshot-symlinks: symbolic links in the document root are followed
# as Apache's Options FollowSymLinks does, the way Debian links DokuWiki's
# lib/tpl and lib/plugins to /var/lib/dokuwiki: a PHP page links a theme's
# images and stylesheet and a plugin's icon behind directory links leading
# out of --root, a favicon behind a file link, a dangling link and a link
# loop; they are stored by default and 404 with --no-follow-symlinks.
# Dotfiles stay refused through a link, a link to a script's source fails,
# a link into the output tree is refused, a --path-alias DIR follows its
# links too, serve --dynamic and --fallback get the option, URL-level
# traversal still names nothing, and watch re-renders a page that read a
# file through a link when the link's target directory is a --source.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-serve.sh"
. "$(dirname "$0")/lib-watch.sh"

SITE=$TESTDIR/site
VAR=$TESTDIR/var
ASSETS=$TESTDIR/assets
OUT=$TESTDIR/out
mkdir -p "$SITE/lib" "$VAR/tpl/theme/images/.git" "$VAR/plugins/gallery" "$VAR/data" "$ASSETS"
printf '\211PNG logo\n' >"$VAR/tpl/theme/images/logo.png"
printf '\211PNG button\n' >"$VAR/tpl/theme/images/button.png"
printf 'body { background: url(images/button.png) }\n' >"$VAR/tpl/theme/style.css"
printf '[core]\n\tsecret = yes\n' >"$VAR/tpl/theme/images/.git/config"
printf '\211PNG icon\n' >"$VAR/plugins/gallery/icon.png"
printf 'ICO\n' >"$VAR/favicon.ico"
printf 'not for the web\n' >"$VAR/secret.txt"
printf '<?php echo "the source";\n' >"$VAR/tool.php"
printf 'the news of the day\n' >"$VAR/data/motd.txt"
ln -s "$VAR/tpl" "$SITE/lib/tpl"
ln -s "$VAR/plugins" "$SITE/lib/plugins"
ln -s "$VAR/data" "$SITE/data"
ln -s "$VAR/favicon.ico" "$SITE/favicon.ico"
ln -s "$VAR/nothing.png" "$SITE/dangling.png"
ln -s loop.css "$SITE/loop.css"
ln -s "$VAR/favicon.ico" "$SITE/.hidden.ico"
ln -s "$VAR/tool.php" "$SITE/readme.txt"
ln -s "$OUT" "$SITE/mirror"
ln -s "$VAR/tpl/theme/images" "$ASSETS/img"
# A shell CGI reads through the link by the path it was given (PHP
# resolves links itself before it opens a file).
printf '#!/bin/sh\nprintf "Content-Type: text/plain\\r\\n\\r\\n"\ncat data/motd.txt\n' >"$SITE/news.cgi"
chmod +x "$SITE/news.cgi"
cat >"$SITE/index.php" <<'EOF'
<?php
header('Content-Type: text/html; charset=utf-8');
$motd = file_get_contents(__DIR__ . '/data/motd.txt');
?><!DOCTYPE html><html><head>
<link rel="stylesheet" href="/lib/tpl/theme/style.css">
<link rel="icon" href="/favicon.ico">
</head><body><p><?= htmlspecialchars($motd) ?></p>
<img src="/lib/tpl/theme/images/logo.png"> <img src="/lib/plugins/gallery/icon.png">
<img src="/assets/img/logo.png"> <img src="/dangling.png"> <a href="/loop.css">loop</a>
<a href="/mirror/index.html">the tree itself</a> <a href="/news.cgi">news</a>
</body></html>
EOF
SNAP=(--root "$SITE" --cgi php=php-cgi --path-alias "/assets=$ASSETS")
STORED=(lib/tpl/theme/style.css lib/tpl/theme/images/logo.png lib/tpl/theme/images/button.png
	lib/plugins/gallery/icon.png favicon.ico assets/img/logo.png)
status_of() { # status_of TREE TARGET: the status the manifest records
	awk -F'\t' -v t="$2" '$1 == t { print $3 }' <("$CGISNAP" ls "$1")
}

try "by default links are followed out of --root and out of a --path-alias DIR"
"$CGISNAP" snapshot "${SNAP[@]}" "$OUT" 2>"$TESTDIR/err"
check_eq 0 $? "exit status ($(cat "$TESTDIR/err"))"
for f in "${STORED[@]}"; do
	check_file "$OUT/$f"
done
check_cmp "$VAR/tpl/theme/images/logo.png" "$OUT/lib/tpl/theme/images/logo.png" "the theme's logo"
check_cmp "$VAR/tpl/theme/style.css" "$OUT/lib/tpl/theme/style.css" "the theme's stylesheet"
check_cmp "$VAR/favicon.ico" "$OUT/favicon.ico" "a link to a file"
check_cmp "$VAR/tpl/theme/images/logo.png" "$OUT/assets/img/logo.png" "a link in the mounted directory"
check_contains "$(cat "$OUT/index.html")" "the news of the day" "the page read through a link"
check_eq "the news of the day" "$(cat "$OUT/news.cgi")" "the shell CGI too"
check_eq 200 "$(status_of "$OUT" /lib/tpl/theme/images/button.png)" "the image the stylesheet names"

try "a dangling link and a link loop are not found; a link into the tree is refused"
check_eq 404 "$(status_of "$OUT" /dangling.png)" "dangling link"
check_eq 404 "$(status_of "$OUT" /loop.css)" "link loop"
check_eq 404 "$(status_of "$OUT" /mirror/index.html)" "link into the tree"
check_no_file "$OUT/dangling.png"
check_no_file "$OUT/loop.css"
"$CGISNAP" snapshot "${SNAP[@]}" "$OUT" 2>"$TESTDIR/err"
check_eq 0 $? "second run: exit status ($(cat "$TESTDIR/err"))"
check_eq 404 "$(status_of "$OUT" /mirror/index.html)" "link into the tree, on the second run too"
check_no_file "$OUT/mirror"
check_contains "$(cat "$TESTDIR/err")" "0 new, 0 changed" "the second run rewrote nothing"

try "--no-follow-symlinks: links leaving --root or the DIR are not found"
"$CGISNAP" snapshot "${SNAP[@]}" --no-follow-symlinks "$TESTDIR/nofollow" 2>"$TESTDIR/err"
check_ne 2 $? "not a set-up error ($(cat "$TESTDIR/err"))"
for f in "${STORED[@]}"; do
	check_no_file "$TESTDIR/nofollow/$f"
done
for f in "${STORED[@]:0:2}" "${STORED[@]:3}"; do # button.png: named by the stylesheet alone
	check_eq 404 "$(status_of "$TESTDIR/nofollow" "/$f")" "/$f"
done
n404=$(awk -F'\t' '$3 == 404' <("$CGISNAP" ls "$TESTDIR/nofollow") | wc -l)
check_contains "$(cat "$TESTDIR/err")" " $n404 not found" "reported as not found"
check_cmp "$OUT/index.html" "$TESTDIR/nofollow/index.html" "what the script reads is the script's business"

try "a dotfile stays refused through a link, and a link named as a dotfile"
P=$(port 0)
bg_start "$CGISNAP" serve --dynamic --listen "127.0.0.1:$P" "${SNAP[@]}" 2>>"$TESTDIR/server.err"
SERVE_PID=$BG_PID
wait_port "$P" 10 || fail "dynamic server did not start: $(cat "$TESTDIR/server.err")"
U=http://127.0.0.1:$P
check_eq 200 "$(code "$U/lib/tpl/theme/images/logo.png")" "serve --dynamic follows links"
check_eq 404 "$(code "$U/lib/tpl/theme/images/.git/config")" "dotfile through a link"
check_eq 404 "$(code "$U/lib/tpl/theme/images/%2egit/config")" "encoded dotfile through a link"
check_eq 404 "$(code "$U/.hidden.ico")" "a link with a dotfile name"

try "URL-level traversal through a followed link names nothing"
for t in '/lib/tpl/..' '/lib/tpl/../../secret.txt' '/lib/tpl/%2e%2e/%2e%2e/secret.txt' \
	'/lib/tpl/..%2f..%2fsecret.txt' '/lib/tpl%2f..%2f..%2fsecret.txt' '/lib/tpl/%2E%2E%5C%2E%2E%5Csecret.txt' \
	'/lib/tpl/..\..\secret.txt' '/lib/tpl/theme/style.css%00.txt' '/assets/img/%2e%2e/%2e%2e/secret.txt'; do
	body=$(curl -s --path-as-is "$U$t")
	check_not_contains "$body" "not for the web" "$t"
	check_match "$(code "$U$t" --path-as-is)" '^[1-5][0-9][0-9]$' "$t: answered"
	check_ne 200 "$(code "$U$t" --path-as-is)" "$t"
done
check_eq 200 "$(code "$U/lib/tpl/theme/style.css")" "the server still answers"
bg_stop "$SERVE_PID"
serve_start "$OUT" "$P" --dynamic "${SNAP[@]}" --no-follow-symlinks
check_eq 404 "$(code "$U/lib/tpl/theme/images/logo.png")" "serve --dynamic --no-follow-symlinks"
bg_stop "$SERVE_PID"

try "serve --fallback refuses a link into its tree"
serve_start "$OUT" "$P" --fallback "${SNAP[@]}"
check_eq 200 "$(code "$U/lib/tpl/theme/images/logo.png")" "a stored file"
check_eq 200 "$(code "$U/lib/tpl/theme/images/logo.png?fresh=1")" "rendered through a link"
check_eq 404 "$(code "$U/mirror/index.html")" "a link into the tree"
check_not_contains "$(curl -s "$U/mirror/.cgisnap/manifest")" "lib/tpl" "the tree's metadata"
bg_stop "$SERVE_PID"

try "a link to a script's source fails by the file it names"
"$CGISNAP" snapshot --root "$SITE" --seed /readme.txt "$TESTDIR/source" 2>"$TESTDIR/err"
check_eq 1 $? "exit status"
check_contains "$(cat "$TESTDIR/err")" "failed: /readme.txt: 'readme.txt' would be published as source: add --cgi php=php-cgi" "message"
check_no_file "$TESTDIR/source/readme.txt"

try "watch re-renders a page that read through a link when the link's target is a --source"
W=$TESTDIR/wtree
watch_start "$TESTDIR/watch.log" "${SNAP[@]}" --source "$VAR/data" "$W"
check_contains "$(cat "$W/index.html" 2>/dev/null)" "the news of the day" "first render"
check_eq "the news of the day" "$(cat "$W/news.cgi" 2>/dev/null)" "first render of the shell CGI"
printf 'fresher news\n' >"$VAR/data/motd.txt.tmp" && mv "$VAR/data/motd.txt.tmp" "$VAR/data/motd.txt"
wait_file_has "$W/index.html" "fresher news" || fail "/ was not re-rendered: $(cat "$TESTDIR/watch.log")"
wait_file_has "$W/news.cgi" "fresher news" || fail "/news.cgi was not re-rendered: $(cat "$TESTDIR/watch.log")"
check_eq 2 "$(grep -c "	R	$(realpath "$VAR/data")/motd.txt\$" <("$CGISNAP" ls --deps "$W"))" \
	"both depend on the real path"
watch_stop
check_eq 0 "$WATCH_STATUS" "watch exit status"

finish
