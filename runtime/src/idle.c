/* idle.c: idle processors and their eventfds. See idle.h for the protocol. */
#include "idle.h"
#include "kernel.h"
#include "spinlock.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

void idle_sleeper_init(struct idle_sleeper *s)
{
    s->fd = eventfd(0, EFD_CLOEXEC);
    if (s->fd < 0)
        cfa_fatal("cannot create a processor's eventfd: %s", strerror(errno));
    s->listed = false;
    s->next = NULL;
}

void idle_sleeper_fini(struct idle_list *l, struct idle_sleeper *s)
{
    idle_unregister(l, s);
    /* A waker writes to the fd while holding the list lock (idle_wake_one);
     * passing through the lock here means none is still writing. */
    spin_lock(&l->lock);
    spin_unlock(&l->lock);
    close(s->fd);
    s->fd = -1;
}

void idle_register(struct idle_list *l, struct idle_sleeper *s)
{
    spin_lock(&l->lock);
    s->next = l->head;
    l->head = s;
    s->listed = true;
    atomic_fetch_add(&l->count, 1);
    spin_unlock(&l->lock);
}

void idle_unregister(struct idle_list *l, struct idle_sleeper *s)
{
    spin_lock(&l->lock);
    if (s->listed) {
        struct idle_sleeper **link = &l->head;
        while (*link != s)
            link = &(*link)->next;
        *link = s->next;
        s->listed = false;
        atomic_fetch_sub(&l->count, 1);
    }
    spin_unlock(&l->lock);
}

void idle_sleep(struct idle_list *l, struct idle_sleeper *s)
{
    uint64_t value;
    atomic_fetch_add_explicit(&l->sleeps, 1, memory_order_relaxed);
    while (read(s->fd, &value, sizeof value) < 0 && errno == EINTR)
        ;
}

void idle_wake(struct idle_sleeper *s)
{
    uint64_t one = 1;
    while (write(s->fd, &one, sizeof one) < 0 && errno == EINTR)
        ;
}

void idle_raise_and_wake(struct idle_list *l, struct idle_sleeper *s, _Atomic bool *flag)
{
    spin_lock(&l->lock);
    atomic_store(flag, true);
    idle_wake(s);
    spin_unlock(&l->lock);
}

void idle_wake_one(struct idle_list *l)
{
    spin_lock(&l->lock);
    struct idle_sleeper *s = l->head;
    if (s) {
        l->head = s->next;
        s->listed = false;
        atomic_fetch_sub(&l->count, 1);
        atomic_fetch_add_explicit(&l->wakeups, 1, memory_order_relaxed);
        /* Under the lock, so that the sleeper cannot close its fd meanwhile
         * (idle_sleeper_fini). */
        idle_wake(s);
    }
    spin_unlock(&l->lock);
}
