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

chromium=${SCALE_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$chromium" ]; then
  echo "skipped: no chromium (apt-get install chromium)"
  exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "skipped: no python3 to drive the browser"
  exit 77
fi
case $BUILT in
  ON | TRUE | 1) ;;
  *) echo "skipped: no WebAssembly toolchain (apt-get install clang lld-14 wasi-libc" \
          "libclang-rt-14-dev-wasm32)"
     exit 77 ;;
esac

SRC=${SCALE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
if [ ! -f "$(dirname "$SCALE")/web/scale-wasm.js" ]; then
  echo "FAIL: the build made no $(dirname "$SCALE")/web/scale-wasm.js"
  exit 1
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/scale-explorer.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
for chapter in 06-applied-training 07-inference 08-applied-inference 12-gpus; do
  if ! "$SCALE" book --chapters "$SRC/chapters" --chapter "$chapter" --out "$TMP/site" \
      >"$TMP/out" 2>"$TMP/err"; then
    cat "$TMP/err"
    echo "FAIL: $chapter does not render"
    exit 1
  fi
done
if ! "$SCALE" book --chapters "$SRC/chapters" --site --out "$TMP/site" >"$TMP/out" 2>"$TMP/err"; then
  cat "$TMP/err"
  echo "FAIL: the site pages do not render"
  exit 1
fi

python3 "$SRC/tests/browser/explorer_check.py" --chromium "$chromium" --site "$TMP/site" \
  --scale "$SCALE"
rc=$?
if [ "$rc" -ne 0 ]; then echo "FAIL: explorer check (exit $rc)"; exit 1; fi
echo "explorer check passed"
