#!/bin/sh
# test_emit.sh — `--emit FRAMEWORK` (issue 31, Deliver 4): plans as launch configs.
#   goldens:  each framework's output on representative layouts (dense LLaMA 3 70B with TP/SP,
#             interleaved PP, CP and ZeRO-1; Mixtral with EP; DeepSeek-V3 with EP, fp8
#             blockwise and the embedding in the stage split; an fp8 FSDP run; the README's TPU
#             FSDP layout; serving LLaMA 3 70B at TP 8 and DeepSeek-V3 with EP), byte for byte
#             against tests/data/emit/ (SCALE_EMIT_REGEN=1 rewrites them);
#   names:    every option name of every emitter table in src/cli/emit.c, and every option each
#             output prints, is in the framework's list under frameworks/ (read from its source
#             at the commit the output names), and each output names that commit;
#   README:   --emit on the plan examples of the README, and on every layout they rank (through
#             the `scale train` line each prints);
#   errors:   a bad --emit, a training framework on infer and the reverse, --emit with --json,
#             a layout a framework cannot express: one line, exit 2; a layout that does not fit:
#             exit 1, nothing on stdout;
#   paths:    reproduce lines and the cost model's header keep the --model/--hw paths given.
SCALE=$1
. "$(dirname "$0")/lib.sh"
root=${SCALE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
gold="$root/tests/data/emit"
TRAIN_FW="megatron nemo torchtitan maxtext"
SERVE_FW="vllm sglang trtllm"

# check_names FW FILE : every option FILE prints is in frameworks/FW.txt, and its header names
# the list's commit (tests/support/emit_names.py).
check_names() {
  if python3 "$root/tests/support/emit_names.py" output "$root" "$1" "$2" >"$TMP/names" 2>&1; then
    pass
  else
    fail "$1 options of $3: $(head -c 400 "$TMP/names")"
  fi
}

# runs_on FW PLAN : whether framework FW runs on the plan's chips (a TPU: MaxText and vLLM only;
# emit.c refuses the others there, with one line).
runs_on() {
  case "$2" in *"--hw tpu"*) case $1 in maxtext | vllm) return 0 ;; *) return 1 ;; esac ;; esac
  return 0
}

# golden NAME KIND ARGS... : each framework of KIND (train or serve) against its golden file.
golden() {
  name=$1
  kind=$2
  shift 2
  fws=$TRAIN_FW
  [ "$kind" = serve ] && fws=$SERVE_FW
  for fw in $fws; do
    runs_on "$fw" "$*" || continue
    run "$SCALE" "$@" --emit "$fw"
    expect_rc 0 "$name --emit $fw"
    file="$gold/$name.$fw.txt"
    if [ -n "$SCALE_EMIT_REGEN" ]; then cp "$TMP/out" "$file"; fi
    if cmp -s "$TMP/out" "$file"; then pass; else
      fail "$name --emit $fw differs from $file: $(diff "$file" "$TMP/out" | head -5)"
    fi
    check_names "$fw" "$TMP/out" "$name"
  done
}

stage goldens
H100=nvidia-h100-sxm
golden llama3-70b-dense train train --model llama-3-70b --hw $H100 --chips 1024 \
  --batch-tokens 4Mi --seq 8192 --tp 8 --sp --pp 4 --schedule interleaved --virtual-stages 5 \
  --microbatches 16 --cp 2 --fsdp 16 --zero 1 --remat selective
golden mixtral-ep train train --model mixtral-8x7b --hw $H100 --chips 128 --batch-tokens 4Mi \
  --seq 4096 --tp 2 --sp --ep 8 --fsdp 64 --zero 1 --microbatches 4 --remat block
golden deepseek-v3-fp8 train train --model deepseek-v3 --hw $H100 --chips 2048 \
  --batch-tokens 60Mi --seq 4096 --pp 16 --microbatches 40 --ep 64 --fsdp 128 --zero 1 \
  --precision fp8-blockwise --pp-embed-loss --remat block
golden llama3-8b-fp8-fsdp train train --model llama-3-8b --hw $H100 --chips 64 \
  --batch-tokens 4Mi --seq 8192 --tp 2 --fsdp 32 --zero 3 --precision fp8 --microbatches 8 \
  --remat selective
golden llama3-70b-tpu train train --model llama-3-70b --hw tpu-v5p --chips 8192 \
  --batch-tokens 4Mi --seq 4096 --fsdp 1024 --cp 2 --tp 4
golden llama3-70b-tp8 serve infer --model llama-3-70b --hw $H100 --chips 8 --tp 8 --kv fp8 \
  --offline --isl 1024 --osl 256
golden deepseek-v3-ep serve infer --model deepseek-v3 --hw nvidia-h200 --chips 16 --tp 8 --ep 8 \
  --weights fp8 --kv fp8 --batch 64 --context 4096

stage "every name the emitters know is in its framework's list"
if python3 "$root/tests/support/emit_names.py" tables "$root" >"$TMP/names" 2>&1; then pass; else
  fail "emitter tables: $(head -c 600 "$TMP/names")"
fi

stage "--emit on the README's plan examples and every layout they rank"
python3 - "$root/README.md" >"$TMP/plans" <<'EOF'
import re, sys
text = open(sys.argv[1]).read().replace("\\\n", " ")
for m in re.finditer(r"build/scale (plan (?:train|infer) [^&#\n`]*)", text):
    print(" ".join(m.group(1).split()))
EOF
# Each plan runs twice: with --emit (one framework that runs on its chips: the plan's own path)
# and plain, whose printed lines (each ranked `scale train` line; the best's `scale infer` line)
# then take --emit for every framework of its kind (on a TPU, those refuse that do not run there).
n_plans=0
while read -r plan; do
  n_plans=$((n_plans + 1))
  case $plan in
  "plan train"*) fws=$TRAIN_FW first=megatron pattern='scale train .*' ;;
  *) fws=$SERVE_FW first=vllm pattern='scale infer .*' ;;
  esac
  runs_on "$first" "$plan" || first=maxtext
  case $plan in "plan infer"*"--latency"*) # the fixed-batch planner prints no line: its best
    for fw in $fws; do
      if runs_on "$fw" "$plan"; then
        # shellcheck disable=SC2086
        run "$SCALE" $plan --emit "$fw"
        expect_rc 0 "scale $plan --emit $fw"
        check_names "$fw" "$TMP/out" "scale $plan"
      else
        # shellcheck disable=SC2086
        expect_usage_error "scale $plan --emit $fw (not on a TPU)" "$SCALE" $plan --emit "$fw"
      fi
    done
    continue ;;
  esac
  # shellcheck disable=SC2086
  run "$SCALE" $plan --emit "$first"
  expect_rc 0 "scale $plan --emit $first"
  check_names "$first" "$TMP/out" "scale $plan"
  # shellcheck disable=SC2086
  run "$SCALE" $plan
  grep -o "$pattern" "$TMP/out" >"$TMP/ranked"
  if [ -s "$TMP/ranked" ]; then pass; else fail "scale $plan printed no ${pattern% .*} line"; fi
  while read -r line; do
    for fw in $fws; do
      if ! runs_on "$fw" "$plan"; then
        # shellcheck disable=SC2086
        expect_usage_error "$line --emit $fw (not on a TPU)" "$SCALE" ${line#scale } --emit "$fw"
        expect_err "does not run on TPU" "$line --emit $fw says why"
        continue
      fi
      # shellcheck disable=SC2086
      run "$SCALE" ${line#scale } --emit "$fw"
      expect_rc 0 "$line --emit $fw"
      check_names "$fw" "$TMP/out" "$line"
    done
  done <"$TMP/ranked"
done <"$TMP/plans"
if [ "$n_plans" -ge 4 ]; then pass; else fail "README: $n_plans plan examples found, expected 4"; fi

stage "errors: one line, exit 2 (exit 1 for a layout that does not fit)"
T="train --model llama-3-8b --hw $H100 --chips 8 --batch-tokens 1Mi --seq 4096 --tp 8"
I="infer --model llama-3-8b --hw $H100 --chips 1 --batch 8 --context 2048"
# shellcheck disable=SC2086
{
  expect_usage_error "train --emit foo" "$SCALE" $T --emit foo
  expect_err 'megatron, nemo, torchtitan, maxtext' "the training choices named"
  expect_usage_error "infer --emit foo" "$SCALE" $I --emit foo
  expect_err 'vllm, sglang, trtllm' "the serving choices named"
  expect_usage_error "infer --emit megatron" "$SCALE" $I --emit megatron
  expect_err 'megatron is a training framework' "a training framework on infer"
  expect_usage_error "train --emit vllm" "$SCALE" $T --emit vllm
  expect_err 'vllm is a serving framework' "a serving framework on train"
  expect_usage_error "plan train --emit sglang" "$SCALE" plan train --model llama-3-8b --hw $H100 \
    --chips 8 --batch-tokens 1Mi --seq 4096 --emit sglang
  expect_usage_error "plan infer --emit nemo" "$SCALE" plan infer --model llama-3-8b --hw $H100 \
    --prompt 512 --output 64 --emit nemo
  expect_usage_error "plan infer (stream) --emit maxtext" "$SCALE" plan infer --model llama-3-8b \
    --hw $H100 --isl 512 --osl 64 --emit maxtext
  expect_usage_error "--emit with --json" "$SCALE" $T --emit megatron --json
  expect_usage_error "Mamba-2 refused" "$SCALE" train --model mamba-2-2.7b --hw $H100 --chips 8 \
    --batch-tokens 256Ki --seq 4096 --emit megatron
  expect_usage_error "Ulysses refused by torchtitan" "$SCALE" train --model llama-3-8b --hw $H100 \
    --chips 64 --batch-tokens 64Ki --seq 8192 --cp 8 --cp-kind ulysses --emit torchtitan
  expect_usage_error "a fractional microbatch refused" "$SCALE" train --model llama-3-8b --hw $H100 \
    --chips 8 --batch-tokens 40Ki --seq 4096 --fsdp 8 --emit megatron
  expect_usage_error "a GPU framework on a TPU" "$SCALE" train --model llama-3-8b --hw tpu-v5e \
    --chips 32 --batch-tokens 128Ki --seq 4096 --emit nemo
  expect_err "does not run on TPU v5e" "the refusal says why"
  expect_usage_error "TensorRT-LLM on an AMD GPU" "$SCALE" infer --model llama-3-8b \
    --hw amd-mi300x --chips 1 --batch 8 --context 2048 --emit trtllm
  run "$SCALE" train --model llama-3-70b --hw $H100 --chips 8 --batch-tokens 1Mi --seq 4096 \
    --fsdp 8 --remat none --emit megatron
  expect_rc 1 "a layout that does not fit"
  if [ ! -s "$TMP/out" ]; then pass; else fail "a layout that does not fit emitted options"; fi
}

stage "reproduce lines keep the paths they were given"
cp "$root/models/llama-3-8b.ini" "$TMP/my-model.ini"
cp "$root/hardware/nvidia-h100-sxm.ini" "$TMP/my-chip.ini"
run "$SCALE" plan train --model "$TMP/my-model.ini" --hw "$TMP/my-chip.ini" --chips 64 \
  --batch-tokens 1Mi --seq 4096 --top 2
expect_rc 0 "plan train on paths"
expect_out "\[step\] of $TMP/my-chip.ini" "the cost model's header names the file given"
line=$(grep -o 'scale train .*' "$TMP/out" | head -1)
step=$(grep -o 'step [0-9.]* [a-z]*s' "$TMP/out" | head -1)
case $line in
*"--model $TMP/my-model.ini --hw $TMP/my-chip.ini "*) pass ;;
*) fail "plan train's reproduce line lost the paths: $line" ;;
esac
# shellcheck disable=SC2086
run "$SCALE" ${line#scale }
expect_rc 0 "the reproduce line runs"
expect_out "step time +${step#step }" "the reproduce line gives the plan's step time ($step)"
run "$SCALE" plan infer --model "$TMP/my-model.ini" --hw "$TMP/my-chip.ini" --isl 512 --osl 64 \
  --max-chips 2 --requests 50
expect_rc 0 "plan infer on paths"
expect_out "reproduce it: scale infer --model $TMP/my-model.ini --hw $TMP/my-chip.ini " \
  "plan infer's reproduce line keeps the paths"
run "$SCALE" plan train --model "$TMP/my-model.ini" --hw "$TMP/my-chip.ini" --chips 64 \
  --batch-tokens 1Mi --seq 4096 --emit nemo
expect_out "^# priced by: scale train --model $TMP/my-model.ini --hw $TMP/my-chip.ini " \
  "the emitted header's scale line keeps the paths"

finish
