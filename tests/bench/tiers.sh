#!/bin/sh
# tiers.sh — how long each test tier takes (a benchmark, not a test: timings are not verdicts).
#
#   sh tests/bench/tiers.sh [--warm] [--jobs N] [BUILD_DIR [TIER...]]
#
# Builds nothing: runs each TIER (fast: README's test command, every test but label slow; slow:
# label slow; full: both; default "fast slow") with ctest from BUILD_DIR (default build/, as
# `cmake --workflow --preset default` left it) on N jobs (default 2, as the presets), then
# prints the tier's wall time, the CPU time of its test processes (user + sys), the sum of its
# test times, that sum / N (what the tier takes on N quiet cores) and its ten slowest tests.
# The fits the tests share (tests/support/fits.tsv) are removed first, as on a fresh build,
# unless --warm. Each tier's ctest output is kept in BUILD_DIR/Testing/tiers-TIER.log.
set -u
warm=no
jobs=2
while [ $# -gt 0 ]; do
  case $1 in
    --warm) warm=yes; shift ;;
    --jobs) jobs=${2:?--jobs N}; shift 2 ;;
    -h | --help) sed -n '2,12p' "$0"; exit 0 ;;
    -*) echo "tiers.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
build=${1:-build}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- fast slow
if [ ! -f "$build/CTestTestfile.cmake" ]; then
  echo "tiers.sh: $build is not a configured build (cmake --workflow --preset default)" >&2
  exit 2
fi
mkdir -p "$build/Testing"

# cpu_s: the user + sys seconds of this shell's finished children so far, from `times` (line 2),
# which must run in this shell itself (not in a pipeline or $(...), a subshell's own times).
cpu_s() {
  awk 'NR == 2 {
    t = 0
    for (i = 1; i <= 2; i++) { split($i, p, "m"); sub(/s$/, "", p[2]); t += 60 * p[1] + p[2] }
    printf "%.1f", t }' "$build/Testing/tiers.times"
}

for tier in "$@"; do
  case $tier in
    fast) filter="-LE slow" ;;
    slow) filter="-L slow" ;;
    full) filter="" ;;
    *) echo "tiers.sh: unknown tier '$tier' (fast, slow or full)" >&2; exit 2 ;;
  esac
  [ "$warm" = yes ] || rm -rf "$build/fits"
  log=$build/Testing/tiers-$tier.log
  echo "== $tier tier: ctest $filter -j $jobs in $build"
  times >"$build/Testing/tiers.times"
  cpu0=$(cpu_s)
  t0=$(date +%s)
  # shellcheck disable=SC2086 # the filter is two words or none
  ctest --test-dir "$build" $filter -j "$jobs" >"$log" 2>&1
  rc=$?
  wall=$(($(date +%s) - t0))
  times >"$build/Testing/tiers.times"
  cpu=$(awk -v a="$(cpu_s)" -v b="$cpu0" 'BEGIN { printf "%.0f", a - b }')
  # " 12/116 Test  #39: lib.servecal ......   Passed   16.73 sec": seconds, name, verdict
  awk '/ Test +#[0-9]+: / {
    for (i = 1; i <= NF; i++) if ($i ~ /^#[0-9]+:$/) name = $(i + 1)
    verdict = $(NF - 2); sub(/^[.*]+/, "", verdict)
    printf "%s %s %s\n", $(NF - 1), name, verdict }' "$log" | sort -rn >"$log.times"
  n=$(wc -l <"$log.times")
  sum=$(awk '{ s += $1 } END { printf "%.0f", s }' "$log.times")
  summary=$(grep -E '^[0-9]+% tests passed' "$log" || echo "no summary: see $log")
  echo "$tier tier: $n tests, wall ${wall} s, CPU ${cpu} s, sum of test times ${sum} s," \
       "sum / $jobs = $((sum / jobs)) s; ctest exit $rc: $summary"
  echo "  ten slowest:"
  head -n 10 "$log.times" | awk '{ printf "  %8.1f s  %-36s %s\n", $1, $2, $3 }'
  failed=$(awk '$3 != "Passed" { print $2 " (" $3 ")" }' "$log.times" | tr '\n' ' ')
  [ -z "$failed" ] || echo "  not passed: $failed"
done
