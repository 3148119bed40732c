"""What shapes known only at run time cost: each model is compiled twice, once with its shape
input as a constant (every shape static, one static memory plan, compiled and fused kernels) and
once with the shape as a graph input (the nodes it reaches run in the runtime, their outputs
allocated when their shapes are known). Both are timed alternately in the same run at the same
thread count; the ratio dynamic_time / static_time is the cost of the run-time shapes.

Models (a 3x3 convolution of 64 channels at 56x56 with ReLU, then):
  reshape  -- Reshape(y, shape): the runtime copies the tensor under its new shape.
  tail     -- Reshape(y, shape), then * 2, + 1, Sigmoid: the elementwise tail runs in the
              runtime, op by op, instead of fused into the convolution's epilogue.

Usage (after scripts/build.sh):
  /usr/bin/python3 bench/run_time_shapes.py [--threads 1,2] [--rounds 5] [--repeat 20]"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHAPE = np.array([1, 64, 56 * 56], dtype=np.int64)


def build(tail: bool, dynamic: bool) -> onnx.ModelProto:
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.uniform(-0.1, 0.1, (64, 64, 3, 3)).astype(np.float32), "w")
    inits = [w]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64, 56, 56])]
    if dynamic:
        inputs.append(helper.make_tensor_value_info("shape", TensorProto.INT64, [3]))
    else:
        inits.append(numpy_helper.from_array(SHAPE, "shape"))
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("Reshape", ["r", "shape"], ["y" if not tail else "s"])]
    if tail:
        inits += [numpy_helper.from_array(np.array(2, np.float32), "two"),
                  numpy_helper.from_array(np.array(1, np.float32), "one")]
        nodes += [helper.make_node("Mul", ["s", "two"], ["m"]),
                  helper.make_node("Add", ["m", "one"], ["a"]),
                  helper.make_node("Sigmoid", ["a"], ["y"])]
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph(nodes, "g", inputs, [out], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def time_kiln(kiln: str, so: str, npz: str, threads: int, repeat: int) -> float:
    out = subprocess.run([kiln, "run", so, "--inputs", npz, "--repeat", str(repeat),
                          "--threads", str(threads), "--json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])["median_ms"]


def median_times(kiln: str, runs: dict, threads: int, rounds: int, repeat: int) -> dict:
    """The median time of each run {kind: (library, inputs)}, the runs alternating round by
    round."""
    times = {kind: [] for kind in runs}
    for _ in range(rounds):
        for kind, (so, npz) in runs.items():
            times[kind].append(time_kiln(kiln, so, npz, threads, repeat))
    return {kind: statistics.median(t) for kind, t in times.items()}


def cpu_name() -> str:
    for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
        if line.startswith("Model name:"):
            return line.split(":", 1)[1].strip()
    return "unknown CPU"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--kiln", default=os.path.join(ROOT, "build", "release", "bin", "kiln"))
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="kiln-run-time-shapes-")
    x = np.random.default_rng(1).uniform(-1, 1, (1, 64, 56, 56)).astype(np.float32)
    print(f"CPU: {cpu_name()}")
    for model in ("reshape", "tail"):
        paths = {}
        for dynamic in (False, True):
            kind = "dynamic" if dynamic else "static"
            onnx_path = os.path.join(work, f"{model}_{kind}.onnx")
            onnx.save(build(model == "tail", dynamic), onnx_path)
            so = os.path.join(work, f"{model}_{kind}.so")
            subprocess.run([args.kiln, "compile", onnx_path, "-o", so], check=True,
                           stdout=subprocess.DEVNULL)
            npz = os.path.join(work, f"{model}_{kind}.npz")
            feeds = {"x": x, "shape": SHAPE} if dynamic else {"x": x}
            np.savez(npz, **feeds)
            paths[kind] = (so, npz)
        for threads in [int(t) for t in args.threads.split(",")]:
            m = median_times(args.kiln, paths, threads, args.rounds, args.repeat)
            s, d = m["static"], m["dynamic"]
            print(f"{model:8s} threads={threads}: static {s:.3f} ms, dynamic {d:.3f} ms, "
                  f"dynamic/static {d / s:.2f} (+{d - s:.3f} ms)")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
