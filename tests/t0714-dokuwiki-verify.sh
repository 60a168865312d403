#!/usr/bin/env bash
# t0714-dokuwiki-verify: 'cgisnap verify' on Debian's DokuWiki and its
# zero-configuration snapshot, with an access log of a real request mix:
# pages, the stylesheet and an image, a bookmark of a page that no longer
# exists (DokuWiki answers it 200, the tree 404: said), a tracking parameter, bots on the editor, the login form and old
# revisions. The pages and assets answer alike; a page edited behind
# DokuWiki's back is found as a body that differs; the bots' URLs are
# named as left out by the profile's --exclude rules, which verify reads
# from the same detected profile as the snapshot.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"
. "$(dirname "$0")/lib-apps.sh"

dokuwiki_test_site
OUT=$TESTDIR/out
DW=(--root "$DW_ROOT" --cgi php=php-cgi --site-url "$DW_URL")
"$CGISNAP" snapshot "${DW[@]}" -q "$OUT" 2>"$TESTDIR/snap.err" ||
	fail "the snapshot failed: $(grep -v 'PHP ' "$TESTDIR/snap.err" | tail -3)"
edited=$(sed -n '3p' "$DW_PAGES_FILE" | cut -f1)
kept=$(sed -n '5p' "$DW_PAGES_FILE" | cut -f1)
# The page a bot opens the editor of: DokuWiki takes an edit lock on a
# GET of do=edit, and the page shows "Currently locked by" until it goes,
# so the editor's page is none of those checked as alike.
locked=$(sed -n '7p' "$DW_PAGES_FILE" | cut -f1)
css=$(manifest_targets "$OUT" | grep '^/lib/exe/css\.php' | head -1)
[ -n "$edited" ] && [ -n "$kept" ] && [ -n "$locked" ] && [ -n "$css" ] || fail "no pages or stylesheet to log"

line() {
	local i
	for ((i = 0; i < ${3:-1}; i++)); do
		printf '192.0.2.%d - - [06/Dec/2026:10:00:00 +0000] "%s %s HTTP/1.1" 200 512 "-" "%s"\n' \
			$((i % 250)) "$1" "$2" "${4:-Mozilla/5.0}"
	done
}
{
	line GET "/doku.php?id=$kept" 40
	line GET "/doku.php?id=$edited" 25
	line GET "$css" 30
	line GET '/lib/exe/fetch.php?media=wiki:badge.png' 10
	line GET '/doku.php?id=old:moved_away' 4
	line GET "/doku.php?id=$kept&utm_campaign=winter" 3
	line GET "/doku.php?id=$locked&do=edit" 6 'Googlebot/2.1'
	line GET "/doku.php?id=$edited&do=login" 2 'bingbot/2.0'
	line GET "/doku.php?id=$kept&rev=1700000000" 2 'AhrefsBot/7.0'
	line POST '/doku.php?do=login' 5
} | gzip >"$TESTDIR/access.log.1.gz"
printf '\nEdited behind the wiki'"'"'s back.\n' >>"$DW_DATA/pages/${edited//://}.txt"

try "pages and assets answer alike, the edited page differs, the bots' URLs are named by the profile's rules"
"$CGISNAP" verify "${DW[@]}" --json "$OUT" "$TESTDIR/access.log.1.gz" >"$TESTDIR/report.json" 2>"$TESTDIR/verify.err"
check_eq 1 $? "exit status ($(grep -v 'PHP ' "$TESTDIR/verify.err" | tail -2))"
check_eq "cgisnap: using profile dokuwiki (found doku.php); --profile none to turn it off" \
	"$(head -1 "$TESTDIR/verify.err")" "the profile, detected as the snapshot's"
check_eq "ok" "$(python3 - "$TESTDIR/report.json" "$kept" "$edited" "$css" "$locked" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); kept, edited, css, locked = sys.argv[2:6]
got = {}
for c in j["causes"]:
    for f in c["families"]:
        for u in f["items"]:
            got[u["url"]] = (c["cause"], u["requests"], u["detail"] or "")
problems = []
def want(url, cause, requests, detail=""):
    g = got.get(url)
    if not g or g[0] != cause or g[1] != requests or detail not in g[2]:
        problems.append("%s: %r, not %s (%d requests) with %r" % (url, g, cause, requests, detail))
want("/doku.php?id=" + edited, "body-differs", 25, "line ")
want("/doku.php?id=%s&do=edit" % locked, "not-in-tree", 6, "left out by --exclude '[?&]do=(edit|")
want("/doku.php?id=%s&do=login" % edited, "not-in-tree", 2, "left out by --exclude '[?&]do=(edit|")
want("/doku.php?id=%s&rev=1700000000" % kept, "not-in-tree", 2, "left out by --exclude '[?&]rev='")
u = "/doku.php?id=%s&utm_campaign=winter" % kept
if got.get(u, ("",))[0] != "not-in-tree": problems.append("%s: %r" % (u, got.get(u)))
# DokuWiki answers a page that does not exist with a 200 ("this topic does
# not exist yet", its send404 off): the tree's 404 is a change verify says.
want("/doku.php?id=old:moved_away", "not-in-tree", 4, "never reached by the crawl")
for alike in ("/doku.php?id=" + kept, css, "/lib/exe/fetch.php?media=wiki:badge.png"):
    if alike in got: problems.append("%s should answer alike: %r" % (alike, got[alike]))
if j["skipped"]["other_methods"] != 5: problems.append("skipped %r" % j["skipped"])
if j["requests"] != 122: problems.append("requests %r" % j["requests"])
if j["alike"]["requests"] != 80: problems.append("alike %r" % j["alike"])
print("ok" if not problems else "; ".join(problems))
PY
)" "the report"

finish
