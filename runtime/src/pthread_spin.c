/* pthread_spin.c: spinlocks that never hold a processor hostage.
 *
 * A pthread_spinlock_t is one int, FREE (1, as glibc's on x86-64, so an
 * object glibc initialised works too) or HELD (0). A user thread spinning on
 * it yields its processor every so often (pt_spin_pause): the holder may
 * be a user thread preempted on this very processor, which must get to
 * run to let the lock go. A kernel thread gives its CPU up instead. The
 * lock is one word, so it also works between processes.
 */
#include "pthread_wait.h"
#include <pthread.h>
#include <stdatomic.h>

PT_UNIT(spin);

enum { HELD = 0, FREE = 1 };

int pthread_spin_init(pthread_spinlock_t *l, int pshared)
{
    atomic_store_explicit((_Atomic int *)l, FREE, memory_order_relaxed);
    return 0;
}

int pthread_spin_destroy(pthread_spinlock_t *l) { return 0; }

int pthread_spin_trylock(pthread_spinlock_t *l)
{
    _Atomic int *w = (_Atomic int *)l;
    return atomic_load_explicit(w, memory_order_relaxed) == FREE &&
                   atomic_exchange_explicit(w, HELD, memory_order_acquire) == FREE
               ? 0
               : EBUSY;
}

int pthread_spin_lock(pthread_spinlock_t *l)
{
    _Atomic int *w = (_Atomic int *)l;
    unsigned spins = 0;
    while (atomic_exchange_explicit(w, HELD, memory_order_acquire) != FREE)
        while (atomic_load_explicit(w, memory_order_relaxed) != FREE)
            pt_spin_pause(&spins);
    return 0;
}

int pthread_spin_unlock(pthread_spinlock_t *l)
{
    atomic_store_explicit((_Atomic int *)l, FREE, memory_order_release);
    return 0;
}
