#!/bin/sh
# test_roofline.sh — `scale roofline`: FLOPs/bytes and matmul modes, --json keys, usage errors.
SCALE=$1
. "$(dirname "$0")/lib.sh"

run "$SCALE" roofline --help; expect_rc 0 "--help"; expect_out 'usage: scale roofline' "--help"
run "$SCALE" --help; expect_out '^  roofline ' "scale --help lists roofline"

# ch. 1: v5e critical intensity 1.97e14 / 8.2e11 = 240; 1e12 FLOPs and 1e10 bytes:
# T_math = 5.08 ms, T_comms = 12.2 ms, memory-bound.
run "$SCALE" roofline --hw tpu-v5e --flops 1e12 --bytes 1e10
expect_rc 0 "flops/bytes"; expect_out 'critical intensity C / W +240 FLOP/byte' "C/W 240"
expect_out 'T_math +5.08 ms' "T_math"; expect_out 'T_comms +12.2 ms' "T_comms"
expect_out 'upper bound T_math \+ T_comms +17.3 ms' "upper bound"; expect_out 'bound by +memory' "memory-bound"
expect_no_nan "flops/bytes"

run "$SCALE" roofline --hw tpu-v5e --flops 1e12 --bytes 1e10 --json
expect_rc 0 "--json"; expect_json "--json"
for key in flops bytes intensity_flops_per_byte critical_intensity_flops_per_byte t_math_s t_comms_s t_lower_s t_upper_s bound; do
  expect_out "\"$key\": " "json key $key"
done
expect_out '"bound": "memory"' "json bound"; expect_out '"t_lower_s": 0.01219512195121951' "json t_lower"

# ch. 1 Q1 (int8 everything): B = 512 > 243 is compute-bound; bytes BD + DF + BF = 75497472.
run "$SCALE" roofline --hw tpu-v5e --matmul 512,8192,8192 --act-dtype int8 --weight-dtype int8 --compute-dtype int8 --json
expect_rc 0 "int8 matmul"; expect_out '"bytes": 75497472,' "int8 bytes"; expect_out '"bound": "compute"' "compute-bound"
expect_out '"flops": 68719476736,' "2BDF"

# ch. 1 Q2 (int8 weights, bf16 compute): compute-bound above about 120 (exactly, with finite D, F: more).
run "$SCALE" roofline --hw tpu-v5e --matmul 100,8192,8192 --weight-dtype int8
expect_rc 0 "int8 weights"; expect_out 'bound by +memory' "B=100 memory-bound"; expect_out 'compute-bound for B > +12[0-9]' "B_crit ~ 120+"
run "$SCALE" roofline --hw tpu-v5e --matmul 200,8192,8192 --weight-dtype int8
expect_out 'bound by +compute' "B=200 compute-bound"

# ch. 2 Q3: PCIe on v6e with D = 8192 is never compute-bound.
run "$SCALE" roofline --hw tpu-v6e --matmul 64,8192,32768 --channel pcie
expect_rc 0 "pcie"; expect_out 'never' "PCIe never compute-bound"; expect_out 'bound by +communication' "comms"; expect_no_nan "pcie"
run "$SCALE" roofline --hw tpu-v6e --matmul 64,8192,32768 --channel pcie --json
expect_json "pcie json"; expect_out '"critical_batch": null' "inf as null"

# Usage errors: one line, exit 2.
expect_usage_error "no --hw" "$SCALE" roofline --flops 1e12 --bytes 1e9
expect_usage_error "missing --bytes" "$SCALE" roofline --hw tpu-v5e --flops 1e12
expect_usage_error "both modes" "$SCALE" roofline --hw tpu-v5e --flops 1 --bytes 1 --matmul 1,2,3
expect_usage_error "zero flops" "$SCALE" roofline --hw tpu-v5e --flops 0 --bytes 1e9
expect_usage_error "negative bytes" "$SCALE" roofline --hw tpu-v5e --flops 1 --bytes -5
expect_usage_error "bad matmul" "$SCALE" roofline --hw tpu-v5e --matmul 1,2
expect_usage_error "matmul junk" "$SCALE" roofline --hw tpu-v5e --matmul 1,2,x
expect_usage_error "matmul four" "$SCALE" roofline --hw tpu-v5e --matmul 1,2,3,4
expect_usage_error "matmul zero" "$SCALE" roofline --hw tpu-v5e --matmul 0,2,3
expect_usage_error "unknown dtype" "$SCALE" roofline --hw tpu-v5e --matmul 1,2,3 --act-dtype bf17
expect_err "unknown dtype 'bf17'" "names the dtype"
expect_usage_error "no fp8 on v5e" "$SCALE" roofline --hw tpu-v5e --matmul 1,2,3 --compute-dtype fp8
expect_usage_error "unknown hardware" "$SCALE" roofline --hw tpu-v9 --flops 1 --bytes 1
expect_usage_error "unknown channel" "$SCALE" roofline --hw tpu-v5e --flops 1 --bytes 1 --channel sata
expect_usage_error "no nvlink on a TPU" "$SCALE" roofline --hw tpu-v5e --flops 1 --bytes 1 --channel nvlink
expect_usage_error "bad option" "$SCALE" roofline --hw tpu-v5e --bogus
expect_usage_error "stray argument" "$SCALE" roofline --hw tpu-v5e --flops 1 --bytes 1 extra

# Sizes whose product overflows: refused naming the option (it was "sizes too large").
expect_usage_error "matmul 1e200" "$SCALE" roofline --hw tpu-v5e --matmul 1e200,1e200,1e200
expect_err '^scale: --matmul: 1e200 is out of range' "names --matmul"
run "$SCALE" roofline --hw tpu-v5e --matmul 1e30,1e30,1e30
expect_rc 0 "largest sizes still finite"; expect_no_nan "largest sizes"

finish
