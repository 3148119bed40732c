#!/usr/bin/env bash
# The whole test suite: install, build, and run every test the project has, in stages (each also
# runs alone, see scripts/README.md):
#   1. the release build and its tests; the runtime-only build (no LLVM, no ONNX) and its tests;
#   2. the format check and clang-tidy (scripts/lint.sh);
#   3. every test under ASan+UBSan, the multi-threaded tests under TSan (scripts/sanitize.sh);
#   4. every fuzzer for a short, fixed time (scripts/fuzz.sh, on the asan build).
# Under CI (CI=true) compiler warnings are errors. Idempotent: reruns reuse build/ and ccache.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
stage() { printf '\n=== %s (%s)\n' "$1" "$(date -u +%H:%M:%S)"; }

stage "install"
scripts/install_deps.sh
if [ "${CI:-}" = "true" ]; then export KILN_WERROR=ON; fi

stage "release build"
scripts/build.sh
stage "runtime-only build and tests"
# The runtime must build alone, without LLVM, ONNX or protobuf: it is what goes onto a device.
cmake --preset runtime-only -DKILN_WERROR="${KILN_WERROR:-OFF}" >/dev/null
cmake --build --preset runtime-only -j "$(nproc)"
ctest --test-dir build/runtime-only --output-on-failure -j "$(nproc)"
stage "release tests"
ctest --test-dir build/release --output-on-failure -j "$(nproc)"

stage "format and clang-tidy"
scripts/lint.sh

stage "ASan+UBSan (every test) and TSan (concurrency tests)"
scripts/sanitize.sh asan tsan

stage "fuzzers, ${KILN_FUZZ_SECONDS:-30} s each"
KILN_FUZZ_PRESET=asan scripts/fuzz.sh "${KILN_FUZZ_SECONDS:-30}"
stage "all passed"
