#!/usr/bin/env bash
# t0612-config-query-policy: a tree made with --ignore-param 'utm_*'
# --ignore-param fbclid --sort-query answers the same from cgisnap serve,
# nginx and Apache (config nginx|apache): ignored and empty parameters
# dropped (/?fbclid=abc is /, /?p=5&utm_source=x is /?p=5's redirect), the
# queries the tree holds found in any order (/?b=2&a=1 is /?a=1&b=2),
# parameters of one name kept in their order, and names matched with case
# and on names only. With a few thousand ?p=N redirects both servers
# start, answer a sample as serve does, and the Apache configuration,
# whose redirects are a RewriteMap beside it, has as many rules as for 30.
# Compared as t0610 does (tests/lib-config.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-serve.sh"
. "$(dirname "$0")/lib-config.sh"

need_program nginx apache2 curl

# make_policy_tree DIR N: a tree with N ?p=I redirects besides its pages.
make_policy_tree() {
	local t=$1 n=$2 i
	mkdir -p "$t/feed" "$t/wiki"
	printf '<h1>home</h1>\n' >"$t/index.html"
	printf 'home, a=1 b=2\n' >"$t/@a=1&b=2.html"
	printf 'the feed\n' >"$t/feed/index.html"
	printf 'wiki page a, do=edit\n' >"$t/doku.php@do=edit&id=a.html"
	printf 'three: c a b\n' >"$t/wiki/x@a=1&b=2&c=3.html"
	printf 'tags z then a\n' >"$t/p@id=1&tag=z&tag=a.html"
	printf 'tags a then z\n' >"$t/p@id=1&tag=a&tag=z.html"
	manifest_start "$t"
	{
		manifest_line / index.html 200 'text/html; charset=utf-8'
		manifest_line '/?a=1&b=2' '@a=1&b=2.html' 200 'text/html; charset=utf-8'
		manifest_line /feed/ feed/index.html 200 'text/html; charset=utf-8'
		manifest_line '/doku.php?do=edit&id=a' 'doku.php@do=edit&id=a.html' 200 'text/html; charset=utf-8'
		manifest_line '/wiki/x?a=1&b=2&c=3' 'wiki/x@a=1&b=2&c=3.html' 200 'text/html; charset=utf-8'
		manifest_line '/p?id=1&tag=z&tag=a' 'p@id=1&tag=z&tag=a.html' 200 'text/html; charset=utf-8'
		manifest_line '/p?id=1&tag=a&tag=z' 'p@id=1&tag=a&tag=z.html' 200 'text/html; charset=utf-8'
		manifest_line /old - 301 - 'http://localhost/feed/'
		manifest_line '/feed/?format=atom' - 302 - 'http://localhost/feed/'
		for i in $(seq 1 "$n"); do
			manifest_line "/?p=$i" - 301 - "http://localhost/$((2000 + i % 20))/post-$i/"
		done
	} >>"$t/.cgisnap/manifest"
	printf 'site-url = http://localhost/\nignore-param = utm_*\nignore-param = fbclid\nsort-query = yes\n' \
		>"$t/.cgisnap/settings"
	printf '<h1>Custom not found</h1>\n' >"$t/.cgisnap/404.html"
	manifest_commit "$t"
}

T=$TESTDIR/tree
SMALL=$TESTDIR/small
make_policy_tree "$T" 3000
make_policy_tree "$SMALL" 30
mkdir -p "$TESTDIR/conf"
PS=$(port 0) PN=$(port 1) PA=$(port 2)

try "the configurations are written, Apache's with its map files beside it"
"$CGISNAP" config nginx --listen "127.0.0.1:$PN" -o "$TESTDIR/conf/nginx.conf" "$T" 2>"$TESTDIR/config.err"
check_eq 0 $? "nginx exit status"
"$CGISNAP" config apache --listen "127.0.0.1:$PA" --output "$TESTDIR/conf/big.conf" "$T" 2>>"$TESTDIR/config.err"
check_eq 0 $? "apache exit status"
"$CGISNAP" config apache --listen "127.0.0.1:$PA" -o "$TESTDIR/conf/small.conf" "$SMALL" 2>>"$TESTDIR/config.err"
check_eq 0 $? "apache exit status (30 redirects)"
check_eq "" "$(cat "$TESTDIR/config.err")" "no warnings"
check_file "$TESTDIR/conf/big.redirects.map" "the map of redirects"
check_file "$TESTDIR/conf/big.query.map" "the map of query orders"
check_eq 3000 "$(grep -c "^/?p=" "$TESTDIR/conf/big.redirects.map" || true)" "the map lists /?p=1 .. 3000"
check_contains "$(cat "$TESTDIR/conf/big.redirects.map")" '/?p=5 301:http://localhost/2005/post-5/' "a line of it"
check_contains "$(cat "$TESTDIR/conf/big.query.map")" 'b=2&a=1 a=1&b=2' "an order of a query the tree holds"
big=$(grep -c 'RewriteRule' "$TESTDIR/conf/big.conf")
small=$(grep -c 'RewriteRule' "$TESTDIR/conf/small.conf")
check_eq "$small" "$big" "RewriteRule lines, 3000 redirects against 30"
check_lt "$big" 100 "RewriteRule lines"
check_contains "$(cat "$TESTDIR/conf/big.conf")" "RewriteMap cgisnap_localhost_$PA""_redirects \"txt:$TESTDIR/conf/big.redirects.map\"" \
	"the VirtualHost names the map file"
check_eq 0 "$(grep -c '^ *if .*p=' "$TESTDIR/conf/nginx.conf" || true)" "no nginx if per redirect"

try "cgisnap serve, nginx and Apache start"
three_servers_start "$T" "$PS" "$PN" "$TESTDIR/conf/nginx.conf" "$PA" "$TESTDIR/conf/big.conf"

L=$TESTDIR/list
cat >"$L" <<'EOF2'
/
/?fbclid=abc
/?utm_source=x
/?utm_source=x&utm_medium=y&fbclid=z
/?p=5&utm_source=x
/?utm_source=x&p=5
/?utm_campaign=a&p=2999&fbclid=1
/?b=2&a=1
/?a=1&b=2
/?a=1&utm_source=x&b=2
/?utm_source=x&b=2&fbclid=1&a=1
/?b=2&&a=1&
/?&a=1&b=2
/?B=2&a=1
/?b=2&A=1
/?UTM_source=x
/?x=utm_source
/?utm_=1&utm_a&utm_b=&fbclid&fbclid=2&utm_c=3&&utm_d=4&p=7
/?fbclidx=1
/?p=1
/?p=1500
/?p=3000
/?p=3001
/?p=5
/?p=05
/?p=5&q=1
/old
/old?utm_source=x
/old?a=1
/feed/?format=atom&fbclid=9
/feed/?fbclid=9
/feed/?utm_source=rss
/doku.php?id=a&do=edit
/doku.php?do=edit&id=a
/doku.php?do=edit&utm_term=q&id=a
/doku.php?id=a&do=edit&id=a
/wiki/x?c=3&b=2&a=1
/wiki/x?b=2&c=3&a=1
/wiki/x?a=1&c=3&b=2&utm_x=1
/wiki/x?a=1&b=2
/p?tag=z&id=1&tag=a
/p?tag=a&tag=z&id=1
/p?tag=z&tag=a&id=1&fbclid=1
/p?id=1&tag=a&tag=z
/nothing?utm_source=x
EOF2
fetch_all "http://127.0.0.1:$PS" "$L" "$TESTDIR/serve"
for other in nginx apache; do
	[ "$other" = nginx ] && p=$PN || p=$PA
	try "$other answers the query policy's URLs like cgisnap serve ($(wc -l <"$L") URLs)"
	fetch_all "http://127.0.0.1:$p" "$L" "$TESTDIR/$other"
	diffs=$(compare_fetches "$L" "$TESTDIR/serve" "$TESTDIR/$other" serve "$other")
	[ -z "$diffs" ] || while IFS= read -r line; do fail "$line"; done <<<"$diffs"
done

try "the comparison sees the policy at work (serve's answers)"
rec() { sed -n "$(grep -nxF -- "$1" "$L" | cut -d: -f1)p" "$TESTDIR/serve/records" | cut -d$'\037' -f1,3; }
check_eq "200"$'\037' "$(rec '/?fbclid=abc')" "/?fbclid=abc is /"
check_eq "301"$'\037'"http://localhost/2005/post-5/" "$(rec '/?p=5&utm_source=x')" "/?p=5&utm_source=x is the redirect"
check_eq "200"$'\037' "$(rec '/?b=2&a=1')" "/?b=2&a=1 is /?a=1&b=2"
check_eq "404"$'\037' "$(rec '/?B=2&a=1')" "a name's case matters"
check_eq "301"$'\037'"http://localhost/2007/post-7/" "$(rec '/?utm_=1&utm_a&utm_b=&fbclid&fbclid=2&utm_c=3&&utm_d=4&p=7')" \
	"eight parameters dropped"

try "the servers logged nothing worse than errors about refused requests"
check_eq "" "$(grep -E '\[(emerg|alert|crit|warn)\]' "$TESTDIR/nginx/logs/error.log")" "nginx error log"
check_eq "" "$(grep -E ':(emerg|alert|crit)\]' "$TESTDIR/apache/logs/error.log")" "Apache error log"

finish
