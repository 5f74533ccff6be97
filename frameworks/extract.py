#!/usr/bin/env python3
"""extract.py -- writes frameworks/NAME.txt: the option names of one framework version, read
from its source at a named commit of a git mirror (the `fetch` tool's snapshot).

usage: extract.py NAME GIT_DIR COMMIT VERSION [GIT_DIR2 COMMIT2]   (NAME: see RULES below)

Each rule reads the named files with `git show COMMIT:PATH` and collects names by one of
three readers: argparse flags (the string literal after add_argument( / the flag literals in
a list of aliases), the annotated fields of Python dataclass / pydantic classes (with a
dotted prefix for nested sections), or the top-level keys of a YAML file. Nothing is typed
by hand: the list is what the source declares.
"""
import ast
import re
import subprocess
import sys
from datetime import date


def show(git_dir, commit, path):
    return subprocess.run(["git", "-C", git_dir, "show", f"{commit}:{path}"], check=True,
                          capture_output=True, text=True).stdout


def commit_date(git_dir, commit):
    return subprocess.run(["git", "-C", git_dir, "log", "-1", "--format=%cs", commit], check=True,
                          capture_output=True, text=True).stdout.strip()


def flags(text):
    """Every '--flag' string literal of the file (add_argument's names and aliases)."""
    return set(re.findall(r"""["'](--[A-Za-z0-9][A-Za-z0-9_-]*)["']""", text))


def classes(text):
    """{class name: (base names, [(field, annotation source)])} of a Python file."""
    out = {}
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.ClassDef):
            continue
        fields = [(s.target.id, ast.unparse(s.annotation)) for s in node.body
                  if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
                  and not s.target.id.startswith("_")
                  and not ast.unparse(s.annotation).startswith("ClassVar")]
        bases = [ast.unparse(b).split(".")[-1].split("[")[0] for b in node.bases]
        out.setdefault(node.name, (bases, fields))
    return out


def fields_of(table, name, seen=None):
    """The fields of class 'name' and of its bases found in 'table'."""
    seen = seen or set()
    if name in seen or name not in table:
        return []
    seen.add(name)
    bases, fields = table[name]
    names = [f for f, _ in fields]
    for b in bases:
        names += fields_of(table, b, seen)
    return names


def nested(table, cls, prefix, depth=0):
    """Dotted names of the fields of 'cls', descending into fields whose type is a class."""
    names = set()
    if cls not in table or depth > 4:
        return names
    seen = set()
    for b in [cls] + table[cls][0]:
        for f, ann in (table[b][1] if b in table else []):
            if f in seen:
                continue
            seen.add(f)
            sub = ann.split("|")[0].strip()
            if sub in table and table[sub][1]:
                names |= nested(table, sub, f"{prefix}{f}.", depth + 1)
            else:
                names.add(prefix + f)
    return names


def yaml_keys(text):
    return set(re.findall(r"^([A-Za-z_][A-Za-z0-9_]*):", text, re.M))


def megatron(g, c, g2, c2):
    path = "megatron/training/arguments.py"
    return [path], flags(show(g, c, path))


def nemo(g, c, g2, c2):
    # Megatron-Bridge's ConfigContainer sections; the model, ddp and optimizer sections are
    # Megatron Core dataclasses, read from the Megatron-LM commit Bridge pins (3rdparty/).
    bridge = ["src/megatron/bridge/training/config.py", "src/megatron/bridge/models/gpt_provider.py",
              "src/megatron/bridge/models/transformer_config.py",
              "src/megatron/bridge/training/mixed_precision.py"]
    core = ["megatron/core/transformer/transformer_config.py",
            "megatron/core/model_parallel_config.py",
            "megatron/core/distributed/distributed_data_parallel_config.py",
            "megatron/core/optimizer/optimizer_config.py",
            "megatron/training/config/training_config.py",
            "megatron/training/config/common_config.py",
            "megatron/training/config/resilience_config.py"]
    table = {}
    for p in bridge:
        for k, v in classes(show(g, c, p)).items():
            table.setdefault(k, v)
    core_table = {}
    for p in core:
        core_table.update(classes(show(g2, c2, p)))
    for k, v in core_table.items():  # Bridge's own TransformerConfig subclasses mcore's
        table.setdefault(k, v)
    for p in bridge:  # "from megatron.core... import A as B": B is Megatron's A
        for a, b in re.findall(r"import (\w+) as (\w+)", show(g, c, p)):
            if a in core_table:
                table[b] = core_table[a]
    names = set()
    for section, cls in [("model", "GPTModelProvider"), ("model", "MLATransformerConfig"),
                         ("train", "TrainingConfig"), ("ddp", "DistributedDataParallelConfig"),
                         ("optimizer", "OptimizerConfig"), ("dist", "DistributedInitConfig"),
                         ("checkpoint", "CheckpointConfig")]:
        names |= {f"{section}.{f}" for f in fields_of(table, cls)}
    names |= {f for f, _ in table["ConfigContainer"][1]}
    mp = show(g, c, bridge[3])  # the registered mixed-precision recipes, as values
    names |= {f"mixed_precision={n}" for n in re.findall(r"@register\ndef ([a-z0-9_]+)\(", mp)}
    return bridge + [f"Megatron-LM {c2}: {p}" for p in core], names


def torchtitan(g, c, g2, c2):
    path = "torchtitan/config/job_config.py"
    table = classes(show(g, c, path))
    names = set()
    for section, ann in table["JobConfig"][1]:
        names |= nested(table, ann.split("|")[0].strip(), f"{section}.")
    return [path], names


def maxtext(g, c, g2, c2):
    path = "src/maxtext/configs/base.yml"
    return [path], yaml_keys(show(g, c, path))


def vllm(g, c, g2, c2):
    path = "vllm/engine/arg_utils.py"
    text = show(g, c, path)
    table = classes(text)
    names = {"--" + f.replace("_", "-") for f in fields_of(table, "EngineArgs")}
    return [path], names | flags(text)


def sglang(g, c, g2, c2):
    path = "python/sglang/srt/server_args.py"
    return [path], flags(show(g, c, path))


def trtllm(g, c, g2, c2):
    path = "tensorrt_llm/llmapi/llm_args.py"
    serve = "tensorrt_llm/commands/serve.py"
    table = classes(show(g, c, path))
    names = set(fields_of(table, "TorchLlmArgs"))
    names |= {f"kv_cache_config.{f}" for f in fields_of(table, "KvCacheConfig")}
    names |= {f"trtllm-serve {f}" for f in flags(show(g, c, serve))}
    return [path, serve], names


RULES = {"megatron": megatron, "nemo": nemo, "torchtitan": torchtitan, "maxtext": maxtext,
         "vllm": vllm, "sglang": sglang, "trtllm": trtllm}


def main(argv):
    name, git_dir, commit, version = argv[1:5]
    g2, c2 = (argv[5], argv[6]) if len(argv) > 6 else (None, None)
    repo = argv[7] if len(argv) > 7 else ""
    commit = subprocess.run(["git", "-C", git_dir, "rev-parse", commit + "^{commit}"], check=True,
                            capture_output=True, text=True).stdout.strip()
    paths, names = RULES[name](git_dir, commit, g2, c2)
    print(f"# framework: {name}")
    print(f"# version: {version}")
    print(f"# commit: {commit} ({commit_date(git_dir, commit)})")
    for p in paths:
        print(f"# file: {p}")
    print(f"# read: {date.today().isoformat()} by frameworks/extract.py from the git snapshot "
          f"{git_dir.split('/')[-2].replace('+', '/')}")
    for n in sorted(names):
        print(n)


if __name__ == "__main__":
    main(sys.argv)
