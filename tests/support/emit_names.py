#!/usr/bin/env python3
"""emit_names.py -- checks `--emit` option names against the lists in frameworks/.

  emit_names.py tables ROOT           every name of every *_OPTS table of src/cli/emit.c is in
                                      frameworks/FW.txt, and each framework's commit in emit.c is
                                      the commit its list was read at
  emit_names.py output ROOT FW FILE   every option FILE (an --emit FW output) prints is in
                                      frameworks/FW.txt, and its header names the list's commit

Prints what is missing and exits 1; prints nothing and exits 0 when all is in order.
"""
import os
import re
import sys

TABLES = {"MEGATRON": "megatron", "NEMO": "nemo", "TORCHTITAN": "torchtitan",
          "MAXTEXT": "maxtext", "VLLM": "vllm", "SGLANG": "sglang", "TRTLLM": "trtllm"}


def load(root, fw):
    """(names, commit) of frameworks/FW.txt."""
    names, commit = set(), None
    for line in open(os.path.join(root, "frameworks", fw + ".txt"), encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("# commit: "):
            commit = line.split()[2]
        elif line and not line.startswith("#"):
            names.add(line)
    return names, commit


def tables(root):
    src = open(os.path.join(root, "src", "cli", "emit.c"), encoding="utf-8").read()
    bad, seen = [], set()
    for table, body in re.findall(r"static const emit_opt (\w+)_OPTS\[\] = \{(.*?)\n\};", src,
                                  re.S):
        fw = TABLES[table]
        seen.add(fw)
        names, _ = load(root, fw)
        rows = re.findall(r'\{[KS]_\w+, "([^"]+)"\}', body)
        if not rows:
            bad.append(f"{table}_OPTS: no rows read")
        bad += [f"{fw}: {n} (emit.c {table}_OPTS) is not in frameworks/{fw}.txt"
                for n in rows if n not in names]
    bad += [f"no table for {fw}" for fw in TABLES.values() if fw not in seen]
    for fw, commit in re.findall(r'\[CLI_EMIT_\w+\] = \{"(\w+)",[^}]*?"([0-9a-f]{40})"', src, re.S):
        _, listed = load(root, fw)
        if commit != listed:
            bad.append(f"{fw}: emit.c names commit {commit}, frameworks/{fw}.txt {listed}")
    return bad


def printed(text):
    """(name, value) of every option line of an --emit output, in any of its four styles."""
    out, section = [], ""
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith("--"):
            out.append((line.split()[0], ""))
        elif line.startswith("["):
            section = line.strip("[]")
        elif " = " in line:
            key, value = line.split(" = ", 1)
            out.append((f"{section}.{key}" if section else key, value))
        elif line.endswith(":") and not line.startswith(" "):
            section = line[:-1]
        elif ": " in line:
            key, value = line.strip().split(": ", 1)
            nested = line.startswith("  ")
            out.append((f"{section}.{key}" if nested else key, value))
            if not nested:
                section = ""
        elif "=" in line:
            key, value = line.split("=", 1)
            out.append((key, value))
        else:
            out.append((line, ""))
    return out


def output(root, fw, path):
    names, commit = load(root, fw)
    text = open(path, encoding="utf-8").read()
    bad = []
    if f"commit {commit}," not in text.split("\n")[1]:
        bad.append(f"the header does not name commit {commit}")
    options = printed(text)
    if not options:
        bad.append("no options printed")
    for name, value in options:
        if name not in names:
            bad.append(f"{name} is not in frameworks/{fw}.txt")
        if fw == "nemo" and name == "mixed_precision" and f"{name}={value}" not in names:
            bad.append(f"{name}={value} is not a registered recipe in frameworks/nemo.txt")
    return bad


def main(argv):
    bad = tables(argv[2]) if argv[1] == "tables" else output(argv[2], argv[3], argv[4])
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
