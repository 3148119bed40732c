#!/usr/bin/env python3
"""Peak resident memory of `kiln run` on a large input, as a multiple of the input's size.

A model that adds 1 to a float32 input of SIZE GiB is compiled once; `kiln run --inputs X.npz
--outputs Y.npz` (and the same with --print-top 5 and --print-time) is measured with GNU time's
maximum resident set size. The executor holds the input and the output (2x the input) by design;
everything above that is what the command line itself costs.

    /usr/bin/python3 bench/memory.py [--gib 2] [--kiln build/release/bin/kiln] [--keep DIR]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper


def make_model(path, elements):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [elements])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [elements])
    one = helper.make_tensor("one", TensorProto.FLOAT, [1], [1.0])
    node = helper.make_node("Add", ["x", "one"], ["y"])
    graph = helper.make_graph([node], "add_one", [x], [y], [one])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


def peak_kib(command):
    """Runs COMMAND under GNU time; returns (max RSS in KiB, seconds)."""
    out = subprocess.run(["/usr/bin/time", "-f", "%M %e"] + command, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, check=False)
    last = out.stderr.strip().splitlines()[-1]
    if out.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{out.stderr}")
    rss, seconds = last.split()
    return int(rss), float(seconds)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gib", type=float, default=2.0)
    ap.add_argument("--kiln", default="build/release/bin/kiln")
    ap.add_argument("--keep", help="folder for the model, input and outputs (default: a temp dir)")
    args = ap.parse_args()
    if not shutil.which("/usr/bin/time"):
        sys.exit("needs GNU time (/usr/bin/time, Debian package 'time')")
    work = args.keep or tempfile.mkdtemp(prefix="kiln-memory-")
    os.makedirs(work, exist_ok=True)
    elements = int(args.gib * (1 << 30)) // 4
    model, lib = os.path.join(work, "add.onnx"), os.path.join(work, "add.so")
    inputs, outputs = os.path.join(work, "x.npz"), os.path.join(work, "y.npz")
    make_model(model, elements)
    subprocess.run([args.kiln, "compile", model, "-o", lib], check=True, stdout=subprocess.DEVNULL)
    np.savez(inputs, x=np.ones(elements, dtype=np.float32))
    input_kib = elements * 4 // 1024
    print(f"input: float32[{elements}] = {input_kib / (1 << 20):.2f} GiB")
    runs = {
        "run --inputs --outputs": ["run", lib, "--inputs", inputs, "--outputs", outputs],
        "  + --print-top 5": ["run", lib, "--inputs", inputs, "--outputs", outputs,
                              "--print-top", "5"],
        "  + --print-time --repeat 3": ["run", lib, "--inputs", inputs, "--outputs", outputs,
                                        "--print-time", "--repeat", "3"],
    }
    for label, command in runs.items():
        rss, seconds = peak_kib([args.kiln] + command)
        print(f"{label:30s} peak RSS {rss / (1 << 20):6.2f} GiB = {rss / input_kib:4.2f}x input"
              f"  ({seconds:.1f} s)")
    if not args.keep:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
