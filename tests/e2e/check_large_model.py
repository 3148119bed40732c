"""End-to-end check of a model over protobuf's 2 GB limit: a MatMul whose 2.0 GiB weight lives in
an external data file (location, offset, length), written sparse so it costs the disk only the few
rows that hold values. `kiln compile --params external` must import it without copying it into
the heap, write the weights file as it hashes it, and `kiln run --params` must map that file and
give the right product, at a peak resident size near the weights' own size. Compiling it with the
weights embedded is refused with the way out, since a library's code reaches its data within 2 GiB.

Peak resident sizes are each process's own (getrusage of a child that runs only it)."""
import argparse
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

K, N = 16384, 33024  # 2 GiB and 4 MiB of float32
ROWS = (0, 7, K // 2, K - 1)  # the rows that hold values; the rest is a hole of zeros


def export(work: str):
    """Writes big.onnx and its sparse weights.bin; returns the input and the expected output."""
    nbytes = K * N * 4
    rng = np.random.default_rng(1)
    rows = {r: rng.standard_normal(N).astype(np.float32) for r in ROWS}
    with open(os.path.join(work, "weights.bin"), "wb") as f:
        f.truncate(nbytes)
        for r, values in rows.items():
            f.seek(r * N * 4)
            f.write(values.tobytes())
    w = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[K, N],
                    data_location=TensorProto.EXTERNAL)
    for key, value in (("location", "weights.bin"), ("offset", "0"), ("length", str(nbytes))):
        entry = w.external_data.add()
        entry.key, entry.value = key, value
    graph = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "big",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, K])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, N])],
                              [w])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
              os.path.join(work, "big.onnx"))
    x = np.zeros((1, K), np.float32)
    for i, r in enumerate(ROWS):
        x[0, r] = i + 1.0
    want = sum(x[0, r] * rows[r] for r in ROWS)[None, :]
    return x, want, nbytes


def peak_run(cmd):
    """Runs CMD in a child of its own; returns (exit status, output, its peak resident bytes)."""
    probe = ("import resource, subprocess, sys\n"
             "r = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
             "print(r.stdout + r.stderr)\n"
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
             "sys.exit(r.returncode)\n")
    r = subprocess.run([sys.executable, "-c", probe] + cmd, capture_output=True, text=True)
    lines = r.stdout.rstrip().split("\n")
    return r.returncode, "\n".join(lines[:-1]), int(lines[-1]) * 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--kiln", required=True)
    parser.add_argument("--work", required=True)
    a = parser.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    try:
        return check(a.kiln, a.work)
    finally:
        shutil.rmtree(a.work, ignore_errors=True)  # gigabytes


def check(kiln: str, work: str) -> int:
    x, want, nbytes = export(work)
    np.savez(os.path.join(work, "x.npz"), x=x)
    onnx_path, so = os.path.join(work, "big.onnx"), os.path.join(work, "big.so")
    gib = nbytes / 2**30
    ok = True

    status, out, compile_peak = peak_run([kiln, "compile", onnx_path, "-o", so,
                                          "--params", "external"])
    if status != 0:
        print(f"FAIL: kiln compile exited {status}:\n{out}")
        return 1
    params = so + ".params"
    print(f"weights {gib:.2f} GiB; compile peak resident {compile_peak / 2**30:.2f} GiB "
          f"({compile_peak / nbytes:.2f}x the weights); params file "
          f"{os.path.getsize(params) / 2**30:.2f} GiB")
    # The source stays a mapping of the data file and the packed copy is the one heap copy; no
    # serialised third copy of the weights.
    if compile_peak > 2.3 * nbytes:
        print("FAIL: compiling held the weights more than twice (mapped source + packed copy)")
        ok = False

    y = os.path.join(work, "y.npz")
    status, out, run_peak = peak_run([kiln, "run", so, "--params", params, "--inputs",
                                      os.path.join(work, "x.npz"), "--outputs", y,
                                      "--repeat", "1"])
    if status != 0:
        print(f"FAIL: kiln run exited {status}:\n{out}")
        return 1
    print(f"run peak resident {run_peak / 2**30:.2f} GiB ({run_peak / nbytes:.2f}x the weights)")
    if run_peak > 1.15 * nbytes:
        print("FAIL: running held more than the mapped weights and a little working memory")
        ok = False
    got = np.load(y)["y"]
    err = float(np.abs(got - want).max() / np.abs(want).max())
    print(f"y {got.shape}: max relative error {err:.2e}")
    if got.shape != want.shape or not err < 1e-5:
        print("FAIL: the product differs from numpy's")
        ok = False

    status, out, _ = peak_run([kiln, "compile", onnx_path, "-o", os.path.join(work, "emb.so")])
    if status == 0 or "compile with --params external" not in out:
        print(f"FAIL: embedding 2 GiB of weights should be refused with the way out; got "
              f"status {status}:\n{out}")
        ok = False
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
