#!/usr/bin/env bash
# The whole test suite: install, build, and run every test the project has, in stages (each also
# runs alone, see scripts/README.md):
#   1. the release build and its tests; the runtime-only build (no LLVM, no ONNX) and its tests;
#   2. the format check and clang-tidy on the changed files (scripts/lint.sh);
#   3. every test under ASan+UBSan, the multi-threaded tests under TSan (scripts/sanitize.sh);
#   4. every fuzzer for a short, fixed time (scripts/fuzz.sh, on the asan build).
# Every CTest run is counted per label against tests/expected_counts.json (scripts/run_ctest.sh):
# a test that did not run fails the suite as surely as one that failed. Prints each stage's time
# and the total at the end. Under CI (CI=true) compiler warnings are errors. Idempotent: reruns
# reuse build/ and ccache.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
started=$(date +%s)
stage_names=()
stage_seconds=()
current=""
current_start=0
stage() {
  local now
  now=$(date +%s)
  if [ -n "$current" ]; then
    stage_names+=("$current")
    stage_seconds+=($((now - current_start)))
  fi
  current="$1"
  current_start=$now
  [ -n "$1" ] && printf '\n=== %s (%s)\n' "$1" "$(date -u +%H:%M:%S)"
  return 0
}
summary() {
  stage ""
  printf '\n=== stage times\n'
  for i in "${!stage_names[@]}"; do
    printf '  %-52s %4d:%02d\n' "${stage_names[$i]}" $((stage_seconds[i] / 60)) $((stage_seconds[i] % 60))
  done
  local total=$(($(date +%s) - started))
  printf '  %-52s %4d:%02d\n' "total" $((total / 60)) $((total % 60))
}
trap summary EXIT

stage "install"
scripts/install_deps.sh
if [ "${CI:-}" = "true" ]; then export KILN_WERROR=ON; fi

stage "release build"
scripts/build.sh
stage "runtime-only build and tests"
# The runtime must build alone, without LLVM, ONNX or protobuf: it is what goes onto a device.
cmake --preset runtime-only -DKILN_WERROR="${KILN_WERROR:-OFF}" >/dev/null
cmake --build --preset runtime-only -j "$(nproc)"
scripts/run_ctest.sh runtime-only build/runtime-only
stage "release tests"
scripts/run_ctest.sh release build/release

stage "format and clang-tidy (changed files)"
scripts/lint.sh

stage "ASan+UBSan (every test) and TSan (concurrency tests)"
scripts/sanitize.sh asan tsan

# Each fuzzer replays its corpus as a test in every run above; these seconds look for new inputs
# (long runs are `scripts/fuzz.sh 600`, docs/testing.md).
stage "fuzzers, ${KILN_FUZZ_SECONDS:-10} s each"
KILN_FUZZ_PRESET=asan scripts/fuzz.sh "${KILN_FUZZ_SECONDS:-10}"
stage "all passed"
