#!/bin/sh
# check_robust.sh SCALE ROOT — runs that a teacher repeats or a student's folder crowds still
# grade right (CTest grading.robust, label grading; issue 30 §4).
#   rerun     the same --build-dir twice, for one student and for a class: the same full
#             marks both times; a folder that is not a build tree of ours is refused (exit 2)
#   crowded   2000 other files in a chapter folder do not hide its main file
#   paths     a compile error in the contract's copy names 01-rooflines/rooflines_ex.h, never
#             the grader's build tree, in the terminal and in results.json
#   rubric    points in hex, inf or nan, with spaces or junk, an id or a chapter that is a
#             path: the rubric is refused with its line (a usage error, exit 2)
#   isolation every report says the isolation in effect; a degraded one (Landlock, none) is a
#             warning even under --quiet; with no sandbox at all grading refuses in one line
#             unless --no-sandbox, and a class refuses even then
#   proc      in the sandbox, /proc/1 (the sandbox's first process, a copy of the grader) shows
#             neither the grader's command line nor its environment or memory maps
# The class and proc parts are skipped where there is no sandbox (no user namespaces).
. "$(dirname "$0")/check_lib.sh"
check_begin check_robust "$@"
full=$(rubric_points 01-rooflines)

# ---- rerun: one student ----------------------------------------------------------------------
for run in 1 2; do
  "$scale" grade --quiet --source "$root" --exercises "$root/solutions" --build-dir "$tmp/one" \
    rooflines > "$tmp/out" 2> "$tmp/err"
  rc=$?
  check '[ "$rc" -eq 0 ] && grep -q "^total $full/$full " "$tmp/out"' \
    "run $run with the same --build-dir: exit $rc, $(tail -1 "$tmp/out") $(cat "$tmp/err")"
done
mkdir -p "$tmp/theirs"
echo "a teacher's file" > "$tmp/theirs/notes.txt"
"$scale" grade --quiet --source "$root" --exercises "$root/solutions" --build-dir "$tmp/theirs" \
  rooflines > "$tmp/out" 2> "$tmp/err"
rc=$?
check '[ "$rc" -eq 2 ] && grep -q "not a build tree of scale grade" "$tmp/err" && [ -f "$tmp/theirs/notes.txt" ]' \
  "a folder that is not ours is refused and left alone: exit $rc: $(cat "$tmp/err")"

# ---- crowded: the main file among 2000 others ------------------------------------------------
mkdir -p "$tmp/crowded/01-rooflines"
cp "$root/solutions/01-rooflines/rooflines_ex.c" "$tmp/crowded/01-rooflines/"
(cd "$tmp/crowded/01-rooflines" && seq 1 2000 | sed 's/^/note-/' | xargs touch)
"$scale" grade --quiet --source "$root" --exercises "$tmp/crowded" rooflines > "$tmp/out" 2> "$tmp/err"
rc=$?
check '[ "$rc" -eq 0 ] && grep -q "^total $full/$full " "$tmp/out"' \
  "the main file is graded beside 2000 others: exit $rc: $(grep -m1 BUILD "$tmp/out") $(tail -1 "$tmp/out")"

# ---- rerun: a class --------------------------------------------------------------------------
mkdir -p "$tmp/class/alice"
cp -R "$root/solutions/01-rooflines" "$tmp/class/alice/"
for run in 1 2; do
  "$scale" grade --quiet --source "$root" --class "$tmp/class" --build-dir "$tmp/cls" rooflines \
    > "$tmp/out" 2> "$tmp/err"
  rc=$?
  if [ "$rc" -eq 2 ] && grep -q "no sandbox works here" "$tmp/err"; then
    skip
    break
  fi
  check '[ "$rc" -eq 0 ] && grep -q "^alice *$full/$full " "$tmp/out"' \
    "class run $run with the same --build-dir: exit $rc: $(head -2 "$tmp/out") $(cat "$tmp/err")"
done

# ---- paths: a report names a chapter's files, not the grader's folders -----------------------
# "#pragma GCC poison int64_t" makes the contract's copy (in the build tree's harness/) fail.
mkdir -p "$tmp/poison/01-rooflines"
{ printf '#include <stdint.h>\n#pragma GCC poison int64_t\n'
  cat "$root/exercises/01-rooflines/rooflines_ex.c"; } > "$tmp/poison/01-rooflines/rooflines_ex.c"
"$scale" grade --quiet --no-sandbox --source "$root" --exercises "$tmp/poison" \
  --build-dir "$tmp/poison-build" --results "$tmp/poison.json" rooflines.t_math_s \
  > "$tmp/out" 2> "$tmp/err"
check 'grep -q "BUILD .*: 01-rooflines/rooflines_ex.h:[0-9]*:[0-9]*: error: " "$tmp/out"' \
  "the contract's error names the chapter's file: $(grep -m1 BUILD "$tmp/out")"
check '! grep -q "$tmp" "$tmp/out" "$tmp/poison.json"' \
  "no path of the grader's build tree in a report: $(grep -m1 "$tmp" "$tmp/out" "$tmp/poison.json")"

# ---- rubric: numbers in decimal, ids and chapters plain names ---------------------------------
mkdir -p "$tmp/fake/tests"
for row in 'a.x	01-rooflines	0x1p1	hex' 'a.x	01-rooflines	inf	inf' 'a.x	01-rooflines	nan	nan' \
  'a.x	01-rooflines	 2	a space' 'a.x	01-rooflines	2pt	junk' 'a.x	01-rooflines	1+0x1	hex domain' \
  'a.x	../../etc	1	a path' 'a/x	01-rooflines	1	a slash' '.x	01-rooflines	1	hidden'; do
  printf '# a rubric\n%s\n' "$row" > "$tmp/fake/tests/rubric.tsv"
  "$scale" grade --source "$tmp/fake" > "$tmp/out" 2> "$tmp/err"
  rc=$?
  check '[ "$rc" -eq 2 ] && grep -q "rubric.tsv:2: .*decimal" "$tmp/err"' \
    "rubric row '$row' refused with its line: exit $rc, $(cat "$tmp/err")"
done

# ---- isolation: said in every report, and never hidden when degraded ------------------------
# iso MODE-ENV...: grades critical_batch_int8 of solutions/ with --quiet under the given
# environment, every report written; rc, out and err as usual.
iso() {
  env "$@" "$scale" grade --quiet --source "$root" --exercises "$root/solutions" \
    --results "$tmp/iso-results.json" --json "$tmp/iso.json" --junit "$tmp/iso.xml" \
    rooflines.critical_batch_int8 > "$tmp/out" 2> "$tmp/err"
  rc=$?
}
iso SCALE_GRADE_NO_USERNS=1
if [ "$rc" -eq 2 ] && grep -q "no sandbox works here" "$tmp/err"; then
  skip # no Landlock here either
else
  check '[ "$rc" -eq 0 ] && grep -q "^scale grade: warning: .*isolation .landlock" "$tmp/err"' \
    "without user namespaces --quiet still warns: exit $rc, $(cat "$tmp/err")"
  for report in iso-results.json iso.json; do
    check 'grep -q "\"isolation\": \"landlock [0-9]* (files" "$tmp/$report"' \
      "$report names Landlock: $(grep -m1 isolation "$tmp/$report")"
  done
  check 'grep -q "<property name=\"isolation\" value=\"landlock" "$tmp/iso.xml"' \
    "the JUnit report names Landlock: $(grep -m1 isolation "$tmp/iso.xml")"
  check 'grep -q "^isolation: landlock" "$tmp/out"' "the terminal report names it: $(head -1 "$tmp/out")"
fi
iso SCALE_GRADE_NO_USERNS=1 SCALE_GRADE_NO_LANDLOCK=1
check '[ "$rc" -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "^scale: no sandbox works here" "$tmp/err"' \
  "no sandbox at all: refused in one line: exit $rc, $(cat "$tmp/err")"
env SCALE_GRADE_NO_USERNS=1 SCALE_GRADE_NO_LANDLOCK=1 "$scale" grade --quiet --no-sandbox \
  --source "$root" --exercises "$root/solutions" --results "$tmp/iso-results.json" \
  rooflines.critical_batch_int8 > "$tmp/out" 2> "$tmp/err"
rc=$?
check '[ "$rc" -eq 0 ] && grep -q "warning: .*isolation .none" "$tmp/err" &&
  grep -q "\"isolation\": \"none (--no-sandbox)" "$tmp/iso-results.json"' \
  "--no-sandbox warns under --quiet and says none: exit $rc, $(cat "$tmp/err")"
mkdir -p "$tmp/iso-class/alice"
cp -R "$root/solutions/01-rooflines" "$tmp/iso-class/alice/"
env SCALE_GRADE_NO_USERNS=1 SCALE_GRADE_NO_LANDLOCK=1 "$scale" grade --quiet --source "$root" \
  --class "$tmp/iso-class" rooflines.critical_batch_int8 > "$tmp/out" 2> "$tmp/err"
rc=$?
check '[ "$rc" -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "no sandbox works here" "$tmp/err"' \
  "a class without any sandbox is refused in one line: exit $rc, $(cat "$tmp/err")"

# ---- proc: what the sandbox's /proc/1 shows --------------------------------------------------
# critical_batch_int8 answers right only when /proc/1/cmdline holds none of the grader's
# arguments and /proc/1/environ and /proc/1/maps cannot be read; else a negative code.
mkdir -p "$tmp/probe/01-rooflines"
cat > "$tmp/probe/01-rooflines/rooflines_ex.c" <<'END_OF_STUDENT'
#include "rooflines_ex.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
static size_t slurp(const char *path, char *buf, size_t size) {
  FILE *in = fopen(path, "rb");
  if (!in) return 0;
  size_t n = fread(buf, 1, size - 1, in);
  fclose(in);
  return n;
}
double ex_rooflines_critical_batch_int8(double flops_per_s, double bytes_per_s) {
  if (!(flops_per_s > 0.0) || !(bytes_per_s > 0.0)) return NAN;
  static char buf[1 << 16];
  size_t n = slurp("/proc/1/cmdline", buf, sizeof buf);
  for (size_t i = 0; i < n; i++)
    if (buf[i] == '/' || buf[i] == '-') return -1.0; /* a path or an option of the grader */
  if (slurp("/proc/1/environ", buf, sizeof buf) > 0) return -2.0;
  if (slurp("/proc/1/maps", buf, sizeof buf) > 0) return -3.0;
  return flops_per_s / bytes_per_s / 2.0; /* ch. 1 Question 1: B > C / (2 W) */
}
#define ex_rooflines_critical_batch_int8 probe_unused_critical_batch_int8
#include "stubs.c"
END_OF_STUDENT
cp "$root/exercises/01-rooflines/rooflines_ex.c" "$tmp/probe/01-rooflines/stubs.c"
"$scale" grade --source "$root" --exercises "$tmp/probe" rooflines.critical_batch_int8 > "$tmp/out" 2> "$tmp/err"
rc=$?
if grep -q "no sandbox works here" "$tmp/err"; then
  skip
else
  check '[ "$rc" -eq 0 ] && grep -q "^total 2/2 " "$tmp/out"' \
    "/proc/1 shows nothing of the grader: exit $rc: $(grep -m1 critical_batch "$tmp/out")"
fi

check_end
