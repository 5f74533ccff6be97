#!/bin/sh
# test_data_sources.sh — every number in hardware/ and models/ names its source: a numeric
# `key = value` line must carry an inline `;` comment or sit in a paragraph (a run of non-blank
# lines) that has a comment line above it. Also checks that README's install command installs
# exactly the packages of .ci/packages.
SCALE=$1
. "$(dirname "$0")/lib.sh"
ROOT=${SCALE_SOURCE_DIR:?}

for f in "$ROOT"/hardware/*.ini "$ROOT"/models/*.ini; do
  bad=$(awk '
    /^[ \t]*$/            { covered = 0; next }
    /^[ \t]*[;#]/         { covered = 1; next }
    /^[ \t]*\[/           { next }
    /=[ \t]*[-+0-9.]/     { if (!covered && $0 !~ /;/) printf "%s:%d: %s\n", FILENAME, FNR, $0 }
  ' "$f")
  if [ -z "$bad" ]; then pass; else fail "number without a source comment: $bad"; fi
done

# README's first command installs the packages CI installs.
readme=$(grep -m1 '^apt-get update && apt-get install' "$ROOT/README.md" |
  sed 's/.*--no-install-recommends //; s/ &&.*//' | tr ' ' '\n' | sort | tr '\n' ' ')
ci=$(tr ' ' '\n' <"$ROOT/.ci/packages" | grep . | sort | tr '\n' ' ')
if [ -n "$readme" ] && [ "$readme" = "$ci" ]; then pass; else fail "README installs '$readme', .ci/packages has '$ci'"; fi

finish
