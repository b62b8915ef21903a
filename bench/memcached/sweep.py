#!/usr/bin/env python3
"""sweep.py OUT RUNS SECONDS NOTE < configurations: bench/memcached/run.sh's
open-loop rate sweep through the benchmark harness (bench/lib/driver.py).

Runs the configurations run.sh lists on stdin (driver.FIELDS, TAB
separated: benchmark u<update ratio>, variant the target rate, runtime the
server, each command one loadgen run printing its achieved rate and, as
METRICs, p50/p99/p99.9 in ms) RUNS times, interleaved, and writes raw.csv,
summary.csv and summary.md into OUT as bench/run does. Then, per update
ratio, the sweep's own summary (appended to summary.md, and printed):
each server's saturation throughput (its highest median achieved rate)
and, at the target rates that both servers' medians reach within 5%, the
p99 ratio cfa/memcached (and cfa/before when run.sh ran BEFORE); and
sweep.png, achieved rate and p99 against the target rate.
"""
import argparse
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import driver  # noqa: E402


def index(rows):
    """{(server, update benchmark, variant): summary row}."""
    return {(r["runtime"], r["benchmark"], r["variant"]): r for r in rows}


def compare(idx, u, rates, a, b):
    """Summary row of server a against b at update benchmark u."""
    def med(s, rate, metric=""):
        r = idx.get((s, u, str(rate) + metric))
        return r["median"] if r else None
    sat = {s: max([m for m in (med(s, rate) for rate in rates) if m is not None], default=float("nan"))
           for s in (a, b)}
    below = [rate for rate in rates if all(med(s, rate) is not None and med(s, rate) >= 0.95 * rate for s in (a, b))]
    p99 = []
    for rate in below:
        x, y = med(a, rate, "-p99"), med(b, rate, "-p99")
        p99.append((rate, x / y if x is not None and y and not math.isinf(x) and not math.isinf(y) else float("nan")))
    finite = [x for _, x in p99 if not math.isnan(x)]
    return "| %s | %.0f | %.0f | %.2f | %s | %s |" % (
        u[1:], sat[b], sat[a], sat[a] / sat[b] if sat[b] else float("nan"),
        ", ".join("%d: %.2f" % rx for rx in p99) or "-", "%.2f" % statistics.median(finite) if finite else "-")


def saturation(rows):
    idx = index(rows)
    updates = sorted({r["benchmark"] for r in rows})
    rates = sorted({int(r["variant"]) for r in rows if r["variant"].isdigit()})
    servers = {r["runtime"] for r in rows}
    out = []
    for other in ("memcached", "before"):
        if other not in servers or "cfa" not in servers:
            continue
        out += ["", "## Saturation: cfa against %s" % other, "",
                "| updates | %s saturation/s | cfa saturation/s | cfa/%s | p99 cfa/%s below saturation (target: ratio) | median |"
                % (other, other, other), "|---|---|---|---|---|---|"]
        out += [compare(idx, u, rates, "cfa", other) for u in updates]
    return "\n".join(out) + "\n"


def plot(out, rows):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    idx = index(rows)
    updates = sorted({r["benchmark"] for r in rows})
    rates = sorted({int(r["variant"]) for r in rows if r["variant"].isdigit()})
    servers = driver.runtime_order(rows)
    fig, ax = plt.subplots(2, len(updates), figsize=(4 * len(updates), 7), squeeze=False)
    finite = lambda x: x if x is not None and not math.isinf(x) else float("nan")
    for j, u in enumerate(updates):
        for s in servers:
            for row, metric in ((0, ""), (1, "-p99")):
                pts = [(rate, idx.get((s, u, str(rate) + metric))) for rate in rates]
                pts = [(rate, r) for rate, r in pts if r and r["median"] is not None]
                if not pts:
                    continue
                xs = [rate for rate, _ in pts]
                line, = ax[row][j].plot(xs, [finite(r["median"]) for _, r in pts], "o-", label=s)
                ax[row][j].fill_between(xs, [finite(r["min"]) for _, r in pts], [finite(r["max"]) for _, r in pts],
                                        color=line.get_color(), alpha=0.2)
        ax[0][j].plot(rates, rates, "k:", lw=0.8, label="target")
        ax[0][j].set(xlabel="target requests/s", ylabel="achieved requests/s", title="%s updates" % u[1:])
        ax[1][j].set(xlabel="target requests/s", ylabel="p99 latency (ms)", yscale="log")
        ax[0][j].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "sweep.png"), dpi=90)


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: sweep.py OUT RUNS SECONDS NOTE < configurations")
    out, runs, seconds, note = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    configs = []
    for line in sys.stdin:
        c = dict(zip(driver.FIELDS, line.rstrip("\n").split("\t")), suite="memcached-sweep")
        c["procs"] = int(c["procs"])
        configs.append(c)
    os.makedirs(out, exist_ok=True)
    raw = driver.run_all(argparse.Namespace(runs=runs, seconds=seconds, out=out), configs)
    driver.write_raw(os.path.join(out, "raw.csv"), raw)
    rows = driver.summarize(raw)
    driver.write_summary_csv(os.path.join(out, "summary.csv"), rows)
    driver.write_markdown(os.path.join(out, "summary.md"), rows, note)
    text = saturation(rows)
    with open(os.path.join(out, "summary.md"), "a") as f:
        f.write(text)
    print(text)
    try:
        plot(out, rows)
    except ImportError:
        print("matplotlib missing: no plot", file=sys.stderr)


if __name__ == "__main__":
    main()
