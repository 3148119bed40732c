#!/usr/bin/env python3
"""Prints the translation units clang-tidy should check, one per line, relative to the root.

    lint_sources.py ROOT BUILD_DIR all
    lint_sources.py ROOT BUILD_DIR changed [BASE]

`all`: every project file of BUILD_DIR/compile_commands.json (under src, tools, tests, bench,
python). `changed`: those that differ from BASE (uncommitted changes included), and for each
changed header one file that includes it (read from the #include lines), through which clang-tidy
checks the header. BUILD_DIR needs only to be configured: its database must list the sources
themselves, so it is configured without unity builds (scripts/lint.sh does it). BASE defaults to
$KILN_LINT_BASE, else the newest commit made more than four hours before HEAD: a session lasts at
most three, so everything since the last landed main is covered. A change to .clang-tidy selects every file.
"""
import json
import os
import re
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


INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)


def direct_includes(root, path):
    try:
        return INCLUDE.findall(open(os.path.join(root, path), errors="replace").read())
    except OSError:
        return []


def names(header, spelled):
    """Whether an #include "SPELLED" can name HEADER (a path relative to the root): the spelling
    is a whole-component suffix of the path (kiln/runtime/x.h for include/kiln/runtime/x.h)."""
    return header == spelled or header.endswith("/" + spelled)


def includers(root, changed, sources):
    """For each changed header, the first project source (in name order) that includes it,
    directly or through other project headers: clang-tidy reports a header's findings through
    any file that includes it. Read from the sources' #include lines, so no build is needed."""
    headers = sorted(f for f in git(root, "ls-files").split() if f.endswith(".h")
                     and f.split("/")[0] in PROJECT_DIRS + ("include",))
    included = {f: direct_includes(root, f) for f in sorted(sources) + headers}
    chosen = set()
    for header in sorted(h for h in changed if h.endswith(".h")):
        frontier, seen = {header}, {header}
        while frontier:
            users = sorted(f for f, spelled in included.items() if f not in seen and any(
                names(h, s) for h in frontier for s in spelled))
            found = [f for f in users if f in sources]
            if found:
                chosen.add(found[0])
                break
            frontier = set(users)
            seen |= frontier
    return chosen


def main():
    root, build, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    sources = project_sources(root, build)
    if mode == "changed":
        base = sys.argv[4] if len(sys.argv) > 4 else default_base(root)
        changed = changed_files(root, base)
        if ".clang-tidy" in changed:
            selected = sources
        else:
            selected = (changed & sources) | includers(root, changed, sources)
        print(f"lint: {len(selected)} of {len(sources)} files changed since {base[:12]}",
              file=sys.stderr)
    elif mode == "all":
        selected = sources
    else:
        sys.exit(f"usage: {sys.argv[0]} ROOT BUILD_DIR all|changed [BASE]")
    print("\n".join(sorted(selected)))


if __name__ == "__main__":
    main()
