"""An offload backend against kiln's own code generator and ONNX Runtime on whole networks, in one
run: each model is compiled twice (--target llvm, and --target BACKEND,llvm with the extension
loaded), and the two artifacts and ONNX Runtime are timed round by round, alternating, at the same
thread count (OMP_NUM_THREADS too, for backends threaded with OpenMP). Prints the median latencies,
the ratios llvm/backend and ORT/backend, and how many partitions the backend took.

Usage (after scripts/build.sh):
  /usr/bin/python3 bench/offload.py [--backend dnnl] [--extension PATH] [--threads 1,2]
                                    [--rounds 3] [--repeat 10] [models...]"""
import argparse
import os
import re
import statistics
import subprocess
import sys

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH)
from models import ROOT, cpu_name, last_json, prepare, time_ort  # noqa: E402


def time_run(kiln: str, so: str, npz: str, ext: list, threads: int, repeat: int) -> float:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    out = subprocess.run([kiln, "run", so, "--inputs", npz, "--repeat", str(repeat), "--threads",
                          str(threads), "--json", *ext], check=True, capture_output=True,
                         text=True, env=env).stdout
    return last_json(out)["median_ms"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    build = os.path.join(ROOT, "build", "release")
    parser.add_argument("--kiln", default=os.path.join(build, "bin", "kiln"))
    parser.add_argument("--backend", default="dnnl")
    parser.add_argument("--extension", help="default: build/release/extensions/libkiln_BACKEND.so")
    parser.add_argument("--work", default=os.path.join(ROOT, "build", "bench"))
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("models", nargs="*", default=["resnet50"])
    args = parser.parse_args()
    extension = args.extension or os.path.join(build, "extensions", f"libkiln_{args.backend}.so")
    ext = ["--extension", extension]
    os.makedirs(args.work, exist_ok=True)
    print(f"CPU: {cpu_name()}", flush=True)
    rows = []
    for model in args.models:
        m = prepare(model, args.kiln, args.work)
        offloaded = os.path.join(args.work, f"{model}.{args.backend}.so")
        dump = subprocess.run([args.kiln, "compile", m["onnx"], "-o", offloaded, "--target",
                               f"{args.backend},llvm", "--dump-offloads", *ext], check=True,
                              capture_output=True, text=True).stdout
        found = re.search(r"^(\d+) partitions? \((\d+) nodes\)", dump, flags=re.M)
        partitions = f"{found.group(1)} ({found.group(2)} nodes)" if found else "0"
        for t in [int(x) for x in args.threads.split(",")]:
            llvm, backend, ort = [], [], []
            for _ in range(args.rounds):
                llvm.append(time_run(args.kiln, m["so"], m["npz"], [], t, args.repeat))
                backend.append(time_run(args.kiln, offloaded, m["npz"], ext, t, args.repeat))
                ort.append(time_ort(m, t, args.repeat))
            rows.append((model, t, statistics.median(llvm), statistics.median(backend),
                         statistics.median(ort), partitions))
    print(f"\n{'model':12} {'thr':>3} {'llvm ms':>9} {args.backend + ' ms':>10} {'ORT ms':>9} "
          f"{'llvm/' + args.backend:>11} {'ORT/' + args.backend:>10}  partitions")
    for model, t, lv, bk, ort, parts in rows:
        print(f"{model:12} {t:3d} {lv:9.2f} {bk:10.2f} {ort:9.2f} {lv / bk:11.2f} {ort / bk:10.2f}"
              f"  {parts}")


if __name__ == "__main__":
    main()
