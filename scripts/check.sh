#!/usr/bin/env bash
# The whole test suite (what `make check` and .ci/run run):
#
#   1. configure and build build/ (everything), build-asan/ and build-tsan/
#      (the runtime and standard library only; CMake turns the compiler off
#      there, and their tests borrow build/'s cfacc: CFA_HOST_CFACC);
#   2. lit on build/test (every suite), and on build-asan/test and
#      build-tsan/test every suite that runs programs ($SAN_SUITES, default
#      all but translate and diagnostics, which only look at cfacc's output);
#   3. the stress pass: the runtime suite again with -Dstress=$STRESS;
#   4. `make verify`'s model check of the idle-sleep protocol
#      (runtime/verify/run.sh: SPIN, exhaustive), counted as one test;
#   5. a final line "N passed, N failed" summing every lit run (a build that
#      fails counts as one failure); exit status non-zero on any failure.
#
# Options: --normal-only (build/ only, no stress pass, no verify), --no-build.
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

build_dir() {  # dir, extra cmake args... (given: applied to a configured dir too)
  local dir=$1; shift
  echo "=== build $dir"
  if [ ! -f "$dir/build.ninja" ] || [ $# -gt 0 ]; then
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

run_lit() {  # label, paths..., then lit options (starting with -)
  local label=$1; shift
  local paths=() opts=()
  for a in "$@"; do case "$a" in -*) opts+=("$a") ;; *) paths+=("$a") ;; esac; done
  local json="$results/$(echo "$label" | tr -c 'a-zA-Z0-9\n' _).json"
  echo "=== lit $label (${paths[*]})"
  mkdir -p "${paths[@]}"
  # shellcheck disable=SC2086
  "${lit[@]}" -sv -j "$LIT_JOBS" -o "$json" "${opts[@]}" ${LIT_ARGS:-} "${paths[@]}" </dev/null
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
  # The sanitizer builds have no compiler of their own: cfa-lite programs
  # are translated by build/'s and linked with the sanitizer build's
  # libraries. The compiler's own suites (what it prints) are left out.
  if [ -z "${SAN_SUITES:-}" ]; then
    SAN_SUITES=runtime
    for d in test/*/; do
      d=$(basename "$d")
      case " runtime translate diagnostics include Inputs " in
        *" $d "*) ;;
        *) SAN_SUITES="$SAN_SUITES $d" ;;
      esac
    done
  fi
  for san in asan:address tsan:thread; do
    dir=build-${san%%:*}
    if [ $no_build = 1 ] || build_dir "$dir" -DCFA_SANITIZE="${san#*:}" -DCFA_HOST_CFACC="$top/build/compiler/cfacc"; then
      paths=()
      for s in $SAN_SUITES; do paths+=("$dir/test/$s"); done
      run_lit "$dir" "${paths[@]}"
    else
      build_failed "$dir"
    fi
  done
  # 3. Stress pass on the normal build.
  if [ -f build/test/lit.site.cfg.py ]; then
    run_lit "stress x$STRESS" build/test/runtime -Dstress="$STRESS"
  fi
  # 4. The protocol model (SPIN), one test.
  echo "=== verify (runtime/verify/run.sh)"
  if CC=$CC runtime/verify/run.sh </dev/null; then
    total_pass=$((total_pass + 1)); summary+=("verify: model checked, no violation; broken variant caught")
  else
    total_fail=$((total_fail + 1)); summary+=("verify: FAILED (counted as 1 failure)")
  fi
fi

echo
echo "=== summary"
for s in "${summary[@]}"; do echo "  $s"; done
[ $total_unsup -gt 0 ] && echo "  ($total_unsup unsupported, not counted)"
echo "$total_pass passed, $total_fail failed"
[ $total_fail = 0 ] && [ $total_pass -gt 0 ]
