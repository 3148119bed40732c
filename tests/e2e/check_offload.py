"""End-to-end check of an offload backend: export a network, compile it with an extension loaded
for --target "BACKEND,llvm" (the backend must take over some nodes, listed by --dump-offloads)
and for --target llvm (it must take over none), run both with `kiln run`, and compare both with
ONNX Runtime on the same input. `kiln inspect` must list the backend the first artifact needs."""
import os
import re
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from e2e_common import agrees, ort_output, parse_args, run  # noqa: E402
from export_models import model_input  # noqa: E402


def extra_args(parser) -> None:
    parser.add_argument("--extension", required=True, help="the extension library")
    parser.add_argument("--backend", required=True, help="the backend it adds")


def main() -> int:
    args = parse_args(__doc__, "allowed |kiln - ort| relative to max |ort|", extra_args)
    os.makedirs(args.work, exist_ok=True)
    run([sys.executable, os.path.join(HERE, "export_models.py"), "--out-dir", args.work,
         args.model])
    onnx_path = os.path.join(args.work, f"{args.model}.onnx")
    stem = os.path.join(args.work, f"{args.model}.{args.backend}")
    ext = ["--extension", args.extension]

    dump = run([args.kiln, "compile", onnx_path, "-o", f"{stem}.so", "--target",
                f"{args.backend},llvm", "--dump-offloads", *ext], capture=True)
    found = re.search(r"^(\d+) partitions? \((\d+) nodes\) offloaded", dump, flags=re.M)
    if not found or f": {args.backend} [" not in dump:
        print(f"FAIL: --dump-offloads shows no partition for {args.backend}")
        return 1
    partitions = int(found.group(1))
    dump = run([args.kiln, "compile", onnx_path, "-o", f"{stem}.llvm.so", "--target", "llvm",
                "--dump-offloads", *ext], capture=True)
    if "offloads: none" not in dump:
        print("FAIL: --target llvm offloaded nodes although it names no backend")
        return 1
    inspect = run([args.kiln, "inspect", f"{stem}.so"], capture=True)
    if f"backends:  {args.backend} ({partitions} partition" not in inspect:
        print(f"FAIL: kiln inspect does not list {args.backend} with {partitions} partitions")
        return 1
    missing = subprocess.run([args.kiln, "run", f"{stem}.so"],
                             capture_output=True, text=True, check=False,
                             env={k: v for k, v in os.environ.items()
                                  if k != "KILN_EXTENSION_PATH"})
    if missing.returncode == 0 or f"backend '{args.backend}' is needed" not in missing.stderr:
        print(f"FAIL: running without the extension did not name the backend:\n{missing.stderr}")
        return 1

    name, x = model_input(args.model, np.random.default_rng(7))
    in_npz = f"{stem}.in.npz"
    np.savez(in_npz, **{name: x})
    outputs = {}
    for label, library in ((args.backend, f"{stem}.so"), ("llvm", f"{stem}.llvm.so")):
        out_npz = f"{stem}.{label}.out.npz"
        run([args.kiln, "run", library, "--inputs", in_npz, "--outputs", out_npz, *ext])
        outputs[label] = np.load(out_npz)["output"]
    ref = ort_output(onnx_path, x, outputs["llvm"].shape, args.work, f"{args.model}.offload")
    ok = all(agrees(f"{args.model} --target {label}", got, ref, args.rtol)
             for label, got in outputs.items())
    print(f"{args.model}: {partitions} partitions offloaded to {args.backend}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
