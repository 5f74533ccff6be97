#!/bin/sh
# test_plan_energy.sh — `scale plan train --objective goodput|energy` (plan.h, energy.h): the
# scores against their definitions, the reproduce line carrying the energy options, and the
# one-line refusals.
SCALE=$1
. "$(dirname "$0")/lib.sh"

json_num() { awk -v k="\"$1\":" '$1 == k { v = $2; sub(/,$/, "", v); print v; exit }' "$TMP/out"; }
P="--model llama-3-8b --hw nvidia-h100-sxm --chips 64 --batch-tokens 1Mi --seq 4096 --tokens 1e12"
F="--failures llama3-405b --restart-s 600"

# At one chip count the goodput is the job's (one MTBI, one checkpoint size): the ranking is
# time's, the score the step time over the goodput scale train reports for the same layout.
run "$SCALE" plan train $P --top 1 --json; best_time=$(grep -m1 '"layout":' "$TMP/out")
step=$(json_num step_time_s)
run "$SCALE" plan train $P --top 1 --objective goodput $F --json
expect_rc 0 "goodput objective"; expect_json "goodput json"; expect_out '"objective": "goodput"' "named"
if [ "$(grep -m1 '"layout":' "$TMP/out")" = "$best_time" ]; then pass; else fail "goodput ranks as time at one chip count"; fi
score=$(json_num score)
cmd=$(awk -F'"' '/"command":/ { print $4; exit }' "$TMP/out")
case "$cmd" in *"--failures llama3-405b --restart-s 600"*) pass ;; *) fail "reproduce line lacks the failure options: $cmd" ;; esac
# the reproduce line runs, and its goodput is the one the score divides by
# shellcheck disable=SC2086
run "$SCALE" ${cmd#scale } --json
expect_rc 0 "reproduce line runs"
g=$(json_num goodput_frac)
if awk -v s="$score" -v t="$step" -v g="$g" 'BEGIN { d = s - t / g; exit !(g > 0 && (d < 0 ? -d : d) <= 1e-9 * s) }'; then
  pass
else
  fail "goodput score $score != step $step / goodput $g"
fi

# the best's run in the plan's JSON is the reproduce line's
run "$SCALE" plan train $P --top 1 --objective goodput $F --json
expect_out '"best_run": \{' "best_run object"
gp=$(awk '$1 == "\"goodput_frac\":" { v = $2; sub(/,$/, "", v); print v }' "$TMP/out" | tail -1)
if [ -n "$gp" ] && [ "$gp" = "$g" ]; then pass; else fail "plan's best goodput $gp != train's $g"; fi
run "$SCALE" plan train $P --top 1 $F
expect_out '^goodput of the best: [0-9.]+% \(llama3-405b: 419 interruptions' "text goodput line"

# Energy: joules per token = 64 chips x 700 W x PUE x step / goodput / 1,048,576 tokens.
run "$SCALE" plan train $P --top 1 --objective energy --pue 1.2 $F --json
expect_rc 0 "energy objective"; expect_out '"objective": "energy"' "named"
score=$(json_num score)
if awk -v s="$score" -v t="$step" -v g="$g" 'BEGIN { e = 64 * 700 * 1.2 * t / g / 1048576; d = s - e; exit !((d < 0 ? -d : d) <= 1e-9 * e) }'; then
  pass
else
  fail "energy score $score != 64 x 700 W x 1.2 x $step / $g / 1Mi"
fi
expect_out '--pue 1.2 --failures llama3-405b --restart-s 600' "reproduce carries --pue"
run "$SCALE" plan train --help; expect_out 'goodput\|energy' "help lists the objectives"

# Refusals: one line, exit 2.
expect_usage_error "goodput without failures" "$SCALE" plan train $P --objective goodput
expect_err 'needs --failures' "names --failures"
expect_usage_error "energy without power" "$SCALE" plan train --model llama-3-8b --hw tpu-v5e \
  --chips 8 --batch-tokens 1M --seq 4096 --objective energy
expect_err 'no \[power\]' "names [power]"
expect_usage_error "failures without restart" "$SCALE" plan train $P --failures llama3-405b
expect_usage_error "unknown objective" "$SCALE" plan train $P --objective watts

finish
