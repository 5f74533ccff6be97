#!/bin/sh
# test_readme.sh — every `build/scale ...` example in README.md runs, exits 0 and prints no NaN
# (the documentation cannot rot). `scale grade` examples are skipped: the grading tests cover it.
SCALE=$1
. "$(dirname "$0")/lib.sh"
ROOT=${SCALE_SOURCE_DIR:?}

# Join backslash-continued lines, keep the ones that start with build/scale.
awk '/\\$/ { sub(/\\$/, ""); printf "%s", $0; next } { print }' "$ROOT/README.md" |
  sed -n 's/^\(build\/scale [^#]*\).*$/\1/p' | grep -v ' grade' >"$TMP/examples"
n=$(wc -l <"$TMP/examples")
if [ "$n" -ge 8 ]; then pass; else fail "found only $n README examples"; fi
cd "$TMP" || exit 1
while IFS= read -r line; do
  args=${line#build/scale }
  # shellcheck disable=SC2086 # the example's words are the arguments
  run "$SCALE" $args
  expect_rc 0 "README: $line"
  expect_no_nan "README: $line"
done <"$TMP/examples"

finish
