#!/usr/bin/env bash
# `make verify`: checks the protocol models exhaustively with SPIN, in
# every configuration below: the idle-sleep / wake-up protocol
# (idle_sleep.pml; -DBUGGY: no pass-on, step I5, must be caught) and the
# pthread condition variable and mutex on user and kernel threads
# (pthread_cond.pml; -DBUGGY: the waiter lets the mutex go before it is
# queued, -DGRANT_EARLY: the waker lets the record go before its unpark;
# both must be caught) and the resizing lock's asymmetric readers
# (resize_lock.pml; -DBUGGY: the writer does not wait for reader flags,
# must be caught) and fork-join's spawn against a worker going to sleep
# and a processor going idle (forkjoin_sleep.pml; -DBUGGY: the idle
# processor does not look at the deques, -DBUGGY_PASS_ON: a processor a
# notifier took does not look in its pass-on; both must be caught) and
# the replacement of a fork-join worker parked in a wait by a spare or a
# new worker (forkjoin_replace.pml; -DBUGGY: a worker retires as a spare
# on a look outside the pool lock, must be caught). Prints, per
# configuration, the states explored and "no
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
cp "$here"/*.pml "$work/"
cd "$work"

# model | name | expected | model parameters
configs=(
  "idle_sleep|2 processors, 1 notifier x 2 threads, I/O, timer|pass|-DNP=2 -DNN=1 -DPUSH=2 -DNIO=1 -DTIMER=1 -DMAXRUNS=0"
  "idle_sleep|2 processors, 1 notifier, I/O, processors come back|pass|-DNP=2 -DNN=1 -DPUSH=2 -DNIO=1 -DTIMER=0 -DMAXRUNS=1"
  "idle_sleep|2 processors, 2 notifiers x 2 threads|pass|-DNP=2 -DNN=2 -DPUSH=2 -DNIO=0 -DTIMER=0 -DMAXRUNS=0"
  "idle_sleep|3 processors, 1 notifier x 2 threads|pass|-DNP=3 -DNN=1 -DPUSH=2 -DNIO=0 -DTIMER=0 -DMAXRUNS=0"
  "idle_sleep|broken protocol (no pass-on), 2 processors, 1 notifier|violation|-DBUGGY -DNP=2 -DNN=1 -DPUSH=2 -DNIO=0 -DTIMER=0 -DMAXRUNS=0"
  "pthread_cond|2 kernel-thread waiters, 1 signaller|pass|-DNK=2 -DNU=0 -DSIGNALLERS=1"
  "pthread_cond|1 kernel-thread and 1 user-thread waiter, 2 signallers|pass|-DNK=1 -DNU=1 -DSIGNALLERS=2"
  "pthread_cond|2 user-thread waiters, 2 broadcasters|pass|-DNK=0 -DNU=2 -DSIGNALLERS=2 -DBROADCAST=1"
  "pthread_cond|1 kernel-thread and 1 user-thread waiter, signal after unlock|pass|-DNK=1 -DNU=1 -DOUTSIDE=1"
  "pthread_cond|1 kernel-thread and 1 user-thread waiter with a stray permit, 2 signallers|pass|-DSTRAY -DNK=1 -DNU=1 -DSIGNALLERS=2"
  "pthread_cond|broken protocol (unlock before queueing), 2 kernel-thread waiters|violation|-DBUGGY -DNK=2 -DNU=0"
  "pthread_cond|broken grant (GRANTED before the unpark), 1 user-thread waiter with a stray permit|violation|-DGRANT_EARLY -DSTRAY -DNK=0 -DNU=1"
  "resize_lock|3 readers x 2 sections, 2 writers|pass|-DNR=3 -DNW=2 -DROUNDS=2"
  "resize_lock|broken protocol (writer does not wait for readers), 2 readers, 1 writer|violation|-DBUGGY -DNR=2 -DNW=1 -DROUNDS=1"
  "forkjoin_sleep|2 spawners x 1 task, 2 workers, 2 processors|pass|-DNS=2 -DNW=2 -DNP=2 -DTASKS=1"
  "forkjoin_sleep|1 spawner x 2 tasks, 2 workers, 1 processor|pass|-DNS=1 -DNW=2 -DNP=1 -DTASKS=2"
  "forkjoin_sleep|1 spawner x 2 tasks, 2 workers, 2 processors|pass|-DNS=1 -DNW=2 -DNP=2 -DTASKS=2"
  "forkjoin_sleep|1 busy spawner x 1 task, 2 workers, 3 processors, a notifier taking first|pass|-DNOTIFIER -DSPAWNERS_STAY -DNS=1 -DNW=2 -DNP=3 -DTASKS=1"
  "forkjoin_sleep|1 busy spawner x 2 tasks, 2 workers, 3 processors, a notifier taking first|pass|-DNOTIFIER -DSPAWNERS_STAY -DNS=1 -DNW=2 -DNP=3 -DTASKS=2"
  "forkjoin_sleep|broken protocol (idle processor does not look at the deques), 2 spawners, 2 workers, 2 processors|violation|-DBUGGY -DNS=2 -DNW=2 -DNP=2 -DTASKS=1"
  "forkjoin_sleep|broken protocol (no look in the pass-on), 1 busy spawner, 2 workers, 3 processors, a notifier|violation|-DBUGGY_PASS_ON -DNOTIFIER -DSPAWNERS_STAY -DNS=1 -DNW=2 -DNP=3 -DTASKS=1"
  "forkjoin_replace|2 processors, 2 waits|pass|-DNP=2 -DNWAITS=2"
  "forkjoin_replace|1 processor, 3 waits|pass|-DNP=1 -DNWAITS=3"
  "forkjoin_replace|broken protocol (retire on a look outside the lock), 2 processors, 2 waits|violation|-DBUGGY -DNP=2 -DNWAITS=2"
)

failed=0
for c in "${configs[@]}"; do
  IFS='|' read -r model name expect params <<<"$c"
  name="$model: $name"
  rm -f pan pan.* ./*.trail
  # shellcheck disable=SC2086
  if ! spin "-P$CC -E -x c" -a $params "$model.pml" >spin.log 2>&1 ||
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
      [ -f "$model.pml.trail" ] && spin -t -p "-P$CC -E -x c" $params "$model.pml" | tail -40
      failed=1
    fi
  else
    if [ "$errors" != 0 ]; then
      echo "verify: $name: violation found after $states states, as expected ($(grep -o -E 'assertion violated|invalid end state' pan.out | head -1))"
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
