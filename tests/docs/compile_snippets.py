"""Compiles the C++ and C snippets of the README and docs/ against kiln's headers, so they cannot
rot: a snippet that calls a function kiln no longer has, or with the wrong arguments, fails here
with the document's own file and line.

A ```c++ block is compiled as the body of a function: its #include lines go to the top of the
file, the rest inside the function. What a snippet takes from the text around it is said in an
HTML comment on the line before the block, which readers of the rendered page do not see: the
namespaces an earlier snippet brought in, and the values it uses without making them (the
function's parameters):

    <!-- snippet: using kiln::runtime; given NDArray image, Module lib -->

`<!-- snippet: file -->` compiles the block as a whole file instead (declarations at file scope,
e.g. a generated header's excerpt). ```c blocks are compiled as C99
after kiln/runtime/c_abi.h. Every block of the documents is compiled; none is skipped.

    compile_snippets.py --include DIR [--cxx g++] [--cc gcc] DOC.md..."""
import argparse
import os
import re
import subprocess
import sys
import tempfile

BLOCK = re.compile(r"^(?:<!-- snippet: (?P<how>.*?) -->\n)?```(?P<lang>c\+\+|c)\n(?P<code>.*?)^```",
                   re.S | re.M)
CXX_PRELUDE = ["#include <cstdint>", "#include <iostream>", "#include <memory>",
               "#include <string>", "#include <thread>", "#include <vector>"]


def snippets(path: str):
    """(language, how, first line of the code, code) of each block of PATH."""
    text = open(path, encoding="utf-8").read()
    for m in BLOCK.finditer(text):
        line = text.count("\n", 0, m.start("code")) + 1
        yield m.group("lang"), (m.group("how") or "").strip(), line, m.group("code")


def cxx_unit(path: str, blocks) -> str:
    """One C++ file holding every c++ block of PATH, each in a function of its own."""
    includes, bodies = list(CXX_PRELUDE), []
    for k, (_, how, line, code) in enumerate(blocks):
        name = os.path.relpath(path)
        if how == "file":
            bodies.append(f'#line {line} "{name}"\n{code}')
            continue
        using, given = [], ""
        for part in filter(None, (p.strip() for p in how.split(";"))):
            if part.startswith("using "):
                using += [n.strip() for n in part[len("using "):].split(",")]
            elif part.startswith("given "):
                given = part[len("given "):]
            else:
                raise SystemExit(f"{name}:{line - 1}: snippet comment part '{part}' is not known; "
                                 "expected 'using NAMESPACE, ...', 'given TYPE NAME, ...' or "
                                 "'file'")
        lines = code.split("\n")
        body = []
        for i, text in enumerate(lines):
            if text.startswith("#include"):
                includes.append(text)
                body.append("")  # keeps the line numbers of what follows
            else:
                body.append(text)
        directives = "".join(f"using namespace {n};\n" for n in using)
        bodies.append(f"namespace snippet{k} {{\n{directives}"
                      f"[[maybe_unused]] static void run({given}) {{\n"
                      f'#line {line} "{name}"\n' + "\n".join(body) + "\n}\n}")
    return "\n".join(includes) + "\n\n" + "\n\n".join(bodies) + "\n"


def c_unit(path: str, blocks) -> str:
    parts = ["#include <stdint.h>", '#include "kiln/runtime/c_abi.h"']
    for _, _, line, code in blocks:
        parts.append(f'#line {line} "{os.path.relpath(path)}"\n{code}')
    return "\n".join(parts) + "\n"


def compile_unit(compiler: list, suffix: str, source: str, include: str) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory(prefix="kiln-snippets-") as folder:
        file = os.path.join(folder, "snippets" + suffix)
        with open(file, "w", encoding="utf-8") as f:
            f.write(source)
        return subprocess.run(compiler + ["-fsyntax-only", "-Wall", "-Werror", "-Wno-unused",
                                          "-I", include, file],
                              capture_output=True, text=True, check=False)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--include", required=True, help="kiln's include folder")
    parser.add_argument("--cxx", default="g++")
    parser.add_argument("--cc", default="gcc")
    parser.add_argument("docs", nargs="+")
    args = parser.parse_args()
    failed, count = 0, 0
    for doc in args.docs:
        blocks = list(snippets(doc))
        count += len(blocks)
        for lang, make, compiler, suffix in (
                ("c++", cxx_unit, [args.cxx, "-std=c++20"], ".cc"),
                ("c", c_unit, [args.cc, "-std=c99", "-pedantic"], ".c")):
            mine = [b for b in blocks if b[0] == lang]
            if not mine:
                continue
            done = compile_unit(compiler, suffix, make(doc, mine), args.include)
            if done.returncode != 0:
                failed += 1
                print(f"FAIL: the {lang} snippets of {doc} do not compile:\n{done.stderr}")
    print(f"{count} snippets in {len(args.docs)} documents; "
          f"{'all compile' if not failed else f'{failed} documents fail'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
