#!/bin/sh
# test_train_mamba.sh — `scale train` on Mamba-2 (issue 16): DP, FSDP, TP, PP and CP priced by
# the step model's parameters through scale_step_mamba2_result(), with the SSM's own
# communication (the CP state AllGather and conv halo, one TP AllReduce per layer); the
# numbers themselves are derived by hand in tests/lib/test_hybrid.c.
SCALE=$1
. "$(dirname "$0")/lib.sh"

M1="--model mamba-2-1b-amer --hw ascend-910b --chips 8 --batch-tokens 4194304 --seq 4096"

run "$SCALE" train $M1 --dp 8 --microbatches 128
expect_rc 0 "mamba dp"; expect_no_nan "mamba dp"
expect_out '^model: calibrated step model' "step model, not the roofline"
expect_out '^  dp \(mesh\)' "gradient all-reduce on the HCCS mesh"

run "$SCALE" train $M1 --fsdp 8 --zero 3 --microbatches 128
expect_rc 0 "mamba fsdp"; expect_no_nan "mamba fsdp"
expect_out '^  fsdp \(mesh\) .*exposed' "ZeRO-3 gathers per layer"

run "$SCALE" train $M1 --dp 4 --tp 2 --microbatches 256
expect_rc 0 "mamba tp"; expect_no_nan "mamba tp"
expect_out '^  tp \(mesh\)' "one TP all-reduce per layer, forward and backward"

run "$SCALE" train $M1 --cp 8 --microbatches 1024
expect_rc 0 "mamba cp"; expect_no_nan "mamba cp"
expect_out '^  cp \(mesh\)' "the state AllGather and halo"

# 1F1B over 4 stages and 512 microbatches: bubble (4 - 1) / 512 = 0.005859375
run "$SCALE" train $M1 --dp 2 --pp 4 --microbatches 512 --json
expect_rc 0 "mamba pp"; expect_json "mamba pp json"
expect_out '"bubble_frac": 0.005859375,' "bubble (p-1)/m"
expect_out '"name": "pp"' "pipeline sends"

# CP's traffic per microbatch does not grow with the sequence (Table 8): the cp time of
# 1024 microbatches of 4K is 4 times that of 256 of 16K
cp_time() { sed -n '/"name": "cp"/,/}/s/.*"time_s": \([0-9.e+-]*\).*/\1/p' "$TMP/out"; }
run "$SCALE" train $M1 --cp 8 --microbatches 1024 --json; a=$(cp_time)
run "$SCALE" train --model mamba-2-1b-amer --hw ascend-910b --chips 8 --batch-tokens 4194304 \
  --seq 16384 --cp 8 --microbatches 256 --json; b=$(cp_time)
if [ -n "$a" ] && [ -n "$b" ] && awk -v a="$a" -v b="$b" 'BEGIN { r = a / (4 * b); exit !(r > 0.999999 && r < 1.000001) }'; then
  pass
else
  fail "cp time at 4K ($a) is not 4 x that at 16K ($b)"
fi

# Bad layouts: one line, exit 2.
expect_usage_error "tp not dividing the groups" "$SCALE" train --model mamba-2-1b-amer \
  --hw ascend-910b --chips 16 --batch-tokens 4194304 --seq 4096 --tp 16
expect_err "16 does not divide the 8 SSM groups" "names the groups"
expect_usage_error "tp not dividing the heads" "$SCALE" train --model mamba-2-1b-amer \
  --hw ascend-910b --chips 6 --batch-tokens 4194304 --seq 4096 --tp 3 --dp 2
expect_err "3 does not divide the 64 SSM heads" "names the heads"
finish
