#!/bin/sh
# test_infer.sh — `scale infer`: report, JSON keys, the does-not-fit verdict, usage errors.
SCALE=$1
. "$(dirname "$0")/lib.sh"

run "$SCALE" infer --help;         expect_rc 0 "infer --help"; expect_out 'usage: scale infer' "infer --help"
run "$SCALE" --help;               expect_out '^  infer ' "--help lists infer"

# ch. 8: LLaMA 3 70B, batch 32, 8192 tokens, int8 weights and KV on a v5e 4x2: about 17 ms/step
# (memory-bound; the book's 17 ms), fits.
run "$SCALE" infer --model llama-3-70b --hw tpu-v5e --chips 8 --batch 32 --context 8192 --weights int8 --kv int8
expect_rc 0 "4x2 int8"; expect_out 'step time +17\.[0-9] ms' "17 ms step"
expect_out 'KV cache per token +164 kB' "163,840 bytes per token"; expect_out 'fits +yes' "fits"
expect_out 'bound by +params' "weight-loading bound"; expect_no_nan "4x2 report"

# JSON: the keys of issue 6, SI base units.
run "$SCALE" infer --model llama-3-70b --hw tpu-v5e --chips 8 --batch 32 --context 8192 --weights int8 --kv int8 --json
expect_rc 0 "--json"; expect_json "--json parses"
for key in prefill_time_s decode_step_time_s tokens_per_s tokens_per_s_per_chip latency_per_token_s \
  memory_per_chip_bytes kv_bytes_per_token fits max_batch cost_usd_per_million_tokens; do
  expect_out "\"$key\": " "json key $key"
done
expect_out '"kv_bytes_per_token": 163840,' "json KV per token"
expect_out '"fits": true' "json fits"
if command -v python3 >/dev/null 2>&1; then
  if python3 - "$TMP/out" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert abs(d["decode_step_time_s"] - 0.01728) / 0.01728 < 0.01, d["decode_step_time_s"]
assert abs(d["tokens_per_s_per_chip"] - d["tokens_per_s"] / 8) < 1e-9
assert abs(d["latency_per_token_s"] - d["decode_step_time_s"]) < 1e-15
# cost = 8 chips x $1.2/h / tokens_per_s, per million tokens
assert abs(d["cost_usd_per_million_tokens"] - 8 * 1.2 / 3600 / d["tokens_per_s"] * 1e6) < 1e-9
EOF
  then pass; else fail "json values (17 ms step, per-chip throughput, cost)"; fi
fi

# Prefill: 8192 tokens at 40% MFU on 16 v5e, about a second (the book's 2ND rule: 0.91 s).
run "$SCALE" infer --model llama-3-70b --hw tpu-v5e --chips 16 --batch 16 --context 8192 --mfu 0.4 --json
expect_rc 0 "prefill"
expect_out '"prefill_time_s": 0\.9[0-9]' "prefill about 0.97 s"

# Does not fit: bf16 LLaMA 3 70B at batch 64 on 16 v5e. Report, verdict, the largest batch, exit 1.
run "$SCALE" infer --model llama-3-70b --hw tpu-v5e --chips 16 --batch 64 --context 8192
expect_rc 1 "does not fit"; expect_out 'fits +NO' "fits NO"
expect_out 'verdict: batch 64 does not fit.*largest batch that fits is 41' "verdict with max batch"
expect_err '^scale: infer: batch 64 does not fit.*largest batch that fits is 41' "one-line error"
run "$SCALE" infer --model llama-3-70b --hw tpu-v5e --chips 16 --batch 64 --context 8192 --json
expect_rc 1 "does not fit --json"; expect_json "does not fit json"; expect_out '"fits": false' "json fits false"
expect_out '"max_batch": 41,' "json max_batch"
# ... and the largest batch it names does fit.
run "$SCALE" infer --model llama-3-70b --hw tpu-v5e --chips 16 --batch 41 --context 8192
expect_rc 0 "max batch fits"

# GPU, data parallelism and options.
run "$SCALE" infer --model llama-3-70b --hw nvidia-h100-sxm --chips 8 --batch 64 --context 4096 --weights fp8 --kv fp8 --compute fp8
expect_rc 0 "H100 fp8"; expect_no_nan "H100 report"
run "$SCALE" infer --model llama-3-8b --hw tpu-v5e --chips 8 --tp 4 --batch 16 --context 4096 --weights int8
expect_rc 0 "tp 4 on 8 chips"
run "$SCALE" infer --model mixtral-8x7b --hw tpu-v5p --chips 8 --ep 8 --batch 64 --context 4096 --kv-sharding heads --2d
expect_rc 0 "MoE, ep, heads, 2d"; expect_no_nan "MoE report"
run "$SCALE" infer --model mamba-2-2.7b --hw tpu-v5e --chips 1 --batch 8 --context 2048
expect_rc 0 "Mamba-2"; expect_no_nan "Mamba-2 report"

# The calibrated step model predicts prefill and decode by default (issue 14), beside the book's
# formulas; --roofline prints the book only; Mamba-2 falls back to the roofline and says so.
run "$SCALE" infer --model llama-3-70b --hw tpu-v5e --chips 8 --batch 32 --context 8192 --weights int8 --kv int8
expect_out '^model: calibrated step model' "names the step model"
expect_out '^  decode step +[0-9.]+ [mµ]s +17\.[0-9] ms$' "decode prediction beside the book's 17 ms"
expect_out 'not validated against a serving measurement' "says serving is not validated"
run "$SCALE" infer --model llama-3-70b --hw tpu-v5e --chips 8 --batch 32 --context 8192 --weights int8 --kv int8 --json
expect_json "step json"; expect_out '"cost_model": "step"' "json names the model"
expect_out '"decode_step_time_s": ' "json prediction"
# the prediction is never below the roofline's bound
pred=$(awk '/"predicted"/ { p = 1 } p && $1 == "\"decode_step_time_s\":" { print $2; exit }' "$TMP/out")
book=$(awk '$1 == "\"decode_step_time_s\":" { print $2; exit }' "$TMP/out")
if awk -v a="${pred%,}" -v b="${book%,}" 'BEGIN { exit !(a >= b && a > 0) }'; then pass; else fail "decode prediction $pred below the bound $book"; fi
run "$SCALE" infer --model llama-3-70b --hw tpu-v5e --chips 8 --batch 32 --context 8192 --weights int8 --kv int8 --roofline
expect_out '^model: roofline' "--roofline names the roofline"
if grep -q 'step model' "$TMP/out"; then fail "--roofline still predicts"; else pass; fi
run "$SCALE" infer --model mamba-2-2.7b --hw tpu-v5e --chips 1 --batch 8 --context 2048
expect_out 'step model prices transformers only' "Mamba-2: roofline, said"

# Usage errors: one line, exit 2.
expect_usage_error "batch 0" "$SCALE" infer --model llama-3-70b --hw tpu-v5e --chips 16 --batch 0 --context 8192
expect_err 'batch' "names the batch"
expect_usage_error "context beyond max" "$SCALE" infer --model llama-3-70b --hw tpu-v5e --chips 16 --batch 8 --context 16384
expect_err "context 16384 exceeds llama-3-70b's maximum of 8192 tokens" "names the maximum"
expect_usage_error "missing --model" "$SCALE" infer --hw tpu-v5e --chips 16 --batch 8 --context 8192
expect_usage_error "missing --chips" "$SCALE" infer --model llama-3-70b --hw tpu-v5e --batch 8 --context 8192
expect_usage_error "unknown model" "$SCALE" infer --model gpt-9 --hw tpu-v5e --chips 16 --batch 8 --context 8192
expect_usage_error "unknown hardware" "$SCALE" infer --model llama-3-70b --hw tpu-v9 --chips 16 --batch 8 --context 8192
expect_usage_error "bad dtype" "$SCALE" infer --model llama-3-70b --hw tpu-v5e --chips 16 --batch 8 --context 8192 --weights int3
expect_usage_error "tp not dividing" "$SCALE" infer --model llama-3-70b --hw tpu-v5e --chips 16 --tp 3 --batch 8 --context 8192
expect_usage_error "tp beyond NVLink" "$SCALE" infer --model llama-3-70b --hw nvidia-h100-sxm --chips 16 --batch 8 --context 4096
expect_usage_error "mfu > 1" "$SCALE" infer --model llama-3-70b --hw tpu-v5e --chips 16 --batch 8 --context 8192 --mfu 1.5
expect_usage_error "bad kv-sharding" "$SCALE" infer --model llama-3-70b --hw tpu-v5e --chips 16 --batch 8 --context 8192 --kv-sharding rows
expect_usage_error "bad option" "$SCALE" infer --bogus
expect_usage_error "extra argument" "$SCALE" infer --model llama-3-70b --hw tpu-v5e --chips 16 --batch 8 --context 8192 extra
expect_usage_error "non-integer batch" "$SCALE" infer --model llama-3-70b --hw tpu-v5e --chips 16 --batch 2.5 --context 8192

# A batch that would overflow names the option (it was "cannot evaluate this layout (missing
# hardware figures?)"); a 16-digit prime tp is refused at once (issue 13 section 2).
expect_usage_error "batch 1e300" "$SCALE" infer --model llama-3-8b --hw tpu-v5e --chips 1 --batch 1e300 --context 100
expect_err '^scale: --batch: 1e300 is out of range' "names --batch"
run timeout 20 "$SCALE" infer --model llama-3-8b --hw tpu-v5e --chips 9007199254740881 --batch 9007199254740881 --context 64
expect_rc 2 "prime tp refused"; expect_err 'does not fit the 16x16x1 pod' "says why"

finish
