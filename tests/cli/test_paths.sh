#!/bin/sh
# test_paths.sh — the three user paths of issue 17, end to end on the built command:
#   reader:  render the book, every chapter page exists, every link and anchor resolves, the
#            index blurbs are summaries (not each chapter's first sentence);
#   student: a hand-out (the tree without solutions/), one exercise filled in with its reference
#            body, the student's grade command: OK on it, FAIL on a stub, the total last, exit 0;
#   teacher: a class of three (full chapter, one exercise, pristine stubs) graded with --class,
#            its CSV and gradebook checked against the rubric's points; a Gradescope autograder
#            written from the hand-out. The class needs user namespaces (the sandbox): where the
#            kernel has none the class is refused and its checks are skipped, as in test_grade.sh.
# Option and exit-status details are test_grade.sh's; running the autograder is too.
SCALE=$1
. "$(dirname "$0")/lib.sh"
root=${SCALE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}

# ==== reader ====================================================================================
book_site
expect_rc 0 "book renders"
if [ "$(tail -1 "$TMP/out")" = "$site/index.html" ]; then pass; else fail "book prints the index path: $(tail -1 "$TMP/out")"; fi
python3 - "$root" "$site" >"$TMP/reader" <<'EOF'
import glob, html, os, re, sys
root, site = sys.argv[1], sys.argv[2]
bad = []
chapters = sorted(d for d in glob.glob(os.path.join(root, "chapters", "[0-9][0-9]-*"))
                  if os.path.isfile(os.path.join(d, os.path.basename(d)[3:] + ".md")))
for d in chapters:
    if not os.path.isfile(os.path.join(site, os.path.basename(d) + ".html")):
        bad.append("no page for " + os.path.basename(d))
# Every local href/src resolves to a file, and every #fragment to an id of that page.
ids = {}
def ids_of(path):
    if path not in ids:
        ids[path] = set(re.findall(r'\bid="([^"]+)"', open(path, encoding="utf-8").read()))
    return ids[path]
pages = glob.glob(os.path.join(site, "**", "*.html"), recursive=True)
links = 0
for page in pages:
    text = open(page, encoding="utf-8").read()
    for url in re.findall(r'\b(?:href|src)="([^"]*)"', text):
        url = html.unescape(url)
        if re.match(r"[a-z]+:", url) or url == "":
            continue
        links += 1
        path, _, frag = url.partition("#")
        target = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
        if not os.path.isfile(target):
            bad.append("%s: broken link %s" % (os.path.basename(page), url))
        elif frag and target.endswith(".html") and frag not in ids_of(target):
            bad.append("%s: no anchor #%s in %s" % (os.path.basename(page), frag, path or "itself"))
# Index blurbs: one per chapter, and none is the chapter's opening sentence.
index = open(os.path.join(site, "index.html"), encoding="utf-8").read()
items = re.findall(r'<li value="\d+"><a href="([^"]+)\.html">.*?</a>(?:<br><span class="summary">(.*?)</span>)?</li>', index)
if len(items) != len(chapters):
    bad.append("index lists %d chapters of %d" % (len(items), len(chapters)))
def plain(s):
    s = re.sub(r"`[^`]*`|\$[^$]*\$|<[^>]+>", " ", s)
    return re.sub(r"[^a-z0-9]+", " ", html.unescape(s).lower()).strip()
for name, blurb in items:
    md = open(os.path.join(root, "chapters", name, name[3:] + ".md"), encoding="utf-8").read()
    paras = [p for p in re.split(r"\n\s*\n", md) if p.strip() and not p.lstrip().startswith(("#", "<!--"))]
    first = re.split(r"(?<=[.?!])\s", paras[0].strip())[0] if paras else ""
    if not blurb:
        bad.append("%s: no blurb" % name)
    elif plain(blurb)[:60] == plain(first)[:60]:
        bad.append("%s: the blurb is the first sentence: %s" % (name, blurb))
print(len(chapters), len(pages), links)
print("\n".join(bad[:10]))
EOF
set -- $(head -1 "$TMP/reader")
if [ "${1:-0}" -ge 14 ] && [ "${2:-0}" -gt "${1:-0}" ] && [ "${3:-0}" -gt 100 ]; then pass; else
  fail "reader: $* (chapters, pages, links) too few"; fi
if [ "$(sed 1d "$TMP/reader" | grep -c .)" -eq 0 ]; then pass; else fail "reader: $(sed 1d "$TMP/reader")"; fi

# ==== student ===================================================================================
# The hand-out is the tree without solutions/ (README); the student fills in one function.
hand="$TMP/hand-out"
mkdir "$hand"
(cd "$root" && tar -cf - --exclude='./build*' --exclude=./.git --exclude=./solutions .) |
  (cd "$hand" && tar -xf -)
if [ -d "$hand/exercises/01-rooflines" ] && [ ! -e "$hand/solutions" ]; then pass; else fail "hand-out without solutions/"; fi
id=rooflines.critical_batch_int8
python3 - "$root/solutions/01-rooflines/rooflines_ex.c" "$hand/exercises/01-rooflines/rooflines_ex.c" <<'EOF'
import re, sys
fn = "double ex_rooflines_critical_batch_int8("
def body(text):  # the function from its signature to its closing brace at column 0
    i = text.index(fn)
    return text[i:text.index("\n}\n", i) + 2]
solution, stub = (open(p).read() for p in sys.argv[1:3])
open(sys.argv[2], "w").write(stub.replace(body(stub), body(solution)))
EOF
if grep -q 'return int8_ops_per_s / bytes_per_s / 2.0;' "$hand/exercises/01-rooflines/rooflines_ex.c"; then pass; else fail "the exercise was not filled in"; fi
# The points of the filled exercise and of its chapter, from the rubric (V+D).
points() { awk -F'\t' -v k="$1" '!/^#/ && ($1 == k || $2 == k) { n = split($3, p, "+");
  s += p[1] + (n > 1 ? p[2] : 0) } END { printf "%g", s }' "$root/tests/rubric.tsv"; }
one=$(points "$id")
chapter=$(points 01-rooflines)
run "$SCALE" grade --source "$hand" --exercises "$hand/exercises" 01-rooflines
expect_rc 0 "the student's grade command"
expect_out "^ *OK .*$id" "the filled exercise is OK"
expect_out "NOT ANSWERED .*rooflines.t_math_s" "a stub is NOT ANSWERED"
if tail -1 "$TMP/out" | grep -q "total $one/$chapter"; then pass; else
  fail "the score comes last: total $one/$chapter, got: $(tail -1 "$TMP/out")"; fi

# ==== teacher ===================================================================================
class="$TMP/class"
mkdir -p "$class/alice" "$class/bob" "$class/carol"
cp -R "$root/solutions/01-rooflines" "$class/alice/"
cp -R "$hand/exercises/01-rooflines" "$class/bob/"
cp -R "$root/exercises/01-rooflines" "$class/carol/"
run "$SCALE" grade --source "$root" --class "$class" --jobs 2 --csv "$TMP/class.csv" \
  --gradebook "$TMP/gradebook.csv" --json "$TMP/class.json" 01-rooflines
if [ "$rc" -eq 2 ] && grep -q "graded only in the sandbox" "$TMP/err"; then
  echo "SKIPPED: the class ($(cat "$TMP/err"))"
else
  expect_rc 0 "grade the class"
  expect_out "class: 3 students, 3 graded" "class summary"
  g="$TMP/gradebook.csv"
  if grep -qx "student,total,01-rooflines" "$g" && grep -qx "Points Possible,$chapter,$chapter" "$g" &&
     grep -qx "alice,$chapter,$chapter" "$g" && grep -qx "bob,$one,$one" "$g" && grep -qx "carol,0,0" "$g"
  then pass; else fail "gradebook (alice $chapter, bob $one, carol 0): $(cat "$g")"; fi
  if [ "$(grep -c '^alice,\|^bob,\|^carol,' "$TMP/class.csv")" -eq 3 ] &&
     grep -q "^bob,.*,$one,$one,[^,]*\$" "$TMP/class.csv"; then pass; else fail "class CSV: $(cat "$TMP/class.csv")"; fi
  if python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); assert len(d["students"]) == 3' "$TMP/class.json"
  then pass; else fail "class JSON: three students"; fi
fi
run "$SCALE" grade --source "$hand" --gradescope "$TMP/autograder"
expect_rc 0 "write a Gradescope autograder"
ag="$TMP/autograder"
if [ -x "$ag/setup.sh" ] && [ -x "$ag/run_autograder" ] && [ ! -e "$ag/solutions" ] &&
   [ -f "$ag/exercises/01-rooflines/rooflines_ex.h" ] && [ -f "$ag/tests/rubric.tsv" ]; then pass; else
  fail "the autograder: setup.sh, run_autograder, contracts and rubric, no solutions/"; fi

finish
