#!/usr/bin/env python3
"""tests/lib-linkcheck.py - a browser-style link check of a served tree,
for the real-application tests (t07xx).

    python3 tests/lib-linkcheck.py BASE SITE_URL PAGE...

BASE is the server to ask (http://127.0.0.1:PORT), SITE_URL the site's own
URL (links to it are links to BASE), each PAGE a URL path (/doku.php?id=x)
of an HTML page to check. Every page is requested from BASE, parsed, and
what a browser would follow or load is requested in turn: a[href] without
rel=nofollow, img[src], script[src], link[href] with rel stylesheet or
icon (shortcut icon, apple-touch-icon), and url(...) in the stylesheets
(and their @imports) those load. Links off the site and fragments are not
followed; a redirect is followed (on the site only). Prints one line
"BROKEN STATUS URL (from PAGE)" per link that does not end in a 2xx, then
"checked N URLs"; exit status 0 when nothing is broken, 1 otherwise.
"""

import html.parser
import re
import sys
import urllib.error
import urllib.parse
import urllib.request

ICON_RELS = {"stylesheet", "icon", "apple-touch-icon"}
CSS_URL = re.compile(r"""url\(\s*(['"]?)([^'")]+)\1\s*\)|@import\s+(['"])([^'"]+)\3""")


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links = []   # (url, is_css)

    def handle_starttag(self, tag, attrs):
        a = {k: (v or "") for k, v in attrs}
        rel = set(a.get("rel", "").lower().split())
        if tag == "a" and "href" in a and "nofollow" not in rel:
            self.links.append((a["href"], False))
        elif tag in ("img", "script") and a.get("src"):
            self.links.append((a["src"], False))
        elif tag == "link" and a.get("href") and rel & ICON_RELS:
            self.links.append((a["href"], "stylesheet" in rel))


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


OPENER = urllib.request.build_opener(NoRedirect)


def fetch(url):
    """(status, body, location) of a GET, redirects not followed."""
    try:
        with OPENER.open(url, timeout=30) as r:
            return r.status, r.read(), None
    except urllib.error.HTTPError as e:
        return e.code, e.read(), e.headers.get("Location")
    except OSError as e:
        return "error:" + type(e).__name__, b"", None


def main():
    base, site = sys.argv[1].rstrip("/"), sys.argv[2].rstrip("/")
    pages = sys.argv[3:]
    site_parts = urllib.parse.urlsplit(site)

    def on_site(absurl):
        """The BASE URL for absurl, or None when it is not the site's."""
        p = urllib.parse.urlsplit(absurl)
        if p.scheme not in ("http", "https"):
            return None
        if (p.scheme, p.netloc) != (site_parts.scheme, site_parts.netloc) and \
                not absurl.startswith(base + "/"):
            return None
        path = p.path or "/"
        return base + path + ("?" + p.query if p.query else "")

    seen = {}
    broken = []
    # (url to request, is a page to parse, is css, the page it came from)
    todo = [(base + p, True, False, "seed") for p in pages]
    while todo:
        url, is_page, is_css, origin = todo.pop()
        key = (url, is_page, is_css)
        if key in seen:
            continue
        status, body, location = fetch(url)
        hops = 0
        while isinstance(status, int) and 300 <= status < 400 and location and hops < 5:
            nxt = on_site(urllib.parse.urljoin(url, location))
            if nxt is None:
                break
            status, body, location = fetch(nxt)
            hops += 1
        seen[key] = status
        if not (isinstance(status, int) and 200 <= status < 300):
            if not (isinstance(status, int) and 300 <= status < 400):
                broken.append("BROKEN %s %s (from %s)" % (status, url[len(base):], origin))
            continue
        text = body.decode("utf-8", "replace")
        me = site + url[len(base):]
        if is_page:
            parser = Links()
            parser.feed(text)
            for link, css in parser.links:
                absurl = urllib.parse.urljoin(me, link.split("#")[0])
                target = on_site(absurl)
                if target:
                    todo.append((target, False, css, url[len(base):]))
        if is_css:
            for m in CSS_URL.finditer(text):
                link = m.group(2) or m.group(4)
                if link.startswith("data:"):
                    continue
                target = on_site(urllib.parse.urljoin(me, link))
                if target:
                    todo.append((target, False, bool(m.group(4)), url[len(base):]))
    for line in sorted(broken):
        print(line)
    print("checked %d URLs" % len(seen))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
