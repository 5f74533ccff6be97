#!/bin/sh
# check_hygiene.sh SCALE ROOT — a student's bytes reach no report and no terminal raw (CTest
# grading.hygiene, label grading; issue 30 §3).
#   bytes        an #error line with a byte that is not UTF-8 and terminal escapes: the JSON,
#                the JUnit XML and results.json parse as UTF-8; the terminal gets no ESC
#   class        folders named "=HYPERLINK(...)" (a CSV formula), "new<LF>line" (a forged
#                summary line), with an ESC sequence and with a byte that is not UTF-8: the
#                formula is quoted as text in the CSV and the gradebook, the other three are
#                refused with a reason and named escaped everywhere
#   autograder   run_autograder given a submitted folder "x<LF>/abs/path" copies the submitted
#                file, never the container's /abs/path/*_ex.c
# Without user namespaces the class part is skipped (the grader refuses a class there).
. "$(dirname "$0")/check_lib.sh"
check_begin check_hygiene "$@"
if ! command -v python3 > /dev/null; then
  echo "check_hygiene: skipped: python3 (which parses the reports) is not installed"
  exit 77
fi
esc=$(printf '\033')
nl='
'
# utf8 FILE: the file decodes as strict UTF-8; json FILE / xml FILE: it also parses.
utf8() { python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$1" 2> /dev/null; }
json() { python3 -c 'import json, sys; json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))' "$1" 2> /dev/null; }
xml() { python3 -c 'import sys, xml.dom.minidom as m; m.parseString(open(sys.argv[1], "rb").read())' "$1" 2> /dev/null; }
no_esc() { ! grep -aq "$esc" "$1"; }

# A chapter 1 whose #error line carries a byte that is not UTF-8 and two terminal escapes.
hostile() {
  mkdir -p "$1/01-rooflines"
  printf '#error "bad \377 byte \033[31mRED\033[0m \302\233 end"\n' > "$1/01-rooflines/rooflines_ex.c"
}

# ---- bytes: one student's reports ------------------------------------------------------------
hostile "$tmp/bytes"
"$scale" grade --source "$root" --exercises "$tmp/bytes" --json "$tmp/r.json" --junit "$tmp/r.xml" \
  --results "$tmp/results.json" rooflines > "$tmp/out" 2> "$tmp/err"
rc=$?
check '[ "$rc" -eq 0 ]' "grade the hostile #error: exit $rc: $(cat "$tmp/err")"
check 'grep -q "BUILD .*#error.*bad \\\\xff byte \\\\x1b\[31mRED" "$tmp/out"' \
  "the terminal shows the #error escaped: $(grep -m1 BUILD "$tmp/out")"
check 'no_esc "$tmp/out" && no_esc "$tmp/err"' "no ESC reaches the terminal"
check '! grep -q "$(printf "\302\233")" "$tmp/out"' "no C1 control (CSI) reaches the terminal"
check 'json "$tmp/r.json"' "the JSON report is UTF-8 JSON"
check 'json "$tmp/results.json"' "results.json is UTF-8 JSON"
check 'xml "$tmp/r.xml"' "the JUnit report is well-formed UTF-8 XML"
check 'grep -q "bad \\\\ufffd byte \\\\u001b\[31mRED" "$tmp/r.json"' \
  "the bad byte is U+FFFD and ESC \\u001b in the JSON: $(grep -m1 bad "$tmp/r.json")"
check 'no_esc "$tmp/r.xml" && no_esc "$tmp/r.json" && no_esc "$tmp/results.json"' "no ESC in a report"

# ---- class: hostile folder names -------------------------------------------------------------
class="$tmp/class"
mkdir -p "$class/alice" "$class/=HYPERLINK(1)" "$class/new${nl}line" "$class/esc${esc}[2Jclear" \
  "$class/$(printf 'bytes\377')"
cp -R "$root/solutions/01-rooflines" "$class/alice/"
for name in "=HYPERLINK(1)" "new${nl}line" "esc${esc}[2Jclear" "$(printf 'bytes\377')"; do
  hostile "$class/$name"
done
"$scale" grade --source "$root" --class "$class" --jobs 2 --csv "$tmp/c.csv" \
  --gradebook "$tmp/g.csv" --json "$tmp/c.json" rooflines > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ "$rc" -eq 2 ] && grep -q "no sandbox works here" "$tmp/err"; then
  echo "check_hygiene: no sandbox here; the class part skipped"
  skip
else
  check '[ "$rc" -eq 0 ]' "grade the class: exit $rc: $(cat "$tmp/err")"
  check 'no_esc "$tmp/out" && no_esc "$tmp/err"' "no ESC of a folder name reaches the terminal"
  check '! grep -q "^line" "$tmp/out" && ! grep -q "^line" "$tmp/err"' \
    "a newline in a folder name forges no line: $(grep "^line" "$tmp/out" "$tmp/err")"
  for shown in 'new\\nline' 'esc\\x1b\[2Jclear' 'bytes\\xff'; do
    check 'grep -q "^$shown *not graded: the folder name holds control characters" "$tmp/out"' \
      "folder $shown refused and named escaped: $(grep -m1 "not graded" "$tmp/out")"
  done
  check 'grep -q "^=HYPERLINK(1) *0/26 " "$tmp/out" && grep -q "^alice *26/26 " "$tmp/out"' \
    "the other folders are graded: $(cat "$tmp/out")"
  check 'json "$tmp/c.json"' "the class JSON is UTF-8 JSON"
  check 'utf8 "$tmp/c.csv" && utf8 "$tmp/g.csv"' "the CSV and the gradebook are UTF-8"
  check 'grep -q "^\"'"'"'=HYPERLINK(1)\"," "$tmp/c.csv" && grep -q "^\"'"'"'=HYPERLINK(1)\"," "$tmp/g.csv"' \
    "the formula is quoted as text: $(grep HYPERLINK "$tmp/c.csv")"
  check '! grep -q "^=" "$tmp/c.csv" && ! grep -q "^=" "$tmp/g.csv"' "no cell starts with ="
  check '[ "$(wc -l < "$tmp/c.csv")" -eq 6 ] && grep -q "^new\\\\nline,,"  "$tmp/c.csv"' \
    "one CSV line per student, the refused ones empty: $(cat "$tmp/c.csv")"
fi

# ---- autograder: a newline in a submitted path -----------------------------------------------
# A source tree of chapters 1 and 2 only (the rubric cut; grading sources and stubs shared).
src="$tmp/source"
mkdir -p "$src/tests"
ln -s "$root/tests/grading" "$src/tests/grading"
ln -s "$root/exercises" "$src/exercises"
awk -F'\t' '/^#/ || $2 == "01-rooflines" || $2 == "02-tpus"' "$root/tests/rubric.tsv" > "$src/tests/rubric.tsv"
"$scale" grade --source "$src" --gradescope "$tmp/ag" > /dev/null 2> "$tmp/err"
check '[ -x "$tmp/ag/run_autograder" ]' "write the autograder: $(cat "$tmp/err")"
gs="$tmp/gs"
planted="$tmp/planted"
mkdir -p "$gs/submission/x${nl}$planted" "$planted"
ln -s "$src" "$gs/source"
cp "$root/solutions/01-rooflines/rooflines_ex.c" "$gs/submission/"
cp "$root/exercises/02-tpus/tpus_ex.c" "$gs/submission/x${nl}$planted/" # the student's: stubs
cp "$root/solutions/02-tpus/tpus_ex.c" "$planted/"                    # the container's
env AUTOGRADER_ROOT="$gs" SCALE="$scale" sh "$tmp/ag/run_autograder" > "$tmp/out" 2> "$tmp/err"
rc=$?
check '[ "$rc" -eq 0 ]' "run_autograder: exit $rc: $(cat "$tmp/err")"
check 'json "$gs/results/results.json"' "results.json is UTF-8 JSON"
check 'grep -q "\"score\": 26," "$gs/results/results.json"' \
  "chapter 1 full marks, chapter 2 the submitted stubs' 0: $(grep -m1 score "$gs/results/results.json")"
check '! grep -q "\"number\": \"02-tpus\", \"score\": [1-9]" "$gs/results/results.json"' \
  "no point from the container's tpus_ex.c"

check_end
