// The deadlock report on both engines. The fallback engine's poller and
// pool threads are the runtime's own kernel threads (counted as such), so
// once they exist a deadlock is still reported; and a thread blocked in
// I/O is a pending wake-up, never a deadlock.
//
//   deadlock  after a pipe read (poller) and a file read (pool) have run,
//             a thread parks forever and main joins it: reported, exit 1;
//   pending   main joins a thread blocked in cfa_read on a pipe that a
//             child process writes 300 ms later: all processors sleep
//             meanwhile, no report, exit 0.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: not %timeout %t 1 default deadlock 2>&1 | FileCheck %s --check-prefix=DEADLOCK
// RUN: env CFA_IO=fallback not %timeout %t 1 fallback deadlock 2>&1 | FileCheck %s --check-prefix=DEADLOCK
// RUN: %timeout %t %stress default pending 2>&1 | FileCheck %s --check-prefix=PENDING
// RUN: env CFA_IO=fallback %timeout %t %stress fallback pending 2>&1 | FileCheck %s --check-prefix=PENDING
// DEADLOCK: did I/O on the pipe and the file
// DEADLOCK: deadlock
// DEADLOCK-DAG: thread of type forever (id {{[0-9]+}}): blocked in park
// DEADLOCK-DAG: the program's main thread: blocked in join
// DEADLOCK-NOT: unreachable
// PENDING-NOT: deadlock
// PENDING: pending: read 5 bytes after every processor slept, no report
// PENDING-NOT: deadlock
#include "iotest.h"

#include <fcntl.h>
#include <sys/wait.h>

static int fds[2];
static ssize_t got;
static char buf[16];

static void park_forever(void *arg) { (void)arg; cfa_park(); }
static void read_pipe(void *arg) { (void)arg; got = cfa_read(fds[0], buf, sizeof buf); }

static void deadlock(void) {
    CHECK(pipe(fds) == 0);
    struct task r;
    task_start(&r, read_pipe, NULL, "reader");
    wait_until_blocked(&r.thread); /* the reader blocks: the poller waits for the pipe */
    write_all(fds[1], "hello", 5);
    cfa_thread_join(&r.thread);
    CHECK_EQ(got, 5);
    int fd = cfa_openat(AT_FDCWD, "/proc/self/exe", O_RDONLY);
    CHECK(fd >= 0 && cfa_read(fd, buf, 4) == 4 && memcmp(buf, "\177ELF", 4) == 0);
    cfa_close(fd);
    printf("did I/O on the pipe and the file\n");
    fflush(stdout);
    struct task t;
    task_start(&t, park_forever, NULL, "forever");
    cfa_thread_join(&t.thread);
    printf("unreachable\n");
}

static void pending(long reps) {
    for (long rep = 0; rep < reps; rep++) {
        CHECK(pipe(fds) == 0);
        pid_t child = fork();
        CHECK(child >= 0);
        if (child == 0) {
            usleep(300 * 1000);
            _exit(write(fds[1], "world", 5) == 5 ? 0 : 1);
        }
        struct task r;
        task_start(&r, read_pipe, NULL, "reader");
        cfa_thread_join(&r.thread);
        CHECK_EQ(got, 5);
        CHECK(memcmp(buf, "world", 5) == 0);
        int status;
        CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
        close(fds[0]);
        close(fds[1]);
    }
    printf("pending: read 5 bytes after every processor slept, no report\n");
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    check_engine(argc, argv);
    const char *mode = argc > 3 ? argv[3] : "";
    if (strcmp(mode, "deadlock") == 0)
        deadlock();
    else if (strcmp(mode, "pending") == 0)
        pending(reps);
    else
        CHECK(0, "mode: deadlock or pending");
    return 0;
}
