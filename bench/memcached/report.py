#!/usr/bin/env python3
# report.py RAW OUT NOTE: run.sh's raw lines as tables (OUT/results.md) and
# plots (OUT/results.png), per update ratio: achieved rate and p50/p99/
# p99.9 latency against the target rate, medians of the runs with min-max,
# for memcached and cfa-memcached; then each update ratio's saturation
# throughput and p99 below saturation as cfa/memcached ratios.
#
# Saturation throughput: a server's highest median achieved rate over the
# sweep. Below saturation: the target rates both servers' medians reach
# within 5%; the p99 ratio is given at each and as their median. With a
# "before" build in the raw lines (run.sh's BEFORE), a second summary
# compares cfa-memcached with it the same way.
import math, statistics, sys
from collections import defaultdict

raw, out, note = sys.argv[1], sys.argv[2], sys.argv[3]
runs = defaultdict(list)               # (server, update, rate) -> [(achieved, p50, p99, p999)]
for line in open(raw).read().split("\n")[1:]:
    if line.strip():
        s, u, rate, _, *vals = line.split()
        runs[(s, float(u), int(rate))].append(tuple(float(v) for v in vals))
updates = sorted({u for _, u, _ in runs})
rates = sorted({r for _, _, r in runs})
SERVERS = [(s, n) for s, n in [("memcached", "memcached"), ("before", "cfa-memcached before"), ("cfa", "cfa-memcached")]
           if any(k[0] == s for k in runs)]

def med(s, u, r, i):
    v = [x[i] for x in runs.get((s, u, r), [])]
    return (statistics.median(v), min(v), max(v)) if v else None

def fmt(m, scale=1.0, digits=0):
    if m is None: return "-"
    f = lambda x: "inf" if math.isinf(x) else ("%.*f" % (digits, x / scale))
    return "%s (%s–%s)" % (f(m[0]), f(m[1]), f(m[2]))

def ratio(a, b):
    return a / b if b and not math.isinf(a) and not math.isinf(b) else float("nan")

def compare(u, a, b):
    """Summary row of server a against b at update ratio u: saturation
    throughputs and their ratio, p99 ratios below both saturations."""
    sat = {s: max(med(s, u, r, 0)[0] for r in rates if med(s, u, r, 0)) for s in (a, b)}
    below = [r for r in rates if all(med(s, u, r, 0) and med(s, u, r, 0)[0] >= 0.95 * r for s in (a, b))]
    p99r = [ratio(med(a, u, r, 2)[0], med(b, u, r, 2)[0]) for r in below]
    return "| %g%% | %.0f | %.0f | %.2f | %s | %s |" % (
        u * 100, sat[b], sat[a], ratio(sat[a], sat[b]),
        ", ".join("%d: %.2f" % (r, x) for r, x in zip(below, p99r)) or "-",
        "%.2f" % statistics.median(p99r) if p99r else "-")

lines, summary, against_before = [], [], []
for u in updates:
    lines += ["### %g%% updates" % (u * 100), "",
              "| target/s | memcached achieved/s | cfa achieved/s | memcached p50 / p99 / p99.9 ms | "
              "cfa p50 / p99 / p99.9 ms | p99 cfa/memcached |", "|---|---|---|---|---|---|"]
    for r in rates:
        cells = ["%d" % r]
        for s in ("memcached", "cfa"): cells.append(fmt(med(s, u, r, 0)))
        for s in ("memcached", "cfa"):
            ms = [med(s, u, r, i) for i in (1, 2, 3)]
            cells.append(" / ".join("-" if m is None else ("inf" if math.isinf(m[0]) else "%.2f" % (m[0] / 1000)) for m in ms))
        p_c, p_m = med("cfa", u, r, 2), med("memcached", u, r, 2)
        cells.append("%.2f" % ratio(p_c[0], p_m[0]) if p_c and p_m else "-")
        lines.append("| " + " | ".join(cells) + " |")
    if any(k[0] == "before" and k[1] == u for k in runs):
        lines += ["", "before (cfa-memcached, older build) achieved/s: " +
                  ", ".join("%d: %s" % (r, fmt(med("before", u, r, 0))) for r in rates) + "; p99 ms: " +
                  ", ".join("%d: %s" % (r, fmt(med("before", u, r, 2), 1000.0, 2)) for r in rates)]
        against_before.append(compare(u, "cfa", "before"))
    lines.append("")
    summary.append(compare(u, "cfa", "memcached"))
head = ["## Summary", "", note, "",
        "| updates | memcached saturation/s | cfa saturation/s | cfa/memcached | p99 cfa/memcached below saturation (target: ratio) | median |",
        "|---|---|---|---|---|---|"] + summary
if against_before:
    head += ["", "| updates | before saturation/s | cfa saturation/s | cfa/before | p99 cfa/before below saturation (target: ratio) | median |",
             "|---|---|---|---|---|---|"] + against_before
head += ["", "## Sweeps (medians, min–max in parentheses)", ""]
text = "\n".join(head + lines) + "\n"
open(out + "/results.md", "w").write(text)
print(text)
try:
    import matplotlib; matplotlib.use("Agg"); import matplotlib.pyplot as plt
    fig, ax = plt.subplots(2, len(updates), figsize=(4 * len(updates), 7), squeeze=False)
    for j, u in enumerate(updates):
        for s, name in SERVERS:
            xs = [r for r in rates if med(s, u, r, 0)]
            for row, i, scale in ((0, 0, 1.0), (1, 2, 1000.0)):
                m = [med(s, u, r, i) for r in xs]
                cap = lambda x: x if not math.isinf(x) else float("nan")
                ax[row][j].plot(xs, [cap(v[0]) / scale for v in m], "o-", label=name)
                ax[row][j].fill_between(xs, [cap(v[1]) / scale for v in m], [cap(v[2]) / scale for v in m], alpha=0.2)
        ax[0][j].plot(rates, rates, "k:", lw=0.8, label="target")
        ax[0][j].set(xlabel="target requests/s", ylabel="achieved requests/s", title="%g%% updates" % (u * 100))
        ax[1][j].set(xlabel="target requests/s", ylabel="p99 latency (ms)", yscale="log")
        ax[0][j].legend(fontsize=8)
    fig.tight_layout(); fig.savefig(out + "/results.png", dpi=90)
except ImportError:
    print("matplotlib missing: no plot")
