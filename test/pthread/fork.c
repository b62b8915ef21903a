// fork() in a program with user threads on two processors (docs/pthreads.md,
// "fork"; runtime/src/fork.c):
//   - the child runs the thread that forked, and its blocking calls are
//     glibc's: it reads a pipe and writes its answer;
//   - a child that starts a thread (pthread_create) is stopped with a
//     message saying why, not left hanging on processors that are not
//     there;
//   - fork then exec runs the program exec'd;
//   - the parent's threads go on unaffected: every worker's count is
//     complete, and new pthreads start and join after the forks.
//
// RUN: %cc %s -I%S/../runtime/include -o %t %cfa-link
// RUN: env CFA_PREEMPTION_MS=1 %timeout %t %stress | FileCheck %s
// CHECK: child read 'ping' and answered
// CHECK: child's pthread_create stopped it: cfa: error: pthread_create in a process made by fork()
// CHECK: fork then exec: exit status 7
// CHECK: parent: 4 workers counted 4000000, 4 pthreads after the forks joined
#include "check.h"
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

enum { WORKERS = 4, COUNT = 1000000 };

struct worker { long count; struct cfa_thread thread; };

static void worker_main(void *object) {
    struct worker *w = object;
    for (long i = 0; i < COUNT; i++) {
        w->count++;
        if (i % 4096 == 0)
            cfa_yield();
    }
}

static void *nothing(void *arg) { return arg; }

/* The child reads what the parent wrote and answers through another pipe. */
static void child_reads_pipe(void) {
    int to_child[2], from_child[2];
    CHECK(pipe(to_child) == 0 && pipe(from_child) == 0);
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        char buf[8] = {0};
        ssize_t n = read(to_child[0], buf, 4);
        _exit(n == 4 && !memcmp(buf, "ping", 4) && write(from_child[1], "pong", 4) == 4 ? 0 : 1);
    }
    CHECK(write(to_child[1], "ping", 4) == 4);
    char buf[8] = {0};
    CHECK(read(from_child[0], buf, 4) == 4 && !memcmp(buf, "pong", 4), "the child answered '%s'", buf);
    int status;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);
    printf("child read 'ping' and answered\n");
    for (int i = 0; i < 2; i++) {
        close(to_child[i]);
        close(from_child[i]);
    }
}

/* The child starts a pthread: it stops, and its stderr says why. */
static void child_starts_thread(void) {
    int err[2];
    CHECK(pipe(err) == 0);
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        dup2(err[1], 2);
        pthread_t t;
        pthread_create(&t, NULL, nothing, NULL);
        pthread_join(t, NULL);
        _exit(0); /* not reached: a child that got a thread exits 0 */
    }
    close(err[1]);
    char text[1024] = {0};
    size_t got = 0;
    ssize_t n;
    while (got < sizeof text - 1 && (n = read(err[0], text + got, sizeof text - 1 - got)) > 0)
        got += (size_t)n;
    close(err[0]);
    int status;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(!(WIFEXITED(status) && WEXITSTATUS(status) == 0), "the child's thread ran: status %#x", status);
    char *line = strchr(text, '\n');
    if (line)
        *line = 0;
    printf("child's pthread_create stopped it: %s\n", text);
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
    struct extra_procs extra;
    procs_start(&extra, 2);
    for (long rep = 0; rep < repeat; rep++) {
        struct worker w[WORKERS];
        memset(w, 0, sizeof w);
        for (int i = 0; i < WORKERS; i++)
            cfa_thread_start(&w[i].thread, worker_main, &w[i], "Worker", 0);
        child_reads_pipe();
        child_starts_thread();
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
