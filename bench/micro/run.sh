#!/usr/bin/env bash
# Runs the micro-benchmarks (micro_bench.c) N times (default 5) and prints
# a Markdown table of median, min and max ns per operation, the cfa-lite
# figures beside their pthread peers and the targets of issue 2.
#
#   bench/micro/run.sh [runs] [scale]      scale multiplies iteration counts
#   BUILD=build-foo bench/micro/run.sh     another build directory
#   MICRO_CLOCK=wall bench/micro/run.sh    wall clock instead of thread CPU time
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
runs=${1:-5}
scale=${2:-1}
build=${BUILD:-$top/build}
case "$build" in /*) ;; *) build=$top/$build ;; esac
bin=$build/bench/micro_bench
if [ ! -x "$bin" ] || [ "$bin" -ot "$here/micro_bench.c" ]; then
  ninja -C "$build" micro_bench >&2
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for r in $(seq "$runs"); do
  echo "run $r/$runs" >&2
  CFA_PREEMPTION_MS=0 "$bin" -n "$scale" >>"$out"
done
python3 - "$out" "$runs" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, value = line.split()
    rows.setdefault(name, []).append(float(value))
targets = {"coroutine_resume": 15, "thread_yield": 40, "thread_create_join": 400}
peers = {"thread_yield": "sched_yield", "thread_create_join": "pthread_create_join"}
print(f"| benchmark | median ns/op | min | max | target | vs peer |")
print(f"| --- | ---: | ---: | ---: | ---: | --- |")
for name, v in rows.items():
    med = statistics.median(v)
    t = targets.get(name)
    tcol = f"< {t} {'ok' if med < t else 'MISSED'}" if t else ""
    peer = peers.get(name)
    pcol = ""
    if peer in rows:
        pcol = f"{statistics.median(rows[peer]) / med:.1f}x faster than {peer}"
    print(f"| {name} | {med:.1f} | {min(v):.1f} | {max(v):.1f} | {tcol} | {pcol} |")
import os
clock = "wall clock (CLOCK_MONOTONIC)" if os.environ.get("MICRO_CLOCK") == "wall" else "thread CPU time (CLOCK_THREAD_CPUTIME_ID)"
print(f"\n{sys.argv[2]} runs each; {clock}; preemption off; 1 processor.")
PY
