#!/usr/bin/env bash
# `make verify`: checks the idle-sleep / wake-up protocol model
# (idle_sleep.pml) exhaustively with SPIN, in every configuration below,
# then checks that the broken protocol (-DBUGGY: no pass-on, step I5) is
# caught. Prints, per configuration, the states explored and "no
# violation" (or the violation found); exits non-zero if a correct
# configuration has a violation or an incomplete search, or if the broken
# one passes.
#
# Environment: CC (default clang-19) compiles SPIN's verifier and
# preprocesses the model (SPIN's default preprocessor is gcc).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-clang-19}
command -v spin >/dev/null 2>&1 || { echo "verify: spin is not installed (scripts/setup.sh installs it)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/idle_sleep.pml" "$work/"
cd "$work"

# name | expected | model parameters
configs=(
  "2 processors, 1 notifier x 2 threads, I/O, timer|pass|-DNP=2 -DNN=1 -DPUSH=2 -DNIO=1 -DTIMER=1 -DMAXRUNS=0"
  "2 processors, 1 notifier, I/O, processors come back|pass|-DNP=2 -DNN=1 -DPUSH=2 -DNIO=1 -DTIMER=0 -DMAXRUNS=1"
  "2 processors, 2 notifiers x 2 threads|pass|-DNP=2 -DNN=2 -DPUSH=2 -DNIO=0 -DTIMER=0 -DMAXRUNS=0"
  "3 processors, 1 notifier x 2 threads|pass|-DNP=3 -DNN=1 -DPUSH=2 -DNIO=0 -DTIMER=0 -DMAXRUNS=0"
  "broken protocol (no pass-on), 2 processors, 1 notifier|violation|-DBUGGY -DNP=2 -DNN=1 -DPUSH=2 -DNIO=0 -DTIMER=0 -DMAXRUNS=0"
)

failed=0
for c in "${configs[@]}"; do
  IFS='|' read -r name expect params <<<"$c"
  rm -f pan pan.* ./*.trail
  # shellcheck disable=SC2086
  if ! spin "-P$CC -E -x c" -a $params idle_sleep.pml >spin.log 2>&1 ||
     ! $CC -O2 -w -DSAFETY -DCOLLAPSE -o pan pan.c >cc.log 2>&1; then
    echo "verify: $name: the model does not build"; cat spin.log cc.log; failed=1; continue
  fi
  ./pan -m1000000 >pan.out 2>&1
  states=$(awk '/states, stored/ { print $1; exit }' pan.out)
  errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' pan.out | head -1)
  incomplete=$(grep -c -E "max search depth too small|Search not completed" pan.out)
  if [ -z "$errors" ] || [ -z "$states" ]; then
    echo "verify: $name: no result from the verifier"; cat pan.out; failed=1
  elif [ "$expect" = pass ]; then
    if [ "$errors" = 0 ] && [ "$incomplete" = 0 ]; then
      echo "verify: $name: $states states explored, no violation"
    else
      echo "verify: $name: VIOLATION after $states states (or incomplete search)"
      grep -E "violated|error|Search not" pan.out
      # shellcheck disable=SC2086
      [ -f idle_sleep.pml.trail ] && spin -t -p "-P$CC -E -x c" $params idle_sleep.pml | tail -40
      failed=1
    fi
  else
    if [ "$errors" != 0 ]; then
      echo "verify: $name: violation found after $states states, as expected ($(grep -o 'assertion violated' pan.out | head -1))"
    else
      echo "verify: $name: NOT caught ($states states): the model cannot tell the broken protocol apart"
      failed=1
    fi
  fi
done
if [ $failed = 0 ]; then
  echo "verify: passed"
else
  echo "verify: FAILED"
fi
exit $failed
