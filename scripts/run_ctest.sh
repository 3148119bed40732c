#!/usr/bin/env bash
# Runs a build's tests with CTest, then counts what passed per label against
# tests/expected_counts.json (scripts/test_counts.py), so a test that silently stopped running
# fails like one that failed.
#
#   scripts/run_ctest.sh PRESET BUILD_DIR [CTEST_ARGS...]
#
# PRESET names the run's expectations (release, runtime-only, asan, tsan). Exits non-zero when a
# test failed or a label's count differs from its expectation.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ $# -lt 2 ]; then
  echo "usage: $0 PRESET BUILD_DIR [CTEST_ARGS...]" >&2
  exit 2
fi
preset=$1
build=$2
shift 2
junit="$build/ctest-junit.xml"
status=0
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" --output-junit "$(pwd)/$junit" "$@" ||
  status=$?
/usr/bin/python3 scripts/test_counts.py "$preset" "$build" "$junit" || status=1
exit "$status"
