#!/bin/sh
# test_grade.slow.sh /path/to/scale — the Gradescope autograder end to end (cli.grade.slow,
# label slow: it builds `scale` from the autograder's own tree, a minute of CPU). The folder
# `scale grade --gradescope` writes configures and builds `scale` without solutions/, and
# run_autograder, in a root laid out as Gradescope's, grades a submission of loose files (one
# in a subfolder) into results.json in Gradescope's schema. What the folder holds is checked in
# the fast tier (test_grade.sh).
SCALE=${1:?usage: sh test_grade.slow.sh /path/to/scale}
. "$(dirname "$0")/lib.sh"
root=${SCALE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}

# contains FILE TEXT DESC : FILE holds TEXT (fixed string).
contains() {
  if grep -qF -- "$2" "$1"; then pass; else fail "$3: no '$2' in: $(head -c 300 "$1")"; fi
}

run "$SCALE" grade --source "$root" --gradescope "$TMP/ag"
expect_rc 0 "write an autograder"
run cmake -S "$TMP/ag" -B "$TMP/ag/build" -DCMAKE_BUILD_TYPE=Release \
  -DSCALE_EXERCISES_DIR="$TMP/ag/exercises"
expect_rc 0 "the autograder's tree configures"
run cmake --build "$TMP/ag/build" --target scale_cli -j 2
expect_rc 0 "the autograder's tree builds scale"
mkdir -p "$TMP/gs/submission/nested" "$TMP/gs/results"
ln -s "$TMP/ag" "$TMP/gs/source"
cp "$root/solutions/01-rooflines/rooflines_ex.c" "$TMP/gs/submission/"
cp "$root/solutions/03-sharding/sharding_ex.c" "$TMP/gs/submission/nested/"
run env AUTOGRADER_ROOT="$TMP/gs" sh "$TMP/ag/run_autograder"
expect_rc 0 "run_autograder"
points=$(awk -F'\t' '!/^#/ && ($2 == "01-rooflines" || $2 == "03-sharding") {
  n = split($3, p, "+"); s += p[1] + (n > 1 ? p[2] : 0)} END {printf "%g", s}' "$root/tests/rubric.tsv")
results=$TMP/gs/results/results.json
contains "$results" "\"score\": $points," "results.json: full marks on 01 and 03"
contains "$results" '"name": "rooflines.t_math_s", "number": "01-rooflines", "score": 1, "max_score": 1, "status": "passed"' \
  "results.json test entry in Gradescope's schema"
contains "$results" '"status": "failed", "output": "BUILD: missing 02-tpus/tpus_ex.c"' \
  "a missing chapter fails with its reason"
if grep -q leaderboard "$results"; then fail "no leaderboard"; else pass; fi
finish
