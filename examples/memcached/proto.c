/* proto.c: memcached 1.6's text protocol parser (see proto.h). What each
 * line is answered with when it is malformed follows memcached 1.6.18,
 * checked against it by test/memcached/differential.test: which token
 * counts are an ERROR, which bad numbers a CLIENT_ERROR, and when an
 * error is silent because the line asked for noreply. */
#include "proto.h"

#include <string.h>

static const char E_FORMAT[] = "CLIENT_ERROR bad command line format";

/* Digits only, no overflow. */
static int parse_digits(const char *p, size_t n, uint64_t *out) {
    if (n == 0) return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9') return 0;
        unsigned d = (unsigned)(p[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return 0;
        v = v * 10 + d;
    }
    *out = v;
    return 1;
}

/* As strtoull reads a whole token: a sign, then digits; a '-' negates
 * modulo 2^64, and a result that is then negative as a signed number is
 * refused (so "-0" is 0 and "-1" an error, as memcached has it). */
int mc_parse_u64(const char *p, size_t n, uint64_t *out) {
    int neg = n > 0 && p[0] == '-';
    size_t sign = n > 0 && (p[0] == '-' || p[0] == '+');
    uint64_t v;
    if (!parse_digits(p + sign, n - sign, &v)) return 0;
    if (neg) {
        v = 0 - v;
        if ((int64_t)v < 0) return 0;
    }
    *out = v;
    return 1;
}

int mc_parse_i64(const char *p, size_t n, int64_t lo, int64_t hi, int64_t *out) {
    int neg = n > 0 && p[0] == '-';
    size_t sign = n > 0 && (p[0] == '-' || p[0] == '+');
    uint64_t v;
    if (!parse_digits(p + sign, n - sign, &v) || v > (uint64_t)INT64_MAX) return 0;
    int64_t s = neg ? -(int64_t)v : (int64_t)v;
    if (s < lo || s > hi) return 0;
    *out = s;
    return 1;
}

static int tok_is(const struct mc_token *t, const char *s) {
    size_t n = strlen(s);
    return t->len == n && memcmp(t->p, s, n) == 0;
}

/* memcached's 32-bit fields are read as 64-bit numbers and truncated
 * (safe_strtoul, safe_strtol): 4294967296 flags are 0, an exptime of
 * 2147483648 is -2147483648. */
static int parse_u32(const struct mc_token *t, uint32_t *out) {
    uint64_t v;
    if (!mc_parse_u64(t->p, t->len, &v)) return 0;
    *out = (uint32_t)v;
    return 1;
}

static int parse_i32(const struct mc_token *t, int64_t *out) {
    int64_t v;
    if (!mc_parse_i64(t->p, t->len, INT64_MIN + 1, INT64_MAX, &v)) return 0;
    *out = (int32_t)(uint32_t)(uint64_t)v;
    return 1;
}

/* Splits [p, end) at spaces into at most MC_MAX_TOKENS - 1 tokens; what is
 * left after them starts at *rest (NULL if nothing is). */
static int tokenize(const char *p, const char *end, struct mc_token *tok, const char **rest) {
    int n = 0;
    *rest = NULL;
    while (p < end) {
        while (p < end && *p == ' ') p++;
        if (p == end) break;
        if (n == MC_MAX_TOKENS - 1) { *rest = p; break; }
        const char *s = p;
        while (p < end && *p != ' ') p++;
        tok[n].p = s;
        tok[n].len = (uint32_t)(p - s);
        n++;
    }
    return n;
}

static const signed char b64_value[256] = {
    ['A'] = 1, ['B'] = 2, ['C'] = 3, ['D'] = 4, ['E'] = 5, ['F'] = 6, ['G'] = 7, ['H'] = 8,
    ['I'] = 9, ['J'] = 10, ['K'] = 11, ['L'] = 12, ['M'] = 13, ['N'] = 14, ['O'] = 15,
    ['P'] = 16, ['Q'] = 17, ['R'] = 18, ['S'] = 19, ['T'] = 20, ['U'] = 21, ['V'] = 22,
    ['W'] = 23, ['X'] = 24, ['Y'] = 25, ['Z'] = 26, ['a'] = 27, ['b'] = 28, ['c'] = 29,
    ['d'] = 30, ['e'] = 31, ['f'] = 32, ['g'] = 33, ['h'] = 34, ['i'] = 35, ['j'] = 36,
    ['k'] = 37, ['l'] = 38, ['m'] = 39, ['n'] = 40, ['o'] = 41, ['p'] = 42, ['q'] = 43,
    ['r'] = 44, ['s'] = 45, ['t'] = 46, ['u'] = 47, ['v'] = 48, ['w'] = 49, ['x'] = 50,
    ['y'] = 51, ['z'] = 52, ['0'] = 53, ['1'] = 54, ['2'] = 55, ['3'] = 56, ['4'] = 57,
    ['5'] = 58, ['6'] = 59, ['7'] = 60, ['8'] = 61, ['9'] = 62, ['+'] = 63, ['/'] = 64,
};  /* value + 1; 0: not a base64 digit */

/* Decodes padded base64; returns the length, 0 if it is not base64. */
static size_t base64_decode(const char *in, size_t n, uint8_t *out, size_t cap) {
    if (n == 0 || n % 4 != 0) return 0;
    size_t o = 0;
    for (size_t i = 0; i < n; i += 4) {
        int pad = (in[i + 3] == '=') + (in[i + 2] == '=' && in[i + 3] == '=');
        if (pad && i + 4 != n) return 0;
        uint32_t v = 0;
        for (int k = 0; k < 4 - pad; k++) {
            int d = b64_value[(unsigned char)in[i + k]];
            if (!d) return 0;
            v |= (uint32_t)(d - 1) << (18 - 6 * k);
        }
        for (int k = 0; k < 3 - pad; k++) {
            if (o == cap) return 0;
            out[o++] = (uint8_t)(v >> (16 - 8 * k));
        }
    }
    return o;
}

size_t mc_base64_encode(const uint8_t *in, size_t n, char *out) {
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) |
                     (i + 2 < n ? in[i + 2] : 0);
        out[o++] = digits[v >> 18 & 63];
        out[o++] = digits[v >> 12 & 63];
        out[o++] = i + 1 < n ? digits[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? digits[v & 63] : '=';
    }
    return o;
}

/* The meta flags of tok[first..ntok): one letter each, at most once;
 * those with a value parsed. Returns the error line or NULL. */
static const char *parse_meta_flags(struct mc_request *r, int first) {
    struct mc_meta *m = &r->meta;
    const char *err = NULL;
    m->delta = 1;
    r->meta_first = first;
    for (int i = first; i < r->ntok; i++) {
        const struct mc_token *t = &r->tok[i];
        unsigned c = (unsigned char)t->p[0];
        if (c >= 127 || mc_meta_has(m, (char)c)) return "CLIENT_ERROR duplicate flag";
        m->seen[c >> 6] |= 1ull << (c & 63);
        const char *v = t->p + 1;
        size_t vn = t->len - 1;
        int64_t i64;
        switch (c) {
        case 'b': {
            size_t n = base64_decode(r->key.p, r->key.len, r->keybuf, MC_KEY_MAX);
            if (n == 0) err = "CLIENT_ERROR error decoding key";
            r->key.p = (const char *)r->keybuf;
            r->key.len = (uint32_t)n;
            break;
        }
        case 'N': case 'T': case 'R':
            if (!parse_i32(&(struct mc_token){ v, (uint32_t)vn }, &i64)) {
                err = "CLIENT_ERROR bad token in command line format";
                break;
            }
            *(c == 'N' ? &m->vivify_ttl : c == 'T' ? &m->ttl : &m->recache) = i64;
            break;
        case 'O': case 'P': case 'L': case 'k': case 's': case 't': case 'c':
        case 'f': case 'v': case 'h': case 'l': case 'u': case 'q': case 'I':
            break;
        case 'F':
            if (!parse_u32(&(struct mc_token){ v, (uint32_t)vn }, &m->client_flags)) err = E_FORMAT;
            break;
        case 'C': case 'J': case 'D': {
            uint64_t *dst = c == 'C' ? &m->cas : c == 'J' ? &m->initial : &m->delta;
            if (!mc_parse_u64(v, vn, dst))
                err = c == 'C' ? "CLIENT_ERROR bad token in command line format"
                    : c == 'J' ? "CLIENT_ERROR invalid numeric initial value"
                               : "CLIENT_ERROR invalid numeric delta value";
            break;
        }
        case 'M':
            if (t->len != 2) err = "CLIENT_ERROR incorrect length for M token";
            else m->mode = t->p[1];
            break;
        default:
            return "CLIENT_ERROR invalid flag";
        }
    }
    return err;
}

/* Sets noreply if the line's last token is "noreply" (memcached looks
 * only there). */
static int noreply_last(struct mc_request *r) {
    r->noreply = r->rest == NULL && r->ntok > 0 && tok_is(&r->tok[r->ntok - 1], "noreply");
    return r->noreply;
}

/* memcached's token count: the tokens and a terminator. */
static int ntokens(const struct mc_request *r) { return r->ntok + 1; }

static void fail(struct mc_request *r, const char *error) {
    r->op = MC_OP_NONE;
    r->error = error;
}

static void parse_get(struct mc_request *r, int touch) {
    int first = 1;
    if (ntokens(r) < 3) { fail(r, "ERROR"); return; }
    if (touch) {
        if (!parse_i32(&r->tok[1], &r->exptime)) { fail(r, "CLIENT_ERROR invalid exptime argument"); return; }
        first = 2;
    }
    for (int i = first; i < r->ntok; i++)
        if (r->tok[i].len > MC_KEY_MAX) { fail(r, E_FORMAT); return; }
    const char *pos = r->rest;            /* the keys after the token array */
    struct mc_token k;
    while (mc_next_key(r, &pos, &k))
        if (k.len > MC_KEY_MAX) { fail(r, E_FORMAT); return; }
}

int mc_next_key(const struct mc_request *r, const char **pos, struct mc_token *key) {
    const char *p = *pos, *end = r->line_end;
    if (!p) return 0;
    while (p < end && *p == ' ') p++;
    if (p >= end) { *pos = NULL; return 0; }
    const char *s = p;
    while (p < end && *p != ' ') p++;
    key->p = s;
    key->len = (uint32_t)(p - s);
    *pos = p;
    return 1;
}

static void parse_storage(struct mc_request *r, size_t item_max) {
    int cas = r->op == MC_OP_CAS;
    int n = ntokens(r);
    if (cas ? (n != 7 && n != 8) : (n != 6 && n != 7)) { fail(r, "ERROR"); return; }
    noreply_last(r);
    r->key = r->tok[1];
    int64_t vlen;
    if (r->key.len > MC_KEY_MAX || !parse_u32(&r->tok[2], &r->flags) ||
        !parse_i32(&r->tok[3], &r->exptime) || !parse_i32(&r->tok[4], &vlen) ||
        (cas && !mc_parse_u64(r->tok[5].p, r->tok[5].len, &r->cas)) || vlen < 0) {
        fail(r, E_FORMAT);
        return;
    }
    r->vlen = vlen;
    if ((size_t)vlen + 2 + r->key.len + 64 > item_max) {
        fail(r, "SERVER_ERROR object too large for cache");
        r->swallow = vlen + 2;
        r->vlen = -1;
    }
}

/* mg md ma me: key and flags; ms: key, length, flags. */
static void parse_meta(struct mc_request *r, size_t item_max) {
    int n = ntokens(r);
    if (r->op == MC_OP_MN) return;
    if (n < 3) { fail(r, r->op == MC_OP_ME ? E_FORMAT : "ERROR"); return; }
    r->key = r->tok[1];
    if (r->key.len > MC_KEY_MAX) { fail(r, E_FORMAT); return; }
    if (r->op == MC_OP_ME) return;
    int first = 2;
    if (r->op == MC_OP_MS) {
        int64_t vlen;
        if (n == 3 || n > MC_META_MAX_FLAGS) {
            fail(r, n == 3 ? E_FORMAT : "CLIENT_ERROR options flags too long");
            return;
        }
        if (!parse_i32(&r->tok[2], &vlen) || vlen < 0) { fail(r, E_FORMAT); return; }
        first = 3;
        const char *err = parse_meta_flags(r, first);
        char mode = r->meta.mode;
        if (!err && mode && !strchr("EAPRS", mode)) err = "CLIENT_ERROR invalid mode for ms M token";
        for (int i = first; !err && i < r->ntok; i++)
            if (r->tok[i].p[0] == 'O' && r->tok[i].len > MC_OPAQUE_MAX) err = "CLIENT_ERROR opaque token too long";
        if (!err && (size_t)vlen + 2 + r->key.len + 64 > item_max) err = "SERVER_ERROR object too large for cache";
        r->noreply = 0;
        if (err) { fail(r, err); r->swallow = vlen + 2; return; }
        r->noreply = mc_meta_has(&r->meta, 'q');
        r->vlen = vlen;
        return;
    }
    if (n > MC_META_MAX_FLAGS) {
        fail(r, r->op == MC_OP_MG ? "CLIENT_ERROR options flags are too long" : "CLIENT_ERROR options flags too long");
        return;
    }
    const char *err = parse_meta_flags(r, first);
    if (err && r->op != MC_OP_MG) err = "CLIENT_ERROR invalid or duplicate flag";
    if (!err && r->op == MC_OP_MA && r->meta.mode && !strchr("I+D-", r->meta.mode))
        err = "CLIENT_ERROR invalid mode for ma M token";
    for (int i = first; !err && i < r->ntok; i++)
        if (r->tok[i].p[0] == 'O' && r->tok[i].len > MC_OPAQUE_MAX) err = "CLIENT_ERROR opaque token too long";
    if (err) { fail(r, err); return; }
    r->noreply = mc_meta_has(&r->meta, 'q');
}

static void parse_delete(struct mc_request *r) {
    int n = ntokens(r);
    if (n < 3 || n > 5) { fail(r, "ERROR"); return; }
    if (n > 3) {
        int hold_zero = tok_is(&r->tok[2], "0");
        int nr = noreply_last(r);
        if (!((n == 4 && (hold_zero || nr)) || (n == 5 && hold_zero && nr))) {
            fail(r, "CLIENT_ERROR bad command line format.  Usage: delete <key> [noreply]");
            return;
        }
    }
    r->key = r->tok[1];
    if (r->key.len > MC_KEY_MAX) fail(r, E_FORMAT);
}

ssize_t mc_parse(const char *buf, size_t len, size_t item_max, struct mc_request *r) {
    const char *nl = memchr(buf, '\n', len);
    if (!nl) {
        if (len <= MC_LINE_MAX) return 0;
        const char *p = buf;
        while (p < buf + len && *p == ' ') p++;
        size_t left = (size_t)(buf + len - p);
        if (p - buf > 100 || !((left >= 4 && memcmp(p, "get ", 4) == 0) ||
                               (left >= 5 && memcmp(p, "gets ", 5) == 0)))
            return -1;
        return 0;                         /* a long multiget: keep reading */
    }
    memset(r, 0, offsetof(struct mc_request, keybuf));
    r->vlen = -1;
    r->exptime = -1;
    const char *end = nl;
    if (end - buf > 1 && end[-1] == '\r') end--;
    r->line_end = end;
    r->ntok = tokenize(buf, end, r->tok, &r->rest);
    ssize_t used = nl + 1 - buf;
    if (r->ntok == 0 || r->tok[0].len < 2) { fail(r, "ERROR"); return used; }

    const struct mc_token *c = &r->tok[0];
    static const struct { const char *name; enum mc_op op; } ops[] = {
        {"get", MC_OP_GET}, {"gets", MC_OP_GETS}, {"gat", MC_OP_GAT}, {"gats", MC_OP_GATS},
        {"bget", MC_OP_GET}, {"set", MC_OP_SET}, {"add", MC_OP_ADD}, {"replace", MC_OP_REPLACE},
        {"append", MC_OP_APPEND}, {"prepend", MC_OP_PREPEND}, {"cas", MC_OP_CAS},
        {"incr", MC_OP_INCR}, {"decr", MC_OP_DECR}, {"delete", MC_OP_DELETE},
        {"touch", MC_OP_TOUCH}, {"flush_all", MC_OP_FLUSH_ALL}, {"stats", MC_OP_STATS},
        {"version", MC_OP_VERSION}, {"verbosity", MC_OP_VERBOSITY}, {"quit", MC_OP_QUIT},
        {"mg", MC_OP_MG}, {"ms", MC_OP_MS}, {"md", MC_OP_MD}, {"ma", MC_OP_MA},
        {"mn", MC_OP_MN}, {"me", MC_OP_ME}, {"debugtime", MC_OP_DEBUGTIME},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (tok_is(c, ops[i].name)) { r->op = ops[i].op; break; }
    if (r->op == MC_OP_NONE) {
        const struct mc_token *last = &r->tok[r->ntok - 1];
        if (r->rest == NULL && last->len >= 5 && memcmp(last->p, "HTTP/", 5) == 0) r->op = MC_OP_CLOSE;
        else fail(r, tok_is(c, "shutdown") ? "ERROR: shutdown not enabled" : "ERROR");
        return used;
    }
    int n = ntokens(r);
    switch (r->op) {
    case MC_OP_GET: case MC_OP_GETS: parse_get(r, 0); break;
    case MC_OP_GAT: case MC_OP_GATS: parse_get(r, 1); break;
    case MC_OP_SET: case MC_OP_ADD: case MC_OP_REPLACE: case MC_OP_APPEND:
    case MC_OP_PREPEND: case MC_OP_CAS:
        parse_storage(r, item_max);
        break;
    case MC_OP_INCR: case MC_OP_DECR:
        if (n != 4 && n != 5) { fail(r, "ERROR"); break; }
        noreply_last(r);
        r->key = r->tok[1];
        if (r->key.len > MC_KEY_MAX) fail(r, E_FORMAT);
        else if (!mc_parse_u64(r->tok[2].p, r->tok[2].len, &r->delta))
            fail(r, "CLIENT_ERROR invalid numeric delta argument");
        break;
    case MC_OP_TOUCH:
        if (n != 4 && n != 5) { fail(r, "ERROR"); break; }
        noreply_last(r);
        r->key = r->tok[1];
        if (r->key.len > MC_KEY_MAX) fail(r, E_FORMAT);
        else if (!parse_i32(&r->tok[2], &r->exptime)) fail(r, "CLIENT_ERROR invalid exptime argument");
        break;
    case MC_OP_DELETE: parse_delete(r); break;
    case MC_OP_FLUSH_ALL:
        if (n < 2 || n > 4) { fail(r, "ERROR"); break; }
        noreply_last(r);
        r->exptime = 0;
        if (n != (r->noreply ? 3 : 2) && !parse_i32(&r->tok[1], &r->exptime))
            fail(r, "CLIENT_ERROR invalid exptime argument");
        break;
    case MC_OP_VERBOSITY:
        if (n != 3 && n != 4) { fail(r, "ERROR"); break; }
        noreply_last(r);
        uint32_t level;
        if (!parse_u32(&r->tok[1], &level)) fail(r, E_FORMAT);
        else r->verbosity = level > 2 ? 2 : (int)level;
        break;
    case MC_OP_DEBUGTIME:
        if (n != 3 || !parse_i32(&r->tok[1], &r->exptime) || r->exptime < 0) fail(r, "ERROR");
        break;
    case MC_OP_MG: case MC_OP_MS: case MC_OP_MD: case MC_OP_MA: case MC_OP_MN: case MC_OP_ME:
        parse_meta(r, item_max);
        break;
    default:
        break;
    }
    return used;
}
