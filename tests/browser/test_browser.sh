#!/bin/sh
# test_browser.sh — the browser test of the book (CTest browser.book, label browser; usage:
# sh test_browser.sh /path/to/scale).
#
# Renders the whole book afresh (chapters/ of the source tree) into a temporary folder, then
# has headless Chromium open index.html and every chapter page from file:// (but the two prose
# chapters, 00 and 11, which have no figure or formula) and checks them from the DOM
# (tests/browser/browser_check.py): the math rendered, every figure (SVG) loaded, the style
# sheet applied, the page fits a phone, nothing came from the network
# and no console error, exception or failed load appeared. The math must be KaTeX HTML when a
# `katex` command is installed (or SCALE_KATEX names one), and the readable-TeX fallback
# otherwise.
#
# Exits 77 (CTest's SKIP_RETURN_CODE) when chromium or python3 is missing: install them with
# apt-get install chromium python3 (README's first command does). SCALE_CHROMIUM names another
# browser binary; SCALE_BROWSER_SCREENSHOTS=DIR also saves PNG screenshots of the pages there.
set -u
SCALE=${1:?usage: sh test_browser.sh /path/to/scale}

. "$(dirname "$0")/common.sh"
browser_tools
site_tmp browser

# How the renderer will show math: it uses $SCALE_KATEX ("none" or "": no KaTeX), else katex.
if [ -n "${SCALE_KATEX+set}" ]; then
  case $SCALE_KATEX in "" | none) math=tex ;; *) math=katex ;; esac
elif command -v katex >/dev/null 2>&1; then
  math=katex
else
  math=tex
fi

render "the book"
PAGES=$(cd "$TMP/site" && ls index.html [0-9][0-9]-*.html | grep -v -e '^00-' -e '^11-')
echo "book rendered into $TMP/site; math expected as $math; browser $chromium"

set -- --chromium "$chromium" --site "$TMP/site" --math "$math"
if [ -n "${SCALE_BROWSER_SCREENSHOTS:-}" ]; then
  set -- "$@" --screenshots "$SCALE_BROWSER_SCREENSHOTS"
fi
# shellcheck disable=SC2086 # PAGES is a list of plain file names
run_check browser browser_check.py "$@" $PAGES
echo "browser check passed"
