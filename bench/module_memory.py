#!/usr/bin/env python3
"""Resident memory of a loaded model and of each extra executor, split into anonymous memory
(copies, working memory) and file-backed memory (the library's code and weights, read in place).

Each model is exported by tests/e2e/export_models.py (random weights, fixed seed), compiled with
`kiln compile`, and measured by build/release/bin/kiln_module_memory, which loads it, then creates
and runs N executors from one factory.

    /usr/bin/python3 bench/module_memory.py [--executors 4] [models...]   (default: resnet50)
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "build", "release", "bin")


def mib(b):
    return f"{b / 2**20:8.1f}"


def measure(model, work, executors):
    subprocess.run([sys.executable, os.path.join(ROOT, "tests", "e2e", "export_models.py"),
                    "--out-dir", work, model], check=True, stdout=subprocess.DEVNULL)
    so = os.path.join(work, f"{model}.memory.so")
    subprocess.run([os.path.join(BIN, "kiln"), "compile", os.path.join(work, f"{model}.onnx"),
                    "-o", so], check=True, stdout=subprocess.DEVNULL)
    out = subprocess.run([os.path.join(BIN, "kiln_module_memory"), so, "--executors",
                          str(executors)], check=True, capture_output=True, text=True,
                         env=dict(os.environ, KILN_NUM_THREADS="1"))
    return json.loads(out.stdout)


def report(model, m):
    print(f"{model}: weights {mib(m['params_bytes'])} MiB, workspace "
          f"{mib(m['workspace_bytes'])} MiB per executor")
    print("  stage                    anon MiB   file MiB")
    start = m["start"]
    rows = [("loaded", m["loaded"])] + [(f"executor {i + 1} created+run", r)
                                        for i, r in enumerate(m["after_executor"])]
    for name, r in rows:
        print(f"  {name:22s} {mib(r['anon'] - start['anon'])} {mib(r['file'] - start['file'])}")
    after = m["after_executor"]
    if len(after) > 1:
        extra = (after[-1]["anon"] + after[-1]["file"] - after[0]["anon"] - after[0]["file"]) / (
            len(after) - 1)
        print(f"  each extra executor:     {mib(extra)} MiB "
              f"({extra / m['workspace_bytes']:.2f}x its workspace)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", default=["resnet50"])
    parser.add_argument("--executors", type=int, default=4)
    parser.add_argument("--keep", help="keep the exported and compiled models in this folder")
    args = parser.parse_args()
    work = args.keep or tempfile.mkdtemp(prefix="kiln-module-memory-")
    os.makedirs(work, exist_ok=True)
    for model in args.models:
        report(model, measure(model, work, args.executors))


if __name__ == "__main__":
    main()
