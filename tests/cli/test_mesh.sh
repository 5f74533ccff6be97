#!/bin/sh
# test_mesh.sh — the MPI mesh executor `scale-mesh` (beside the `scale` command given as $1),
# under mpirun with 1, 2, 4 and 8 ranks: every collective and every sharded-matmul case of
# chapter 3 gives the unsharded answer and sends exactly chapter 3's bytes per rank; the trace
# is valid Chrome trace-event JSON with a lane per rank. Assertions are on results and bytes,
# never on measured times. Skipped (passes with a message) where MPI was absent at configure
# time, so there is no scale-mesh, or where no mpirun is installed.
SCALE=$1
. "$(dirname "$0")/lib.sh"

MESH="$(dirname "$SCALE")/scale-mesh"
MPIRUN=${2:-$(command -v mpirun || command -v mpiexec || true)}
if [ ! -x "$MESH" ] || [ -z "$MPIRUN" ]; then
  echo "test_mesh: skipped: no scale-mesh or no mpirun (install openmpi-bin libopenmpi-dev and configure again)"
  finish
  exit $?
fi

# Open MPI refuses root without these (CI runs as root), and more ranks than cores without
# --oversubscribe; single-copy through ptrace is often not allowed in containers.
flags=""
if "$MPIRUN" --version 2>&1 | grep -q 'Open MPI'; then
  flags="--oversubscribe"
  OMPI_ALLOW_RUN_AS_ROOT=1
  OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  OMPI_MCA_btl_vader_single_copy_mechanism=none
  export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM OMPI_MCA_btl_vader_single_copy_mechanism
fi

# Under the asan preset: Open MPI keeps its own state, and its plugins' (unloaded before the
# leak check, so unnamed and unsuppressible), past MPI_Finalize. Leak detection is off for the
# MPI runs only; AddressSanitizer's memory errors still abort them.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS

# mesh P ARGS... : runs scale-mesh on P ranks.
mesh() {
  p=$1
  shift
  hostfile=""
  if [ "$1" = --hostfile ]; then
    hostfile="--hostfile $2"
    shift 2
  fi
  # shellcheck disable=SC2086
  run timeout 100 "$MPIRUN" $flags $hostfile -n "$p" "$MESH" "$@"
}

run "$MESH" --help; expect_rc 0 "--help (one process, no mpirun)"; expect_out 'usage: mpirun -n P scale-mesh' "--help"

# Every result row of a TSV passed and sent exactly the expected bytes.
check_tsv() {
  desc=$1 tsv=$2 rows=$3
  n=$(tail -n +2 "$tsv" | wc -l)
  if [ "$n" -eq "$rows" ]; then pass; else fail "$desc: $n rows, expected $rows"; fi
  bad=$(tail -n +2 "$tsv" | awk -F '\t' '$8 == "FAILED" || $6 != $7 || $9 !~ /^[0-9.e+-]+$/ || $9 <= 0' | head -3)
  if [ -z "$bad" ]; then pass; else fail "$desc: rows failed: $bad"; fi
}

for p in 1 2 4 8; do
  mesh "$p" --dims 64,64,64 --bytes 65536 --reps 1 --tsv "$TMP/mesh$p.tsv" --trace "$TMP/trace$p.json"
  expect_rc 0 "$p ranks"; expect_out 'every check passed' "$p ranks"
  # Rows: 4 collectives per axis (and over the whole mesh when it has two axes), the four
  # matmul cases, the collective matmul and its baseline.
  case $p in
    1 | 2) rows=$((4 + 4 + 2)) ;;
    *) rows=$((4 * 3 + 4 + 2)) ;;
  esac
  check_tsv "$p ranks" "$TMP/mesh$p.tsv" "$rows"
  for c in 1 2 3 4; do
    if grep -q "^matmul	case $c	" "$TMP/mesh$p.tsv"; then pass; else fail "$p ranks: no case $c row"; fi
  done
done

# Chapter 3's bytes by hand, on {X:2, Y:2} with V = 65536 bytes: a ring AllGather over X (n = 2)
# sends (n-1)/n V = 32768 per rank; over both axes (n = 4) 49152; an AllReduce over both twice
# that, 98304; an AllToAll over both sends 3/16 V = 12288. Case 2 gathers A[I, J_X] over X: the
# gathered A is 64 x 64 doubles = 32768 bytes, half of it sent: 16384. Case 3 all-reduces the
# partial C (64 x 64 doubles = 32768 bytes) over X: 32768. Case 1 sends nothing.
t="$TMP/mesh4.tsv"
for row in "collective	all-gather	X	2	65536	32768" "collective	all-gather	XY	4	65536	49152" \
           "collective	all-reduce	XY	4	65536	98304" "collective	all-to-all	XY	4	65536	12288" \
           "matmul	case 1		4	0	0" "matmul	case 2		4	32768	16384" \
           "matmul	case 3		4	32768	32768"; do
  if grep -q "^$row	" "$t"; then pass; else fail "4 ranks: no row '$row' (hand-derived bytes)"; fi
done
# Case 3 adds partial sums in ring order: checked to a tolerance; the others bitwise.
if grep -q "^matmul	case 3	.*	tol 1e-12	" "$t" && grep -q "^matmul	case 2	.*	bitwise	" "$t"; then pass; else fail "check kinds"; fi
if grep -q "^cmatmul	collective matmul	.*overlap gain [0-9.]*$" "$t"; then pass; else fail "collective matmul row"; fi

# The trace: Chrome trace-event JSON, complete events on every rank with the bytes they sent.
if command -v python3 >/dev/null 2>&1; then
  if python3 - "$TMP/trace4.json" >"$TMP/check" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
lanes = {e["tid"] for e in ev if e["ph"] == "X"}
names = {e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
bad = []
if lanes != {0, 1, 2, 3}: bad.append("lanes %r" % lanes)
if len(names) != 4: bad.append("thread names %r" % names)
for e in ev:
    if e["ph"] != "X": continue
    if not (e["dur"] >= 0 and e["ts"] >= 0 and e["args"]["bytes_sent"] >= 0): bad.append(repr(e))
sent = sum(e["args"]["bytes_sent"] for e in ev if e["ph"] == "X" and e["name"] == "all-gather X" and e["tid"] == 0)
if sent != 32768: bad.append("all-gather X on rank 0 sent %r" % sent)
if not any(e["name"].startswith("cmatmul step") for e in ev): bad.append("no collective matmul steps")
print("\n".join(bad)); sys.exit(1 if bad else 0)
PY
  then pass; else fail "trace: $(head -c 400 "$TMP/check")"; fi
fi

# Across hosts the same way, with a host file (chapter 10); here the one host is localhost.
if "$MPIRUN" --version 2>&1 | grep -q 'Open MPI'; then
  printf 'localhost slots=4\n' >"$TMP/hosts"
  mesh 4 --hostfile "$TMP/hosts" --run collectives --bytes 65536 --reps 1
  expect_rc 0 "--hostfile"; expect_out 'every check passed' "--hostfile"
fi

# A given sharding, case 2 with a reduction (contracting dims sharded on different axes).
mesh 4 --run matmul --matmul "A[I, J_X] . B[J_Y, K]" --dims 32,64,32 --reps 1 --tsv "$TMP/given.tsv"
expect_rc 0 "given matmul"; check_tsv "given matmul" "$TMP/given.tsv" 1

# Bad input: one line, non-zero exit.
mesh 4 --mesh "{X:3}" --run collectives
if [ "$rc" -eq 2 ] && [ "$(grep -c 'scale-mesh:' "$TMP/err")" -eq 1 ]; then pass; else fail "mesh of the wrong size: exit $rc: $(head -c 300 "$TMP/err")"; fi
mesh 2 --bogus
if [ "$rc" -eq 2 ] && [ "$(grep -c 'scale-mesh:' "$TMP/err")" -eq 1 ]; then pass; else fail "unknown option: exit $rc"; fi
mesh 2 --run matmul --matmul "A[I_X, J] . B[K, L]"
if [ "$rc" -eq 1 ] && [ "$(grep -c 'scale-mesh:' "$TMP/err")" -ge 1 ]; then pass; else fail "no shared dimension: exit $rc"; fi
mesh 2 --run matmul --dims 63,64,64
if [ "$rc" -eq 1 ] && grep -q 'do not divide' "$TMP/err"; then pass; else fail "indivisible dims: exit $rc"; fi
finish
