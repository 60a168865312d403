#!/usr/bin/env python3
"""tests/lib-linkcheck.py - a browser-style link check of a served tree,
for the acceptance tests of the real applications (t07xx).

    python3 tests/lib-linkcheck.py [--skip REGEX]... BASE TREE

Every HTML page the manifest TREE/.cgisnap/manifest records as stored
(status 200, text/html) is requested from BASE (the server answering the
tree, e.g. http://127.0.0.1:8080) and parsed: a[href] without rel=nofollow,
img[src], script[src], link[href] with rel stylesheet or icon, and url()
in <style> blocks, style attributes and the stylesheets found. Each link
of BASE's origin is requested (redirects followed, at most 5); one that
ends in a status of 400 or more, or cannot be fetched, is broken. Links
whose target ("/path?query") matches a --skip REGEX are counted, not
requested: URLs the site deliberately leaves out of its snapshot.

Prints "broken PAGE -> URL: why" per broken link, then one line
"checked N pages, M links, K broken, S skipped". Exit status: 0 when
nothing is broken, 1 otherwise, 2 on a usage error.
"""

import argparse
import html.parser
import re
import sys
import urllib.error
import urllib.parse
import urllib.request

CSS_URL = re.compile(r"""url\(\s*(?:"([^"]*)"|'([^']*)'|([^)'"\s]*))\s*\)""")


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


OPENER = urllib.request.build_opener(NoRedirect)


def fetch(url):
    """(status, content type, body, location) of a GET of url."""
    try:
        with OPENER.open(url, timeout=30) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read(), None
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read(), e.headers.get("Location")


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links = []    # (url, is a stylesheet)
        self.css = []      # inline CSS text
        self.in_style = False

    def handle_starttag(self, tag, attrs):
        a = {k: (v or "") for k, v in attrs}
        rel = a.get("rel", "").lower().split()
        if a.get("style"):
            self.css.append(a["style"])
        if tag == "a" and "href" in a and "nofollow" not in rel:
            self.links.append((a["href"], False))
        elif tag in ("img", "script") and a.get("src"):
            self.links.append((a["src"], False))
        elif tag == "link" and a.get("href") and ("stylesheet" in rel or "icon" in rel):
            self.links.append((a["href"], "stylesheet" in rel))
        elif tag == "style":
            self.in_style = True

    def handle_endtag(self, tag):
        if tag == "style":
            self.in_style = False

    def handle_data(self, data):
        if self.in_style:
            self.css.append(data)


def css_urls(text):
    for m in CSS_URL.finditer(text):
        u = next((g for g in m.groups() if g is not None), "")
        if u and not u.startswith("data:"):
            yield u


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--skip", action="append", default=[])
    ap.add_argument("base")
    ap.add_argument("tree")
    args = ap.parse_args()
    skips = [re.compile(s) for s in args.skip]
    base = args.base.rstrip("/")
    origin = urllib.parse.urlsplit(base)[:2]

    pages = []
    with open(args.tree + "/.cgisnap/manifest", encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                continue
            col = line.rstrip("\n").split("\t")
            if len(col) > 3 and col[2] == "200" and col[3].startswith("text/html"):
                pages.append(col[0])

    checked = {}   # absolute URL -> why broken, or None
    nlinks = nbroken = nskipped = 0
    # (page, url, is a stylesheet) still to check
    todo = []
    for p in pages:
        url = base + p
        status, ctype, body, _ = fetch(url)
        if status != 200:
            print("broken %s -> %s: the page answered %d" % (p, p, status))
            nbroken += 1
            continue
        parser = Links()
        parser.feed(body.decode("utf-8", "replace"))
        for href, sheet in parser.links:
            todo.append((p, urllib.parse.urljoin(url, href.strip()), sheet))
        for text in parser.css:
            for u in css_urls(text):
                todo.append((p, urllib.parse.urljoin(url, u), False))

    while todo:
        page, url, sheet = todo.pop(0)
        url = urllib.parse.urldefrag(url)[0]
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or parts[:2] != origin:
            continue
        target = (parts.path or "/") + ("?" + parts.query if parts.query else "")
        if any(s.search(target) for s in skips):
            nskipped += 1
            continue
        nlinks += 1
        if url not in checked:
            why, hops, u = None, 0, url
            while True:
                try:
                    status, ctype, body, location = fetch(u)
                except Exception as e:  # refused, reset, timed out
                    why = "cannot fetch: %s" % e
                    break
                if 300 <= status < 400 and location and hops < 5:
                    u = urllib.parse.urljoin(u, location)
                    hops += 1
                    continue
                if status >= 300:
                    why = "answered %d" % status + (" (after %d redirects)" % hops if hops else "")
                elif sheet or ctype.startswith("text/css"):
                    for c in css_urls(body.decode("utf-8", "replace")):
                        todo.append((target, urllib.parse.urljoin(u, c), False))
                break
            checked[url] = why
        if checked[url]:
            nbroken += 1
            print("broken %s -> %s: %s" % (page, target, checked[url]))
    print("checked %d pages, %d links, %d broken, %d skipped" % (len(pages), nlinks, nbroken, nskipped))
    return 1 if nbroken else 0


if __name__ == "__main__":
    sys.exit(main())
