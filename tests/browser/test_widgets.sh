#!/bin/sh
# test_widgets.sh — the browser test of the live widgets (CTest browser.widgets, label browser;
# usage: sh test_widgets.sh /path/to/scale WASM_BUILT).
#
# Renders every chapter that holds a ```{widget}``` block, and the site pages, with the
# WebAssembly module the build made (BUILD/web/scale-wasm.js, found beside the scale command),
# then drives each widget in headless Chromium (tests/browser/widget_check.py): it loads from
# file:// without console errors, an input moves its output, three or more settings restored
# from a URL hash show the numbers `scale ... --json` prints, an update takes under 16 ms, and
# with script off the static figure is what shows. Also checks that the module, as shipped
# (base64 in scale-wasm.js), stays under 500 KB.
#
# Exits 77 (CTest's SKIP_RETURN_CODE) only when a tool is truly absent: chromium, python3, or
# the wasm toolchain (WASM_BUILT is OFF: apt-get install clang lld-14 wasi-libc
# libclang-rt-14-dev-wasm32). SCALE_CHROMIUM names another browser binary.
set -u
SCALE=${1:?usage: sh test_widgets.sh /path/to/scale WASM_BUILT}
BUILT=${2:?usage: sh test_widgets.sh /path/to/scale WASM_BUILT}
MODULE_LIMIT=512000

. "$(dirname "$0")/common.sh"
browser_tools
wasm_built "$BUILT"

module="$(dirname "$SCALE")/web/scale-wasm.js"
if [ ! -f "$module" ]; then
  echo "FAIL: the build made no $module"
  exit 1
fi
size=$(wc -c <"$module")
wasm_size=$(wc -c <"$(dirname "$SCALE")/web/scale.wasm")
echo "module: scale.wasm $wasm_size bytes, scale-wasm.js (base64) $size bytes (limit $MODULE_LIMIT)"
if [ "$size" -gt "$MODULE_LIMIT" ]; then
  echo "FAIL: the module as shipped is over 500 KB"
  exit 1
fi

site_tmp widgets
# The pages with widgets, then index, hardware, glossary and the style sheet.
for md in "$SRC"/chapters/*/*.md; do
  grep -q '^```{widget}' "$md" || continue
  chapter=$(basename "$(dirname "$md")")
  render "$chapter" --chapter "$chapter"
done
render "the site pages" --site

run_check widget widget_check.py --chromium "$chromium" --site "$TMP/site" --scale "$SCALE"
echo "widget check passed (file://)"

# Over HTTP: `scale book --serve PORT` (the site pages re-rendered, the chapters kept), then the
# first widget again from http://127.0.0.1:PORT/.
. "$SRC/tests/support/serve.sh"
server=
trap 'if [ -n "$server" ]; then kill "$server" 2>/dev/null; fi; rm -rf "$TMP"' EXIT
if ! serve_book "$SCALE" "$SRC/chapters" "$TMP/site" "$TMP/serve"; then
  cat "$TMP/serve.err"
  echo "FAIL: scale book --serve $port did not start"
  exit 1
fi
run_check "widget over HTTP" widget_check.py --chromium "$chromium" --site "$TMP/site" \
  --scale "$SCALE" --only roofline --url "http://127.0.0.1:$port/"
kill "$server"
echo "widget check passed (http://127.0.0.1:$port/)"
