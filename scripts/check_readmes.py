#!/usr/bin/env python3
"""Every source file is named in the README of its folder (or, for a folder without one, of the
nearest folder above it that has one), so each folder's README stays a true map of it.

    check_readmes.py [REPO]

A file counts as named when its README has its name (`graph_plan.cc`) or its stem with another
of its extensions (a header beside its `.cc`) or a family of them (`graph_plan.{h,cc}`,
`graph_plan.h/.cc`, `op_util.*`); a package's `__init__.py` when the README names the package. Prints each file that is
not named, with the README it should be in; exits 1 when there is one.
"""
import os
import re
import sys

ROOTS = ["src", "tools", "extensions", "python/src", "python/kiln", "bench", "examples"]
SOURCES = (".cc", ".h", ".c", ".py", ".js")
SKIP = {"__pycache__", "build", "node_modules", "corpus"}


def named(path, readme):
    name = os.path.basename(path)
    if name == "__init__.py":
        name = os.path.basename(os.path.dirname(path))
        return re.search(r"\b" + re.escape(name) + r"\b", readme) is not None
    stem = name.rsplit(".", 1)[0]
    return re.search(r"(?<![\w/])" + re.escape(stem) + r"\.(cc|h|c|py|js|\{|\*)", readme) is not None


def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    missing = []
    for root in ROOTS:
        for folder, dirs, files in os.walk(os.path.join(repo, root)):
            dirs[:] = [d for d in dirs if d not in SKIP]
            sources = sorted(f for f in files if f.endswith(SOURCES))
            if not sources:
                continue
            up = folder
            while not os.path.exists(os.path.join(up, "README.md")) and up != repo:
                up = os.path.dirname(up)
            readme_path = os.path.join(up, "README.md")
            text = open(readme_path, encoding="utf-8").read() if os.path.exists(readme_path) else ""
            for f in sources:
                if not named(os.path.join(folder, f), text):
                    missing.append((os.path.relpath(os.path.join(folder, f), repo),
                                    os.path.relpath(readme_path, repo)))
    for path, readme in missing:
        print(f"{path} is not named in {readme}")
    print(f"{len(missing)} source files not named in their folder's README")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
