"""medians.py: the summary shared by the bench/*/run.sh scripts.

A run.sh appends one `label value` line per measurement to a results file
(several runs of every label); this module reads it back and prints the
median/min/max table. Ratios are each script's own business: they use
`med` and `rows` as returned here.
"""
import statistics


def load(path):
    """Returns ({label: [values in file order]}, {label: median})."""
    rows = {}
    for line in open(path):
        label, value = line.split()
        rows.setdefault(label, []).append(float(value))
    return rows, {k: statistics.median(v) for k, v in rows.items()}


def print_table(rows, med, unit, split_procs=False):
    """Markdown table of every label; with split_procs a `name_P` label is
    shown as name and processors P."""
    procs_col = " processors |" if split_procs else ""
    print(f"| benchmark |{procs_col} median {unit} | min | max |")
    print("| --- |" + (" ---: |" if split_procs else "") + " ---: | ---: | ---: |")
    for k, v in rows.items():
        name = " | ".join(k.rsplit("_", 1)) if split_procs else k
        print(f"| {name} | {med[k]:.1f} | {min(v):.1f} | {max(v):.1f} |")
    print()
