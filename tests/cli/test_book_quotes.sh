#!/bin/sh
# test_book_quotes.sh [SCALE] — every number a chapter quotes from the book is cited by an
# evidence test (issue 17, "one edition of the book, everywhere").
#
# A chapter's prose never types a computed number (it cites the program's values by key), but it
# does quote the book's printed figures where the two differ ("the book prints 267"). Each such
# figure must appear in an evidence test: tests/lib/*_book.c or tests/grading/test_*.c, whose
# comments and checks name the edition and the computation. A quote with no test behind it is
# how a stale edition's numbers crept into the prose before.
#
# What counts as a quote: a sentence of chapters/*/*.md that mentions "the book" (or "the
# book's"), outside code spans, math ($...$), fenced blocks and link targets. What counts as a
# number in it: a decimal (0.44, 21.6), a number with a thousands separator or an exponent
# (18,823, 4.1e18), or an integer of two digits or more (43, 1920), not glued to letters on its
# left (v5e, H100) and not part of a slice shape (4x8) or a chapter, question or section number.
# A number is cited when an evidence file holds a number of the same value (18,823 = 18823,
# 0.90 = 0.9, 4.1e18 = 4.1E18), not part of a name (v5e, 8x8).
#
# The argument (the scale command, as for every CLI test) is not needed.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
command -v python3 > /dev/null 2>&1 || { echo "SKIP: python3 not installed"; exit 0; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scale-quotes.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/check.py" << 'EOF'
import glob, os, re, sys

root = sys.argv[1]
evidence_files = sorted(glob.glob(os.path.join(root, "tests/lib/*_book.c")) +
                        glob.glob(os.path.join(root, "tests/grading/test_*.c")))
if not evidence_files:
    print("FAIL: no evidence tests under tests/lib/*_book.c or tests/grading/test_*.c")
    sys.exit(1)
corpus = "\n".join(open(f, encoding="utf-8").read() for f in evidence_files)

NUMBER = re.compile(r"(?<![\w.^/-])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+(?:e[+-]?\d+)?|\d+e[+-]?\d+|\d{2,})(?![\d.,]\d)")
CONTEXT_WORDS = re.compile(r"(chapter|chapters|ch\.|question|questions|section|part|appendix|"
                           r"quiz|q|figure|table|step|layer|row)\s*$", re.I)

def value(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None

# Every number written in the evidence files, as a value: 18,823 and 18823, 0.90 and 0.9 agree.
cited_values = set()
for m in re.finditer(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?", corpus):
    v = value(m.group(0).rstrip(","))
    if v is not None:
        cited_values.add(v)

def cited(text):
    return value(text) in cited_values

def prose_sentences(path):
    """Yields (line number, sentence) of the prose of a chapter, without code or math."""
    fenced = False
    for lineno, line in enumerate(open(path, encoding="utf-8"), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced or line.lstrip().startswith("|") or line.lstrip().startswith("!["):
            continue
        line = re.sub(r"`[^`]*`", " ", line)          # code spans and value citations
        line = re.sub(r"\$\$.*?\$\$", " ", line)       # display math on one line
        line = re.sub(r"\$[^$]*\$", " ", line)         # inline math
        line = re.sub(r"\]\([^)]*\)", "]", line)       # link targets
        for sentence in re.split(r"(?<=[.;:!?)])\s+(?=[A-Z(])", line):
            yield lineno, sentence

failures = 0
quotes = 0
for path in sorted(glob.glob(os.path.join(root, "chapters/*/*.md"))):
    rel = os.path.relpath(path, root)
    for lineno, sentence in prose_sentences(path):
        if not re.search(r"\bthe book\b|\bthe book's\b", sentence, re.I):
            continue
        for m in NUMBER.finditer(sentence):
            text = m.group(1)
            before = sentence[:m.start()]
            after = sentence[m.end():]
            if re.match(r"[x×]\d", after) or re.search(r"\d[x×]$", before):
                continue                                # a slice shape, 4x8 or 16x16x16
            if CONTEXT_WORDS.search(before):
                continue                                # chapter 5, Question 4
            if re.match(r"(?:st|nd|rd|th)\b", after):
                continue                                # ordinals
            quotes += 1
            if not cited(text):
                failures += 1
                print(f"FAIL: {rel}:{lineno}: the book's {text} is cited by no evidence test "
                      f"(tests/lib/*_book.c, tests/grading/test_*.c): \"{sentence.strip()[:160]}\"")
print(f"{quotes} quoted book figures checked against {len(evidence_files)} evidence files, "
      f"{failures} uncited")
sys.exit(1 if failures else 0)
EOF

# The checker must fail a quote no test cites (and pass one that is cited), or it proves nothing.
mkdir -p "$tmp/fixture/chapters/99-x" "$tmp/fixture/tests/lib" "$tmp/fixture/tests/grading"
printf '/* ch. 99: "12,345" and 0.90, v5e 4x8 */\n' > "$tmp/fixture/tests/lib/test_x_book.c"
printf 'The book prints 12345 and 0.9 on a 4x8 in chapter 12 (`=a.b` is $3.14$).\n' \
  > "$tmp/fixture/chapters/99-x/x.md"
if ! python3 "$tmp/check.py" "$tmp/fixture" > "$tmp/out" 2>&1; then
  echo "FAIL: the checker rejects a fixture whose quotes are all cited:"; cat "$tmp/out"; exit 1
fi
printf 'Elsewhere the book prints 987.6 and 43.\n' >> "$tmp/fixture/chapters/99-x/x.md"
if python3 "$tmp/check.py" "$tmp/fixture" > "$tmp/out" 2>&1 || ! grep -q "987.6" "$tmp/out" ||
  ! grep -q "s 43 is" "$tmp/out"; then
  echo "FAIL: the checker accepts uncited quotes 987.6 and 43:"; cat "$tmp/out"; exit 1
fi
python3 "$tmp/check.py" "$root"
