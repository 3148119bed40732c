"""Compile time and single-thread latency of kiln against ONNX Runtime on the e2e networks,
measured in the same run (the machine is shared: compare ratios, not absolute times).
Usage: /usr/bin/python3 bench/compare_ort.py [--repeat N] [--threads T] [models...]"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
E2E = os.path.join(ROOT, "tests", "e2e")


def last_json(text: str) -> dict:
    return json.loads(text.strip().splitlines()[-1])


def bench(model: str, kiln: str, work: str, repeat: int, threads: int) -> dict:
    subprocess.run([sys.executable, os.path.join(E2E, "export_models.py"), "--out-dir", work,
                    model], check=True, stdout=subprocess.DEVNULL)
    onnx_path = os.path.join(work, f"{model}.onnx")
    so_path = os.path.join(work, f"{model}.so")
    t = time.perf_counter()
    subprocess.run([kiln, "compile", onnx_path, "-o", so_path], check=True,
                   stdout=subprocess.DEVNULL)
    compile_s = time.perf_counter() - t
    x = np.random.default_rng(0).standard_normal((1, 3, 224, 224), dtype=np.float32)
    in_bin = os.path.join(work, f"{model}.bench.bin")
    x.tofile(in_bin)
    ort = last_json(subprocess.run(
        ["node", os.path.join(E2E, "ort_run.js"), onnx_path, in_bin, "1,3,224,224",
         in_bin + ".out", "--threads", str(threads), "--time", str(repeat)],
        check=True, capture_output=True, text=True).stdout)
    kiln_stats = last_json(subprocess.run(
        [kiln, "run", so_path, "--repeat", str(repeat), "--threads", str(threads), "--json"],
        check=True, capture_output=True, text=True).stdout)
    return {"model": model, "kiln_compile_s": compile_s, "ort_create_s": ort["create_ms"] / 1e3,
            "kiln_median_ms": kiln_stats["median_ms"], "ort_median_ms": ort["median_ms"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--kiln", default=os.path.join(ROOT, "build", "release", "bin", "kiln"))
    parser.add_argument("--work", default=os.path.join(ROOT, "build", "bench"))
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("models", nargs="*",
                        default=["resnet18", "resnet50", "mobilenet_v2", "squeezenet1_1"])
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    print(f"{'model':15} {'kiln compile s':>15} {'ort create s':>13} {'kiln ms':>9} "
          f"{'ort ms':>9} {'kiln/ort':>9}")
    for model in args.models:
        r = bench(model, args.kiln, args.work, args.repeat, args.threads)
        print(f"{model:15} {r['kiln_compile_s']:15.2f} {r['ort_create_s']:13.2f} "
              f"{r['kiln_median_ms']:9.2f} {r['ort_median_ms']:9.2f} "
              f"{r['kiln_median_ms'] / r['ort_median_ms']:9.2f}", flush=True)


if __name__ == "__main__":
    main()
