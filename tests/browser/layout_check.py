#!/usr/bin/env python3
"""layout_check.py — the book's tables and exercise contracts fit their page (issue 17).

usage: layout_check.py --chromium PATH --site DIR [--shots DIR] PAGE...

Opens each PAGE of a rendered book in headless Chromium (cdp.py's DevTools driver), at
1280 CSS pixels (a laptop) and at 390 (a phone), and checks from the DOM:

  - the page never scrolls sideways;
  - a table wider than its box scrolls only inside an overflow-x container (the table itself or
    a div.wide around it), and no table sticks out of the page's main column;
  - at 1280 px every table of the page shows whole, without scrolling (the chapter 1 chip table,
    the chapter 6 planner table and the hardware table were cut on the right);
  - a code identifier (th/td code) is never broken over lines (ids were split mid-word);
  - every exercise contract box wraps: no line of its listing is cut (the <pre> does not
    scroll) and no element of the box is wider than the box (KaTeX's MathML copy for screen
    readers, clipped to one pixel, aside).
  - once the page's widgets are live, every number box of their controls shows its whole
    value (the explorer's 15000000000000 training tokens were cut to 1500000000) and sits on
    the line of its slider instead of wrapping below it, and no output breaks inside a word
    (a phone showed '228 FLOP/by' and 'te' on two lines).

Console errors and failed loads are browser_check.py's business (browser.book), not checked
here. With --shots DIR it saves, at 1280 px, DIR/STEM-tableN.png and DIR/STEM-contract.png: each
table and the first contract box, clipped to the element. Exit status: 0 when every check
passed, 1 otherwise (one line per failure), 2 when the browser cannot be driven.
"""
import argparse
import os
import shutil
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import DRIVE_ERRORS, Page, drive  # noqa: E402  (the DevTools driver)

# Measures every table and contract box of the page; returns plain data.
PROBE = r"""
(() => {
  const main = document.querySelector('main');
  const mainRight = main ? main.getBoundingClientRect().right : innerWidth;
  const scrolls = e => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX);
  const box = e => { const r = e.getBoundingClientRect();
                     return {x: r.left + scrollX, y: r.top + scrollY, w: r.width, h: r.height}; };
  const tables = [...document.querySelectorAll('main table')].map((t, i) => {
    let c = t;  // the element whose box holds the table: itself if it scrolls, else a parent
    while (c && c !== main && !scrolls(c)) c = c.parentElement;
    const holder = c && c !== main ? c : null;
    return {i, scrollWidth: t.scrollWidth, clientWidth: t.clientWidth,
            holder: holder ? holder.tagName.toLowerCase() + (holder.className ? '.' +
                    holder.className : '') : null,
            holderScrolls: holder ? holder.scrollWidth > holder.clientWidth + 1 : false,
            right: t.getBoundingClientRect().right, mainRight, box: box(t),
            brokenIds: [...t.querySelectorAll('th code, td code')]
                        .filter(c => c.getClientRects().length > 1).map(c => c.textContent)};
  });
  const contracts = [...document.querySelectorAll('section.exercise')].map(s => {
    const sr = s.getBoundingClientRect();
    const pre = s.querySelector('pre');
    // KaTeX's MathML copy is for screen readers, clipped to a pixel: its boxes are not seen
    const wider = [...s.querySelectorAll('*')].filter(
      e => !e.closest('.katex-mathml') && e.getBoundingClientRect().right > sr.right + 1)
      .map(e => e.tagName.toLowerCase());
    return {id: s.id, preCut: pre ? pre.scrollWidth > pre.clientWidth + 1 : false,
            wider: [...new Set(wider)], box: box(s)};
  });
  // The words of an element's text that break over two lines ('FLOP/by' + 'te').
  const brokenWords = e => {
    const out = [], walk = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
    for (let t = walk.nextNode(); t; t = walk.nextNode())
      for (const m of t.data.matchAll(/\S+/g)) {
        const r = document.createRange();
        r.setStart(t, m.index), r.setEnd(t, m.index + m[0].length);
        if (new Set([...r.getClientRects()].map(b => Math.round(b.top))).size > 1)
          out.push(m[0]);
      }
    return out;
  };
  const outputs = [...document.querySelectorAll('.widget.live .widget-outputs dd')]
    .map(brokenWords).flat();
  // A live widget's controls: a number box shows its whole value, beside its slider.
  const controls = [...document.querySelectorAll('.widget.live .widget-control')].map(c => {
    const n = c.querySelector('input[type=number]'), r = c.querySelector('input[type=range]');
    const label = c.querySelector('.widget-label');
    const top = e => e.getBoundingClientRect().top;
    return {label: label ? label.textContent : '?', value: n ? n.value : '',
            cut: n ? n.scrollWidth > n.clientWidth + 1 : false,
            split: n && r ? Math.abs(top(n) - top(r)) > n.getBoundingClientRect().height : false};
  });
  return {pageWidth: document.documentElement.scrollWidth, viewport: innerWidth,
          tables, contracts, controls, outputs};
})()
"""


# Resolves once every widget of the page is live (its module loaded), at once when the page has
# no glue (a site rendered without the module), or after 10 s: a widget that never goes live is
# widget_check.py's business, and shows no controls to measure here.
WAIT_LIVE = r"""
new Promise(done => {
  const t0 = performance.now();
  (function poll() {
    const all = document.querySelectorAll('.widget').length;
    if (document.querySelectorAll('.widget.live').length === all ||
        typeof Scale === 'undefined' || performance.now() - t0 > 10000) done(all);
    else setTimeout(poll, 50);
  })();
})
"""


def measure(page, width, mobile):
    page.set_viewport(width, 900, 1, mobile)
    r = page.evaluate("new Promise(r => requestAnimationFrame(() => r(%s)))" % PROBE)
    if "exceptionDetails" in r:
        raise RuntimeError("the probe failed: %s" % r["exceptionDetails"].get("text"))
    return r["result"]["value"]


def failures_at(width, m):
    fails = []
    if m["pageWidth"] > m["viewport"]:
        fails.append("%d px: the page scrolls sideways (%d px wide)" % (width, m["pageWidth"]))
    for t in m["tables"]:
        name = "%d px: table %d" % (width, t["i"] + 1)
        if t["scrollWidth"] > t["clientWidth"] + 1 and not t["holder"]:
            fails.append("%s is cut: %d px of content in %d px, and no overflow-x container" %
                         (name, t["scrollWidth"], t["clientWidth"]))
        if t["right"] > t["mainRight"] + 1:
            fails.append("%s sticks out of the main column (%d > %d px)" %
                         (name, t["right"], t["mainRight"]))
        if width >= 1280 and (t["scrollWidth"] > t["clientWidth"] + 1 or t["holderScrolls"]):
            fails.append("%s does not show whole on a laptop (%d px of content in %d px)" %
                         (name, t["scrollWidth"], t["clientWidth"]))
        if t["brokenIds"]:
            fails.append("%s breaks identifiers over lines: %s" %
                         (name, ", ".join(t["brokenIds"][:4])))
    if m["outputs"]:
        fails.append("%d px: widget outputs break words over lines: %s" % (
            width, ", ".join(m["outputs"][:4])))
    for c in m["controls"]:
        if c["cut"]:
            fails.append("%d px: widget control '%s' cuts its value %s" % (width, c["label"],
                                                                         c["value"]))
        if c["split"]:
            fails.append("%d px: widget control '%s': its number box wraps below its slider" %
                         (width, c["label"]))
    for c in m["contracts"]:
        if c["preCut"]:
            fails.append("%d px: contract %s: lines cut (its listing scrolls)" % (width, c["id"]))
        if c["wider"]:
            fails.append("%d px: contract %s: %s wider than the box" %
                         (width, c["id"], ", ".join(c["wider"])))
    return fails


def check_page(browser, site, name, shots):
    path = os.path.join(site, name)
    if not os.path.isfile(path):
        return ["%s: no such page" % name], ""
    page = Page(browser, "file://" + os.path.abspath(path), viewport=None)
    try:
        fails, summary = [], []
        page.evaluate(WAIT_LIVE)
        for width, mobile in ((390, True), (1280, False)):
            m = measure(page, width, mobile)
            fails.extend(failures_at(width, m))
            summary.append("%d px: %d tables, %d contracts, %d widget controls" % (
                width, len(m["tables"]), len(m["contracts"]), len(m["controls"])))
        if shots:  # the 1280 px measurement is the last one
            stem = os.path.splitext(name)[0]
            for t in m["tables"]:
                page.screenshot(os.path.join(shots, "%s-table%d.png" % (stem, t["i"] + 1)),
                                t["box"])
            if m["contracts"]:
                page.screenshot(os.path.join(shots, stem + "-contract.png"),
                                m["contracts"][0]["box"])
    finally:
        page.close()
    return ["%s: %s" % (name, f) for f in fails], "; ".join(summary)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    ap.add_argument("--site", required=True, help="folder of the rendered book")
    ap.add_argument("--shots", help="save clipped PNGs of tables and contract boxes here")
    ap.add_argument("pages", nargs="+")
    a = ap.parse_args()
    if a.shots:
        os.makedirs(a.shots, exist_ok=True)

    def check(browser):
        failures = []
        for page in a.pages:
            fails, summary = check_page(browser, a.site, page, a.shots)
            failures.extend(fails)
            print("%s: %s (%s)" % (page, "FAIL" if fails else "ok", summary))
        return failures

    return drive("layout_check", a.chromium, check, profile_prefix="scale-layout-",
                 errors=DRIVE_ERRORS + (RuntimeError,))


if __name__ == "__main__":
    sys.exit(main())
