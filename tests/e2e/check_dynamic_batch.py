"""End-to-end check of a dynamic batch on a convolutional network: export it with its batch dim
named 'batch' (the way models served with dynamic batching are exported), compile one library with
`kiln compile --dim-bounds "1<=batch<=B"`, run it with `kiln run` at several batch sizes within the
bound (growing and shrinking) and ONNX Runtime at each, and compare; a batch beyond the bound must
be refused with a message naming the dim, the value and the bounds."""
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from e2e_common import agrees, ort_output, parse_args, run  # noqa: E402
from export_models import export  # noqa: E402

BOUND = 4


def kiln_output(args, so_path: str, x: np.ndarray, stem: str) -> np.ndarray:
    in_npz = os.path.join(args.work, f"{stem}.in.npz")
    out_npz = os.path.join(args.work, f"{stem}.out.npz")
    np.savez(in_npz, input=x)
    run([args.kiln, "run", so_path, "--inputs", in_npz, "--outputs", out_npz])
    return np.load(out_npz)["output"]


def main() -> int:
    args = parse_args(__doc__, "allowed |kiln - ort| relative to max |ort|")
    os.makedirs(args.work, exist_ok=True)
    onnx_path = export(args.model, args.work, free_batch=True)
    so_path = os.path.join(args.work, f"{args.model}.batch.so")
    run([args.kiln, "compile", onnx_path, "-o", so_path, "--dim-bounds", f"1<=batch<={BOUND}"])

    rng = np.random.default_rng(7)
    for batch in (3, 1, BOUND, 2):
        x = rng.standard_normal((batch, 3, 224, 224), dtype=np.float32)
        stem = f"{args.model}.batch{batch}"
        got = kiln_output(args, so_path, x, stem)
        ref = ort_output(onnx_path, x, got.shape, args.work, stem)
        if got.shape[0] != batch or not agrees(f"{args.model} at batch {batch}", got, ref,
                                               args.rtol):
            return 1
        # The samples' outputs must differ well beyond the tolerance, or a kernel that mixed up
        # samples would pass.
        apart = min((float(np.max(np.abs(ref[i] - ref[0]))) for i in range(1, batch)),
                    default=np.inf)
        if apart < 100 * args.rtol * float(np.max(np.abs(ref))):
            print(f"FAIL: the samples' outputs differ by only {apart:.3g}; the check cannot tell "
                  "them apart")
            return 1

    x = rng.standard_normal((BOUND + 1, 3, 224, 224), dtype=np.float32)
    in_npz = os.path.join(args.work, f"{args.model}.over.in.npz")
    np.savez(in_npz, input=x)
    over = subprocess.run([args.kiln, "run", so_path, "--inputs", in_npz], capture_output=True,
                          text=True, check=False)
    wanted = ["'batch'", str(BOUND + 1), f"1<=batch<={BOUND}"]
    if over.returncode == 0 or not all(w in over.stderr for w in wanted):
        print(f"FAIL: batch {BOUND + 1} should be refused naming {wanted}; got exit "
              f"{over.returncode}: {over.stderr}")
        return 1
    print(f"batch {BOUND + 1} is refused: {over.stderr.strip()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
