#!/bin/sh
# test_measure.sh — `scale measure`: usage errors, then one quick sweep (--quick, two threads)
# that must load back as hardware with every value positive and finite. Asserts nothing about
# how fast this machine is: only that the numbers are numbers and the file is a hardware file.
SCALE=$1
. "$(dirname "$0")/lib.sh"

run "$SCALE" measure --help; expect_rc 0 "--help"; expect_out 'usage: scale measure' "--help"
run "$SCALE" --help; expect_out '^  measure ' "scale --help lists measure"

expect_usage_error "unknown option" "$SCALE" measure --bogus
expect_usage_error "extra argument" "$SCALE" measure extra
expect_usage_error "--threads 0" "$SCALE" measure --threads 0
expect_usage_error "--threads 1.5" "$SCALE" measure --threads 1.5
expect_usage_error "--threads 1000" "$SCALE" measure --threads 1000
expect_usage_error "--out ''" "$SCALE" measure --out ''

# Built without OpenBLAS: the options are still checked (above), then one line and exit 1.
run "$SCALE" measure --quick --out "$TMP/no/such/dir/x.ini"
if grep -q 'without OpenBLAS' "$TMP/err"; then
  if [ "$rc" -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && [ ! -s "$TMP/out" ]; then pass; else fail "no OpenBLAS: exit $rc"; fi
  echo "test_measure: this scale was built without OpenBLAS; the sweep is not tested"
  finish
  exit $?
fi
# An unwritable --out fails at once (before the sweep), in one line.
if [ "$rc" -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "^scale: measure: cannot write" "$TMP/err"; then
  pass
else
  fail "unwritable --out: exit $rc: $(head -c 300 "$TMP/err")"
fi

hw="$TMP/local-test.ini"
run "$SCALE" measure --quick --threads 2 --out "$hw" --json
expect_rc 0 "quick sweep"; expect_json "quick sweep --json"
expect_err '^measure: \[1/[0-9]+\] gemm fp32 1 thread ' "progress lines"
expect_err '^measure: \[[0-9]+/[0-9]+\] stream triad 2 threads ' "multi-thread STREAM"
expect_err "wrote $hw" "says where it wrote"
for key in fp32_flops_per_s fp64_flops_per_s dram_bytes_per_s fp32_flops_per_s_one_thread gemm stream; do
  expect_out "\"$key\": " "json key $key"
done
cp "$TMP/out" "$TMP/measure.json"

# The file is a hardware file: comments name the measurement, the loader accepts it.
if grep -q '^; .*measured by `scale measure --quick`' "$hw"; then pass; else fail "measured-on comment"; fi
run "$SCALE" hw show "$hw"; expect_rc 0 "hw show FILE"; expect_out 'fp32 matmul' "hw show rows"
expect_no_nan "hw show FILE"
run "$SCALE" hw show "$hw" --json; expect_rc 0 "hw show FILE --json"; expect_json "hw show --json"
cp "$TMP/out" "$TMP/hw.json"
run "$SCALE" roofline --hw "$hw" --matmul 1024,1024,1024 --compute-dtype fp32 --act-dtype fp32 --weight-dtype fp32
expect_rc 0 "roofline on the measured machine"; expect_no_nan "roofline on the measured machine"

# Every number in the summary, the points and the loaded file is positive and finite.
if command -v python3 >/dev/null 2>&1; then
  if python3 - "$TMP/measure.json" "$TMP/hw.json" "$hw" >"$TMP/check" 2>&1 <<'PY'
import json, math, re, sys
m = json.load(open(sys.argv[1]))
bad = []
def pos(v, where):
    if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
        bad.append("%s = %r" % (where, v))
for k, v in m["summary"].items():
    pos(v, "summary." + k)
if len(m["gemm"]) < 8 or len(m["stream"]) < 16:
    bad.append("too few points: %d gemm, %d stream" % (len(m["gemm"]), len(m["stream"])))
for p in m["gemm"]:
    for k in ("m", "n", "k", "intensity_flops_per_byte", "flops_per_s", "time_s"):
        pos(p[k], "gemm." + k)
for p in m["stream"]:
    for k in ("working_set_bytes", "bytes_per_s", "time_s"):
        pos(p[k], "stream." + k)
if {p["threads"] for p in m["gemm"]} != {1, 2}: bad.append("gemm thread counts")
if {p["dtype"] for p in m["gemm"]} != {"fp32", "fp64"}: bad.append("gemm dtypes")
if {p["kernel"] for p in m["stream"]} != {"copy", "scale", "add", "triad"}: bad.append("kernels")
# Skinny and square shapes; intensity from the shape by hand: 2mnk / (4 (mk + kn + mn)).
if not any(p["m"] == 1 for p in m["gemm"]): bad.append("no GEMV-like shape")
for p in m["gemm"]:
    e = 8 if p["dtype"] == "fp64" else 4
    want = 2.0 * p["m"] * p["n"] * p["k"] / (e * (p["m"] * p["k"] + p["k"] * p["n"] + p["m"] * p["n"]))
    if abs(p["intensity_flops_per_byte"] - want) > 1e-9 * want: bad.append("intensity of %r" % p)
# Working sets span the caches and go past the last level.
ws = [p["working_set_bytes"] for p in m["stream"]]
llc = m["machine"]["llc_bytes"]
if min(ws) > 64 * 1024: bad.append("no working set in L1/L2")
if llc and llc <= 256 * 2**20 and max(ws) < 2 * llc: bad.append("no working set past the last-level cache")
h = json.load(open(sys.argv[2]))
flat = json.dumps(h)
for k, v in re.findall(r'"([a-z0-9_]+)": (-?[0-9.eE+-]+|null)', flat):
    if v != "null":
        pos(float(v), "hw." + k)
if "hbm_bytes_per_s" not in flat: bad.append("hw show --json lacks hbm_bytes_per_s")
# The file's own lines: the points it records are the JSON's.
text = open(sys.argv[3]).read()
pts = re.findall(r"^; point (gemm|stream) (.*)$", text, re.M)
if len(pts) != len(m["gemm"]) + len(m["stream"]): bad.append("points in the file: %d" % len(pts))
for kind, rest in pts:
    for k, v in re.findall(r"([a-z_0-9]+)=([^ ]+)", rest):
        if k not in ("dtype", "kernel"):
            pos(float(v), "file." + kind + "." + k)
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
  then pass; else fail "values: $(head -c 600 "$TMP/check")"; fi
fi
finish
