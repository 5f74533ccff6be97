#!/bin/sh
# test_every_model.sh SCALE — every shipped model file prices through `scale train`, `scale
# infer` and `scale plan train` (a layout that fits on 1,024 H100s; a serving copy on 64 GB200s of one NVL72):
# exit 0, and no NaN or inf in what they print. A new model, or a new schema key, that a
# command cannot price fails here by name.
SCALE=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
MODELS="$here/../../models"

for file in "$MODELS"/*.ini; do
  stem=$(basename "$file" .ini)
  run "$SCALE" train --model "$stem" --hw nvidia-h100-sxm --chips 1024 --batch-tokens 4Mi --pp 8 --recompute full \
    --seq 4096
  expect_rc 0 "$stem: train"
  expect_no_nan "$stem: train output"
  run "$SCALE" infer --model "$stem" --hw gb200-nvl72 --chips 64 --batch 8 --context 2048
  expect_rc 0 "$stem: infer"
  expect_no_nan "$stem: infer output"
  run "$SCALE" plan train --model "$stem" --hw nvidia-h100-sxm --chips 512 --no cp,fsdp \
    --batch-tokens 16Mi --seq 4096 --top 1
  expect_rc 0 "$stem: plan train"
  expect_no_nan "$stem: plan train output"
done
finish
