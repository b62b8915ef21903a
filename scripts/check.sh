#!/usr/bin/env bash
# The whole test suite (what `make check` and .ci/run run):
#
#   1. configure and build build/ (everything, and the libFuzzer target
#      cfacc-translate-fuzz), build-asan/, build-tsan/ and
#      build-debug/ (the runtime and standard library only; CMake turns the
#      compiler off there, and their tests borrow build/'s cfacc:
#      CFA_HOST_CFACC). build-debug/ is the runtime with CFA_DEBUG: it
#      checks its invariants (docs/architecture.md);
#   2. lit on build/test (every suite), and on build-asan/test,
#      build-tsan/test and build-debug/test every suite that runs programs
#      ($SAN_SUITES, default all but translate and diagnostics, which only
#      look at cfacc's output);
#   3. the stress pass: the runtime suite again with -Dstress=$STRESS;
#   4. `make verify`'s model checks of the idle-sleep and pthread
#      condition variable protocols (runtime/verify/run.sh: SPIN, exhaustive), counted as one test,
#      once whatever --repeat says (it is exhaustive, not a sample);
#   5. a final line "N passed, N failed" summing every lit run (a build that
#      fails counts as one failure); exit status non-zero on any failure.
#
# Usage: scripts/check.sh [options] [lit paths...]
#   --normal-only   build/ only, no stress pass, no verify
#   --no-build      use the build directories as they are
#   --repeat N      run every lit run N times; the summary adds, per test
#                   that failed at least once, "F of N runs"
#   --hog K         run beside K busy processes (started here, killed on
#                   any exit): the schedules a loaded machine produces
#   --filter RE     only the tests whose names match RE (lit --filter)
#   lit paths       only these (e.g. build/test/monitor,
#                   build-tsan/test/io/sleep.c): one lit run per build
#                   directory named, no builds, no stress pass
# Environment: JOBS (build parallelism), LIT_JOBS (default: CPUs),
# STRESS (repeat count of the stress pass, default 5), LIT_ARGS (extra).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

normal_only=0 no_build=0 repeat=1 hog=0 filter=""
selected=()
usage() { echo "check.sh: $1 (see the comment at the top of scripts/check.sh)" >&2; exit 2; }
count_arg() {  # option, value: a whole number
  [[ "$2" =~ ^[0-9]+$ ]] || usage "$1 wants a whole number, not '$2'"
}
while [ $# -gt 0 ]; do
  case "$1" in
    --normal-only) normal_only=1 ;;
    --no-build) no_build=1 ;;
    --repeat) count_arg "$1" "${2:-}"; repeat=$2; shift
              [ "$repeat" -ge 1 ] || usage "--repeat wants at least 1" ;;
    --hog) count_arg "$1" "${2:-}"; hog=$2; shift ;;
    --filter) [ $# -ge 2 ] || usage "--filter wants a regular expression"; filter=$2; shift ;;
    -*) usage "unknown option $1" ;;
    *) selected+=("$1") ;;
  esac
  shift
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
hogs=()
cleanup() {
  [ ${#hogs[@]} -gt 0 ] && kill "${hogs[@]}" 2>/dev/null
  rm -rf "$results"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
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
# Every test's outcome goes to $results/outcomes too ("label<TAB>name<TAB>code")
# for the per-test failure counts of --repeat.
count() {  # label, json
  local label=$1 json=$2 line
  if [ ! -s "$json" ]; then
    echo "=== $label: lit produced no report"
    total_fail=$((total_fail + 1)); summary+=("$label: no report (counted as 1 failure)")
    return
  fi
  line=$(python3 - "$json" "$label" "$results/outcomes" <<'PY'
import json, sys
tests = json.load(open(sys.argv[1])).get("tests", [])
ok = {"PASS", "XFAIL"}
skip = {"UNSUPPORTED", "EXCLUDED", "SKIPPED"}
p = sum(1 for t in tests if t["code"] in ok)
u = sum(1 for t in tests if t["code"] in skip)
f = len(tests) - p - u
with open(sys.argv[3], "a") as out:
    for t in tests:
        if t["code"] not in skip:
            out.write("%s\t%s\t%s\n" % (sys.argv[2], t["name"], t["code"]))
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
  # A suite directory CMake has not made yet (a suite added since the
  # configure); a test file is left alone.
  for p in "${paths[@]}"; do
    case "$p" in *.c | *.cfa | *.test) ;; *) mkdir -p "$p" ;; esac
  done
  [ -n "$filter" ] && opts+=(--filter "$filter")
  # shellcheck disable=SC2086
  "${lit[@]}" -sv -j "$LIT_JOBS" -o "$json" "${opts[@]}" ${LIT_ARGS:-} "${paths[@]}" </dev/null
  count "$label" "$json"
}

build_failed() {
  total_fail=$((total_fail + 1)); summary+=("$1: BUILD FAILED (counted as 1 failure)")
}

# The lit runs, as "label|path path ...|lit options": made once (after the
# builds), run --repeat times.
runs=()

# --hog: K busy loops at the tests' priority, for the whole run.
start_hogs() {
  local i
  for ((i = 0; i < hog; i++)); do
    bash -c 'while :; do :; done' &
    hogs+=($!)
  done
  [ "$hog" -gt 0 ] && echo "=== $hog busy processes: ${hogs[*]}"
}

if [ ${#selected[@]} -gt 0 ]; then
  # Explicit lit paths: one run per build directory they are under.
  declare -A by_dir=()
  order=()
  for p in "${selected[@]}"; do
    d=${p%/}                        # the build directory: before the last /test/
    if [[ $d == */test ]]; then d=${d%/test}; else d=${d%/test/*}; fi
    [ -f "$d/test/lit.site.cfg.py" ] || usage "$p is not under a configured build's test/"
    [ -n "${by_dir[$d]+x}" ] || order+=("$d")
    by_dir[$d]="${by_dir[$d]:-} $p"
  done
  for d in "${order[@]}"; do runs+=("$d|${by_dir[$d]# }|"); done
else
  # 1+2. Normal build: every suite, and the fuzz target over stage 1 that
  # test/diagnostics/translate_fuzz.test runs (built on request only).
  if [ $no_build = 1 ] || { build_dir build && ninja -C build -j "$JOBS" cfacc-translate-fuzz; }; then
    runs+=("build|build/test|")
  else
    build_failed build
  fi

  if [ $normal_only = 0 ]; then
    # The sanitizer and debug builds have no compiler of their own: cfa-lite
    # programs are translated by build/'s and linked with that build's
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
    for cfg in asan:-DCFA_SANITIZE=address tsan:-DCFA_SANITIZE=thread debug:-DCFA_DEBUG=ON; do
      dir=build-${cfg%%:*}
      if [ $no_build = 1 ] || build_dir "$dir" "${cfg#*:}" -DCFA_SANITIZER_VARIANTS=OFF -DCFA_BUILD_COMPILER=OFF \
           -DCFA_HOST_CFACC="$top/build/compiler/cfacc"; then
        paths=()
        for s in $SAN_SUITES; do paths+=("$dir/test/$s"); done
        runs+=("$dir|${paths[*]}|")
      else
        build_failed "$dir"
      fi
    done
    # 3. Stress pass on the normal build.
    if [ -f build/test/lit.site.cfg.py ]; then
      runs+=("stress x$STRESS|build/test/runtime|-Dstress=$STRESS")
    fi
  fi
fi

# 4. The protocol model (SPIN), one test, with the whole suite only.
if [ ${#selected[@]} -eq 0 ] && [ $normal_only = 0 ]; then
  echo "=== verify (runtime/verify/run.sh)"
  if CC=$CC runtime/verify/run.sh </dev/null; then
    total_pass=$((total_pass + 1)); summary+=("verify: model checked, no violation; broken variant caught")
  else
    total_fail=$((total_fail + 1)); summary+=("verify: FAILED (counted as 1 failure)")
  fi
fi

start_hogs
for ((round = 1; round <= repeat; round++)); do
  [ "$repeat" -gt 1 ] && echo "=== round $round of $repeat"
  for r in "${runs[@]}"; do
    IFS='|' read -r label paths opts <<<"$r"
    # shellcheck disable=SC2086
    run_lit "$label" $paths $opts
  done
done

echo
echo "=== summary"
for s in "${summary[@]}"; do echo "  $s"; done
[ $total_unsup -gt 0 ] && echo "  ($total_unsup unsupported, not counted)"
if [ "$repeat" -gt 1 ] || [ "$hog" -gt 0 ]; then
  echo "=== per-test failures ($repeat round(s), $hog busy processes)"
  python3 - "$results/outcomes" <<'PY'
import collections, sys
runs, fails = collections.Counter(), collections.Counter()
try:
    lines = open(sys.argv[1]).read().splitlines()
except FileNotFoundError:
    lines = []
for line in lines:
    label, name, code = line.split("\t")
    runs[label, name] += 1
    if code not in ("PASS", "XFAIL"):
        fails[label, name] += 1
for (label, name), f in sorted(fails.items(), key=lambda kv: (-kv[1], kv[0])):
    print("  %3d of %-3d  %-14s %s" % (f, runs[label, name], label, name))
print("  %d test runs, %d distinct tests failed at least once" % (sum(runs.values()), len(fails)))
PY
fi
echo "$total_pass passed, $total_fail failed"
[ $total_fail = 0 ] && [ $total_pass -gt 0 ]
