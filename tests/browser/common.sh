# common.sh — what the browser tests (test_browser.sh, test_layout.sh, test_widgets.sh,
# test_explorer.sh) do alike; sourced, not run: `. "$(dirname "$0")/common.sh"`.
#
# browser_tools            sets $chromium (SCALE_CHROMIUM, else chromium or chromium-browser)
#                          and exits 77 (CTest's SKIP_RETURN_CODE) without it or python3
# wasm_built BUILT         exits 77 unless BUILT (the WASM_BUILT argument) is ON, TRUE or 1
# site_tmp NAME            sets $SRC (SCALE_SOURCE_DIR, else this checkout) and $TMP, a
#                          temporary folder removed on exit
# render WHAT ARGS...      `$SCALE book --chapters $SRC/chapters --out $TMP/site ARGS`; on failure
#                          prints its stderr and "FAIL: WHAT does not render" and exits 1
# run_check NAME SCRIPT... python3 $SRC/tests/browser/SCRIPT ...; exits 1 with "FAIL: NAME
#                          check (exit N)" when it fails

browser_tools() {
  chromium=${SCALE_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
  if [ -z "$chromium" ]; then
    echo "skipped: no chromium (apt-get install chromium)"
    exit 77
  fi
  if ! command -v python3 >/dev/null 2>&1; then
    echo "skipped: no python3 to drive the browser"
    exit 77
  fi
}

wasm_built() {
  case $1 in
    ON | TRUE | 1) ;;
    *) echo "skipped: no WebAssembly toolchain (apt-get install clang lld-14 wasi-libc" \
            "libclang-rt-14-dev-wasm32)"
       exit 77 ;;
  esac
}

site_tmp() {
  SRC=${SCALE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
  TMP=$(mktemp -d "${TMPDIR:-/tmp}/scale-$1.XXXXXX")
  trap 'rm -rf "$TMP"' EXIT
}

render() {
  what=$1
  shift
  if ! "$SCALE" book --chapters "$SRC/chapters" --out "$TMP/site" "$@" \
      >"$TMP/out" 2>"$TMP/err"; then
    cat "$TMP/err"
    echo "FAIL: $what does not render"
    exit 1
  fi
}

run_check() {
  name=$1
  script=$2
  shift 2
  python3 "$SRC/tests/browser/$script" "$@"
  rc=$?
  if [ "$rc" -ne 0 ]; then echo "FAIL: $name check (exit $rc)"; exit 1; fi
}
