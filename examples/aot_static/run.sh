#!/usr/bin/env bash
# Builds and runs the example: compiles the ONNX test model "test_relu" into a static library and
# header with kiln, links main.c against it with the C compiler (no kiln runtime), and runs it on
# the test's input. Usage: examples/aot_static/run.sh [KILN] [WORK_DIR]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
kiln=${1:-$here/../../build/release/bin/kiln}
work=${2:-$(mktemp -d)}
data=/usr/share/libonnx-testdata/data/node/test_relu
mkdir -p "$work"
"$kiln" compile "$data/model.onnx" --executor aot --emit static -o "$work/librelu.a"
cc -std=c11 -Wall -Wextra -Werror -I"$work" "$here/main.c" "$work/librelu.a" -lm -o "$work/relu"
# The program must not need the runtime: no C++ symbol of kiln may be linked in.
if nm -C "$work/relu" | grep -q 'kiln::'; then
  echo "the example linked kiln's runtime" >&2
  exit 1
fi
"$work/relu" "$data/test_data_set_0/input_0.pb"
