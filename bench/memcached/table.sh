#!/usr/bin/env bash
# bench/memcached/table.sh: the table's stripes as monitors against
# mutex_locks (table_bench.cfa built both ways), alternated, RUNS runs of
# each, for uniform keys (100,000) and a hot set (16 keys); prints the
# median/min/max table (bench/lib/medians.py) in operations per second.
#   RUNS=7 PROCS=2 bench/memcached/table.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); src=$(cd "$here/../.." && pwd)
RUNS=${RUNS:-7}; PROCS=${PROCS:-2}; SECONDS_PER_RUN=${SECONDS_PER_RUN:-1}
CFACC=${CFACC:-$src/build/compiler/cfacc}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$CFACC" -O2 "$here/table_bench.cfa" "$src/examples/memcached/store.cfa" -o "$tmp/monitor"
"$CFACC" -O2 -DSTORE_MUTEX_LOCK "$here/table_bench.cfa" "$src/examples/memcached/store.cfa" -o "$tmp/mutex_lock"
for r in $(seq "$RUNS"); do
  for keys in 100000 16; do
    for v in monitor mutex_lock; do
      res=$("$tmp/$v" "$PROCS" 64 "$keys" 0.05 "$SECONDS_PER_RUN")
      echo "${v}_keys${keys} ${res#RESULT }" >> "$tmp/raw"
    done
  done
done
cd "$src/bench/lib" && python3 -c "
import medians, sys
rows, med = medians.load('$tmp/raw')
medians.print_table(rows, med, 'operations/s')
for k in ('keys100000', 'keys16'):
    print('%s: monitor/mutex_lock = %.2f' % (k, med['monitor_' + k] / med['mutex_lock_' + k]))
"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
