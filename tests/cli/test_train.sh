#!/bin/sh
# test_train.sh — `scale train`: layouts, JSON keys, run time and cost, one-line errors.
SCALE=$1
. "$(dirname "$0")/lib.sh"

L70="--model llama-3-70b --hw tpu-v5p --batch-tokens 4194304 --seq 4096"

run "$SCALE" train --help;         expect_rc 0 "train --help"; expect_out 'usage: scale train' "usage"
run "$SCALE" --help;               expect_out 'train ' "--help lists train"

# Book ch. 6: 1024-way data, 2-way sequence, 4-way tensor parallelism is compute-bound.
run "$SCALE" train $L70 --chips 8192 --fsdp 1024 --cp 2 --tp 4 --tokens 15e12 --roofline
expect_rc 0 "fsdp x cp x tp"; expect_no_nan "fsdp x cp x tp"; expect_out '^model: roofline' "names the roofline"
expect_out '^bound: compute' "FSDP x TP compute-bound"; expect_out 'training time' "run time"
expect_out 'cost +\$[0-9.]+ M$' "dollar cost (\$ and M, issue 17)"; expect_out 'fsdp-all-gather \(ici\)' "collective rows"
expect_out 'fits +yes' "fits"

# Book ch. 6: FSDP over batch and sequence on a full pod (468 tokens per chip) is comms-bound.
run "$SCALE" train $L70 --chips 8960 --fsdp 560 --cp 16 --roofline
expect_rc 0 "pure FSDP"; expect_out '^bound: comms at .*MFU.*: FSDP' "FSDP comms-bound"

# JSON keys of the issue, with and without a token budget.
run "$SCALE" train $L70 --chips 8192 --fsdp 1024 --cp 2 --tp 4 --tokens 15e12 --json
expect_rc 0 "--json"; expect_json "--json"
for key in step_time_s compute_time_s exposed_comms_time_s bubble_frac mfu tokens_per_s \
           memory_per_chip_bytes fits bound train_time_s cost_usd; do
  expect_out "\"$key\": " "json key $key"
done
run "$SCALE" train $L70 --chips 8192 --fsdp 1024 --cp 2 --tp 4 --json
if grep -q '"train_time_s"' "$TMP/out"; then fail "train_time_s without --tokens"; else pass; fi

# Pipelines on GPUs: TP inside the NVLink node, the rest over InfiniBand; bubble (p-1)/(v m).
run "$SCALE" train --model llama-3-8b --hw dgx-h100 --chips 64 --batch-tokens 1M --seq 8192 \
  --tp 8 --pp 2 --microbatches 8 --schedule interleaved --virtual-stages 2 --json
expect_rc 0 "pp interleaved"; expect_json "pp json"
expect_out '"bubble_frac": 0.0625,' "bubble (2-1)/(2 x 8)"
expect_out '"link": "nvlink"' "tp on nvlink"; expect_out '"link": "dcn"' "fsdp over IB"

# MoE with expert parallelism and Ulysses context parallelism.
run "$SCALE" train --model mixtral-8x7b --hw tpu-v5p --chips 64 --batch-tokens 1M --seq 4096 \
  --fsdp 16 --ep 8 --cp 4 --cp-kind ulysses --remat matmuls --roofline
expect_rc 0 "ep + ulysses"; expect_out 'ep-all-to-all' "AllToAll row"; expect_no_nan "moe"
run "$SCALE" train --model mixtral-8x7b --hw tpu-v5p --chips 64 --batch-tokens 1M --seq 4096 \
  --fsdp 16 --ep 8 --cp 4 --cp-kind ulysses --remat matmuls
expect_rc 0 "ep + ulysses, step model"; expect_out '^  ep \(ici\) .*critical path' "EP all-to-all with its rule"
expect_out '^  cp \(ici\) ' "Ulysses CP row"; expect_no_nan "moe, step model"

# The calibrated step model is the default (issue 14): it names itself, prints each number
# beside the roofline bound, and its breakdown by op and by communication with the rule.
run "$SCALE" train $L70 --chips 8192 --fsdp 1024 --cp 2 --tp 4 --tokens 15e12
expect_rc 0 "step model"; expect_no_nan "step model"
expect_out '^model: calibrated step model' "names the step model"
expect_out 'predicted +roofline bound' "prediction beside the bound"
expect_out '^  step time +[0-9.]+ [a-zµ]+ +[0-9.]+ [a-zµ]+$' "step time: two columns"
expect_out '^  mlp-up ' "op rows"; expect_out '^  tp \(ici\) .*critical path' "TP rule"
expect_out 'training time at the roofline' "run time beside the roofline's"
# --efficiency overrides the matmul ceiling only: communication times do not move, so a
# lower ceiling never makes communication look cheaper than it is.
comm_times() { awk '/"communication"/ { c = 1 } c && /"time_s"/ { print $2 }' "$TMP/out"; }
run "$SCALE" train $L70 --chips 8192 --fsdp 1024 --cp 2 --tp 4 --json; comm_times >"$TMP/c1"
mfu1=$(awk '$1 == "\"mfu\":" { print $2 }' "$TMP/out")
run "$SCALE" train $L70 --chips 8192 --fsdp 1024 --cp 2 --tp 4 --json --efficiency 0.5; comm_times >"$TMP/c2"
mfu2=$(awk '$1 == "\"mfu\":" { print $2 }' "$TMP/out")
if [ -s "$TMP/c1" ] && cmp -s "$TMP/c1" "$TMP/c2"; then pass; else fail "--efficiency moved communication times"; fi
if awk -v a="${mfu1%,}" -v b="${mfu2%,}" 'BEGIN { exit !(b < a) }'; then pass; else fail "--efficiency 0.5 did not lower MFU ($mfu1 -> $mfu2)"; fi
expect_out '"cost_model": "step"' "json names the model"; expect_out '"roofline_step_time_s": ' "json bound"
# --tp-overlap hides TP under the GEMMs on a GPU: never slower; on a TPU XLA always overlaps
# TP, so the flag changes nothing there
H70="--model llama-3-70b --hw nvidia-h100-sxm --chips 64 --batch-tokens 1Mi --seq 4096 --fsdp 8 --tp 8 --json"
run "$SCALE" train $H70; s1=$(awk '$1 == "\"step_time_s\":" { print $2; exit }' "$TMP/out")
run "$SCALE" train $H70 --tp-overlap; s2=$(awk '$1 == "\"step_time_s\":" { print $2; exit }' "$TMP/out")
if awk -v a="${s1%,}" -v b="${s2%,}" 'BEGIN { exit !(b < a) }'; then pass; else fail "--tp-overlap did not shorten the step ($s1 -> $s2)"; fi
run "$SCALE" train $L70 --chips 8192 --fsdp 1024 --cp 2 --tp 4 --json; s1=$(awk '$1 == "\"step_time_s\":" { print $2; exit }' "$TMP/out")
run "$SCALE" train $L70 --chips 8192 --fsdp 1024 --cp 2 --tp 4 --json --tp-overlap; s2=$(awk '$1 == "\"step_time_s\":" { print $2; exit }' "$TMP/out")
if [ -n "$s1" ] && [ "$s1" = "$s2" ]; then pass; else fail "--tp-overlap moved a TPU step ($s1 -> $s2)"; fi
# The mapping flags: TP over two torus axes is faster at the roofline than over one.
run "$SCALE" train $L70 --chips 8960 --fsdp 280 --tp 32 --sp --microbatches 2 --remat none --roofline --json
s1=$(awk '$1 == "\"step_time_s\":" { print $2; exit }' "$TMP/out")
run "$SCALE" train $L70 --chips 8960 --fsdp 280 --tp 32 --sp --microbatches 2 --remat none --roofline --json --tp-axes 2 --fsdp-axes 1
s2=$(awk '$1 == "\"step_time_s\":" { print $2; exit }' "$TMP/out")
if awk -v a="${s1%,}" -v b="${s2%,}" 'BEGIN { exit !(b < a) }'; then pass; else fail "--tp-axes 2 did not speed up TP ($s1 -> $s2)"; fi
expect_out '"n_axes": 2$' "json shows 2 axes"

# Memory: LLaMA 3 70B on 8 chips does not fit. One behaviour for "does not fit" in train and
# infer (issue 13 section 2): the whole report on stdout, one line on stderr, exit 1.
run "$SCALE" train $L70 --chips 8 --fsdp 8 --microbatches 128
expect_rc 1 "does not fit"; expect_out 'fits +no' "fits no"; expect_out '^bound: memory' "memory bound"
expect_out 'short by ' "report printed in full"
expect_err '^scale: train: the layout does not fit in HBM \([0-9.]+ [GT]B of 96 GB per chip\)$' "one-line verdict"
if [ "$(wc -l <"$TMP/err")" -eq 1 ]; then pass; else fail "does not fit: one stderr line"; fi
run "$SCALE" train $L70 --chips 8 --fsdp 8 --microbatches 128 --json
expect_rc 1 "does not fit --json"; expect_json "does not fit json"; expect_out '"fits": false' "json fits false"
run "$SCALE" train --help; expect_out 'does not fit in HBM prints the whole report' "--help documents it"

# Inconsistent layouts: one line, exit 2.
expect_usage_error "product" "$SCALE" train $L70 --chips 8960 --fsdp 1024 --tp 4
expect_err "not the 8960 chips" "names the product"
expect_usage_error "tp > heads" "$SCALE" train --model llama-2-13b --hw tpu-v5p --chips 128 --batch-tokens 1Mi --seq 4096 --fsdp 2 --tp 64
expect_err "query heads" "names the heads"
expect_usage_error "pp > layers" "$SCALE" train $L70 --chips 128 --fsdp 1 --pp 128 --microbatches 128
expect_err "deeper than" "names the layers"
expect_usage_error "ep on dense" "$SCALE" train $L70 --chips 64 --fsdp 64 --ep 8
expect_err "dense model" "names the dense model"
# Partial recompute: 40 of LLaMA 3 70B's 80 layers per stage (pp 2) recomputed. Half the
# layers rerun their forward, so the recompute FLOPs are half of full recompute's; the share
# is named in the layout line and in JSON; every 4th layer of a stage of 40 is 10 of them.
run "$SCALE" train $L70 --chips 64 --pp 2 --microbatches 16 --recompute full --json
full=$(awk '$1 == "\"remat_flops_per_chip\":" { print $2; exit }' "$TMP/out")
run "$SCALE" train $L70 --chips 64 --pp 2 --microbatches 16 --recompute full --recompute-layers 20 --json
half=$(awk '$1 == "\"remat_flops_per_chip\":" { print $2; exit }' "$TMP/out")
if awk -v a="${full%,}" -v b="${half%,}" 'BEGIN { r = b / (a / 2); exit !(r > 0.999999 && r < 1.000001) }'; then pass; else fail "--recompute-layers 20 of 40: remat FLOPs $half, not half of $full"; fi
expect_out '"remat_frac": 0.5,' "json names the share"
run "$SCALE" train $L70 --chips 64 --pp 2 --microbatches 16 --recompute full --recompute-every 4
expect_out 'remat block of 25% of the layers' "every 4th layer of 40: 10 of them"
expect_usage_error "recompute share without full" "$SCALE" train $L70 --chips 64 --recompute selective --recompute-layers 4
expect_usage_error "recompute share twice" "$SCALE" train $L70 --chips 64 --recompute-layers 4 --recompute-every 2
expect_usage_error "more layers than a stage" "$SCALE" train $L70 --chips 64 --pp 2 --microbatches 16 --recompute-layers 41
expect_err "exceeds the 40 layers of a stage" "names the stage"
expect_usage_error "every K past the stage" "$SCALE" train $L70 --chips 64 --recompute-every 81
expect_usage_error "cp kind" "$SCALE" train $L70 --chips 64 --cp 2 --cp-kind spiral
expect_usage_error "schedule" "$SCALE" train $L70 --chips 64 --pp 2 --schedule pipedream
expect_usage_error "missing model" "$SCALE" train --hw tpu-v5p --chips 8 --batch-tokens 1M --seq 4096
expect_usage_error "unknown model" "$SCALE" train --model gpt-9 --hw tpu-v5p --chips 8 --batch-tokens 1Mi --seq 4096
expect_usage_error "bad number" "$SCALE" train $L70 --chips 8.5
expect_usage_error "bad option" "$SCALE" train $L70 --chips 8 --bogus
expect_usage_error "efficiency" "$SCALE" train $L70 --chips 8 --efficiency 1.5
expect_usage_error "roofline + efficiency" "$SCALE" train $L70 --chips 8 --efficiency 0.5 --roofline
expect_usage_error "axes on a GPU" "$SCALE" train --model llama-3-8b --hw dgx-h100 --chips 64 --batch-tokens 1Mi --seq 8192 --tp 8 --tp-axes 2
expect_usage_error "too many axes" "$SCALE" train $L70 --chips 64 --tp 8 --tp-axes 4
expect_usage_error "pp-link" "$SCALE" train $L70 --chips 64 --pp 2 --pp-link carrier-pigeon
expect_usage_error "leftover chips" "$SCALE" train $L70 --chips 100 --tp 8

# Sizes that would overflow are refused naming the option, not blamed on the HBM or the
# matmuls (issue 13 section 2).
expect_usage_error "batch 1e300" "$SCALE" train --model llama-3-8b --hw tpu-v5e --chips 8 --batch-tokens 1e300 --seq 4096
expect_err '^scale: --batch-tokens: 1e300 is out of range' "names --batch-tokens"
expect_usage_error "efficiency 1e-300" "$SCALE" train --model llama-3-8b --hw tpu-v5e --chips 8 --batch-tokens 1M --seq 4096 --efficiency 1e-300
expect_err '^scale: --efficiency: 1e-300 is out of range' "names --efficiency"
# A tiny FLOP/s was blamed on "compute-bound: every link's collectives hide under the matmuls"
# (train) and "sizes too large" (roofline); the file is refused naming the key.
SRC=${SCALE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
TINY="$SRC/tests/data/hardware-bad/flops-tiny.ini"
run "$SCALE" train --model llama-3-8b --hw "$TINY" --chips 8 --batch-tokens 1M --seq 4096
expect_rc 1 "tiny FLOP/s refused"; expect_err 'flops-tiny.ini:[0-9]+: bf16_flops_per_s must be in \[1e9, 1e19\], got 1e-300$' "train names bf16_flops_per_s"
run "$SCALE" roofline --hw "$TINY" --flops 1e12 --bytes 1e9
expect_rc 1 "roofline: tiny FLOP/s refused"; expect_err 'bf16_flops_per_s must be in' "roofline names bf16_flops_per_s"

# Memory as practice measures it (issue 14 part 3, memory.h): LLaMA-3-8B at 8192 tokens on 8
# H100 with the distributed optimizer and 16 microbatches: recompute none keeps 43 GB of
# activations and does not fit, nor does Megatron's selective (with flash attention it drops
# only the log-sum-exp); full does, and so does the book's matmuls policy (7 tensors a layer);
# the H100 file's 5 GiB context is a row.
M8="--model llama-3-8b --hw nvidia-h100-sxm --chips 8 --fsdp 8 --zero 1 --batch-tokens 1048576 --seq 8192 --microbatches 16"
run "$SCALE" train $M8 --recompute none
expect_rc 1 "recompute none: out of memory"; expect_out 'fits +no' "none does not fit"
run "$SCALE" train $M8 --recompute full
expect_rc 0 "recompute full fits"; expect_out 'fits +yes' "full fits"
expect_out 'framework overhead +5.37 GB' "overhead row from [memory]"
run "$SCALE" train $M8 --recompute selective --json
expect_rc 1 "recompute selective: out of memory"; expect_out '"remat": "selective"' "selective in JSON"
run "$SCALE" train $M8 --remat matmuls --json
expect_rc 0 "matmuls --json"; expect_out '"overhead_bytes": 5368700000' "overhead in JSON"
expect_usage_error "recompute partial" "$SCALE" train $M8 --recompute partial
expect_err "^scale: --recompute: unknown mode 'partial' \(none, selective, full\)$" "names the modes"

# --precision: the recipe picks the chip file's per-format peak; a chip without it is refused
P8="--model llama-2-13b --hw nvidia-h100-sxm --chips 64 --batch-tokens 4Mi --seq 8192 --tp 8"
expect_usage_error "nvfp4 on H100" "$SCALE" train $P8 --precision nvfp4
expect_err "^scale: nvidia-h100-sxm has no nvfp4 matmuls \(fp4\); hardware with them: .*nvidia-b200" "names chips with fp4"
expect_usage_error "unknown precision" "$SCALE" train $P8 --precision fp7
run "$SCALE" train $P8 --precision fp8
expect_out "^precision: fp8 \(matmuls in fp8" "fp8 precision line"

# Pipeline schedules as measured (issue 27). Zero bubble H1 at m < pp: valid, priced, and the
# prediction names the formula it relies on and the pipeline that never fills.
G8="--model llama-3-8b --hw dgx-h100 --chips 64 --batch-tokens 1M --seq 8192"
run "$SCALE" train $G8 --tp 8 --pp 4 --microbatches 2 --schedule zb-h1
expect_rc 0 "m < pp"; expect_no_nan "m < pp"
expect_out '^assumes: zero-bubble H1.s deferred W passes fill the bubble' "the schedule's assumption"
expect_out '^assumes: with fewer microbatches than stages the pipeline never fills' "m < pp assumption"
run "$SCALE" train $G8 --tp 8 --pp 4 --microbatches 2 --schedule zb-h1 --json
expect_rc 0 "zb-h1 json"; expect_json "zb-h1 json"
expect_out '"schedule": "zb-h1"' "schedule name"
expect_out '"assumes": \[' "assumptions in json"; expect_out '"pp_embed_loss": false' "embed-loss key"
# 32 layers: 2 stages of 17 chunks need the embedding and the loss counted as stages
expect_usage_error "chunks over the layers" "$SCALE" train $G8 --tp 8 --pp 2 --microbatches 4 \
  --schedule interleaved --virtual-stages 17
run "$SCALE" train $G8 --tp 8 --pp 2 --microbatches 4 --schedule interleaved --virtual-stages 17 \
  --pp-embed-loss
expect_rc 0 "--pp-embed-loss"; expect_out 'embedding and loss as stages' "layout line"
expect_out '^assumes: the embedding and the loss each take a layer.s slot' "its assumption"
# DualPipe: two directions need an even pipeline
expect_usage_error "odd dualpipe" "$SCALE" train $G8 --tp 8 --pp 2 --microbatches 3 --schedule dualpipe
run "$SCALE" train $G8 --tp 8 --pp 2 --microbatches 4 --schedule dualpipe
expect_rc 0 "dualpipe"; expect_out '^assumes: DualPipe leaves' "dualpipe assumption"

# Coverage (issue 27): one caveat line names what no fitted group runs (measurements/README.md:
# the MoE groups run 128-256 experts, none Mixtral's 8; no row states a zero-bubble schedule), and a dense bf16 1F1B line on H100 (a
# fitted chip; dgx-h100 is built on it), a layout whose every feature a fitted row has, prints none.
G8i="--model llama-3-8b --hw dgx-h100 --chips 64 --batch-tokens 1Mi --seq 8192"
run "$SCALE" train $G8i --tp 8 --pp 2 --microbatches 4
expect_rc 0 "dense 1f1b"
if grep -q '^caveat' "$TMP/out"; then fail "dense bf16 1f1b on H100: a caveat"; else pass; fi
run "$SCALE" train $G8i --tp 8 --pp 2 --microbatches 4 --schedule zb-h1
n=$(grep -c '^caveat' "$TMP/out"); [ "$n" -eq 1 ] && pass || fail "zb-h1: $n caveat lines"
expect_out '^caveat: no fitted group covers zb-h1: these parts run on priors' "zb-h1 caveat"
# New network kinds (issue 31): the MI300X's xGMI full mesh and RoCE scale-out are fabrics no
# fitted row crossed (measurements/ has no AMD rows), so the one caveat line names both; a B300
# (NVLink switches, InfiniBand: the H100 rows' fabrics) names only the chip.
run "$SCALE" train --model llama-3-70b --hw amd-mi300x --chips 64 --batch-tokens 4Mi --seq 4096
expect_rc 0 "MI300X line"
expect_out "^caveat: no fitted group covers chip amd-mi300x, amd-mi300x's scale-up network \\(xgmi\\), amd-mi300x's scale-out network \\(roce\\): these parts run on priors" "xgmi and roce caveat"
run "$SCALE" train --model llama-3-70b --hw nvidia-b300 --chips 64 --batch-tokens 4Mi --seq 4096
expect_out '^caveat: no fitted group covers chip nvidia-b300: these parts' "B300: only the chip"
# (ZeRO-1 over the 32 data shards, as Megatron's distributed optimizer: at etp 1 each chip holds
# a whole expert of each layer: 86.5 GB with unsharded Adam states, over the HBM)
MX="--model mixtral-8x7b --hw dgx-h100 --chips 64 --batch-tokens 4Mi --seq 4096 --tp 2 --ep 8 --dp 1 --fsdp 32 --zero 1 --microbatches 16"
run "$SCALE" train $MX
expect_rc 0 "MoE line"
n=$(grep -c '^caveat' "$TMP/out"); [ "$n" -eq 1 ] && pass || fail "MoE: $n caveat lines"
expect_out '^caveat: no fitted group covers MoE with few experts \(E <= 16\):' "MoE caveat"
run "$SCALE" train $MX --json
expect_rc 0 "MoE --json"; expect_json "MoE --json"
expect_out '"uncovered_features": \[' "json list"; expect_out '"MoE with few experts \(E <= 16\)"' "json MoE"
# Expert TP and a capacity factor (issue 27): priced, and each named in the caveat (no fitted
# group runs either); an expert TP that does not divide tp is a one-line error.
QW="--model qwen3-235b-a22b --hw nvidia-h100-sxm --chips 256 --batch-tokens 8Mi --seq 4096 --dp 16 --fsdp 1 --tp 2 --sp --pp 8 --microbatches 128"
run "$SCALE" train $QW --ep 32
expect_rc 0 "EP 32 across DP 16 x TP 2"
run "$SCALE" train $QW --ep 16 --etp 2 --capacity-factor 1.25
expect_rc 0 "etp 2, capacity 1.25"
expect_out '^caveat: no fitted group covers .*expert tensor parallelism' "etp caveat"
expect_out '^caveat: no fitted group covers .*MoE capacity factor' "capacity caveat"
run "$SCALE" train $QW --ep 16 --etp 3
expect_rc 2 "etp 3 on tp 2"; expect_err 'etp 3 does not divide tp 2' "etp error"
run "$SCALE" train $MX --roofline
if grep -q '^caveat' "$TMP/out"; then fail "roofline: no fit behind it, no caveat"; else pass; fi

# --attn unfused: the attention core as Megatron 2021 and Megatron-DeepSpeed ran it (lib.training
# derives its saved bytes by hand); named in the layout line and in JSON, a typo refused.
AT="--model llama-3-8b --hw nvidia-h100-sxm --chips 8 --batch-tokens 32768 --seq 2048 --fsdp 8"
run "$SCALE" train $AT --attn unfused; expect_rc 0 "unfused attention"
expect_out '^layout: .*, unfused attention' "layout names it"
run "$SCALE" train $AT --attn unfused --json; expect_out '"attention": "unfused"' "json names it"
run "$SCALE" train $AT --json; expect_out '"attention": "flash"' "flash by default"
expect_usage_error "attn typo" "$SCALE" train $AT --attn fused

# --usd-per-chip-hour: the run's cost at the user's price, which scales it exactly (the file's
# H100 on-demand $10.8 against $2.70: a quarter), and says whose price it is.
PR="--model llama-3-8b --hw nvidia-h100-sxm --chips 8 --batch-tokens 32768 --seq 2048 --fsdp 8 --tokens 1e9 --json"
run "$SCALE" train $PR; cp "$TMP/out" "$TMP/pr0.json"
expect_out '"price_from": "the hardware file' "the file's price by default"
run "$SCALE" train $PR --usd-per-chip-hour 2.7; expect_rc 0 "user's price"
expect_out '"price_from": "--usd-per-chip-hour"' "says it is the user's"
if command -v python3 >/dev/null 2>&1; then
  if python3 - "$TMP/pr0.json" "$TMP/out" <<'EOF2'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(0 if abs(b["cost_usd"] / a["cost_usd"] - 2.7 / 10.8) < 1e-9 and b["usd_per_chip_hour"] == 2.7 else 1)
EOF2
  then pass; else fail "price: the cost scales with the chip-hour's price"; fi
fi
expect_usage_error "price of zero" "$SCALE" train $PR --usd-per-chip-hour 0
expect_usage_error "price above the range" "$SCALE" train $PR --usd-per-chip-hour 2e6

# The bound line agrees with the numbers beside it (issue 31: "compute: compute-bound" at 25%
# MFU): the kind once, the step's MFU and shares, and a GPU's links in the report's words.
run "$SCALE" train --model llama-3-405b --hw nvidia-h100-sxm --chips 16384 --batch-tokens 16Mi \
  --seq 8192 --tp 8 --sp --pp 16 --schedule interleaved --virtual-stages 4 --microbatches 16 \
  --fsdp 128 --zero 1 --remat matmuls
expect_out '^bound: compute at [0-9.]+% MFU \(ops [0-9]+% of the step, exposed communication [0-9]+%, bubble [0-9]+%\): the ops set the pace' "bound with its shares"
if grep -q 'compute-bound' "$TMP/out"; then fail "bound says compute-bound"; else pass; fi
expect_out '^layout: fsdp 128 \(scale-out\) x tp 8 \(scale-up\) x pp 16 \(scale-out\)' "GPU links named"

# --price PROVIDER:OFFER: a row of hardware/prices.tsv (AWS's H100 Capacity Block, $4.916 a
# chip-hour), the same cost as typing its number, said with its date and source; an offer the
# table lacks, or both options, is a usage error.
run "$SCALE" train $PR --price aws:reserved; expect_rc 0 "price by name"
expect_out '"price_from": "--price aws:reserved: aws reserved, 2024-12; aws.amazon.com' "names the row"
cp "$TMP/out" "$TMP/pr1.json"
run "$SCALE" train $PR --usd-per-chip-hour 4.916
if command -v python3 >/dev/null 2>&1; then
  if python3 - "$TMP/pr1.json" "$TMP/out" <<'EOF2'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(0 if a["cost_usd"] == b["cost_usd"] and a["usd_per_chip_hour"] == 4.916 else 1)
EOF2
  then pass; else fail "--price: the row's number, exactly"; fi
fi
expect_usage_error "an offer the table lacks" "$SCALE" train $PR --price aws:spot
expect_err "no price 'aws:spot' for nvidia-h100-sxm" "names the chip"
expect_usage_error "both prices" "$SCALE" train $PR --price aws:reserved --usd-per-chip-hour 3

# --trace FILE: the predicted step's timeline as Chrome trace-event JSON (Perfetto) whose last
# span ends at the step time the report prints, a thread per stream; .svg draws the chart;
# the roofline has no timeline; an unwritable path fails.
TR="--model llama-3-405b --hw nvidia-h100-sxm --chips 16384 --batch-tokens 16Mi --seq 8192 --tp 8 --sp --pp 16 --schedule interleaved --virtual-stages 4 --microbatches 16 --fsdp 128 --zero 1 --remat matmuls"
run "$SCALE" train $TR --json --trace "$TMP/step.json"; expect_rc 0 "trace written"
if command -v python3 >/dev/null 2>&1; then
  if python3 - "$TMP/out" "$TMP/step.json" <<'EOF2'
import json, sys
report, trace = (json.load(open(p)) for p in sys.argv[1:3])
x = [e for e in trace["traceEvents"] if e["ph"] == "X"]
names = {e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "thread_name"}
end = max(e["ts"] + e["dur"] for e in x) / 1e6
assert abs(end / report["step_time_s"] - 1) < 1e-9, (end, report["step_time_s"])
assert {"compute", "tp (scale-up)", "pp (scale-out)", "dp (scale-out)"} <= names, names
assert any(e["name"] == "exposed" and e["tid"] == 1 for e in x)  # TP's exposed part
EOF2
  then pass; else fail "trace: ends at the step, a thread per stream"; fi
fi
run "$SCALE" train $TR --trace "$TMP/step.svg"; expect_rc 0 "trace as a chart"
if grep -q '<svg' "$TMP/step.svg" && grep -q 'exposed communication' "$TMP/step.svg"; then pass; else
  fail "the chart is an SVG with its legend"; fi
expect_usage_error "trace of the roofline" "$SCALE" train $TR --roofline --trace "$TMP/r.json"
run "$SCALE" train $TR --trace /nonexistent/dir/t.json; expect_rc 1 "unwritable trace"
expect_err "cannot write '/nonexistent/dir/t.json'" "says which"

finish
