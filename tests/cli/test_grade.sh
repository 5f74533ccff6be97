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
expect 2 "zero --jobs" -- "$scale" grade --jobs 0
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
if [ -f "$tmp/build/harness/CMakeCache.txt" ] && [ -f "$tmp/build/student/02-tpus/build.log" ]
then passed=$((passed + 1)); else
  echo "FAILED: --build-dir kept (harness/ and student/)"
  failed=$((failed + 1))
fi

# A student's processes: working directory and HOME inside the build tree; the kept build tree
# is reused (the harness is configured again, incrementally).
mkdir -p "$tmp/probe/01-rooflines"
cat > "$tmp/probe/01-rooflines/rooflines_ex.c" <<'END_OF_STUDENT'
#include "rooflines_ex.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
double ex_rooflines_critical_batch_int8(double flops_per_s, double bytes_per_s) {
  if (!(flops_per_s > 0.0) || !(bytes_per_s > 0.0)) return NAN;
  FILE *out = fopen("where.txt", "w");
  if (out) {
    fprintf(out, "HOME=%s\nTMPDIR=%s\n", getenv("HOME"), getenv("TMPDIR"));
    fclose(out);
  }
  return flops_per_s / bytes_per_s / 2.0; /* ch. 1 Question 1: B > C / (2 W) */
}
/* Every other function: the stubs, with their critical_batch_int8 renamed out of the way. */
#define ex_rooflines_critical_batch_int8 probe_unused_critical_batch_int8
#include "stubs.c"
END_OF_STUDENT
cp "$root/exercises/01-rooflines/rooflines_ex.c" "$tmp/probe/01-rooflines/stubs.c"
expect 0 "grade a probing student" -- "$scale" grade --quiet --source "$root" \
  --exercises "$tmp/probe" --build-dir "$tmp/build" rooflines.critical_batch_int8
contains "$tmp/out" "total 2/2" "the probing student passes"
contains "$tmp/build/student/01-rooflines/where.txt" "HOME=$tmp/build/student/tmp" \
  "HOME inside the build tree"
contains "$tmp/build/student/01-rooflines/where.txt" "TMPDIR=$tmp/build/student/tmp" \
  "TMPDIR inside the build tree"

# --class: usage errors, and a class of one (the full class fixture is grading.class-fixture).
expect 2 "--csv without --class" -- "$scale" grade --csv "$tmp/x.csv"
expect 2 "--class with --junit" -- "$scale" grade --class "$tmp" --junit "$tmp/x.xml"
expect 2 "--class with --exercises" -- "$scale" grade --class "$tmp" --exercises "$tmp"
expect 2 "--class of a missing folder" -- "$scale" grade --quiet --source "$root" \
  --class "$tmp/none"
mkdir "$tmp/empty"
expect 2 "--class without students" -- "$scale" grade --quiet --source "$root" \
  --class "$tmp/empty"
contains "$tmp/err" "no student folders" "an empty class is named"
expect 2 "bad --memory" -- "$scale" grade --memory 12
mkdir -p "$tmp/class/solo, with comma"
cp -R "$root/solutions/01-rooflines" "$tmp/class/solo, with comma/"
expect 0 "grade a class of one" -- "$scale" grade --quiet --source "$root" --class "$tmp/class" \
  --jobs 1 --csv "$tmp/c.csv" --json "$tmp/c.json" rooflines.critical_batch_int8
contains "$tmp/c.csv" "student,rooflines.critical_batch_int8,01-rooflines,total" "CSV header"
contains "$tmp/c.csv" '"solo, with comma",2,2,2' "CSV row, name quoted"
contains "$tmp/c.json" '"student": "solo, with comma"' "class JSON names the student"
contains "$tmp/out" "class: 1 students, 1 graded" "class summary"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
