#!/bin/sh
# test_model.sh — `scale model` on inputs that parse but break the model (issue 13 section 2):
# bad counts in model files, and one context range shared with `scale infer`.
SCALE=$1
. "$(dirname "$0")/lib.sh"
SRC=${SCALE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BAD="$SRC/tests/data/models-bad"

# Counts out of their physical range: file:line naming the key and its range, exit 1.
# d_model = expand = 2^32 overflowed expand x D in 64 bits (a UBSan abort before).
run "$SCALE" model show "$BAD/mamba-overflow.ini"; expect_rc 1 "d_model 2^32"
line=$(grep -n '^d_model = ' "$BAD/mamba-overflow.ini" | cut -d: -f1)
expect_err "^$BAD/mamba-overflow.ini:$line: d_model must be a whole number in \[1, 1e7\], got 4294967296\$" "d_model range"
run "$SCALE" model show "$BAD/mamba-chunk-zero.ini"; expect_rc 1 "chunk_size 0"
line=$(grep -n '^chunk_size = ' "$BAD/mamba-chunk-zero.ini" | cut -d: -f1)
expect_err "^$BAD/mamba-chunk-zero.ini:$line: chunk_size must be a whole number in \[1, 1e6\], got 0\$" "chunk_size range"
run "$SCALE" model show "$BAD/mamba-no-chunk.ini"; expect_rc 1 "chunk_size missing"
expect_err "missing required key 'chunk_size' in \[mamba2\]" "chunk_size required"
# The planner and train load through the same loader.
run "$SCALE" infer --model "$BAD/mamba-chunk-zero.ini" --hw tpu-v5e --chips 1 --batch 1 --context 128
expect_rc 1 "infer refuses the file"; expect_err 'chunk_size must be' "infer names the key"

# One context range for `model show` and `infer`: within the model's trained context (LLaMA 3
# 8B: 8192). Both refuse 16384 with the same words, as a usage error.
run "$SCALE" model show llama-3-8b --context 8192; expect_rc 0 "context at the maximum"
expect_usage_error "model show context beyond the maximum" "$SCALE" model show llama-3-8b --context 16384
expect_err "^scale: model show: context 16384 exceeds llama-3-8b's maximum of 8192 tokens\$" "model show names the maximum"
expect_usage_error "infer context beyond the maximum" "$SCALE" infer --model llama-3-8b --hw tpu-v5e --chips 1 --batch 1 --context 16384
expect_err "^scale: infer: context 16384 exceeds llama-3-8b's maximum of 8192 tokens\$" "infer names the maximum"
# 1e308 is refused by both before any arithmetic, naming the option.
expect_usage_error "model show context 1e308" "$SCALE" model show llama-3-8b --context 1e308
expect_err "^scale: --context: 1e308 is out of range" "model show --context 1e308"
expect_usage_error "infer context 1e308" "$SCALE" infer --model llama-3-8b --hw tpu-v5e --chips 1 --batch 1 --context 1e308
expect_err "^scale: --context: 1e308 is out of range" "infer --context 1e308"

finish
