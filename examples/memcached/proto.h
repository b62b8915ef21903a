/* proto.h: memcached's text protocol, parsed (no I/O, no state).
 *
 * mc_parse reads one command line from a buffer and says what it asks
 * for: the operation and its arguments, or the error line memcached 1.6
 * answers it with. It never reads past `len`, never writes to the buffer,
 * and keeps no state between calls, so it is safe on any input (the fuzz
 * target calls it on arbitrary bytes). Tokens point into the buffer.
 *
 * A storage command (set ... cas, ms) is followed by a data block of
 * `vlen` bytes and "\r\n"; the caller reads it (mc_parse only parses the
 * line). A storage line too malformed to say how long its block is has no
 * block: memcached reads the next line as a command, and so does this.
 */
#ifndef MC_PROTO_H
#define MC_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define MC_KEY_MAX        250     /* longest key (memcached's KEY_MAX_LENGTH) */
#define MC_MAX_TOKENS     24      /* memcached's MAX_TOKENS, the terminator included */
#define MC_LINE_MAX       2048    /* a line without '\n' longer than this closes the connection
                                     (but get/gets: their key lists are unbounded) */
#define MC_META_MAX_FLAGS 20      /* memcached's MFLAG_MAX_OPT_LENGTH: tokens of a meta line */
#define MC_OPAQUE_MAX     32      /* longest O(paque) token */
#define MC_REALTIME_MAXDELTA (60 * 60 * 24 * 30)   /* larger expiry: a unix time */

enum mc_op {
    MC_OP_NONE = 0,     /* `error` holds the reply line */
    MC_OP_GET, MC_OP_GETS, MC_OP_GAT, MC_OP_GATS,
    MC_OP_SET, MC_OP_ADD, MC_OP_REPLACE, MC_OP_APPEND, MC_OP_PREPEND, MC_OP_CAS,
    MC_OP_INCR, MC_OP_DECR, MC_OP_DELETE, MC_OP_TOUCH,
    MC_OP_FLUSH_ALL, MC_OP_STATS, MC_OP_VERSION, MC_OP_VERBOSITY, MC_OP_QUIT,
    MC_OP_DEBUGTIME,    /* `debugtime <seconds>`: advance a --test-clock (in exptime) */
    MC_OP_MG, MC_OP_MS, MC_OP_MD, MC_OP_MA, MC_OP_MN, MC_OP_ME,
    MC_OP_CLOSE,        /* close without a reply (an HTTP request line) */
};

struct mc_token { const char *p; uint32_t len; };

/* A meta command's flags: `seen` has bit c for each flag letter c; the
 * values of the flags that carry one. The reply echoes return flags in the
 * order of `tok` (the request's flag tokens). */
struct mc_meta {
    uint64_t seen[2];
    int64_t  ttl;          /* T: new expiry (memcached exptime form) */
    int64_t  vivify_ttl;   /* N: create on miss with this expiry */
    int64_t  recache;      /* R: win the recache token below this TTL */
    uint32_t client_flags; /* F */
    uint64_t cas;          /* C: compare */
    uint64_t initial;      /* J: ma's value when auto-created */
    uint64_t delta;        /* D: ma's delta (default 1) */
    char     mode;         /* M: ms E/A/P/R/S, ma I/+/D/- (0: default) */
};

static inline int mc_meta_has(const struct mc_meta *m, char c) {
    unsigned u = (unsigned char)c;
    return u < 128 && (m->seen[u >> 6] >> (u & 63) & 1);
}

struct mc_request {
    enum mc_op op;
    const char *error;     /* non-NULL: answer this line (no "\r\n"), nothing else */
    int noreply;           /* "noreply" (classic) or q (meta) */
    struct mc_token key;   /* the key (a meta key with b: base64-decoded into keybuf) */
    struct mc_token tok[MC_MAX_TOKENS]; /* the line's tokens, tok[0] the command */
    int ntok;
    const char *rest;      /* get/gets/gat/gats: keys after tok[ntok-1], if any */
    const char *line_end;  /* end of the line's text (before "\r\n" or "\n") */
    uint32_t flags;        /* storage: client flags */
    int64_t  exptime;      /* storage, touch, gat, flush_all delay (-1: none given) */
    int64_t  vlen;         /* storage: data block length; -1: no block follows */
    int64_t  swallow;      /* bytes to discard after the line (a too-large block) */
    uint64_t cas;          /* cas: compare value */
    uint64_t delta;        /* incr/decr */
    int      verbosity;
    struct mc_meta meta;
    int      meta_first;   /* index in tok of the first meta flag */
    uint8_t  keybuf[MC_KEY_MAX + 1];
};

/* Parses the command line at buf[0..len). Returns the bytes it occupies
 * (through its '\n') and fills *r; 0 if no complete line is there yet; -1
 * if the connection must be closed (more than MC_LINE_MAX bytes without a
 * '\n', not a get). `item_max` is the largest value storable: a storage
 * line whose block is larger gets `error` "SERVER_ERROR object too large
 * for cache" and `swallow` set to the block's length. */
ssize_t mc_parse(const char *buf, size_t len, size_t item_max, struct mc_request *r);

/* get/gets/gat/gats: the next key after *pos (start at r->tok's first
 * key); 0 at the end of the line. Keys were checked by mc_parse. */
int mc_next_key(const struct mc_request *r, const char **pos, struct mc_token *key);

/* memcached's numeric parsers: the whole token, decimal, in range. */
int mc_parse_u64(const char *p, size_t n, uint64_t *out);
int mc_parse_i64(const char *p, size_t n, int64_t lo, int64_t hi, int64_t *out);

/* base64 (RFC 4648, padded) of n bytes into out; returns its length. */
size_t mc_base64_encode(const uint8_t *in, size_t n, char *out);

#endif
