#!/bin/sh
# test_infer_closed.sh — `scale infer --concurrency C`: the closed loop (C clients, each sending
# its next request when its previous one finishes), --lengths tables, ITL percentiles, and the
# one-line errors of bad input.
SCALE=$1
. "$(dirname "$0")/lib.sh"

S8="--model llama-3-8b --hw nvidia-h100-sxm --chips 1 --weights fp8 --compute fp8"
ENG="--max-batch 256 --block 16"

# json_num KEY : the number of "KEY": in the last run's stdout (first match).
json_num() {
  sed -n "s/.*\"$1\": \([-0-9.eE+]*\).*/\1/p" "$TMP/out" | head -n 1
}

# close A B TOL DESC : |A / B - 1| <= TOL.
close() {
  if awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a / b - 1; if (d < 0) d = -d; exit !(d <= t) }'; then
    pass
  else
    fail "$4: $1 vs $2 (tolerance $3)"
  fi
}

# One client: every decode step holds one token, so the median TPOT is the batch-1 decode step
# and the ITL median is that step too (within the histogram's 0.16% and one token of context).
run "$SCALE" infer $S8 $ENG --isl 1000 --osl 100 --concurrency 1 --requests 20 --json
expect_rc 0 "one client"; expect_json "one client --json parses"
expect_out '"mode": "closed"' "mode closed"; expect_out '"concurrency": 1,' "one client"
close "$(json_num itl_p50_s)" "$(json_num tpot_p50_s)" 0.003 "ITL = TPOT at one client"
close "$(json_num steady_batch)" 1 0 "one request at a time"
tpot=$(json_num tpot_p50_s)
# --engine-overhead S adds S to every step: at one client, to TPOT exactly
run "$SCALE" infer $S8 $ENG --isl 1000 --osl 100 --concurrency 1 --requests 20 --engine-overhead 0.01 --json
expect_rc 0 "engine overhead"; expect_out '"engine_overhead_s": 0.01,' "reported"
close "$(json_num tpot_p50_s)" "$(awk -v t="$tpot" 'BEGIN { printf "%.17g", t + 0.01 }')" 1e-9 "TPOT + 10 ms"
run "$SCALE" infer $S8 $ENG --isl 1000 --osl 100 --concurrency 1 --requests 20
expect_rc 0 "one client text"; expect_out '^closed loop: 1 clients' "says closed loop"
expect_out 'ITL p50 / p90' "ITL line"; expect_no_nan "closed report"

# Many clients: 1000 clients and a batch cap of 256 keep >= 744 requests waiting, so every step
# admits what the offline run (all at t = 0) admits: the same output tokens/s.
run "$SCALE" infer $S8 $ENG --isl 512 --osl 256 --offline --requests 3000 --json
expect_rc 0 "offline"
offline=$(json_num tokens_per_s)
run "$SCALE" infer $S8 $ENG --isl 512 --osl 256 --concurrency 1000 --requests 3000 --json
expect_rc 0 "1000 clients"
close "$(json_num tokens_per_s)" "$offline" 1e-9 "1000 clients = the offline maximum"
# and 8 clients leave most of it unused, at a shorter ITL
run "$SCALE" infer $S8 $ENG --isl 512 --osl 256 --concurrency 8 --requests 400 --json
few=$(json_num tokens_per_s)
if awk -v a="$few" -v b="$offline" 'BEGIN { exit !(a < 0.5 * b) }'; then pass; else fail "8 clients: $few vs $offline"; fi

# --prefill-alone: prompt steps decode nothing (vLLM before 0.6): reported, and the one-client
# TPOT is unchanged (a lone request never has a prompt beside its decodes)
run "$SCALE" infer $S8 $ENG --isl 1000 --osl 100 --concurrency 1 --requests 20 --prefill-alone --json
expect_rc 0 "--prefill-alone"; expect_out '"prefill_alone": true' "reported"
close "$(json_num tpot_p50_s)" "$tpot" 1e-12 "one client, prompts alone"

# Copies: 2 chips at tp 1 are two copies; 4 clients are 2 per copy.
run "$SCALE" infer --model llama-3-8b --hw nvidia-h100-sxm --chips 2 --tp 1 $ENG --concurrency 4 --requests 40
expect_rc 0 "two copies"; expect_out '4 clients \(2 per copy\)' "clients per copy"

# A length table, in order.
printf '# two requests\nisl\tosl\n100\t10\n50\t5\n' >"$TMP/len.tsv"
run "$SCALE" infer $S8 $ENG --lengths "$TMP/len.tsv" --concurrency 1
expect_rc 0 "--lengths"; expect_out '^lengths: the 2 pairs of .* \(input 50 to 100, output 5 to 10 tokens\)' "table named"
run "$SCALE" infer $S8 $ENG --lengths "$TMP/len.tsv" --concurrency 1 --json
expect_out '"requests": 2,' "the table's pairs by default"
expect_out '"output_tokens": 15,' "10 + 5 tokens"

# Bad input: one line, exit 2.
expect_usage_error "concurrency 0" "$SCALE" infer $S8 --concurrency 0
expect_usage_error "concurrency -4" "$SCALE" infer $S8 --concurrency -4
expect_usage_error "concurrency 2.5" "$SCALE" infer $S8 --concurrency 2.5
expect_usage_error "concurrency 1e7" "$SCALE" infer $S8 --concurrency 1e7
expect_err 'at most 1e6' "too many clients"
expect_usage_error "concurrency nan" "$SCALE" infer $S8 --concurrency nan
expect_usage_error "with --rate" "$SCALE" infer $S8 --concurrency 4 --rate 2
expect_usage_error "with --offline" "$SCALE" infer $S8 --concurrency 4 --offline
expect_usage_error "uneven over copies" "$SCALE" infer --model llama-3-8b --hw nvidia-h100-sxm --chips 2 --tp 1 --concurrency 3
expect_usage_error "with --disagg" "$SCALE" infer $S8 --concurrency 4 --disagg 1:1
expect_usage_error "no such table" "$SCALE" infer $S8 --concurrency 4 --lengths "$TMP/none.tsv"
printf 'isl\tosl\n100\t0\n' >"$TMP/bad.tsv"
expect_usage_error "zero output in table" "$SCALE" infer $S8 --concurrency 4 --lengths "$TMP/bad.tsv"
expect_err 'bad.tsv:2:' "names the line"
printf 'isl\tosl\n100000\t10\n' >"$TMP/long.tsv"
expect_usage_error "table past the context" "$SCALE" infer $S8 --concurrency 4 --lengths "$TMP/long.tsv"
expect_usage_error "engine overhead -1" "$SCALE" infer $S8 --concurrency 4 --engine-overhead -1
expect_usage_error "engine overhead 2 s" "$SCALE" infer $S8 --concurrency 4 --engine-overhead 2
expect_usage_error "too many requests" "$SCALE" infer $S8 --concurrency 4 --requests 2000000

finish
