#!/usr/bin/env bash
# The whole test suite (what `make check` and .ci/run run):
#
#   1. configure and build build/ (everything), build-asan/ and build-tsan/
#      (the runtime only; CMake turns the compiler off there);
#   2. lit on build/test (every suite), on build-asan/test/runtime and
#      build-tsan/test/runtime;
#   3. the stress pass: the runtime suite again with -Dstress=$STRESS;
#   4. a final line "N passed, N failed" summing every lit run (a build that
#      fails counts as one failure); exit status non-zero on any failure.
#
# Options: --normal-only (build/ only, no stress pass), --no-build.
# Environment: JOBS (build parallelism), LIT_JOBS (default: CPUs),
# STRESS (repeat count of the stress pass, default 5), LIT_ARGS (extra).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

normal_only=0 no_build=0
for a in "$@"; do
  case "$a" in
    --normal-only) normal_only=1 ;;
    --no-build) no_build=1 ;;
    *) echo "check.sh: unknown option $a" >&2; exit 2 ;;
  esac
done

JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
LIT_JOBS=${LIT_JOBS:-$(nproc 2>/dev/null || echo 2)}
STRESS=${STRESS:-5}
CC=clang-19 CXX=clang++-19

if command -v lit >/dev/null 2>&1; then
  lit=(lit)
else
  lit=(python3 -c 'import sys, lit.main; sys.argv[0] = "lit"; lit.main.main()')
fi

results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
total_pass=0 total_fail=0 total_unsup=0
summary=()

build_dir() {  # dir, extra cmake args...
  local dir=$1; shift
  echo "=== build $dir"
  if [ ! -f "$dir/build.ninja" ]; then
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_C_COMPILER=$CC -DCMAKE_CXX_COMPILER=$CXX "$@" >"$results/cmake.log" 2>&1 \
      || { cat "$results/cmake.log"; rm -f "$dir/build.ninja"; return 1; }
  fi
  ninja -C "$dir" -j "$JOBS"
}

# Counts one lit run from its JSON report.
count() {  # label, json
  local label=$1 json=$2 line
  if [ ! -s "$json" ]; then
    echo "=== $label: lit produced no report"
    total_fail=$((total_fail + 1)); summary+=("$label: no report (counted as 1 failure)")
    return
  fi
  line=$(python3 - "$json" <<'PY'
import json, sys
tests = json.load(open(sys.argv[1])).get("tests", [])
ok = {"PASS", "XFAIL"}
skip = {"UNSUPPORTED", "EXCLUDED", "SKIPPED"}
p = sum(1 for t in tests if t["code"] in ok)
u = sum(1 for t in tests if t["code"] in skip)
f = len(tests) - p - u
print(p, f, u)
PY
)
  read -r p f u <<<"$line"
  total_pass=$((total_pass + p)); total_fail=$((total_fail + f)); total_unsup=$((total_unsup + u))
  summary+=("$label: $p passed, $f failed, $u unsupported")
}

run_lit() {  # label, path, extra lit args...
  local label=$1 path=$2; shift 2
  local json="$results/$(echo "$label" | tr -c 'a-zA-Z0-9\n' _).json"
  echo "=== lit $label ($path)"
  mkdir -p "$path"
  # shellcheck disable=SC2086
  "${lit[@]}" -sv -j "$LIT_JOBS" -o "$json" "$@" ${LIT_ARGS:-} "$path" </dev/null
  count "$label" "$json"
}

build_failed() {
  total_fail=$((total_fail + 1)); summary+=("$1: BUILD FAILED (counted as 1 failure)")
}

# 1+2. Normal build: every suite.
if [ $no_build = 1 ] || build_dir build; then
  run_lit "build" build/test
else
  build_failed build
fi

if [ $normal_only = 0 ]; then
  # The sanitizer builds: the runtime suite only.
  for san in asan:address tsan:thread; do
    dir=build-${san%%:*}
    if [ $no_build = 1 ] || build_dir "$dir" -DCFA_SANITIZE="${san#*:}"; then
      run_lit "$dir" "$dir/test/runtime"
    else
      build_failed "$dir"
    fi
  done
  # 3. Stress pass on the normal build.
  if [ -f build/test/lit.site.cfg.py ]; then
    run_lit "stress x$STRESS" build/test/runtime -Dstress="$STRESS"
  fi
fi

echo
echo "=== summary"
for s in "${summary[@]}"; do echo "  $s"; done
[ $total_unsup -gt 0 ] && echo "  ($total_unsup unsupported, not counted)"
echo "$total_pass passed, $total_fail failed"
[ $total_fail = 0 ] && [ $total_pass -gt 0 ]
