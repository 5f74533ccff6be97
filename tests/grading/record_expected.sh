#!/bin/sh
# record_expected.sh CHECKER SERVER OUT [STORED] — records the reference's answers of one
# chapter's grid comparisons into OUT (see grading_expected.c): the checker runs every case in
# one process with SCALE_GRADE_RECORD set, against the server SERVER (the solutions). With
# STORED, then compares OUT with the stored file and fails, naming the first difference, if the
# reference and the stored answers have drifted apart.
checker=$1
server=$2
out=$3
stored=$4
if [ -z "$checker" ] || [ -z "$server" ] || [ -z "$out" ]; then
  echo "usage: sh record_expected.sh CHECKER SERVER OUT [STORED]" >&2
  exit 2
fi
rm -f "$out.part"
if ! SCALE_GRADE_RECORD="$out.part" SCALE_GRADE_SERVER="$server" CK_FORK=no \
  CK_VERBOSITY=silent "$checker" > /dev/null; then
  echo "record_expected: $checker failed while recording (is the server the solutions?)" >&2
  exit 1
fi
mv "$out.part" "$out" || exit 1
[ -z "$stored" ] && exit 0
if ! cmp -s "$out" "$stored"; then
  echo "record_expected: $stored is not what the reference (or, for a decision exercise's" >&2
  echo "costs, the library: grading_decision.h) gives today; first difference:" >&2
  diff "$stored" "$out" | head -4 >&2
  echo "(regenerate with: cmake --build BUILD --target grading_expected, and commit)" >&2
  exit 1
fi
echo "record_expected: $(wc -l < "$out" | tr -d ' ') stored answers match the reference"
