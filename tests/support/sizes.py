#!/usr/bin/env python3
"""sizes.py — the structure's size limits (issue 26): every chapter program at most 400 lines,
every function of src/ at most 120.

Usage: sizes.py ROOT      checks the tree at ROOT; one line per breach, exit 1 if any
       sizes.py --self    checks the checker on small texts that break each rule

A function is a definition at column 0: a line that opens a parameter list, the body's '{'
ending that line or one of the next few, and the first later line that is '}' alone closing it
(the house style, clang-format's). Its length counts from the signature's first line to the '}'.

Files still over a limit are listed in OVER with the length they may not exceed: the list only
shrinks (a listed file that grew fails, and so does one now within the limit, so that its entry
is removed with the change that shrank it).
"""
import glob
import os
import re
import sys

CHAPTER_MAX = 400
FUNCTION_MAX = 120

# file -> the most lines it may have while it is still being split (issue 26)
OVER = {
}

SIGNATURE = re.compile(r"^[A-Za-z_][A-Za-z0-9_ \*]*\b([A-Za-z_][A-Za-z0-9_]*)\s*\(")
NOT_A_DEFINITION = re.compile(r"^(typedef|struct\s+\w+\s*\{|enum|union|#|return)\b")


def functions(text):
    """(name, first line, length) of each function defined in C source 'text'."""
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = SIGNATURE.match(lines[i])
        if not m or NOT_A_DEFINITION.match(lines[i]) or lines[i].rstrip().endswith(";"):
            i += 1
            continue
        # the body's brace ends the signature's line or one of the next few (wrapped parameters)
        opened = None
        for j in range(i, min(i + 8, len(lines))):
            if lines[j].rstrip().endswith("{"):
                opened = j
                break
            if lines[j].rstrip().endswith(";"):
                break
        if opened is None:
            i += 1
            continue
        close = next((k for k in range(opened + 1, len(lines)) if lines[k] == "}"), None)
        if close is None:
            break
        out.append((m.group(1), i + 1, close - i + 1))
        i = close + 1
    return out


def breaches(files, over=None):
    """Breach lines for 'files', a dict path -> text (paths relative to the root), against the
    list 'over' of files still over a limit (OVER when None)."""
    over = OVER if over is None else over
    found = []
    for path, text in sorted(files.items()):
        n = text.count("\n")
        if path.startswith("chapters/") and "/common/" not in path:
            limit = over.get(path, CHAPTER_MAX)
            if n > limit:
                found.append(f"{path}: {n} lines, more than {limit}"
                             + (" (its entry in OVER)" if path in over else ""))
            elif path in over and n <= CHAPTER_MAX:
                found.append(f"{path}: {n} lines, within {CHAPTER_MAX}: remove its entry from "
                             "OVER in tests/support/sizes.py")
        if path.startswith("src/"):
            for name, line, length in functions(text):
                if length > FUNCTION_MAX:
                    found.append(f"{path}:{line}: {name}() is {length} lines, more than "
                                 f"{FUNCTION_MAX}")
    return found


def tree(root):
    files = {}
    for pattern in ("chapters/*/*.c", "src/*.c", "src/*/*.c"):
        for p in glob.glob(os.path.join(root, pattern)):
            with open(p, encoding="utf-8") as f:
                files[os.path.relpath(p, root)] = f.read()
    return files


def self_test():
    body = lambda n: "".join(f"  x += {k};\n" for k in range(n))
    short = "static int f(int x) {\n" + body(10) + "  return x;\n}\n"
    wrapped = "double g(double a,\n         double b) {\n" + body(130) + "  return a;\n}\n"
    proto = "double h(double a);\nstruct s {\n  int a;\n};\n"
    cases = [
        ({"src/a.c": short + proto}, 0, "a short function and a prototype pass"),
        ({"src/a.c": short + wrapped}, 1, "a 134-line function with wrapped parameters fails"),
        ({"chapters/01-x/x.c": "int a;\n" * 401}, 1, "a 401-line chapter program fails"),
        ({"chapters/01-x/x.c": "int a;\n" * 400}, 0, "a 400-line chapter program passes"),
        ({"chapters/common/chapter.c": "int a;\n" * 900}, 0, "the shared helpers are not a chapter"),
        ({"chapters/09-x/x.c": "int a;\n" * 300}, 1,
         "a listed file within the limit asks for its entry's removal"),
        ({"chapters/09-x/x.c": "int a;\n" * 500}, 0, "a listed file within its entry passes"),
        ({"chapters/09-x/x.c": "int a;\n" * 538}, 1, "a listed file that grew fails"),
    ]
    listed = {"chapters/09-x/x.c": 537}  # the checker's own list: the real OVER only shrinks
    bad = 0
    for files, want, what in cases:
        got = len(breaches(files, listed))
        if got != want:
            print(f"FAIL self-test: {what}: {got} breaches, expected {want}")
            bad += 1
    if functions(wrapped) != [("g", 1, 134)]:
        print(f"FAIL self-test: g() measured as {functions(wrapped)}")
        bad += 1
    return bad


def main():
    if len(sys.argv) != 2:
        print("usage: sizes.py ROOT | --self", file=sys.stderr)
        return 2
    if sys.argv[1] == "--self":
        return 1 if self_test() else 0
    if self_test():
        return 1
    found = breaches(tree(sys.argv[1]))
    for line in found:
        print(line)
    n = len(tree(sys.argv[1]))
    print(f"{n} files checked, {len(found)} over the limits")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
