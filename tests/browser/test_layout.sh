#!/bin/sh
# test_layout.sh — the book's wide tables and exercise contracts fit the page (CTest
# browser.layout, label browser; usage: sh test_layout.sh /path/to/scale).
#
# Renders the book afresh into a temporary folder and has headless Chromium measure every page
# (chapter 1's chip table, chapter 6's planner table and contracts, chapter 14's worst rows and
# the hardware page were cut once) at 390 and 1280 CSS pixels (tests/browser/layout_check.py):
# no table is cut or scrolls outside an overflow-x container, every table shows whole on a
# laptop, no identifier breaks over lines, every contract box wraps its lines, and the live
# widgets' controls show their whole values. SCALE_LAYOUT_SHOTS=DIR also saves each table and
# the first contract box as PNGs. Exits 77 (skipped) without chromium or python3.
set -u
SCALE=${1:?usage: sh test_layout.sh /path/to/scale}
. "$(dirname "$0")/common.sh"
browser_tools
site_tmp layout
render "the book"
PAGES=$(cd "$TMP/site" && ls ./*.html | sed 's|^\./||')
set -- --chromium "$chromium" --site "$TMP/site"
if [ -n "${SCALE_LAYOUT_SHOTS:-}" ]; then set -- "$@" --shots "$SCALE_LAYOUT_SHOTS"; fi
# shellcheck disable=SC2086 # PAGES is a list of plain file names
run_check layout layout_check.py "$@" $PAGES
echo "layout check passed"
