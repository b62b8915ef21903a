// The runtime's environment variables are validated when the program
// starts: a value the table (cfa/internal/environment.def) does not accept
// stops the program before main (exit status 2) with a message naming the
// variable and what it accepts; accepted values take effect (CFA_STACK_SIZE is seen by
// cfa_default_stack_size, with k and m suffixes); unset or empty means the
// default.
//
// RUN: %cc %s -o %t %cfa-link
// RUN: %timeout %t | FileCheck %s --check-prefix=DEFAULT
// DEFAULT: stack 262144
// RUN: env CFA_STACK_SIZE=1m %timeout %t | FileCheck %s --check-prefix=MEGA
// MEGA: stack 1048576
// RUN: env CFA_STACK_SIZE= CFA_STATS= %timeout %t | FileCheck %s --check-prefix=DEFAULT
// RUN: env CFA_STACK_SIZE=100k CFA_PREEMPTION_MS=0 CFA_IO=fallback CFA_IO_ENTRIES=64 CFA_STATS=0 CFA_VERBOSE=0 CFA_DEADLOCK_DETECTION=1 %timeout %t | FileCheck %s --check-prefix=ALL
// ALL: stack 102400
//
// RUN: not env CFA_PREEMPTION_MS=ten %timeout %t 2>&1 | FileCheck %s --check-prefix=BADMS
// BADMS: CFA_PREEMPTION_MS=ten: expected milliseconds from 0 to 1000000
// BADMS-NOT: stack
// RUN: not env CFA_PREEMPTION_MS=-1 %timeout %t 2>&1 | FileCheck %s --check-prefix=NEGMS
// NEGMS: CFA_PREEMPTION_MS=-1: expected milliseconds
// RUN: not env CFA_STACK_SIZE=1k %timeout %t 2>&1 | FileCheck %s --check-prefix=SMALL
// SMALL: CFA_STACK_SIZE=1k: expected bytes (k, m suffixes), at least 16384
// RUN: not env CFA_STACK_SIZE=64q %timeout %t 2>&1 | FileCheck %s --check-prefix=SUFFIX
// SUFFIX: CFA_STACK_SIZE=64q: expected bytes
// RUN: not env CFA_IO=epoll %timeout %t 2>&1 | FileCheck %s --check-prefix=IO
// IO: CFA_IO=epoll: expected uring|io_uring|fallback
// RUN: not env CFA_IO_ENTRIES=100 %timeout %t 2>&1 | FileCheck %s --check-prefix=ENTRIES
// ENTRIES: CFA_IO_ENTRIES=100: expected a power of two
// RUN: not env CFA_STATS=yes %timeout %t 2>&1 | FileCheck %s --check-prefix=STATS
// STATS: CFA_STATS=yes: expected 0|1
// RUN: not env CFA_STACK_GUARD=pages %timeout %t 2>&1 | FileCheck %s --check-prefix=GUARD
// GUARD: CFA_STACK_GUARD=pages: expected auto|protect|canary
// RUN: not env CFA_STACK_GUARD_MAPS=-5 %timeout %t 2>&1 | FileCheck %s --check-prefix=MAPS
// MAPS: CFA_STACK_GUARD_MAPS=-5: expected a count of mappings from 0 to 100000000
// RUN: env CFA_STACK_GUARD=canary CFA_STACK_GUARD_MAPS=10 %timeout %t | FileCheck %s --check-prefix=DEFAULT
// RUN: not env CFA_DEADLOCK_DETECTION=off %timeout %t 2>&1 | FileCheck %s --check-prefix=DEADLOCK
// DEADLOCK: CFA_DEADLOCK_DETECTION=off: expected 0|1
#include <cfa/runtime.h>
#include <stdio.h>

int main(void)
{
    printf("stack %zu\n", cfa_default_stack_size());
    return 0;
}
