"""Runs a tutorial in docs/ literally: its ```sh blocks, in order, as one bash script from the
repository's root, stopping at the first command that fails. BUILD_DIR stands in for the
tutorial's build/release (and build/tutorial becomes BUILD_DIR/tutorial), so the test runs the
build it belongs to. Background jobs the tutorial leaves are stopped at the end.

With --python, the ```python blocks instead, in order, as one script run by this interpreter in
a fresh folder, importing BUILD_DIR's kiln package (```py blocks are shown, not run)."""
import argparse
import os
import re
import subprocess
import sys
import tempfile


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repo", required=True)
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--python", action="store_true", help="run the ```python blocks")
    parser.add_argument("doc")
    args = parser.parse_args()
    text = open(args.doc, encoding="utf-8").read()
    if args.python:
        return run_python(text, args)
    blocks = re.findall(r"^```sh\n(.*?)^```", text, flags=re.S | re.M)
    if not blocks:
        print(f"FAIL: {args.doc} has no ```sh blocks")
        return 1
    build = os.path.abspath(args.build_dir)
    script = "\n".join(blocks)
    script = script.replace("build/tutorial", os.path.join(build, "tutorial"))
    script = script.replace("$PWD/build/release", build)
    prologue = "set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\nset -x\n"
    done = subprocess.run(["bash", "-c", prologue + script], cwd=args.repo, check=False)
    if done.returncode != 0:
        print(f"FAIL: {args.doc} stopped with status {done.returncode}")
    return done.returncode


def run_python(text: str, args: argparse.Namespace) -> int:
    blocks = re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)
    if not blocks:
        print(f"FAIL: {args.doc} has no ```python blocks")
        return 1
    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.abspath(args.build_dir), "python"))
    with tempfile.TemporaryDirectory(prefix="kiln-doc-") as folder:
        script = os.path.join(folder, "doc.py")
        with open(script, "w", encoding="utf-8") as f:
            f.write("\n".join(blocks))
        done = subprocess.run([sys.executable, script], cwd=folder, env=env, check=False)
    if done.returncode != 0:
        print(f"FAIL: {args.doc}'s python stopped with status {done.returncode}")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
