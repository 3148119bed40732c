"""kiln against ONNX Runtime on whole networks, in one run: the same model file, the same input and
the same thread count for both, alternating the two engines round by round so that the machine's
noise hits both alike. Prints the median latency of each, the ratio ORT_time / kiln_time per
model and thread count with its geometric mean, kiln's compile time, and kiln's GFLOP/s against
the FMA peak measured on this machine.

Usage (after scripts/build.sh):
  /usr/bin/python3 bench/models.py [--threads 1,2] [--rounds 5] [--repeat 20] [models...]
Models: resnet18 resnet50 mobilenet_v2 squeezenet1_1 bert_encoder (all by default), exported by
tests/e2e/export_models.py with random weights from a fixed seed."""
import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np
import onnx
from onnx import shape_inference

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
E2E = os.path.join(ROOT, "tests", "e2e")
sys.path.insert(0, E2E)
from export_models import INPUTS, MODELS, model_input  # noqa: E402


def last_json(text: str) -> dict:
    return json.loads(text.strip().splitlines()[-1])


def cpu_name() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def model_flops(path: str) -> float:
    """Multiply-adds of Conv, MatMul and Gemm nodes, times two."""
    model = shape_inference.infer_shapes(onnx.load(path))
    shapes = {}
    for v in list(model.graph.value_info) + list(model.graph.input) + list(model.graph.output):
        dims = [d.dim_value for d in v.type.tensor_type.shape.dim]
        shapes[v.name] = dims
    for t in model.graph.initializer:
        shapes[t.name] = list(t.dims)
    flops = 0.0
    for node in model.graph.node:
        if node.op_type == "Conv":
            w, y = shapes.get(node.input[1]), shapes.get(node.output[0])
            if w and y:
                flops += 2.0 * math.prod(y) * math.prod(w[1:])
        elif node.op_type in ("MatMul", "Gemm"):
            a, y = shapes.get(node.input[0]), shapes.get(node.output[0])
            if a and y:
                trans_a = any(at.name == "transA" and at.i for at in node.attribute)
                k = a[-2] if trans_a else a[-1]
                flops += 2.0 * math.prod(y) * k
    return flops


def fma_peak(kiln: str, threads: list) -> dict:
    exe = os.path.join(os.path.dirname(kiln), "kiln_fma_peak")  # built next to kiln
    out = subprocess.run([exe, str(max(threads)), "0.5"], check=True, capture_output=True,
                         text=True).stdout
    return {r["threads"]: r["gflops"] for r in map(json.loads, out.strip().splitlines())}


def prepare(model: str, kiln: str, work: str) -> dict:
    subprocess.run([sys.executable, os.path.join(E2E, "export_models.py"), "--out-dir", work,
                    model], check=True, stdout=subprocess.DEVNULL)
    onnx_path = os.path.join(work, f"{model}.onnx")
    so_path = os.path.join(work, f"{model}.bench.so")
    start = time.perf_counter()
    subprocess.run([kiln, "compile", onnx_path, "-o", so_path], check=True,
                   stdout=subprocess.DEVNULL)
    compile_s = time.perf_counter() - start
    _, shape, dtype = INPUTS[model]
    name, x = model_input(model, np.random.default_rng(0))
    in_bin = os.path.join(work, f"{model}.bench.bin")
    in_npz = os.path.join(work, f"{model}.bench.npz")
    x.tofile(in_bin)
    np.savez(in_npz, **{name: x})
    return {"onnx": onnx_path, "so": so_path, "bin": in_bin, "npz": in_npz, "compile_s": compile_s,
            "dims": ",".join(map(str, shape)), "dtype": dtype, "flops": model_flops(onnx_path)}


def time_kiln(kiln: str, m: dict, threads: int, repeat: int) -> float:
    out = subprocess.run([kiln, "run", m["so"], "--inputs", m["npz"], "--repeat", str(repeat),
                          "--threads", str(threads), "--json"],
                         check=True, capture_output=True, text=True).stdout
    return last_json(out)["median_ms"]


def time_ort(m: dict, threads: int, repeat: int) -> float:
    out = subprocess.run(["node", os.path.join(E2E, "ort_run.js"), m["onnx"], m["bin"], m["dims"],
                          m["bin"] + ".ort", "--threads", str(threads), "--time", str(repeat),
                          "--dtype", m["dtype"]], check=True, capture_output=True, text=True).stdout
    return last_json(out)["median_ms"]


def geomean(values: list) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kiln", default=os.path.join(ROOT, "build", "release", "bin", "kiln"))
    parser.add_argument("--work", default=os.path.join(ROOT, "build", "bench"))
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    parser.add_argument("--rounds", type=int, default=5, help="alternations of the two engines")
    parser.add_argument("--repeat", type=int, default=20, help="timed runs per engine and round")
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("models", nargs="*", default=list(MODELS))
    args = parser.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    os.makedirs(args.work, exist_ok=True)

    peak = fma_peak(args.kiln, threads)
    print(f"CPU: {cpu_name()}; FMA peak " +
          ", ".join(f"{peak[t]:.0f} GFLOP/s at {t} thread(s)" for t in threads), flush=True)
    prepared = {m: prepare(m, args.kiln, args.work) for m in args.models}
    rows = []
    for t in threads:
        for model, m in prepared.items():
            kiln_ms, ort_ms = [], []
            for _ in range(args.rounds):
                kiln_ms.append(time_kiln(args.kiln, m, t, args.repeat))
                ort_ms.append(time_ort(m, t, args.repeat))
            k, o = statistics.median(kiln_ms), statistics.median(ort_ms)
            gflops = m["flops"] / (k / 1e3) / 1e9
            rows.append({"model": model, "threads": t, "kiln_ms": k, "ort_ms": o, "ratio": o / k,
                         "compile_s": m["compile_s"], "kiln_gflops": gflops,
                         "peak_fraction": gflops / peak[t]})
            print(f"  measured {model} at {t} thread(s): kiln {k:.2f} ms, ORT {o:.2f} ms",
                  file=sys.stderr, flush=True)

    print(f"\n{'model':15} {'thr':>3} {'kiln ms':>9} {'ORT ms':>9} {'ORT/kiln':>9} "
          f"{'kiln GFLOP/s':>13} {'% peak':>7} {'compile s':>10}")
    for r in rows:
        print(f"{r['model']:15} {r['threads']:3d} {r['kiln_ms']:9.2f} {r['ort_ms']:9.2f} "
              f"{r['ratio']:9.2f} {r['kiln_gflops']:13.1f} {100 * r['peak_fraction']:6.1f}% "
              f"{r['compile_s']:10.2f}")
    for t in threads:
        ratios = [r["ratio"] for r in rows if r["threads"] == t]
        print(f"geometric mean ORT/kiln at {t} thread(s): {geomean(ratios):.2f} "
              f"(lowest {min(ratios):.2f})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cpu": cpu_name(), "peak_gflops": peak, "rows": rows}, f, indent=2)


if __name__ == "__main__":
    main()
