/* loopback.h: the benchmark servers' listening socket: 127.0.0.1, an
 * ephemeral port (never one another program holds), printed on stdout
 * for run.sh, which reads it before starting the load generator. */
#ifndef BENCH_IO_LOOPBACK_H
#define BENCH_IO_LOOPBACK_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>

/* `type_flags`: extra socket() type flags (SOCK_NONBLOCK). Exits on error. */
static inline int listen_loopback(const char *who, int type_flags) {
    int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | type_flags, 0);
    int one = 1;
    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof a;
    if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 1024) ||
        getsockname(l, (struct sockaddr *)&a, &len)) {
        fprintf(stderr, "%s: ", who);
        perror("listen");
        exit(1);
    }
    printf("%d\n", ntohs(a.sin_port));
    fflush(stdout);
    return l;
}

#endif
