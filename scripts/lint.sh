#!/usr/bin/env bash
# Checks that every C++ file is formatted (clang-format-14) and clean under the checks of the root
# .clang-tidy (clang-tidy-14), so style and bug-prone patterns are caught in CI, not in review.
#
#   scripts/lint.sh [format|tidy] [--all]   both by default; non-zero exit on any finding
#
# clang-format checks every file (seconds). clang-tidy checks the files changed since the last
# landed main and, for each changed header, one file that includes it (scripts/lint_sources.py
# says how the base is found; KILN_LINT_BASE=COMMIT sets it), which is what CI runs; with --all it
# checks every translation unit, on request.
# clang-tidy reads the compile database of build/lint, the release configuration without unity
# builds (so that the database lists each source, not the unity files that batch them), which
# this script configures and never builds. Only writes build/lint: safe to rerun.
# LINT_JOBS sets the number of parallel clang-tidy processes (default 2). The database holds g++'s
# flags: the g++-only warning options in it (-Wno-restrict) are not findings for clang.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)
what=all
selection=changed
for arg in "$@"; do
  case "$arg" in
    format | tidy) what=$arg ;;
    --all) selection=all ;;
    *)
      echo "usage: $0 [format|tidy] [--all]" >&2
      exit 2
      ;;
  esac
done
jobs=${LINT_JOBS:-2}

failed=0

if [ "$what" != tidy ]; then
  # Every *.cc/*.h of the project (build dirs and the npm tree of tests/e2e are not ours).
  mapfile -d '' files < <(find src include tools tests bench python \
    \( -path 'build' -o -path '*/build' -o -path '*/build-*' -o -path tests/e2e/node_modules \) -prune \
    -o -type f \( -name '*.cc' -o -name '*.h' \) -print0 | sort -z)
  echo "+ clang-format-14 --dry-run --Werror <${#files[@]} files of src include tools tests bench python>" >&2
  if ! printf '%s\0' "${files[@]}" | xargs -0 -n 50 clang-format-14 --dry-run --Werror; then
    echo "lint: clang-format found unformatted files (fix: clang-format-14 -i FILE...)" >&2
    failed=1
  fi
fi

if [ "$what" != format ]; then
  # The release configuration's flags, one database entry per source (configuring takes seconds;
  # nothing is built).
  cmake --preset release -B build/lint -DCMAKE_UNITY_BUILD=OFF >/dev/null
  database=build/lint/compile_commands.json
  # The project's translation units to check (a file can appear more than once in the database:
  # fuzz corpus replays).
  sources=$(/usr/bin/python3 scripts/lint_sources.py "$root" build/lint "$selection")
  count=$(printf '%s\n' "$sources" | grep -c . || true)
  # Headers are checked too, but only the project's own (not LLVM's, GoogleTest's or the system's).
  header_filter="^${root//./\\.}/(src|include|tools|tests|bench|python)/"
  output=$(mktemp)
  trap 'rm -f "$output"' EXIT
  status=0
  if [ "$count" -eq 0 ]; then
    # run-clang-tidy given no file would check every one.
    echo "lint: no changed file for clang-tidy to check" >&2
  elif command -v run-clang-tidy-14 >/dev/null; then
    # run-clang-tidy takes regexes of files; anchor each path so it names exactly one file.
    mapfile -t patterns < <(printf '%s\n' "$sources" | sed -e 's/[.+]/\\&/g' -e "s|^|^${root//./\\.}/|" -e 's/$/$/')
    # run-clang-tidy-14 has no -warnings-as-errors: a warning is found in its output below.
    echo "+ run-clang-tidy-14 -p build/lint -j $jobs -quiet -header-filter='$header_filter'" \
      "<$count files of src tools tests bench python>" >&2
    run-clang-tidy-14 -clang-tidy-binary clang-tidy-14 -p build/lint -j "$jobs" -quiet \
      -extra-arg=-Wno-unknown-warning-option -header-filter="$header_filter" "${patterns[@]}" >"$output" 2>&1 || status=$?
  else
    echo "+ xargs -P $jobs clang-tidy-14 -p build/lint --quiet --header-filter='$header_filter'" \
      "--warnings-as-errors='*' <$count files of src tools tests bench>" >&2
    printf '%s\n' "$sources" | xargs -P "$jobs" -n 4 clang-tidy-14 -p build/lint --quiet \
      --extra-arg=-Wno-unknown-warning-option --header-filter="$header_filter" --warnings-as-errors='*' >"$output" 2>&1 || status=$?
  fi
  # Any warning or error in the output fails, whatever the exit status says (run-clang-tidy-14
  # always asks for colours: they are stripped first).
  sed -i 's/\x1b\[[0-9;]*m//g' "$output"
  findings=$(grep -E '(warning|error): .* \[[a-z0-9.,-]+\]$' "$output" | sort -u || true)
  if [ "$status" -ne 0 ] || [ -n "$findings" ]; then
    grep -v -E '^[0-9]+ (warnings?|errors?)( and [0-9]+ errors?)? generated\.$' "$output" || true
    echo "lint: clang-tidy found $(printf '%s' "$findings" | grep -c . || true) distinct findings" \
      "(exit status $status)" >&2
    failed=1
  fi
fi

if [ "$failed" -ne 0 ]; then
  exit 1
fi
echo "lint: clean" >&2
