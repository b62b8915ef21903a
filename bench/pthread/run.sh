#!/usr/bin/env bash
# The cost of each pthread call on cfa-lite threads against glibc's
# (pthread_bench.c): runs it N times (default 5) and prints a Markdown
# table of medians, as in docs/pthreads.md.
#
#   bench/pthread/run.sh [runs] [scale]
#   BUILD=build-foo bench/pthread/run.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
runs=${1:-5}
scale=${2:-1}
build=${BUILD:-$top/build}
bin=$(mktemp)
out=$(mktemp)
trap 'rm -f "$bin" "$out"' EXIT
clang-19 -std=gnu17 -O2 -D_GNU_SOURCE -I"$top/runtime/include" "$here/pthread_bench.c" -o "$bin" \
  "$build/runtime/libcfa.a" -luring -lhwloc -lpthread
for r in $(seq "$runs"); do
  echo "run $r/$runs" >&2
  CFA_PREEMPTION_MS=0 "$bin" "$scale" >>"$out"
done
python3 - "$out" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, ours, theirs = line.split()
    rows.setdefault(name, ([], []))
    rows[name][0].append(float(ours))
    rows[name][1].append(float(theirs))
print("| call | cfa-lite ns | glibc ns | ratio |")
print("| --- | ---: | ---: | ---: |")
for name, (ours, theirs) in rows.items():
    o, t = statistics.median(ours), statistics.median(theirs)
    print(f"| {name} | {o:.1f} | {t:.1f} | {o / t:.2f} |")
PY
