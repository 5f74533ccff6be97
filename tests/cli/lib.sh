# lib.sh — helpers sourced by tests/cli/test_*.sh (POSIX sh).
# Usage in a test: SCALE=$1; . "$(dirname "$0")/lib.sh"; ...; finish
passed=0
failed=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/scale-cli-XXXXXX")
trap 'rm -rf "$TMP"' EXIT
lib_t0=$(date +%s)
# fit_run NAME SCALE: a refit shared by the tests, read from its file (tests/support/fits.sh)
fit_support=$(cd "$(dirname "$0")/../support" && pwd)
. "$fit_support/fits.sh"

pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); printf 'FAIL: %s\n' "$*"; }

# stage TEXT : a progress line on stdout (ctest -V, CI logs) with the seconds since the start.
stage() { printf -- '-- %s (%d s)\n' "$*" $(($(date +%s) - lib_t0)); }

# run CMD... : runs the command, keeping stdout, stderr and status in $TMP/out, $TMP/err, $rc;
# a command that took 2 s or more prints a progress line.
run() {
  run_t0=$(date +%s)
  "$@" >"$TMP/out" 2>"$TMP/err"
  rc=$?
  run_s=$(($(date +%s) - run_t0))
  if [ "$run_s" -ge 2 ]; then
    run_what=${1##*/}
    shift
    printf -- '-- %d s: %.120s\n' "$run_s" "$run_what $*"
  fi
}

# book_site : sets $site to the real book's site, rendered once per test run by the CTest fixture
# book.site (tests/support/book_site.sh, which CTest names in SCALE_BOOK_SITE), with $TMP/out,
# $TMP/err and $rc as `run` leaves them; a test run alone renders its own into $TMP/site.
# The shared site is read, never written.
book_site() {
  if [ -n "${SCALE_BOOK_SITE:-}" ] && [ -f "$SCALE_BOOK_SITE.out" ]; then
    site=$SCALE_BOOK_SITE
    cp "$site.out" "$TMP/out"
    cp "$site.err" "$TMP/err"
    rc=0
  else
    site=$TMP/site
    run "$SCALE" book --out "$site" --strict
  fi
}

# expect_rc N DESC : the last run exited with N.
expect_rc() {
  if [ "$rc" -eq "$1" ]; then pass; else fail "$2: exit $rc, expected $1 (stderr: $(head -c 300 "$TMP/err"))"; fi
}

# expect_out PATTERN DESC : stdout of the last run matches the grep -E pattern.
expect_out() {
  if grep -Eq -- "$1" "$TMP/out"; then pass; else fail "$2: stdout lacks /$1/"; fi
}

# expect_err PATTERN DESC : stderr matches.
expect_err() {
  if grep -Eq -- "$1" "$TMP/err"; then pass; else fail "$2: stderr lacks /$1/ (got: $(head -c 300 "$TMP/err"))"; fi
}

# expect_usage_error DESC CMD... : exit 2, exactly one line on stderr starting "scale: ", no stdout.
expect_usage_error() {
  desc=$1
  shift
  run "$@"
  lines=$(wc -l <"$TMP/err")
  if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && grep -q '^scale: ' "$TMP/err" && [ ! -s "$TMP/out" ]; then
    pass
  else
    fail "$desc: exit $rc, $lines stderr lines: $(head -c 300 "$TMP/err")"
  fi
}

# expect_no_nan DESC : stdout has no nan/inf printed as an answer.
expect_no_nan() {
  if grep -Eiq '(^|[^a-z])(nan|-?inf)([^a-z]|$)' "$TMP/out"; then fail "$1: NaN/inf in output"; else pass; fi
}

# expect_json DESC : stdout parses as JSON (python3 when present, else a brace balance check).
expect_json() {
  if command -v python3 >/dev/null 2>&1; then
    if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/out" 2>/dev/null; then pass; else fail "$1: invalid JSON"; fi
  else
    o=$(tr -cd '{' <"$TMP/out" | wc -c); c=$(tr -cd '}' <"$TMP/out" | wc -c)
    if [ "$o" -eq "$c" ] && [ "$o" -gt 0 ]; then pass; else fail "$1: unbalanced JSON"; fi
  fi
}

# readme_examples : the `build/scale ...` examples of README.md, one a line, the arguments after
# build/scale single-spaced (backslash-continued lines joined; `scale grade` left out: the
# grading tests cover it).
readme_examples() {
  awk '/\\$/ { sub(/\\$/, ""); printf "%s", $0; next } { print }' "${SCALE_SOURCE_DIR:?}/README.md" |
    sed -n 's/^\(build\/scale [^#]*\).*$/\1/p' | grep -v ' grade' |
    while IFS= read -r readme_line; do
      # shellcheck disable=SC2086 # the example's words
      set -- ${readme_line#build/scale }
      printf '%s\n' "$*"
    done
}

finish() {
  printf '%d passed, %d failed in %d s\n' "$passed" "$failed" $(($(date +%s) - lib_t0))
  [ "$failed" -eq 0 ]
}
