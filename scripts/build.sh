#!/usr/bin/env bash
# Configures and builds kiln (release preset, Ninja, ccache) into build/release.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)"
