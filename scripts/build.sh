#!/usr/bin/env bash
# Configures and builds kiln (release preset, Ninja, ccache) into build/release. Warnings are
# errors when KILN_WERROR=ON (CI sets it).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cmake --preset release -DKILN_WERROR="${KILN_WERROR:-OFF}" >/dev/null
cmake --build --preset release -j "$(nproc)"
