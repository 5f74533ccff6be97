"""cdp.py — the Chrome DevTools Protocol plumbing of the browser checks (browser_check.py,
layout_check.py, widget_check.py, explorer_check.py), kept in one place.

Headless Chromium is driven over --remote-debugging-pipe (file descriptors 3 and 4, messages
separated by NUL bytes), so the checks need nothing beyond Python 3 and the browser:

  - Browser: the process, send() a command and wait for its answer, wait_event();
  - Page: one page in its own target (Runtime, Log, Network and Page enabled), with eval(),
    the viewport, screenshots and the problems its events show (problems_of);
  - drive(): a check's main loop: a fresh profile, the browser, its failures printed one per
    line, and the exit status (0 all passed, 1 a failure, 2 the browser cannot be driven).
"""
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
LAPTOP = (1280, 900, 1, False)  # viewports: width, height (CSS px), device scale, mobile
PHONE = (390, 844, 2, True)
# What keeps a check from driving the browser at all (drive() then exits 2).
DRIVE_ERRORS = (OSError, TimeoutError, ConnectionError)


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


class Page:
    """One page open in its own target, with helpers to evaluate script in it.

    'viewport' (LAPTOP, PHONE or None: the browser's own) is set before the page loads; with
    script=False the page runs no script; requests to 'allow' (a URL prefix, e.g. the
    `scale book --serve` address) are not problems."""

    def __init__(self, browser, url, script=True, viewport=LAPTOP, allow=None):
        self.b = browser
        self.allow = allow
        self.target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = browser.send("Target.attachToTarget",
                                    {"targetId": self.target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Network", "Page"):
            browser.send(domain + ".enable", session=self.session)
        if viewport:
            self.set_viewport(*viewport)
        if not script:
            browser.send("Emulation.setScriptExecutionDisabled", {"value": True},
                         session=self.session)
        self.navigate(url)

    def navigate(self, url):
        """Opens 'url' and waits for its load event."""
        self.b.send("Page.navigate", {"url": url}, session=self.session)
        self.b.wait_event("Page.loadEventFired", self.session)

    def set_viewport(self, width, height, scale=1, mobile=False):
        self.b.send("Emulation.setDeviceMetricsOverride",
                    {"width": width, "height": height, "deviceScaleFactor": scale,
                     "mobile": mobile}, session=self.session)

    def evaluate(self, expr):
        """Runtime.evaluate's answer as it comes (an exception is in its exceptionDetails)."""
        return self.b.send("Runtime.evaluate", {"expression": expr, "awaitPromise": True,
                                                "returnByValue": True}, session=self.session)

    def eval(self, expr):
        """The value of 'expr' (awaited); RuntimeError when the script throws."""
        r = self.evaluate(expr)
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            raise RuntimeError("script failed: %s" % d.get("exception", {}).get(
                "description", d.get("text")))
        return r["result"].get("value")

    def screenshot(self, path, clip=None):
        """Saves the viewport as PNG 'path', or only 'clip' ({x, y, w, h} in page pixels)."""
        params = {"format": "png"}
        if clip:
            params["captureBeyondViewport"] = True
            params["clip"] = {"x": clip["x"], "y": clip["y"], "width": max(clip["w"], 1),
                              "height": max(clip["h"], 1), "scale": 1}
        shot = self.b.send("Page.captureScreenshot", params, session=self.session)
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))

    def problems(self):
        allowed = "network request: " + (self.allow or "file:")
        return [p for p in problems_of(self.b.events, self.session) if not p.startswith(allowed)]

    def close(self):
        self.b.events = [e for e in self.b.events if e.get("sessionId") != self.session]
        self.b.send("Target.closeTarget", {"targetId": self.target})


def drive(tool, chromium, check, profile_prefix="scale-chromium-", errors=DRIVE_ERRORS):
    """Runs check(browser) -> list of failures in a fresh headless Chromium; prints each
    failure as "FAIL: ..." and returns the exit status: 0, 1 on a failure, 2 (with one line
    on stderr) when one of 'errors' keeps 'tool' from driving the browser."""
    profile = tempfile.mkdtemp(prefix=profile_prefix)
    try:
        browser = Browser(chromium, profile)
        try:
            failures = check(browser)
        finally:
            browser.close()
    except errors as e:
        print("%s: cannot drive %s: %s" % (tool, chromium, e), file=sys.stderr)
        return 2
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0
