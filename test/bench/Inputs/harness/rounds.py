"""rounds.py ORDER_LOG RUNTIMES: checks the order log of the fake suite's
runs (one "<runtime> p<procs>" line a run): every round, a block of
len(RUNTIMES) lines, runs each runtime once; prints each round's order
and whether the rounds' orders differ (the harness shuffles them)."""
import sys

runs = [line.split()[0] for line in open(sys.argv[1])]
runtimes = sys.argv[2].split(",")
n = len(runtimes)
rounds = [runs[i:i + n] for i in range(0, len(runs), n)]
for k, r in enumerate(rounds, 1):
    print("round %d: %s%s" % (k, " ".join(r), "" if sorted(r) == sorted(runtimes) else " NOT A PERMUTATION"))
print("rounds: %d, orders differ: %s" % (len(rounds), "yes" if len({tuple(r) for r in rounds}) > 1 else "no"))
