#!/usr/bin/env python3
"""Prints the translation units clang-tidy should check, one per line, relative to the root.

    lint_sources.py ROOT BUILD_DIR all
    lint_sources.py ROOT BUILD_DIR changed [BASE]

`all`: every project file of BUILD_DIR/compile_commands.json (under src, tools, tests, bench,
python). `changed`: those that differ from BASE (uncommitted changes included), and for each
changed header one file that includes it (from ninja's dependency log), through which clang-tidy
checks the header. BASE defaults to $KILN_LINT_BASE, else the newest commit made more than four
hours before HEAD: a session lasts at most three, so everything since the last landed main is
covered. A change to .clang-tidy selects every file.
"""
import json
import os
import subprocess
import sys

PROJECT_DIRS = ("src", "tools", "tests", "bench", "python")


def git(root, *args):
    return subprocess.run(["git", "-C", root, *args], check=True, capture_output=True,
                          text=True).stdout


def project_sources(root, build):
    files = set()
    for entry in json.load(open(os.path.join(build, "compile_commands.json"))):
        path = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
        relative = os.path.relpath(path, root)
        if relative.split(os.sep)[0] in PROJECT_DIRS:
            files.add(relative)
    return files


def default_base(root):
    base = os.environ.get("KILN_LINT_BASE")
    if base:
        return base
    head_time = int(git(root, "log", "-1", "--format=%ct", "HEAD").strip())
    older = git(root, "rev-list", "-1", f"--before={head_time - 4 * 3600}", "HEAD").strip()
    return older or git(root, "rev-list", "--max-parents=0", "HEAD").split()[-1]


def changed_files(root, base):
    names = set(git(root, "diff", "--name-only", base).split())  # commits and the work tree
    names |= set(git(root, "ls-files", "--others", "--exclude-standard").split())
    return names


def includers(root, build, changed, sources):
    """For each changed header, the first project source (in name order) whose object includes
    it (ninja -t deps): clang-tidy reports a header's findings through any file that includes it."""
    out = subprocess.run(["ninja", "-C", build, "-t", "deps"], check=True, capture_output=True,
                         text=True).stdout
    first, deps = {}, []

    def flush():
        if deps and deps[0] in sources:
            for d in deps[1:]:
                if d in changed and (d not in first or deps[0] < first[d]):
                    first[d] = deps[0]

    for line in out.splitlines():
        if line and not line[0].isspace():
            flush()
            deps = []
        elif line.strip():
            path = os.path.normpath(line.strip())
            if path.startswith(root + os.sep):
                deps.append(os.path.relpath(path, root))
    flush()
    return set(first.values())


def main():
    root, build, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    sources = project_sources(root, build)
    if mode == "changed":
        base = sys.argv[4] if len(sys.argv) > 4 else default_base(root)
        changed = changed_files(root, base)
        if ".clang-tidy" in changed:
            selected = sources
        else:
            selected = (changed & sources) | includers(root, build, changed, sources)
        print(f"lint: {len(selected)} of {len(sources)} files changed since {base[:12]}",
              file=sys.stderr)
    elif mode == "all":
        selected = sources
    else:
        sys.exit(f"usage: {sys.argv[0]} ROOT BUILD_DIR all|changed [BASE]")
    print("\n".join(sorted(selected)))


if __name__ == "__main__":
    main()
