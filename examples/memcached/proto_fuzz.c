/* proto_fuzz.c: fuzzes mc_parse (proto.h), the parser every byte from a
 * client goes through.
 *
 * One input is fed as a connection would feed it: parse a line, skip its
 * data block or swallowed bytes, parse the next. Checked on every call:
 * the result is within the input and ends at a '\n'; every token lies in
 * the line; keys are at most 250 bytes; an error has no operation; a
 * data block length is never negative but -1; a line without '\n' is
 * only accepted while short (or a get). Under ASan/UBSan any read past
 * the input is a crash too.
 *
 * Built two ways:
 *   -DMC_LIBFUZZER   LLVMFuzzerTestOneInput for libFuzzer (mc_proto_fuzz
 *                    in the build; run it as long as wanted)
 *   otherwise        a deterministic mutation test: `proto_fuzz N [SEED]`
 *                    mutates a corpus of valid commands N times (make
 *                    check runs a bounded N; more on demand)
 */
#include "proto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ITEM_MAX (1u << 20)

static void check(int ok, const char *what, const uint8_t *d, size_t n) {
    if (ok) return;
    fprintf(stderr, "proto_fuzz: %s on input of %zu bytes:\n", what, n);
    fwrite(d, 1, n, stderr);
    fputc('\n', stderr);
    abort();
}

static int within(const char *p, size_t n, const char *lo, const char *hi) {
    return p >= lo && p + n <= hi;
}

/* Feeds d[0..n) through the parser; returns the commands parsed. */
static int feed(const uint8_t *d, size_t n) {
    const char *buf = (const char *)d, *end = buf + n;
    size_t pos = 0;
    int commands = 0;
    struct mc_request r;
    while (pos < n) {
        ssize_t used = mc_parse(buf + pos, n - pos, ITEM_MAX, &r);
        if (used <= 0) {
            check(used == -1 ? n - pos > MC_LINE_MAX : 1, "closed a short line", d, n);
            break;
        }
        commands++;
        check((size_t)used <= n - pos && buf[pos + (size_t)used - 1] == '\n', "line bounds", d, n);
        const char *line = buf + pos, *line_hi = buf + pos + (size_t)used;
        check(r.line_end >= line && r.line_end < line_hi, "line end", d, n);
        check(r.ntok >= 0 && r.ntok < MC_MAX_TOKENS, "token count", d, n);
        for (int i = 0; i < r.ntok; i++)
            check(r.tok[i].len > 0 && within(r.tok[i].p, r.tok[i].len, line, r.line_end), "token bounds", d, n);
        check((r.op == MC_OP_NONE) == (r.error != NULL), "error xor operation", d, n);
        check(r.vlen >= -1 && r.swallow >= 0 && !(r.vlen >= 0 && r.swallow), "block length", d, n);
        if (r.op != MC_OP_NONE && r.op != MC_OP_CLOSE && r.op != MC_OP_MN && r.key.p)
            check(r.key.len <= MC_KEY_MAX && (within(r.key.p, r.key.len, line, r.line_end) ||
                  r.key.p == (const char *)r.keybuf), "key", d, n);
        if (r.op == MC_OP_GET || r.op == MC_OP_GETS || r.op == MC_OP_GAT || r.op == MC_OP_GATS) {
            const char *kp = r.rest;
            struct mc_token k;
            while (mc_next_key(&r, &kp, &k))
                check(k.len <= MC_KEY_MAX && within(k.p, k.len, line, r.line_end), "multiget key", d, n);
        }
        pos += (size_t)used;
        size_t skip = r.vlen >= 0 ? (size_t)r.vlen + 2 : (size_t)r.swallow;
        if (skip > n - pos) break;
        pos += skip;
    }
    (void)end;
    return commands;
}

#ifdef MC_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {
    feed(d, n);
    return 0;
}
#else
static const char *const corpus[] = {
    "get a b c\r\n", "gets k\r\n", "gat 100 k1 k2\r\n", "gats -1 k\r\n",
    "set k 0 0 5\r\nhello\r\n", "add k 5 100 1 noreply\r\nx\r\n", "cas k 0 0 1 42\r\ny\r\n",
    "append k 0 0 2\r\nab\r\n", "prepend k 0 0 2\r\nab\r\n", "replace k 1 2 0\r\n\r\n",
    "incr n 5\r\n", "decr n 18446744073709551615 noreply\r\n", "delete k\r\n", "delete k 0 noreply\r\n",
    "touch k 10\r\n", "flush_all 5\r\n", "flush_all noreply\r\n", "stats\r\n", "stats settings\r\n",
    "version\r\n", "verbosity 1\r\n", "quit\r\n", "mn\r\n", "me k\r\n",
    "mg k v c f t s k O123 q h l T30 N30 R10 u\r\n", "mg a2V5 b v k\r\n",
    "ms k 3 T0 F5 C9 MS I q k O1 c b\r\nabc\r\n", "ms k 2 MA N10\r\nzz\r\n",
    "md k q C5 I T10 O9 k\r\n", "ma k N0 J10 D3 MI v t c q O2\r\n", "ma k MD D9999\r\n",
    "GET / HTTP/1.1\r\n", "set k 0 0 -1\r\n", "set k 0 0 2000000\r\n",
};

static uint64_t rng;
static uint64_t next(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }

int main(int argc, char **argv) {
    long iterations = argc > 1 ? atol(argv[1]) : 100000;
    rng = argc > 2 ? strtoull(argv[2], NULL, 10) : 0x9e3779b97f4a7c15ull;
    if (!rng) rng = 1;
    static const char tokens[][24] = { " ", "\r\n", "\n", "\r", "0", "-1", "4294967296", "noreply",
        "18446744073709551616", "get ", "set ", "ms ", "mg ", "b", "q", "T", "N", "M", "O", "=", "\0" };
    size_t nc = sizeof corpus / sizeof corpus[0];
    uint8_t buf[8192];
    long commands = 0;
    for (long it = 0; it < iterations; it++) {
        size_t n = 0;
        int parts = 1 + (int)(next() % 4);
        for (int p = 0; p < parts; p++) {             /* a few commands back to back */
            const char *c = corpus[next() % nc];
            size_t l = strlen(c);
            if (n + l > sizeof buf) break;
            memcpy(buf + n, c, l);
            n += l;
        }
        int muts = (int)(next() % 8);
        for (int m = 0; m < muts && n > 0; m++) {
            size_t at = next() % n;
            switch (next() % 6) {
            case 0: buf[at] = (uint8_t)next(); break;                              /* flip a byte */
            case 1: memmove(buf + at, buf + at + 1, n - at - 1); n--; break;       /* drop one */
            case 2: n = at; break;                                                 /* truncate */
            case 3: {                                                              /* insert a token */
                const char *t = tokens[next() % (sizeof tokens / sizeof tokens[0])];
                size_t l = strlen(t) ? strlen(t) : 1;
                if (n + l > sizeof buf) break;
                memmove(buf + at + l, buf + at, n - at);
                memcpy(buf + at, t, l);
                n += l;
                break;
            }
            case 4: {                                                              /* long run */
                size_t l = next() % 3000;
                if (n + l > sizeof buf) break;
                memmove(buf + at + l, buf + at, n - at);
                memset(buf + at, (int)"k 0\n"[next() % 4], l);
                n += l;
                break;
            }
            default: buf[at] = (uint8_t)"\r\n 0"[next() % 4]; break;
            }
        }
        uint8_t *copy = malloc(n ? n : 1);                /* exact size: ASan sees overreads */
        memcpy(copy, buf, n);
        commands += feed(copy, n);
        free(copy);
    }
    printf("proto_fuzz: %ld inputs, %ld commands parsed, invariants held\n", iterations, commands);
    return 0;
}
#endif
