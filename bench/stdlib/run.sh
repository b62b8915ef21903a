#!/usr/bin/env bash
# The standard library against its peers, in one run (issue 7's targets):
#   channel ping-pong and 4-producer/4-consumer channel vs Go channels, with
#   1 and 2 processors (GOMAXPROCS 1 and 2);
#   semaphore ping-pong between user threads vs POSIX sem_t between
#   pthreads (on 1 CPU with taskset, and on both CPUs).
# Builds chan_bench.c against build/ (libcfa_std.a, libcfa.a) and go/ with
# the installed Go, runs every pair `runs` times (default 5) alternating the
# two programs so that machine load hits both alike, and prints medians
# (min-max) in ns per operation and the ratio peer/cfa-lite of the medians
# (> 1: cfa-lite is faster; the channel target is >= 1).
#
#   bench/stdlib/run.sh [runs] [iterations]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
runs=${1:-5}
iters=${2:-1000000}
std=$top/build/stdlib/libcfa_std.a
lib=$top/build/runtime/libcfa.a
[ -f "$std" ] && [ -f "$lib" ] || { echo "build first: ninja -C build cfa_std cfa" >&2; exit 1; }
command -v go >/dev/null || { echo "go is not installed" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

clang-19 -O2 -g -D_GNU_SOURCE -I"$top/runtime/include" -I"$top/stdlib/include" \
    -I"$top/compiler/include" "$here/chan_bench.c" "$std" "$lib" -luring -lhwloc -lpthread \
    -o "$out/chan_bench"
(cd "$here/go" && GOFLAGS=-mod=mod go build -o "$out/go_bench" .)
pin1=()
command -v taskset >/dev/null && pin1=(taskset -c 0)

# One line per measurement: "<label> <ns>".
measure() {  # label, command...
    local label=$1; shift
    local line
    line=$("$@") || { echo "failed: $*" >&2; exit 1; }
    echo "$label ${line##* }" >> "$out/results"
}

posix_iters=$((iters / 5))   # a kernel round trip costs some microseconds
mpmc_iters=$((iters * 5))
for r in $(seq "$runs"); do
    echo "run $r/$runs" >&2
    for p in 1 2; do
        measure "cfa_pingpong_$p" "$out/chan_bench" pingpong "$p" "$iters"
        measure "go_pingpong_$p" "$out/go_bench" pingpong "$p" "$iters"
        measure "cfa_mpmc_$p" "$out/chan_bench" mpmc "$p" "$mpmc_iters"
        measure "go_mpmc_$p" "$out/go_bench" mpmc "$p" "$mpmc_iters"
        measure "cfa_sem_$p" "$out/chan_bench" sem "$p" "$iters"
    done
    measure "posix_sem_1" "${pin1[@]}" "$out/chan_bench" posix_sem 1 "$posix_iters"
    measure "posix_sem_2" "$out/chan_bench" posix_sem 2 "$posix_iters"
done

python3 - "$out/results" "$top/bench/lib" <<'PY'
import statistics, sys
sys.path.insert(0, sys.argv[2])
from medians import load, print_table
rows, med = load(sys.argv[1])
print_table(rows, med, "ns/op", split_procs=True)
def ratios(peer, ours):
    med_ratio = med[peer] / med[ours]
    paired = statistics.median(p / o for p, o in zip(rows[peer], rows[ours]))
    return med_ratio, paired
print("ratio peer / cfa-lite (> 1: cfa-lite faster): of the medians, median of the per-run ratios")
for procs in ("1", "2"):
    for b in ("pingpong", "mpmc"):
        r, paired = ratios(f"go_{b}_{procs}", f"cfa_{b}_{procs}")
        target = "ok" if min(r, paired) >= 1 else "BELOW TARGET (>= 1)"
        print(f"  channel {b:8} {procs} processor(s): Go / cfa-lite = {r:.2f}, {paired:.2f}  {target}")
for procs in ("1", "2"):
    r, paired = ratios(f"posix_sem_{procs}", f"cfa_sem_{procs}")
    print(f"  semaphore ping-pong {procs} CPU/processor(s): sem_t / cfa-lite = {r:.1f}, {paired:.1f}")
PY
