#!/bin/sh
# test_layout.sh — the book's wide tables and exercise contracts fit the page (CTest
# browser.layout, label browser; usage: sh test_layout.sh /path/to/scale).
#
# Renders the book afresh into a temporary folder and has headless Chromium measure chapter 1
# (its chip table), chapter 6 (its planner table, its contracts) and the hardware page at 390 and
# 1280 CSS pixels (tests/browser/layout_check.py): no table is cut or scrolls outside an
# overflow-x container, every table shows whole on a laptop, no identifier breaks over lines,
# every contract box wraps its lines. SCALE_LAYOUT_SHOTS=DIR also saves each table and the first
# contract box as PNGs. Exits 77 (skipped) without chromium or python3.
set -u
SCALE=${1:?usage: sh test_layout.sh /path/to/scale}
PAGES="01-rooflines.html 06-applied-training.html hardware.html"
chromium=${SCALE_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$chromium" ]; then echo "skipped: no chromium (apt-get install chromium)"; exit 77; fi
if ! command -v python3 >/dev/null 2>&1; then echo "skipped: no python3"; exit 77; fi
SRC=${SCALE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/scale-layout.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
if ! "$SCALE" book --chapters "$SRC/chapters" --out "$TMP/site" >"$TMP/out" 2>"$TMP/err"; then
  cat "$TMP/err"
  echo "FAIL: the book does not render"
  exit 1
fi
set -- --chromium "$chromium" --site "$TMP/site"
if [ -n "${SCALE_LAYOUT_SHOTS:-}" ]; then set -- "$@" --shots "$SCALE_LAYOUT_SHOTS"; fi
# shellcheck disable=SC2086 # PAGES is a list of plain file names
python3 "$SRC/tests/browser/layout_check.py" "$@" $PAGES
rc=$?
if [ "$rc" -ne 0 ]; then echo "FAIL: layout check (exit $rc)"; exit 1; fi
echo "layout check passed"
