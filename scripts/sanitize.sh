#!/usr/bin/env bash
# The test suite under sanitizers, which the release run cannot see: every test under ASan+UBSan
# (memory errors, leaks, undefined behaviour), the multi-threaded tests under TSan (data races).
# Usage: scripts/sanitize.sh [asan] [tsan]   (both when none is named). Idempotent: reruns reuse
# the build folders build/asan and build/tsan and ccache. The asan preset is clang-19 with
# coverage instrumentation, so its build also holds the fuzzers (scripts/fuzz.sh with
# KILN_FUZZ_PRESET=asan). KILN_WERROR=ON makes warnings errors, as under CI.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

jobs="$(nproc)"
run() {
  echo "+ $*"
  "$@"
}

# A sanitizer report is a failure: the presets make UBSan abort, and these make the reports say
# where. Leak checking is ASan's default on Linux and stays on.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}"

which=("$@")
[ ${#which[@]} -eq 0 ] && which=(asan tsan)

for preset in "${which[@]}"; do
  case "$preset" in
    asan)
      run cmake --preset asan -DKILN_WERROR="${KILN_WERROR:-OFF}"
      run cmake --build --preset asan -j "$jobs"
      # ResNet-50 runs ResNet-18's code paths (the same operators, kernels and executor) at
      # 2.5 times the cost, the longest test under ASan by far; the release run keeps it.
      # The profile's reconciliation with independently measured times bounds a timing gap that
      # ASan's instrumentation of the executor's own bookkeeping widens past it (163 us of 1437);
      # the release run keeps it.
      # The conformance models through the command line (301 s under ASan, the longest test) run
      # the same compiler and executor code as onnx_conformance, which runs under ASan, plus the
      # command line's file handling, which cli_tests run under ASan; the release run keeps it.
      run scripts/run_ctest.sh asan build/asan \
        -E '^(e2e_resnet50|onnx_conformance_cli|DebugExecutor\.TheProfileAgreesWithIndependentlyMeasuredTimes)$'
      ;;
    tsan)
      # The tsan build preset builds only the test binaries that hold `concurrency` tests.
      run cmake --preset tsan -DKILN_WERROR="${KILN_WERROR:-OFF}"
      run cmake --build --preset tsan -j "$jobs"
      run scripts/run_ctest.sh tsan build/tsan -L concurrency
      ;;
    *)
      echo "unknown sanitizer preset '$preset' (expected asan or tsan)" >&2
      exit 2
      ;;
  esac
done
