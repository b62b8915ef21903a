#!/usr/bin/env bash
# bench/memcached/run.sh: cfa-memcached against Debian's memcached, as the
# thesis's section 8.1 measures them: an open-loop load (loadgen.c,
# mutilate's method) over CONNS persistent connections, swept over target
# rates up past saturation, for each update ratio. Both servers run with
# the same -t and -m and stay up for the whole run (preloaded once); the
# runs go through the benchmark harness (sweep.py on bench/lib/driver.py):
# every (update ratio, rate, server) configuration once per round, RUNS
# rounds, interleaved. Writes raw.csv, summary.csv, summary.md (medians
# with min-max and ratios per configuration, then saturation and p99
# ratios) and sweep.png to OUT.
#
#   bench/memcached/run.sh            (defaults below; one command)
#   RUNS=3 SECONDS_PER_RUN=3 RATES="10000 20000 40000" UPDATES="0.03 0.5" CONNS=2000 bench/memcached/run.sh
# BEFORE=BINARY adds another build of cfa-memcached (an older one, to
# compare a change) to the rotation, with the same flags: the servers take
# turns at each rate, so the before/after ratios are measured under the
# same load.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); src=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$src/build}; THREADS=${THREADS:-2}; MEMORY=${MEMORY:-64}
RUNS=${RUNS:-3}; SECONDS_PER_RUN=${SECONDS_PER_RUN:-3}; WARMUP=${WARMUP:-1}
CONNS=${CONNS:-4000}; CLIENT_THREADS=${CLIENT_THREADS:-2}; KEYS=${KEYS:-100000}; VALUE=${VALUE:-100}
# The default rates run from light load up past both servers' saturation
# on a 2-CPU machine (about 135,000/s with the load generator beside them).
RATES=${RATES:-"5000 10000 20000 30000 45000 60000 80000 110000 130000 160000"}; UPDATES=${UPDATES:-"0.03 0.05 0.10 0.50"}
OUT=${OUT:-$BUILD/bench-memcached}; BEFORE=${BEFORE:-}
# Both servers and the client each hold CONNS sockets.
ulimit -n $((CONNS * 2 + 1000))
command -v memcached >/dev/null || "$src/scripts/setup.sh"
PY=python3
python3 -c 'import matplotlib' 2>/dev/null || { PY=/usr/bin/python3
  $PY -c 'import matplotlib' 2>/dev/null || { sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q python3-matplotlib >/dev/null; }; }
if [ ! -f "$BUILD/build.ninja" ]; then
  "$src/scripts/setup.sh"
  cmake -S "$src" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 >/dev/null
fi
ninja -C "$BUILD" cfa-memcached >/dev/null
mkdir -p "$OUT"; tmp=$(mktemp -d); pids=
trap 'kill $pids 2>/dev/null || true; rm -rf "$tmp"' EXIT
clang-19 -O2 -Wall -o "$tmp/loadgen" "$here/loadgen.c" -lm -lpthread

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
declare -A port
servers="memcached cfa"; [ -z "$BEFORE" ] || servers="memcached before cfa"
for s in $servers; do port[$s]=$(free_port); done
memcached -p "${port[memcached]}" -l 127.0.0.1 -U 0 -t "$THREADS" -m "$MEMORY" -c $((CONNS + 100)) -u root & pids="$pids $!"
"$BUILD/cfa-memcached" -p "${port[cfa]}" -l 127.0.0.1 -U 0 -t "$THREADS" -m "$MEMORY" -c $((CONNS + 100)) & pids="$pids $!"
[ -z "$BEFORE" ] || { "$BEFORE" -p "${port[before]}" -l 127.0.0.1 -U 0 -t "$THREADS" -m "$MEMORY" -c $((CONNS + 100)) & pids="$pids $!"; }
for s in $servers; do
  for _ in $(seq 100); do python3 -c "import socket; socket.create_connection(('127.0.0.1', ${port[$s]}))" 2>/dev/null && break; sleep 0.1; done
  "$tmp/loadgen" -s "${port[$s]}" -P -k "$KEYS" -v "$VALUE"
done

# One configuration per update ratio, rate and server (bench/README.md's
# fields): loadgen prints the achieved rate and its latency percentiles.
configs=$tmp/configs
: >"$configs"
for u in $UPDATES; do
  for rate in $RATES; do
    for s in $servers; do
      printf 'u%s\t%s\t%s\t%s\trequests/s\thigher\t%s\n' "$u" "$rate" "$s" "$THREADS" \
        "$tmp/loadgen -s ${port[$s]} -c $CONNS -t $CLIENT_THREADS -r $rate -d $SECONDS_PER_RUN -w $WARMUP -u $u -k $KEYS -v $VALUE" >>"$configs"
    done
  done
done
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
note="connections $CONNS, -t $THREADS -m $MEMORY, $RUNS runs of ${SECONDS_PER_RUN}s (+${WARMUP}s warm-up), load average before: $load_before"
$PY "$here/sweep.py" "$OUT" "$RUNS" "$((SECONDS_PER_RUN + WARMUP))" "$note" <"$configs"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
