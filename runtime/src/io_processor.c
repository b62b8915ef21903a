/* io_processor.c: each processor's I/O state, the choice of engine, the
 * hooks the scheduler calls (io_processor.h) and the I/O statistics.
 *
 * Engine: at start-up each processor tries to set its ring up; if that
 * fails (io_uring missing, /proc/sys/kernel/io_uring_disabled, a seccomp
 * filter, a kernel too old for what io_uring.c needs), the processor uses
 * the fallback engine (io_fallback.c) and the program still runs. CFA_IO=
 * fallback forces the fallback everywhere, and so does valgrind: it holds
 * its lock across io_uring_enter, so a processor asleep in its ring
 * (io_ring_sleep) would stop every other thread, and memcheck does not
 * see the kernel fill a ring request's buffer. The first processor that
 * falls back says why on stderr when CFA_VERBOSE=1 or CFA_STATS=1 (or, for
 * valgrind, when CFA_IO=uring asked for the ring).
 *
 * Environment (read once, by the main processor at boot):
 *   CFA_IO=fallback|uring   force the engine (default: io_uring if usable)
 *   CFA_IO_ENTRIES=n        SQEs per ring, a power of two (default 256;
 *                           tiny rings exercise the full-ring paths)
 */
#include "processor.h"
#include "ready_queue.h"
#include "environment.h"
#include "io_internal.h"
#include "spinlock.h"
#include "timer.h"

#include <cfa/runtime.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <valgrind/valgrind.h>

static bool configured, force_fallback, verbose;
static const char *fallback_reason = "CFA_IO=fallback";
static unsigned ring_entries = 256;
static _Atomic bool warned;

/* Live contexts and the counts of retired ones, for CFA_STATS. */
static _Atomic int all_lock;
static struct io_context *all;
static struct io_stats retired;
static unsigned long uring_procs, fallback_procs; /* ever started, under all_lock */

static void print_stats(void)
{
    unsigned long sum[IO_STAT_COUNT];
    spin_lock(&all_lock);
    for (int i = 0; i < IO_STAT_COUNT; i++)
        sum[i] = atomic_load_explicit(&retired.count[i], memory_order_relaxed);
    for (struct io_context *io = all; io; io = io->all_next)
        for (int i = 0; i < IO_STAT_COUNT; i++)
            sum[i] += atomic_load_explicit(&io->stats.count[i], memory_order_relaxed);
    unsigned long nu = uring_procs, nf = fallback_procs;
    spin_unlock(&all_lock);
    fprintf(stderr,
            "cfa: io: %lu processor(s) on io_uring, %lu on the fallback; io_uring: %lu submitted, "
            "%lu completed, %lu io_uring_enter, %lu backlogged, %lu wake-up timeouts, %lu sends at once; "
            "fallback: %lu pool calls, %lu readiness waits\n",
            nu, nf, sum[IO_SUBMITTED], sum[IO_COMPLETED], sum[IO_ENTERS], sum[IO_BACKLOGGED], sum[IO_ARMS],
            sum[IO_AT_ONCE],
            atomic_load(&pool_jobs),
            atomic_load(&fallback_waits));
}

static void configure(void)
{
    configured = true;
    verbose = env_flag(ENV_CFA_VERBOSE) || env_flag(ENV_CFA_STATS);
    force_fallback = strcmp(env_choice(ENV_CFA_IO), "fallback") == 0;
    if (RUNNING_ON_VALGRIND && !force_fallback) {
        force_fallback = true;
        fallback_reason = "running under valgrind";
        verbose |= env_is_set(ENV_CFA_IO); /* CFA_IO=uring was asked for: say why not */
    }
    ring_entries = (unsigned)env_count(ENV_CFA_IO_ENTRIES);
    if (env_flag(ENV_CFA_STATS))
        atexit(print_stats);
}

static void say_fallback(const char *why)
{
    if (verbose && !atomic_exchange(&warned, true))
        fprintf(stderr, "cfa: io: %s; using the fallback engine (epoll and a thread pool)\n", why);
}

/* Sysctl 2 disables io_uring for everyone; 1 only for processes outside
 * io_uring_group, which io_uring_queue_init then reports (EPERM). */
static bool disabled_by_sysctl(void)
{
    int fd = open("/proc/sys/kernel/io_uring_disabled", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    char c = '0';
    ssize_t n = read(fd, &c, 1);
    close(fd);
    return n == 1 && c == '2';
}

void io_processor_init(struct cfa_processor_state *p)
{
    if (!configured)
        configure();
    struct io_context *io = aligned_alloc(64, (sizeof *io + 63) & ~(size_t)63);
    if (!io)
        cfa_fatal("out of memory setting a processor's I/O up");
    memset(io, 0, sizeof *io);
    io->proc = p;
    io->countdown = IO_POLL_INTERVAL;
    io->armed = TIMER_NONE;
    char why[160];
    snprintf(why, sizeof why, "%s", fallback_reason);
    if (!force_fallback) {
        if (disabled_by_sysctl())
            snprintf(why, sizeof why, "io_uring is disabled (kernel.io_uring_disabled=2)");
        else
            io->uring = io_ring_init(io, ring_entries, why, sizeof why);
    }
    if (!io->uring)
        say_fallback(why);
    spin_lock(&all_lock);
    io->all_next = all;
    if (all)
        all->all_prev = io;
    all = io;
    if (io->uring)
        uring_procs++;
    else
        fallback_procs++;
    spin_unlock(&all_lock);
    p->io = io;
}

void io_processor_fini(struct cfa_processor_state *p)
{
    struct io_context *io = p->io;
    if (io->uring)
        io_ring_fini(io);
    spin_lock(&all_lock);
    if (io->all_prev)
        io->all_prev->all_next = io->all_next;
    else
        all = io->all_next;
    if (io->all_next)
        io->all_next->all_prev = io->all_prev;
    for (int i = 0; i < IO_STAT_COUNT; i++)
        io_stat_add(&retired.count[i], atomic_load_explicit(&io->stats.count[i], memory_order_relaxed));
    spin_unlock(&all_lock);
    p->io = NULL;
    free(io);
}

void io_processor_fork_child(void)
{
    atomic_store(&all_lock, 0);
    all = NULL;
}

void io_processor_forget(struct cfa_processor_state *p)
{
    struct io_context *io = p->io;
    if (!io)
        return;
    if (io->uring)
        io_ring_forget(io);
    p->io = NULL;
    free(io);
}

/* Expired timers, if any are due; the clock is read only when a timer
 * exists. Returns the earliest deadline still pending, or TIMER_NONE, and
 * adds the number of waits ended to *n. */
static int64_t service_timers(unsigned *n)
{
    int64_t e = timer_earliest();
    if (e == TIMER_NONE)
        return e;
    int64_t now = cfa_clock_ns();
    if (e <= now) {
        *n += timer_service(now);
        e = timer_earliest();
    }
    return e;
}

void io_poll_periodic(struct io_context *io)
{
    io->countdown = IO_POLL_INTERVAL;
    unsigned n = 0;
    if (io->uring)
        io_ring_poll(io);
    service_timers(&n);
}

void io_sleep(struct cfa_processor_state *p)
{
    if (p->io->uring) {
        io_ring_sleep(p->io, p->sleeper.fd);
        return;
    }
    uint64_t value;
    while (read(p->sleeper.fd, &value, sizeof value) < 0 && errno == EINTR)
        ;
}

bool io_idle(struct cfa_processor_state *p)
{
    struct io_context *io = p->io;
    unsigned n = 0;
    ready_hold_notify(p);
    if (io->uring)
        n += io_ring_poll(io);
    int64_t e = service_timers(&n);
    if (io->uring && deadlines_earliest(&io->deadlines) < e)
        e = deadlines_earliest(&io->deadlines); /* a timed request's cancel is due then */
    ready_release_notify(p);
    if (io->uring && io_ring_stalled(io))
        return true; /* the kernel refused SQEs (EAGAIN): retry, never sleep on them */
    if (n == 0 && e != TIMER_NONE) {
        /* About to look for work once more, then sleep: make sure the
         * earliest timer wakes this processor. */
        if (io->uring)
            io_ring_arm(io, e);
        else
            fallback_arm(e);
    }
    return n != 0;
}
