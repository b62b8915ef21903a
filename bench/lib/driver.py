"""bench/lib/driver.py: the one benchmark harness, behind bench/run.

Owns: building every suite (bench/*/suite, protocol in bench/README.md),
running each configuration N times *interleaved* (run 1 of everything,
then run 2, ...: the machine's noise then falls on every runtime alike, so
ratios within a run are fair), the statistics (median, min, max, and the
ratios against cfa-lite and the sequential baseline), and writing raw.csv,
summary.csv, summary.md and plots/*.png into the output directory.
Every suite in bench/ runs through it; none computes its own medians.

A run that hangs is killed at its time limit and recorded as dnf; one
that exits non-zero or prints no RESULT line is recorded as an error, its
output kept in logs/. Neither stops the other runs.
"""
import argparse
import csv
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Table and plot order; a suite may list other runtimes (they follow, in
# name order). "seq" is a suite's sequential baseline: not a peer (no
# cfa-lite advantage over it) but what every runtime's speed-up is over.
RUNTIMES = ["cfa", "cfa-lang", "go", "tokio", "pthread", "tbb", "omp", "rayon", "seq"]
BASELINE = "seq"
FIELDS = ["benchmark", "variant", "runtime", "procs", "unit", "better", "command"]


def parse_args(argv):
    p = argparse.ArgumentParser(prog="bench/run", description=__doc__.split("\n\n")[0])
    p.add_argument("-n", "--runs", type=int, default=5, help="runs per configuration (default 5)")
    p.add_argument("-p", "--procs", default="1 2",
                   help="processor counts, space or comma separated (default '1 2')")
    p.add_argument("--suite", action="append", help="only this suite (repeatable; default every bench/*/suite)")
    p.add_argument("--filter", help="only configurations whose 'suite/benchmark/variant/runtime' matches this regex")
    p.add_argument("--seconds", type=float, default=1.0, help="BENCH_SECONDS for each run (default 1)")
    p.add_argument("--out", default=os.path.join(REPO, "build-bench", "results"), help="output directory")
    p.add_argument("--bench-dir", default=os.path.join(REPO, "bench"),
                   help="where the suites are, <dir>/<name>/suite (default bench/)")
    p.add_argument("--no-build", action="store_true", help="use the programs built by an earlier run")
    p.add_argument("--plots-only", action="store_true", help="rewrite the summary and plots from raw.csv")
    p.add_argument("--no-plots", action="store_true", help="raw.csv and the summaries only (no matplotlib needed)")
    a = p.parse_args(argv)
    a.procs = [int(x) for x in re.split(r"[ ,]+", a.procs.strip()) if x]
    if not a.procs or min(a.procs) < 1 or a.runs < 1 or a.seconds <= 0:
        p.error("processor counts, runs and seconds must be positive")
    return a


def suites(bench_dir, only):
    found = sorted(d for d in os.listdir(bench_dir) if os.access(os.path.join(bench_dir, d, "suite"), os.X_OK))
    if only:
        missing = [s for s in only if s not in found]
        if missing:
            sys.exit("bench/run: no suite %s (there are: %s)" % (", ".join(missing), ", ".join(found)))
        found = [s for s in found if s in only]
    return found


def configurations(args, names):
    configs = []
    for s in names:
        script = os.path.join(args.bench_dir, s, "suite")
        bindir = os.path.join(args.out, "bin", s)
        if not args.no_build:
            print("== building suite %s" % s, file=sys.stderr, flush=True)
            subprocess.run([script, "build", bindir], check=True)
        # BENCH_SECONDS reaches `list` too: a suite whose programs run a
        # fixed amount of work sizes it from the run's length.
        out = subprocess.run([script, "list", bindir] + [str(p) for p in args.procs],
                             env=dict(os.environ, BENCH_SECONDS=str(args.seconds)),
                             check=True, capture_output=True, text=True).stdout
        for line in out.splitlines():
            f = line.split("\t")
            if len(f) != len(FIELDS):
                sys.exit("bench/run: suite %s listed a bad line: %r" % (s, line))
            c = dict(zip(FIELDS, f), suite=s)
            c["procs"] = int(c["procs"])
            if args.filter and not re.search(args.filter, "%s/%s/%s/%s" % (s, c["benchmark"], c["variant"], c["runtime"])):
                continue
            configs.append(c)
    if not configs:
        sys.exit("bench/run: no configuration matches" + (" --filter %r" % args.filter if args.filter else ""))
    return configs


def metrics(stdout):
    """The further results a run printed, `METRIC <name> <unit> <higher|lower>
    <value>` lines: [(name, unit, better, value)]; malformed lines are left
    out (the main RESULT decides whether the run failed)."""
    found = []
    for line in stdout.splitlines():
        f = line.split()
        if len(f) == 5 and f[0] == "METRIC" and f[3] in ("higher", "lower"):
            try:
                found.append((f[1], f[2], f[3], float(f[4])))
            except ValueError:
                pass
    return found


def run_once(c, seconds, logdir, tag):
    """One run: (the RESULT value (float), 'dnf' or 'error'; its metrics())."""
    env = dict(os.environ, BENCH_SECONDS=str(seconds))
    limit = 10 * seconds + 20
    # The command may start with VAR=value words: a shell runs it, in a
    # session of its own so that a hung run dies with everything it started.
    p = subprocess.Popen(["bash", "-c", c["command"]], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        stdout, stderr = p.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return "dnf", []
    p.stdout, p.stderr = stdout, stderr
    last = [l for l in p.stdout.splitlines() if l.startswith("RESULT ")]
    if p.returncode == 0 and last:
        v = last[-1].split()[1:2]
        if v == ["dnf"]:
            return "dnf", []
        try:
            return float(v[0]), metrics(p.stdout)
        except (IndexError, ValueError):
            pass  # a malformed RESULT line: an error, logged below
    os.makedirs(logdir, exist_ok=True)
    with open(os.path.join(logdir, tag + ".log"), "w") as f:
        f.write("command: %s\nexit status: %d\n--- stdout\n%s--- stderr\n%s" % (c["command"], p.returncode, p.stdout, p.stderr))
    return "error", []


def round_order(configs, rng):
    """configs in the order of one round: each run of consecutive
    configurations of one benchmark at one processor count (its runtimes
    and variants) is shuffled by rng, so that a runtime does not always
    run right after the same one. In a fixed order the state one program
    leaves the machine in (clock frequency, caches, memory the kernel is
    still reclaiming) moved the next one's results by about 1%, the same
    way at every round."""
    out, group = [], []
    key = lambda c: (c["suite"], c["benchmark"], c["procs"])
    shuffle = rng.shuffle
    for c in configs + [None]:
        if group and (c is None or key(c) != key(group[0])):
            shuffle(group)
            out += group
            group = []
        if c is not None:
            group.append(c)
    return out


def run_all(args, configs):
    raw = []
    total = len(configs) * args.runs
    start = time.time()
    k = 0
    rng = random.Random(0)  # the same orders in every invocation
    for r in range(1, args.runs + 1):
        for c in round_order(configs, rng):
            k += 1
            tag = "%s-%s-%s-%s-p%d-run%d" % (c["suite"], c["benchmark"], c["variant"], c["runtime"], c["procs"], r)
            v, extra = run_once(c, args.seconds, os.path.join(args.out, "logs"), tag)
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
            raw.append(dict(c, run=r, value=v, timestamp=stamp))
            # A METRIC is one more configuration, its variant named after it.
            for name, unit, better, value in extra:
                variant = name if c["variant"] == "-" else "%s-%s" % (c["variant"], name)
                raw.append(dict(c, variant=variant, unit=unit, better=better, run=r, value=value, timestamp=stamp))
            eta = (time.time() - start) / k * (total - k)
            shown = ("%.4g %s" % (v, c["unit"])) if isinstance(v, float) else v
            print("[%d/%d] %s %s %s %s p=%d run %d/%d: %s (eta %dm%02ds)" % (
                k, total, c["suite"], c["benchmark"], c["variant"], c["runtime"], c["procs"], r, args.runs,
                shown, eta // 60, eta % 60), file=sys.stderr, flush=True)
    return raw


RAW_FIELDS = ["suite", "benchmark", "variant", "runtime", "procs", "run", "value", "unit", "better", "timestamp"]


def write_raw(path, raw):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, RAW_FIELDS, extrasaction="ignore")
        w.writeheader()
        w.writerows(raw)


def read_raw(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r["procs"] = int(r["procs"])
        try:
            r["value"] = float(r["value"])
        except ValueError:
            pass
    return rows


def compare(rows, field, runtime, order):
    """Sets r[field] of every row to how much better a is than b, where
    (a, b) = order(r, that configuration's row of `runtime`); None without
    both medians."""
    ref = {(r["suite"], r["benchmark"], r["variant"], r["procs"]): r for r in rows if r["runtime"] == runtime}
    for r in rows:
        base = ref.get((r["suite"], r["benchmark"], r["variant"], r["procs"]))
        r[field] = None
        if base and base["median"] and r["median"]:
            a, b = order(r, base)
            r[field] = a["median"] / b["median"] if r["better"] == "higher" else b["median"] / a["median"]


def compare_paired(rows):
    """Sets r["cfa_advantage_paired"]: the median over the rounds of
    cfa-lite's advantage within one round (the runs of a round are
    neighbours in time, so a drift of the machine's load cancels out);
    None without a round that both completed."""
    ref = {(r["suite"], r["benchmark"], r["variant"], r["procs"]): r for r in rows if r["runtime"] == "cfa"}
    for r in rows:
        cfa = ref.get((r["suite"], r["benchmark"], r["variant"], r["procs"]))
        rounds = sorted(set(r["by_run"]) & set(cfa["by_run"])) if cfa and r["median"] is not None else []
        ratios = [cfa["by_run"][k] / r["by_run"][k] if r["better"] == "higher" else r["by_run"][k] / cfa["by_run"][k]
                  for k in rounds if r["by_run"][k] and cfa["by_run"][k]]
        r["cfa_advantage_paired"] = statistics.median(ratios) if ratios else None


def summarize(raw):
    """One row per (suite, benchmark, variant, procs, runtime)."""
    groups = {}
    for r in raw:
        key = (r["suite"], r["benchmark"], r["variant"], r["procs"], r["runtime"])
        groups.setdefault(key, dict(unit=r["unit"], better=r["better"], values=[], failed=[], by_run={}))
        g = groups[key]
        (g["values"] if isinstance(r["value"], float) else g["failed"]).append(r["value"])
        if isinstance(r["value"], float):
            g["by_run"][int(r["run"])] = r["value"]
    rows = []
    for key, g in groups.items():
        v = g["values"]
        row = dict(zip(["suite", "benchmark", "variant", "procs", "runtime"], key), unit=g["unit"],
                   better=g["better"], n=len(v), failed=len(g["failed"]), by_run=g["by_run"])
        # A configuration that failed in at least half its runs has no median.
        if v and len(v) > len(g["failed"]):
            row.update(median=statistics.median(v), min=min(v), max=max(v))
        else:
            row.update(median=None, min=None, max=None,
                       status="dnf" if "dnf" in g["failed"] else "error")
        rows.append(row)
    # cfa-lite's advantage over every runtime, and every runtime's speed-up
    # over the sequential baseline (same configuration and processors): > 1
    # means cfa-lite (the runtime) is better, whichever way "better" points.
    compare(rows, "cfa_advantage", "cfa", lambda r, cfa: (cfa, r))
    compare(rows, "speedup", BASELINE, lambda r, seq: (r, seq))
    compare_paired(rows)
    order = {rt: i for i, rt in enumerate(runtime_order(rows))}
    rows.sort(key=lambda r: (r["suite"], r["benchmark"], r["variant"], r["procs"], order[r["runtime"]]))
    return rows


def write_summary_csv(path, rows):
    fields = ["suite", "benchmark", "variant", "procs", "runtime", "unit", "better", "n", "failed",
              "median", "min", "max", "cfa_advantage", "cfa_advantage_paired", "speedup"]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fields, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: ("%.6g" % r[k] if isinstance(r.get(k), float) else r.get(k, "")) for k in fields})


def machine():
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            model = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return "%d CPUs (%s), Linux %s" % (os.cpu_count(), model, os.uname().release)


def cell(r):
    if r is None:
        return ""
    if r["median"] is None:
        return r["status"]
    return "%.4g [%.4g-%.4g]" % (r["median"], r["min"], r["max"])


def runtime_order(rows):
    """The runtimes present in rows: RUNTIMES' order, then the others by name."""
    present = {r["runtime"] for r in rows}
    return [rt for rt in RUNTIMES if rt in present] + sorted(present - set(RUNTIMES))


def write_markdown(path, rows, header):
    out = ["# Benchmark results", "", header, "",
           "Each cell: median [min-max] of the runs. *cfa-lite advantage* is cfa-lite's median over the "
           "peer's (throughput) or the peer's over cfa-lite's (latency): above 1, cfa-lite is better; "
           "*paired*: the median of that ratio within each round of runs. "
           "*Speed-up* (suites with a sequential baseline, `seq`): the baseline's median over the "
           "runtime's at the same processor count (throughput: the other way round), above 1 faster. "
           "dnf: did not finish; error: see logs/.", ""]
    for suite in sorted({r["suite"] for r in rows}):
        srows = [r for r in rows if r["suite"] == suite]
        present = runtime_order(srows)
        peers = [rt for rt in present if rt not in ("cfa", BASELINE)] if "cfa" in present else []
        fast = [rt for rt in present if rt != BASELINE] if BASELINE in present else []
        out += ["## %s" % suite, "",
                "| benchmark | variant | procs | unit | " + " | ".join(present) + " | " +
                " | ".join(["cfa-lite advantage over %s" % p for p in peers] +
                           ["%s speed-up" % rt for rt in fast]) + " |",
                "|" + "---|" * (4 + len(present) + len(peers) + len(fast))]
        keys = sorted({(r["benchmark"], r["variant"], r["procs"]) for r in srows})
        for b, v, p in keys:
            by = {r["runtime"]: r for r in srows if (r["benchmark"], r["variant"], r["procs"]) == (b, v, p)}
            unit = next(iter(by.values()))["unit"] + (" (lower is better)" if next(iter(by.values()))["better"] == "lower" else "")
            adv = []
            for peer in peers:
                a = by.get(peer, {}).get("cfa_advantage")
                paired = by.get(peer, {}).get("cfa_advantage_paired")
                if a is not None:
                    adv.append("%.2f" % a + ("" if paired is None else " (paired %.2f)" % paired))
                elif peer in by and by[peer]["median"] is None and by.get("cfa", {}).get("median"):
                    adv.append("%s %s" % (peer, by[peer]["status"]))
                else:
                    adv.append("")
            for rt in fast:
                su = by.get(rt, {}).get("speedup")
                adv.append("" if su is None else "%.2f" % su)
            out.append("| %s | %s | %d | %s | %s | %s |" % (b, v, p, unit,
                       " | ".join(cell(by.get(rt)) for rt in present), " | ".join(adv)))
        out.append("")
    with open(path, "w") as f:
        f.write("\n".join(out))


def plot(outdir, rows):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(os.path.join(outdir, "plots"), exist_ok=True)
    written = []
    for key in sorted({(r["suite"], r["benchmark"], r["variant"]) for r in rows}):
        krows = [r for r in rows if (r["suite"], r["benchmark"], r["variant"]) == key]
        fig, ax = plt.subplots(figsize=(6, 4))
        for rt in runtime_order(krows):
            pts = sorted((r["procs"], r) for r in krows if r["runtime"] == rt and r["median"] is not None)
            if not pts:
                continue
            xs = [p for p, _ in pts]
            line, = ax.plot(xs, [r["median"] for _, r in pts], marker="o", label=rt)
            ax.fill_between(xs, [r["min"] for _, r in pts], [r["max"] for _, r in pts],
                            color=line.get_color(), alpha=0.2)
        name = key[1] + ("" if key[2] == "-" else " " + key[2])
        written.append(save_plot(plt, fig, ax, outdir, key, "", krows, "%s (%s is better)" % (name, krows[0]["better"]),
                                 krows[0]["unit"]))
        if any(r["speedup"] is not None and r["runtime"] != BASELINE for r in krows):
            written.append(plot_speedup(plt, outdir, key, name, krows))
    return written


def save_plot(plt, fig, ax, outdir, key, suffix, krows, title, ylabel):
    """Titles, axes and legend of a plot of `key`; writes
    plots/<suite>-<benchmark>[-<variant>]<suffix>.png and returns its path."""
    ax.set_title(title)
    ax.set_xlabel("processors")
    ax.set_ylabel(ylabel)
    ax.set_xticks(sorted({r["procs"] for r in krows}))
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    path = os.path.join(outdir, "plots", "%s-%s%s%s.png" % (key[0], key[1], "" if key[2] == "-" else "-" + key[2], suffix))
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def plot_speedup(plt, outdir, key, name, krows):
    """Speed-up over the sequential baseline against processors, one line
    per runtime (the baseline is the line y = 1)."""
    fig, ax = plt.subplots(figsize=(6, 4))
    for rt in runtime_order(krows):
        pts = sorted((r["procs"], r["speedup"]) for r in krows
                     if r["runtime"] == rt and r["speedup"] is not None)
        if pts and rt != BASELINE:
            ax.plot([p for p, _ in pts], [s for _, s in pts], marker="o", label=rt)
    ax.axhline(1, color="grey", linewidth=1, linestyle="--", label="%s (baseline)" % BASELINE)
    return save_plot(plt, fig, ax, outdir, key, "-speedup", krows,
                     "%s: speed-up over sequential C (higher is better)" % name, "speed-up (x)")


def report(args, raw, header):
    rows = summarize(raw)
    write_summary_csv(os.path.join(args.out, "summary.csv"), rows)
    write_markdown(os.path.join(args.out, "summary.md"), rows, header)
    plots = [] if args.no_plots else plot(args.out, rows)
    print("wrote %s/{raw.csv,summary.csv,summary.md} and %d plots in %s/plots" % (args.out, len(plots), args.out),
          file=sys.stderr)


def main(argv):
    args = parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    raw_path = os.path.join(args.out, "raw.csv")
    if args.plots_only:
        if not os.path.exists(raw_path):
            sys.exit("bench/run: no %s to plot" % raw_path)
        report(args, read_raw(raw_path), "Re-plotted from raw.csv. Machine: %s." % machine())
        return
    configs = configurations(args, suites(args.bench_dir, args.suite))
    load0 = os.getloadavg()[0]
    raw = run_all(args, configs)
    write_raw(raw_path, raw)
    header = ("Machine: %s. %d runs of %g s per configuration, interleaved; load average %.2f at the "
              "start, %.2f at the end." % (machine(), args.runs, args.seconds, load0, os.getloadavg()[0]))
    report(args, raw, header)


if __name__ == "__main__":
    main(sys.argv[1:])
