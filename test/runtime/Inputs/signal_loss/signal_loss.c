// signal_loss: the program that drive.py sends signals to (not a lit
// test: a statistical reproducer for signals lost under ThreadSanitizer).
//
// Four user threads churn on two processors; a SIGUSR1 handler writes a
// byte to a pipe; a watcher thread reads it with cfa_read and prints the
// running count ("ack N"). argv[1]: the churn, a mask of 1 (start, halt,
// join a thread), 2 (yield), 4 (unpark a parked thread; with 2, or the
// churners never give their processors up), 8 (cfa_sleep_ns 50 us),
// 16 (a pipe round trip with cfa_write/cfa_read); default 31.
//
// Build (TSan): clang-19 -std=gnu17 -O2 -g -D_GNU_SOURCE -fsanitize=thread
//   -I runtime/include signal_loss.c -o signal_loss build-tsan/runtime/libcfa.a
//   -luring -lhwloc -lpthread
#include <cfa/runtime.h>
#include <cfa/io.h>
#include <cfa/sleep.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>

static int sig_pipe[2];
static int mask = 31;
static void on_sig(int s) { (void)s; if (write(sig_pipe[1], "s", 1) < 0) {} }

static void short_main(void *o) { (void)o; }

static struct cfa_thread *parker;
static _Atomic int park_turn;

static void parker_main(void *o) { (void)o; for (;;) { cfa_park(); atomic_fetch_add(&park_turn, 1); } }

static void churn_main(void *o) {
    long id = (long)o;
    int iofd[2]; if (pipe(iofd)) abort();
    for (unsigned long i = 0;; i++) {
        if (mask & 1) { struct cfa_thread t; memset(&t, 0, sizeof t); cfa_thread_start(&t, short_main, NULL, "short", 0); cfa_thread_join(&t); cfa_thread_destroy(&t); }
        if (mask & 2) cfa_yield();
        if ((mask & 4) && id == 0) cfa_unpark(parker);
        if (mask & 8) cfa_sleep_ns(50000);
        if (mask & 16) { char c = 'x'; if (cfa_write(iofd[1], &c, 1) != 1 || cfa_read(iofd[0], &c, 1) != 1) abort(); }
    }
}

static void watcher_main(void *o) {
    (void)o;
    unsigned long n = 0;
    printf("ready\n"); fflush(stdout);
    for (;;) {
        char ch;
        ssize_t r = cfa_read(sig_pipe[0], &ch, 1);
        if (r == 1) { n++; printf("ack %lu\n", n); fflush(stdout); }
    }
}

int main(int argc, char **argv) {
    if (argc > 1) mask = atoi(argv[1]);
    if (pipe(sig_pipe)) return 1;
    struct sigaction act; memset(&act, 0, sizeof act); act.sa_handler = on_sig;
    sigaction(SIGUSR1, &act, NULL);
    cfa_processor_new(cfa_current_cluster());
    static struct cfa_thread p, w, c[4];
    cfa_thread_start(&p, parker_main, NULL, "parker", 0); parker = &p;
    for (long i = 0; i < 4; i++) cfa_thread_start(&c[i], churn_main, (void *)i, "churn", 0);
    cfa_thread_start(&w, watcher_main, NULL, "watcher", 0);
    cfa_thread_join(&w);
    return 0;
}
