#!/usr/bin/env bash
# The measurable figures of the 192-processor cost model (docs/scale.md):
# memory per processor, processor start/stop time against the processor
# count, and a park/unpark round trip beside idle processors, under the
# synthetic 256-PU topology of test/topology. Needs `make build`.
#
#   bench/topology/run.sh [processors]     default 192
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=build/bench/topology_costs
[ -x "$bin" ] || { echo "run.sh: $bin not built (make build)" >&2; exit 1; }
export HWLOC_SYNTHETIC="${HWLOC_SYNTHETIC:-pack:2 numa:2 l3:4 core:8 pu:2}"
n="${1:-192}"
for mode in memory resize idle; do
  "$bin" "$mode" "$n" 2>&1 | grep -v '^cfa: io:'
done
