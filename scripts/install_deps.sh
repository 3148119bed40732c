#!/usr/bin/env bash
# Installs everything kiln needs to build, test and run on Debian 12, from Debian's packages and npm.
# Idempotent: packages already present are left as they are.
set -euo pipefail

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"

packages=(
  g++ cmake ninja-build ccache pkg-config git
  libgtest-dev libgmock-dev libbenchmark-dev
  llvm-19-dev lld-19 libzstd-dev zlib1g-dev
  clang-19 libfuzzer-19-dev libclang-rt-19-dev clang-format-14 clang-tidy-14
  libonnx-dev libprotobuf-dev protobuf-compiler
  libcli11-dev libdnnl-dev
  python3 python3-numpy python3-onnx python3-torch python3-torchvision python3-pytest python3-pandas
  python3-dev pybind11-dev python3-build python3-venv python3-setuptools python3-wheel
  libonnx-testdata
  qemu-user g++-aarch64-linux-gnu openssh-server openssh-client
)
command -v node >/dev/null 2>&1 || packages+=(nodejs npm)

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null

# ONNX Runtime, the reference of the end-to-end tests. --ignore-scripts: its install script would
# try to download extras; the native library ships inside the package.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if ! (cd "$here/tests/e2e" && node -e "require('onnxruntime-node')" >/dev/null 2>&1); then
  (cd "$here/tests/e2e" && npm install --ignore-scripts --no-audit --no-fund --loglevel=error)
fi
