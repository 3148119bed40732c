#!/usr/bin/env bash
# Fuzzes every parser of outside data for a while, so a crash is found here and not by a user.
#
#   scripts/fuzz.sh [SECONDS] [FUZZER...]   SECONDS per fuzzer (default 30), all fuzzers by default
#
# The fuzzers run side by side, one per core (KILN_FUZZ_JOBS sets how many at once).
#
# Builds the fuzz preset (clang-19, libFuzzer, ASan, UBSan; only the parsers), or the preset named
# by KILN_FUZZ_PRESET (asan: the whole project, as CI builds it anyway), then runs each fuzzer on a
# temporary copy of tests/fuzz/corpus/<fuzzer> (the repository's corpus is never modified). A
# crash, leak, sanitizer report, timeout (>10 s) or allocation over 2 GB is kept in
# build/<preset>/findings/<fuzzer> and makes the script exit non-zero.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
seconds=${1:-30}
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 [SECONDS] [FUZZER...]; SECONDS is a positive whole number, got '$seconds'" >&2
  exit 2
fi
shift $(($# > 0 ? 1 : 0))
fuzzers=("$@")
if [ ${#fuzzers[@]} -eq 0 ]; then  # every fuzzer of tests/fuzz
  for source in tests/fuzz/*_fuzzer.cc; do
    name=$(basename "$source" _fuzzer.cc)
    fuzzers+=("$name")
  done
fi

preset=${KILN_FUZZ_PRESET:-fuzz}
case "$preset" in
  fuzz | asan) ;;
  *)
    echo "KILN_FUZZ_PRESET is '$preset'; expected fuzz or asan (the presets that build fuzzers)" >&2
    exit 2
    ;;
esac
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# fuzz_one NAME: runs one fuzzer, writes its one-line report to $work/NAME.report and exits
# non-zero when it found a problem (or, under the asan preset, was not built).
fuzz_one() {
  local name=$1 binary=build/$preset/bin/${1}_fuzzer report=$work/$1.report
  if [ ! -x "$binary" ]; then
    # config_file needs the whole command line, which only the asan preset builds.
    echo "$name: not built by the $preset preset; run it with KILN_FUZZ_PRESET=asan" >"$report"
    [ "$preset" = asan ] && return 1
    return 0
  fi
  local findings=build/$preset/findings/$name
  mkdir -p "$findings" "$work/$name"
  cp -r tests/fuzz/corpus/"$name"/. "$work/$name/"
  local dict=()
  if [ -f tests/fuzz/$name.dict ]; then dict=(-dict=tests/fuzz/$name.dict); fi
  local log=$work/$name.log status=0
  "$binary" "$work/$name" "${dict[@]}" -max_total_time="$seconds" -rss_limit_mb=2048 \
    -timeout=10 -print_final_stats=1 -artifact_prefix="$findings/" >"$log" 2>&1 || status=$?
  local runs corpus
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  corpus=$(find "$work/$name" -type f | wc -l)
  if [ "$status" -eq 0 ]; then
    echo "$name: ${runs:-?} executions in ${seconds} s, corpus ${corpus} inputs, no findings" >"$report"
    return 0
  fi
  local found
  found=$(sed -n 's/^.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
  cp "$log" "$findings/last.log"
  {
    echo "$name: FOUND A PROBLEM after ${runs:-?} executions (exit $status); input: ${found:-see log}"
    grep -m 1 -E "ERROR: |runtime error:|terminate called|==[0-9]+==" "$log" || true
    echo "  full log: $findings/last.log; reproduce: $binary ${found:-<input>}"
  } >"$report"
  return 1
}

# The fuzzers run KILN_FUZZ_JOBS at a time (default: one per core), each on one core.
jobs=${KILN_FUZZ_JOBS:-$(nproc)}
failed=0
running=0
for name in "${fuzzers[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || failed=1
    running=$((running - 1))
  fi
  fuzz_one "$name" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || failed=1
  running=$((running - 1))
done
for name in "${fuzzers[@]}"; do cat "$work/$name.report"; done
exit "$failed"
