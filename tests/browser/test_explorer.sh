#!/bin/sh
# test_explorer.sh — the browser test of the layout explorer (chapters 6 and 12) and the
# serving frontier (chapters 7 and 8) (CTest browser.explorer, label browser; usage: sh
# test_explorer.sh /path/to/scale WASM_BUILT).
#
# Renders those four chapters and the site pages with the WebAssembly module the build made,
# then drives both widgets in headless Chromium (tests/browser/explorer_check.py): loads from
# file:// without console errors, an input moves its output, three settings from a URL hash
# show the numbers of `scale train`, `scale plan train` and `scale infer` --json, an update
# takes under 16 ms, and the planner in the page runs at least half as fast as the command.
#
# Exits 77 (CTest's SKIP_RETURN_CODE) only when a tool is truly absent: chromium, python3, or
# the wasm toolchain (WASM_BUILT is OFF). SCALE_CHROMIUM names another browser binary.
set -u
SCALE=${1:?usage: sh test_explorer.sh /path/to/scale WASM_BUILT}
BUILT=${2:?usage: sh test_explorer.sh /path/to/scale WASM_BUILT}

. "$(dirname "$0")/common.sh"
browser_tools
wasm_built "$BUILT"

if [ ! -f "$(dirname "$SCALE")/web/scale-wasm.js" ]; then
  echo "FAIL: the build made no $(dirname "$SCALE")/web/scale-wasm.js"
  exit 1
fi
site_tmp explorer
for chapter in 06-applied-training 07-inference 08-applied-inference 12-gpus; do
  render "$chapter" --chapter "$chapter"
done
render "the site pages" --site

run_check explorer explorer_check.py --chromium "$chromium" --site "$TMP/site" --scale "$SCALE"
echo "explorer check passed"
