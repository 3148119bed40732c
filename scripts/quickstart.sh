#!/usr/bin/env bash
# The main job: install, build, export ResNet-18 (random weights, fixed seed), compile it with kiln
# into one shared library and run it on the local CPU.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/install_deps.sh
scripts/build.sh
mkdir -p build/models
/usr/bin/python3 tests/e2e/export_models.py --out-dir build/models resnet18
build/release/bin/kiln compile build/models/resnet18.onnx -o build/models/resnet18.so
build/release/bin/kiln run build/models/resnet18.so --fill-mode random --print-top 5 --print-time
