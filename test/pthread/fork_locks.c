// fork() while another processor holds the runtime's locks
// (runtime/src/fork.c, step C3): the test hook holds a notifier at
// CFA_STEP_NOTIFY_TOOK, inside its reader section of the cluster's resize
// lock and with the idle list's `first` taken, and the main thread forks
// then. In the child that kernel thread does not exist, so nothing would
// ever let the flag go: the child starts a processor (a resize, which
// waits for every reader flag), starts pthreads that hand a count through
// a mutex and condition variable (pushes and idle wake-ups), and exits
// with the status that says all of it held. The parent then lets the
// notifier go and its threads finish.
//
// Preemption is off: the hook spins in program text, where a time slice
// would switch the notifier out in the middle of the runtime's protocol.
//
// RUN: %cc %s -I%S/../runtime/include -o %t %cfa-link
// RUN: env CFA_PREEMPTION_MS=0 TSAN_OPTIONS=die_after_fork=0 %timeout %t %stress | FileCheck %s
// CHECK: forked while a notifier held its reader flag: the child resized its cluster to 4 processors and 4 pthreads counted 4000
// CHECK: parent: the notifier went on, 2 threads joined
#include "check.h"
#include <cfa/test_hook.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

enum { PTHREADS = 4, ROUNDS = 1000, CHILD_OK = 42 };

/* Each holds a round number (1, 2, ...), 0 for none: a hook call of an
 * earlier round can never be taken for the current one's. */
static _Atomic long armed, held, release;
static _Atomic int stop;

/* Holds the first notifier that takes a sleeper once armed, until its
 * round is released. In the child `armed` is already 0: it never holds
 * there. */
void cfa_test_hook(enum cfa_test_step step) {
    long round = atomic_load(&armed);
    if (step != CFA_STEP_NOTIFY_TOOK || round == 0 || !atomic_compare_exchange_strong(&armed, &round, 0))
        return;
    atomic_store(&held, round);
    while (atomic_load(&release) != round)
        sched_yield();
}

static struct cfa_thread parker, unparker;

static void parker_main(void *arg) {
    (void)arg;
    while (!atomic_load(&stop))
        cfa_park();
}

static void unparker_main(void *arg) {
    (void)arg;
    while (!atomic_load(&stop)) {
        cfa_unpark(&parker);
        cfa_yield();
    }
    cfa_unpark(&parker);
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_changed = PTHREAD_COND_INITIALIZER;
static long counted;
static int turn;

static void *take_turns(void *arg) {
    int me = (int)(long)arg;
    for (int r = 0; r < ROUNDS; r++) {
        pthread_mutex_lock(&lock);
        while (turn != me)
            pthread_cond_wait(&turn_changed, &lock);
        counted++;
        turn = (turn + 1) % PTHREADS;
        pthread_cond_broadcast(&turn_changed);
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

static int child_life(void) {
    struct cfa_processor *extra = cfa_processor_new(cfa_default_cluster());
    unsigned procs = cfa_cluster_processor_count(cfa_default_cluster());
    pthread_t t[PTHREADS];
    for (long i = 0; i < PTHREADS; i++)
        if (pthread_create(&t[i], NULL, take_turns, (void *)i) != 0)
            return 1;
    for (int i = 0; i < PTHREADS; i++)
        pthread_join(t[i], NULL);
    cfa_processor_delete(extra);
    return procs == 4 && counted == PTHREADS * ROUNDS ? CHILD_OK : 1;
}

int main(int argc, char **argv) {
    long repeat = repeat_count(argc, argv);
    struct extra_procs extra;
    procs_start(&extra, 3);
    for (long rep = 0; rep < repeat; rep++) {
        long round = rep + 1;
        atomic_store(&stop, 0);
        memset(&parker, 0, sizeof parker);
        memset(&unparker, 0, sizeof unparker);
        cfa_thread_start(&parker, parker_main, NULL, "parker", 0);
        cfa_thread_start(&unparker, unparker_main, NULL, "unparker", 0);
        atomic_store(&armed, round);
        while (atomic_load(&held) != round)
            sched_yield(); /* the kernel's: this thread keeps its processor */
        fflush(stdout);
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0)
            _exit(child_life());
        int status;
        CHECK(waitpid(pid, &status, 0) == pid);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == CHILD_OK, "child status %#x", status);
        if (rep == 0)
            printf("forked while a notifier held its reader flag: the child resized its cluster to 4 processors "
                   "and %d pthreads counted %d\n",
                   PTHREADS, PTHREADS * ROUNDS);
        atomic_store(&release, round);
        atomic_store(&stop, 1);
        cfa_thread_join(&unparker);
        cfa_thread_join(&parker);
        if (rep == 0)
            printf("parent: the notifier went on, 2 threads joined\n");
        fflush(stdout);
    }
    procs_stop(&extra);
    return 0;
}
