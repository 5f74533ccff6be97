#!/bin/sh
# test_format.sh — one number format in every command and chapter (issue 17): money as "$16.5 M"
# (three significant digits, k M B T; never "MUSD", "USD" or "4e7 $"), ratios of peak as
# percentages ("20.5%", never "40 %" or an MFU of 0.205); the --batch-tokens warning; the
# progress line of a chip-count search.
SCALE=$1
. "$(dirname "$0")/lib.sh"
root=${SCALE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}

# ---- every command's text output, then every chapter's walk-through -------------------------
all="$TMP/all.txt"
: >"$all"
collect() { # collect CMD...: appends stdout of a successful run to $all
  run "$@"
  expect_rc 0 "$*"
  cat "$TMP/out" >>"$all"
}
collect "$SCALE" hw list
for f in "$root"/hardware/*.ini; do collect "$SCALE" hw show "$(basename "$f" .ini)"; done
collect "$SCALE" model list
for m in llama-3-70b deepseek-v3 mixtral-8x7b mamba-2-2.7b; do collect "$SCALE" model show "$m"; done
collect "$SCALE" roofline --hw tpu-v5e --matmul 512,8192,32768 --weight-dtype int8
collect "$SCALE" collective --hw tpu-v5p --op all-gather --bytes 1G --group 4x4x4
L8="--model llama-3-8b --hw tpu-v5p --chips 256 --batch-tokens 4Mi --seq 4096 --fsdp 256 --tokens 1T"
collect "$SCALE" train $L8
collect "$SCALE" train $L8 --roofline
collect "$SCALE" plan train --model llama-3-8b --hw tpu-v5e --chips 256 --batch-tokens 4Mi --seq 4096 --tokens 1T
collect "$SCALE" plan infer --model llama-3-70b --hw tpu-v5e --prompt 2048 --output 512 --latency 0.05
collect "$SCALE" infer --model llama-3-70b --hw tpu-v5e --chips 8 --batch 32 --context 8192 --weights int8 --kv int8
collect "$SCALE" infer --model llama-3-8b --hw tpu-v5e --chips 4 --rate 1 --requests 200 --isl 512 --osl 128 --ttft 1
n_commands=$(grep -c . "$all")
if "$SCALE" chapter list >"$TMP/chapters" 2>/dev/null; then
  for c in $(awk '{print $1}' "$TMP/chapters"); do collect "$SCALE" chapter "$c"; done
fi

# The forms issue 17 bans, each a grep -E pattern.
for bad in 'MUSD' 'USD' '[0-9] \$' '\$ ?[0-9.]+e[0-9]' '[0-9] %' 'MFU[ .]+0\.[0-9]' 'MFU 0\.[0-9]' '[0-9]e\+[0-9]'; do
  if grep -En -- "$bad" "$all" >"$TMP/hits"; then
    fail "banned form /$bad/: $(head -3 "$TMP/hits")"
  else
    pass
  fi
done

# Every dollar amount: '$' then three significant digits (fewer only for a whole number) and an
# optional k/M/B/T; a bare '$' only as a unit ("FLOP/$", a "$ / M tokens" column).
python3 - "$all" >"$TMP/money" <<'EOF'
import re, sys
bad, seen = [], 0
for n, line in enumerate(open(sys.argv[1], encoding="utf-8"), 1):
    for m in re.finditer(r"\$", line):
        rest, before = line[m.end():], line[:m.start()]
        if before.endswith("/") or rest.startswith(" /"):
            continue
        a = re.match(r"(\d+(?:\.\d+)?)( [kMBT](?![A-Za-z]))?", rest)
        digits = a and a.group(1).replace(".", "").lstrip("0")
        ok = a and (len(digits) == 3 if "." in a.group(1) else len(digits) <= 3)
        seen += 1
        if not ok:
            bad.append(f"{n}: {line.strip()}")
print(seen)
print("\n".join(bad[:5]))
EOF
if [ "$(head -1 "$TMP/money")" -ge 10 ]; then pass; else fail "fewer than 10 dollar amounts seen"; fi
if [ "$(sed 1d "$TMP/money" | grep -c .)" -eq 0 ]; then pass; else fail "money format: $(sed 1d "$TMP/money")"; fi
# The commands alone print money and percentages (not only the chapters).
if [ "$n_commands" -gt 100 ] && head -n "$n_commands" "$all" | grep -Eq 'cost +\$[0-9.]+ [kMB]$' &&
   head -n "$n_commands" "$all" | grep -Eq 'MFU +[0-9.]+%'; then pass; else fail "commands: no \$ M or MFU %"; fi

# ---- --batch-tokens: a decimal prefix that splits a sequence warns once, suggests binary -------
run "$SCALE" train --model llama-3-8b --hw tpu-v5p --chips 256 --batch-tokens 4M --seq 4096 --fsdp 256
expect_rc 0 "4M tokens still runs"
expect_err '^scale: warning: --batch-tokens 4M is 4000000 tokens, 976.56 sequences of 4096; did you mean 4Mi \(4194304 tokens, 1024 sequences\)\?$' "4M warns and suggests 4Mi"
if [ "$(wc -l <"$TMP/err")" -eq 1 ]; then pass; else fail "warned once: $(cat "$TMP/err")"; fi
run "$SCALE" train --model llama-3-8b --hw tpu-v5p --chips 256 --batch-tokens 4Mi --seq 4096 --fsdp 256
if [ ! -s "$TMP/err" ]; then pass; else fail "4Mi: no warning expected: $(cat "$TMP/err")"; fi
run "$SCALE" train --model llama-3-8b --hw tpu-v5e --chips 250 --batch-tokens 1M --seq 1000 --fsdp 250
if [ "$rc" -eq 0 ] && [ ! -s "$TMP/err" ]; then pass; else fail "1M of 1000-token sequences divides: rc $rc, $(cat "$TMP/err")"; fi
# 48k = 11.72 sequences; 48Ki = 12: the suggestion spells the binary prefix Ki.
run "$SCALE" plan train --model llama-3-8b --hw tpu-v5e --chips 4 --batch-tokens 48k --seq 4096
expect_err 'did you mean 48Ki \(49152 tokens, 12 sequences\)\?' "plan: 48k suggests 48Ki"
# No binary prefix divides: the warning still says it, without a suggestion.
run "$SCALE" plan train --model llama-3-8b --hw tpu-v5e --chips 4 --batch-tokens 50000 --seq 4096
expect_err '^scale: warning: --batch-tokens 50000 is 50000 tokens, 12.21 sequences of 4096$' "plain count: warning only"

# ---- plan train --chips MIN:MAX: progress on stderr after a second, never on stdout ------------
# Six chip counts (256 ... 8192); stderr is a file here, so lines appear only once the search has
# run over a second, which its own --json search_time_s reports.
run "$SCALE" plan train --model llama-3-70b --hw tpu-v5p --chips 256:8192 --batch-tokens 4Mi --seq 4096 --tokens 15T --json
expect_rc 0 "range search"; expect_json "range search: stdout stays JSON"
secs=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["search_time_s"])' "$TMP/out")
lines=$(grep -c '^scale: plan: [0-9]* chips searched ([1-6] of 6 chip counts, ' "$TMP/err")
if awk -v s="$secs" 'BEGIN { exit !(s > 1.0) }'; then
  if [ "$lines" -ge 1 ] && grep -q '(6 of 6 chip counts' "$TMP/err"; then pass; else fail "search of $secs s: no progress ($(cat "$TMP/err"))"; fi
else
  if [ "$lines" -eq 0 ]; then pass; else fail "search of $secs s under a second printed progress"; fi
fi
if [ "$(grep -vc '^scale: plan: ' "$TMP/err")" -eq 0 ]; then pass; else fail "stderr holds only progress: $(cat "$TMP/err")"; fi
run "$SCALE" plan train --model llama-3-8b --hw tpu-v5e --chips 64 --batch-tokens 1Mi --seq 4096
if [ ! -s "$TMP/err" ]; then pass; else fail "one chip count: no progress line"; fi

finish
