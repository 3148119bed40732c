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

asan_excluded='^(e2e_resnet50|e2e_resnet18|e2e_dynamic_batch_resnet18|e2e_large_external_data'
asan_excluded+='|onnx_conformance_cli'
asan_excluded+='|onnx_conformance_constant_inputs'
asan_excluded+='|DebugExecutor\.TheProfileAgreesWithIndependentlyMeasuredTimes'
asan_excluded+='|Conv\.ManyInputChannelsAndWideRows|Pool\.VeryWideRows)$'

which=("$@")
[ ${#which[@]} -eq 0 ] && which=(asan tsan)

for preset in "${which[@]}"; do
  case "$preset" in
    asan)
      run cmake --preset asan -DKILN_WERROR="${KILN_WERROR:-OFF}"
      run cmake --build --preset asan -j "$jobs"
      # Left to the release run (docs/testing.md says why, and how to run each under ASan):
      # - e2e_resnet50 and e2e_resnet18: their operators, kernels and executor paths run under
      #   ASan through MobileNetV2, SqueezeNet, BERT and the offloaded ResNet-18, at a fraction
      #   of the cost (ResNet-18 alone was 228 s under ASan);
      # - e2e_large_external_data: 2 GiB of weights packed, hashed and written, whose code paths
      #   run under ASan on small models (external data, --params external, streamed params),
      #   and peak resident sizes that ASan's shadow memory would distort;
      # - the profile's reconciliation with independently measured times: ASan's
      #   instrumentation of the executor's own bookkeeping widens the gap past its bound;
      # - onnx_conformance_cli (301 s): the same compiler and executor code as
      #   onnx_conformance, which runs, plus the command line's file handling (cli_tests);
      # - onnx_conformance_constant_inputs: the same models again with constant inputs, for
      #   the op rules' compile-time side; their code runs under ASan in onnx_conformance and
      #   the op tests' RuleAgreement cases;
      # - Conv.ManyInputChannelsAndWideRows and Pool.VeryWideRows (114 s and 34 s): rows of 600
      #   to 100,000 elements for the generated code's column tiling, which ASan does not
      #   instrument; the host code they run runs under ASan in the other Conv and Pool tests.
      run scripts/run_ctest.sh asan build/asan -E "$asan_excluded"
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
