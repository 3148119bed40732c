#!/usr/bin/env python3
"""Layers point down: every #include of a library's sources names its own component or one it
may use (directly or through the components it uses), never one above it.

    check_layering.py [REPO] [--plant FILE:HEADER]

Each source folder is a component (the longest listed folder that holds the file); each header
belongs to a component (kiln/<layer>/... by its public folder, with the runtime's parts told
apart; a relative include by the folder it resolves to). Prints every upward include as
`FILE includes HEADER: COMPONENT may not use TARGET (it may use: ...)` and exits 1 when there is
one. --plant adds `#include "HEADER"` to FILE in memory first (FILE as in the repository), to
show that the check catches it.
"""
import os
import re
import sys

# Component -> the components it may use directly; folder -> component.
USES = {
    "support": [],
    "opdef": ["support"],
    "runtime": ["support"],  # the core
    "runtime_ops": ["runtime", "opdef"],
    "runtime_debug": ["runtime"],
    "generate": ["runtime", "runtime_debug"],
    "rpc": ["runtime", "runtime_debug"],
    "tracker": ["rpc"],
    "ir": ["runtime", "runtime_ops", "opdef"],
    "tir": ["runtime"],
    "frontend": ["ir"],
    "transform": ["ir"],
    "kernel": ["ir", "tir"],
    "codegen": ["tir", "runtime"],
    "extension": ["ir", "transform", "runtime"],
    "driver": ["frontend", "transform", "kernel", "codegen", "extension"],
    "remote": ["rpc", "tracker"],
    "cli": ["driver", "extension", "remote", "runtime_debug", "generate", "tracker"],
    "rpc_server": ["rpc"],
    "python": ["driver", "extension", "remote", "runtime_debug", "generate", "tracker"],
    "extensions": [],  # plug-ins: the public C headers of the ABI only (HEADERS below)
}
FOLDERS = {
    "src/support": "support", "src/opdef": "opdef", "src/runtime": "runtime",
    "src/runtime/ops": "runtime_ops", "src/runtime/debug": "runtime_debug",
    "src/runtime/generate": "generate", "src/runtime/rpc": "rpc", "src/runtime/tracker": "tracker", "src/ir": "ir",
    "src/tir": "tir", "src/frontend": "frontend", "src/transform": "transform",
    "src/kernel": "kernel", "src/codegen": "codegen", "src/extension": "extension",
    "src/driver": "driver", "src/remote": "remote", "tools/kiln": "cli",
    "tools/rpc_server": "rpc_server", "python/src": "python", "extensions": "extensions",
}
# Public headers by component: the longest matching prefix of the include's path.
HEADERS = {
    "kiln/support/": "support", "kiln/opdef/": "opdef", "kiln/runtime/": "runtime",
    "kiln/runtime/rpc/": "rpc", "kiln/runtime/rpc/tracker.h": "tracker",
    "kiln/runtime/profile_summary.h": "runtime_debug",
    "kiln/runtime/time_evaluator.h": "runtime_debug",
    "kiln/runtime/timing_stats.h": "runtime_debug", "kiln/runtime/generate.h": "generate",
    "kiln/ir/": "ir", "kiln/tir/": "tir",
    "kiln/frontend/": "frontend", "kiln/transform/": "transform", "kiln/kernel/": "kernel",
    "kiln/codegen/": "codegen", "kiln/extension/": "extension", "kiln/driver/": "driver",
    "kiln/remote/": "remote",
}
# The C headers of the plug-in ABI: what an extension may include.
PLUGIN_HEADERS = {"kiln/extension/extension_api.h", "kiln/runtime/backend_api.h",
                  "kiln/runtime/offload_api.h", "kiln/runtime/dlpack.h"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def allowed(component):
    seen, todo = {component}, [component]
    while todo:
        for used in USES[todo.pop()]:
            if used not in seen:
                seen.add(used)
                todo.append(used)
    return seen


def longest(table, key):
    best = None
    for prefix, value in table.items():
        if (key == prefix or key.startswith(prefix.rstrip("/") + "/")) and (
                best is None or len(prefix) > len(best[0])):
            best = (prefix, value)
    return best[1] if best else None


def target_of(include, file_dir):
    if include.startswith("kiln/"):
        return longest(HEADERS, include)
    resolved = os.path.normpath(os.path.join(file_dir, include))
    return longest(FOLDERS, resolved)


def check(repo, plant):
    problems, seen = [], set()
    for folder in FOLDERS:
        for root, dirs, files in os.walk(os.path.join(repo, folder)):
            dirs[:] = [d for d in dirs if d not in ("build", "__pycache__")]
            for name in sorted(files):
                if not name.endswith((".cc", ".h", ".c")):
                    continue
                path = os.path.relpath(os.path.join(root, name), repo)
                component = longest(FOLDERS, path)
                if component is None or path in seen:
                    continue
                seen.add(path)
                with open(os.path.join(repo, path), encoding="utf-8") as f:
                    lines = f.readlines()
                if plant and plant[0] == path:
                    lines.append(f'#include "{plant[1]}"\n')
                for line in lines:
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    include = m.group(1)
                    if component == "extensions":
                        ok = not include.startswith("kiln/") or include in PLUGIN_HEADERS
                        if not ok:
                            problems.append(f"{path} includes {include}: an extension may use the "
                                            f"plug-in ABI's C headers only")
                        continue
                    target = target_of(include, os.path.dirname(path))
                    if target is None or target in allowed(component):
                        continue
                    uses = ", ".join(sorted(allowed(component) - {component}))
                    problems.append(f"{path} includes {include}: {component} may not use {target} "
                                    f"(it may use: {uses})")
    return problems


def main():
    args = sys.argv[1:]
    plant = None
    if "--plant" in args:
        i = args.index("--plant")
        plant = tuple(args[i + 1].split(":", 1))
        del args[i:i + 2]
    repo = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(__file__), ".."))
    problems = check(repo, plant)
    for p in problems:
        print(p)
    print(f"{len(problems)} includes point up a layer")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
