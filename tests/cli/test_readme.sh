#!/bin/sh
# test_readme.sh — every `build/scale ...` example in README.md runs, exits 0 and prints no NaN
# (the documentation cannot rot). `scale grade` examples are skipped: the grading tests cover it.
# An example that is a slow fit of tests/support/fits.tsv (`validate --serving`) is
# test_readme.slow.sh's; one that is a fast fit is read from that fit's file.
SCALE=$1
. "$(dirname "$0")/lib.sh"

readme_examples >"$TMP/examples"
n=$(wc -l <"$TMP/examples")
if [ "$n" -ge 8 ]; then pass; else fail "found only $n README examples"; fi
cd "$TMP" || exit 1
while IFS= read -r args; do
  [ -z "$(fit_for slow "$args")" ] || continue
  fit=$(fit_for fast "$args")
  if [ -n "$fit" ]; then
    fit_run "$fit" "$SCALE"
  else
    # shellcheck disable=SC2086 # the example's words are the arguments
    run "$SCALE" $args
  fi
  expect_rc 0 "README: build/scale $args"
  expect_no_nan "README: build/scale $args"
done <"$TMP/examples"

finish
