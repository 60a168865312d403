#!/usr/bin/env bash
# t0394-snapshot-rel-canonical: a page whose <link rel="canonical"> names
# another page of the site is an alias of it, as search engines read it:
# recorded as a 301 to that page (which is crawled, linked or not), never
# stored twice; a chain of them ends in one hop at its page. Pages naming each other never make a loop (the first stays
# a redirect, the other a page), and a page whose canonical URL redirects
# back to it (DokuWiki's start page) or answers 404 stays a page; a canonical outside the site, excluded by
# --exclude, or another spelling of the same file (the spellings' own rule
# decides) changes nothing;
# --no-canonical-links stores every page. serve answers the 301.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"
. "$(dirname "$0")/lib-serve.sh"

SITE=$TESTDIR/site
mkdir -p "$SITE"
cat >"$SITE/index.php" <<'PHP'
<html><body>
<a href="/item.php?id=1&amp;sort=asc">item 1 sorted</a>
<a href="/item.php?id=1">item 1</a>
<a href="/item.php?id=2&amp;utm_source=feed">item 2 from the feed</a>
<a href="/loop.php?n=a">loop a</a>
<a href="/out.php">out</a>
<a href="/spelled.php?name=docs%2Fa">spelled</a>
<a href="/hidden.php?v=1">hidden</a>
<a href="/back.php">back</a> <a href="/lost.php">lost</a>
<a href="/chain.php?step=2">step 2</a> <a href="/chain.php?step=1">step 1</a>
</body></html>
PHP
# chain.php: step 1 names step 2, which names step 3, the page.
cat >"$SITE/chain.php" <<'PHP'
<?php $step = (int)$_GET['step']; ?>
<html><head><?php if ($step < 3) { ?><link rel="canonical" href="/chain.php?step=<?= $step + 1 ?>"><?php } ?></head>
<body><p>step <?= $step ?></p></body></html>
PHP
# As DokuWiki's start page: its canonical URL redirects back to it.
cat >"$SITE/back.php" <<'PHP'
<html><head><link rel="canonical" href="/moved.php"></head><body>back</body></html>
PHP
cat >"$SITE/moved.php" <<'PHP'
<?php header('Location: http://localhost/back.php', true, 302);
PHP
cat >"$SITE/lost.php" <<'PHP'
<html><head><link rel="canonical" href="/gone.html"></head><body>lost</body></html>
PHP
# item.php: each item's view names the item's plain URL as canonical.
cat >"$SITE/item.php" <<'PHP'
<?php $id = (int)$_GET['id']; ?>
<html><head><link rel="canonical" href="http://localhost/item.php?id=<?= $id ?>"></head>
<body><p>item <?= $id ?>, <?= count($_GET) ?> parameters</p><img src="/pic.png"></body></html>
PHP
cat >"$SITE/loop.php" <<'PHP'
<?php $other = $_GET['n'] === 'a' ? 'b' : 'a'; ?>
<html><head><link rel="canonical" href="/loop.php?n=<?= $other ?>"></head>
<body><p>loop <?= htmlspecialchars($_GET['n']) ?></p></body></html>
PHP
cat >"$SITE/out.php" <<'PHP'
<html><head><link rel="canonical" href="http://elsewhere.example/out"></head><body>out</body></html>
PHP
cat >"$SITE/spelled.php" <<'PHP'
<html><head><link rel="canonical" href="/spelled.php?name=docs/a"></head><body>spelled</body></html>
PHP
cat >"$SITE/hidden.php" <<'PHP'
<html><head><link rel="canonical" href="/hidden.php?v=2"></head><body>hidden <?= (int)$_GET['v'] ?></body></html>
PHP
printf 'PNG' >"$SITE/pic.png"

snap() { # snap OUT OPTIONS...
	local out=$1
	shift
	"$CGISNAP" snapshot --root "$SITE" --cgi php=php-cgi --site-url http://localhost/ --exclude '^/hidden\.php\?v=2$' \
		"$@" "$out" 2>"$out.err"
}
status_of() { manifest_field "$1" "$2" 3; }
location_of() { manifest_field "$1" "$2" 9; }

try "a page whose rel=canonical names another page is a 301 to it, which is crawled"
OUT=$TESTDIR/out
snap "$OUT"
check_eq 0 $? "exit status ($(cat "$OUT.err"))"
check_eq "301 http://localhost/item.php?id=1" \
	"$(status_of "$OUT" '/item.php?id=1&sort=asc') $(location_of "$OUT" '/item.php?id=1&sort=asc')" "a sorted view"
check_eq 200 "$(status_of "$OUT" '/item.php?id=1')" "the item"
check_contains "$(cat "$OUT/item.php@id=1.html" 2>/dev/null)" "item 1, 1 parameters" "the item's own page stored"
check_eq "301 http://localhost/item.php?id=2" \
	"$(status_of "$OUT" '/item.php?id=2&utm_source=feed') $(location_of "$OUT" '/item.php?id=2&utm_source=feed')" \
	"a tracking URL"
check_eq 200 "$(status_of "$OUT" '/item.php?id=2')" "the page only its canonical link names, crawled"
check_eq 200 "$(status_of "$OUT" /pic.png)" "the pages' image"
check_no_file "$OUT/item.php@id=1&sort=asc.html" "no file for the alias"

try "a chain of aliases (1 names 2, which names 3) ends in one hop at its page, whichever is taken first"
check_eq "301 http://localhost/chain.php?step=3" \
	"$(status_of "$OUT" '/chain.php?step=1') $(location_of "$OUT" '/chain.php?step=1')" "step 1"
check_eq "301 http://localhost/chain.php?step=3" \
	"$(status_of "$OUT" '/chain.php?step=2') $(location_of "$OUT" '/chain.php?step=2')" "step 2"
check_eq 200 "$(status_of "$OUT" '/chain.php?step=3')" "step 3, the page"

try "pages naming each other: one redirect and one page, never a loop"
check_eq "200 301" "$( (status_of "$OUT" '/loop.php?n=a'; status_of "$OUT" '/loop.php?n=b') | sort | tr '\n' ' ' | sed 's/ $//')" \
	"the two loop pages"

try "a page whose canonical URL redirects back to it, or answers 404, is stored as a page"
check_eq 200 "$(status_of "$OUT" /back.php)" "canonical redirecting back"
check_contains "$(cat "$OUT/back.php" 2>/dev/null)" "back" "its file"
check_eq 302 "$(status_of "$OUT" /moved.php)" "the redirect itself"
check_eq 200 "$(status_of "$OUT" /lost.php)" "canonical answering 404"
check_eq 404 "$(status_of "$OUT" /gone.html)" "the missing page"

try "a seed is stored whatever its canonical names"
OUT3=$TESTDIR/out3
snap "$OUT3" --seed '/item.php?id=1&sort=asc' --seed /
check_eq 0 $? "exit status ($(cat "$OUT3.err"))"
check_eq 200 "$(status_of "$OUT3" '/item.php?id=1&sort=asc')" "the seed"
check_eq 301 "$(status_of "$OUT3" '/item.php?id=2&utm_source=feed')" "a page it links is still an alias"

try "a canonical outside the site, excluded, or another spelling of the file changes nothing"
check_eq 200 "$(status_of "$OUT" /out.php)" "outside the site"
check_eq 200 "$(status_of "$OUT" '/hidden.php?v=1')" "excluded by --exclude"
check_eq "" "$(status_of "$OUT" '/hidden.php?v=2')" "the excluded page, never crawled"
check_eq 200 "$(status_of "$OUT" '/spelled.php?name=docs/a')" "another spelling of its own file: the spellings' rule decides"

try "the summary counts them and names the option"
check_contains "$(cat "$OUT.err")" \
	"cgisnap: 5 URLs recorded as a redirect to the page their <link rel=canonical> names: " "the line"
check_contains "$(cat "$OUT.err")" "--no-canonical-links to store them" "the option"

try "cgisnap serve answers the alias with its 301"
P=$(port 0)
serve_start "$OUT" "$P"
check_eq "301 http://localhost/item.php?id=1" \
	"$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' "http://127.0.0.1:$P/item.php?id=1&sort=asc")" "the redirect"
bg_stop "$SERVE_PID"

try "a second run rewrites nothing"
snap "$OUT"
check_eq 0 $? "exit status ($(cat "$OUT.err"))"
check_contains "$(cat "$OUT.err")" "(0 new, 0 changed," "no file written"

try "--no-canonical-links stores every page"
OUT2=$TESTDIR/out2
snap "$OUT2" --no-canonical-links
check_eq 0 $? "exit status ($(cat "$OUT2.err"))"
check_eq 200 "$(status_of "$OUT2" '/item.php?id=1&sort=asc')" "the sorted view, stored"
check_eq 200 "$(status_of "$OUT2" '/item.php?id=2&utm_source=feed')" "the tracking URL, stored"
check_not_contains "$(cat "$OUT2.err")" "rel=canonical" "no line"

finish
