// accept under a low descriptor limit (RLIMIT_NOFILE 64, set by the test
// itself), on both engines. 200 user threads blocked in cfa_accept4 (100
// on an O_NONBLOCK listener, 100 on a blocking one) hold no descriptor:
// the process can still open exactly as many files as the limit leaves
// (accept4(2) reserves its descriptor when it starts, so a kernel thread
// blocked in it would hold one). At the limit, a waiting connection makes
// accept fail with EMFILE at once, and once a descriptor is free the same
// connection is accepted. A shutdown of the listeners ends every blocked
// accept (EINVAL), none left hanging.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t %stress default | FileCheck %s
// RUN: env CFA_IO=fallback %timeout %t %stress fallback | FileCheck %s
// CHECK: blocked accepts hold no descriptor: {{[0-9]+}} files opened, all the limit leaves
// CHECK: at the limit: EMFILE (non-blocking and blocking listeners), then accepted
// CHECK: shutdown: 200 blocked accepts ended
#include "iotest.h"
#include <cfa/sleep.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

enum { LIMIT = 64, WAITERS = 100, MS = 1000000 };

// 0, 1: where the waiters block (O_NONBLOCK, blocking); 2, 3: the same
// kinds for the probe at the limit, which no waiter competes for.
static int listeners[4];
static struct sockaddr_in addrs[4];
static _Atomic int ended;

// Descriptors open below the limit (an inherited one above it takes no
// slot that open could use).
static int open_descriptors(void) {
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    CHECK(d != NULL);
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d) && atoi(e->d_name) < LIMIT) n++;
    closedir(d);
    return n;
}

static void waiter(void *arg) {
    int l = listeners[(intptr_t)arg];
    int fd = cfa_accept4(l, NULL, NULL, SOCK_CLOEXEC);
    CHECK(fd < 0 && errno == EINVAL, "accept after shutdown: %d %s", fd, strerror(errno));
    atomic_fetch_add(&ended, 1);
}

// Opens /dev/null until EMFILE; returns how many, descriptors in fds.
static int fill(int *fds, int max) {
    int n = 0;
    while (n < max) {
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            CHECK(errno == EMFILE, "open: %s", strerror(errno));
            break;
        }
        fds[n++] = fd;
    }
    return n;
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    struct rlimit rl = { LIMIT, LIMIT };
    CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0, "setrlimit: %s", strerror(errno));
    check_engine(argc, argv);
    for (long rep = 0; rep < reps; rep++) {
        atomic_store(&ended, 0);
        for (int i = 0; i < 4; i++) {
            listeners[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | (i % 2 == 0 ? SOCK_NONBLOCK : 0), 0);
            CHECK(listeners[i] >= 0);
            addrs[i] = (struct sockaddr_in){ .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
            socklen_t len = sizeof addrs[i];
            CHECK(bind(listeners[i], (struct sockaddr *)&addrs[i], len) == 0 && listen(listeners[i], 16) == 0);
            CHECK(getsockname(listeners[i], (struct sockaddr *)&addrs[i], &len) == 0);
        }
        static struct task waiters[2 * WAITERS];
        for (int i = 0; i < 2 * WAITERS; i++)
            task_start(&waiters[i], waiter, (void *)(intptr_t)(i % 2), "Waiter");
        // Every waiter parked in its accept, then main blocks: with nothing
        // left to run, the processor submits their requests to the kernel
        // (docs/io.md, "Batching"). An accept submitted at the limit would
        // fail with EMFILE.
        for (int i = 0; i < 2 * WAITERS; i++)
            wait_until_blocked(&waiters[i].thread);
        cfa_sleep_ns(MS);

        // 1. The blocked accepts hold no descriptor slot.
        int fds[LIMIT];
        int before = open_descriptors();
        int opened = fill(fds, LIMIT);
        CHECK_EQ(opened, LIMIT - before);
        if (rep == 0)
            printf("blocked accepts hold no descriptor: %d files opened, all the limit leaves\n", opened);

        // 2. At the limit: EMFILE for a waiting connection, then accepted.
        //    The client sockets are made with one descriptor given back.
        for (int i = 2; i < 4; i++) {
            close(fds[--opened]);
            int client = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
            CHECK(client >= 0);
            CHECK(connect(client, (struct sockaddr *)&addrs[i], sizeof addrs[i]) == 0);
            int fd = cfa_accept4_until(listeners[i], NULL, NULL, SOCK_CLOEXEC, cfa_clock_ns() + 10000 * (int64_t)MS);
            CHECK(fd < 0 && errno == EMFILE, "accept at the limit: %d %s", fd, strerror(errno));
            close(fds[--opened]);
            fd = cfa_accept4_until(listeners[i], NULL, NULL, SOCK_CLOEXEC, cfa_clock_ns() + 10000 * (int64_t)MS);
            CHECK(fd >= 0, "accept with a descriptor free: %s", strerror(errno));
            close(fd);
            close(client);
            opened += fill(fds + opened, LIMIT - opened); // at the limit again
        }
        if (rep == 0)
            printf("at the limit: EMFILE (non-blocking and blocking listeners), then accepted\n");
        while (opened > 0) close(fds[--opened]);

        // 3. A shutdown ends every blocked accept.
        for (int i = 0; i < 2; i++) shutdown(listeners[i], SHUT_RDWR);
        for (int i = 0; i < 2 * WAITERS; i++) cfa_thread_join(&waiters[i].thread);
        CHECK_EQ(atomic_load(&ended), 2 * WAITERS);
        for (int i = 0; i < 4; i++) close(listeners[i]);
        if (rep == 0)
            printf("shutdown: %d blocked accepts ended\n", 2 * WAITERS);
    }
    return 0;
}
