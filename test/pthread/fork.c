// fork() in a program with user threads on three processors (docs/pthreads.md,
// "fork"; runtime/src/fork.c). Each child is a complete process: it keeps
// the thread that forked, and its exit status says whether everything below
// held there:
//   - from the main thread: pthreads and cfa-lite threads hand a count
//     through a mutex and condition variable, a processor starts and stops,
//     and so does one the parent started,
//     a read of an empty pipe parks only its caller (the writer waits
//     until the reader is BLOCKED, which a read that blocked the processor
//     never is), and a FILE that a parent's pthread held with flockfile at
//     the fork is free (as glibc frees its own FILE locks there);
//   - from a pthread that is not the main thread, and from a kernel thread
//     that is not a processor (whose child has no user thread at all);
//   - daemonising: the first child forks the daemon and exits at once; the
//     daemon calls setsid, then starts its threads;
//   - fork then exec runs the program exec'd;
//   - the parent's threads go on unaffected: every worker's count is
//     complete, and new pthreads start and join after the forks.
// A child of a parent's thread that did not call fork never runs it: the
// workers are ghosts there, and their counts stay as they were at the fork.
// A child that waits for a mutex a ghost held at the fork, before it has
// started anything, gets the deadlock report (status 1), not a hang.
//
// RUN: %cc %s -I%S/../runtime/include -I%S/include -o %t %cfa-link
// RUN: env CFA_PREEMPTION_MS=1 TSAN_OPTIONS=die_after_fork=0 %timeout %t %stress | FileCheck %s
// CHECK: a child waiting for a mutex a vanished thread held: {{cfa: deadlock: every thread is blocked|not run under ThreadSanitizer}}
// CHECK: child of the main thread: 4 pthreads and a thread counted 5000, processors came and went, the pipe reader parked alone, a held FILE free, workers still
// CHECK: child of a pthread: 4 pthreads counted 4000
// CHECK: child of a kernel thread: 4 pthreads counted 4000
// CHECK: daemon: {{its own session, 4 pthreads counted 4000, its parent gone|not run under ThreadSanitizer}}
// CHECK: fork then exec: exit status 7
// CHECK: parent: 4 workers counted 4000000, 4 pthreads after the forks joined
#include "check.h"
#include "kthread.h"
#include <cfa/io.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

// Under a sanitizer the interposed read is the sanitizer's (glibc's, which
// blocks the processor: docs/pthreads.md); cfa_read is the runtime's there.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define PARKING_READ cfa_read
#endif
#endif
#ifndef PARKING_READ
#define PARKING_READ read
#endif
// ThreadSanitizer does not see the kernel threads a child of a
// multi-threaded fork starts (docs/pthreads.md, "Sanitizers"), and its
// pthread_join of one fails its own check: there the child does not stop a
// processor the parent started.
// Nor can the deadlock check there tell whether TSan's own kernel thread
// exists (runtime/src/deadlock.c), so it never reports: there the child does
// not wait for a vanished thread's mutex either.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CHILD_CANNOT_JOIN_KTHREADS 1
#define CHILD_CANNOT_REPORT_DEADLOCK 1
// A child of a child of the multi-threaded parent (the daemon) that starts
// threads trips ThreadSanitizer itself: a few runs in a hundred report a
// race between the daemon's new processor and the parent's past, and
// reporting it fails ThreadSanitizer's own check (ev_sid != kFreeSid),
// killing the daemon. There the daemon is not run.
#define GRANDCHILD_BREAKS_TSAN 1
#endif
#endif

enum { WORKERS = 4, COUNT = 1000000, PTHREADS = 4, ROUNDS = 1000, CHILD_OK = 42 };

struct worker { long count; struct cfa_thread thread; };

static struct extra_procs extra; /* the parent's processors but the main one */

static void worker_main(void *object) {
    struct worker *w = object;
    for (long i = 0; i < COUNT; i++) {
        w->count++;
        if (i % 4096 == 0)
            cfa_yield();
    }
}

static void *nothing(void *arg) { return arg; }

/* ---- what every child does: threads hand a count around a mutex -------- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_changed = PTHREAD_COND_INITIALIZER;
static long counted;
static int turn;

/* Party `me` of `parties` adds ROUNDS to the count, one at its turn each. */
struct party { int me, parties; };

static void take_turns(const struct party *p) {
    for (int r = 0; r < ROUNDS; r++) {
        pthread_mutex_lock(&lock);
        while (turn != p->me)
            pthread_cond_wait(&turn_changed, &lock);
        counted++;
        turn = (turn + 1) % p->parties;
        pthread_cond_broadcast(&turn_changed);
        pthread_mutex_unlock(&lock);
    }
}

static void *party_pthread(void *arg) { take_turns(arg); return NULL; }
static void party_thread(void *arg) { take_turns(arg); }

/* `with_thread`: one party is a cfa-lite thread. Returns the count. */
static long hand_count_around(bool with_thread) {
    int parties = PTHREADS + with_thread;
    struct party p[PTHREADS + 1];
    pthread_t t[PTHREADS];
    struct cfa_thread thread;
    memset(&thread, 0, sizeof thread);
    counted = 0;
    turn = 0;
    for (int i = 0; i < parties; i++)
        p[i] = (struct party){ i, parties };
    for (int i = 0; i < PTHREADS; i++)
        CHECK_EQ(pthread_create(&t[i], NULL, party_pthread, &p[i]), 0);
    if (with_thread)
        cfa_thread_start(&thread, party_thread, &p[PTHREADS], "party", 0);
    for (int i = 0; i < PTHREADS; i++)
        CHECK_EQ(pthread_join(t[i], NULL), 0);
    if (with_thread)
        cfa_thread_join(&thread);
    return counted;
}

static int pipe_fds[2];

static void *pipe_reader(void *arg) {
    char buf[4] = {0};
    ssize_t n = PARKING_READ(pipe_fds[0], buf, sizeof buf);
    return (void *)(long)(n == 4 && !memcmp(buf, "data", 4));
}

/* A read of an empty pipe parks the reader only: this thread sees it
 * BLOCKED before it writes. */
static bool pipe_reader_parks(void) {
    CHECK(pipe(pipe_fds) == 0);
    pthread_t reader;
    CHECK_EQ(pthread_create(&reader, NULL, pipe_reader, NULL), 0);
    wait_until_blocked((struct cfa_thread *)reader);
    CHECK(write(pipe_fds[1], "data", 4) == 4);
    void *ok;
    CHECK_EQ(pthread_join(reader, &ok), 0);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return ok != NULL;
}

static int child_of_main(struct worker *w, const long *at_fork) {
    bool file_free = ftrylockfile(stderr) == 0;
    if (file_free)
        funlockfile(stderr);
    long total = hand_count_around(true);
    struct cfa_processor *added = cfa_processor_new(cfa_default_cluster());
    unsigned procs = cfa_cluster_processor_count(cfa_default_cluster());
    cfa_processor_delete(added);
    bool parents_stopped = true;
#ifndef CHILD_CANNOT_JOIN_KTHREADS
    cfa_processor_stop(&extra.p[0]); /* one the parent started: restarted here */
    parents_stopped = cfa_cluster_processor_count(cfa_default_cluster()) == 2;
#endif
    bool parked = pipe_reader_parks();
    bool ghosts_still = true; /* the workers do not run here */
    for (int i = 0; i < WORKERS; i++)
        ghosts_still &= w[i].count == at_fork[i];
    if (total != (PTHREADS + 1) * ROUNDS || procs != 4 || !parents_stopped || !parked || !ghosts_still || !file_free) {
        fprintf(stderr, "child of main: total %ld, processors %u, parent's stopped %d, parked %d, ghosts still %d, "
                "file free %d\n", total, procs, parents_stopped, parked, ghosts_still, file_free);
        return 1;
    }
    return CHILD_OK;
}

/* Forks; the child runs `life` and exits with its result. Returns the
 * child's exit status. */
static int fork_and_wait(int (*life)(void *), void *arg) {
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0)
        _exit(life(arg));
    int status;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status), "child status %#x", status);
    return WEXITSTATUS(status);
}

struct main_fork { struct worker *w; };

/* Holds stderr's FILE lock until `release` is readable. */
static int file_holder_release[2];
static sem_t file_held;
static void *hold_stderr(void *arg) {
    flockfile(stderr);
    sem_post(&file_held);
    char c;
    ssize_t n = PARKING_READ(file_holder_release[0], &c, 1);
    funlockfile(stderr);
    return (void *)(long)n;
}

static int main_child_life(void *arg) {
    struct worker *w = ((struct main_fork *)arg)->w;
    long at_fork[WORKERS];
    for (int i = 0; i < WORKERS; i++)
        at_fork[i] = w[i].count;
    /* The workers are ghosts: let them have every chance to run. */
    for (int i = 0; i < 100; i++)
        cfa_yield();
    return child_of_main(w, at_fork);
}

static int counting_child_life(void *arg) {
    (void)arg;
    return hand_count_around(false) == PTHREADS * ROUNDS && pipe_reader_parks() ? CHILD_OK : 1;
}

static void *forking_pthread(void *arg) {
    (void)arg;
    return (void *)(long)fork_and_wait(counting_child_life, NULL);
}

static void *forking_kthread(void *arg) {
    (void)arg;
    return (void *)(long)fork_and_wait(counting_child_life, NULL);
}

/* Reads fd until end of file into buf (a string), then closes fd. */
static void read_to_end(int fd, char *buf, size_t size) {
    size_t got = 0;
    ssize_t n;
    while (got < size - 1 && (n = read(fd, buf + got, size - 1 - got)) > 0)
        got += (size_t)n;
    buf[got] = 0;
    close(fd);
}

/* ---- daemonising: fork, the parent exits, setsid, then threads -------- */

static void daemonise(void) {
    int report[2];
    CHECK(pipe(report) == 0);
    fflush(stdout);
    pid_t first = fork();
    CHECK(first >= 0);
    if (first == 0) {
        pid_t daemon = fork();
        if (daemon != 0)
            _exit(daemon > 0 ? 0 : 1); /* the daemon's parent leaves at once */
        close(report[0]);
        pid_t sid = setsid();
        long total = hand_count_around(false);
        /* Its parent has exited: it was re-parented. */
        while (getppid() == first)
            sched_yield();
        char line[128];
        int n = snprintf(line, sizeof line, "%d %ld\n", sid == getpid(), total);
        _exit(write(report[1], line, (size_t)n) == n ? 0 : 1);
    }
    close(report[1]);
    int status;
    CHECK(waitpid(first, &status, 0) == first);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "first child status %#x", status);
    char line[128];
    read_to_end(report[0], line, sizeof line);
    int own_session = 0;
    long total = 0;
    CHECK(sscanf(line, "%d %ld", &own_session, &total) == 2, "the daemon said '%s'", line);
    CHECK(own_session == 1 && total == PTHREADS * ROUNDS, "the daemon said '%s'", line);
    printf("daemon: its own session, %d pthreads counted %ld, its parent gone\n", PTHREADS, total);
}

/* A pthread holds `ghost_lock` across a fork; the child waits for it. */
static pthread_mutex_t ghost_lock = PTHREAD_MUTEX_INITIALIZER;
static int ghost_release[2];
static void *hold_ghost_lock(void *arg) {
    pthread_mutex_lock(&ghost_lock);
    sem_post(arg);
    char c;
    ssize_t n = PARKING_READ(ghost_release[0], &c, 1);
    pthread_mutex_unlock(&ghost_lock);
    return (void *)(long)n;
}

static void child_waits_for_a_ghost(void) {
    sem_t held;
    CHECK_EQ(sem_init(&held, 0, 0), 0);
    int err[2];
    CHECK(pipe(ghost_release) == 0 && pipe(err) == 0);
    pthread_t holder;
    CHECK_EQ(pthread_create(&holder, NULL, hold_ghost_lock, &held), 0);
    CHECK_EQ(sem_wait(&held), 0);
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        dup2(err[1], 2);
        pthread_mutex_lock(&ghost_lock);
        _exit(0); /* not reached */
    }
    close(err[1]);
    char text[1024];
    read_to_end(err[0], text, sizeof text);
    int status;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1, "child status %#x: %s", status, text);
    CHECK(write(ghost_release[1], "x", 1) == 1);
    CHECK_EQ(pthread_join(holder, NULL), 0);
    close(ghost_release[0]);
    close(ghost_release[1]);
    char *line = strchr(text, '\n');
    if (line)
        *line = 0;
    printf("a child waiting for a mutex a vanished thread held: %s\n", text);
}

static void fork_then_exec(void) {
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", "exit 7", (char *)NULL);
        _exit(127);
    }
    int status;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status), "status %#x", status);
    printf("fork then exec: exit status %d\n", WEXITSTATUS(status));
}

int main(int argc, char **argv) {
    long repeat = repeat_count(argc, argv);
    procs_start(&extra, 3);
    for (long rep = 0; rep < repeat; rep++) {
        struct worker w[WORKERS];
        memset(w, 0, sizeof w);
        for (int i = 0; i < WORKERS; i++)
            cfa_thread_start(&w[i].thread, worker_main, &w[i], "Worker", 0);
#ifndef CHILD_CANNOT_REPORT_DEADLOCK
        if (rep == 0)
            child_waits_for_a_ghost(); /* while the workers keep the processors awake */
#else
        if (rep == 0)
            printf("a child waiting for a mutex a vanished thread held: not run under ThreadSanitizer\n");
#endif

        struct main_fork mf = { w };
        pthread_t holder;
        CHECK(pipe(file_holder_release) == 0);
        CHECK_EQ(sem_init(&file_held, 0, 0), 0);
        CHECK_EQ(pthread_create(&holder, NULL, hold_stderr, NULL), 0);
        CHECK_EQ(sem_wait(&file_held), 0);
        CHECK_EQ(fork_and_wait(main_child_life, &mf), CHILD_OK);
        CHECK(write(file_holder_release[1], "x", 1) == 1);
        CHECK_EQ(pthread_join(holder, NULL), 0);
        close(file_holder_release[0]);
        close(file_holder_release[1]);
        if (rep == 0)
            printf("child of the main thread: %d pthreads and a thread counted %d, processors came and went, "
                   "the pipe reader parked alone, a held FILE free, workers still\n",
                   PTHREADS, (PTHREADS + 1) * ROUNDS);

        pthread_t forker;
        void *status;
        CHECK_EQ(pthread_create(&forker, NULL, forking_pthread, NULL), 0);
        CHECK_EQ(pthread_join(forker, &status), 0);
        CHECK_EQ((long)status, CHILD_OK);
        if (rep == 0)
            printf("child of a pthread: %d pthreads counted %d\n", PTHREADS, PTHREADS * ROUNDS);

        pthread_t kt = kthread_start(forking_kthread, NULL);
        CHECK_EQ(cfa_kernel_thread_join(kt, &status), 0);
        CHECK_EQ((long)status, CHILD_OK);
        if (rep == 0)
            printf("child of a kernel thread: %d pthreads counted %d\n", PTHREADS, PTHREADS * ROUNDS);

#ifndef GRANDCHILD_BREAKS_TSAN
        if (rep == 0)
            daemonise();
#else
        if (rep == 0)
            printf("daemon: not run under ThreadSanitizer\n");
#endif
        fork_then_exec();

        long total = 0;
        for (int i = 0; i < WORKERS; i++) {
            cfa_thread_join(&w[i].thread);
            total += w[i].count;
        }
        CHECK_EQ(total, (long)WORKERS * COUNT);
        pthread_t t[WORKERS];
        for (long i = 0; i < WORKERS; i++)
            CHECK_EQ(pthread_create(&t[i], NULL, nothing, (void *)i), 0);
        for (long i = 0; i < WORKERS; i++) {
            void *result;
            CHECK_EQ(pthread_join(t[i], &result), 0);
            CHECK_EQ((long)result, i);
        }
        if (rep == 0)
            printf("parent: %d workers counted %ld, %d pthreads after the forks joined\n", WORKERS, total,
                   WORKERS);
        fflush(stdout);
    }
    procs_stop(&extra);
    return 0;
}
