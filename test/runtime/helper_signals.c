// helper_signals: a process signal goes to a processor (or a kernel
// thread of the program's own), never to one of the runtime's helper
// kernel threads: the I/O poller and pool workers (and the preemption
// ticker) block every signal from their start, and a processor's kernel
// thread blocks every signal once it has left its loop for good. An
// ending kernel thread must take no signal: ThreadSanitizer drops one
// delivered to a kernel thread it has already finished (an I/O pool
// worker ends after its idle time).
//
// The fallback engine: an accept on a socket without O_NONBLOCK goes to a
// pool worker, which waits there until main connects, and the first
// request starts the poller. While the accept waits,
// /proc/self/task/*/status says which kernel threads leave SIGUSR1
// unblocked (SigBlk). The test hook at CFA_STEP_PROCESSOR_LEFT reads the
// stopping processor's own mask.
//
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: env CFA_IO=fallback %timeout %t | FileCheck %s
// CHECK: helpers: 2 kernel threads more than the processors, none takes SIGUSR1
// CHECK-NEXT: processors: 2 take SIGUSR1
// CHECK-NEXT: processor stop: every signal blocked once it left its loop
#include "check.h"

#include <cfa/io.h>
#include <cfa/sleep.h>
#include <cfa/test_hook.h>
#include <dirent.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static _Atomic int left_seen, left_blocked;

void cfa_test_hook(enum cfa_test_step step) {
    if (step != CFA_STEP_PROCESSOR_LEFT)
        return;
    sigset_t mask;
    pthread_sigmask(SIG_BLOCK, NULL, &mask);
    atomic_fetch_add(&left_seen, 1);
    if (sigismember(&mask, SIGUSR1) && sigismember(&mask, SIGTERM) && sigismember(&mask, SIGINT))
        atomic_fetch_add(&left_blocked, 1);
}

enum { MAX_TASKS = 64 };

/* The kernel threads of the process: ids, and whether each leaves SIGUSR1
 * unblocked. */
struct task { int tid; bool takes_usr1; };

static int list_tasks(struct task *t) {
    int n = 0;
    DIR *d = opendir("/proc/self/task");
    CHECK(d, "cannot list /proc/self/task");
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[64], line[256];
        snprintf(path, sizeof path, "/proc/self/task/%s/status", e->d_name);
        FILE *f = fopen(path, "r");
        CHECK(f, "cannot read %s", path);
        while (fgets(line, sizeof line, f)) {
            unsigned long long blocked;
            if (sscanf(line, "SigBlk: %llx", &blocked) == 1) {
                CHECK(n < MAX_TASKS, "more than %d kernel threads", MAX_TASKS);
                t[n++] = (struct task){ atoi(e->d_name), !(blocked & (1ull << (SIGUSR1 - 1))) };
            }
        }
        fclose(f);
    }
    closedir(d);
    return n;
}

static bool listed(const struct task *t, int n, int tid) {
    for (int i = 0; i < n; i++)
        if (t[i].tid == tid)
            return true;
    return false;
}

/* A kernel thread that has not run yet shows every signal blocked (glibc
 * starts it so); one waiting in poll or epoll_wait (the pool's accept, the
 * poller) shows its own mask. */
static bool waits_in_poll(int tid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/syscall", tid);
    FILE *f = fopen(path, "r");
    CHECK(f, "cannot read %s", path);
    long nr = -1;
    if (fscanf(f, "%ld", &nr) != 1)
        nr = -1; /* "running" */
    fclose(f);
    return nr == SYS_poll || nr == SYS_ppoll || nr == SYS_epoll_wait || nr == SYS_epoll_pwait;
}

static int count_takers(const struct task *t, int n) {
    int k = 0;
    for (int i = 0; i < n; i++)
        k += t[i].takes_usr1;
    return k;
}

static int listener, accepted = -1;

static void acceptor_main(void *object) {
    (void)object;
    accepted = cfa_accept(listener, NULL, NULL);
}

int main(void) {
    struct cfa_processor *p = cfa_processor_new(cfa_current_cluster());
    struct task before[MAX_TASKS], after[MAX_TASKS];
    int before_tasks = list_tasks(before);
    int before_take = count_takers(before, before_tasks);

    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof addr;
    listener = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(listener >= 0 && bind(listener, (struct sockaddr *)&addr, len) == 0 && listen(listener, 1) == 0 &&
              getsockname(listener, (struct sockaddr *)&addr, &len) == 0,
          "cannot listen on the loopback");
    struct cfa_thread acceptor;
    memset(&acceptor, 0, sizeof acceptor);
    cfa_thread_start(&acceptor, acceptor_main, NULL, "Acceptor", 0);
    /* Blocked: its request was queued and the pool's worker started. */
    while (atomic_load(&acceptor.state) != CFA_THREAD_BLOCKED)
        cfa_yield();

    /* The poller and the worker, which waits for our connection, once both
     * wait in their system calls. */
    int tasks;
    for (;;) {
        tasks = list_tasks(after);
        CHECK(tasks == before_tasks + 2, "%d kernel threads before the first request, %d after", before_tasks, tasks);
        int waiting = 0;
        for (int i = 0; i < tasks; i++)
            waiting += !listed(before, before_tasks, after[i].tid) && waits_in_poll(after[i].tid);
        if (waiting == 2)
            break;
        cfa_sleep_ns(1000000);
    }
    int take = count_takers(after, tasks);
    CHECK(take == before_take, "%d kernel threads took SIGUSR1 before the helpers started, %d after", before_take, take);
    printf("helpers: %d kernel threads more than the processors, none takes SIGUSR1\n", tasks - before_tasks);
    CHECK(take == 2, "%d kernel threads take SIGUSR1 (the processors: 2)", take);
    printf("processors: %d take SIGUSR1\n", take);
    int client = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(client >= 0 && connect(client, (struct sockaddr *)&addr, len) == 0, "cannot connect");
    cfa_thread_join(&acceptor);
    CHECK(accepted >= 0, "the pool's accept failed");
    close(accepted);
    close(client);
    close(listener);

    cfa_processor_delete(p);
    CHECK(atomic_load(&left_seen) == 1, "the stopped processor passed CFA_STEP_PROCESSOR_LEFT %d times", atomic_load(&left_seen));
    CHECK(atomic_load(&left_blocked) == 1, "the stopped processor left its loop with signals unblocked");
    printf("processor stop: every signal blocked once it left its loop\n");
    return 0;
}
