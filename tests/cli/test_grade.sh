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
  t0=$(date +%s)
  "$@" > "$tmp/out" 2> "$tmp/err"
  got=$?
  t=$(($(date +%s) - t0))
  if [ "$t" -ge 2 ]; then echo "-- $t s: $what"; fi # progress (ctest -V, CI logs)
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
if [ -f "$tmp/build/harness/CMakeCache.txt" ] && [ -f "$tmp/build/student/logs/02-tpus-build.log" ] && [ -x "$tmp/build/student/out/02-tpus/server" ]
then passed=$((passed + 1)); else
  echo "FAILED: --build-dir kept (harness/ and student/)"
  failed=$((failed + 1))
fi

# A student's process: its environment names nothing of the grader's (no results file, no
# channel, no source tree), HOME and TMPDIR are its private /tmp, and it can write there; the
# kept build tree is reused (the harness is configured again, incrementally). The probe answers
# right only when all of that holds.
mkdir -p "$tmp/probe/01-rooflines"
cat > "$tmp/probe/01-rooflines/rooflines_ex.c" <<'END_OF_STUDENT'
#include "rooflines_ex.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
extern char **environ;
double ex_rooflines_critical_batch_int8(double flops_per_s, double bytes_per_s) {
  if (!(flops_per_s > 0.0) || !(bytes_per_s > 0.0)) return NAN;
  for (char **e = environ; *e; e++)
    if (strncmp(*e, "CK_", 3) == 0 || strncmp(*e, "SCALE_", 6) == 0) return -1.0;
  const char *home = getenv("HOME"), *tmp = getenv("TMPDIR");
  if (!home || strcmp(home, "/tmp") != 0 || !tmp || strcmp(tmp, "/tmp") != 0) return -2.0;
  FILE *out = fopen("/tmp/probe.txt", "w");
  if (!out || fputs("written", out) < 0 || fclose(out) != 0) return -3.0;
  return flops_per_s / bytes_per_s / 2.0; /* ch. 1 Question 1: B > C / (2 W) */
}
/* Every other function: the stubs, with their critical_batch_int8 renamed out of the way. */
#define ex_rooflines_critical_batch_int8 probe_unused_critical_batch_int8
#include "stubs.c"
END_OF_STUDENT
cp "$root/exercises/01-rooflines/rooflines_ex.c" "$tmp/probe/01-rooflines/stubs.c"
expect 0 "grade a probing student" -- "$scale" grade --quiet --source "$root" \
  --exercises "$tmp/probe" --build-dir "$tmp/build" rooflines.critical_batch_int8
contains "$tmp/out" "total 2/2" "the probing student sees a clean environment and its own /tmp"
if [ -e "$tmp/build/student/src/01-rooflines/stubs.c" ]; then passed=$((passed + 1)); else
  echo "FAILED: the student's other files are copied next to the main one"
  failed=$((failed + 1))
fi

# Feedback: one answer off by 2, one off by 1000 (a unit), one without its domain checks
# (PARTIAL), one left as the stub (NOT ANSWERED), the rest the reference's.
mkdir -p "$tmp/slips/01-rooflines"
sed -e 's|return flops / flops_per_s;|return 2.0 * flops / flops_per_s;|' \
  -e 's|return bytes / bytes_per_s;|return bytes / bytes_per_s / 1e3;|' \
  -e 's#if (!(t_math_s >= 0.0) || !(t_comms_s >= 0.0)) return NAN;##' \
  "$root/solutions/01-rooflines/rooflines_ex.c" > "$tmp/slips/01-rooflines/rooflines_ex.c"
# The critical intensity back to the stub's body (as exercises/ writes stubs).
awk '/^double ex_rooflines_critical_intensity_flops_per_byte\(/ {
    print; print "  (void)flops_per_s; (void)bytes_per_s;"; print "  return NAN;"; skip = 1; next }
  skip && /^}/ {skip = 0} !skip {print}' "$tmp/slips/01-rooflines/rooflines_ex.c" > "$tmp/slips/r.c"
mv "$tmp/slips/r.c" "$tmp/slips/01-rooflines/rooflines_ex.c"
expect 0 "grade the slips" -- "$scale" grade --quiet --source "$root" --exercises "$tmp/slips" \
  --score-line "$tmp/score.txt" rooflines
contains "$tmp/out" "hint: a factor of 2: forward only? one direction?" "a factor-of-2 hint"
contains "$tmp/out" "hint: off by a power of 1000: a unit? check kilo/mega/giga" "a unit hint"
contains "$tmp/out" "expected " "one student's report gives the expected value"
grep "rooflines.t_lower_s" "$tmp/out" > "$tmp/line"
contains "$tmp/line" "PARTIAL" "value right, domain checks missing: PARTIAL"
grep "rooflines.critical_intensity_flops_per_byte" "$tmp/out" > "$tmp/line"
contains "$tmp/line" "NOT ANSWERED      0/1 rooflines.critical_intensity_flops_per_byte: not answered yet" \
  "the stub's body: NOT ANSWERED"
grep "rooflines.t_math_s" "$tmp/out" > "$tmp/line"
contains "$tmp/line" "FAIL" "a wrong value: FAIL"
if grep -q "hint" "$tmp/line" && ! grep -q "hint: off by a power" "$tmp/line"; then
  passed=$((passed + 1)); else
  echo "FAILED: t_math_s gets the factor-of-2 hint only: $(cat "$tmp/line")"
  failed=$((failed + 1))
fi
if [ "score: $(tail -1 "$tmp/out")" = "$(cat "$tmp/score.txt")" ]; then passed=$((passed + 1)); else
  echo "FAILED: --score-line is the total line: '$(cat "$tmp/score.txt")' vs '$(tail -1 "$tmp/out")'"
  failed=$((failed + 1))
fi
expect 0 "grade the slips, answers withheld" -- "$scale" grade --quiet --source "$root" \
  --exercises "$tmp/slips" --withhold-answers rooflines.t_math_s rooflines.t_comms_s
contains "$tmp/out" "not the expected value" "a withheld FAIL says so"
contains "$tmp/out" "hint: a factor of 2" "a withheld FAIL keeps its hint"
if grep -q "expected [-0-9]" "$tmp/out"; then
  echo "FAILED: --withhold-answers still prints an expected value: $(grep "expected [-0-9]" "$tmp/out")"
  failed=$((failed + 1))
else passed=$((passed + 1)); fi
expect 0 "the last of --withhold-answers, --show-answers counts" -- "$scale" grade --quiet --source "$root" \
  --exercises "$tmp/slips" --withhold-answers --show-answers rooflines.t_math_s
contains "$tmp/out" "expected " "--show-answers gives the expected value"
expect 2 "--score-line with --class" -- "$scale" grade --class "$tmp" --score-line "$tmp/s.txt"
# Chapters in the book's order whatever the rubric's (it lists 12 before 09).
expect 0 "grade two chapters" -- "$scale" grade --quiet --source "$root" --exercises "$root/exercises" \
  12 09
if [ "$(grep -E '^[0-9]{2}-' "$tmp/out" | tr '\n' ' ')" = "09-profiling 12-gpus " ]; then
  passed=$((passed + 1)); else
  echo "FAILED: chapters in order: $(grep -E '^[0-9]{2}-' "$tmp/out" | tr '\n' ' ')"
  failed=$((failed + 1))
fi

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
expect 2 "--gradebook without --class" -- "$scale" grade --gradebook "$tmp/g.csv"
"$scale" grade --quiet --source "$root" --class "$tmp/class" --jobs 1 --csv "$tmp/c.csv" \
  --json "$tmp/c.json" --gradebook "$tmp/g.csv" rooflines.critical_batch_int8 > "$tmp/out" \
  2> "$tmp/err"
class_rc=$?
if [ "$class_rc" -eq 2 ] && grep -q "no sandbox works here" "$tmp/err"; then
  # No user namespaces on this kernel: a class is refused, never graded unsandboxed.
  echo "SKIPPED: the class of one ($(cat "$tmp/err"))"
else
  if [ "$class_rc" -eq 0 ]; then passed=$((passed + 1)); else
    echo "FAILED: grade a class of one: exit $class_rc: $(head -3 "$tmp/err")"
    failed=$((failed + 1))
  fi
  contains "$tmp/g.csv" "student,total,01-rooflines" "gradebook header"
  contains "$tmp/g.csv" "Points Possible,2,2" "gradebook points possible"
  contains "$tmp/g.csv" '"solo, with comma",2,2' "gradebook row"
  contains "$tmp/c.csv" "student,rooflines.critical_batch_int8,01-rooflines,total" "CSV header"
  contains "$tmp/c.csv" '"solo, with comma",2,2,2' "CSV row, name quoted"
  contains "$tmp/c.json" '"student": "solo, with comma"' "class JSON names the student"
  contains "$tmp/out" "class: 1 student, 1 graded" "class summary"
fi

# A decision exercise earns a fraction of its points (tests/data/grade/decision: the design
# guide's Mamba layouts, 2.25 x credit + 0.75 of 3; the credit follows the fitted step model,
# and tests/grading/check_grade.sh derives it from the printed times): the report, the JSON,
# the Gradescope results, and a class's CSV and gradebook carry the same fraction.
expect 0 "grade a decision" -- "$scale" grade --quiet --source "$root" \
  --exercises "$root/tests/data/grade/decision" --json "$tmp/d.json" --results "$tmp/d-gs.json" \
  hybrid_parallelism.layout_mamba
frac=$(sed -n 's|^total \([0-9.]*\)/3 .*|\1|p' "$tmp/out")
pct=$(sed -n 's|.*layout_mamba: credit \([0-9]*\)% (mean over 2 instances).*|\1|p' "$tmp/out")
if awk -v f="$frac" 'BEGIN { exit !(f > 0.75 && f < 3 && f != int(f)) }'; then
  passed=$((passed + 1))
else
  echo "FAILED: fractional total: '$frac' in: $(tail -2 "$tmp/out")"
  failed=$((failed + 1))
fi
contains "$tmp/d.json" "\"score\": $frac, \"max_score\": 3, \"status\": \"PARTIAL\"" "JSON fractional row"
contains "$tmp/d-gs.json" "\"score\": $frac," "Gradescope fractional score"
contains "$tmp/d-gs.json" "PARTIAL: credit $pct% (mean over 2 instances)" "Gradescope output explains"
# Points to 0.01 ("1.51/3", never "1.50825/3") on the terminal and in the JSON alike.
if printf '%s\n' "$frac" | grep -qE '^[0-9]+(\.[0-9]{1,2})?$'; then passed=$((passed + 1)); else
  echo "FAILED: the decision's points to 0.01: '$frac'"
  failed=$((failed + 1))
fi
contains "$tmp/out" "PARTIAL" "a decision's share is PARTIAL, not FAIL"
contains "$tmp/out" "best " "one student's report names the best layout"
# --withhold-answers: the credit stays, the best layout and its cost go.
expect 0 "grade a decision, answers withheld" -- "$scale" grade --quiet --source "$root" \
  --exercises "$root/tests/data/grade/decision" --withhold-answers hybrid_parallelism.layout_mamba
contains "$tmp/out" "a better choice exists" "a withheld decision says a better one exists"
if grep -q "best " "$tmp/out"; then
  echo "FAILED: --withhold-answers still names the best layout: $(grep "best " "$tmp/out")"
  failed=$((failed + 1))
else passed=$((passed + 1)); fi
mkdir -p "$tmp/dclass/dora"
cp -R "$root/tests/data/grade/decision/13-hybrid-parallelism" "$tmp/dclass/dora/"
"$scale" grade --quiet --source "$root" --class "$tmp/dclass" --jobs 1 --csv "$tmp/dc.csv" \
  --gradebook "$tmp/dg.csv" hybrid_parallelism.layout_mamba > "$tmp/out" 2> "$tmp/err"
dclass_rc=$?
if [ "$dclass_rc" -eq 2 ] && grep -q "no sandbox works here" "$tmp/err"; then
  echo "SKIPPED: the decision class ($(cat "$tmp/err"))"
else
  if [ "$dclass_rc" -eq 0 ]; then passed=$((passed + 1)); else
    echo "FAILED: grade a decision class: exit $dclass_rc: $(head -3 "$tmp/err")"
    failed=$((failed + 1))
  fi
  contains "$tmp/dc.csv" "dora,$frac,$frac,$frac" "class CSV carries the fraction"
  contains "$tmp/dg.csv" "dora,$frac,$frac" "gradebook carries the fraction"
  contains "$tmp/out" "$frac/3" "class summary carries the fraction"
  # A class withholds the answers by default: one student's best layout is another's answer.
  contains "$tmp/out" "a better choice exists" "a class's decision detail withholds the best"
fi

# Gradescope: the autograder folder, its own copy of the tree without solutions/ (building it
# and running run_autograder on a submission is test_grade.slow.sh, label slow).
expect 2 "--gradescope with --class" -- "$scale" grade --gradescope "$tmp/ag" --class "$tmp"
expect 0 "write an autograder" -- "$scale" grade --source "$root" --gradescope "$tmp/ag"
expect 1 "the autograder folder must be new" -- "$scale" grade --source "$root" --gradescope "$tmp/ag"
if [ -x "$tmp/ag/setup.sh" ] && [ -x "$tmp/ag/run_autograder" ] && [ ! -e "$tmp/ag/solutions" ] &&
  [ -f "$tmp/ag/tests/grading/expected/01-rooflines.tsv" ]; then passed=$((passed + 1)); else
  echo "FAILED: the autograder holds setup.sh, run_autograder, the stored answers, no solutions/"
  failed=$((failed + 1))
fi
contains "$tmp/ag/run_autograder" "grade --quiet --withhold-answers" \
  "the Gradescope autograder withholds the answers"
contains "$tmp/ag/setup.sh" "apt-get install -y -q --no-install-recommends build-essential cmake" \
  "setup.sh installs the build's packages"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
