#!/usr/bin/env python3
# report.py RAW OUT UPTIME: the medians of run.sh's raw lines as a Markdown
# table (cfa/nginx ratios; before/nginx too when run.sh ran BEFORE) in
# OUT/results.md and a plot in OUT/results.png.
import statistics, sys
from collections import defaultdict
raw, out, load = sys.argv[1], sys.argv[2], sys.argv[3]
v = defaultdict(lambda: ([], []))
for line in open(raw).read().split("\n")[1:]:
    if line.strip():
        s, c, _, rps, p99 = line.split()
        v[(s, int(c))][0].append(float(rps)); v[(s, int(c))][1].append(float(p99))
conns = sorted({c for _, c in v})
med = {k: (statistics.median(a), statistics.median(b)) for k, (a, b) in v.items()}
servers = [s for s in ("nginx", "before", "cfa") if (s, conns[0]) in v]
lines = []
for s in servers[1:]:
    lines += ["", "%s against nginx:" % s, "",
              "| connections | nginx req/s | %s req/s | %s/nginx | nginx p99 ms | %s p99 ms | %s/nginx p99 |" % ((s,) * 4),
              "|---|---|---|---|---|---|---|"]
    for c in conns:
        n, f = med[("nginx", c)], med[(s, c)]
        lines.append("| %d | %.0f | %.0f | %.2f | %.2f | %.2f | %.2f |" % (c, n[0], f[0], f[0] / n[0], n[1], f[1], f[1] / n[1]))
lines.append("\nmedians of %d runs; load: %s" % (len(v[("cfa", conns[0])][0]), load.strip()))
open(out + "/results.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
try:
    import matplotlib; matplotlib.use("Agg"); import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    for s in servers:
        ax[0].plot(conns, [med[(s, c)][0] for c in conns], "o-", label=s)
        ax[1].plot(conns, [med[(s, c)][1] for c in conns], "o-", label=s)
    ax[0].set(xscale="log", xlabel="connections", ylabel="requests/s", title="throughput")
    ax[1].set(xscale="log", xlabel="connections", ylabel="p99 latency (ms)", title="p99 latency")
    ax[0].legend(); fig.tight_layout(); fig.savefig(out + "/results.png")
except ImportError:
    print("matplotlib missing: no plot")
