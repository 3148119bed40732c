"""What the end-to-end checks share: their command line and how they run a command."""
import argparse
import subprocess


def parse_args(doc: str, rtol_help: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=doc)
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
