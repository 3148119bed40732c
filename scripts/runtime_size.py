#!/usr/bin/env python3
"""The stripped size of each part of the runtime, against src/runtime/size_budget.json.

    runtime_size.py BUILD_DIR [--write]

Strips a copy of every runtime shared library of BUILD_DIR/lib (x86_64) and, when the release
build made the aarch64 cross build, of BUILD_DIR/aarch64/lib, and prints one line per part:
`ARCH PART: N bytes stripped (budget B)`. Exits 1 when a part is over its budget or has none: a
part that grows past its budget fails CI until the budget is raised in the same commit (and the
commit says why). --write records the sizes measured now, rounded up to the next 4 KiB, as the
budgets.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

BUDGET = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "runtime",
                      "size_budget.json")
PARTS = ["libkiln_runtime.so", "libkiln_runtime_ops.so", "libkiln_runtime_debug.so",
         "libkiln_generate.so", "libkiln_rpc.so"]
STRIP = {"x86_64": "strip", "aarch64": "aarch64-linux-gnu-strip"}


def stripped_size(path, strip):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, os.path.basename(path))
        subprocess.run([strip, "-o", out, path], check=True)
        return os.path.getsize(out)


def measure(build):
    sizes = {}
    for arch, folder in [("x86_64", os.path.join(build, "lib")),
                         ("aarch64", os.path.join(build, "aarch64", "lib"))]:
        if arch == "aarch64" and not os.path.isdir(folder):
            continue  # no cross build in this build folder (runtime-only, sanitizers)
        if shutil.which(STRIP[arch]) is None:
            sys.exit(f"runtime_size: {STRIP[arch]} is not installed; it strips the {arch} parts")
        for part in PARTS:
            path = os.path.join(folder, part)
            if not os.path.exists(path):
                sys.exit(f"runtime_size: {path} is missing; expected every part of the runtime")
            sizes.setdefault(arch, {})[part] = stripped_size(path, STRIP[arch])
    return sizes


def main():
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and sys.argv[2] != "--write"):
        sys.exit(__doc__)
    sizes = measure(sys.argv[1])
    if len(sys.argv) == 3:
        budget = {arch: {p: (n + 4095) // 4096 * 4096 for p, n in parts.items()}
                  for arch, parts in sizes.items()}
        with open(BUDGET, "w", encoding="utf-8") as f:
            json.dump(budget, f, indent=2, sort_keys=True)
            f.write("\n")
        print(f"wrote {os.path.normpath(BUDGET)}")
        return 0
    with open(BUDGET, encoding="utf-8") as f:
        budget = json.load(f)
    over = 0
    for arch, parts in sizes.items():
        for part, n in parts.items():
            limit = budget.get(arch, {}).get(part)
            print(f"{arch} {part}: {n} bytes stripped (budget {limit})")
            if limit is None or n > limit:
                over += 1
                print(f"  OVER: {part} for {arch} is {n} bytes stripped; its budget in "
                      f"src/runtime/size_budget.json is {limit}. Make it smaller, or raise the "
                      f"budget in the same commit and say why.")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
