#!/bin/sh
# test_hw.sh — `scale --help/--version`, `scale hw`, `scale model`, and usage errors.
SCALE=$1
. "$(dirname "$0")/lib.sh"

run "$SCALE" --version;            expect_rc 0 "--version"; expect_out '^scale [0-9]+\.[0-9]+\.[0-9]+$' "--version"
run "$SCALE" --help;               expect_rc 0 "--help"; expect_out 'hw ' "--help lists hw"; expect_out 'model ' "--help lists model"
run "$SCALE" hw --help;            expect_rc 0 "hw --help"; expect_out 'usage: scale hw' "hw --help"

# hw list: at least 12 chips and systems, none failing to load.
run "$SCALE" hw list;              expect_rc 0 "hw list"
n=$(tail -n +2 "$TMP/out" | wc -l)
if [ "$n" -ge 12 ]; then pass; else fail "hw list shows $n entries, expected >= 12"; fi
expect_out '^tpu-v5e ' "hw list has tpu-v5e"; expect_out '^nvidia-h100-sxm ' "hw list has H100"
expect_no_nan "hw list"
# Names are never cut: the columns are as wide as the longest (issue 17 §5).
expect_out 'NVIDIA GB200 NVL72 \(72x B200-class\) +gpu' "hw list shows the whole chip name"
run "$SCALE" hw list --json;       expect_rc 0 "hw list --json"; expect_json "hw list --json"

# hw show: every stored key and derived ratios (v5e bf16 C/W_hbm = 1.97e14 / 8.2e11 = 240).
run "$SCALE" hw show tpu-v5e;      expect_rc 0 "hw show"; expect_out 'C / W_hbm, bf16 +240' "v5e ratio 240"
run "$SCALE" hw show tpu-v5e --json; expect_rc 0 "hw show --json"; expect_json "hw show --json"
expect_out '"bf16_flops_per_s": 197000000000000,' "json bf16 key"; expect_out '"hbm_intensity_flops_per_byte"' "json derived"
run "$SCALE" hw show "$SCALE_DATA_DIR/hardware/tpu-v5p.ini"; expect_rc 0 "hw show PATH"
run "$SCALE" hw show dgx-h100;     expect_rc 0 "hw show system"; expect_out 'system of nvidia-h100-sxm' "system base"

# model list/show.
run "$SCALE" model list;           expect_rc 0 "model list"
n=$(tail -n +2 "$TMP/out" | wc -l)
if [ "$n" -ge 12 ]; then pass; else fail "model list shows $n models, expected >= 12"; fi
# The columns line up whatever the names' lengths (the ARCH column starts at one offset).
cols=$(awk '{ for (a = "ARCH transformer mamba2 hybrid"; a != ""; ) { w = a; sub(/ .*/, "", w);
  sub(/^[^ ]* ?/, "", a); if ((i = index($0, "  " w " ")) > 0) { print i; break } } }' "$TMP/out" | sort -u | wc -l)
if [ "$cols" -eq 1 ]; then pass; else fail "model list's ARCH column starts at $cols offsets"; fi
run "$SCALE" model show llama-3-70b; expect_rc 0 "model show"; expect_out 'width D +8192' "LLaMA 3 70B D"
expect_no_nan "model show"
# 2 x L 80 x K 8 x H 128 x 2 bytes = 327,680 B per token in bf16 (the default).
expect_out 'KV cache per token, bf16 +328 kB' "LLaMA 3 70B KV per token"
expect_out 'parameters \(counted\) +70.6 G' "LLaMA 3 70B counted params"
run "$SCALE" model show deepseek-v3 --json; expect_rc 0 "MoE --json"; expect_json "MoE json"
expect_out '"active_params": 3[67][0-9]{9}(\.[0-9]+)?,' "DeepSeek-V3 ~37B active"
for key in '"params"' '"train_flops_per_token"' '"infer_flops_per_token"' '"kv_bytes_per_token"' '"state_bytes_per_sequence"' '"attention_flops_frac"'; do
  expect_out "$key" "model json key $key"
done
# --kv-dtype and --context: 2 x 80 x 8 x 128 x 1 B = 163,840 B in int8; context in the label.
run "$SCALE" model show llama-3-70b --kv-dtype int8 --context 4096
expect_rc 0 "model show options"; expect_out 'KV cache per token, int8 +164 kB' "--kv-dtype int8"
expect_out 'FLOPs/token @ 4096 ctx' "--context"
run "$SCALE" model show llama-3-70b --json --context=8192 --kv-dtype=int4
expect_rc 0 "model show --opt=value"; expect_out '"kv_bytes_per_token": 81920,' "int4 KV 81,920 B"
expect_out '"context_tokens": 8192,' "context in json"
expect_usage_error "bad kv dtype" "$SCALE" model show llama-3-70b --kv-dtype int3
expect_usage_error "bad context" "$SCALE" model show llama-3-70b --context 0
expect_usage_error "context without value" "$SCALE" model show llama-3-70b --context
run "$SCALE" model show mamba-2-2.7b; expect_rc 0 "mamba show"; expect_no_nan "mamba show"
expect_out 'recurrent state per sequence' "mamba state"
run "$SCALE" model show llama-3-70b --json; expect_rc 0 "model show --json"; expect_json "model --json"
expect_out '"n_kv_heads": 8' "json K"

# Usage errors: one line, exit 2.
expect_usage_error "no subcommand" "$SCALE"
expect_usage_error "unknown subcommand" "$SCALE" frobnicate
expect_err "unknown subcommand 'frobnicate'" "names the subcommand"
expect_usage_error "unknown hardware" "$SCALE" hw show tpu-v9
expect_err "unknown hardware 'tpu-v9' \(try: scale hw list\)" "hint"
# A part of a name gets a "did you mean" with the stems that contain it (issue 31).
expect_usage_error "a partial name" "$SCALE" hw show h100
expect_err "^scale: unknown hardware 'h100'; did you mean dgx-h100, nvidia-h100-nvl, nvidia-h100-sxm\? \(scale hw list\)$" \
  "did you mean the H100 files"
expect_usage_error "a partial model name" "$SCALE" model show qwen3
expect_err "did you mean qwen3-14b, qwen3-235b-a22b, qwen3-30b-a3b\?" "did you mean the Qwen3 files"
expect_usage_error "missing NAME" "$SCALE" hw show
expect_usage_error "missing action" "$SCALE" hw
expect_usage_error "bad action" "$SCALE" hw explode
expect_usage_error "bad option" "$SCALE" hw --bogus
expect_usage_error "bad option after action" "$SCALE" hw show tpu-v5e --bogus
expect_usage_error "unknown model" "$SCALE" model show gpt-9
expect_usage_error "extra argument" "$SCALE" model show llama-3-70b gemma-7b

# Issue 13 section 2: values that parse but break the model are refused at load time, exit 1,
# with file:line naming the key and its range (tests/data/hardware-bad/: copies of shipped
# files with one bad value each).
SRC=${SCALE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BAD="$SRC/tests/data/hardware-bad"
for case in "pod-y-huge pod_y whole.number.in.\[1, 65536\], got 1e308" \
            "pod-x-half pod_x whole.number.in.\[1, 65536\], got 0.5" \
            "hbm-bandwidth-tiny hbm_bytes_per_s in.\[1e6, 1e16\], got 1e-300" \
            "n-axes-half n_axes whole.number.in.\[1, 3\], got 0.5" \
            "n-chips-half n_chips whole.number.in.\[1, 1e9\], got 0.5" \
            "domain-size-half domain_size whole.number.in.\[1, 1e6\], got 0.5" \
            "fanout-one level1_fanout whole.number.in.\[2, 1e6\], got 1" \
            "usd-tiny usd_per_hour in.\[0.001, 1e6\], got 1e-300"; do
  set -- $case
  file="$BAD/$1.ini"; key=$2; shift 2
  line=$(grep -n "^$key = " "$file" | cut -d: -f1)
  run "$SCALE" hw show "$file"; expect_rc 1 "$key refused"
  expect_err "^$file:$line: $key must be (a )?$*\$" "$key: file:line, key and range"
  if [ "$(wc -l <"$TMP/err")" -eq 1 ] && [ ! -s "$TMP/out" ]; then pass; else fail "$key: one line, no report"; fi
done

# A UTF-8 byte-order mark and CRLF line ends are accepted on purpose: the Windows copy of
# tpu-v5e loads to exactly the same record.
run "$SCALE" hw show "$SRC/tests/data/hardware-windows/tpu-v5e.ini" --json
expect_rc 0 "BOM + CRLF file"
cp "$TMP/out" "$TMP/windows.json"
run "$SCALE" hw show tpu-v5e --json
if cmp -s "$TMP/out" "$TMP/windows.json"; then pass; else fail "BOM + CRLF file loads differently"; fi
if head -c 3 "$SRC/tests/data/hardware-windows/tpu-v5e.ini" | od -An -tx1 | grep -q 'ef bb bf' &&
   grep -q "$(printf '\r')\$" "$SRC/tests/data/hardware-windows/tpu-v5e.ini"; then pass; else fail "fixture lost its BOM or CRLF"; fi

# Errors echo arguments on one line: control characters are escaped (\n, \xNN), so an argument
# cannot split the error or forge a second line.
nl='
'
expect_usage_error "newline in a name" "$SCALE" hw show "tpu${nl}scale: forged"
expect_err 'unknown hardware .tpu\\nscale: forged. \(try' "newline shown as backslash n"
expect_usage_error "escape byte in an option" "$SCALE" model show llama-3-8b --kv-dtype "$(printf 'int\033[2J')"
expect_err 'dtype .int\\x1b\[2J.' "ESC shown as backslash x1b"
printf '[chip]\nkind = tpu\nbogus_key = 1\n' >"$TMP/bro
ken.ini"
run "$SCALE" hw show "$TMP/bro${nl}ken.ini"; expect_rc 1 "newline in a path"
if [ "$(wc -l <"$TMP/err")" -eq 1 ]; then pass; else fail "a path with a newline split the diagnostic"; fi
expect_err 'bro\\nken.ini:3: unknown key' "path escaped"

# A malformed file named by path: file:line: message, exit 1.
printf '[chip]\nkind = tpu\nbogus_key = 1\n' >"$TMP/broken.ini"
run "$SCALE" hw show "$TMP/broken.ini"; expect_rc 1 "malformed file"
expect_err "broken.ini:3: unknown key 'bogus_key'" "file:line diagnostic"

# hw prices: the table, one chip's rows with the names --price takes; an unknown chip fails.
run "$SCALE" hw prices tpu-v6e; expect_rc 0 "hw prices CHIP"
expect_out '^tpu-v6e +google-cloud +committed-3y +1.22 +2024-12 +google-cloud:committed-3y$' "a row"
n=$(grep -c '^tpu-v6e' "$TMP/out"); if [ "$n" -eq 3 ]; then pass; else fail "v6e has $n rows"; fi
run "$SCALE" hw prices nvidia-v9; expect_rc 1 "no price for an unknown chip"

finish
