#!/usr/bin/env bash
# The whole test suite: install, build (full and runtime-only), run every test. Under CI
# (CI=true) compiler warnings are errors.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/install_deps.sh
if [ "${CI:-}" = "true" ]; then export KILN_WERROR=ON; fi
scripts/build.sh
# The runtime must build alone, without LLVM, ONNX or protobuf: it is what goes onto a device.
cmake --preset runtime-only -DKILN_WERROR="${KILN_WERROR:-OFF}" >/dev/null
cmake --build --preset runtime-only -j "$(nproc)"
ctest --test-dir build/runtime-only --output-on-failure -j "$(nproc)"
ctest --test-dir build/release --output-on-failure -j "$(nproc)"
