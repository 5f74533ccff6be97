#!/bin/sh
# test_readme.slow.sh — the README examples that are slow fits of tests/support/fits.tsv
# (`build/scale validate --serving`: minutes): each exits 0 and prints no NaN, read from the
# file its fixture fit.NAME wrote. The other examples are test_readme.sh's.
SCALE=$1
. "$(dirname "$0")/lib.sh"

readme_examples >"$TMP/examples"
n=0
while IFS= read -r args; do
  fit=$(fit_for slow "$args")
  [ -n "$fit" ] || continue
  n=$((n + 1))
  fit_run "$fit" "$SCALE"
  expect_rc 0 "README: build/scale $args"
  expect_no_nan "README: build/scale $args"
done <"$TMP/examples"
if [ "$n" -ge 1 ]; then pass; else fail "no README example is a slow fit of tests/support/fits.tsv"; fi

finish
