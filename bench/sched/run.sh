#!/usr/bin/env bash
# The scheduler micro-benchmarks of thesis chapter 7, helping scheduler
# against the classic work-stealing baseline.
#
#   bench/sched/run.sh [-n RUNS] [-d SECONDS] [-b BUILD_ROOT] [-q]
#
# Builds bench/sched twice under BUILD_ROOT (default build-bench-sched/ at
# the top of the tree): helping/ (the runtime as is) and baseline/ (the
# runtime with -DCFA_NO_HELPING=ON), then runs every configuration RUNS
# times (default 5) for SECONDS each (default 1), alternating the two
# builds run by run so that drifting machine load hits both alike, and
# prints a Markdown table of medians (min-max) with the helping/baseline
# ratio. Throughput is in millions of operations per second (higher is
# better); transfer is the mean latency of one transfer (lower is better),
# "did not complete" when a transfer was not acknowledged within 5 s.
# Raw RESULT lines go to BUILD_ROOT/results.txt. -q: no progress on stderr.
#
# Configurations (thesis 7.3-7.7): cycle, yield, churn at the two load
# levels (many = 100 per processor; few = 1 ring / 1 thread / 2 threads
# per processor), locality share and noshare (100 threads per processor),
# on 1 and 2 processors; transfer park and yield on 2 processors (100
# threads per processor, CFA_PREEMPTION_MS=0). Environment: CC (clang-19),
# JOBS (build parallelism, 2).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
runs=5 seconds=1 root="$top/build-bench-sched" quiet=0
while getopts "n:d:b:q" opt; do
  case $opt in
    n) runs=$OPTARG ;;
    d) seconds=$OPTARG ;;
    b) root=$OPTARG ;;
    q) quiet=1 ;;
    *) sed -n '2,25p' "$0" >&2; exit 2 ;;
  esac
done
CC=${CC:-clang-19}
JOBS=${JOBS:-2}

log() { [ "$quiet" = 1 ] || echo "$@" >&2; }

mkdir -p "$root"
for b in helping:OFF baseline:ON; do
  dir="$root/${b%%:*}"
  if [ ! -f "$dir/build.ninja" ]; then
    cmake -S "$top/bench/sched" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_C_COMPILER="$CC" -DCFA_NO_HELPING="${b#*:}" >"$root/cmake.log" 2>&1 \
      || { cat "$root/cmake.log" >&2; exit 1; }
  fi
  ninja -C "$dir" -j "$JOBS" >/dev/null || { echo "build of $dir failed" >&2; exit 1; }
done

# label | program | arguments | environment
configs=()
for p in 1 2; do
  configs+=("cycle|many|$p|cycle|-p $p -t 100|"
            "cycle|few|$p|cycle|-p $p -t 1|"
            "yield|many|$p|yield|-p $p -t 100|"
            "yield|few|$p|yield|-p $p -t 1|"
            "churn|many|$p|churn|-p $p -t 100|"
            "churn|few|$p|churn|-p $p -t 2|"
            "locality share|100/proc|$p|locality|-p $p -t 100 -v share|"
            "locality noshare|100/proc|$p|locality|-p $p -t 100 -v noshare|")
done
configs+=("transfer park|100/proc|2|transfer|-p 2 -t 100 -v park|CFA_PREEMPTION_MS=0"
          "transfer yield|100/proc|2|transfer|-p 2 -t 100 -v yield|CFA_PREEMPTION_MS=0")

raw="$root/results.txt"
: >"$raw"
limit=$(awk -v s="$seconds" 'BEGIN { printf "%d", s + 30 }')
total=$(( ${#configs[@]} * runs * 2 )) done_runs=0
for c in "${configs[@]}"; do
  IFS='|' read -r name load procs prog args envs <<<"$c"
  for ((i = 1; i <= runs; i++)); do
    for build in helping baseline; do
      done_runs=$((done_runs + 1))
      log "[$done_runs/$total] $build $name $load p=$procs"
      # shellcheck disable=SC2086
      out=$(env $envs timeout -k 5 "$limit" "$root/$build/$prog" $args -d "$seconds" 2>/dev/null) || true
      line=$(grep '^RESULT ' <<<"$out" | tail -1 || true)
      [ -n "$line" ] || line="RESULT status=dnc (no result: timeout or crash)"
      echo "$name|$load|$procs|$build|$line" >>"$raw"
    done
  done
done

python3 - "$raw" "$runs" "$seconds" <<'PY'
import statistics, sys
raw, runs, seconds = sys.argv[1], int(sys.argv[2]), sys.argv[3]
order, data = [], {}
for line in open(raw):
    name, load, procs, build, result = line.rstrip("\n").split("|", 4)
    key = (name, load, procs)
    if key not in data:
        order.append(key)
        data[key] = {"helping": [], "baseline": []}
    fields = dict(f.split("=", 1) for f in result.split()[1:] if "=" in f)
    if fields.get("status") == "dnc":
        value = None
    elif "latency_us" in fields:
        value = float(fields["latency_us"])
    else:
        value = float(fields["ops_per_s"]) / 1e6
    data[key][build].append(value)

def cell(values, latency):
    ok = sorted(v for v in values if v is not None)
    if not ok:
        return "did not complete", None
    med = statistics.median(ok)
    fmt = (lambda v: "%.0f" % v) if latency else (lambda v: "%.2f" % v)
    text = "%s (%s-%s)" % (fmt(med), fmt(ok[0]), fmt(ok[-1]))
    if len(ok) < len(values):
        text += ", %d/%d did not complete" % (len(values) - len(ok), len(values))
    return text, med

print("%d runs of %s s each per build, alternating builds; median (min-max)." % (runs, seconds))
print()
print("| benchmark | load | procs | unit | helping | baseline (no helping) | helping / baseline |")
print("|---|---|---:|---|---:|---:|---:|")
for key in order:
    name, load, procs = key
    latency = name.startswith("transfer")
    unit = "us/transfer" if latency else "Mops/s"
    h, hm = cell(data[key]["helping"], latency)
    b, bm = cell(data[key]["baseline"], latency)
    if hm is None or bm is None:
        ratio = "baseline did not complete" if bm is None and hm is not None else "-"
    else:
        ratio = "%.2f" % (hm / bm)
    print("| %s | %s | %s | %s | %s | %s | %s |" % (name, load, procs, unit, h, b, ratio))
PY
