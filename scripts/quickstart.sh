#!/usr/bin/env bash
# The main job: install, build, export ResNet-18 (random weights, fixed seed), compile it with kiln
# into one shared library and run it on the local CPU. Also makes the build's Python package
# importable by /usr/bin/python3 (a .pth file naming build/release/python).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/install_deps.sh
scripts/build.sh
site=$(/usr/bin/python3 -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
mkdir -p "$site"
echo "$(pwd)/build/release/python" >"$site/kiln-build.pth"
/usr/bin/python3 -c 'import kiln; print(f"import kiln: {kiln.__file__} (kiln {kiln.__version__})")'
mkdir -p build/models
/usr/bin/python3 tests/e2e/export_models.py --out-dir build/models resnet18
build/release/bin/kiln compile build/models/resnet18.onnx -o build/models/resnet18.so
build/release/bin/kiln run build/models/resnet18.so --fill-mode random --print-top 5 --print-time
