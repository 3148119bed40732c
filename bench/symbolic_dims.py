"""What one library for every sequence length costs: a transformer feed-forward block (x W1 + b1,
GELU, W2 + b2, plus x) compiled once with `--dim-bounds "seq<=1024"` (kernels that read the
length at run time, memory planned at the bound) and once per length with every shape static.
Both are timed alternately in the same run at the same thread count, at the lengths of a decode
step (1) and of prompts (16, 128, 512); the ratio symbolic_time / static_time is what the single
artifact costs.

Usage (after scripts/build.sh):
  /usr/bin/python3 bench/symbolic_dims.py [--threads 1,2] [--rounds 5] [--lengths 1,16,128,512]"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from run_time_shapes import cpu_name, median_times

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
D_MODEL, D_FF = 768, 3072


def build() -> onnx.ModelProto:
    rng = np.random.default_rng(0)

    def weight(name, *shape):
        return numpy_helper.from_array(rng.normal(0, 0.02, shape).astype(np.float32), name)

    inits = [weight("w1", D_MODEL, D_FF), weight("b1", D_FF), weight("w2", D_FF, D_MODEL),
             weight("b2", D_MODEL),
             numpy_helper.from_array(np.array(2 ** 0.5, np.float32), "sqrt2"),
             numpy_helper.from_array(np.array(1, np.float32), "one"),
             numpy_helper.from_array(np.array(0.5, np.float32), "half")]
    n = helper.make_node
    nodes = [n("MatMul", ["x", "w1"], ["h"]), n("Add", ["h", "b1"], ["hb"]),
             n("Div", ["hb", "sqrt2"], ["hs"]), n("Erf", ["hs"], ["e"]),
             n("Add", ["e", "one"], ["e1"]), n("Mul", ["hb", "e1"], ["g0"]),
             n("Mul", ["g0", "half"], ["g"]),
             n("MatMul", ["g", "w2"], ["o"]), n("Add", ["o", "b2"], ["ob"]),
             n("Add", ["ob", "x"], ["y"])]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, "seq", D_MODEL])]
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph(nodes, "ffn", inputs, [out], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def compile_model(kiln: str, onnx_path: str, so: str, *flags: str) -> None:
    subprocess.run([kiln, "compile", onnx_path, "-o", so, *flags], check=True,
                   stdout=subprocess.DEVNULL)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--lengths", default="1,16,128,512")
    ap.add_argument("--kiln", default=os.path.join(ROOT, "build", "release", "bin", "kiln"))
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="kiln-symbolic-dims-")
    onnx_path = os.path.join(work, "ffn.onnx")
    onnx.save(build(), onnx_path)
    symbolic = os.path.join(work, "ffn_symbolic.so")
    compile_model(args.kiln, onnx_path, symbolic, "--dim-bounds", "seq<=1024")
    print(f"CPU: {cpu_name()}")
    for seq in [int(s) for s in args.lengths.split(",")]:
        static = os.path.join(work, f"ffn_{seq}.so")
        compile_model(args.kiln, onnx_path, static, "--input-shapes", f"x:[1,{seq},{D_MODEL}]")
        npz = os.path.join(work, f"x_{seq}.npz")
        np.savez(npz, x=np.random.default_rng(seq).uniform(-1, 1, (1, seq, D_MODEL))
                 .astype(np.float32))
        repeat = max(10, 2000 // seq)
        runs = {"static": (static, npz), "symbolic": (symbolic, npz)}
        for threads in [int(t) for t in args.threads.split(",")]:
            m = median_times(args.kiln, runs, threads, args.rounds, repeat)
            s, d = m["static"], m["symbolic"]
            print(f"seq={seq:4d} threads={threads}: static {s:.3f} ms, symbolic {d:.3f} ms, "
                  f"symbolic/static {d / s:.3f}")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
