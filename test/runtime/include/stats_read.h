/* stats_read.h: reading CFA_STATS=1 output back, for tests that run a
 * program once with statistics on (mode `run`) and then check the
 * counters it printed at exit (mode `verify`). */
#ifndef CFA_TEST_STATS_READ_H
#define CFA_TEST_STATS_READ_H

#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The number printed after the first occurrence of key in text. */
static inline long stats_find(const char *text, const char *key) {
    const char *p = strstr(text, key);
    CHECK(p != NULL, "no \"%s\" in the output", key);
    char *end;
    long v = strtol(p + strlen(key), &end, 10);
    CHECK(end != p + strlen(key), "no number after \"%s\"", key);
    return v;
}

/* A whole (small) file; two buffers, so two files can be read at once. */
static inline char *stats_slurp(const char *path) {
    FILE *f = fopen(path, "r");
    CHECK(f != NULL, "cannot open %s", path);
    static char bufs[2][1 << 16];
    static int which;
    char *b = bufs[which++ % 2];
    size_t n = fread(b, 1, (1 << 16) - 1, f);
    b[n] = 0;
    fclose(f);
    return b;
}

#endif
