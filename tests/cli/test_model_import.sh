#!/bin/sh
# test_model_import.sh SCALE — `scale model import`: the published configs of tests/data/hf
# become model files that every command reads; bad configs are one line naming the field.
SCALE=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
HF="$here/../data/hf"

# Each published config imports, reads back, and prices through train, infer and plan.
for stem in llama-3-70b mixtral-8x7b deepseek-v3 mamba-2-2.7b qwen3-235b-a22b qwen3-30b-a3b \
  qwen3-4b gpt-oss-120b kimi-k2 llama-3.1-8b qwen3-8b qwen3-14b qwen3-32b gpt-oss-20b; do
  run "$SCALE" model import "$HF/$stem.json" --out "$TMP/$stem.ini"
  expect_rc 0 "$stem: imports"
  expect_out "^wrote .*$stem.ini: $stem, " "$stem: says what it wrote"
  run "$SCALE" model show "$TMP/$stem.ini" --json
  expect_rc 0 "$stem: model show reads the file"
done
# The shipped LLaMA 3 70B has 70.55B parameters; the import the same.
run "$SCALE" model import "$HF/llama-3-70b.json" --name l70
expect_rc 0 "to standard output"
expect_out '^\[attention\]$' "the model file on stdout"
cp "$TMP/out" "$TMP/l70.ini"
run "$SCALE" model show "$TMP/l70.ini" --json
expect_out '"params": 70553706496,' "LLaMA 3 70B: the shipped file's parameter count"
run "$SCALE" model show "$TMP/qwen3-30b-a3b.ini" --json
expect_out '"params": 30532122624,' "Qwen3-30B-A3B: Keras Hub's count, its QK-norm weights included"
# Keras Hub's Qwen3 presets count every checkpoint tensor: the imports give the same totals.
run "$SCALE" model show "$TMP/qwen3-8b.ini" --json
expect_out '"params": 8190735360,' "Qwen3-8B: Keras Hub's 8,190,735,360"
run "$SCALE" model show "$TMP/qwen3-32b.ini" --json
expect_out '"params": 32762123264,' "Qwen3-32B: Keras Hub's 32,762,123,264"
# GPT-OSS-20B's layer_types alternate sliding (128) and full attention, 32 experts, top-4.
run "$SCALE" model show "$TMP/gpt-oss-20b.ini" --json
expect_out '"n_experts": 32,' "GPT-OSS-20B: 32 experts"
run "$SCALE" model import "$HF/gpt-oss-20b.json" --name g20
expect_out '^window_period = 2$' "GPT-OSS-20B: layer_types alternate"
expect_out '^sinks = 1$' "GPT-OSS-20B: its sinks"
run "$SCALE" model import "$HF/deepseek-v3.json" --name ds
expect_out '^n_mtp_layers = 1$' "DeepSeek-V3: its MTP layer is a field, not dropped"
run "$SCALE" model import "$HF/gpt-oss-120b.json" --name go
expect_out '^window_tokens = 128$' "GPT-OSS: its sliding window"
expect_out '^sinks = 1$' "GPT-OSS: its sinks"
# A hybrid of Mamba-2, attention and MLP layers is refused naming the field, one line, exit 2.
printf '{"model_type": "nemotron_h", "hidden_size": 4096, "num_hidden_layers": 4, "vocab_size": 10, "hybrid_override_pattern": "M-*-"}\n' >"$TMP/nh.json"
run "$SCALE" model import "$TMP/nh.json"
expect_rc 2 "Nemotron-H: refused"
expect_err "'hybrid_override_pattern' mixes Mamba-2, attention and MLP layers" "names the field"
if [ "$(wc -l <"$TMP/err")" -eq 1 ]; then pass; else fail "Nemotron-H: one line"; fi
run "$SCALE" train --model "$TMP/mixtral-8x7b.ini" --hw nvidia-h100-sxm --chips 64 \
  --batch-tokens 4Mi --seq 4096 --ep 8
expect_rc 0 "train prices an imported MoE"
expect_no_nan "train output"
run "$SCALE" infer --model "$TMP/llama-3-70b.ini" --hw nvidia-h100-sxm --chips 8 --batch 8 \
  --context 4096
expect_rc 0 "infer prices an imported model"

# The checkpoint's index: 141,107,412,992 bytes of bfloat16 are the 70,553,706,496 counted.
run "$SCALE" model import "$HF/llama-3-70b.json" --index "$HF/llama-3-70b.index.json" --name l
expect_rc 0 "an index that agrees"
expect_err "^index: .* holds 7.05537e\+10 parameters; the import counts 7.05537e\+10 \(\+0.00%\)$" \
  "the index's count beside the import's"
sed 's/141107412992/155218154291/' "$HF/llama-3-70b.index.json" >"$TMP/big.index.json"
run "$SCALE" model import "$HF/llama-3-70b.json" --index "$TMP/big.index.json" --name l
expect_rc 1 "an index 10% above the import's count"
expect_err "a field read wrong" "the disagreement is named"
expect_usage_error "an index of a quantized checkpoint" "$SCALE" model import \
  "$HF/deepseek-v3.json" --index "$HF/llama-3-70b.index.json"

# Never overwrites: the file written above stays.
run "$SCALE" model import "$HF/llama-3-70b.json" --out "$TMP/l70.ini"
expect_rc 1 "an existing --out"
expect_err "^scale: model import: cannot create .*l70.ini.: File exists$" "an existing --out is named"
run "$SCALE" model show "$TMP/l70.ini"
expect_rc 0 "the existing file is untouched"

# Bad configs: exit 2, one line naming the line or the field.
printf '{\n"model_type": "llama",\n"hidden_size": 4096,\n}\n' >"$TMP/trailing.json"
expect_usage_error "a trailing comma" "$SCALE" model import "$TMP/trailing.json"
run "$SCALE" model import "$TMP/trailing.json"
expect_err "trailing.json:4: expected a member name" "the line of a malformed config"
printf '{"model_type": "bert", "hidden_size": 768}' >"$TMP/bert.json"
expect_usage_error "an unknown family" "$SCALE" model import "$TMP/bert.json"
run "$SCALE" model import "$TMP/bert.json"
expect_err "'model_type' names a family scale does not import" "the unknown family is named"
printf '{"model_type": "llama", "hidden_size": 4096}' >"$TMP/short.json"
run "$SCALE" model import "$TMP/short.json"
expect_err "'num_hidden_layers' is missing" "a missing field is named"
expect_usage_error "a bad --name" "$SCALE" model import "$HF/llama-3-70b.json" --name '../x'
expect_usage_error "no config" "$SCALE" model import
run "$SCALE" model import "$TMP/absent.json"
expect_rc 1 "an unreadable config"
finish
