#!/bin/sh
# test_grade.sh /path/to/scale — end-to-end checks of `scale grade` options and exit statuses.
# (The full honesty checks — solutions full marks, stubs clean FAILs, the CRASH/TIMEOUT/BUILD
# fixture — are tests/grading/check_grade.sh, CTest label grading.)
# Prints "N passed, F failed"; exit 1 if anything failed.
scale=${1:?usage: sh test_grade.sh /path/to/scale}
here=$(cd "$(dirname "$0")" && pwd)
root=${SCALE_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scale-test-grade.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
expect() { # expect STATUS DESCRIPTION -- command...
  want=$1
  what=$2
  shift 3
  "$@" > "$tmp/out" 2> "$tmp/err"
  got=$?
  if [ "$got" -eq "$want" ]; then
    passed=$((passed + 1))
  else
    echo "FAILED: $what: exit $got, expected $want; stderr: $(head -3 "$tmp/err")"
    failed=$((failed + 1))
  fi
}
contains() { # contains FILE TEXT DESCRIPTION
  if grep -qF -- "$2" "$1"; then passed=$((passed + 1)); else
    echo "FAILED: $3: no '$2' in: $(head -5 "$1")"
    failed=$((failed + 1))
  fi
}

expect 0 "--help" -- "$scale" grade --help
contains "$tmp/out" "usage: scale grade" "help text"
expect 2 "unknown option" -- "$scale" grade --no-such-option
contains "$tmp/err" "scale: " "error line starts with scale:"
expect 2 "bad --timeout" -- "$scale" grade --timeout -3
expect 2 "bad --jobs" -- "$scale" grade --jobs 1.5
expect 2 "unknown exercise id" -- "$scale" grade --source "$root" rooflines.no_such_exercise
contains "$tmp/err" "rooflines.no_such_exercise" "the unknown id is named"
expect 2 "missing exercises folder" -- "$scale" grade --quiet --source "$root" --exercises "$tmp/none"
expect 2 "not a source tree" -- "$scale" grade --quiet --source "$tmp" rooflines

# One exercise of the reference solutions: OK, full points, JSON and JUnit written.
expect 0 "grade one id" -- "$scale" grade --quiet --source "$root" --exercises "$root/solutions" \
  --json "$tmp/r.json" --junit "$tmp/r.xml" rooflines.critical_batch_int8
contains "$tmp/out" "OK" "verdict line"
contains "$tmp/out" "rooflines.critical_batch_int8" "the id is printed"
contains "$tmp/out" "total 2/2" "total of one 2-point exercise"
contains "$tmp/r.json" '"name": "rooflines.critical_batch_int8", "score": 2, "max_score": 2, "status": "OK"' "JSON row"
contains "$tmp/r.xml" '<testcase classname="01-rooflines" name="rooflines.critical_batch_int8"/>' "JUnit row"

# A kept build tree (--build-dir) is left in place.
expect 0 "grade with --build-dir" -- "$scale" grade --quiet --source "$root" \
  --exercises "$root/exercises" --build-dir "$tmp/build" tpus.pod_hosts
contains "$tmp/out" "FAIL" "a stub fails"
if [ -f "$tmp/build/CMakeCache.txt" ]; then passed=$((passed + 1)); else
  echo "FAILED: --build-dir kept"
  failed=$((failed + 1))
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
