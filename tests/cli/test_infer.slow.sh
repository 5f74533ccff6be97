#!/bin/sh
# test_infer.slow.sh — the part of test_infer.sh that reads the serving fit's leave-one-group-out
# refits (`scale validate --serving --json`, minutes, fitted once by fit.serving-validate-json):
# the slow tier, cli.infer.slow.
SCALE=$1
. "$(dirname "$0")/lib.sh"
S8="--model llama-3-8b --hw nvidia-h100-sxm --chips 1"

# The default engine is the calibration rows' (batch cap 2048, 8192 tokens a step, 32-token
# blocks, 90% of the HBM after weights for KV): `scale infer --offline` on row E1e's system and
# requests reproduces `scale validate --serving`'s prediction of it.
run "$SCALE" infer $S8 --weights fp8 --kv fp8 --compute fp8 --offline --isl 1000 --osl 1000 --requests 3000 --json
cp "$TMP/out" "$TMP/e1e.json"
fit_run serving-validate-json "$SCALE" # `scale validate --serving --json`, fitted once
expect_rc 0 "validate --serving json"
if command -v python3 >/dev/null 2>&1; then
  if python3 - "$TMP/e1e.json" "$TMP/out" <<'EOF2'
import json, sys
i = json.load(open(sys.argv[1])); v = json.load(open(sys.argv[2]))
row = [r for r in v["rows"] if r["id"] == "E1e"][0]
assert abs(i["tokens_per_s"] - row["predicted_tokens_per_s"]) / row["measured_tokens_per_s"] < 1e-9, (i["tokens_per_s"], row)
g = [g for g in v["groups"] if g["group"] == row["group"] == "trtllm-llama-3.1-8b-h100-tp1"]
assert len(g) == 1 and abs(g[0]["loo_mape"]) < 0.15, g
EOF2
  then pass; else fail "infer --offline = validate --serving's prediction of E1e"; fi
fi

finish
