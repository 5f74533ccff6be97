#!/bin/sh
# test_book.sh — end-to-end tests of `scale book` (usage: sh test_book.sh /path/to/scale).
#
# Renders the fixture book of tests/data/book/ (a chapter with values, math, a table, a figure,
# a listing and an exercise, plus a second chapter) and checks the site: the chapter page byte
# for byte against tests/data/book/expected/01-fixture.html (SCALE_UPDATE_GOLDEN=1 rewrites
# it), every internal link and image, no citation left unresolved, and the one-line
# "slug.md:LINE: ..." errors of broken chapters. When chapters/01-rooflines/ exists, the real
# book must render as well, with --strict (no uncited value in any chapter). Math is rendered
# without KaTeX here (SCALE_KATEX=none) so the golden file does not depend on what is installed.
set -u
SCALE=${1:?usage: sh test_book.sh /path/to/scale}
case $SCALE in /*) ;; *) SCALE=$(pwd)/$SCALE ;; esac # some checks run in another folder
SRC=${SCALE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
DATA="$SRC/tests/data/book"
. "$(dirname "$0")/lib.sh" # $TMP and its clean-up, book_site
export SCALE_KATEX=none
pass=0
fail=0

ok() { pass=$((pass + 1)); }
no() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { # check DESCRIPTION COMMAND...
  desc=$1; shift
  if "$@" >/dev/null 2>&1; then ok; else no "$desc"; fi
}

# ---- the fixture book --------------------------------------------------------------------------
OUT="$TMP/site"
"$SCALE" book --chapters "$DATA/chapters" --out "$OUT" >"$TMP/stdout" 2>"$TMP/stderr"
rc=$?
check "fixture renders (exit 0)" test "$rc" -eq 0
check "prints the path of index.html" grep -q "/site/index.html\$" "$TMP/stdout"
check "no warnings for the fixture" test ! -s "$TMP/stderr"
for f in index.html 01-fixture.html 02-second.html hardware.html glossary.html style.css \
         01-fixture/ridge.svg; do
  check "site has $f" test -s "$OUT/$f"
done

GOLDEN="$DATA/expected/01-fixture.html"
if [ "${SCALE_UPDATE_GOLDEN:-0}" = 1 ]; then cp "$OUT/01-fixture.html" "$GOLDEN"; fi
if cmp -s "$OUT/01-fixture.html" "$GOLDEN"; then ok; else
  no "01-fixture.html differs from $GOLDEN"; diff "$GOLDEN" "$OUT/01-fixture.html" | head -20
fi

page="$OUT/01-fixture.html"
# Every page carries the Content-Security-Policy in a meta element, so that it holds from file://
# (scale book --serve also sends it as a header): scripts from the site only, no inline script.
for f in index.html 01-fixture.html 02-second.html hardware.html glossary.html; do
  check "$f carries the CSP" grep -q "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'self'; script-src 'self' 'wasm-unsafe-eval';" "$OUT/$f"
  check "$f has no inline script" sh -c "! grep -Eq '<script>|<script [^>]*>[^<]| on[a-z]+=\"' \"\$1\"" sh "$OUT/$f"
done
check "value cited in prose" grep -q '<span class="value" title="chip.peak = 197000000000000 FLOP/s">197 TFLOP/s</span>' "$page"
check "value cited inside a table cell" grep -q '<td><span class="value" title="chip.critical_intensity' "$page"
check "a text value (unit 1) may wrap" grep -q '<td><span class="value text" title="chip.bound = [0-9.]* 1">compute-bound above' "$page"
check "the style sheet lets a text value wrap" grep -q '^\.value\.text{white-space:normal}$' "$OUT/style.css"
check "no =key citation survives" sh -c "! grep -q '<code>=' '$OUT'/*.html"
check "inline math kept from Markdown" grep -q '<code class="math">C / W_{hbm}</code>' "$page"
check "display math in its own block" grep -q '<div class="math-display"><code class="math">T_{math}' "$page"
check "escaped dollar is a dollar" grep -q 'written \$5 and' "$page"
check "code span with dollars stays code" grep -q '<code>\$not math\$</code>' "$page"
check "figure with caption and alt" grep -q '<img src="01-fixture/ridge.svg" alt="Attainable FLOP/s against intensity">' "$page"
check "listing cut between markers" grep -q '>double intensity = peak_flops_per_s / hbm_bytes_per_s;$' "$page"
check "listing markers are not shown" sh -c "! grep -q 'listing:ridge' '$page'"
check "exercise contract from exercises/" grep -q '^double ex_fixture_ridge(double peak_flops_per_s, double hbm_bytes_per_s);$' "$page"
check "exercise says how to check it" grep -q '<code>build/scale grade fixture.ridge</code>' "$page"
check "exercise title and points from the rubric" grep -q 'The ridge point (2 points)' "$page"
check "exercise: its one-line signature shown" \
  grep -q '<pre class="signature"><code class="language-c">double ex_fixture_ridge(double peak_flops_per_s, double hbm_bytes_per_s);</code></pre>' "$page"
check "exercise: the full contract folded" grep -q '<details class="contract">' "$page"
check "no solutions by default" sh -c "! grep -q '<details class=.solution' '$page'"
check "heading anchors" grep -q '<h2 id="values-and-math">' "$page"
check "table of contents" grep -q '<li class="toc-h3"><a href="#a-table">A table</a></li>' "$page"
check "next link" grep -q '<a class="next" rel="next" href="02-second.html">The second chapter' "$page"
check "prev link" grep -q '<a class="prev" rel="prev" href="01-fixture.html">' "$OUT/02-second.html"
check "index in book order with summaries" sh -c "grep -n 'href=\"0[12]-' '$OUT/index.html' | head -1 | grep -q 01-fixture && grep -q 'This chapter exists to test the renderer' '$OUT/index.html'"
check "hardware page lists tpu-v5e" grep -q '<code>tpu-v5e</code>' "$OUT/hardware.html"
check "glossary defines M_X" grep -q '<code>M_X</code>' "$OUT/glossary.html"
check "CSS has a print and a phone rule" sh -c "grep -q '@media print' '$OUT/style.css' && grep -q 'max-width:50rem' '$OUT/style.css'"
check "nothing loads from the network" sh -c "! grep -Eq '(src|href)=\"(https?:)?//' '$OUT'/*.html"

# Link checker: every relative href/src names an existing file; every #fragment an id.
links_ok=1
for html in "$OUT"/*.html; do
  for ref in $(grep -o -E '(href|src)="[^"]*"' "$html" | sed -E 's/^(href|src)="//; s/"$//'); do
    file=${ref%%#*}
    frag=${ref#"$file"}
    frag=${frag#\#}
    target="$OUT/$file"
    [ -z "$file" ] && target=$html
    if [ ! -f "$target" ]; then links_ok=0; echo "  broken link in $(basename "$html"): $ref"; continue; fi
    if [ -n "$frag" ] && ! grep -q "id=\"$frag\"" "$target"; then
      links_ok=0; echo "  broken anchor in $(basename "$html"): $ref"
    fi
  done
done
check "every internal link and image resolves" test "$links_ok" -eq 1

# --solutions adds the reference in a collapsed block.
"$SCALE" book --chapters "$DATA/chapters" --out "$TMP/sol" --solutions >/dev/null 2>&1
check "--solutions shows the reference" grep -q '^  return peak_flops_per_s / hbm_bytes_per_s;$' "$TMP/sol/01-fixture.html"
check "--solutions collapses it" grep -q '<details class="solution">' "$TMP/sol/01-fixture.html"

# --chapter renders one page and prints its path.
"$SCALE" book --chapters "$DATA/chapters" --out "$TMP/one" --chapter 01-fixture >"$TMP/stdout" 2>&1
check "--chapter renders one page" grep -q '/one/01-fixture.html$' "$TMP/stdout"
check "--chapter writes no index" test ! -e "$TMP/one/index.html"

# Usage errors exit 2.
"$SCALE" book --bogus >/dev/null 2>&1
check "unknown option exits 2" test $? -eq 2

# ---- broken chapters: one line "fixture.md:LINE: ...", exit 1, no index.html -----------------------
broken() { # broken NAME APPEND-TEXT EXPECTED-MESSAGE
  name=$1; text=$2; want=$3
  dir="$TMP/broken-$name"
  mkdir -p "$dir"
  cp -R "$DATA/chapters" "$DATA/exercises" "$DATA/solutions" "$DATA/tests" "$dir/"
  printf '%s\n' "$text" >>"$dir/chapters/01-fixture/fixture.md"
  line=$(wc -l <"$dir/chapters/01-fixture/fixture.md" | tr -d ' ')
  # The error names the line the appended text starts on.
  line=$((line - $(printf '%s\n' "$text" | wc -l) + 1))
  "$SCALE" book --chapters "$dir/chapters" --out "$dir/site" >"$dir/stdout" 2>"$dir/stderr"
  rc=$?
  check "$name: exit 1" test "$rc" -eq 1
  if grep -q "fixture.md:$line: $want" "$dir/stderr"; then ok; else
    no "$name: want 'fixture.md:$line: $want' in:"; cat "$dir/stderr"
  fi
  check "$name: no index.html left behind" test ! -e "$dir/site/index.html"
  check "$name: nothing on stdout" test ! -s "$dir/stdout"
}
broken unknown-key 'See `=no.such.key` here.' "unknown value key 'no.such.key'"
broken unknown-listing "$(printf '```{listing} nope\n```')" "unknown listing tag 'nope'"
broken unknown-exercise "$(printf '```{exercise} fixture.nope\nWhy?\n```')" "unknown exercise 'fixture.nope'"
broken unterminated-math 'Costs $x and then nothing.' "unterminated math"
broken unterminated-display "$(printf '$$\nx = 1\n')" "unterminated display math"
broken tex-error 'Bad $\frac{a$ here.' "TeX error in"
broken missing-figure '![a plot](gone.svg)' "missing figure 'gone.svg'"
broken raster-figure '![a photo](photo.png)' "figure 'photo.png' is not an SVG"
broken figure-without-alt '![](ridge.svg)' "figure 'ridge.svg' has no alt text"
# Raw HTML or links that could run script are refused where the chapter has them.
msg="raw HTML or a link that could run script"
broken raw-script "$(printf '<script>alert(1)</script>\n')" "$msg (<script)"
broken raw-handler 'An <img src="x.svg" onerror="alert(1)"> here.' "$msg (an on...= event handler)"
broken js-link 'A [link](javascript:alert(1)) here.' "$msg (javascript:)"
broken data-link 'A [link](DATA:text/html,x) here.' "$msg (data:)"

# fixture_copy NAME: $dir, a fresh copy of the fixture book to alter.
fixture_copy() {
  dir="$TMP/$1"
  mkdir -p "$dir"
  cp -R "$DATA/chapters" "$DATA/exercises" "$DATA/tests" "$dir/"
}
# warned NAME MESSAGE: the altered book in $dir renders (exit 0) with MESSAGE on stderr, and
# fails with --strict.
warned() {
  "$SCALE" book --chapters "$dir/chapters" --out "$dir/site" >/dev/null 2>"$dir/stderr"
  check "$1: still exit 0" test $? -eq 0
  check "$1: warning names it" grep -q "$2" "$dir/stderr"
  "$SCALE" book --chapters "$dir/chapters" --out "$dir/strict" --strict >/dev/null 2>&1
  check "$1: --strict fails" test $? -eq 1
}

# A value the program emits but the text never cites is a warning (an error with --strict).
fixture_copy uncited
printf 'extra.value\t1\t\t1\n' >>"$dir/chapters/01-fixture/fixture.values"
warned "uncited value" "fixture.md: warning: value 'extra.value' is emitted by the chapter program but never cited"

# A value whose unit the prose repeats ("a 8192 tokens-token sequence") is a warning: the
# rendered page would read the unit twice.
fixture_copy doubled
printf 'ctx.len\t8192\ttokens\t8192 tokens\n' >>"$dir/chapters/01-fixture/fixture.values"
printf '\nA `=ctx.len`-token context, then `=ctx.len` of it.\n' >>"$dir/chapters/01-fixture/fixture.md"
warned "doubled unit" "warning: doubled unit: \`=ctx.len\` shows '8192 tokens' and the text goes on 'token'"
check "doubled unit: named once (the second citation reads well)" \
  test "$(grep -c 'doubled unit' "$dir/stderr")" -eq 1

# An {answer} folds behind "Check your answer"; a value it reveals that the page shows earlier
# is a warning (the page gave the answer away), and --strict fails.
fixture_copy answer
printf 'ans.value\t42\tFLOP/byte\t42 FLOP/byte\n' >>"$dir/chapters/01-fixture/fixture.values"
printf '\nTry it.\n\n```{answer}\nIt is `=ans.value`, and `=chip.hbm` of traffic.\n```\n' \
  >>"$dir/chapters/01-fixture/fixture.md"
warned "answer shown early" "fixture.md:3: warning: \`=chip.hbm\` is the answer folded at line"
check "answer: folded behind a summary" \
  grep -q '<details class="answer">' "$dir/site/01-fixture.html"
check "answer: its value inside the fold" \
  sh -c "sed -n '/<details class=\"answer\">/,/<\/details>/p' '$dir/site/01-fixture.html' | grep -q '42 FLOP/byte'"
check "answer: a value only it cites is no warning" sh -c "! grep -q 'ans.value. is the answer' '$dir/stderr'"

# A listing without a caption is a warning too: "from fixture.c" alone does not say what the
# code is for.
fixture_copy uncaptioned
printf '\n```{listing} ridge\n```\n' >>"$dir/chapters/01-fixture/fixture.md"
line=$(($(wc -l <"$dir/chapters/01-fixture/fixture.md" | tr -d ' ') - 1))
warned "listing without caption" "fixture.md:$line: warning: listing 'ridge' has no caption"

# A comment that begins on the open marker's line is kept, without the marker: the listing does
# not start in the middle of it (" * continued" with no opening line).
fixture_copy opened
printf '  /* [listing:doc] The ridge of a chip: where compute and memory\n   * take equally long. */\n  double r = 1.0;\n  /* [/listing:doc] */\n' \
  >>"$dir/chapters/01-fixture/fixture.c"
printf '\n```{listing} doc\nA commented line\n```\n' >>"$dir/chapters/01-fixture/fixture.md"
"$SCALE" book --chapters "$dir/chapters" --out "$dir/site" >/dev/null 2>"$dir/stderr"
check "opened comment: renders" test $? -eq 0
check "opened comment: its first line kept" grep -q '>/\* The ridge of a chip: where compute and memory$' "$dir/site/01-fixture.html"
check "opened comment: continued, unindented alike" grep -q '^ \* take equally long. \*/$' "$dir/site/01-fixture.html"
check "opened comment: no marker shown" sh -c "! grep -q 'listing:doc' '$dir/site/01-fixture.html'"

# A key given twice in the values is an error naming the second line (keys are hashed now).
fixture_copy dupvalue
head -n 1 "$dir/chapters/01-fixture/fixture.values" >>"$dir/chapters/01-fixture/fixture.values"
n=$(wc -l <"$dir/chapters/01-fixture/fixture.values" | tr -d ' ')
"$SCALE" book --chapters "$dir/chapters" --out "$dir/site" >/dev/null 2>"$dir/stderr"
check "duplicate value key: exit 1" test $? -eq 1
check "duplicate value key: named with its line" grep -q "fixture.values:$n: duplicate value key 'chip.peak'" "$dir/stderr"

# ---- headings: unique, stable anchor ids --------------------------------------------------------
# Ids are the heading's letters and digits; a taken id gets the first free suffix -2, -3, ...
# (skipping one that another heading's own text produced), and the contents link to them.
dir="$TMP/dup"
mkdir -p "$dir/chapters/01-dup"
printf '# Dup\n\nHeadings that repeat.\n\n## Results\n\n## Results 3\n\n## Results\n\n## Results\n\n## Results\n\n## Results 2\n\n## ???\n\n## !!!\n' \
  >"$dir/chapters/01-dup/dup.md"
"$SCALE" book --chapters "$dir/chapters" --out "$dir/site" --chapter 01-dup >/dev/null 2>"$dir/stderr"
check "duplicate headings: renders" test $? -eq 0
ids=$(grep -o '<h2 id="[^"]*"' "$dir/site/01-dup.html" | sed 's/<h2 id="//; s/"$//' | tr '\n' ' ')
want="results results-3 results-2 results-4 results-5 results-2-2 section section-2 "
if [ "$ids" = "$want" ]; then ok; else no "duplicate headings: ids '$ids', want '$want'"; fi
check "duplicate headings: contents link the suffixed id" grep -q '<a href="#results-2-2">Results 2</a>' "$dir/site/01-dup.html"

# Many identical headings and many values render in linear time (4000 identical headings took
# 148 s and 20000 value lines 41 s when each id and each key was compared with all earlier ones).
dir="$TMP/big"
mkdir -p "$dir/chapters/01-big"
awk 'BEGIN { print "# Big\n"; for (i = 0; i < 20000; i++) {
  if (i % 5 == 0) print "## Same heading\n"; printf "Value `=v%d`.\n\n", i } }' \
  >"$dir/chapters/01-big/big.md"
awk 'BEGIN { for (i = 0; i < 20000; i++) printf "v%d\t%d\t\t%d\n", i, i, i }' \
  >"$dir/chapters/01-big/big.values"
timeout 20 "$SCALE" book --chapters "$dir/chapters" --out "$dir/site" --chapter 01-big --strict \
  >/dev/null 2>"$dir/stderr"
check "4000 identical headings, 20000 values: renders within 20 s" test $? -eq 0
check "4000 identical headings: the last gets -4000" grep -q '<h2 id="same-heading-4000">' "$dir/site/01-big.html"

# A million formulas and one more: each is still rendered (the placeholders once ran out of digits).
dir="$TMP/formulas"
mkdir -p "$dir/chapters/01-math"
awk 'BEGIN { print "# Math\n"; for (i = 0; i <= 1000000; i++) printf "$x_%d$ ", i % 10; print "" }' \
  >"$dir/chapters/01-math/math.md"
"$SCALE" book --chapters "$dir/chapters" --out "$dir/site" --chapter 01-math >/dev/null 2>&1
check "1000001 formulas: renders" test $? -eq 0
check "1000001 formulas: no placeholder left" sh -c "! grep -q SCALEMATH '$dir/site/01-math.html'"
check "1000001 formulas: the last is math" sh -c "test \$(grep -o '<code class=\"math\">x_0</code>' '$dir/site/01-math.html' | wc -l) -eq 100001"

# Listings and exercises cited many times, and names found nowhere: each file is read and each
# name looked up once (they were read again for every citation), with the same results.
dir="$TMP/many"
mkdir -p "$dir/chapters" "$dir/src"
cp -R "$DATA/chapters/01-fixture" "$dir/chapters/"
cp -R "$DATA/exercises" "$DATA/solutions" "$DATA/tests" "$dir/"
printf 'int before;\n  /* [listing:tree] */\n  int tree_listing;\n  /* [/listing:tree] */\n' >"$dir/src/a.c"
awk 'BEGIN { for (i = 0; i < 5000; i++)
  printf "\n```{listing} tree\n```\n\n```{exercise} fixture.ridge\nAgain?\n```\n" }' \
  >>"$dir/chapters/01-fixture/fixture.md"
timeout 20 "$SCALE" book --chapters "$dir/chapters" --out "$dir/site" --chapter 01-fixture \
  --solutions >/dev/null 2>"$dir/stderr"
check "5000 listings and exercises: render within 20 s" test $? -eq 0
check "a listing not in the chapter's program is cut from src/" \
  test "$(grep -c 'code class="language-c">int tree_listing;$' "$dir/site/01-fixture.html")" -eq 5000
check "5000 exercises: contract, rubric and reference each time" sh -c "
  test \$(grep -c '^double ex_fixture_ridge(double peak_flops_per_s, double hbm_bytes_per_s);\$' '$dir/site/01-fixture.html') -eq 5001 &&
  test \$(grep -c 'The ridge point (2 points)' '$dir/site/01-fixture.html') -eq 5001 &&
  test \$(grep -c '^  return peak_flops_per_s / hbm_bytes_per_s;\$' '$dir/site/01-fixture.html') -eq 5001"
cp "$DATA/chapters/01-fixture/fixture.md" "$dir/chapters/01-fixture/fixture.md"
awk 'BEGIN { for (i = 0; i < 2000; i++)
  printf "\n```{listing} nope%d\n```\n\n```{exercise} fixture.nope%d\nQ?\n```\n", i, i }' \
  >>"$dir/chapters/01-fixture/fixture.md"
timeout 20 "$SCALE" book --chapters "$dir/chapters" --out "$dir/site" --chapter 01-fixture \
  >/dev/null 2>"$dir/stderr"
check "2000 unknown listings and exercises: exit 1 within 20 s" test $? -eq 1
check "2000 unknown listings: each reported" test "$(grep -c "unknown listing tag 'nope" "$dir/stderr")" -eq 2000
check "2000 unknown exercises: each reported" test "$(grep -c "unknown exercise 'fixture.nope" "$dir/stderr")" -eq 2000

# ---- hostile input -------------------------------------------------------------------------------
# A NUL byte would end the C string early and silently drop the rest of the file: it is one
# error naming the file, line and byte offset, and nothing blames the Markdown for the loss.
nul_case() { # nul_case NAME FILE(relative to the chapter) BYTE-OFFSET LINE
  name=$1; file=$2; offset=$3; line=$4
  dir="$TMP/nul-$name"
  "$SCALE" book --chapters "$dir/chapters" --out "$dir/site" >"$dir/stdout" 2>"$dir/stderr"
  check "NUL in $name: exit 1" test $? -eq 1
  if grep -q "01-fixture/$file:$line: NUL byte at byte offset $offset " "$dir/stderr"; then ok; else
    no "NUL in $name: want '$file:$line: NUL byte at byte offset $offset' in:"; cat "$dir/stderr"
  fi
  check "NUL in $name: one line of errors (plus the summary)" test "$(wc -l <"$dir/stderr")" -eq 2
  check "NUL in $name: no index.html" test ! -e "$dir/site/index.html"
}
for name in md values; do
  mkdir -p "$TMP/nul-$name"
  cp -R "$DATA/chapters" "$DATA/exercises" "$DATA/solutions" "$DATA/tests" "$TMP/nul-$name/"
done
md="$TMP/nul-md/chapters/01-fixture/fixture.md"
size=$(wc -c <"$md" | tr -d ' ')
lines=$(wc -l <"$md" | tr -d ' ')
printf 'text\000more `=no.such.key`\n' >>"$md"
nul_case md fixture.md $((size + 4)) $((lines + 1))
values="$TMP/nul-values/chapters/01-fixture/fixture.values"
{ head -n 1 "$values"; printf 'a\000b\t1\t\t1\n'; tail -n +2 "$values"; } >"$values.new" && mv "$values.new" "$values"
nul_case values fixture.values $(($(head -n 1 "$values" | wc -c) + 1)) 2

# cmark-gfm 0.29.0.gfm.6 pads every row of a table to the delimiter row's columns (256 columns
# over 5000 rows of 4 bytes: over a million cells), splits rows in time quadratic in their
# cells (5000 columns: 0.3 s a row), and searches from every unclosed '<!X' to the end of its
# paragraph (600 KB: 48 s). Each is refused at once, naming the line.
hostile() { # hostile NAME AWK-PROGRAM EXPECTED-MESSAGE
  dir="$TMP/hostile-$1"
  mkdir -p "$dir/chapters/01-h"
  awk "BEGIN { print \"# H\\n\"; $2 }" >"$dir/chapters/01-h/h.md"
  timeout 20 "$SCALE" book --chapters "$dir/chapters" --out "$dir/site" --chapter 01-h \
    >/dev/null 2>"$dir/stderr"
  check "$1: exit 1 within 20 s" test $? -eq 1
  if grep -q "h.md:$3" "$dir/stderr"; then ok; else no "$1: want 'h.md:$3' in: $(cat "$dir/stderr")"; fi
}
hostile sparse-table 'printf "|"; for (i = 0; i < 256; i++) printf "a|"; printf "\n|";
  for (i = 0; i < 256; i++) printf "-|"; printf "\n"; for (i = 0; i < 5000; i++) print "|b|"' \
  "3: a table of 256 columns over rows of a few bytes"
hostile wide-table 'printf "|"; for (i = 0; i < 5000; i++) printf "a|"; printf "\n|";
  for (i = 0; i < 5000; i++) printf "-|"; print ""' "3: a table of 5000 columns (at most 256)"
hostile wide-row 'print "| a |\n|---|"; for (i = 0; i < 5000; i++) printf "b|"; print ""' \
  "5: a table row of more than 256 cells"
hostile unclosed-declarations 'for (i = 0; i < 150000; i++) printf "a <!A "; print ""' \
  "3: too many '<?', '<!X' or '<!\\[CDATA\\[' without their end"

# An option's value that looks like an option is refused: `--out --site` once rendered the book
# into a folder named --site.
mkdir -p "$TMP/cwd"
(cd "$TMP/cwd" && "$SCALE" book --chapters "$DATA/chapters" --out --site >"$TMP/cwd.out" 2>"$TMP/cwd.err")
check "book --out --site: exit 2" test $? -eq 2
check "book --out --site: one line naming --out" sh -c "test \$(wc -l <'$TMP/cwd.err') -eq 1 && grep -q '^scale: book: --out needs a value' '$TMP/cwd.err'"
check "book --out --site: no folder --site" test ! -e "$TMP/cwd/--site"
check "book --out --site: nothing written" test -z "$(ls -A "$TMP/cwd")"
(cd "$TMP/cwd" && "$SCALE" book --chapters --site >/dev/null 2>&1)
check "book --chapters --site: exit 2" test $? -eq 2
(cd "$TMP/cwd" && "$SCALE" book --chapters "$DATA/chapters" --out ./-x --chapter 01-fixture >/dev/null 2>&1)
check "book --out ./-x: a folder starting with '-' written as ./-x" test -s "$TMP/cwd/-x/01-fixture.html"

# ---- the real book, once its first chapter exists ----------------------------------------------
# Every chapter present renders with --strict: a value a program emits but its text never cites
# fails here (cite it, or print it with chapter_row() instead of chapter_value()).
if [ -f "$SRC/chapters/01-rooflines/rooflines.md" ]; then
  book_site # rendered once per test run by the CTest fixture book.site
  if [ "$rc" -eq 0 ]; then ok; else no "the real book renders with --strict"; cat "$TMP/err"; fi
  check "real book: no warnings" sh -c "! grep -q 'warning' '$TMP/err'"
  check "real book: no =key citation survives" sh -c "! grep -q '<code>=' '$site'/*.html"
  check "real book: rooflines page" test -s "$site/01-rooflines.html"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
