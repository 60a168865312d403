#!/usr/bin/env bash
# t0650-verify: 'cgisnap verify' replays access logs against the sample
# wiki and its snapshot. A fresh snapshot answers every logged request
# alike (exit 0), whatever the log's form (plain, gzip'ed, standard
# input, several); planted differences - a page edited, one added, one
# deleted, a URL --exclude left out, a tracking parameter - are each found
# under their cause, named, and weighted by the log's request counts, in
# the text, the JSON and the HTML page; on the sample blog, a post renamed
# since is found by its shortlink's redirect and its old URL, while a
# URL without its slash answers the same redirect, and a byte changed in
# a 20 MiB download (compared by size and hash, not in memory); --sample replays the most
# requested; the tree as nginx serves it (--server) answers as serve's;
# an HTTP origin receives only GET requests for the site's URLs; Ctrl-C
# reports what was replayed and exits 130; bad input fails with one line
# and exit 2.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"
. "$(dirname "$0")/lib-serve.sh"

sample_site_test wiki 30
EXCLUDE='[?&]do=recent'
WIKI=(--root "$SITE" --cgi php=php-cgi --site-url http://localhost:8080/ --strip "$WIKI_STRIP"
	--robots-meta ignore --exclude "$EXCLUDE")
snap_wiki "$SITE" "$OUT" -q --exclude "$EXCLUDE" 2>"$TESTDIR/snap.err" ||
	fail "snapshot of the wiki failed: $(cat "$TESTDIR/snap.err")"
page=$(wiki_pages "$SITE" howto | head -1)
gone=$(wiki_pages "$SITE" team | head -1)
[ -n "$page" ] && [ -n "$gone" ] || fail "the seeded wiki has no page in howto or team"

# line METHOD TARGET [TIMES]: TIMES combined-format lines (default 1).
line() {
	local i
	for ((i = 0; i < ${3:-1}; i++)); do
		printf '192.0.2.%d - - [06/Dec/2026:10:%02d:00 +0000] "%s %s HTTP/1.1" 200 512 "-" "Mozilla/5.0"\n' \
			$((i % 250)) $((i % 60)) "$1" "$2"
	done
}

# The alike part of every log: 83 requests of pages, assets and an old
# bookmark (a 404 on both sides), and what is never replayed.
{
	line GET / 20
	line GET '/doku.php?id=start' 30
	line HEAD '/doku.php?id=start' 5
	line GET '/doku.php?id=wiki:syntax' 10
	line GET /lib/scripts/wiki.js 10
	line GET /lib/images/logo.png 5
	line GET '/doku.php?id=old:bookmark' 3
	line POST '/doku.php?id=start' 2
	line GET 'http://other.example/doku.php?id=start'
	echo 'this line is in no access-log format'
	# A crash-damaged log's run of NULs: one bad line, not the next lost.
	printf '192.0.2.9 - - [06/Dec/2026:10:59:00 +0000] "GET /\0\0\0\0\n'
	# Apache's common format, with no referer nor agent.
	echo '198.51.100.7 - - [06/Dec/2026:11:00:00 +0000] "GET /doku.php?id=start HTTP/1.0" 200 77'
} >"$TESTDIR/alike.log"

try "a fresh snapshot answers every logged request alike: exit 0, what is skipped counted"
"$CGISNAP" verify "${WIKI[@]}" "$OUT" "$TESTDIR/alike.log" >"$TESTDIR/alike.out" 2>"$TESTDIR/alike.err"
check_eq 0 $? "exit status ($(tail -1 "$TESTDIR/alike.err"))"
out=$(cat "$TESTDIR/alike.out")
check_contains "$out" "Replayed 6 distinct URLs (84 GET/HEAD requests in 1 log)" "the URLs and requests"
check_contains "$out" "100% of the requests answer alike (6 URLs): nothing would change." "the verdict"
check_contains "$out" "2 requests of other methods than GET and HEAD; 1 request for other sites; 2 lines in no access-log format (the first: $TESTDIR/alike.log:" "what was skipped"

try "gzip'ed logs, standard input and several logs read as the plain one"
gzip -c "$TESTDIR/alike.log" >"$TESTDIR/alike.log.2.gz"
"$CGISNAP" verify "${WIKI[@]}" "$OUT" "$TESTDIR/alike.log.2.gz" >"$TESTDIR/gz.out" 2>"$TESTDIR/gz.err"
check_eq 0 $? "exit status, gzip ($(tail -1 "$TESTDIR/gz.err"))"
check_contains "$(cat "$TESTDIR/gz.out")" "Replayed 6 distinct URLs (84 GET/HEAD requests in 1 log)" "gzip'ed"
gzip -c "$TESTDIR/alike.log" | "$CGISNAP" verify "${WIKI[@]}" "$OUT" - >"$TESTDIR/stdin.out" 2>"$TESTDIR/stdin.err"
check_eq 0 $? "exit status, standard input ($(tail -1 "$TESTDIR/stdin.err"))"
check_contains "$(cat "$TESTDIR/stdin.out")" "(84 GET/HEAD requests in 1 log)" "standard input, gzip'ed"
"$CGISNAP" verify "${WIKI[@]}" "$OUT" "$TESTDIR/alike.log" "$TESTDIR/alike.log.2.gz" >"$TESTDIR/two.out" 2>&1
check_contains "$(cat "$TESTDIR/two.out")" "Replayed 6 distinct URLs (168 GET/HEAD requests in 2 logs)" "two logs"

# The planted differences, with request counts of their own: 22 of 106.
cat "$TESTDIR/alike.log" >"$TESTDIR/mixed.log"
{
	line GET "/doku.php?id=$page" 12
	line GET '/doku.php?id=planted:new' 3
	line GET "/doku.php?id=$gone" 2
	line GET '/doku.php?id=start&do=recent' 4
	line GET '/doku.php?id=start&utm_source=newsletter' 1
} >>"$TESTDIR/mixed.log"
echo "PLANTED EDIT of the page" >>"$SITE/data/pages/${page//://}.txt"
mkdir -p "$SITE/data/pages/planted"
echo "====== A planted page ======" >"$SITE/data/pages/planted/new.txt"
rm "$SITE/data/pages/${gone//://}.txt"

try "planted differences found by cause, named, weighted by the log's requests"
"$CGISNAP" verify "${WIKI[@]}" --html "$TESTDIR/report.html" "$OUT" "$TESTDIR/mixed.log" \
	>"$TESTDIR/mixed.out" 2>"$TESTDIR/mixed.err"
check_eq 1 $? "exit status: something would change ($(tail -1 "$TESTDIR/mixed.err"))"
out=$(cat "$TESTDIR/mixed.out")
check_contains "$out" "Replayed 11 distinct URLs (106 GET/HEAD requests in 1 log)" "URLs and requests"
check_contains "$out" "79.2% of the requests answer alike (6 URLs); 5 URLs, 20.8% of the requests, would change." "the verdict"
check_contains "$out" "/doku.php?id=$page (12 requests): line " "the edited page, a body that differs"
check_match "$out" "/doku.php\\?id=$page \\(12 requests\\): line [0-9]+: origin '.+', tree '.+'" "its first differing line, both sides"
check_contains "$out" "/doku.php?id=planted:new (3 requests): never reached by the crawl" "the new page"
check_contains "$out" "/doku.php?id=$gone (2 requests): origin 404, tree 200" "the deleted page"
check_contains "$out" "/doku.php?id=start&do=recent (4 requests): left out by --exclude '$EXCLUDE'" "the excluded URL"
check_contains "$out" "/doku.php?id=start&utm_source=newsletter (1 request): the tree has its body as '/doku.php?id=start', without the parameter 'utm_source': --ignore-param 'utm_source' answers it" "the tracking parameter"
check_contains "$out" "a body that differs: 1 URL, 11.3% of the requests" "a cause's heading"
check_file "$TESTDIR/report.html"
check_eq "" "$(ls -A "$TESTDIR" | grep cgisnap-tmp)" "no temporary file left"

try "the sample blog: a post renamed since the snapshot is found by its shortlink's redirect and its old URL"
BLOG=$TESTDIR/blog
seed_blog "$BLOG" 30
# A download bigger than --max-parse (16 MiB): stored as it is, compared
# by its size and hash from its files.
mkdir -p "$BLOG/files"
head -c $((20 * 1024 * 1024)) /dev/urandom >"$BLOG/files/image.iso"
snap_blog "$BLOG" "$TESTDIR/blog-out" -q --seed / --seed /files/image.iso 2>"$TESTDIR/blog-snap.err" ||
	fail "snapshot of the blog: $(cat "$TESTDIR/blog-snap.err")"
# The shortlinks the crawl recorded as 301s: the oldest post and a recent one.
post_url() { awk -F'\t' -v t="/?p=$1" '$1 == t { sub("^http://localhost:8080", "", $9); print $9 }' <("$CGISNAP" ls "$TESTDIR/blog-out"); }
old=$(post_url 1) recent=$(post_url 20)
[ -n "$old" ] && [ -n "$recent" ] || fail "no shortlinks recorded"
{
	line GET / 9
	line GET "$recent" 5
	line GET "${recent%/}" 2
	line GET '/?p=20' 3
	line GET /feed/ 4
	line GET '/?p=999' 1
	line GET '/?p=1' 6
	line GET "$old" 10
	line GET /files/image.iso 2
} >"$TESTDIR/blog.log"
# The big file, alike as stored; then one byte of it changed.
"$CGISNAP" verify --root "$BLOG" --cgi php=php-cgi --front-controller /index.php "$TESTDIR/blog-out" \
	<(line GET /files/image.iso 2) >"$TESTDIR/iso.out" 2>"$TESTDIR/iso.err"
check_eq 0 $? "exit status: the big file alike ($(tail -1 "$TESTDIR/iso.err"))"
check_contains "$(cat "$TESTDIR/iso.out")" "100% of the requests answer alike (1 URL): nothing would change." "the big file"
printf 'X' | dd of="$BLOG/files/image.iso" bs=1 seek=$((10 * 1024 * 1024)) conv=notrunc status=none
php -r '$d = new PDO("sqlite:" . $argv[1]); $d->exec("UPDATE posts SET slug = slug || \"-renamed\" WHERE id = 1");' \
	"$BLOG/wp-content/database.sqlite"
"$CGISNAP" verify --root "$BLOG" --cgi php=php-cgi --front-controller /index.php "$TESTDIR/blog-out" \
	"$TESTDIR/blog.log" >"$TESTDIR/blog.out" 2>"$TESTDIR/blog.err"
check_eq 1 $? "exit status ($(tail -1 "$TESTDIR/blog.err"))"
out=$(cat "$TESTDIR/blog.out")
check_contains "$out" "Replayed 9 distinct URLs (42 GET/HEAD requests in 1 log)" "what was replayed"
check_contains "$out" "57.1% of the requests answer alike (6 URLs); 3 URLs, 42.9% of the requests, would change." \
	"the verdict: the home page, a post with and without its slash, its shortlink, the feed, a 404 alike"
check_contains "$out" "/?p=1 (6 requests): origin 301 to 'http://localhost:8080${old%/}-renamed/', tree 301 to 'http://localhost:8080$old'" \
	"the shortlink's redirect differs"
check_contains "$out" "$old (10 requests): origin 404, tree 200" "the old URL still served by the tree"
check_contains "$out" "/files/image.iso (2 requests): origin 20971520 bytes, tree 20971520 bytes, not the same" \
	"a byte changed in the big file"

try "--json: every URL with its cause, statuses and requests; --html: a page with each of them"
"$CGISNAP" verify "${WIKI[@]}" --json "$OUT" "$TESTDIR/mixed.log" >"$TESTDIR/mixed.json" 2>"$TESTDIR/json.err"
check_eq 1 $? "exit status ($(tail -1 "$TESTDIR/json.err"))"
check_eq "ok" "$(python3 - "$TESTDIR/mixed.json" "$page" "$gone" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); page, gone = sys.argv[2], sys.argv[3]
got = {}
for c in j["causes"]:
    assert c["urls"] == sum(f["urls"] for f in c["families"]), c
    for f in c["families"]:
        for u in f["items"]:
            got[u["url"]] = (c["cause"], u["requests"], u["origin_status"], u["tree_status"])
want = {
    "/doku.php?id=" + page: ("body-differs", 12, 200, 200),
    "/doku.php?id=planted:new": ("not-in-tree", 3, 200, 404),
    "/doku.php?id=" + gone: ("status-differs", 2, 404, 200),
    "/doku.php?id=start&do=recent": ("not-in-tree", 4, 200, 404),
    "/doku.php?id=start&utm_source=newsletter": ("not-in-tree", 1, 200, 404),
}
problems = [u + ": " + repr(got.get(u)) + " not " + repr(w) for u, w in want.items() if got.get(u) != w]
problems += ["unexpected " + u for u in got if u not in want]
if j["alike"] != {"urls": 6, "requests": 84}: problems.append("alike %r" % j["alike"])
if j["changes"] != {"urls": 5, "requests": 22}: problems.append("changes %r" % j["changes"])
if j["skipped"] != {"other_methods": 2, "outside": 1, "malformed": 2}: problems.append("skipped %r" % j["skipped"])
print("ok" if not problems else "; ".join(problems))
PY
)" "the JSON report"
check_eq "ok" "$(python3 - "$TESTDIR/report.html" "$page" "$gone" <<'PY'
import html.parser, sys
page = open(sys.argv[1], encoding="utf-8").read()
VOID = {"meta", "br"}
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.text, self.bars = [], [], "", {}
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script": self.errors.append("a script")
        if tag == "rect" and a.get("class") == "cause":
            self.bars[a["data-cause"]] = (float(a["width"]), int(a["data-requests"]))
        for k in ("src", "href"):
            if a.get(k): self.errors.append("fetches " + a[k])
        if tag not in VOID: self.stack.append(tag)
    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag: self.errors.append("</%s> misplaced" % tag)
        else: self.stack.pop()
    def handle_data(self, d): self.text += d
p = P(); p.feed(page); p.close()
for u in ("/doku.php?id=" + sys.argv[2], "/doku.php?id=planted:new", "/doku.php?id=" + sys.argv[3],
          "/doku.php?id=start&do=recent", "/doku.php?id=start&utm_source=newsletter"):
    if u not in p.text: p.errors.append("no " + u)
if "5 URLs, 20.8% of the requests, would change" not in p.text: p.errors.append("no verdict")
# The bar: a stretch per cause, in proportion to its requests (106 in all).
want = {"alike": 84, "not-in-tree": 8, "status-differs": 2, "body-differs": 12}
if {c: r for c, (w, r) in p.bars.items()} != want: p.errors.append("bar stretches %r" % p.bars)
for c, (w, r) in p.bars.items():
    if abs(w - 800.0 * r / 106) > 0.01: p.errors.append("%s is %.2f wide for %d requests" % (c, w, r))
if p.stack: p.errors.append("open: " + " ".join(p.stack))
print("ok" if not p.errors else "; ".join(p.errors))
PY
)" "the HTML page"

try "--sample N replays the N most requested URLs"
"$CGISNAP" verify "${WIKI[@]}" --sample 3 "$OUT" "$TESTDIR/mixed.log" >"$TESTDIR/sample.out" 2>"$TESTDIR/sample.err"
check_eq 1 $? "exit status: the edited page is among the 3 ($(tail -1 "$TESTDIR/sample.err"))"
out=$(cat "$TESTDIR/sample.out")
check_contains "$out" "Replayed 3 distinct URLs (68 GET/HEAD requests in 1 log)" "the 3 most requested: start, /, the edited page"
check_contains "$out" "--sample: the 3 most requested of 11 distinct URLs; 38 requests of the others not replayed." "what the sample left"
check_contains "$out" "/doku.php?id=$page (12 requests): line " "the edited page is among them"

try "--server: the tree as nginx serves it with cgisnap config's file answers as serve's"
if command -v nginx >/dev/null; then
	. "$(dirname "$0")/lib-config.sh"
	PN=$(port 0)
	"$CGISNAP" config nginx --listen "127.0.0.1:$PN" "$OUT" >"$TESTDIR/nginx-site.conf" 2>"$TESTDIR/config.err" ||
		fail "cgisnap config nginx: $(cat "$TESTDIR/config.err")"
	nginx_start nginx "$PN" -- "$TESTDIR/nginx-site.conf"
	"$CGISNAP" verify "${WIKI[@]}" --json --server "http://127.0.0.1:$PN/" "$OUT" "$TESTDIR/mixed.log" \
		>"$TESTDIR/nginx.json" 2>"$TESTDIR/nginx.err"
	check_eq 1 $? "exit status ($(tail -1 "$TESTDIR/nginx.err"))"
	strip_server() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); j.pop("tree_server"); print(json.dumps(j, sort_keys=True))' "$1"; }
	check_eq "$(strip_server "$TESTDIR/mixed.json")" "$(strip_server "$TESTDIR/nginx.json")" "nginx's answers compare as serve's"
	check_match "$(cat "$TESTDIR/nginx/logs/access.log")" '"GET /doku.php\?id=start&utm_source=newsletter HTTP' "nginx was asked"
else
	fail "nginx is not installed (make deps installs it)"
fi

try "an HTTP origin is sent GET requests for the site's own URLs only, each URL once"
serve_start "$OUT" 0 --dynamic --access-log "$TESTDIR/dyn-access.log" --root "$SITE" --cgi php=php-cgi \
	--site-url http://localhost:8080/
"$CGISNAP" verify --origin "http://127.0.0.1:$SERVE_PORT/" --site-url http://localhost:8080/ --strip "$WIKI_STRIP" \
	--exclude "$EXCLUDE" --wait 0.01 -j 2 "$OUT" "$TESTDIR/mixed.log" >"$TESTDIR/http.out" 2>"$TESTDIR/http.err"
check_eq 1 $? "exit status ($(tail -1 "$TESTDIR/http.err"))"
check_contains "$(cat "$TESTDIR/http.out")" "5 URLs, 20.8% of the requests, would change." "the same verdict through HTTP"
# serve writes its access log in the background: stopped, it has flushed it.
bg_stop "$SERVE_PID"
check_eq 0 $? "the origin's server stopped cleanly"
check_eq "GET" "$(awk '{print $6}' "$TESTDIR/dyn-access.log" | tr -d '"' | sort -u)" "only GET requests"
# '/' is asked at the start too (the profile's detection, the origin's check).
check_eq "" "$(awk '$7 != "/" {print $7}' "$TESTDIR/dyn-access.log" | sort | uniq -d)" "no URL asked twice"
check_eq 10 "$(awk '$7 != "/" {print $7}' "$TESTDIR/dyn-access.log" | sort -u | wc -l)" "the log's 10 other URLs, each once"
check_eq 0 "$(grep -c other.example "$TESTDIR/dyn-access.log")" "no other site's URL"

try "Ctrl-C: the renders under way finish, the URLs replayed so far are reported, exit 130"
# A CGI program of the site that waits for the test once it has started.
cgi slow.cgi "touch '$TESTDIR/slow.started'; while [ ! -e '$TESTDIR/slow.go' ]; do sleep 0.05; done
printf 'Content-Type: text/plain\\n\\nslow\\n'" "$SITE"
{
	line GET /slow.cgi 5
	line GET / 3
	line GET '/doku.php?id=start' 2
} >"$TESTDIR/slow.log"
bg_start "$CGISNAP" verify "${WIKI[@]}" -j 1 "$OUT" "$TESTDIR/slow.log" >"$TESTDIR/slow.out" 2>"$TESTDIR/slow.err"
pid=$BG_PID
wait_until 20 test -e "$TESTDIR/slow.started" || fail "the slow page never started: $(cat "$TESTDIR/slow.err")"
# One SIGINT, before the page may end (a second would kill at once);
# then the wait for verify's own exit (signal 0: nothing more sent).
kill -INT "$pid"
touch "$TESTDIR/slow.go"
bg_stop "$pid" 0
check_eq 130 $? "exit status ($(tail -1 "$TESTDIR/slow.err"))"
out=$(cat "$TESTDIR/slow.out")
check_contains "$out" "Replayed 1 distinct URL (5 GET/HEAD requests in 1 log)" "only the URL under way"
check_contains "$out" "Interrupted: the URLs not replayed yet are not counted." "said"
check_contains "$out" "/slow.cgi (5 requests): never reached by the crawl" "the URL under way, compared"
rm "$SITE/slow.cgi"

try "bad input: one line naming what is wrong, exit 2"
"$CGISNAP" verify "${WIKI[@]}" "$OUT" "$TESTDIR/no-such.log" >/dev/null 2>"$TESTDIR/bad.err"
check_eq 2 $? "exit status, a missing log"
check_eq "cgisnap: error: cannot read log '$TESTDIR/no-such.log': No such file or directory" "$(cat "$TESTDIR/bad.err")" "the message"
"$CGISNAP" verify "${WIKI[@]}" "$TESTDIR" "$TESTDIR/alike.log" >/dev/null 2>"$TESTDIR/bad.err"
check_eq 2 $? "exit status, not a tree"
check_eq "cgisnap: error: '$TESTDIR' is not a cgisnap tree (no .cgisnap/)" "$(cat "$TESTDIR/bad.err")" "the message"
"$CGISNAP" verify "${WIKI[@]}" "$OUT" >/dev/null 2>"$TESTDIR/bad.err"
check_eq 2 $? "exit status, no log"
check_contains "$(cat "$TESTDIR/bad.err")" "no access log given" "the message"
line POST /doku.php >"$TESTDIR/posts.log"
"$CGISNAP" verify "${WIKI[@]}" "$OUT" "$TESTDIR/posts.log" >/dev/null 2>"$TESTDIR/bad.err"
check_eq 2 $? "exit status, no request to replay"
check_eq "cgisnap: error: no GET or HEAD request for a URL of 'http://localhost:8080/' in the log (1 line; 0 for other sites, 1 of other methods, 0 in no access-log format): nothing to replay" \
	"$(cat "$TESTDIR/bad.err")" "the message"
dead=$(port 0)
"$CGISNAP" verify "${WIKI[@]}" --server "http://127.0.0.1:$dead/" "$OUT" "$TESTDIR/alike.log" >/dev/null 2>"$TESTDIR/bad.err"
check_eq 2 $? "exit status, a --server that does not answer"
check_match "$(cat "$TESTDIR/bad.err")" "^cgisnap: error: --server 'http://127.0.0.1:$dead/': " "the message names it"
check_eq 1 "$(wc -l <"$TESTDIR/bad.err")" "one line"

finish
