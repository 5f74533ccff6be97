#!/bin/sh
# test_plan.sh — `scale plan train`: ranked output, JSON keys, budgets, usage errors.
SCALE=$1
. "$(dirname "$0")/lib.sh"

run "$SCALE" plan --help; expect_rc 0 "plan --help"; expect_out 'usage: scale plan train' "usage"

# The book's LLaMA 3 70B question (ch. 6): a full v5p pod, 4M-token batches.
run "$SCALE" plan train --model llama-3-70b --hw tpu-v5p --chips 8960 --batch-tokens 4M --seq 4096 --tokens 15T
expect_rc 0 "plan train v5p"; expect_out '^ 1\. ' "ranked list"; expect_out '^why: ' "explanation"
expect_out '^pruned: tp-divisibility' "pruning report"; expect_no_nan "plan text"

# The step model's explanation names the runner-up's largest exposed communication with its
# whole rule (once cut mid-word by a 200-byte buffer) and formats times with units.
run "$SCALE" plan train --model llama-3-8b --hw nvidia-h100-sxm --chips 256 --batch-tokens 4Mi --seq 4096
expect_rc 0 "plan train H100"
expect_out '^why: .*slower per step \(step model\).*largest exposed communication is .*\)\.$' "whole explanation"
# unformatted: an exponent, or a time under a millisecond printed in ms ('0.567 ms', not '567 us')
if grep '^why: ' "$TMP/out" | grep -Eq '[0-9]e[+-][0-9]|[^0-9.]0\.[0-9]+ ms'; then fail "explanation times unformatted"; else pass; fi

run "$SCALE" plan train --model llama-3-70b --hw tpu-v5p --chips 8960 --batch-tokens 4M --seq 4096 --tokens 15T --json --top 3
expect_rc 0 "plan --json"; expect_json "plan json"
for key in '"best"' '"ranked"' '"layouts_evaluated"' '"layouts_pruned"' '"step_time_s"' '"mfu"' '"memory_per_chip_bytes"' '"cost_usd"' '"layouts_per_s"'; do
  expect_out "$key" "json key $key"
done
if command -v python3 >/dev/null 2>&1; then
  if python3 - "$TMP/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["ranked"]) == 3, d["ranked"]
assert d["best"] == d["ranked"][0], d["best"]
assert d["layouts_enumerated"] > 1e6 and d["layouts_evaluated"] > 1e5
for e in d["ranked"]:
    assert e["dp"] * e["fsdp"] * e["tp"] * e["pp"] * e["cp"] == 8960
    assert e["fits"] is True
s = [e["step_time_s"] for e in d["ranked"]]
assert s == sorted(s)
PY
  then pass; else fail "plan json content"; fi
fi

# A chip range with a budget: the cheapest run under $50M of LLaMA 3 8B on v5e.
run "$SCALE" plan train --model llama-3-8b --hw tpu-v5e --chips 64:256 --batch-tokens 1M --seq 4096 --tokens 1T --objective cost --budget-usd 50M
expect_rc 0 "range + budget"; expect_out 'cost objective' "objective shown"

# Nothing fits: a 405B model on 8 chips.
run "$SCALE" plan train --model llama-3-405b --hw tpu-v5e --chips 8 --batch-tokens 64K --seq 4096
expect_rc 1 "nothing fits"; expect_err 'no layout of llama-3-405b on tpu-v5e fits' "says why"
run "$SCALE" plan train --help; expect_out 'do not fit in HBM are pruned' "--help: plan prunes what does not fit"

# Serving: LLaMA 3 70B on v5e within 50 ms per token.
run "$SCALE" plan infer --model llama-3-70b --hw tpu-v5e --prompt 2048 --output 512 --latency 0.05
expect_rc 0 "plan infer"; expect_out '^ 1\. 8 chips' "int8 on 8 chips is the book's smallest slice"
expect_out '^frontier of the best slice' "frontier"; expect_no_nan "plan infer text"
# Three significant figures, as everywhere else (issue 17 §5: it printed 857.7 and 45.52).
if grep -Eq '([0-9]{4}|[0-9]{3}\.[0-9]|[0-9]{2}\.[0-9]{2}|[0-9]\.[0-9]{3}) tokens/s/chip|^ +[0-9]+ +[0-9.]+ [mµ]?s +([0-9]{3}\.[0-9]|[0-9]{2}\.[0-9]{2}|[0-9]\.[0-9]{3}) ' "$TMP/out"
then fail "plan infer prints more than 3 significant figures"; else pass; fi
run "$SCALE" plan infer --model llama-3-70b --hw tpu-v5e --prompt 2048 --output 512 --json --objective cost
expect_rc 0 "plan infer json"; expect_json "plan infer json"
expect_out '"cost_usd_per_million_tokens"' "cost key"; expect_out '"frontier"' "frontier key"
expect_out '"best": \{' "best key"
run "$SCALE" plan infer --model llama-3-70b --hw tpu-v5e --prompt 2048 --output 512 --latency 1e-6
expect_rc 1 "impossible latency"; expect_err 'meets the target' "says why"
expect_usage_error "infer missing prompt" "$SCALE" plan infer --model llama-3-70b --hw tpu-v5e --output 512
expect_usage_error "infer bad dtype" "$SCALE" plan infer --model llama-3-70b --hw tpu-v5e --prompt 1 --output 1 --kv-dtypes int3
expect_usage_error "infer context too long" "$SCALE" plan infer --model llama-3-70b --hw tpu-v5e --prompt 100000 --output 512

expect_usage_error "missing target" "$SCALE" plan
expect_usage_error "unknown target" "$SCALE" plan serve
expect_usage_error "missing model" "$SCALE" plan train --hw tpu-v5p --chips 8 --batch-tokens 1M --seq 4096
expect_usage_error "unknown hw" "$SCALE" plan train --model llama-3-8b --hw tpu-v9 --chips 8 --batch-tokens 1Mi --seq 4096
expect_usage_error "bad chips" "$SCALE" plan train --model llama-3-8b --hw tpu-v5e --chips 0 --batch-tokens 1Mi --seq 4096
expect_usage_error "bad range" "$SCALE" plan train --model llama-3-8b --hw tpu-v5e --chips 64:8 --batch-tokens 1Mi --seq 4096
expect_usage_error "batch < seq" "$SCALE" plan train --model llama-3-8b --hw tpu-v5e --chips 8 --batch-tokens 1K --seq 4096
expect_usage_error "bad objective" "$SCALE" plan train --model llama-3-8b --hw tpu-v5e --chips 8 --batch-tokens 1M --seq 4096 --objective speed
expect_usage_error "budget without tokens" "$SCALE" plan train --model llama-3-8b --hw tpu-v5e --chips 8 --batch-tokens 1M --seq 4096 --budget-usd 1M
expect_usage_error "bad --no" "$SCALE" plan train --model llama-3-8b --hw tpu-v5e --chips 8 --batch-tokens 1M --seq 4096 --no xp

# pod_y = 1e308 made the slice loop `chips *= 2` run forever (issue 13 section 2): the file is
# now refused at load, and a huge --max-chips is refused too; neither may hang.
SRC=${SCALE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
run timeout 60 "$SCALE" plan infer --model llama-3-8b --hw "$SRC/tests/data/hardware-bad/pod-y-huge.ini" --prompt 1000 --output 100
expect_rc 1 "pod_y 1e308 refused, no hang"; expect_err 'pod-y-huge.ini:[0-9]+: pod_y must be a whole number in \[1, 65536\]' "names pod_y"
run timeout 60 "$SCALE" plan infer --model llama-3-8b --hw tpu-v5e --prompt 1000 --output 100 --max-chips 1e30
expect_rc 2 "max-chips beyond 1e9"; expect_err 'max chips' "says why"


# One evaluation path (issue 14): every layout the planner prints comes with the scale train
# line that reproduces it; the top 5 of the three standard searches (tests/bench/plan_bench.c),
# re-evaluated through that line, give the same step time, MFU and memory to 17 digits.
# field KEY FILE : the values of "KEY": in the ranked entries of a plan (or all of a train).
field() { awk -v k="\"$1\":" 'index($0, "\"ranked\"") { r = 1 } r && $1 == k { v = substr($0, index($0, k) + length(k) + 1); sub(/,$/, "", v); print v }' "$2"; }
reproduce() {
  label=$1; shift
  run "$SCALE" plan train "$@" --top 5 --json
  expect_rc 0 "$label: plan"
  cp "$TMP/out" "$TMP/plan.json"
  n=$(field command "$TMP/plan.json" | wc -l)
  if [ "$n" -eq 5 ]; then pass; else fail "$label: $n commands, expected 5"; fi
  i=0
  field command "$TMP/plan.json" | sed 's/^"scale train //; s/"$//' >"$TMP/commands"
  while read -r args; do
    i=$((i + 1))
    # shellcheck disable=SC2086
    run "$SCALE" train $args --json
    if [ "$rc" -ne 0 ]; then fail "$label #$i: scale train $args exited $rc: $(head -c 300 "$TMP/err")"; continue; fi
    for key in step_time_s mfu memory_per_chip_bytes; do
      want=$(field "$key" "$TMP/plan.json" | sed -n "${i}p")
      got=$(awk -v k="\"$key\":" '$1 == k { v = $2; sub(/,$/, "", v); print v; exit }' "$TMP/out")
      if [ -n "$want" ] && [ "$want" = "$got" ]; then pass; else fail "$label #$i: $key $got from scale train, $want from the plan ($args)"; fi
    done
  done <"$TMP/commands"
}
reproduce "llama-3-70b on 8960 v5p" --model llama-3-70b --hw tpu-v5p --chips 8960 --batch-tokens 4194304 --seq 4096 --tokens 15T
reproduce "llama-3-405b on 16384 h100" --model llama-3-405b --hw nvidia-h100-sxm --chips 16384 --batch-tokens 16777216 --seq 8192
reproduce "deepseek-v3 on 2048 h100" --model deepseek-v3 --hw nvidia-h100-sxm --chips 2048 --batch-tokens 62914560 --seq 4096
# Issue 27: no one runs DeepSeek-V3 without expert parallelism (DeepSeek: EP 64; the planner
# once picked TP 4 without it): every ranked layout has ep > 1.
field ep "$TMP/plan.json" | grep -v '"' >"$TMP/ep" # the degrees, not the links
if [ "$(wc -l <"$TMP/ep")" -eq 5 ] && ! grep -qx '1' "$TMP/ep"; then pass; else fail "deepseek-v3 on 2048 h100: a ranked layout without EP ($(tr '\n' ' ' <"$TMP/ep"))"; fi
# and under the roofline, where the TPU torus axes are split as the book splits them
reproduce "llama-3-70b on 8960 v5p, roofline" --model llama-3-70b --hw tpu-v5p --chips 8960 --batch-tokens 4194304 --seq 4096 --roofline
run "$SCALE" plan train --model llama-3-70b --hw tpu-v5p --chips 8960 --batch-tokens 4194304 --seq 4096 --roofline
expect_out '--tp-axes 2' "a layout with TP over two torus axes prints --tp-axes 2"
expect_out 'model: roofline' "names the roofline"
# A tie on step time is broken by memory, and the line says by how much (issue 17 §5: it said
# "37.4 GB against 37.4 GB").
expect_out 'ties within 0\.05% of the step time; the best wins by needing less memory per chip \([0-9.]+ [kMGT]?B, [0-9.]+ [kMGT]?B less\)' "the memory tie-break names the difference"
run "$SCALE" plan train --model llama-3-70b --hw tpu-v5p --chips 8960 --batch-tokens 4194304 --seq 4096
expect_out 'model: calibrated step model' "names the step model"
expect_out '^    roofline bound: step [0-9.]+ [mµ]?s, MFU [0-9.]+%$' "each layout beside its roofline bound"
if grep -q 'axises' "$TMP/out"; then fail "'axises' in the plan"; else pass; fi
# A chip range beyond the planner's limit is refused before any search (it used to try ~30 counts).
expect_usage_error "chips beyond 1e9" "$SCALE" plan train --model llama-3-8b --hw tpu-v5e --chips 1:1e15 --batch-tokens 1Mi --seq 4096
expect_usage_error "roofline with efficiency" "$SCALE" plan train --model llama-3-8b --hw tpu-v5e --chips 8 --batch-tokens 1M --seq 4096 --roofline --efficiency 0.5
# --schedule LIST restricts the search to the named pipeline schedules (issue 27).
run "$SCALE" plan train --model llama-3-8b --hw dgx-h100 --chips 64 --batch-tokens 1M --seq 8192 \
  --no cp,fsdp,dp --top 20 --schedule 1f1b,zb-h1 --json
expect_rc 0 "--schedule list"
if grep -E '"schedule": "(gpipe|interleaved|zb-h2|zb-v|dualpipe)"' "$TMP/out" >/dev/null; then
  fail "--schedule 1f1b,zb-h1 ranked another schedule"; else pass; fi
expect_out '"schedule": "zb-h1"' "zb-h1 searched"
expect_usage_error "unknown schedule" "$SCALE" plan train --model llama-3-8b --hw dgx-h100 \
  --chips 64 --batch-tokens 1M --seq 8192 --schedule pipedream

# Coverage (issue 27): the best layout of a Mixtral job names its few experts, which no fitted
# MoE group has, in one caveat line (and in JSON);
# a dense job whose best layout a fitted row covers prints none.
run "$SCALE" plan train --model mixtral-8x7b --hw nvidia-h100-sxm --chips 64 --batch-tokens 4Mi --seq 4096 --top 2
expect_rc 0 "MoE plan"
n=$(grep -c '^caveat' "$TMP/out"); [ "$n" -eq 1 ] && pass || fail "MoE plan: $n caveat lines"
expect_out '^caveat: no fitted group covers MoE with few experts \(E <= 16\)' "MoE plan caveat"
run "$SCALE" plan train --model mixtral-8x7b --hw nvidia-h100-sxm --chips 64 --batch-tokens 4Mi --seq 4096 --top 2 --json
expect_json "MoE plan --json"; expect_out '"uncovered_features": \[' "json list"
run "$SCALE" plan train --model llama-3-8b --hw nvidia-h100-sxm --chips 256 --batch-tokens 4Mi --seq 4096 --top 1
expect_rc 0 "dense plan"
if grep -q '^caveat' "$TMP/out"; then fail "dense plan: a caveat ($(grep '^caveat' "$TMP/out"))"; else pass; fi

# --precision LIST searches each listed recipe (issue 27). On an H100 the fp8 peak is twice
# bf16's, so an 8B model's compute-bound best layout is faster in fp8; the best's reproduce
# line carries --precision fp8, and that scale train line prices the same step to the digit.
PT="plan train --model llama-3-8b --hw nvidia-h100-sxm --chips 64 --batch-tokens 4Mi --seq 8192 --top 1"
run "$SCALE" $PT --precision bf16,fp8 --json
expect_rc 0 "--precision bf16,fp8"; expect_out '"precision": "fp8"' "fp8 chosen"
cp "$TMP/out" "$TMP/both.json"
run "$SCALE" $PT --json
expect_rc 0 "--precision default"; expect_out '"precision": "bf16"' "bf16 by default"
if grep -q -- '--precision' "$TMP/out"; then fail "bf16 reproduce line names --precision"; else pass; fi
cp "$TMP/out" "$TMP/bf16.json"
if command -v python3 >/dev/null 2>&1; then
  CMD=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["best"]["command"])' "$TMP/both.json")
  run "$SCALE" ${CMD#scale } --json
  expect_rc 0 "fp8 reproduce line"
  if python3 - "$TMP/both.json" "$TMP/bf16.json" "$TMP/out" <<'PY'
import json, sys
both, bf16, again = (json.load(open(f)) for f in sys.argv[1:])
t = both["best"]["step_time_s"]
assert "--precision fp8" in both["best"]["command"], both["best"]["command"]
assert abs(again["step_time_s"] - t) <= 1e-9 * t, (again["step_time_s"], t)
assert t < bf16["best"]["step_time_s"], (t, bf16["best"]["step_time_s"])
PY
  then pass; else fail "fp8 plan: reproduce line or ordering"; fi
fi
expect_usage_error "fp8 on an A100" "$SCALE" plan train --model llama-3-8b \
  --hw nvidia-a100-80gb --chips 64 --batch-tokens 4Mi --seq 8192 --precision bf16,fp8
expect_err 'has no fp8 matmuls.*nvidia-h100-sxm' "names the chips that have fp8"
expect_usage_error "a recipe twice" "$SCALE" $PT --precision bf16,bf16
expect_err "named twice" "names the repeat"
expect_usage_error "an empty list" "$SCALE" $PT --precision ,
expect_usage_error "an unknown recipe" "$SCALE" $PT --precision fp7
expect_err "unknown precision 'fp7'" "names the unknown recipe"

# --usd-per-chip-hour: the planner's costs at the user's price (exactly scaled), and the line
# that reproduces the best carries the price, so scale train gives the same cost.
PP="--model llama-3-8b --hw nvidia-h100-sxm --chips 8 --batch-tokens 1Mi --seq 4096 --tokens 1e10 --top 1 --json"
run "$SCALE" plan train $PP; cp "$TMP/out" "$TMP/pp0.json"
run "$SCALE" plan train $PP --usd-per-chip-hour 2.7; expect_rc 0 "plan at the user's price"
if command -v python3 >/dev/null 2>&1; then
  if python3 - "$TMP/pp0.json" "$TMP/out" "$SCALE" <<'EOF2'
import json, subprocess, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
ra, rb = a["ranked"][0], b["ranked"][0]
assert abs(rb["cost_usd"] / ra["cost_usd"] - 2.7 / 10.8) < 1e-9, (ra["cost_usd"], rb["cost_usd"])
cmd = rb["command"]
assert " --usd-per-chip-hour 2.70" in cmd, cmd  # at 17 digits, exact
out = subprocess.run([sys.argv[3]] + cmd.split()[1:] + ["--json"], capture_output=True, text=True)
t = json.loads(out.stdout)
assert abs(t["cost_usd"] / rb["cost_usd"] - 1) < 1e-9, (t["cost_usd"], rb["cost_usd"])
EOF2
  then pass; else fail "plan price: scaled, carried by the reproducing line, reproduced"; fi
fi
expect_usage_error "plan price of zero" "$SCALE" plan train $PP --usd-per-chip-hour 0

# --price: the reproducing line carries the name, so scale train prices the same row.
run "$SCALE" plan train $PP --price aws:reserved; expect_rc 0 "plan at a named price"
if command -v python3 >/dev/null 2>&1; then
  if python3 - "$TMP/pp0.json" "$TMP/out" "$SCALE" <<'EOF2'
import json, subprocess, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
rb = b["ranked"][0]
assert abs(rb["cost_usd"] / a["ranked"][0]["cost_usd"] - 4.916 / 10.8) < 1e-9
assert rb["command"].endswith(" --price aws:reserved"), rb["command"]
out = subprocess.run([sys.argv[3]] + rb["command"].split()[1:] + ["--json"], capture_output=True, text=True)
assert abs(json.loads(out.stdout)["cost_usd"] / rb["cost_usd"] - 1) < 1e-9
EOF2
  then pass; else fail "plan --price: scaled, carried, reproduced"; fi
fi
expect_usage_error "plan at an unknown price" "$SCALE" plan train $PP --price nowhere:spot

# The end stages a layer lighter where that evens the split (Megatron's account-for-embedding/
# loss-in-pipeline-split, as Llama 3's 405B pipeline): LLaMA 3.1 405B's 126 layers + 2 over
# pp x v chunks. Every ranked pipelined layout counts them exactly when 126 does not divide
# and 128 does, and its reproducing line says so (and prices the same step).
run "$SCALE" plan train --model llama-3-405b --hw nvidia-h100-sxm --chips 16384 --batch-tokens 16Mi \
  --seq 8192 --schedule 1f1b,interleaved --top 30 --json
if command -v python3 >/dev/null 2>&1; then
  if python3 - "$TMP/out" "$SCALE" <<'EOF2'
import json, subprocess, sys
d = json.load(open(sys.argv[1]))
seen = 0
for r in d["ranked"]:
    if r["pp"] <= 1: continue
    units = r["pp"] * (r["virtual_stages"] if r["schedule"] == "interleaved" else 1)
    want = 126 % units != 0 and 128 % units == 0
    assert r["pp_embed_loss"] == want, (r["layout"], units)
    assert ("--pp-embed-loss" in r["command"]) == want, r["command"]
    seen += want
assert seen > 0
best = d["ranked"][0]
out = subprocess.run([sys.argv[2]] + best["command"].split()[1:] + ["--json"], capture_output=True, text=True)
assert abs(json.loads(out.stdout)["step_time_s"] / best["step_time_s"] - 1) < 1e-9
EOF2
  then pass; else fail "plan: embedding and loss counted where they even the split"; fi
fi

finish
