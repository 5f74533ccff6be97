#!/usr/bin/env python3
"""make_corpus.py — regenerates the seed corpora of fuzz/corpus/TARGET/ (fuzz/README.md).

Seeds are the shipped files (hardware/*.ini, models/*.ini, the chapters and their values, the
command lines of tests/cli/) and the hostile inputs of issue 13 section 2. Run from anywhere:

    python3 fuzz/make_corpus.py [BUILD_DIR]

BUILD_DIR (default: build) holds the chapter programs whose --values output pairs with each
chapter's Markdown in the book corpus; chapters whose program is missing get no values.
The script rewrites fuzz/corpus/ and fuzz/dict/ whole; regressions (fuzz/regressions/) are
kept by hand.
"""
import hashlib
import os
import re
import shlex
import struct
import subprocess
import sys

FUZZ = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(FUZZ)
BUILD = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(ROOT, "build")


# fuzz/corpus/ is generated whole: start from nothing, so that no stale seed stays behind.
for target in os.listdir(os.path.join(FUZZ, "corpus")) if os.path.isdir(os.path.join(FUZZ, "corpus")) else []:
    for name in os.listdir(os.path.join(FUZZ, "corpus", target)):
        os.remove(os.path.join(FUZZ, "corpus", target, name))


def read(path):
    with open(os.path.join(ROOT, path), "rb") as f:
        return f.read()


def put(target, name, data):
    d = os.path.join(FUZZ, "corpus", target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def setkey(text, key, value):
    """text with 'key = ...' set to value (the first such line), or the line removed (None)."""
    pat = re.compile(rb"^" + re.escape(key.encode()) + rb" *=.*$", re.M)
    assert pat.search(text), key
    if value is None:
        return pat.sub(b"", text, count=1)
    return pat.sub(key.encode() + b" = " + value.encode(), text, count=1)


def bom_crlf(text):
    return b"\xef\xbb\xbf" + text.replace(b"\n", b"\r\n")


# ---- units: byte 0 = flags (bit 0 nonneg, 1 positive, 2 integer), then the text ------------
numbers = ["4M", "2.8T", "96G", "16Ki", "15e12", "0.5", "8960", "1e308", "1e-300", "-0", "0x10",
           "inf", "nan", "1e400", "1e-310", "4294967296", "1E", "1Pi", "1Ei", "8.5", "-3", " 4",
           "4 ", "4M\n", "1\x01", "", ".5", "+.5e-3k", "1e", "1.7976931348623157e308", "9e15",
           "4K", "4k", "4Mi", "4m", "1,000", "\xef\xbb\xbf4", "4\r"]
for i, text in enumerate(numbers):
    for flags in (0, 7):
        put("units", "number-%02d-%d" % (i, flags), bytes([flags]) + text.encode("latin-1"))
# Raw doubles for the formatter: subnormal, largest, -0, values next to a prefix boundary.
for i, v in enumerate([5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, -0.0, 999.7e3,
                       1023.6 * 1024, 3.2e-3, 44.1 * 86400, 1e-3, 9.995e6, 0.0095, -1.5e-7,
                       3.15576e7 * 2, 119.99, 1e300]):
    put("units", "double-%02d" % i, b"\x00" + struct.pack("<d", v) + b"B/s")

# ---- sharding: MESH \n A \n B \n SIZES ---------------------------------------------------------
shardings = [
    "{X:8, Y:2}\nA[I_XY, J]\nB[J, K]\n",
    "{X:4, Y:8, Z:2}\nA[I_X, J, K]\nB[K, L_Y]\n\x05",
    "{X:2, Y:8, Z:2}\nA[I_XY, J]\nB[J_Z, K]\n",
    "X:2,Y:2\nA[I_X, J]\nB[J_Y, K]\n",
    "{'X': 8, 'Y': 2}\nA[I, J_X]\nB[J_X, K]\n\x11",
    "{\"X\": 4}\nC[I, K]{U_X}\nB[K, L]\n",
    "{X:4}\nA[I_X, J]\nB[J, K_X]\n\x22",
    "{X:16, Y:16}\nIn[B_X, D]\nW[D, F_Y]\n\x30",
    "{X:4, Y:4}\nA[I_X, J_Y]\nB[J_X, K]\n",
    "{X:2, Y:2, Z:2}\n[I_XYZ]\n[I, K]\n",
    "{X:2}\nC[I, K]{U_X, U_Y}\n",
    # hostile
    "{X:99999999999999999999999}\nA[I_X]\n",
    "{X:4294967296, Y:4294967296, Z:4294967296}\nA[I_XYZ, J]\nB[J, K]\n",
    "{X:0}\nA[I]\n", "{X:1,X:2}\nA[I]\n", "{A:1,B:1,C:1,D:1,E:1,F:1,G:1,H:1,I:1}\n",
    "{X:2}\nA[I_X\n", "{X:2}\nA[I_XX, J]\n", "{X:2}\nA[I_X, J_X]\n", "{X:2}\nA[I,I]\n",
    "{X:2}\nA[I_X]{U_X}\n", "{X:\x01}\n", "\xef\xbb\xbf{X:2}\nA[I_X]\n",
    "{X:2}\r\nA[I_X]\r\nB[I]\r\n", "{X:2}\nA\nB[J_\n", "{X:2}\nABCDEFGHIJKLMNOPQRSTUVWXYZ[I]\n",
    "{X:2}\nA[I1, I2, I3, I4, I5, I6, I7, I8, I9]\n", "{X:2}\nA[I_Q]\n", "{X:2}\nA[I]{U_\n",
    "{X:2}\nA[I\nwith\nnewlines]\n", "{X:8,Y:8,Z:8,W:8,V:8,U:8,T:8,S:8}\nA[I_XYZWVUTS]\nB[I,J]\n\x2f",
]
for i, text in enumerate(shardings):
    put("sharding", "sharding-%02d" % i, text.encode("latin-1"))

# ---- INI loaders: the shipped files and hostile variants of them ------------------------------
for d, target in (("hardware", "ini_hardware"), ("models", "ini_model")):
    for name in sorted(os.listdir(os.path.join(ROOT, d))):
        if name.endswith(".ini"):
            put(target, name, read(os.path.join(d, name)))

v5p = read("hardware/tpu-v5p.ini")
h100 = read("hardware/nvidia-h100-sxm.ini")
dgx = read("hardware/dgx-h100.ini")
hw_hostile = {
    "pod_y-1e308": setkey(v5p, "pod_y", "1e308"),
    "hbm_bytes_per_s-1e-300": setkey(v5p, "hbm_bytes_per_s", "1e-300"),
    "pod_x-half": setkey(v5p, "pod_x", "0.5"),
    "n_axes-half": setkey(v5p, "n_axes", "0.5"),
    "n_axes-0": setkey(v5p, "n_axes", "0"),
    "usd_per_hour-1e-300": setkey(v5p, "usd_per_hour", "1e-300"),
    "usd_per_hour-negative": setkey(v5p, "usd_per_hour", "-4.2"),
    "domain_size-half": setkey(h100, "domain_size", "0.5"),
    "level1_fanout-1": setkey(h100, "level1_fanout", "1"),
    "level2_fanout-1": setkey(h100, "level2_fanout", "1"),
    "level1_fanout-missing": setkey(h100, "level1_fanout", None),
    "n_chips-half": setkey(dgx, "n_chips", "0.5"),
    "n_chips-1e308": setkey(dgx, "n_chips", "1e308"),
    "base-self": setkey(dgx, "base", "fuzz-input"),
    "base-missing": setkey(dgx, "base", "tpu-v9"),
    "base-path": setkey(dgx, "base", "../hardware/nvidia-h100-sxm"),
    "bom-crlf": bom_crlf(v5p),
    "nul-byte": v5p[:200] + b"\x00" + v5p[200:],
    "control-char": setkey(v5p, "display_name", "TPU\x1b[31mv5p"),
    "duplicate-key": v5p + b"\n[chip]\nhbm_bytes = 1\n",
    "unknown-key": v5p + b"\n[chip]\nhbm_gigabytes = 95\n",
    "hex-inf-nan": setkey(setkey(v5p, "pod_x", "0x10"), "pod_y", "inf"),
    "long-line": v5p + b"; " + b"x" * 300 + b"\n",
    "empty": b"",
    "comments-only": b"; nothing here\n# nor here\n",
    "unterminated-section": b"[chip\nkind = tpu\n",
    "no-equals": b"[chip]\nkind tpu\n",
    "continuation": setkey(v5p, "kind", "tpu\n  gpu"),
}
for name, data in hw_hostile.items():
    put("ini_hardware", "hostile-" + name, data)

l70 = read("models/llama-3-70b.ini")
mamba = read("models/mamba-2-2.7b.ini")
moe = read("models/mixtral-8x7b.ini")
model_hostile = {
    "d_model-2^32-expand-2^32": setkey(setkey(mamba, "d_model", "4294967296"), "expand",
                                       "4294967296"),
    "chunk_size-missing": setkey(mamba, "chunk_size", None),
    "chunk_size-0": setkey(mamba, "chunk_size", "0"),
    "d_model-9e15": setkey(l70, "d_model", "9000000000000000"),
    "n_layers-0": setkey(l70, "n_layers", "0"),
    "n_layers-half": setkey(l70, "n_layers", "0.5"),
    "n_heads-0": setkey(l70, "n_heads", "0"),
    "n_kv_heads-gt-n_heads": setkey(l70, "n_kv_heads", "128"),
    "n_vocab-1e15": setkey(l70, "n_vocab", "1000000000000000"),
    "n_ctx_max-0": setkey(l70, "n_ctx_max", "0"),
    "n_experts_active-gt-n_experts": setkey(moe, "n_experts_active", "9"),
    "bom-crlf": bom_crlf(l70),
    "nul-byte": l70[:150] + b"\x00" + l70[150:],
    "control-char": setkey(l70, "display_name", "LLaMA\x07 3"),
    "arch-unknown": setkey(l70, "arch", "rwkv"),
    "empty": b"",
}
for name, data in model_hostile.items():
    put("ini_model", "hostile-" + name, data)

# ---- book: VALUES \n%%%%\n MARKDOWN ------------------------------------------------------------
SEP = b"\n%%%%\n"
fixture = "tests/data/book/chapters/01-fixture/"
fmd, fvalues = read(fixture + "fixture.md"), read(fixture + "fixture.values")
put("book", "fixture", fvalues.rstrip(b"\n") + SEP + fmd)
put("book", "fixture-no-values", fmd)
for chapter in sorted(os.listdir(os.path.join(ROOT, "chapters"))):
    m = re.match(r"^(\d\d)-(.+)$", chapter)
    md = os.path.join(ROOT, "chapters", chapter, m.group(2) + ".md") if m else ""
    if not m or not os.path.isfile(md):
        continue
    prog = os.path.join(BUILD, "chapters", "chapter_%s_%s" % (m.group(1), m.group(2).replace("-", "_")))
    values = b""
    if os.access(prog, os.X_OK):
        run = subprocess.run([prog, "--values"], capture_output=True,
                             env=dict(os.environ, SCALE_DATA_DIR=ROOT))
        if run.returncode == 0:
            values = run.stdout
        else:
            print("warning: %s --values failed (stale build?); chapter %s gets no values"
                  % (prog, chapter), file=sys.stderr)
    put("book", "chapter-" + chapter, values.rstrip(b"\n") + SEP + read(md))
book_hostile = {
    "nul-in-markdown": fvalues.rstrip(b"\n") + SEP + fmd[:100] + b"\x00" + fmd[100:],
    "nul-in-values": fvalues[:30] + b"\x00" + fvalues[30:].rstrip(b"\n") + SEP + fmd,
    "values-inf-nan": b"a\tinf\tB\tinf B\nb\tnan\tB\tn/a\nc\t1e999\tB\tbig" + SEP + b"`=a` `=b` `=c`\n",
    "values-duplicate": b"a\t1\tB\t1 B\na\t2\tB\t2 B" + SEP + b"`=a`\n",
    "values-malformed": b"a\t1\nb\t\t\t\n\t1\tB\tx" + SEP + b"`=a`\n",
    "unknown-citation": fvalues.rstrip(b"\n") + SEP + b"`=no.such.key` and `=`\n",
    "unknown-listing": fvalues.rstrip(b"\n") + SEP + b"```{listing} nope\n```\n",
    "unknown-exercise": fvalues.rstrip(b"\n") + SEP + b"```{exercise} nope.nope\nq\n```\n",
    "unclosed-fence": fvalues.rstrip(b"\n") + SEP + b"```{exercise} fixture.ridge\nq `=chip.peak`\n",
    "unbalanced-math": fvalues.rstrip(b"\n") + SEP + b"$a `=chip.peak` $$ b \\$ c $\n",
    "same-headings": fvalues.rstrip(b"\n") + SEP + b"## Same\n\n" * 200,
    "many-values": b"".join(b"v%d\t%d\tB\t%d B\n" % (i, i, i) for i in range(500)).rstrip(b"\n")
                   + SEP + b"".join(b"`=v%d` " % i for i in range(0, 500, 7)) + b"\n",
    "control-chars": fvalues.rstrip(b"\n") + SEP + b"# T\x01itle\n\n`=chip\x1b.peak`\n",
    "bom-crlf": bom_crlf(fvalues.rstrip(b"\n")) + SEP + bom_crlf(fmd),
    "figure-escape": fvalues.rstrip(b"\n") + SEP + b"![x](../../../etc/passwd \"c\")\n![y](ridge.svg)\n",
    "empty": b"",
}
for name, data in book_hostile.items():
    put("book", "hostile-" + name, data)

# ---- cli: arguments separated by NUL bytes; relative paths are from the source tree ----------
lines = set()
for script in sorted(os.listdir(os.path.join(ROOT, "tests", "cli"))):
    if not script.startswith("test_"):
        continue
    text = read(os.path.join("tests", "cli", script)).decode()
    text = text.replace('$L70', '--model llama-3-70b --hw tpu-v5p --batch-tokens 4M --seq 4096')
    for m in re.finditer(r'"\$SCALE" ((?:hw|model|train|infer|roofline|collective|plan)\b[^|>;\n]*)',
                         text):
        cmd = m.group(1).strip()
        if "$" in cmd:
            continue
        try:
            lines.add(tuple(shlex.split(cmd)))
        except ValueError:
            pass
hostile_cli = [
    ["model", "show", "llama-3-70b", "--context", "1e308"],
    ["infer", "--model", "llama-3-70b", "--hw", "tpu-v5e", "--chips", "16", "--batch", "8",
     "--context", "1e308"],
    ["train", "--model", "llama-3-70b", "--hw", "tpu-v5p", "--chips", "1e308", "--batch-tokens",
     "4M", "--seq", "4096"],
    ["train", "--model", "llama-3-70b", "--hw", "tpu-v5p", "--chips", "8", "--batch-tokens", "1e18",
     "--seq", "4096", "--tokens", "1e308"],
    # (1:1e15 walks 30 chip counts up to the 1e9 limit: 20 s under the sanitizers.)
    ["plan", "train", "--model", "llama-3-8b", "--hw", "tpu-v5e", "--chips", "1e15:2e15",
     "--batch-tokens", "1M", "--seq", "4096"],
    ["plan", "train", "--model", "llama-3-8b", "--hw", "tpu-v5e", "--chips", "1e15",
     "--batch-tokens", "1M", "--seq", "4096"],
    ["plan", "train", "--model", "llama-3-8b", "--hw", "tpu-v5e", "--chips", "8", "--batch-tokens",
     "1M", "--seq", "4096", "--threads", "100000"],
    ["plan", "infer", "--model", "llama-3-70b", "--hw", "tpu-v5e", "--prompt", "2048", "--output",
     "512", "--max-chips", "1e308"],
    ["hw", "show", "tpu\nv5p"], ["hw", "show", "tpu-v5p\x1b[2J"], ["hw", "--h\x01"],
    ["roofline", "--hw", "tpu-v5e", "--flops", "1e12\n", "--bytes", "1e9"],
    ["roofline", "--hw", "tpu-v5e", "--matmul", "1e308,1e308,1e308"],
    ["roofline", "--hw", "tpu-v5e", "--flops", "1e-300", "--bytes", "1e300"],
    ["collective", "--hw", "tpu-v5e", "--op", "all-gather", "--bytes", "1e308", "--group", "16x16"],
    ["collective", "--hw", "tpu-v5e", "--op", "all-to-all", "--bytes", "1", "--group",
     "99999999999999999999x2"],
    ["collective", "--hw", "dgx-h100", "--op", "all-reduce", "--bytes", "1G", "--group", "8"],
    ["hw", "show", ""], ["model", "show", "/dev/null"], ["model", "show", "models/"],
    ["train", "--model", "mamba-2-2.7b", "--hw", "tpu-v5e", "--chips", "8", "--batch-tokens", "1M",
     "--seq", "2048", "--cp", "2"],
    ["infer", "--model", "deepseek-v3", "--hw", "gb200-nvl72", "--chips", "72", "--batch", "64",
     "--context", "32768", "--ep", "72", "--json"],
]
# The hostile data files of issue 13, through every command that loads them.
for name in ("pod_y-1e308", "hbm_bytes_per_s-1e-300", "pod_x-half", "level1_fanout-1",
             "usd_per_hour-1e-300", "n_chips-half"):
    hw = "fuzz/corpus/ini_hardware/hostile-%s" % name
    hostile_cli += [
        ["hw", "show", "./" + hw],
        ["plan", "infer", "--model", "llama-3-70b", "--hw", "./" + hw, "--prompt", "2048",
         "--output", "512"],
        ["train", "--model", "llama-3-70b", "--hw", "./" + hw, "--chips", "64", "--batch-tokens",
         "4M", "--seq", "4096", "--tokens", "15T"],
        ["collective", "--hw", "./" + hw, "--op", "all-gather", "--bytes", "1e9", "--group", "8"],
    ]
for name in ("d_model-2^32-expand-2^32", "chunk_size-0", "d_model-9e15"):
    model = "./fuzz/corpus/ini_model/hostile-%s" % name
    hostile_cli += [
        ["model", "show", model],
        ["infer", "--model", model, "--hw", "tpu-v5e", "--chips", "8", "--batch", "8", "--context",
         "2048"],
        ["train", "--model", model, "--hw", "tpu-v5e", "--chips", "8", "--batch-tokens", "1M",
         "--seq", "2048"],
    ]
for args in sorted(lines):  # named by content, so that a new test line renames nothing
    data = b"\0".join(a.encode() for a in args)
    put("cli", "tests-" + hashlib.sha1(data).hexdigest()[:12], data)
for i, args in enumerate(hostile_cli):
    put("cli", "hostile-%03d" % i, b"\0".join(a.encode() for a in args))
print("corpora written under", os.path.join(FUZZ, "corpus"))

# ---- dictionaries: the tokens each parser compares against -----------------------------------
def write_dict(target, tokens):
    os.makedirs(os.path.join(FUZZ, "dict"), exist_ok=True)
    with open(os.path.join(FUZZ, "dict", target + ".dict"), "w") as f:
        f.write("# %s.dict — libFuzzer dictionary, written by fuzz/make_corpus.py\n" % target)
        for t in sorted(set(tokens)):
            esc = "".join(c if c.isprintable() and c not in '"\\' else "\\x%02x" % ord(c) for c in t)
            f.write('"%s"\n' % esc)


write_dict("units", ["k", "K", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "e",
                     "e-", "e+", ".", "-", "+", "0x", "inf", "nan", "bf16", "fp32", "int4", "e4m3"])
write_dict("sharding", ["{", "}", "[", "]", "_", ":", ",", "'", "U_", "{U_", "X:", "Y:", "Z:",
                        "_X", "_XY", "\n"])


def ini_tokens(folder):
    keys = set()
    for name in os.listdir(os.path.join(ROOT, folder)):
        if name.endswith(".ini"):
            for line in read(os.path.join(folder, name)).decode().splitlines():
                m = re.match(r"^\s*(\[[a-z0-9_]+\]|[a-z0-9_]+)\s*=?", line)
                if m:
                    keys.add(m.group(1))
    return sorted(keys) + ["=", " = ", "\n", "\r\n", ";", "#", "1e308", "1e-300", "0.5",
                           "4294967296", "9e15"]


write_dict("ini_hardware", ini_tokens("hardware") + ["level4_fanout", "level4_member_bytes_per_s",
                                                     "fuzz-input", "tpu", "gpu"])
write_dict("ini_model", ini_tokens("models") + ["transformer", "mamba2"])
write_dict("book", ["`=", "`", "```{listing} ", "```{exercise} ", "```", "\n```\n", "$", "$$",
                    "\\$", "![", "](", "ridge.svg", "#", "## ", "|---|", "| a |", "\t", "\n%%%%\n",
                    "chip.peak", "fixture.ridge", "ridge", "<", "&", "\r\n"])
cli_options = set()
for src in os.listdir(os.path.join(ROOT, "src", "cli")):
    if src.endswith(".c") and src not in ("book.c", "grade.c", "main.c"):
        text = read(os.path.join("src", "cli", src)).decode()
        cli_options |= {"--" + o for o in re.findall(r'\{"([a-z0-9-]+)", (?:required|no|optional)_argument', text)}
write_dict("cli", sorted(cli_options) + ["hw", "model", "train", "infer", "roofline", "collective",
                                         "plan", "list", "show", "\x00", "tpu-v5p", "tpu-v5e",
                                         "nvidia-h100-sxm", "dgx-h100", "llama-3-70b",
                                         "mamba-2-2.7b", "deepseek-v3", "1e308", "0.5", "4M",
                                         "all-gather", "all-to-all", "16x16", "bf16", "int4"])
