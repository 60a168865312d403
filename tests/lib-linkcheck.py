#!/usr/bin/env python3
"""tests/lib-linkcheck.py - a browser-style link check of a served tree,
for the acceptance tests of the real applications (t07xx).

    python3 tests/lib-linkcheck.py [--site URL] [--skip REGEX]... BASE TREE
    python3 tests/lib-linkcheck.py [--site URL] [--skip REGEX]... BASE --page PATH...

BASE is the server answering the tree (http://127.0.0.1:PORT). The pages
checked are every HTML page TREE's manifest (cgisnap ls TREE) records as stored
(status 200, text/html), or the URL paths given with --page instead
(/doku.php?id=x). Each is requested from BASE and parsed for what a
browser follows or loads: a[href] without rel=nofollow, img[src],
script[src], link[href] with rel stylesheet or icon (shortcut icon,
apple-touch-icon), and url() in <style> blocks, style attributes and the
stylesheets found (with their @imports, url() or string).

A link is the site's when it has BASE's origin or, with --site, the
site's own URL's (http://localhost:8080/): that is a link to the same
path on BASE. Links off the site and fragments are not followed. Each
link of the site is requested; a redirect is followed on the site, at
most 5 hops (one leading off the site ends the check: not broken). A
link that ends in anything but a 2xx, or cannot be fetched, is broken.
Links whose target ("/path?query") matches a --skip REGEX are counted,
not requested: URLs the site deliberately leaves out of its snapshot.

Prints "broken PAGE -> URL: why" per broken link (and per page that does
not answer), then one line
"checked N pages, M links, U URLs, K broken, S skipped" (M links found,
U distinct URLs requested for them). Exit status: 0 when nothing is
broken, 1 otherwise, 2 on a usage error.
"""

import argparse
import html.parser
import http.client
import os
import re
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request

MAX_REDIRECTS = 5
LINK_RELS = {"stylesheet", "icon", "apple-touch-icon"}
# url("x"), url('x'), url(x), @import "x", @import 'x'
CSS_URL = re.compile(r"""url\(\s*(?:"([^"]*)"|'([^']*)'|([^)'"\s]*))\s*\)"""
                     r"""|@import\s+(?:"([^"]*)"|'([^']*)')""")


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


OPENER = urllib.request.build_opener(NoRedirect)


def fetch(url):
    """(status, content type, body, location) of one GET of url, redirects
    not followed; status is a string saying why when nothing answered."""
    try:
        with OPENER.open(url, timeout=30) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read(), None
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read(), e.headers.get("Location")
    except (OSError, http.client.HTTPException, ValueError) as e:
        return "cannot fetch: %s" % (getattr(e, "reason", None) or e), "", b"", None


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links = []    # (url, is a stylesheet)
        self.css = []      # inline CSS text
        self.in_style = False

    def handle_starttag(self, tag, attrs):
        a = {k: (v or "") for k, v in attrs}
        rel = set(a.get("rel", "").lower().split())
        if a.get("style"):
            self.css.append(a["style"])
        if tag == "a" and "href" in a and "nofollow" not in rel:
            self.links.append((a["href"], False))
        elif tag in ("img", "script") and a.get("src"):
            self.links.append((a["src"], False))
        elif tag == "link" and a.get("href") and rel & LINK_RELS:
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
    """(url, is an @import) for each URL the CSS text loads."""
    for m in CSS_URL.finditer(text):
        g = m.groups()
        u = next((x for x in g if x is not None), "").strip()
        if u and not u.startswith("data:"):
            yield u, g[3] is not None or g[4] is not None


class Site:
    """Which URLs are the site's, and where BASE answers them."""

    def __init__(self, base, site):
        self.base = base.rstrip("/")
        self.origins = {urllib.parse.urlsplit(self.base)[:2]}
        if site:
            self.origins.add(urllib.parse.urlsplit(site)[:2])

    def target(self, url):
        """The "/path?query" of url, or None when it is off the site."""
        p = urllib.parse.urlsplit(url)
        if p.scheme not in ("http", "https") or p[:2] not in self.origins:
            return None
        return (p.path or "/") + ("?" + p.query if p.query else "")

    def resolve(self, target):
        """(why broken or None, content type, body, the target that
        answered) of target, redirects on the site followed."""
        hops = 0
        while True:
            status, ctype, body, location = fetch(self.base + target)
            if isinstance(status, str):
                return status, "", b"", target
            if 300 <= status < 400 and location:
                nxt = self.target(urllib.parse.urljoin(self.base + target, location))
                if nxt is None:
                    return None, "", b"", target    # off the site: not ours to check
                if hops == MAX_REDIRECTS:
                    return "more than %d redirects" % MAX_REDIRECTS, "", b"", target
                target, hops = nxt, hops + 1
                continue
            if not 200 <= status < 300:
                return "answered %d" % status + (" (after %d redirects)" % hops if hops else ""), "", b"", target
            return None, ctype, body, target


def manifest_pages(tree):
    """The targets TREE's manifest records as stored HTML pages."""
    pages = []
    cgisnap = os.environ.get("CGISNAP") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cgisnap")
    out = subprocess.run([cgisnap, "ls", tree], check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.decode("utf-8")
    if True:
        for line in out.splitlines(True):
            if line.startswith("#"):
                continue
            col = line.rstrip("\n").split("\t")
            if len(col) > 3 and col[2] == "200" and col[3].startswith("text/html"):
                pages.append(col[0])
    return pages


def main():
    ap = argparse.ArgumentParser(description="A browser-style link check of a served tree.")
    ap.add_argument("--site", metavar="URL",
                    help="the site's own URL: links to it are checked against BASE")
    ap.add_argument("--skip", metavar="REGEX", action="append", default=[],
                    help="count, do not request, links whose /path?query matches")
    ap.add_argument("--page", metavar="PATH", action="append", default=[],
                    help="check this page (a URL path) instead of the manifest's")
    ap.add_argument("base", metavar="BASE", help="the server answering the tree")
    ap.add_argument("tree", metavar="TREE", nargs="?", help="the tree whose manifest lists the pages")
    args = ap.parse_args()
    if bool(args.tree) == bool(args.page):
        ap.error("give either TREE or --page PATH")
    try:
        skips = [re.compile(s) for s in args.skip]
    except re.error as e:
        ap.error("bad --skip: %s" % e)
    site = Site(args.base, args.site)
    try:
        pages = args.page or manifest_pages(args.tree)
    except (OSError, subprocess.CalledProcessError) as e:
        ap.error("cannot read the manifest: %s" % e)

    checked = {}   # target -> why broken, or None
    nlinks = nbroken = nskipped = 0
    # (page it is on, absolute URL, load it as a stylesheet) still to check
    todo = []
    for p in pages:
        why, _, body, final = site.resolve(p)
        url = site.base + final
        if why:
            print("broken %s -> %s: the page %s" % (p, p, why))
            nbroken += 1
            continue
        parser = Links()
        parser.feed(body.decode("utf-8", "replace"))
        for href, sheet in parser.links:
            todo.append((p, urllib.parse.urljoin(url, href.strip()), sheet))
        for text in parser.css:
            for u, sheet in css_urls(text):
                todo.append((p, urllib.parse.urljoin(url, u), sheet))

    while todo:
        page, url, sheet = todo.pop(0)
        target = site.target(urllib.parse.urldefrag(url)[0])
        if target is None:
            continue
        if any(s.search(target) for s in skips):
            nskipped += 1
            continue
        nlinks += 1
        if target not in checked:
            why, ctype, body, final = site.resolve(target)
            checked[target] = why
            if not why and (sheet or ctype.startswith("text/css")):
                for u, imp in css_urls(body.decode("utf-8", "replace")):
                    todo.append((target, urllib.parse.urljoin(site.base + final, u), imp))
        if checked[target]:
            nbroken += 1
            print("broken %s -> %s: %s" % (page, target, checked[target]))
    print("checked %d pages, %d links, %d URLs, %d broken, %d skipped"
          % (len(pages), nlinks, len(checked), nbroken, nskipped))
    return 1 if nbroken else 0


if __name__ == "__main__":
    sys.exit(main())
