#!/usr/bin/env bash
# bench/httpd/run.sh: examples/httpd against nginx. Static files
# sized by thesis Table 8.1, Zipf-distributed requests (wrk + Lua), both
# servers on PROCS processors (nginx: worker_processes), wrk at several
# connection counts, servers alternated, RUNS runs each. Writes results.md
# (median requests/s and p99 latency, ratios) and results.png to OUT.
#   BUILD=build-httpd PROCS=2 RUNS=3 DURATION=3 CONNS="10 100 500" bench/httpd/run.sh
# BEFORE=BINARY adds another build of the server (an older one, to compare
# a change) to the alternation, started with BEFORE_ARGS (default none):
# the three servers take turns run by run, so each ratio is measured under
# the same load.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); src=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$src/build-httpd}; PROCS=${PROCS:-2}; RUNS=${RUNS:-3}
DURATION=${DURATION:-3}; CONNS=${CONNS:-"10 100 500"}; OUT=${OUT:-$BUILD/bench-httpd}
BEFORE=${BEFORE:-}; BEFORE_ARGS=${BEFORE_ARGS:-}
need=()
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
command -v wrk >/dev/null || need+=(wrk)
# The plot needs matplotlib: python3 on PATH may be another install (pyenv)
# than the one apt serves, so fall back to /usr/bin/python3.
PY=python3
python3 -c 'import matplotlib' 2>/dev/null || { PY=/usr/bin/python3
  $PY -c 'import matplotlib' 2>/dev/null || need+=(python3-matplotlib); }
if [ ${#need[@]} -gt 0 ]; then
  sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${need[@]}" >/dev/null
fi
# From a clean clone: the toolchain (scripts/setup.sh) and a build of the
# tree in $BUILD; an existing build is brought up to date.
if [ ! -f "$BUILD/build.ninja" ]; then
  "$src/scripts/setup.sh"
  cmake -S "$src" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 >/dev/null
fi
ninja -C "$BUILD" >/dev/null
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
mkdir -p "$OUT"; tmp=$(mktemp -d); trap 'kill $pids 2>/dev/null || true; rm -rf "$tmp"' EXIT; pids=
# nginx's workers run as an unprivileged user: mktemp -d makes a 0700
# directory they could not enter, and every request would get a fast 403.
chmod 755 "$tmp"
python3 "$here/fileset.py" "$tmp/root" 1000
"$BUILD/compiler/cfacc" -O2 "$src/examples/httpd/server.cfa" "$src/examples/httpd/http.c" \
  "$src/examples/httpd/mime.c" -o "$tmp/httpd"
servers="nginx cfa"; [ -z "$BEFORE" ] || servers="nginx before cfa"

# nginx: its own prefix, config and temp paths under $tmp.
mkdir -p "$tmp/ngx/logs"
cat > "$tmp/ngx/nginx.conf" <<NGX
worker_processes $PROCS; daemon off; pid $tmp/ngx/nginx.pid; error_log $tmp/ngx/logs/error.log;
events { worker_connections 4096; }
http { access_log off; sendfile on; tcp_nopush on; keepalive_timeout 65; keepalive_requests 1000000;
  client_body_temp_path $tmp/ngx/b; proxy_temp_path $tmp/ngx/p; fastcgi_temp_path $tmp/ngx/f;
  uwsgi_temp_path $tmp/ngx/u; scgi_temp_path $tmp/ngx/s;
  server { listen 127.0.0.1:18089; root $tmp/root; } }
NGX

start_server() {   # $1: nginx|cfa|before; sets port and pids
  if [ "$1" = nginx ]; then
    "$NGINX" -p "$tmp/ngx" -c "$tmp/ngx/nginx.conf" & pids=$!; port=18089
  else
    bin=$tmp/httpd; args=; [ "$1" = cfa ] || { bin=$BEFORE; args=$BEFORE_ARGS; }
    # The background job truncates the file only when it runs: the
    # previous server's "listening" line must not be read meanwhile.
    : > "$tmp/cfa.out"
    # shellcheck disable=SC2086  # BEFORE_ARGS is a word list
    "$bin" --port 0 --root "$tmp/root" --processors "$PROCS" $args > "$tmp/cfa.out" & pids=$!
    for _ in $(seq 200); do grep -q listening "$tmp/cfa.out" 2>/dev/null && break; sleep 0.1; done
    port=$(sed -n 's/.*:\([0-9]*\)$/\1/p' "$tmp/cfa.out")
  fi
  # Both must serve a real file before they are measured.
  for _ in $(seq 200); do curl -sf -o /dev/null "http://127.0.0.1:${port:-0}/f0" && return; sleep 0.1; done
  echo "run.sh: the $1 server does not serve $tmp/root/f0 (port ${port:-none}); its output:" >&2
  cat "$tmp/cfa.out" >&2; exit 1
}
stop_server() { kill -TERM $pids; wait $pids 2>/dev/null || true; pids=; }

echo "server conns run rps p99_ms" > "$OUT/raw.txt"
for c in $CONNS; do
  for r in $(seq "$RUNS"); do
    for s in $servers; do
      start_server $s
      wrk -t2 -c"$c" -d1s -s "$tmp/zipf.lua" http://127.0.0.1:$port/ >/dev/null   # warm the caches
      res=$(wrk -t2 -c"$c" -d"${DURATION}s" --latency -s "$tmp/zipf.lua" http://127.0.0.1:$port/)
      stop_server
      # A run counts only if every response was a 2xx (wrk counts errors
      # and other statuses but does not fail on them).
      if grep -qE 'Non-2xx|Socket errors' <<<"$res"; then
        echo "run.sh: $s at $c connections: not every request was served:" >&2
        grep -E 'Non-2xx|Socket errors' <<<"$res" >&2; exit 1
      fi
      rps=$(awk '/^Requests\/sec/ {print $2}' <<<"$res")
      p99=$(awk '$1 == "99%" { v = $2; if (v ~ /us$/) v = v / 1000; else if (v ~ /ms$/) v = v + 0; else if (v ~ /s$/) v = v * 1000; print v }' <<<"$res")
      echo "$s $c $r $rps $p99" | tee -a "$OUT/raw.txt"
    done
  done
done
$PY "$here/report.py" "$OUT/raw.txt" "$OUT" "$(uptime)"
