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

# The MFUs the README quotes are what the commands print (to the rounding the prose uses):
# the headline plan's best layout and Llama 3's own 405B layout.
quoted() { tr '\n' ' ' <"$SCALE_SOURCE_DIR/README.md" | sed -n "s/.*$1[^0-9]*about \([0-9.]*\)%.*/\1/p"; }
printed_mfu() { sed -n 's/.*MFU \([0-9.]*\)%.*/\1/p;s/^  MFU  *\([0-9.]*\)%.*/\1/p' "$TMP/out" | head -1; }
close_to() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; exit !(a != "" && b != "" && d <= 1 && d >= -1) }'; }
head_args=$(grep '^plan train --model llama-3-70b --hw tpu-v5p' "$TMP/examples" | head -1)
[ -n "$head_args" ] || head_args=$(awk '/^apt-get/ { sub(/.*build\/scale /, ""); print }' \
  "$SCALE_SOURCE_DIR/README.md")
# shellcheck disable=SC2086 # the example's words are the arguments
run "$SCALE" $head_args
if close_to "$(quoted 'The headline above predicts')" "$(printed_mfu)"; then pass; else
  fail "README's headline MFU $(quoted 'The headline above predicts')% vs printed $(printed_mfu)%"
fi
llama_args=$(grep '^train --model llama-3-405b' "$TMP/examples" | head -1)
# shellcheck disable=SC2086 # the example's words are the arguments
run "$SCALE" $llama_args
if close_to "$(quoted "Llama 3's own 405B layout")" "$(printed_mfu)"; then pass; else
  fail "README's Llama 3 MFU $(quoted "Llama 3's own 405B layout")% vs printed $(printed_mfu)%"
fi
# The live-book paragraph names every kind of widget the chapters place.
for kind in $(sed -n 's/^```{widget} \([a-z]*\).*/\1/p' "$SCALE_SOURCE_DIR"/chapters/*/*.md | sort -u); do
  if grep -q "\`$kind\`" "$SCALE_SOURCE_DIR/README.md"; then pass; else
    fail "README does not name the '$kind' widget"
  fi
done

finish
