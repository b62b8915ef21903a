/* sha1.h: SHA-1 (FIPS 180-4) of a message that fits one block (at most
 * 55 bytes), all the UTS random number generator hashes: 20 or 24 bytes.
 * Written from the standard; sha1_self_test checks it against the
 * standard's "abc" example. */
#ifndef BENCH_FORKJOIN_SHA1_H
#define BENCH_FORKJOIN_SHA1_H
#include <stdint.h>
#include <string.h>

static inline uint32_t sha1_rotl(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

/* digest := SHA-1(msg[0..len)), len <= 55. */
static inline void sha1_short(const uint8_t *msg, size_t len, uint8_t digest[20])
{
    uint8_t block[64] = { 0 };
    uint32_t w[80];
    memcpy(block, msg, len);
    block[len] = 0x80;                      /* padding: a one bit, zeros, */
    block[62] = (uint8_t)((len * 8) >> 8);  /* and the length in bits, big-endian */
    block[63] = (uint8_t)(len * 8);
    for (int t = 0; t < 16; t++)
        w[t] = (uint32_t)block[4 * t] << 24 | (uint32_t)block[4 * t + 1] << 16 | (uint32_t)block[4 * t + 2] << 8 |
               block[4 * t + 3];
    for (int t = 16; t < 80; t++)
        w[t] = sha1_rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
    uint32_t h[5] = { 0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0 };
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int t = 0; t < 80; t++) {
        uint32_t f, k;
        if (t < 20) {
            f = (b & c) | (~b & d);
            k = 0x5A827999;
        } else if (t < 40) {
            f = b ^ c ^ d;
            k = 0x6ED9EBA1;
        } else if (t < 60) {
            f = (b & c) | (b & d) | (c & d);
            k = 0x8F1BBCDC;
        } else {
            f = b ^ c ^ d;
            k = 0xCA62C1D6;
        }
        uint32_t temp = sha1_rotl(a, 5) + f + e + k + w[t];
        e = d;
        d = c;
        c = sha1_rotl(b, 30);
        b = a;
        a = temp;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
    for (int i = 0; i < 5; i++) {
        digest[4 * i] = (uint8_t)(h[i] >> 24);
        digest[4 * i + 1] = (uint8_t)(h[i] >> 16);
        digest[4 * i + 2] = (uint8_t)(h[i] >> 8);
        digest[4 * i + 3] = (uint8_t)h[i];
    }
}

/* 1 if SHA-1("abc") is the standard's a9993e36 4706816a ba3e2571 7850c26c 9cd0d89d. */
static inline int sha1_self_test(void)
{
    static const uint8_t want[20] = { 0xa9, 0x99, 0x3e, 0x36, 0x47, 0x06, 0x81, 0x6a, 0xba, 0x3e,
                                      0x25, 0x71, 0x78, 0x50, 0xc2, 0x6c, 0x9c, 0xd0, 0xd8, 0x9d };
    uint8_t got[20];
    sha1_short((const uint8_t *)"abc", 3, got);
    return memcmp(got, want, 20) == 0;
}
#endif
