#!/bin/sh
# lint.sh [ROOT] — every exercise id in its six places, exactly once (DESIGN.md "Exercises and
# grading"). For each row "id<TAB>NN-slug<TAB>points<TAB>title" of tests/rubric.tsv, with
# id = slug.name and the function ex_slug_name (in ids, functions and file stems the slug has '_'
# where the chapter folder has '-': 06-applied-training/applied_training_ex.h):
#   1. the rubric row itself (unique id, well-formed fields, id prefixed by the chapter's slug);
#   2. a prototype in exercises/NN-slug/slug_ex.h;
#   3. a definition (the stub) in exercises/NN-slug/slug_ex.c;
#   4. a definition (the reference) in solutions/NN-slug/slug_ex.c;
#   5. a test case named "id" in tests/grading/test_NN_slug.c;
#   6. an `{exercise} id` block in chapters/NN-slug/slug.md — only where that file exists; the
#      ids of chapters not written yet are listed as a warning.
# And the other way round: every ex_ function of a contract, every test case of a grading suite
# and every {exercise} block of a chapter has its rubric row.
# Prints "lint: N ids, E errors, W warnings"; exit 1 on any error.
root=${1:-.}
rubric="$root/tests/rubric.tsv"
errors=0
warnings=0
n_ids=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scale-lint.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

error() { echo "lint: error: $*"; errors=$((errors + 1)); }
warn() { echo "lint: warning: $*"; warnings=$((warnings + 1)); }

if [ ! -f "$rubric" ]; then
  echo "lint: error: no $rubric"
  exit 1
fi

# count PATTERN FILE: lines of FILE matching the extended regex PATTERN (0 if FILE is missing).
count() {
  if [ -f "$2" ]; then grep -cE -- "$1" "$2"; else echo 0; fi
}

# The rubric's rows, without comments and blank lines.
grep -v '^#' "$rubric" | grep -v '^[[:space:]]*$' > "$tmp/rows"
cut -f1 "$tmp/rows" | sort | uniq -d > "$tmp/dups"
while read -r dup; do error "tests/rubric.tsv: id '$dup' appears more than once"; done < "$tmp/dups"
cut -f1 "$tmp/rows" | sort -u > "$tmp/ids"

tab=$(printf '\t')
: > "$tmp/missing_md"
while IFS="$tab" read -r id chapter points title extra; do
  n_ids=$((n_ids + 1))
  where="tests/rubric.tsv: '$id'"
  if [ -n "$extra" ]; then error "$where: more than 4 tab-separated fields"; fi
  if ! printf '%s\n' "$id" | grep -qE '^[a-z0-9_]+\.[a-z0-9_]+$'; then
    error "$where: id is not slug.name"; continue
  fi
  if ! printf '%s\n' "$chapter" | grep -qE '^[0-9][0-9]-[a-z0-9-]+$'; then
    error "$where: chapter '$chapter' is not NN-slug"; continue
  fi
  if ! printf '%s\n' "$points" | grep -qE '^[0-9]+(\.[0-9]+)?(\+[0-9]+(\.[0-9]+)?)?$' ||
    [ "$points" = 0 ]; then
    error "$where: points '$points' is not a positive number V or V+D"
  fi
  if [ -z "$title" ]; then error "$where: empty title"; fi
  slug=$(printf '%s' "${chapter#??-}" | tr '-' '_') # file stems and ids use '_' for '-'
  num=${chapter%%-*}
  prefix=${id%%.*}
  name=${id#*.}
  if [ "$prefix" != "$slug" ]; then
    error "$where: id must start with the chapter's slug '$slug.'"
  fi
  fn="ex_${prefix}_${name}"
  defn="^[a-z_0-9]+[ *]+${fn}\\("
  header="exercises/$chapter/${slug}_ex.h"
  stub="exercises/$chapter/${slug}_ex.c"
  ref="solutions/$chapter/${slug}_ex.c"
  suite="tests/grading/test_${num}_$slug.c"
  md="chapters/$chapter/${chapter#??-}.md"
  for place in "$header" "$stub" "$ref"; do
    n=$(count "$defn" "$root/$place")
    if [ ! -f "$root/$place" ]; then error "$id: no $place"
    elif [ "$n" -eq 0 ]; then error "$id: $fn missing from $place"
    elif [ "$n" -gt 1 ]; then error "$id: $fn appears $n times in $place"
    fi
  done
  id_re=$(printf '%s' "$id" | sed 's/\./\\./g')
  n=$(count "\"$id_re\"" "$root/$suite")
  if [ ! -f "$root/$suite" ]; then error "$id: no $suite"
  elif [ "$n" -eq 0 ]; then error "$id: no test case \"$id\" in $suite"
  elif [ "$n" -gt 1 ]; then error "$id: \"$id\" appears $n times in $suite"
  fi
  if [ -f "$root/$md" ]; then
    n=$(count "\\{exercise\\}[[:space:]]+$id_re([^a-z0-9_.]|\$)" "$root/$md")
    if [ "$n" -eq 0 ]; then error "$id: no {exercise} $id block in $md"
    elif [ "$n" -gt 1 ]; then error "$id: {exercise} $id appears $n times in $md"
    fi
  else
    printf '%s %s\n' "$md" "$id" >> "$tmp/missing_md"
  fi
done < "$tmp/rows"

# Chapters not written yet: one warning per chapter, listing its ids.
for md in $(cut -d' ' -f1 "$tmp/missing_md" | sort -u); do
  list=$(grep "^$md " "$tmp/missing_md" | cut -d' ' -f2 | tr '\n' ' ')
  warn "$md does not exist yet; it will need {exercise} blocks for: $list"
done

# The other way round: nothing graded, declared or cited without a rubric row.
for header in "$root"/exercises/*/*_ex.h; do
  [ -f "$header" ] || continue
  chapter=$(basename "$(dirname "$header")")
  prefix=$(printf '%s' "${chapter#??-}" | tr '-' '_')
  grep -oE "^[a-z_0-9]+[ *]+ex_[a-z0-9_]+\\(" "$header" | grep -oE 'ex_[a-z0-9_]+\(' | tr -d '(' |
    while read -r fn; do
      id="$prefix.${fn#ex_"$prefix"_}"
      case "$fn" in
        ex_"$prefix"_*) grep -qxF "$id" "$tmp/ids" || echo "lint: error: ${header#"$root"/}: $fn has no rubric row '$id'" ;;
        *) echo "lint: error: ${header#"$root"/}: $fn is not named ex_${prefix}_*" ;;
      esac
    done
done > "$tmp/reverse"
for suite in "$root"/tests/grading/test_[0-9][0-9]_*.c; do
  [ -f "$suite" ] || continue
  grep -oE 'grade_add\([^,]+, *"[^"]+"' "$suite" | sed 's/.*"\([^"]*\)"$/\1/' |
    while read -r id; do
      grep -qxF "$id" "$tmp/ids" || echo "lint: error: ${suite#"$root"/}: test case '$id' has no rubric row"
    done
done >> "$tmp/reverse"
for md in "$root"/chapters/*/*.md; do
  [ -f "$md" ] || continue
  grep -oE '\{exercise\}[[:space:]]+[a-z0-9_]+\.[a-z0-9_]+' "$md" | sed 's/.*[[:space:]]//' |
    while read -r id; do
      grep -qxF "$id" "$tmp/ids" || echo "lint: error: ${md#"$root"/}: {exercise} $id has no rubric row"
    done
done >> "$tmp/reverse"
if [ -s "$tmp/reverse" ]; then
  cat "$tmp/reverse"
  errors=$((errors + $(wc -l < "$tmp/reverse")))
fi

echo "lint: $n_ids ids, $errors errors, $warnings warnings"
[ "$errors" -eq 0 ]
