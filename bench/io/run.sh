#!/usr/bin/env bash
# The loopback echo benchmark (docs/io.md): round trips per second of a
# 64-byte echo over 1 and over 100 connections, against
#   cfa        bench/io/echo_cfa.c, cfa-lite's C API on io_uring, 1 processor
#   cfa-fb     the same program with CFA_IO=fallback (epoll + thread pool)
#   epoll      bench/io/echo_epoll.c, a single-threaded epoll event loop
#   go         bench/io/echo_go, Go's net package, GOMAXPROCS=1
# all driven by the same load generator (echo_client.c). The server runs
# on CPU 0 and the client on CPU 1 when the machine has two or more.
# Each figure is the median of RUNS runs (runs of the servers interleave,
# so drifting load on the machine hits them alike).
#
# usage: bench/io/run.sh [BUILD_DIR]     (default: build; needs libcfa.a)
# environment: RUNS (5), SECONDS_PER_RUN (2), SIZE (64), CONNS ("1 100")
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
RUNS=${RUNS:-5}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-2}
SIZE=${SIZE:-64}
CONNS=${CONNS:-"1 100"}
lib=$build/runtime/libcfa.a
[ -f "$lib" ] || { echo "run.sh: $lib not found: build first (make build)" >&2; exit 1; }

bin=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$bin"' EXIT
cc=(clang-19 -O2 -g -D_GNU_SOURCE)
"${cc[@]}" -I"$top/runtime/include" "$here/echo_cfa.c" "$lib" -luring -lhwloc -lpthread -o "$bin/echo_cfa"
"${cc[@]}" "$here/echo_epoll.c" -o "$bin/echo_epoll"
"${cc[@]}" "$here/echo_client.c" -o "$bin/echo_client"
(cd "$here/echo_go" && GOFLAGS=-mod=mod go build -o "$bin/echo_go" .)

if [ "$(nproc)" -ge 2 ]; then server_cpu=(taskset -c 0); client_cpu=(taskset -c 1); else server_cpu=(); client_cpu=(); fi
# One measurement: start the server (it prints the ephemeral port it
# listens on), drive it, stop it. Prints the rate.
measure() { # server conns
  local server=$1 conns=$2 pid rate port="" out=$bin/port
  : >"$out"
  case $server in
    cfa)    "${server_cpu[@]}" "$bin/echo_cfa" >"$out" 2>>"$bin/cfa.log" & ;;
    cfa-fb) CFA_IO=fallback "${server_cpu[@]}" "$bin/echo_cfa" >"$out" 2>>"$bin/cfa.log" & ;;
    epoll)  "${server_cpu[@]}" "$bin/echo_epoll" >"$out" & ;;
    go)     GOMAXPROCS=1 "${server_cpu[@]}" "$bin/echo_go" >"$out" & ;;
  esac
  pid=$!
  for _ in $(seq 500); do port=$(head -n1 "$out"); [ -n "$port" ] && break; sleep 0.01; done
  [ -n "$port" ] || { echo "run.sh: $server did not start" >&2; exit 1; }
  rate=$("${client_cpu[@]}" "$bin/echo_client" "$port" "$conns" "$SIZE" "$SECONDS_PER_RUN" 0.5)
  kill $pid; wait $pid 2>/dev/null || true
  echo "$rate"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

servers=(cfa cfa-fb epoll go)
declare -A results
echo "echo benchmark: $SIZE-byte messages, $RUNS runs of ${SECONDS_PER_RUN}s per figure; round trips/s"
echo "(medians; 'paired' ratios are medians of the per-run ratios, runs of the servers interleaving)"
for conns in $CONNS; do
  for run in $(seq "$RUNS"); do
    for s in "${servers[@]}"; do
      results[$s,$conns]+="$(measure "$s" "$conns") "
    done
  done
  printf '%-3s connection(s):' "$conns"
  declare -A med
  for s in "${servers[@]}"; do
    med[$s]=$(tr ' ' '\n' <<<"${results[$s,$conns]}" | grep . | median)
    printf '  %s %.0f' "$s" "${med[$s]}"
  done
  echo
  for pair in cfa/epoll cfa/go cfa-fb/epoll go/epoll; do
    a=${pair%/*} b=${pair#*/}
    paired=$(paste <(tr ' ' '\n' <<<"${results[$a,$conns]}" | grep .) <(tr ' ' '\n' <<<"${results[$b,$conns]}" | grep .) |
             awk '{ print $1 / $2 }' | median)
    printf '      %-12s median ratio %.2f  paired %.2f\n' "$pair" "$(echo "${med[$a]} / ${med[$b]}" | bc -l)" "$paired"
  done
  for s in "${servers[@]}"; do echo "      $s runs: ${results[$s,$conns]}"; done
done
