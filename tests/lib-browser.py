#!/usr/bin/env python3
"""tests/lib-browser.py - load pages in headless Chromium and report what
went wrong, for the browser tests (t0620).

    python3 tests/lib-browser.py [--screenshot FILE] [--style SEL|PROP|VALUE]...
        [--style-if-present SEL|PROP|VALUE]... [--js EXPR|VALUE]... URL...

Chromium is driven over its DevTools protocol through a pipe
(--remote-debugging-pipe: commands on its fd 3, answers and events on its
fd 4, each a JSON text ended by a NUL byte); nothing but the Python
standard library and Debian's chromium is needed. For each URL the page
is loaded, the load event awaited, and these are failures, each printed
as one line "FAIL URL: what":
  - the page or a sub-resource (stylesheet, script, image, font...) that
    failed to load or answered 400 or more (not the browser's own request
    for /favicon.ico, which a site without an icon answers 404);
  - a console error, an uncaught exception, an error in the browser log;
  - a style that did not apply: getComputedStyle(SEL)[PROP] != VALUE
    (--style-if-present: only when SEL exists on the page);
  - a script expression whose value (as a string) is not VALUE (--js).
Passing pages print "ok URL". The first page's screenshot (PNG) goes to
--screenshot FILE. Exit status: 0 when nothing failed, 1 otherwise, 2
when Chromium could not be driven.
"""

import argparse
import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse

PAGE_TIMEOUT = 30.0   # seconds for one page to reach its load event
SETTLE = 0.3          # seconds to wait after it for late errors


class Browser:
    """One headless Chromium and the session of its one page."""

    def __init__(self, profile):
        exe = shutil.which("chromium") or shutil.which("chromium-browser")
        if not exe:
            raise RuntimeError("chromium is not installed")
        cmd_r, cmd_w = os.pipe()
        out_r, out_w = os.pipe()
        # Above 10, so that moving them to 3 and 4 cannot clobber one;
        # every other descriptor of ours is close-on-exec.
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (cmd_r, out_w)]
        for fd in (cmd_r, out_w):
            os.close(fd)

        def child_fds():
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                "--hide-scrollbars", "--window-size=1280,900",
                "--user-data-dir=" + profile, "--remote-debugging-pipe", "about:blank"]
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=open(os.path.join(profile, "stderr"), "wb"),
                                     close_fds=False, preexec_fn=child_fds)
        for fd in high:
            os.close(fd)
        self.to_browser = cmd_w
        self.from_browser = out_r
        self.buffer = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def close(self):
        try:
            self.call("Browser.close", session=False, timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.to_browser)
        os.close(self.from_browser)

    def _read_message(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self.from_browser], [], [], left)
            if not ready:
                return None
            chunk = os.read(self.from_browser, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed its pipe (exit status %s)" % self.proc.poll())
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, session=True, timeout=30.0):
        """Send a command and return its result; events met meanwhile are queued."""
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply is None:
                raise RuntimeError("no answer to %s within %.0f s" % (method, timeout))
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError("%s: %s" % (method, reply["error"].get("message")))
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def event(self, deadline):
        """The next event (queued first), or None at the deadline."""
        if self.events:
            return self.events.pop(0)
        while True:
            message = self._read_message(deadline)
            if message is None:
                return None
            if "method" in message:
                return message

    def attach(self):
        targets = self.call("Target.getTargets", session=False)["targetInfos"]
        pages = [t for t in targets if t["type"] == "page"]
        if not pages:
            raise RuntimeError("chromium opened no page")
        self.session = self.call("Target.attachToTarget",
                                 {"targetId": pages[0]["targetId"], "flatten": True},
                                 session=False)["sessionId"]
        for domain in ("Page", "Network", "Runtime", "Log"):
            self.call(domain + ".enable")
        self.call("Network.setCacheDisabled", {"cacheDisabled": True})

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            return None, result["exceptionDetails"].get("text", "exception")
        return result["result"].get("value"), None


def console_text(params):
    parts = []
    for arg in params.get("args", []):
        parts.append(str(arg.get("value", arg.get("description", ""))))
    return " ".join(parts)


def browser_own(request_url, initiator):
    """True for the request the browser makes by itself for /favicon.ico:
    a site that links no icon answers it 404, as the dynamic site did."""
    return initiator == "other" and urllib.parse.urlsplit(request_url).path == "/favicon.ico"


def load(browser, url):
    """Load url; return the list of problems seen."""
    problems = []
    requests = {}
    ignored = set()
    browser.events.clear()
    nav = browser.call("Page.navigate", {"url": url})
    if nav.get("errorText"):
        return ["the page did not load: " + nav["errorText"]]
    deadline = time.monotonic() + PAGE_TIMEOUT
    loaded_at = None
    while True:
        if loaded_at is not None:
            deadline = min(deadline, loaded_at + SETTLE)
        ev = browser.event(deadline)
        if ev is None:
            if loaded_at is None:
                problems.append("no load event within %.0f s" % PAGE_TIMEOUT)
            break
        method, p = ev["method"], ev.get("params", {})
        if method == "Page.loadEventFired":
            loaded_at = time.monotonic()
        elif method == "Network.requestWillBeSent":
            requests[p["requestId"]] = (p["request"]["url"], p.get("type", "Other"))
            if browser_own(p["request"]["url"], p.get("initiator", {}).get("type")):
                ignored.add(p["request"]["url"])
        elif method == "Network.responseReceived":
            if p["response"]["url"] in ignored:
                continue
            status = p["response"]["status"]
            if status >= 400:
                problems.append("%s %s answered %d" % (p.get("type", "resource").lower(),
                                                       p["response"]["url"], status))
        elif method == "Network.loadingFailed":
            what, kind = requests.get(p["requestId"], ("?", p.get("type", "Other")))
            if what in ignored:
                continue
            problems.append("%s %s failed: %s%s" % (kind.lower(), what, p.get("errorText", ""),
                                                    " (canceled)" if p.get("canceled") else ""))
        elif method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            problems.append("console %s: %s" % (p["type"], console_text(p)))
        elif method == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            desc = d.get("exception", {}).get("description", "")
            problems.append("uncaught exception: %s %s" % (d.get("text", ""), desc))
        elif method == "Log.entryAdded" and p["entry"].get("level") == "error" \
                and p["entry"].get("url") not in ignored:
            e = p["entry"]
            problems.append("browser log error: %s%s" % (e.get("text", ""),
                                                         " (" + e["url"] + ")" if e.get("url") else ""))
    return problems


def check_styles(browser, styles, optional):
    problems = []
    for spec, only_if_present in [(s, False) for s in styles] + [(s, True) for s in optional]:
        selector, prop, want = spec.split("|", 2)
        expr = ("(function () { var e = document.querySelector(%s); "
                "return e ? getComputedStyle(e).getPropertyValue(%s) : null; })()"
                % (json.dumps(selector), json.dumps(prop)))
        value, error = browser.evaluate(expr)
        if error:
            problems.append("style %s { %s }: %s" % (selector, prop, error))
        elif value is None:
            if not only_if_present:
                problems.append("style %s { %s }: no element matches %s" % (selector, prop, selector))
        elif value != want:
            problems.append("style %s { %s: %s } did not apply: computed '%s'"
                            % (selector, prop, want, value))
    return problems


def check_scripts(browser, checks):
    problems = []
    for spec in checks:
        expr, want = spec.rsplit("|", 1)
        value, error = browser.evaluate("String(%s)" % expr)
        if error or value != want:
            problems.append("script check %s: expected '%s', got '%s'" % (expr, want, error or value))
    return problems


def main():
    ap = argparse.ArgumentParser(description="load pages in headless Chromium")
    ap.add_argument("--screenshot", help="PNG of the first page")
    ap.add_argument("--style", action="append", default=[], help="SELECTOR|PROPERTY|VALUE")
    ap.add_argument("--style-if-present", action="append", default=[], help="SELECTOR|PROPERTY|VALUE")
    ap.add_argument("--js", action="append", default=[], help="EXPRESSION|VALUE")
    ap.add_argument("urls", nargs="+")
    opts = ap.parse_args()

    profile = tempfile.mkdtemp(prefix="cgisnap-chromium-")
    failed = False
    browser = None
    try:
        browser = Browser(profile)
        browser.attach()
        for i, url in enumerate(opts.urls):
            problems = load(browser, url)
            problems += check_styles(browser, opts.style, opts.style_if_present)
            problems += check_scripts(browser, opts.js)
            if i == 0 and opts.screenshot:
                shot = browser.call("Page.captureScreenshot", {"format": "png"})
                with open(opts.screenshot, "wb") as f:
                    f.write(base64.b64decode(shot["data"]))
            for problem in problems:
                print("FAIL %s: %s" % (url, problem))
            if not problems:
                print("ok %s" % url)
            failed = failed or bool(problems)
            sys.stdout.flush()
    except (RuntimeError, OSError, KeyError, ValueError) as e:
        err = ""
        try:
            with open(os.path.join(profile, "stderr"), errors="replace") as f:
                err = f.read()[-2000:]
        except OSError:
            pass
        print("FAIL browser: %s%s" % (e, "\n" + err if err else ""))
        return 2
    finally:
        if browser:
            browser.close()
        shutil.rmtree(profile, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
