#!/usr/bin/env bash
# Installs kiln from the build folder BUILD into a fresh prefix (the `kiln` component) and uses it
# as an embedding program would: compiles ONNX's test_relu with the installed `kiln`, builds the
# C example (examples/c_run) with find_package(kiln) and again with pkg-config, and the C++
# examples (examples/cpp_run on the runtime, examples/cpp_compile on the compiler library) with
# find_package(kiln), each outside the build tree, and runs them; each must print "ok".
# Usage: check_install.sh SOURCE_DIR BUILD_DIR WORK_DIR
set -euo pipefail
src=$1 build=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --component kiln --prefix "$prefix" > "$work/install.log"
test -x "$prefix/bin/kiln" && test -f "$prefix/lib/libkiln_runtime.so"
test -f "$prefix/lib/libkiln_compiler.so"
"$prefix/bin/kiln" compile /usr/share/libonnx-testdata/data/node/test_relu/model.onnx \
  -o "$work/relu.so" > /dev/null
for example in c_run cpp_run cpp_compile; do
  cmake -S "$src/examples/$example" -B "$work/$example" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" > "$work/$example.configure.log"
  cmake --build "$work/$example" > "$work/$example.build.log"
done
echo "c (find_package): $("$work/c_run/run_model" "$work/relu.so")"
echo "c++ (find_package): $("$work/cpp_run/run_model_cpp" "$work/relu.so")"
echo "c++ compiler (find_package): $("$work/cpp_compile/compile_and_run" \
  /usr/share/libonnx-testdata/data/node/test_relu/model.onnx "$work/relu_compiled.so")"
PKG_CONFIG_PATH=$prefix/lib/pkgconfig cc -std=c99 -Wall -Wextra -Werror \
  "$src/examples/c_run/run_model.c" $(PKG_CONFIG_PATH=$prefix/lib/pkgconfig \
  pkg-config --cflags --libs kiln-runtime) -o "$work/run_model_pc"
echo "c (pkg-config): $("$work/run_model_pc" "$work/relu.so")"
# The C program links the runtime's core alone.
if readelf -d "$work/c_run/run_model" | grep -q 'libkiln_runtime_ops\|libkiln_rpc'; then
  echo "run_model links more than the runtime's core" >&2
  exit 1
fi
