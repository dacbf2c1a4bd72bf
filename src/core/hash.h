/* hash.h - the hash functions the users of the one hash index (core/hmap.h) compute:
 * bytes eight at a time, and a 64-bit finaliser for integer keys. Not cryptographic:
 * io/ has sha256 for provenance. */
#ifndef PQ_CORE_HASH_H
#define PQ_CORE_HASH_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* 8 bytes per step: kernel names run to hundreds of bytes and every event's is hashed. */
static inline uint64_t hash_bytes(const char *p, size_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15ull ^ n, w;
    for (; n >= 8; p += 8, n -= 8) {
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    w = 0;
    memcpy(&w, p, n);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 29);
}

/* murmur3's 64-bit finaliser: every input bit reaches every output bit. */
static inline uint64_t hash_mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

#endif
