#!/usr/bin/env python3
"""browser_check.py — open pages of a rendered book in headless Chromium and check them.

usage: browser_check.py --chromium PATH --site DIR [--math katex|tex] [--screenshots DIR]
                        PAGE...

Drives Chromium through the DevTools protocol over --remote-debugging-pipe (file descriptors 3
and 4, messages separated by NUL bytes), so it needs nothing beyond Python 3 and the browser.
Each PAGE (a file name inside DIR, e.g. index.html) is opened from file:// and checked:

  - nothing went wrong while it loaded: no console error or assertion, no uncaught exception,
    no browser log entry of level error (a missing file, a blocked font), no failed request;
  - nothing was fetched from the network: every request is file: or data:;
  - the style sheet applied (the body gets style.css's max-width);
  - it fits a phone: at 390 CSS pixels wide the page does not scroll sideways;
  - every <img> loaded (complete, natural width > 0) and is an SVG;
  - on a chapter page (one with an <article> or a table of contents), at least one figure and
    at least one math element: with --math katex, KaTeX HTML (.katex) whose MathML copy is
    hidden by KaTeX's style sheet and whose fonts loaded, and no TeX fallback; with --math tex,
    the readable-TeX fallback (code.math) and no KaTeX.

With --screenshots DIR it also saves DIR/NAME.png (the whole page at 1280 px wide) and
DIR/NAME-phone.png (the first screen at 390 px). Exit status: 0 when every check passed, 1
otherwise (each failure on its own line), 2 on a usage error or when the browser cannot be
driven at all.
"""
import argparse
import base64
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

TIMEOUT_S = 60.0

# Runs in the page once it has loaded and its fonts are ready; returns plain data.
PAGE_PROBE = r"""
(async () => {
  await document.fonts.ready;
  const imgs = [...document.images].map(i => ({
    src: i.getAttribute('src') || '', ok: i.complete && i.naturalWidth > 0,
    width: i.naturalWidth}));
  const mathml = document.querySelector('.katex .katex-mathml');
  const katexFonts = [...document.fonts].filter(
    f => f.family.replace(/"/g, '').startsWith('KaTeX') && f.status === 'loaded').length;
  return {
    title: document.title,
    readyState: document.readyState,
    chapter: !!document.querySelector('nav.toc, nav.pager'),
    bodyMaxWidth: getComputedStyle(document.body).maxWidth,
    images: imgs,
    figures: document.querySelectorAll('figure img').length,
    katex: document.querySelectorAll('.katex').length,
    katexVisible: [...document.querySelectorAll('.katex-html')].filter(
      e => e.getBoundingClientRect().width > 0).length,
    katexMathmlHidden: mathml ? getComputedStyle(mathml).position === 'absolute' : null,
    katexFonts: katexFonts,
    tex: document.querySelectorAll('code.math').length,
    texVisible: [...document.querySelectorAll('code.math')].filter(
      e => e.getBoundingClientRect().width > 0).length,
    chapterLinks: [...document.querySelectorAll('ol.chapters a')].map(a => a.getAttribute('href')),
    width: document.documentElement.scrollWidth,
    height: document.documentElement.scrollHeight,
  };
})()
"""


class Browser:
    """A headless Chromium driven over --remote-debugging-pipe."""

    def __init__(self, chromium, profile):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        args = [chromium, "--headless", "--remote-debugging-pipe", "--no-sandbox",
                "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions",
                "--disable-background-networking", "--disable-sync", "--mute-audio",
                "--hide-scrollbars", "--user-data-dir=" + profile, "about:blank"]

        def child_fds():
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, preexec_fn=child_fds,
                                     pass_fds=(to_chrome_r, from_chrome_w, 3, 4))
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buf = b""
        self.next_id = 0
        self.events = []

    def _read_message(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from the browser")
            ready, _, _ = select.select([self.from_chrome], [], [], left)
            if ready:
                chunk = os.read(self.from_chrome, 1 << 20)
                if not chunk:
                    raise ConnectionError("the browser closed its pipe")
                self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=None, timeout=TIMEOUT_S):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError("%s: %s" % (method, reply["error"].get("message")))
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def wait_event(self, method, session, timeout=TIMEOUT_S):
        deadline = time.monotonic() + timeout
        for i, e in enumerate(self.events):
            if e["method"] == method and e.get("sessionId") == session:
                return self.events.pop(i)
        while True:
            msg = self._read_message(deadline)
            if msg.get("method") == method and msg.get("sessionId") == session:
                return msg
            if "method" in msg:
                self.events.append(msg)

    def close(self):
        try:
            self.send("Browser.close", timeout=10)
        except Exception:  # the browser may already be gone
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.to_chrome)
        os.close(self.from_chrome)


def problems_of(events, session):
    """Console errors, exceptions, error log entries, failed and non-local requests."""
    found = []
    for e in events:
        if e.get("sessionId") != session:
            continue
        m, p = e["method"], e.get("params", {})
        if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
            found.append("console %s: %s" % (p["type"], text))
        elif m == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            found.append("uncaught exception: %s" % d.get("exception", {}).get(
                "description", d.get("text", "")))
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            entry = p["entry"]
            found.append("log error: %s %s" % (entry.get("text", ""), entry.get("url", "")))
        elif m == "Network.loadingFailed":
            found.append("request failed: %s" % p.get("errorText", ""))
        elif m == "Network.requestWillBeSent":
            url = p.get("request", {}).get("url", "")
            if not url.startswith(("file:", "data:")):
                found.append("network request: %s" % url)
    return found


def check_page(browser, site, name, math, shots):
    """Opens one page; returns (list of failures, probe result)."""
    path = os.path.join(site, name)
    if not os.path.isfile(path):
        return ["%s: no such page" % name], {}
    url = "file://" + os.path.abspath(path)
    target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = browser.send("Target.attachToTarget",
                           {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Runtime", "Log", "Network", "Page"):
        browser.send(domain + ".enable", session=session)
    browser.send("Emulation.setDeviceMetricsOverride",
                 {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False},
                 session=session)
    browser.send("Page.navigate", {"url": url}, session=session)
    browser.wait_event("Page.loadEventFired", session)
    probe = browser.send("Runtime.evaluate", {"expression": PAGE_PROBE, "awaitPromise": True,
                                              "returnByValue": True}, session=session)
    if "exceptionDetails" in probe:
        return ["%s: the probe failed: %s" % (name, probe["exceptionDetails"].get("text"))], {}
    r = probe["result"]["value"]

    fails = []
    no = fails.append
    if r["readyState"] != "complete":
        no("not loaded (readyState %s)" % r["readyState"])
    if not r["title"]:
        no("no title")
    if r["bodyMaxWidth"] in ("none", ""):
        no("style.css did not apply (body max-width %r)" % r["bodyMaxWidth"])
    for img in r["images"]:
        if not img["ok"]:
            no("image did not load: %s" % img["src"])
        if not img["src"].endswith(".svg"):
            no("image is not an SVG: %s" % img["src"])
    if r["chapter"]:
        if r["figures"] < 1:
            no("no figure on a chapter page")
        if math == "katex":
            if r["katex"] < 1 or r["katexVisible"] < 1:
                no("no rendered KaTeX math (%d .katex, %d visible)" % (r["katex"],
                                                                      r["katexVisible"]))
            if r["tex"]:
                no("%d math spans left as TeX although KaTeX is installed" % r["tex"])
            if r["katex"] and r["katexMathmlHidden"] is not True:
                no("KaTeX's style sheet did not apply (its MathML copy is visible)")
            if r["katex"] and r["katexFonts"] < 1:
                no("no KaTeX font loaded")
        else:
            if r["tex"] < 1 or r["texVisible"] < 1:
                no("no math shown as TeX (%d code.math)" % r["tex"])
            if r["katex"]:
                no("%d KaTeX spans although KaTeX is not in use" % r["katex"])
    # Readable on a phone: at 390 CSS pixels nothing widens the page (wide tables and code
    # scroll inside themselves).
    browser.send("Emulation.setDeviceMetricsOverride",
                 {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True},
                 session=session)
    phone = browser.send("Runtime.evaluate", {
        "expression": "new Promise(r => requestAnimationFrame(() => r("
                      "document.documentElement.scrollWidth)))",
        "awaitPromise": True, "returnByValue": True}, session=session)
    r["phoneWidth"] = phone.get("result", {}).get("value", 0)
    if r["phoneWidth"] > 390:
        no("wider than a phone: %s CSS pixels at 390" % r["phoneWidth"])
    fails.extend(problems_of(browser.events, session))

    if shots:
        stem = os.path.splitext(name)[0]
        height = min(max(int(r["height"]), 900), 16000)
        browser.send("Emulation.setDeviceMetricsOverride",
                     {"width": 1280, "height": height, "deviceScaleFactor": 1,
                      "mobile": False}, session=session)
        shot = browser.send("Page.captureScreenshot", {"format": "png"}, session=session)
        with open(os.path.join(shots, stem + ".png"), "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        browser.send("Emulation.setDeviceMetricsOverride",
                     {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True},
                     session=session)
        shot = browser.send("Page.captureScreenshot", {"format": "png"}, session=session)
        with open(os.path.join(shots, stem + "-phone.png"), "wb") as f:
            f.write(base64.b64decode(shot["data"]))
    browser.events = [e for e in browser.events if e.get("sessionId") != session]
    browser.send("Target.closeTarget", {"targetId": target})
    return ["%s: %s" % (name, f) for f in fails], r


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    ap.add_argument("--site", required=True, help="folder of the rendered book")
    ap.add_argument("--math", choices=("katex", "tex"), required=True,
                    help="how the math must appear: KaTeX HTML, or the TeX fallback")
    ap.add_argument("--screenshots", help="save PNG screenshots into this folder")
    ap.add_argument("pages", nargs="+")
    a = ap.parse_args()
    if a.screenshots:
        os.makedirs(a.screenshots, exist_ok=True)
    profile = tempfile.mkdtemp(prefix="scale-chromium-")
    failures = []
    try:
        browser = Browser(a.chromium, profile)
        try:
            for page in a.pages:
                fails, r = check_page(browser, a.site, page, a.math, a.screenshots)
                failures.extend(fails)
                print("%s: %s, %d images, %d figures, %d KaTeX, %d TeX, %d KaTeX fonts%s" % (
                    page, "FAIL" if fails else "ok", len(r.get("images", [])),
                    r.get("figures", 0), r.get("katex", 0), r.get("tex", 0),
                    r.get("katexFonts", 0),
                    ", %d chapter links" % len(r["chapterLinks"]) if r.get("chapterLinks")
                    else ""))
        finally:
            browser.close()
    except (OSError, TimeoutError, ConnectionError, RuntimeError) as e:
        print("browser_check: cannot drive %s: %s" % (a.chromium, e), file=sys.stderr)
        return 2
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
