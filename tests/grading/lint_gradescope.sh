#!/bin/sh
# lint_gradescope.sh SCALE ROOT — the Gradescope autograder configures with CMake 3.22, the
# CMake of Ubuntu 22.04, Gradescope's base image (CTest grading.gradescope-lint, label grading;
# issue 30 §5). No CMake 3.22 is at hand here, so this reads instead of running: it writes the
# autograder (`scale grade --gradescope`) and checks in it that
#   - every cmake_minimum_required asks for at most 3.22 (a range 3.22...3.25 is fine);
#   - no CMake file, setup.sh or run_autograder uses what tests/grading/cmake-after-3.22.tsv
#     lists (commands, generator expressions, properties and options newer than 3.22);
#   - it holds no presets file, or one of version 3 at most (3.22's) without workflow presets.
# Then it plants one newer feature of each kind in a copy and checks that each is reported.
# Prints "lint_gradescope: N passed, F failed"; exit 1 if anything failed.
. "$(dirname "$0")/check_lib.sh"
check_begin lint_gradescope "$@"
features="$root/tests/grading/cmake-after-3.22.tsv"

# findings DIR: one line per use of something newer than 3.22 in the autograder folder DIR.
findings() {
  find "$1" \( -name CMakeLists.txt -o -name '*.cmake' -o -name '*.inc' \) -type f | sort |
    while IFS= read -r file; do
      # Comments out, the file as one line: a pattern may span a command's lines.
      sed 's/\(^\|[[:space:]]\)#.*//' "$file" | tr '\n' ' ' > "$tmp/flat"
      version=$(grep -oiE 'cmake_minimum_required\([[:space:]]*VERSION[[:space:]]+[0-9.]+' "$tmp/flat" |
        sed 's/.*[[:space:]]//')
      for v in $version; do
        if awk -v v="$v" 'BEGIN { split(v, p, "."); exit !(p[1] > 3 || (p[1] == 3 && p[2] > 22)) }'; then
          echo "${file#"$1"/}: cmake_minimum_required(VERSION $v): more than 3.22"
        fi
      done
      grep -v '^#' "$features" | awk -F'\t' '$1 == "cmake"' | while IFS='	' read -r where since regex what; do
        if grep -qE -e "$regex" "$tmp/flat"; then echo "${file#"$1"/}: $what (CMake $since)"; fi
      done
    done
  for script in setup.sh run_autograder; do
    grep -v '^#' "$features" | awk -F'\t' '$1 == "script"' | while IFS='	' read -r where since regex what; do
      if grep -v '^[[:space:]]*#' "$1/$script" | grep -qE -e "$regex"; then
        echo "$script: $what (CMake $since)"
      fi
    done
  done
  for presets in CMakePresets.json CMakeUserPresets.json; do
    [ -f "$1/$presets" ] || continue
    version=$(sed -n 's/^[[:space:]]*"version":[[:space:]]*\([0-9]*\).*/\1/p' "$1/$presets" | head -1)
    if [ -z "$version" ] || [ "$version" -gt 3 ] || grep -q '"workflowPresets"' "$1/$presets"; then
      echo "$presets: presets version ${version:-?} (CMake 3.22 reads version 3 at most, no workflows)"
    fi
  done
}

"$scale" grade --source "$root" --gradescope "$tmp/ag" > /dev/null 2> "$tmp/err"
check '[ -f "$tmp/ag/setup.sh" ] && [ -f "$tmp/ag/CMakeLists.txt" ]' "write the autograder: $(cat "$tmp/err")"
findings "$tmp/ag" > "$tmp/found"
check '[ ! -s "$tmp/found" ]' "the autograder needs more than CMake 3.22:
$(cat "$tmp/found")"
check 'grep -q "^cmake -S \. -B build " "$tmp/ag/setup.sh"' "setup.sh configures without presets"

# The lint itself: each planted feature is found.
mkdir -p "$tmp/planted"
cp "$tmp/ag/setup.sh" "$tmp/ag/run_autograder" "$tmp/planted/"
printf 'cmake_minimum_required(VERSION 3.25)\n' > "$tmp/planted/CMakeLists.txt"
printf 'function(f)\n  # block( in a comment is no use\n  block(SCOPE_FOR VARIABLES)\n  endblock()\nendfunction()\nset_tests_properties(t\n  DIRECTORY sub PROPERTIES LABELS x)\n' \
  > "$tmp/planted/newer.cmake"
echo 'cmake --workflow --preset default' >> "$tmp/planted/setup.sh"
printf '{\n  "version": 6,\n  "workflowPresets": []\n}\n' > "$tmp/planted/CMakePresets.json"
findings "$tmp/planted" > "$tmp/found"
for what in "CMakeLists.txt: cmake_minimum_required(VERSION 3.25)" "newer.cmake: block() scopes" \
  "newer.cmake: test properties of another directory" "setup.sh: workflow presets" \
  "setup.sh: presets" "CMakePresets.json: presets version 6"; do
  check 'grep -qF "$what" "$tmp/found"' "the lint reports '$what': $(cat "$tmp/found")"
done
check '[ "$(grep -c "block() scopes" "$tmp/found")" -eq 1 ]' "a comment is not a use"

check_end
