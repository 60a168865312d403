#!/usr/bin/env bash
# t0606-bench-html: 'cgisnap bench --html FILE' on the sample wiki against
# its snapshot - a well-formed, self-contained page (no script, nothing
# fetched) whose bars follow the request rates of its own table, with the
# latency distribution and the machine; per-URL rows for every URL benched
# in the text and the JSON; a FILE that cannot be written fails at once.
# Every run is short (-d 0.5, or -n).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"

sample_site_test wiki 12
snap_wiki "$SITE" "$OUT" -q 2>"$TESTDIR/snap.err" || fail "snapshot of the wiki failed: $(cat "$TESTDIR/snap.err")"
WIKI_ORIGIN=(--root "$SITE" --cgi php=php-cgi --site-url http://localhost:8080/)
URLS=(/ '/doku.php?id=wiki:syntax' '/doku.php?id=start&do=backlink')
URL_ARGS=()
for u in "${URLS[@]}"; do URL_ARGS+=(--url "$u"); done

# check_page FILE: the page's checks, one "ok NAME" or "FAIL NAME: why"
# line each (python3's html.parser: tags balanced, as a browser would
# need no repair).
check_page() {
	python3 - "$1" <<'PY'
import html.parser, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
VOID = {"meta", "br", "hr", "img", "input", "link", "area", "base", "col", "source", "wbr"}
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.bars, self.bins, self.svgs = [], [], [], 0, 0
        self.in_pre, self.pre, self.tags = False, "", []
    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        a = dict(attrs)
        if tag == "svg": self.svgs += 1
        if tag == "rect" and a.get("class") == "bar": self.bars.append(a)
        if tag == "rect" and a.get("class") == "bin": self.bins += 1
        if tag == "pre": self.in_pre = True
        if tag not in VOID: self.stack.append(tag)
    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        a = dict(attrs)
        if tag == "rect" and a.get("class") == "bar": self.bars.append(a)
        if tag == "rect" and a.get("class") == "bin": self.bins += 1
    def handle_endtag(self, tag):
        if tag == "pre": self.in_pre = False
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("</%s> closes <%s>" % (tag, self.stack[-1] if self.stack else "nothing"))
        else:
            self.stack.pop()
    def handle_data(self, d):
        if self.in_pre: self.pre += d
p = P(); p.feed(page); p.close()
def res(ok, name, why=""):
    print(("ok " if ok else "FAIL ") + name + ("" if ok else ": " + why))
res(page.startswith("<!DOCTYPE html>"), "doctype")
res(not p.errors and not p.stack, "tags balanced", "; ".join(p.errors) + " open: " + " ".join(p.stack))
res(not any(t == "script" for t, _ in p.tags) and "<script" not in page.lower(), "no script")
ext = [(t, k, v) for t, a in p.tags for k, v in a.items()
       if k in ("src", "href", "xlink:href", "action", "data") and re.match(r"\s*(https?:)?//", v or "")]
res(not ext and not re.search(r"(src|href)\s*=\s*[\"']?\s*https?://", page, re.I), "nothing fetched", repr(ext))
res(not re.search(r"url\(|@import", page), "no CSS fetch")
res(p.svgs >= 2, "an SVG for the rates and one for the latencies", "%d svg" % p.svgs)
# The table inside the page: its request rates per side.
heads = re.search(r"^ +(dynamic|static)( +(dynamic|static))?$", p.pre, re.M)
rps = re.search(r"^Requests per second: +([0-9.]+)(?: +([0-9.]+))?", p.pre, re.M)
res(heads is not None and rps is not None, "the table is in the page")
sides = heads.group(0).split()
rates = [float(x) for x in rps.groups() if x is not None]
res([b.get("data-side") for b in p.bars] == sides, "one bar per side, in the table's order",
    "%r against %r" % ([b.get("data-side") for b in p.bars], sides))
h = [float(b["height"]) for b in p.bars]
top = max(rates)
follow = all(abs(hi / max(h) - r / top) <= 0.01 for hi, r in zip(h, rates)) if max(h) > 0 else False
res(follow, "bar heights follow the table's requests per second", "heights %r rates %r" % (h, rates))
res(all(abs(float(b["data-rps"]) - r) <= 0.01 for b, r in zip(p.bars, rates)), "bar figures = table")
res(p.bins > 0, "latency distribution bins")
for name in ("CPU", "Cores", "Kernel", "Memory", "cgisnap"):
    res(re.search(r"<th>%s</th><td>[^<]+</td>" % name, page) is not None, "machine: " + name)
res("Per URL:" in p.pre, "the per-URL rows are in the page's table")
PY
}

# check_lines OUTPUT: turn check_page's lines into checks.
check_lines() {
	local line
	[ -n "$1" ] || fail "no output from the page check"
	while IFS= read -r line; do
		case $line in
		ok | ok\ *) ;;
		*) fail "$line" ;;
		esac
	done <<<"$1"
}

try "--html FILE: a self-contained page whose bars follow its table, the text output unchanged"
"$CGISNAP" bench "${WIKI_ORIGIN[@]}" --tree "$OUT" -d 0.5 -c 2 "${URL_ARGS[@]}" \
	--html "$TESTDIR/report.html" >"$TESTDIR/run.txt" 2>"$TESTDIR/run.err"
check_eq 0 $? "exit status ($(tail -1 "$TESTDIR/run.err"))"
check_file "$TESTDIR/report.html"
check_lines "$(check_page "$TESTDIR/report.html")"
if command -v xmllint >/dev/null; then
	xmllint --html --noout "$TESTDIR/report.html" 2>"$TESTDIR/xmllint.err"
	# HTML 4's parser knows no SVG element: those are the only complaints.
	check_eq "" "$(grep -i 'error\|warning' "$TESTDIR/xmllint.err" |
		grep -Ev 'Tag (svg|rect|line|text|title) invalid')" "xmllint --html: nothing but SVG tags unknown to HTML 4"
fi
check_contains "$(cat "$TESTDIR/run.txt")" "Requests per second:" "the table still goes to stdout"
page=$(cat "$TESTDIR/report.html")
check_contains "$page" "$(uname -r)" "the kernel's release"
check_contains "$page" "$("$CGISNAP" --version | awk '{print $2}')" "cgisnap's version"
model=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo | head -1)
[ -z "$model" ] || check_contains "$page" "$model" "the CPU model"
check_contains "$page" "cgisnap serve --dynamic" "what the dynamic side ran"
check_eq "" "$(ls -A "$TESTDIR" | grep cgisnap-tmp)" "no temporary file left"

try "per-URL rows for every URL benched, in the text and the JSON"
txt=$(sed -n '/^Per URL:/,/^$/p' "$TESTDIR/run.txt")
check_contains "$txt" "Per URL: requests per second, latency 50% and 99% [ms]" "the section"
check_lines "$(python3 - "$TESTDIR/run.txt" "${URLS[@]}" <<'PY'
import re, sys
rows = {}
for line in open(sys.argv[1]).read().split("Per URL:", 1)[1].split("\n\n", 1)[0].splitlines():
    m = re.match(r"^((?: +[0-9]+\.[0-9]+){6})  (/.*)$", line)
    if m:
        rows[m.group(2)] = [float(x) for x in m.group(1).split()]
for u in sys.argv[2:]:
    print("ok" if u in rows else "FAIL no row of 3 figures per side for %s in %r" % (u, rows))
print("ok" if len(rows) == len(sys.argv) - 2 else "FAIL rows for other URLs: %r" % rows)
PY
)"
"$CGISNAP" bench "${WIKI_ORIGIN[@]}" --tree "$OUT" -n 30 -c 2 "${URL_ARGS[@]}" --json \
	--html "$TESTDIR/report2.html" >"$TESTDIR/run.json" 2>"$TESTDIR/run2.err"
check_eq 0 $? "exit status ($(tail -1 "$TESTDIR/run2.err"))"
python3 -m json.tool "$TESTDIR/run.json" >/dev/null
check_eq 0 $? "python3 -m json.tool takes the JSON"
check_lines "$(python3 - "$TESTDIR/run.json" "${URLS[@]}" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); urls = sys.argv[2:]
for side in ("dynamic", "static"):
    s = j[side]; rows = s["per_url"]
    print(("ok" if [r["url"] for r in rows] == urls else "FAIL %s: per_url %r" % (side, rows)))
    n = sum(r["complete"] for r in rows)
    print("ok" if n == s["complete"] else "FAIL %s: per-URL completes %d, the side %d" % (side, n, s["complete"]))
    # -n 30 over 3 URLs in turn: 10 each, all complete on the snapshot.
    if side == "static":
        print("ok" if all(r["complete"] == 10 for r in rows) else "FAIL static: not 10 each: %r" % rows)
    tot = sum(r["requests_per_s"] for r in rows)
    print("ok" if abs(tot - s["requests_per_s"]) <= 0.02 * s["requests_per_s"] + 0.05
          else "FAIL %s: per-URL rates add to %.2f, not %.2f" % (side, tot, s["requests_per_s"]))
    for r in rows:
        l = r["latency_ms"]
        print("ok" if 0 < l["p50"] <= l["p99"] <= s["latency_ms"]["max"] + 0.001
              else "FAIL %s %s: latencies %r" % (side, r["url"], l))
PY
)"
check_lines "$(check_page "$TESTDIR/report2.html")"

try "a --html FILE that cannot be written: one line, status 2, before any measurement"
mkdir -p "$TESTDIR/adir"
expect_html_error() {
	local want=$1 err start=$SECONDS
	shift
	err=$("$CGISNAP" bench "${WIKI_ORIGIN[@]}" --tree "$OUT" -d 5 --url / "$@" 2>&1 >/dev/null)
	check_eq 2 $? "exit status of --html $*"
	check_eq 1 "$(printf '%s\n' "$err" | wc -l)" "one line: $err"
	check_contains "$err" "$want" "message"
	check_lt $((SECONDS - start)) 4 "no 5 s measurement before the error"
}
expect_html_error "--html '$TESTDIR/adir' is a directory" --html "$TESTDIR/adir"
expect_html_error "cannot write --html '$TESTDIR/nodir/r.html'" --html "$TESTDIR/nodir/r.html"
check_eq "" "$(ls -A "$TESTDIR/adir")" "nothing left in the directory"

try "an interrupted run leaves the old page as it was and no temporary file"
printf 'old page\n' >"$TESTDIR/keep.html"
"$CGISNAP" bench "${WIKI_ORIGIN[@]}" --tree "$OUT" -d 30 --url / --html "$TESTDIR/keep.html" \
	>/dev/null 2>"$TESTDIR/int.err" &
pid=$!
wait_until 10 grep -q "dynamic: 30 s" "$TESTDIR/int.err"
kill -INT $pid
wait $pid
check_eq 130 $? "exit status"
check_eq "old page" "$(cat "$TESTDIR/keep.html")" "the old page kept"
check_eq "" "$(ls -A "$TESTDIR" | grep cgisnap-tmp)" "no temporary file left"

finish
