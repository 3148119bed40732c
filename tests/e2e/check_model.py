"""End-to-end check of one network: export it, compile it with `kiln compile`, run it with
`kiln run` and with ONNX Runtime on the same random input, and compare the outputs. The network is
compiled for the graph and the AOT executor, which must give identical outputs."""
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from e2e_common import agrees, ort_output, parse_args, run  # noqa: E402
from export_models import model_input  # noqa: E402


# Models with control flow, which the aot executor refuses.
CONTROL_FLOW = {"scripted_recurrent"}


def main() -> int:
    args = parse_args(__doc__, "allowed |kiln - ort| relative to max |ort|")
    os.makedirs(args.work, exist_ok=True)

    run([sys.executable, os.path.join(HERE, "export_models.py"), "--out-dir", args.work,
         args.model])
    onnx_path = os.path.join(args.work, f"{args.model}.onnx")
    so_path = os.path.join(args.work, f"{args.model}.so")
    run([args.kiln, "compile", onnx_path, "-o", so_path])

    rng = np.random.default_rng(42)
    name, x = model_input(args.model, rng)
    in_npz = os.path.join(args.work, f"{args.model}.in.npz")
    out_npz = os.path.join(args.work, f"{args.model}.out.npz")
    np.savez(in_npz, **{name: x})
    run([args.kiln, "run", so_path, "--inputs", in_npz, "--outputs", out_npz])
    got = np.load(out_npz)["output"]

    aot_so = os.path.join(args.work, f"{args.model}.aot.so")
    aot_npz = os.path.join(args.work, f"{args.model}.aot.out.npz")
    aot = subprocess.run([args.kiln, "compile", onnx_path, "-o", aot_so, "--executor", "aot"],
                         capture_output=True, text=True, check=False)
    if args.model in CONTROL_FLOW:  # its Loop runs in the runtime, which only the graph executor has
        if aot.returncode == 0 or "--executor aot cannot run Loop" not in aot.stderr:
            print(f"FAIL: --executor aot should refuse the Loop, got: {aot.stderr}")
            return 1
        print(f"{args.model}: --executor aot refuses its Loop, as it should")
    else:
        if aot.returncode != 0:
            print(f"FAIL: kiln compile --executor aot: {aot.stderr}")
            return 1
        run([args.kiln, "run", aot_so, "--inputs", in_npz, "--outputs", aot_npz])
        if not np.array_equal(np.load(aot_npz)["output"], got):
            print("FAIL: the aot executor's outputs differ from the graph executor's")
            return 1
        print(f"{args.model}: aot and graph executors give identical outputs")

    # Every compiled node against the reference implementation of its operators.
    report = subprocess.run([args.kiln, "compare", onnx_path, "--library", so_path, "--inputs",
                             in_npz, "--json"], capture_output=True, text=True, check=False)
    if report.returncode != 0:
        print(f"FAIL: kiln compare exited with {report.returncode}\n{report.stdout}{report.stderr}")
        return 1
    summary = json.loads(report.stdout)
    if not summary["agree"] or summary["compared"] < summary["kernels"] // 2:
        print(f"FAIL: kiln compare: {report.stdout}")
        return 1
    print(f"{args.model}: kiln compare: all {summary['compared']} compared node outputs of "
          f"{summary['kernels']} agree with the reference")

    ref = ort_output(onnx_path, x, got.shape, args.work, args.model)
    if not agrees(args.model, got, ref, args.rtol):
        return 1
    if got.ndim == 2:  # classifier logits: the top classes must agree too
        top_k, top_r = np.argsort(-got.ravel())[:5], np.argsort(-ref.ravel())[:5]
        print(f"top-5 kiln {top_k.tolist()} ort {top_r.tolist()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
