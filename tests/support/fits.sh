# fits.sh — fit once: a refit that several tests read (tests/support/fits.tsv lists them) runs
# once per test run into a file keyed by its inputs, and the tests read that file.
#
# As a command, the CTest fixture fit.NAME (FIXTURES_SETUP fit.NAME):
#   sh fits.sh NAME SCALE   runs `SCALE ARGS` (NAME's arguments in fits.tsv) unless a file of
#                           its key exists; exits with the run's status
# Sourced (tests/cli/lib.sh sets fit_support, this file's folder, first):
#   fit_run NAME SCALE      like lib.sh's run, served from the file: $TMP/out, $TMP/err, $rc
#   fit_args NAME           prints NAME's arguments
#   fit_for TIER ARGS       prints the name of the fit of TIER (fast or slow) that runs ARGS
# The key is a sha256 of the arguments, the scale binary and every file under measurements/,
# hardware/ and models/ of SCALE_DATA_DIR (else SCALE_SOURCE_DIR): a change of the code or the
# data runs the fit again. The files are SCALE_FITS_DIR/NAME-KEY.out and .err (CTest sets
# build/fits); only a run that exits 0 is kept, and it replaces NAME's files of other keys.
# Without SCALE_FITS_DIR a sourced fit_run keeps its file in $TMP (this test's own).

fit_args() {
  awk -F'\t' -v n="$1" '!/^#/ && $1 == n { print $3 }' "${fit_support:?}/fits.tsv"
}

fit_for() {
  awk -F'\t' -v t="$1" -v a="$2" '!/^#/ && $2 == t && $3 == a { print $1 }' \
    "${fit_support:?}/fits.tsv"
}

# fit_key SCALE ARGS: 16 hex digits of the inputs' sha256.
fit_key() {
  fit_data=${SCALE_DATA_DIR:-${SCALE_SOURCE_DIR:?fits.sh needs SCALE_DATA_DIR or SCALE_SOURCE_DIR}}
  {
    printf 'scale %s\n' "$2"
    sha256sum <"$1"
    (cd "$fit_data" && find measurements hardware models -type f -exec sha256sum {} + |
      LC_ALL=C sort -k 2)
  } | sha256sum | cut -c 1-16
}

# fit_make NAME SCALE: sets fit_out, fit_err (the run's files) and fit_rc (its status), running
# the fit only when no file of its key exists; a line on stdout says which, and how long it took.
fit_make() {
  fit_name=$1
  fit_argv=$(fit_args "$1")
  if [ -z "$fit_argv" ]; then
    echo "fits.sh: no fit '$1' in $fit_support/fits.tsv" >&2
    return 2
  fi
  fit_dir=${SCALE_FITS_DIR:-${TMP:?fits.sh needs SCALE_FITS_DIR}}
  mkdir -p "$fit_dir" || return 2
  fit_key=$(fit_key "$2" "$fit_argv") || return 2
  fit_path=$fit_dir/$fit_name-$fit_key
  fit_out=$fit_path.out
  fit_err=$fit_path.err
  fit_rc=0
  if [ -f "$fit_out" ]; then
    echo "fit $fit_name: 'scale $fit_argv' read from $fit_out"
    return 0
  fi
  echo "fit $fit_name: running 'scale $fit_argv' (key $fit_key)"
  fit_t0=$(date +%s)
  # shellcheck disable=SC2086 # the arguments are words
  "$2" $fit_argv >"$fit_out.$$" 2>"$fit_err.$$"
  fit_rc=$?
  echo "fit $fit_name: exit $fit_rc after $(($(date +%s) - fit_t0)) s"
  if [ "$fit_rc" -ne 0 ]; then
    fit_out=$fit_out.$$
    fit_err=$fit_err.$$
    return 0
  fi
  for fit_old in "$fit_dir/$fit_name"-*.out "$fit_dir/$fit_name"-*.err; do
    case $fit_old in "$fit_path".*) ;; *) rm -f "$fit_old" ;; esac
  done
  # the .out last: its presence says the pair is complete (a rename is atomic)
  mv "$fit_err.$$" "$fit_err" && mv "$fit_out.$$" "$fit_out"
}

fit_run() {
  if ! fit_make "$1" "$2"; then
    rc=2
    : >"$TMP/out"
    : >"$TMP/err"
    return
  fi
  cp "$fit_out" "$TMP/out"
  cp "$fit_err" "$TMP/err"
  rc=$fit_rc
  if [ "$fit_rc" -ne 0 ]; then rm -f "$fit_out" "$fit_err"; fi
}

if [ "${0##*/}" = fits.sh ]; then
  if [ $# -ne 2 ] || [ -z "${SCALE_FITS_DIR:-}" ]; then
    echo "usage: SCALE_FITS_DIR=DIR sh fits.sh NAME /path/to/scale" >&2
    exit 2
  fi
  fit_support=$(dirname "$0")
  fit_make "$1" "$2" || exit 2
  if [ "$fit_rc" -ne 0 ]; then
    cat "$fit_err"
    rm -f "$fit_out" "$fit_err"
  fi
  exit "$fit_rc"
fi
