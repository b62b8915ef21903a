/* costs.c: measures the figures of the 192-processor cost model
 * (docs/scheduler.md, "Cost model for 192 processors") that a small
 * machine can check.
 *
 *   costs memory [N]   RSS, virtual size and descriptors before and after
 *                      starting N - 1 processors (default N = 192)
 *   costs resize [N]   time of a processor start and stop (the resize
 *                      writer's critical path) at 2, 8, 32, ... N
 *                      processors, all idle: median of REPS pairs each
 *   costs idle [N]     two threads ping-pong by park/unpark while the
 *                      other processors sleep, at 2, 8, 32, ... N
 *                      processors: time per round trip (each unpark may
 *                      wake a sleeper, whose idle episode scans every lane)
 *
 * Run it under HWLOC_SYNTHETIC to give the processors a 256-PU machine's
 * cache map (bench/topology/run.sh does).
 */
#include <cfa/runtime.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { REPS = 15 };

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

/* A "Vm...:" field of /proc/self/status, in kB. */
static long status_kb(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    size_t n = strlen(field);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, field, n) == 0)
            kb = strtol(line + n, NULL, 10);
    if (f)
        fclose(f);
    return kb;
}

static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    while (d && readdir(d))
        n++;
    if (d)
        closedir(d);
    return n - 3; /* ., .., and the directory's own descriptor */
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static struct cfa_processor *start_many(int total)
{
    struct cfa_processor *p = calloc((size_t)total, sizeof *p);
    for (int i = 1; i < total; i++)
        cfa_processor_start(&p[i]);
    return p;
}

static void stop_many(struct cfa_processor *p, int total)
{
    for (int i = total - 1; i >= 1; i--)
        cfa_processor_stop(&p[i]);
    free(p);
}

static void memory(int total)
{
    long rss0 = status_kb("VmRSS:"), vm0 = status_kb("VmSize:");
    int fd0 = open_fds();
    struct cfa_processor *p = start_many(total);
    long rss1 = status_kb("VmRSS:"), vm1 = status_kb("VmSize:");
    int fd1 = open_fds();
    printf("memory: %d processors: RSS %ld -> %ld kB (%.1f kB per added processor), "
           "virtual %ld -> %ld MB (%.1f MB per added processor), descriptors %d -> %d (%.1f per added processor)\n",
           total, rss0, rss1, (double)(rss1 - rss0) / (total - 1), vm0 / 1024, vm1 / 1024,
           (double)(vm1 - vm0) / 1024 / (total - 1), fd0, fd1, (double)(fd1 - fd0) / (total - 1));
    stop_many(p, total);
}

static void resize(int max)
{
    for (int n = 2; n <= max; n = n * 4 > max && n < max ? max : n * 4) {
        struct cfa_processor *p = start_many(n);
        double starts[REPS], stops[REPS];
        for (int r = 0; r < REPS; r++) {
            double t0 = now_us();
            cfa_processor_stop(&p[n - 1]);
            double t1 = now_us();
            memset(&p[n - 1], 0, sizeof p[n - 1]);
            cfa_processor_start(&p[n - 1]);
            double t2 = now_us();
            stops[r] = t1 - t0;
            starts[r] = t2 - t1;
        }
        qsort(starts, REPS, sizeof starts[0], cmp_double);
        qsort(stops, REPS, sizeof stops[0], cmp_double);
        printf("resize: %3d processors: start %.1f us, stop %.1f us (medians of %d; min %.1f / %.1f)\n", n,
               starts[REPS / 2], stops[REPS / 2], REPS, starts[0], stops[0]);
        stop_many(p, n);
    }
}

enum { ROUND_TRIPS = 20000 };

static struct cfa_thread partner, *pinger;

static void partner_main(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUND_TRIPS; i++) {
        cfa_park();
        cfa_unpark(pinger);
    }
}

static void idle(int max)
{
    pinger = cfa_this_thread();
    for (int n = 2; n <= max; n = n * 4 > max && n < max ? max : n * 4) {
        struct cfa_processor *p = start_many(n);
        cfa_thread_start(&partner, partner_main, NULL, "Partner", 0);
        double t0 = now_us();
        for (int i = 0; i < ROUND_TRIPS; i++) {
            cfa_unpark(&partner);
            cfa_park();
        }
        double t1 = now_us();
        cfa_thread_join(&partner);
        cfa_thread_destroy(&partner);
        printf("idle: %3d processors: %.2f us per park/unpark round trip (%d)\n", n, (t1 - t0) / ROUND_TRIPS,
               ROUND_TRIPS);
        stop_many(p, n);
    }
}

int main(int argc, char **argv)
{
    int n = argc > 2 ? atoi(argv[2]) : 192;
    if (argc >= 2 && strcmp(argv[1], "memory") == 0 && n >= 2) {
        memory(n);
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "resize") == 0 && n >= 2) {
        resize(n);
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "idle") == 0 && n >= 2) {
        idle(n);
        return 0;
    }
    fprintf(stderr, "usage: %s memory|resize|idle [processors >= 2]\n", argv[0]);
    return 2;
}
