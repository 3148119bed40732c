"""A network cross-compiled for aarch64 and run on the emulated aarch64 board through a session
(`kiln run --device qemu-aarch64`: a fresh kiln-rpc-server under qemu-aarch64), against the same
network compiled for and run on this machine. The outputs must agree within --rtol of their
largest magnitude, and the two runs must report in the same form."""
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from e2e_common import parse_args, run  # noqa: E402
from export_models import model_input  # noqa: E402

AARCH64 = "llvm -mtriple=aarch64-linux-gnu"


def main() -> int:
    args = parse_args(__doc__, "allowed |board - host| relative to max |host|")
    os.makedirs(args.work, exist_ok=True)
    run([sys.executable, os.path.join(HERE, "export_models.py"), "--out-dir", args.work,
         args.model])
    onnx_path = os.path.join(args.work, f"{args.model}.onnx")
    host_so = os.path.join(args.work, f"{args.model}.host.so")
    board_so = os.path.join(args.work, f"{args.model}.aarch64.so")
    run([args.kiln, "compile", onnx_path, "-o", host_so])
    run([args.kiln, "compile", onnx_path, "-o", board_so, "--target", AARCH64])
    if "aarch64" not in run([args.kiln, "inspect", board_so], capture=True):
        print("FAIL: kiln inspect does not show the aarch64 target")
        return 1

    name, x = model_input(args.model, np.random.default_rng(42))
    in_npz = os.path.join(args.work, f"{args.model}.in.npz")
    np.savez(in_npz, **{name: x})
    reports, outputs = {}, {}
    for where, so, place in [("host", host_so, []), ("board", board_so,
                                                     ["--device", "qemu-aarch64"])]:
        out = os.path.join(args.work, f"{args.model}.{where}.npz")
        reports[where] = run([args.kiln, "run", so, "--inputs", in_npz, "--outputs", out,
                              "--print-time", "--json", "--repeat", "2"] + place, capture=True)
        outputs[where] = np.load(out)

    for key in outputs["host"].files:
        host, board = outputs["host"][key], outputs["board"][key]
        if host.shape != board.shape:
            print(f"FAIL: output '{key}' is {board.shape} on the board, {host.shape} here")
            return 1
        scale = float(np.max(np.abs(host)))
        err = float(np.max(np.abs(board.astype(np.float64) - host)))
        print(f"{args.model} '{key}': max |board - host| = {err:.3g}, max |host| = {scale:.3g}, "
              f"ratio {err / scale:.3g} (allowed {args.rtol:g})")
        if not np.isfinite(board).all() or err > args.rtol * scale:
            print("FAIL: the board's outputs differ from this machine's")
            return 1
    timing = {w: json.loads(r.strip().splitlines()[-1]) for w, r in reports.items()}
    if timing["host"].keys() != timing["board"].keys():
        print(f"FAIL: the reports differ in form: {timing}")
        return 1
    print(f"{args.model}: median {timing['board']['median_ms']:.1f} ms on the emulated board, "
          f"{timing['host']['median_ms']:.1f} ms here")
    return 0


if __name__ == "__main__":
    sys.exit(main())
