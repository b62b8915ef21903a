#!/usr/bin/env bash
# Monitor micro-benchmarks (first thesis) beside pthreads, in one run:
# builds monitor_bench against build/runtime/libcfa.a, runs it N times
# (default 5) and prints medians (min-max) in ns per operation and the
# ratios the monitor issue sets targets for.
#
#   bench/monitor/run.sh [runs] [iterations]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
runs=${1:-5}
iters=${2:-1000000}
lib=$top/build/runtime/libcfa.a
[ -f "$lib" ] || { echo "build the runtime first (make build)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
clang-19 -O2 -g -I"$top/runtime/include" "$here/monitor_bench.c" "$lib" -luring -lhwloc -lpthread \
    -o "$out/monitor_bench"
for r in $(seq "$runs"); do
    echo "run $r/$runs" >&2
    "$out/monitor_bench" "$iters" >> "$out/results"
done
python3 - "$out/results" "$top/bench/lib" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from medians import load, print_table
rows, med = load(sys.argv[1])
print_table(rows, med, "ns")
print(f"mutex call, 1 monitor / pthread lock+unlock: {med['mutex1'] / med['pthread_mutex1']:.2f} (target <= 1.5)")
print(f"mutex call scaling 1 -> 2 -> 4 monitors: {med['mutex2'] / med['mutex1']:.2f}x, {med['mutex4'] / med['mutex1']:.2f}x (linear: 2x, 4x)")
print(f"pthread condvar ping-pong / signal-wait round trip: {med['pthread_cond'] / med['signal']:.1f}x faster (target >= 5)")
print(f"pthread condvar ping-pong / waitfor round trip: {med['pthread_cond'] / med['waitfor']:.1f}x faster (target >= 5)")
PY
