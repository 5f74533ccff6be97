#!/bin/sh
# run.sh — runs a libFuzzer target of fuzz/ (fuzz/README.md). Used by the CTests of a
# SCALE_FUZZ build (the fuzz and fuzz-ci presets):
#
#   sh run.sh replay BINARY TARGET FUZZDIR WORKDIR
#       every file of FUZZDIR/corpus/TARGET and FUZZDIR/regressions/TARGET once (files named
#       pending-* are findings not fixed yet: skipped);
#   sh run.sh fuzz BINARY TARGET FUZZDIR WORKDIR
#       fuzzes for $SCALE_FUZZ_SECONDS seconds (default 300) from those seeds plus the corpus
#       grown by earlier runs in WORKDIR/TARGET/corpus.
#
# Exit 0: no finding. Exit 1: a finding (crash, sanitizer report, leak, broken invariant,
# timeout, out of memory); the message names the reproducer and how to replay it.
set -u
mode=$1 bin=$2 target=$3 fuzzdir=$4 work=$5/$3
seconds=${SCALE_FUZZ_SECONDS:-300}
# -close_fd_mask=3: the code under test prints to /dev/null, libFuzzer and the sanitizers to
# the log. -timeout: an input that runs 60 s is a hang (a loop bound taken from the input);
# the slowest legitimate inputs (plan searches) take a few seconds under the sanitizers.
set -- -close_fd_mask=3 -timeout=60 -rss_limit_mb=2560 -malloc_limit_mb=2048
[ -f "$fuzzdir/dict/$target.dict" ] && set -- "$@" "-dict=$fuzzdir/dict/$target.dict"
mkdir -p "$work" || exit 1

# Seeds: the shipped corpus and the fixed regressions, without pending ones.
rm -rf "$work/seeds"
mkdir -p "$work/seeds" "$work/corpus" "$work/artifacts"
for kind in corpus regressions; do
  dir=$fuzzdir/$kind/$target
  [ -d "$dir" ] || continue
  for f in "$dir"/*; do
    case ${f##*/} in pending-*|README.md) continue ;; esac
    if [ -f "$f" ]; then cp "$f" "$work/seeds/$kind-${f##*/}" || exit 1; fi
  done
done
n_seeds=$(ls "$work/seeds" | wc -l)

report() { # report EXIT_STATUS LOG
  found=
  for a in "$work"/artifacts/*; do
    [ -f "$a" ] || continue
    found=1
    kind=${a##*/}; kind=${kind%%-*}
    printf 'FUZZ FINDING in target %s: %s, reproducer %s\n' "$target" "$kind" "$a"
    printf '  replay it:   %s %s\n' "$bin" "$a"
  done
  echo "---- last lines of $2 ----"
  tail -n 80 "$2"
  echo "----"
  if [ -n "$found" ]; then
    echo "Fix the bug, then keep the input as a regression test: copy it to" \
         "fuzz/regressions/$target/ (fuzz/README.md \"Findings\")."
  else
    echo "libFuzzer exited $1 without leaving a reproducer: the harness itself failed" \
         "(see the log above)."
  fi
}

rm -f "$work"/artifacts/*
log=$work/$mode.log
if [ "$mode" = replay ]; then
  [ "$n_seeds" -gt 0 ] || { echo "no seeds for $target under $fuzzdir"; exit 1; }
  "$bin" "$@" -artifact_prefix="$work/artifacts/" -runs=0 "$work/seeds" >"$log" 2>&1
  rc=$?
  if [ $rc -ne 0 ]; then report $rc "$log"; exit 1; fi
  echo "fuzz.replay.$target: $n_seeds seeds and regressions ran without a finding"
  exit 0
elif [ "$mode" = fuzz ]; then
  "$bin" "$@" -artifact_prefix="$work/artifacts/" -max_total_time="$seconds" \
    -print_final_stats=1 "$work/corpus" "$work/seeds" >"$log" 2>&1
  rc=$?
  if [ $rc -ne 0 ]; then report $rc "$log"; exit 1; fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
  echo "fuzz.run.$target: ${runs:-?} inputs in ${seconds} s (${speed:-?} exec/s, $cov)," \
       "corpus $(ls "$work/corpus" | wc -l) files in $work/corpus: no finding"
  exit 0
else
  echo "usage: sh run.sh replay|fuzz BINARY TARGET FUZZDIR WORKDIR" >&2
  exit 2
fi
