// A mutation fuzz of the web server's HTTP parsing (examples/httpd/http.c,
// pure functions). Valid requests are mutated (bytes flipped, inserted,
// deleted, spliced, truncated; CR, LF, ':', '%', '.', '/', NUL favoured)
// and parsed from a buffer of exactly their size (under ASan, a read past
// it fails). Every result must hold the parser's invariants: a known
// status; for status 0 a path that starts with '/', has no "." or ".."
// segment and no control byte; spans inside the input; the same result
// twice. Ranges, entity tags and dates are fuzzed the same way.
//
// Bounded in the suite; a longer run on demand:
//   build/test/httpd/Output/parser_fuzz.c.tmp ITERATIONS [SEED]
//
// RUN: %cc %s %cfa-src/examples/httpd/http.c -I%cfa-src/examples/httpd -o %t
// RUN: %timeout %t 30000 | FileCheck %s
// CHECK: fuzz: 30000 requests, {{[0-9]+}} servable, {{[0-9]+}} ranges, invariants held
#include "http.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, ...)                                                             \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "VIOLATION %s:%d: %s (", __FILE__, __LINE__, #cond);     \
            fprintf(stderr, __VA_ARGS__);                                            \
            fprintf(stderr, ")\n");                                                  \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

static uint64_t rng;
static uint64_t next(void) {
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return rng;
}

static const char *seeds[] = {
    "GET / HTTP/1.1\r\nHost: a\r\n\r\n",
    "GET /index.html HTTP/1.1\nHost: a\nConnection: close\n\n",
    "HEAD /a/b%20c.txt?x=1#f HTTP/1.0\r\n\r\n",
    "GET http://h/p/q HTTP/1.1\r\nRange: bytes=0-99\r\nIf-Range: \"1-2\"\r\n\r\n",
    "GET /x HTTP/1.1\r\nHost: a\r\nIf-None-Match: W/\"a\", \"b\"\r\n"
    "If-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n",
    "POST /form HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\nUser-Agent: u\r\nReferer: r\r\n\r\n",
    "GET /%2e%2e/etc HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n",
};
static const char specials[] = "\r\n: %./\0?#\"-,=W";

// One mutation of in[0..n) into out (capacity cap); returns the new length.
static size_t mutate(const char *in, size_t n, char *out, size_t cap) {
    memcpy(out, in, n);
    int rounds = 1 + (int)(next() % 4);
    for (int r = 0; r < rounds; r++) {
        size_t at = n ? next() % n : 0;
        char c = next() % 2 ? specials[next() % (sizeof specials - 1)] : (char)next();
        switch (next() % 6) {
        case 0: if (n) out[at] = c; break;                                    // replace
        case 1: if (n < cap) { memmove(out + at + 1, out + at, n - at); out[at] = c; n++; } break; // insert
        case 2: if (n) { memmove(out + at, out + at + 1, n - at - 1); n--; } break; // delete
        case 3: n = at; break;                                                // truncate
        case 4: { // splice a piece of another seed in
            const char *s = seeds[next() % (sizeof seeds / sizeof *seeds)];
            size_t sl = strlen(s), from = next() % sl, len = next() % (sl - from + 1);
            if (n + len <= cap) { memmove(out + at + len, out + at, n - at); memcpy(out + at, s + from, len); n += len; }
            break;
        }
        case 5: { // repeat a piece (long lines, many fields)
            size_t len = n - at < 64 ? n - at : 64, times = next() % 200;
            for (size_t t = 0; t < times && n + len <= cap; t++) { memmove(out + at + len, out + at, n - at); n += len; }
            break;
        }
        }
    }
    return n;
}

static void check_span(struct http_span s, size_t len, const char *what) {
    CHECK((size_t)s.off + s.len <= len, "%s span %u+%u beyond %zu", what, s.off, s.len, len);
}

static int known_status(int s) {
    return s == 0 || s == 400 || s == 404 || s == 405 || s == 414 || s == 501 || s == 505;
}

static void check_request(const char *buf, size_t len, long *servable) {
    size_t end = http_header_end(buf, len);
    CHECK(end <= len, "header end %zu > %zu", end, len);
    struct http_request a, b;
    http_parse(buf, len, &a);
    http_parse(buf, len, &b);
    CHECK(memcmp(&a, &b, sizeof a) == 0, "two parses differ");
    CHECK(known_status(a.status), "status %d", a.status);
    check_span(a.line, len, "line");
    check_span(a.query, len, "query");
    check_span(a.if_none_match, len, "if-none-match");
    check_span(a.if_range, len, "if-range");
    check_span(a.range, len, "range");
    check_span(a.referer, len, "referer");
    check_span(a.user_agent, len, "user-agent");
    if (a.status != 0) return;
    ++*servable;
    CHECK(a.method == HTTP_GET || a.method == HTTP_HEAD, "method %d", a.method);
    size_t pl = strnlen(a.path, HTTP_MAX_PATH);
    CHECK(pl < HTTP_MAX_PATH && a.path[0] == '/', "path not absolute");
    for (size_t i = 0; i < pl; i++)
        CHECK((unsigned char)a.path[i] >= 0x20 && a.path[i] != 0x7f, "control byte in path");
    for (const char *s = a.path; s; s = strchr(s + 1, '/')) {
        size_t sl = strcspn(s + 1, "/");
        CHECK(!(sl == 1 && s[1] == '.') && !(sl == 2 && s[1] == '.' && s[2] == '.'), "dot segment in %s", a.path);
    }
}

// A copy of work[0..n) in a buffer of exactly n bytes (the caller frees).
static char *exact_copy(const char *work, size_t n) {
    char *p = malloc(n ? n : 1);
    memcpy(p, work, n);
    return p;
}

int main(int argc, char **argv) {
    long iterations = argc > 1 ? atol(argv[1]) : 30000;
    rng = argc > 2 ? strtoull(argv[2], NULL, 10) : 0x9e3779b97f4a7c15ull;
    uint64_t seed = rng;
    enum { CAP = 3 * HTTP_MAX_HEADER };
    static char work[CAP];
    long servable = 0, ranges = 0;
    for (long it = 0; it < iterations; it++) {
        const char *s = seeds[next() % (sizeof seeds / sizeof *seeds)];
        size_t n = mutate(s, strlen(s), work, CAP);
        char *exact = exact_copy(work, n);
        check_request(exact, n, &servable);
        free(exact);

        int64_t size = (int64_t)(next() % 100000), first = -1, last = -1;
        size_t rn = mutate("bytes=10-2000", 13, work, 64);
        exact = exact_copy(work, rn);
        int st = http_range(exact, rn, size, &first, &last);
        free(exact);
        CHECK(st == 200 || st == 206 || st == 416, "range status %d", st);
        if (st == 206) {
            ranges++;
            CHECK(0 <= first && first <= last && last < size, "range %lld-%lld of %lld", (long long)first,
                  (long long)last, (long long)size);
        }
        size_t en = mutate("\"1-2\", W/\"3\"", 12, work, 64);
        exact = exact_copy(work, en);
        (void)http_etag_matches(exact, en, "\"3\"");
        free(exact);
        int64_t t = (int64_t)(next() % 4102444800ull); // up to 2100
        char date[30];
        http_format_date(t, date);
        CHECK(http_parse_date(date, 29) == t, "date %s", date);
        size_t dn = mutate(date, 29, work, 64);
        exact = exact_copy(work, dn);
        int64_t back = http_parse_date(exact, dn);
        free(exact);
        CHECK(back >= -1, "date parse %lld", (long long)back);
    }
    printf("fuzz: %ld requests, %ld servable, %ld ranges, invariants held (seed %llu)\n", iterations, servable,
           ranges, (unsigned long long)seed);
    return 0;
}
