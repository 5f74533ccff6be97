#!/bin/sh
# test_validate_vllm.slow.sh — the vLLM section of `scale validate --serving` (issue 15, row E5):
# Lambda's vLLM v0.5.4 runs (measurements/serving-vllm) predicted by the request simulator with
# their own 320 request lengths, throughput and median ITL beside the published values, with
# leave-one-group-out figures and the fitted engine overhead. The slow tier: the report is
# fit.serving-validate's (fitted once), and a folder of offline rows alone is refitted.
SCALE=$1
. "$(dirname "$0")/lib.sh"

fit_run serving-validate "$SCALE" # `scale validate --serving`
expect_rc 0 "validate --serving"
expect_out '^vLLM benchmark runs \(measurements/serving-vllm, 16 rows in 3 groups\)' "vLLM section"
expect_no_nan "vLLM section"
for id in E5a E5b E5c E5d E5e E5f E5g E5h E5i E5j E5k E5l E5m E5n E5o E5p; do
  expect_out "^  $id +vllm-llama-3\.1-" "row $id"
done
# the 405B H100 row as published (its result file: 1230.74 tokens/s, median ITL 73.54 ms)
expect_out '^  E5h +vllm-llama-3\.1-405b +1231 +[0-9]+ +[0-9]+ +73\.54 ' "E5h measured"

# pct LABEL FIELD : the percentage after "FIELD" on the line starting with LABEL.
pct() {
  grep -E "^  $1 " "$TMP/out" | sed -n "s/.*$2 \([0-9.]*\)%.*/\1/p" | head -n 1
}
# le A B DESC : A <= B.
le() {
  if [ -n "$1" ] && awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; then pass; else fail "$3: '$1' > $2"; fi
}
# Issue 15's target on E5 (the H100 rows): leave-one-group-out throughput MAPE <= 15%.
le "$(pct nvidia-h100-sxm 'throughput MAPE [0-9.]*%, leave-one-group-out')" 15 "E5 H100 LOO throughput MAPE"
# ... and over E1-E5 with the TensorRT-LLM rows E1-E4 (their offline leave-one-group-out)
expect_out '^issue 15 target \(LOO\): .* over rows E1-E5 \([1-9][0-9]* TensorRT-LLM, 8 vLLM on H100\)' "E1-E5 rows counted"
t=$(sed -n 's/^issue 15 target (LOO): throughput MAPE <= 15% over rows E1-E5 (.*): \([0-9.]*\)%$/\1/p' "$TMP/out")
le "$t" 15 "E1-E5 LOO throughput MAPE"
# Regression guards, not targets: over all 16 rows 13.7% and 21.3% when written; since the
# serving fit's pull toward its priors (servecal.h: linear_k 1.94 -> 4.25, weight_bw_frac
# 0.95 -> 0.80) 21.4% and 14.9%: the ITL nearer, the A100 8B rows' throughput further (no
# TensorRT-LLM row of the fit runs on an A100; their LOO predictions are 33-68% fast); 15.1%
# and 18.4% before the step model's 8-bit stage (issue 27), 17.5% and 21.1% after it (the
# serving cost shares the 16-bit stage's mm_dim_half and NVLink terms, which lost their
# Hopper rows).
le "$(pct 'all vLLM rows' 'throughput MAPE [0-9.]*%, leave-one-group-out')" 23 "all rows LOO throughput MAPE"
le "$(pct 'all vLLM rows' 'median ITL MAPE [0-9.]*%, leave-one-group-out')" 22 "all rows LOO ITL MAPE"
# the engine overhead is a host time of the order of a GPU step (5-50 ms), not a range edge
ov=$(sed -n 's/.*together: \([0-9.e-]*\) s .*/\1/p' "$TMP/out" | head -n 1)
if [ -n "$ov" ] && awk -v x="$ov" 'BEGIN { exit !(x > 0.005 && x < 0.05) }'; then pass; else fail "vllm_overhead_s '$ov'"; fi

# One evaluation path: `scale infer` with the fitted overhead (--engine-overhead) on E5h's setup
# (vLLM 0.5 without chunked prefill: --prefill-alone)
# reproduces the section's prediction for E5h (throughput and median ITL, to the printed digits
# and the simulator's 0.16% ITL bins).
pred=$(awk '$1 == "E5h" { print $4 }' "$TMP/out")
itl=$(awk '$1 == "E5h" { print $7 }' "$TMP/out")
run "$SCALE" infer --model llama-3-405b --hw nvidia-h100-sxm --chips 8 --weights fp8 --compute fp8 \
  --offline --lengths "$SCALE_SOURCE_DIR/measurements/serving-lengths/sharegpt-lambda-320.tsv" \
  --max-batch 256 --step-tokens 2048 --block 16 --kv-frac 0.9 --prefill-alone \
  --engine-overhead "$ov" --json
expect_rc 0 "infer on E5h's setup"
got=$(sed -n 's/.*"tokens_per_s": \([0-9.eE+-]*\),.*/\1/p' "$TMP/out" | head -n 1)
got_itl=$(sed -n 's/.*"itl_p50_s": \([0-9.eE+-]*\),.*/\1/p' "$TMP/out" | head -n 1)
if [ -n "$pred" ] && [ -n "$got" ] && awk -v a="$got" -v b="$pred" 'BEGIN { d = a / b - 1; exit !(d < 0.005 && d > -0.005) }'; then pass; else fail "infer $got vs validate $pred tokens/s"; fi
if [ -n "$itl" ] && [ -n "$got_itl" ] && awk -v a="$got_itl" -v b="$itl" 'BEGIN { d = 1000 * a / b - 1; exit !(d < 0.005 && d > -0.005) }'; then pass; else fail "infer ITL $got_itl s vs validate $itl ms"; fi

# a --measurements folder without serving-vllm/ (offline rows alone) has no vLLM section: exit 0
mkdir -p "$TMP/offline-only"
cp "$SCALE_SOURCE_DIR/measurements/serving-trtllm.tsv" "$TMP/offline-only/"
run "$SCALE" validate --serving --measurements "$TMP/offline-only"
expect_rc 0 "validate --serving on a folder without vLLM runs"
expect_out '^vLLM benchmark runs: none' "no vLLM section without serving-vllm/"

# (--json and --group keep the offline report only; test_validate.sh runs them: each run refits
# the offline set 13 times, minutes under sanitizers)

finish
