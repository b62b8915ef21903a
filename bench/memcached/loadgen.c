/* loadgen.c: an open-loop load generator for memcached's text protocol,
 * after mutilate's method (thesis section 8.1).
 *
 * Requests are issued at a target rate whatever the server does: each
 * client thread draws exponential inter-arrival times (a Poisson process
 * at rate/threads) and gives each request to one of its connections,
 * round robin. A connection has at most one request outstanding; a
 * request whose connection is busy waits in that connection's queue.
 * Latency runs from the request's *intended* send time to the last byte
 * of its reply, so a server (or a client) that falls behind shows up in
 * the latency instead of slowing the offered load down.
 *
 * Keys are uniform over the key space; a request is a set with
 * probability `update`, else a get. `-P` loads every key first.
 *
 *   loadgen -s PORT -c CONNS -t THREADS -r RATE -d SECONDS [-u UPDATE]
 *           [-k KEYS] [-v VALUE_BYTES] [-w WARMUP_SECONDS] [-P]
 * Prints, in the protocol of bench/README.md:
 *   LOAD target=R achieved=A p50_us=.. p99_us=.. p999_us=.. misses=M errors=E unanswered=U
 *   METRIC p50 ms lower ..   (and p99, p999)
 *   RESULT <achieved>
 * achieved counts replies within the measured window (after warm-up). A
 * wrong reply (errors > 0) makes the exit status 1: the run does not
 * count.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct opts {
    int port, conns, threads, keys, value, preload;
    double rate, seconds, update, warmup;
};
static struct opts o = { .port = 11211, .conns = 100, .threads = 2, .keys = 100000, .value = 100,
                         .rate = 10000, .seconds = 5, .update = 0.03, .warmup = 1 };

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

#define QMAX 64                      /* requests waiting per connection */

struct conn {
    int fd;
    int busy;                        /* a request is outstanding */
    int is_get;
    int64_t sent_intended;           /* intended time of the outstanding one */
    int64_t queue[QMAX];             /* intended times waiting */
    int qhead, qlen;
    char in[4096];
    size_t have;
};

struct worker {
    int id;
    struct conn *conns;
    int nconns;
    uint64_t rng;
    int64_t *lat;                    /* latencies (ns) of measured replies */
    size_t nlat, caplat;
    uint64_t misses, errors, dropped;
    uint64_t issued;                 /* requests intended within the measured window */
    uint64_t completed;              /* replies received within the measured window */
    pthread_t th;
};

static int64_t t_start, t_measure, t_end;

static uint64_t rnd(struct worker *w) {
    w->rng ^= w->rng << 13; w->rng ^= w->rng >> 7; w->rng ^= w->rng << 17;
    return w->rng;
}
static double uniform(struct worker *w) { return (double)(rnd(w) >> 11) / 9007199254740992.0; }

static int connect_one(void) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)o.port) };
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        perror("loadgen: connect");
        exit(1);
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){1}, sizeof(int));
    return fd;
}

static char value_buf[1 << 16];

static void send_request(struct worker *w, struct conn *c, int64_t intended) {
    char req[256 + sizeof value_buf];
    int key = (int)(rnd(w) % (uint64_t)o.keys), n;
    c->is_get = uniform(w) >= o.update;
    if (c->is_get) n = snprintf(req, 256, "get key:%010d\r\n", key);
    else {
        n = snprintf(req, 256, "set key:%010d 0 0 %d\r\n", key, o.value);
        memcpy(req + n, value_buf, (size_t)o.value);
        n += o.value;
        memcpy(req + n, "\r\n", 2);
        n += 2;
    }
    if (send(c->fd, req, (size_t)n, MSG_NOSIGNAL) != n) { perror("loadgen: send"); exit(1); }
    c->busy = 1;
    c->sent_intended = intended;
}

/* Bytes of one complete reply at the start of in[0..n), 0 if incomplete. */
static size_t reply_len(const char *in, size_t n, int is_get, int *miss) {
    if (!is_get) {
        const char *e = memmem(in, n, "\r\n", 2);
        return e ? (size_t)(e - in) + 2 : 0;
    }
    if (n >= 5 && memcmp(in, "END\r\n", 5) == 0) { *miss = 1; return 5; }
    const char *e = memmem(in, n, "\r\n", 2);
    if (!e) return 0;
    unsigned flags, bytes;
    char key[300];
    if (sscanf(in, "VALUE %299s %u %u", key, &flags, &bytes) != 3) return (size_t)(e - in) + 2;
    size_t total = (size_t)(e - in) + 2 + bytes + 2 + 5;
    return n >= total ? total : 0;
}

static void record(struct worker *w, int64_t lat) {
    if (w->nlat == w->caplat) {
        w->caplat = w->caplat ? w->caplat * 2 : 1 << 16;
        w->lat = realloc(w->lat, w->caplat * sizeof *w->lat);
    }
    w->lat[w->nlat++] = lat;
}

static void *run(void *arg) {
    struct worker *w = arg;
    /* The default 50 us of timer slack would make every send that late. */
    prctl(PR_SET_TIMERSLACK, 1UL);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    for (int i = 0; i < w->nconns; i++) {
        struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &w->conns[i] };
        epoll_ctl(ep, EPOLL_CTL_ADD, w->conns[i].fd, &ev);
    }
    double rate = o.rate / o.threads;                 /* requests per second, this thread */
    int64_t next = t_start + (int64_t)(-log(1 - uniform(w)) / rate * 1e9);
    int rr = 0;
    struct epoll_event evs[256];
    for (;;) {
        int64_t t = now_ns();
        while (next <= t && next < t_end) {            /* issue every request now due */
            struct conn *c = &w->conns[rr++ % w->nconns];
            if (next >= t_measure) w->issued++;
            if (!c->busy) send_request(w, c, next);
            else if (c->qlen < QMAX) c->queue[(c->qhead + c->qlen++) % QMAX] = next;
            else w->dropped++;                         /* counted as a failure of the run */
            next += (int64_t)(-log(1 - uniform(w)) / rate * 1e9);
        }
        if (t >= t_end + 1000000000LL) break;          /* a second to drain, then stop */
        if (t >= t_end) {
            int idle = 1;
            for (int i = 0; i < w->nconns && idle; i++) idle = !w->conns[i].busy;
            if (idle) break;
            next = t + 1000000;
        }
        /* Sleep until the next send is due (or a reply comes): spinning
         * would take the CPUs the server under test needs. */
        int64_t wait = next > t ? next - t : 0;
        struct timespec timeout = { wait / 1000000000, wait % 1000000000 };
        int n = epoll_pwait2(ep, evs, 256, &timeout, NULL);
        for (int i = 0; i < n; i++) {
            struct conn *c = evs[i].data.ptr;
            ssize_t r = recv(c->fd, c->in + c->have, sizeof c->in - c->have, 0);
            if (r <= 0) { fprintf(stderr, "loadgen: server closed a connection\n"); exit(1); }
            c->have += (size_t)r;
            for (;;) {
                int miss = 0;
                size_t len = c->busy ? reply_len(c->in, c->have, c->is_get, &miss) : 0;
                if (!len) break;
                int64_t done = now_ns();
                if (!c->is_get && memcmp(c->in, "STORED", 6) != 0) w->errors++;
                if (c->is_get && !miss && memcmp(c->in, "VALUE", 5) != 0) w->errors++;
                if (c->sent_intended >= t_measure && c->sent_intended < t_end) {
                    record(w, done - c->sent_intended);
                    w->misses += (uint64_t)miss;
                }
                if (done >= t_measure && done < t_end) w->completed++;
                memmove(c->in, c->in + len, c->have - len);
                c->have -= len;
                c->busy = 0;
                if (c->qlen) {
                    int64_t intended = c->queue[c->qhead];
                    c->qhead = (c->qhead + 1) % QMAX;
                    c->qlen--;
                    send_request(w, c, intended);
                }
            }
        }
    }
    close(ep);
    return NULL;
}

static int cmp64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void preload(void) {
    int fd = connect_one();
    char line[128], reply[65536];
    size_t pending = 0;
    for (int k = 0; k < o.keys; k++) {
        int n = snprintf(line, sizeof line, "set key:%010d 0 0 %d noreply\r\n", k, o.value);
        if (send(fd, line, (size_t)n, 0) != n || send(fd, value_buf, (size_t)o.value, 0) != o.value ||
            send(fd, "\r\n", 2, 0) != 2) { perror("loadgen: preload"); exit(1); }
        pending++;
    }
    if (send(fd, "mn\r\n", 4, 0) != 4) exit(1);        /* wait until all were stored */
    size_t have = 0;
    while (have < 4 || memcmp(reply + have - 4, "MN\r\n", 4) != 0) {
        ssize_t r = recv(fd, reply + (have >= sizeof reply - 8 ? 0 : have), 8, 0);
        if (r <= 0) { fprintf(stderr, "loadgen: preload: connection closed\n"); exit(1); }
        have = have >= sizeof reply - 8 ? (size_t)r : have + (size_t)r;
    }
    close(fd);
    (void)pending;
}

int main(int argc, char **argv) {
    int c;
    while ((c = getopt(argc, argv, "s:c:t:r:d:u:k:v:w:P")) != -1) {
        switch (c) {
        case 's': o.port = atoi(optarg); break;
        case 'c': o.conns = atoi(optarg); break;
        case 't': o.threads = atoi(optarg); break;
        case 'r': o.rate = atof(optarg); break;
        case 'd': o.seconds = atof(optarg); break;
        case 'u': o.update = atof(optarg); break;
        case 'k': o.keys = atoi(optarg); break;
        case 'v': o.value = atoi(optarg); break;
        case 'w': o.warmup = atof(optarg); break;
        case 'P': o.preload = 1; break;
        default:
            fprintf(stderr, "usage: loadgen -s PORT -c CONNS -t THREADS -r RATE -d SECONDS "
                            "[-u UPDATE] [-k KEYS] [-v BYTES] [-w WARMUP] [-P]\n");
            return 2;
        }
    }
    if (o.threads < 1 || o.conns < o.threads || o.rate <= 0 || o.value < 1 || o.value > (int)sizeof value_buf) {
        fprintf(stderr, "loadgen: bad options\n");
        return 2;
    }
    memset(value_buf, 'v', sizeof value_buf);
    if (o.preload) { preload(); return 0; }
    struct worker *ws = calloc((size_t)o.threads, sizeof *ws);
    for (int i = 0; i < o.threads; i++) {
        ws[i].id = i;
        ws[i].rng = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1) ^ (uint64_t)now_ns();
        ws[i].nconns = o.conns / o.threads + (i < o.conns % o.threads);
        ws[i].conns = calloc((size_t)ws[i].nconns, sizeof *ws[i].conns);
        for (int k = 0; k < ws[i].nconns; k++) ws[i].conns[k].fd = connect_one();
    }
    t_start = now_ns() + 50000000;
    t_measure = t_start + (int64_t)(o.warmup * 1e9);
    t_end = t_measure + (int64_t)(o.seconds * 1e9);
    for (int i = 0; i < o.threads; i++) pthread_create(&ws[i].th, NULL, run, &ws[i]);
    size_t got = 0, total = 0;
    uint64_t misses = 0, errors = 0, completed = 0;
    for (int i = 0; i < o.threads; i++) {
        pthread_join(ws[i].th, NULL);
        got += ws[i].nlat;
        total += ws[i].issued;
        misses += ws[i].misses;
        errors += ws[i].errors;
        completed += ws[i].completed;
    }
    /* A request intended in the window but unanswered a second after it
     * (or dropped) counts as an infinite latency: the percentiles then
     * show a server that fell behind instead of hiding its backlog. */
    if (total < got) total = got;
    int64_t *all = malloc((total ? total : 1) * sizeof *all);
    size_t k = 0;
    for (int i = 0; i < o.threads; i++) { memcpy(all + k, ws[i].lat, ws[i].nlat * sizeof *all); k += ws[i].nlat; }
    for (; k < total; k++) all[k] = INT64_MAX;
    qsort(all, total, sizeof *all, cmp64);
#define PCT(p) (total ? (all[(size_t)((double)(total - 1) * (p))] == INT64_MAX ? INFINITY \
                         : all[(size_t)((double)(total - 1) * (p))] / 1000.0) : 0.0)
    printf("LOAD target=%.0f achieved=%.0f p50_us=%.1f p99_us=%.1f p999_us=%.1f misses=%llu errors=%llu "
           "unanswered=%zu\n", o.rate, completed / o.seconds, PCT(0.5), PCT(0.99), PCT(0.999),
           (unsigned long long)misses, (unsigned long long)errors, total - got);
    printf("METRIC p50 ms lower %.4f\nMETRIC p99 ms lower %.4f\nMETRIC p999 ms lower %.4f\n",
           PCT(0.5) / 1000, PCT(0.99) / 1000, PCT(0.999) / 1000);
    printf("RESULT %.0f\n", completed / o.seconds);
    return errors ? 1 : 0;
}
