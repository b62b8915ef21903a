#!/usr/bin/env bash
# bench/forkjoin/overhead.sh <bindir> [rounds]: the sequential overhead of
# each runtime at 1 processor, measured in process CPU time rather than
# elapsed time (on a loaded machine a program gets a varying share of its
# CPU, which CPU time does not count). <bindir> is what `suite build`
# wrote (bench/run: build-bench/results/bin/forkjoin). Runs every
# configuration of `suite list <bindir> 1` once per round, rounds
# interleaved (default 5), and prints a Markdown table of the median CPU
# ms per run and its ratio to the sequential C program's (1.10 = 10%
# overhead).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 <bindir> [rounds]" >&2; exit 2; }
bindir=$1 rounds=${2:-5}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
mapfile -t configs < <("$here/suite" list "$bindir" 1)
for ((r = 1; r <= rounds; r++)); do
    for c in "${configs[@]}"; do
        IFS=$'\t' read -r bench variant rt _ _ _ cmd <<<"$c"
        cpu=$(bash -c "$cmd" | sed -n 's/.*, CPU \([0-9.]*\) ms$/\1/p')
        [ -n "$cpu" ] || { echo "bench/forkjoin/overhead.sh: no CPU time from: $cmd" >&2; exit 1; }
        printf '%s\t%s\t%s\t%s\n' "$bench" "$variant" "$rt" "$cpu" >>"$tmp"
        echo "round $r/$rounds: $bench $variant $rt $cpu ms" >&2
    done
done
python3 - "$tmp" <<'PY'
import statistics, sys
runs, rts = {}, []  # rts: the runtimes in `suite list` order (seq first)
for line in open(sys.argv[1]):
    b, v, rt, cpu = line.split("\t")
    runs.setdefault((b, v), {}).setdefault(rt, []).append(float(cpu))
    if rt not in rts:
        rts.append(rt)
print("| benchmark | variant | " + " | ".join("%s CPU ms" % rt for rt in rts) + " | " +
      " | ".join("%s / seq" % rt for rt in rts if rt != "seq") + " |")
print("|" + "---|" * (2 + 2 * len(rts) - 1))
for (b, v), d in runs.items():
    med = {rt: statistics.median(d[rt]) for rt in rts if rt in d}
    ratios = ["%.2f" % (med[rt] / med["seq"]) if rt in med and "seq" in med else "" for rt in rts if rt != "seq"]
    print("| %s | %s | %s | %s |" % (b, v, " | ".join("%.1f" % med[rt] if rt in med else "" for rt in rts), " | ".join(ratios)))
PY
