# check_lib.sh — the preamble the grader's shell checks share (sourced, not run):
#   . "$(dirname "$0")/check_lib.sh"; check_begin NAME "$@"
# check_begin NAME SCALE ROOT [...] sets scale and root (usage and exit 2 when either is
# missing), makes $tmp (removed on exit; mode 0700: the sandbox must cope) and the counters;
# then:
#   ok, bad MESSAGE, check EXPR MESSAGE   count a check (bad prints "FAILED: MESSAGE")
#   skip                                  a part that cannot run here (the end exits 77)
#   stage TEXT                            a progress line with the seconds so far (ctest -V)
#   rubric_points CHAPTER...              the rubric's points of those chapters ("V" or "V+D")
#   check_end                             "NAME: N passed, F failed" and the exit status
check_begin() {
  check_name=$1
  scale=$2
  root=$3
  if [ -z "$scale" ] || [ -z "$root" ]; then
    echo "usage: sh $check_name.sh /path/to/scale /path/to/source" >&2
    exit 2
  fi
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/scale-$check_name.XXXXXX") || exit 2
  trap 'check_cleanup; rm -rf "$tmp"' EXIT
  passed=0
  failed=0
  skipped=0
  t0=$(date +%s)
}
check_cleanup() { :; } # a check that starts processes redefines it
ok() { passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; failed=$((failed + 1)); }
check() { if eval "$1"; then ok; else bad "$2"; fi; }
skip() { skipped=$((skipped + 1)); }
stage() { echo "-- $check_name: $* ($(($(date +%s) - t0)) s)"; }
rubric_points() {
  awk -F'\t' -v chapters=" $* " '!/^#/ && index(chapters, " " $2 " ") {
    n = split($3, p, "+"); s += p[1] + (n > 1 ? p[2] : 0)} END {printf "%g", s}' \
    "$root/tests/rubric.tsv"
}
check_end() {
  echo "$check_name: $passed passed, $failed failed in $(($(date +%s) - t0)) s"
  [ "$failed" -eq 0 ] || exit 1
  [ "$skipped" -eq 0 ] || exit 77
  exit 0
}
