#!/usr/bin/env bash
# Translation overhead: `cfacc -c` on a 2,000-line .cfa file against
# `clang-19 -c` on the C that cfacc emits for it (same flags), median of
# several runs each. The issue's bound is 1.5x.
#
#   bench/compiler/overhead.sh [runs] [lines]     defaults 7 and 2000
#   BUILD=<dir> CFLAGS="-O2"                      build tree, extra flags
#
# Prints the two medians and "overhead: ratio R (bound 1.5) PASS|FAIL".
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${BUILD:-$top/build}
runs=${1:-7}
lines=${2:-2000}
flags=${CFLAGS:-}
cfacc=$build/compiler/cfacc
clang=${CFACC_CLANG:-clang-19}
ninja -C "$build" cfacc >/dev/null

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$here/make_big_cfa.py" "$lines" >"$work/big.cfa"
"$cfacc" $flags --emit-c "$work/big.cfa" >"$work/big.c"
echo "input: $(wc -l <"$work/big.cfa") lines of cfa-lite, $(wc -l <"$work/big.c") lines of emitted C"

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
seconds() { # command... -> wall seconds
  local t0 t1
  t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }' 
}
cd "$work"
for i in $(seq "$runs"); do
  seconds "$cfacc" $flags -c big.cfa -o cfacc.o >>cfacc.times
  seconds "$clang" $flags -isystem "$build/compiler/include" -c big.c -o clang.o >>clang.times
done
a=$(median <cfacc.times)
b=$(median <clang.times)
ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.4f", a / b }')
printf 'cfacc -c:    %.3f s (median of %d)\n' "$a" "$runs"
printf 'clang-19 -c: %.3f s (median of %d)\n' "$b" "$runs"
verdict=$(awk -v r="$ratio" 'BEGIN { print (r <= 1.5) ? 1 : 0 }')
printf 'overhead: ratio %.2f (bound 1.5) %s\n' "$ratio" "$([ "$verdict" = 1 ] && echo PASS || echo FAIL)"
[ "$verdict" = 1 ]
