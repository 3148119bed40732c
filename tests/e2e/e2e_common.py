"""What the end-to-end checks share: their command line and how they run a command."""
import argparse
import os
import subprocess

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def parse_args(doc: str, rtol_help: str, extra=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=doc)
    if extra:
        extra(parser)
    parser.add_argument("--kiln", required=True, help="the kiln executable")
    parser.add_argument("--work", required=True, help="folder for models and outputs")
    parser.add_argument("--rtol", type=float, default=1e-4, help=rtol_help)
    parser.add_argument("model")
    return parser.parse_args()


def run(cmd, capture=False) -> str:
    """Runs CMD (echoed first), failing on a non-zero exit; returns its output when CAPTURE."""
    print("+", " ".join(cmd), flush=True)
    done = subprocess.run(cmd, check=True, capture_output=capture, text=True)
    if capture:
        print(done.stdout, end="", flush=True)
    return done.stdout if capture else ""


def ort_output(onnx_path: str, x: np.ndarray, shape, work: str, stem: str) -> np.ndarray:
    """ONNX Runtime's output of ONNX_PATH on X, reshaped to SHAPE."""
    in_bin = os.path.join(work, f"{stem}.in.bin")
    ref_bin = os.path.join(work, f"{stem}.ort.bin")
    x.tofile(in_bin)
    run(["node", os.path.join(HERE, "ort_run.js"), onnx_path, in_bin,
         ",".join(str(d) for d in x.shape), ref_bin, "--dtype", str(x.dtype)])
    return np.fromfile(ref_bin, dtype=np.float32).reshape(shape)


def agrees(label: str, got: np.ndarray, ref: np.ndarray, rtol: float) -> bool:
    """Whether GOT matches REF within RTOL of max |REF| (finite values only); prints the figures."""
    scale = float(np.max(np.abs(ref)))
    err = float(np.max(np.abs(got.astype(np.float64) - ref)))
    print(f"{label}: max |kiln - ort| = {err:.3g}, max |ort| = {scale:.3g}, "
          f"ratio = {err / scale:.3g} (allowed {rtol:g})")
    if not np.isfinite(got).all():
        print("FAIL: kiln produced non-finite values")
        return False
    if err > rtol * scale:
        print("FAIL: outputs differ")
        return False
    return True
