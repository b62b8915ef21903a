// A signal handler of the program's runs as a handler: the blocking calls
// it makes are glibc's, never a park of the thread it interrupted (which
// may hold malloc's lock: a park there deadlocked a server stopped by
// SIGTERM while its handler wrote to a self-pipe). On the only processor:
//   handler   main raises SIGUSR1 inside a region a second thread watches;
//             the handler writes to a blocking pipe; had the write parked
//             main, the watcher would run inside the region;
//   preempt   inside a handler the preemption signal drops its tick
//             (cfa_test_preemption_at), outside it yields;
//   actions   sigaction and signal report the program's own handlers and
//             flags (never the runtime's trampoline), SA_RESETHAND, SIG_IGN,
//             refusals (SIGKILL, a bad number) leave the action as it was;
//   longjmp   after a handler left by siglongjmp, a read on an empty pipe
//             parks again (a read still taken for a handler's would block
//             the only processor and its writer for ever).
//
// (Under a sanitizer its own sigaction and write come first: the runtime
// does not see the handlers, and the handler's write is glibc's anyway.)
//
// UNSUPPORTED: sanitizer
// RUN: %cc %s -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// RUN: env CFA_IO=fallback %timeout %t %stress | FileCheck %s
// CHECK: handler: 200 writes in handlers, the watcher inside the region 0 times
// CHECK-NEXT: preempt: inside a handler 0 yields, outside 1
// CHECK-NEXT: actions: program's handlers and flags reported, resethand, ignore, refusals ok
// CHECK-NEXT: longjmp: read parked after the jump, got 'y'
#include "check.h"
#include "task.h"
#include <cfa/testing.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <unistd.h>

enum { ROUNDS = 200 };
static int pipe_fds[2];

/* ---- handler ---- */
static _Atomic int in_region, watching, inside_seen, watcher_turns;
static void on_usr1_write(int sig) {
    (void)sig;
    CHECK_EQ(write(pipe_fds[1], "x", 1), 1);
}
static void watcher(void *arg) {
    (void)arg;
    while (atomic_load(&watching)) {
        if (atomic_load(&in_region)) atomic_fetch_add(&inside_seen, 1);
        atomic_fetch_add(&watcher_turns, 1);
        cfa_yield();
    }
}
static void test_handler(void) {
    CHECK_EQ(pipe(pipe_fds), 0);
    CHECK(signal(SIGUSR1, on_usr1_write) != SIG_ERR);
    atomic_store(&watching, 1);
    struct task w;
    task_start(&w, watcher, NULL, "Watcher");
    for (int i = 0; i < ROUNDS; i++) {
        atomic_store(&in_region, 1);
        CHECK_EQ(raise(SIGUSR1), 0);   /* the handler runs before raise returns */
        atomic_store(&in_region, 0);
        cfa_yield();                   /* the watcher's turn */
    }
    atomic_store(&watching, 0);
    cfa_thread_destroy(&w.thread);
    char buf[ROUNDS];
    CHECK_EQ(read(pipe_fds[0], buf, sizeof buf), ROUNDS);
    CHECK(atomic_load(&watcher_turns) >= ROUNDS, "the watcher ran %d times", atomic_load(&watcher_turns));
    printf("handler: %d writes in handlers, the watcher inside the region %d times\n", ROUNDS,
           atomic_load(&inside_seen));
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    signal(SIGUSR1, SIG_DFL);
}

/* ---- preempt ---- */
static void program_code(void) {}
static int yields_in_handler = -1;
static void on_usr2_preempt(int sig, siginfo_t *info, void *context) {
    (void)sig;
    (void)info;
    (void)context;
    yields_in_handler = cfa_test_preemption_at((const void *)program_code);
}
static void test_preempt(void) {
    struct sigaction act = { .sa_sigaction = on_usr2_preempt, .sa_flags = SA_SIGINFO };
    CHECK_EQ(sigaction(SIGUSR2, &act, NULL), 0);
    CHECK_EQ(raise(SIGUSR2), 0);
    int outside = cfa_test_preemption_at((const void *)program_code);
    printf("preempt: inside a handler %d yields, outside %d\n", yields_in_handler, outside);
    signal(SIGUSR2, SIG_DFL);
}

/* ---- actions ---- */
static void plain_handler(int sig) { (void)sig; }
static void info_handler(int sig, siginfo_t *info, void *context) { (void)sig; (void)info; (void)context; }
static void test_actions(void) {
    struct sigaction act, old;
    memset(&act, 0, sizeof act);
    act.sa_sigaction = info_handler;
    act.sa_flags = SA_SIGINFO | SA_RESTART;
    CHECK_EQ(sigaction(SIGUSR1, &act, NULL), 0);
    CHECK_EQ(sigaction(SIGUSR1, NULL, &old), 0);
    CHECK(old.sa_sigaction == info_handler && (old.sa_flags & SA_SIGINFO) && (old.sa_flags & SA_RESTART));

    /* signal() reports the previous handler, and sigaction then reports
     * signal's plain one, without SA_SIGINFO. */
    CHECK(signal(SIGUSR1, plain_handler) == (sighandler_t)info_handler);
    CHECK_EQ(sigaction(SIGUSR1, NULL, &old), 0);
    CHECK(old.sa_handler == plain_handler && !(old.sa_flags & SA_SIGINFO));
    CHECK(signal(SIGUSR1, SIG_DFL) == plain_handler);
    CHECK(signal(SIGUSR1, SIG_DFL) == SIG_DFL);

    /* SA_RESETHAND: after one delivery the action is the default. */
    memset(&act, 0, sizeof act);
    act.sa_handler = plain_handler;
    act.sa_flags = SA_RESETHAND;
    CHECK_EQ(sigaction(SIGUSR1, &act, NULL), 0);
    CHECK_EQ(raise(SIGUSR1), 0);
    CHECK_EQ(sigaction(SIGUSR1, NULL, &old), 0);
    CHECK(old.sa_handler == SIG_DFL);

    CHECK(signal(SIGUSR1, SIG_IGN) == SIG_DFL);
    CHECK(signal(SIGUSR1, SIG_DFL) == SIG_IGN);

    /* Refusals leave the table as it was: SIGUSR1 still reports its handler. */
    CHECK(signal(SIGUSR1, plain_handler) == SIG_DFL);
    act.sa_handler = plain_handler;
    act.sa_flags = 0;
    errno = 0;
    CHECK_EQ(sigaction(SIGKILL, &act, NULL), -1);
    CHECK_EQ(errno, EINVAL);
    errno = 0;
    CHECK(signal(0, plain_handler) == SIG_ERR && errno == EINVAL);
    errno = 0;
    CHECK(signal(NSIG + 1, plain_handler) == SIG_ERR && errno == EINVAL);
    CHECK(signal(SIGUSR1, SIG_DFL) == plain_handler);
    printf("actions: program's handlers and flags reported, resethand, ignore, refusals ok\n");
}

/* ---- longjmp ---- */
static sigjmp_buf jump;
static void on_usr1_jump(int sig) { (void)sig; siglongjmp(jump, 1); }
static void late_writer(void *arg) {
    (void)arg;
    for (int i = 0; i < 100; i++) cfa_yield();
    CHECK_EQ(write(pipe_fds[1], "y", 1), 1);
}
static void test_longjmp(void) {
    CHECK_EQ(pipe(pipe_fds), 0);
    CHECK(signal(SIGUSR1, on_usr1_jump) != SIG_ERR);
    if (sigsetjmp(jump, 1) == 0) {
        raise(SIGUSR1);
        CHECK(false, "the handler returned instead of jumping");
    }
    struct task w;
    task_start(&w, late_writer, NULL, "Writer");
    char c = 0;
    CHECK_EQ(read(pipe_fds[0], &c, 1), 1);   /* parks: the writer is on this processor */
    cfa_thread_destroy(&w.thread);
    printf("longjmp: read parked after the jump, got '%c'\n", c);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    signal(SIGUSR1, SIG_DFL);
}

int main(int argc, char **argv) {
    long repeat = repeat_count(argc, argv);
    for (long r = 0; r < repeat; r++) {
        atomic_store(&inside_seen, 0);
        atomic_store(&watcher_turns, 0);
        test_handler();
        test_preempt();
        test_actions();
        test_longjmp();
    }
    return 0;
}
