#!/usr/bin/env python3
"""browser_check.py — open pages of a rendered book in headless Chromium and check them.

usage: browser_check.py --chromium PATH --site DIR [--math katex|tex] [--screenshots DIR]
                        PAGE...

Drives Chromium through the DevTools protocol (cdp.py), so it needs nothing beyond Python 3 and
the browser. Each PAGE (a file name inside DIR, e.g. index.html) is opened from file:// and checked:

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
import os
import shutil
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import DRIVE_ERRORS, LAPTOP, PHONE, Page, drive  # noqa: E402

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


def check_page(browser, site, name, math, shots):
    """Opens one page; returns (list of failures, probe result)."""
    path = os.path.join(site, name)
    if not os.path.isfile(path):
        return ["%s: no such page" % name], {}
    page = Page(browser, "file://" + os.path.abspath(path))
    try:
        probe = page.evaluate(PAGE_PROBE)
        if "exceptionDetails" in probe:
            return ["%s: the probe failed: %s" % (name, probe["exceptionDetails"].get("text"))], {}
        r = probe["result"]["value"]
        fails = failures_of(r, math)
        # Readable on a phone: at 390 CSS pixels nothing widens the page (wide tables and code
        # scroll inside themselves).
        page.set_viewport(*PHONE)
        phone = page.evaluate("new Promise(r => requestAnimationFrame(() => r("
                              "document.documentElement.scrollWidth)))")
        r["phoneWidth"] = phone.get("result", {}).get("value", 0)
        if r["phoneWidth"] > 390:
            fails.append("wider than a phone: %s CSS pixels at 390" % r["phoneWidth"])
        fails.extend(page.problems())
        if shots:
            stem = os.path.splitext(name)[0]
            page.set_viewport(LAPTOP[0], min(max(int(r["height"]), 900), 16000))
            page.screenshot(os.path.join(shots, stem + ".png"))
            page.set_viewport(*PHONE)
            page.screenshot(os.path.join(shots, stem + "-phone.png"))
    finally:
        page.close()
    return ["%s: %s" % (name, f) for f in fails], r


def failures_of(r, math):
    """What the probe's result 'r' shows wrong with the page, one string each."""
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
    return fails


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

    def check(browser):
        failures = []
        for page in a.pages:
            fails, r = check_page(browser, a.site, page, a.math, a.screenshots)
            failures.extend(fails)
            print("%s: %s, %d images, %d figures, %d KaTeX, %d TeX, %d KaTeX fonts%s" % (
                page, "FAIL" if fails else "ok", len(r.get("images", [])),
                r.get("figures", 0), r.get("katex", 0), r.get("tex", 0),
                r.get("katexFonts", 0),
                ", %d chapter links" % len(r["chapterLinks"]) if r.get("chapterLinks")
                else ""))
        return failures

    return drive("browser_check", a.chromium, check, errors=DRIVE_ERRORS + (RuntimeError,))


if __name__ == "__main__":
    sys.exit(main())
