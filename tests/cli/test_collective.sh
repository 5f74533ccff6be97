#!/bin/sh
# test_collective.sh — `scale collective`: precise and book times, --json keys, usage errors.
SCALE=$1
. "$(dirname "$0")/lib.sh"

run "$SCALE" collective --help; expect_rc 0 "--help"; expect_out 'usage: scale collective' "--help"
run "$SCALE" --help; expect_out '^  collective ' "scale --help lists collective"

# ch. 3 pop quiz 2: AllGather of 2048 x 8192 bf16 (33554432 B) over Y = 4 on v5e, no
# wraparound: 3/4 V / 4.5e10 = 559 us ("560us"); book form V / 9e10 = 373 us; 3 hops.
run "$SCALE" collective --hw tpu-v5e --op all-gather --bytes 33554432 --group 4
expect_rc 0 "pop quiz 2"; expect_out 'time \(precise\) +559 µs' "precise 559 us"
expect_out 'book form .* +373 µs' "book 373 us"; expect_out 'bound by +bandwidth' "bandwidth-bound"
expect_out 'no wrap' "no wraparound on 4"; expect_no_nan "pop quiz 2"

run "$SCALE" collective --hw tpu-v5e --op all-gather --bytes 33554432 --group 4 --json
expect_rc 0 "--json"; expect_json "--json"
for key in time_s book_time_s bound hops; do expect_out "\"$key\": " "json key $key"; done
expect_out '"hops": 3,' "3 hops"; expect_out '"bound": "bandwidth"' "json bound"

# Latency-bound (pop quiz 2 (b)): 131072 B: 3 hops x 1 us.
run "$SCALE" collective --hw tpu-v5e --op all-gather --bytes 131072 --group 4 --json
expect_out '"bound": "latency"' "latency-bound"; expect_out '"time_s": (3(\.0+[0-9]*)?|2\.9999+[0-9]*)e-06,' "3 us"

# ch. 3 Q3: v4p cube, 256 bytes over X = 4 with wraparound: 2 hops, 2 us.
run "$SCALE" collective --hw tpu-v4p --op all-gather --bytes 256 --group 4 --json
expect_out '"hops": 2,' "Q3 2 hops"; expect_out '"time_s": (2(\.0+[0-9]*)?|1\.9999+[0-9]*)e-06,' "Q3 2 us"

# --wrap changes the answer: a 16 ring on v5e wraps by default; --wrap no doubles the time.
run "$SCALE" collective --hw tpu-v5e --op all-reduce --bytes 1G --group 16 --json
expect_out '"wraps": true' "16 wraps"; expect_out '"time_s": 0.0208333' "2 x 15/16 x 1e9 / 9e10"
run "$SCALE" collective --hw tpu-v5e --op all-reduce --bytes 1G --group 16 --wrap no --json
expect_out '"wraps": false' "--wrap no"; expect_out '"time_s": 0.0416666' "2 x 15/16 x 1e9 / 4.5e10"

# AllToAll and a GPU switch group.
run "$SCALE" collective --hw tpu-v5e --op all-to-all --bytes 8e9 --group 16x16
expect_rc 0 "all-to-all 2-D"; expect_no_nan "all-to-all"
run "$SCALE" collective --hw nvidia-h100-sxm --op all-gather --bytes 1e9 --group 8
expect_rc 0 "H100 NVLink domain"; expect_out 'switch' "switch topology"

# Issue 14 (Deliver 9): GPU groups that span nodes run over the fat tree (gpu.h), per level.
# Book ch. 12 Quiz 4 Q5: an AllGather over 2 nodes is bound by the node level, B / 514 GB/s:
# 1e9 x 7/8 / 450e9 = 1.9444 ms (the leaf: 1e9 x 1/2 / 400e9 = 1.25 ms).
run "$SCALE" collective --hw nvidia-h100-sxm --op all-gather --bytes 1e9 --group 16
expect_rc 0 "16 GPUs across 2 nodes"; expect_no_nan "fat tree"
expect_out '^  level 1 \(NVLink node\) +1\.94 ms over 8 members' "node level"
expect_out '^  level 2 \(leaf: scale-out\) +1\.25 ms over 2 members' "leaf level"
expect_out '^  time \(the slowest level binds\) +1\.94 ms' "the node binds"
expect_out '^  step model \(scale-out ring\) ' "calibrated price beside it"
run "$SCALE" collective --hw nvidia-h100-sxm --op all-gather --bytes 1e9 --group 16 --json
expect_json "fat tree json"; expect_out '"time_s": 0\.0019444' "json time"; expect_out '"level": 2,' "json levels"
run "$SCALE" collective --hw dgx-h100 --op all-reduce --bytes 3e8 --group 1024
expect_rc 0 "a system file, 1024 GPUs"; expect_out 'level 3 \(spine\)' "three levels"

# Usage errors: one line, exit 2.
expect_usage_error "no --hw" "$SCALE" collective --op all-gather --bytes 1e6 --group 4
expect_usage_error "no --op" "$SCALE" collective --hw tpu-v5e --bytes 1e6 --group 4
expect_usage_error "bad --op" "$SCALE" collective --hw tpu-v5e --op broadcast --bytes 1e6 --group 4
expect_usage_error "no --bytes" "$SCALE" collective --hw tpu-v5e --op all-gather --group 4
expect_usage_error "zero bytes" "$SCALE" collective --hw tpu-v5e --op all-gather --bytes 0 --group 4
expect_usage_error "negative bytes" "$SCALE" collective --hw tpu-v5e --op all-gather --bytes -1 --group 4
expect_usage_error "no --group" "$SCALE" collective --hw tpu-v5e --op all-gather --bytes 1e6
expect_usage_error "bad group" "$SCALE" collective --hw tpu-v5e --op all-gather --bytes 1e6 --group 4xx
expect_usage_error "zero axis" "$SCALE" collective --hw tpu-v5e --op all-gather --bytes 1e6 --group 0x4
expect_usage_error "larger than the pod" "$SCALE" collective --hw tpu-v5e --op all-gather --bytes 1e6 --group 32x16
expect_err 'larger than a tpu-v5e pod' "says why"
expect_usage_error "3-D group on a 2-D torus" "$SCALE" collective --hw tpu-v5e --op all-gather --bytes 1e6 --group 4x4x4
expect_usage_error "larger than the fat tree" "$SCALE" collective --hw nvidia-h100-sxm --op all-gather --bytes 1e6 --group 10000000
expect_err "larger than nvidia-h100-sxm's fat tree" "says why"
expect_usage_error "all-to-all over part of a node" "$SCALE" collective --hw nvidia-h100-sxm --op all-to-all --bytes 1e6 --group 12
expect_usage_error "bad --wrap" "$SCALE" collective --hw tpu-v5e --op all-gather --bytes 1e6 --group 4 --wrap maybe
expect_usage_error "unknown hardware" "$SCALE" collective --hw tpu-v9 --op all-gather --bytes 1e6 --group 4
expect_usage_error "bad option" "$SCALE" collective --bogus
expect_usage_error "bytes 1e308" "$SCALE" collective --hw tpu-v5e --op all-gather --bytes 1e308 --group 4x4
expect_err '^scale: --bytes: 1e308 is out of range' "names --bytes"

finish
