/* sha256.c - SHA-256 (FIPS 180-4) of inputs (pq_profile_info.sha256, run discovery), in
 * place of the static libcrypto profq linked before: that library's constructor probes the
 * CPU with CPUID in every process at start-up, and CPUID traps to the hypervisor on a VM
 * (about 25 us each here; docs/internals/speed.md), although most commands never hash.
 *
 * Two block functions: portable C, and on x86-64 the SHA extensions (SHA-NI: SHA256RNDS2,
 * SHA256MSG1/2), chosen on the first hash from the features glibc's loader already found
 * (<sys/platform/x86.h>: no CPUID of our own). Not a general crypto library: no HMAC, no
 * other digests. */
#include "sha256.h"

#include <stdatomic.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && defined(__has_include)
#if __has_include(<sys/platform/x86.h>) && __has_include(<immintrin.h>)
#define SHA256_HAVE_NI 1
#include <immintrin.h>
#include <sys/platform/x86.h>
#endif
#endif
#ifndef SHA256_HAVE_NI
#define SHA256_HAVE_NI 0
#endif

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr(uint32_t x, int n)
{
    return (x >> n) | (x << (32 - n));
}

/* NBLOCKS 64-byte blocks at P into the state H: FIPS 180-4 section 6.2.2. */
static void blocks_c(uint32_t h[8], const unsigned char *p, size_t nblocks)
{
    for (; nblocks--; p += 64) {
        uint32_t w[64];
        for (int t = 0; t < 16; t++)
            w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 |
                   (uint32_t)p[4 * t + 2] << 8 | p[4 * t + 3];
        for (int t = 16; t < 64; t++) {
            uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
            uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
            w[t] = w[t - 16] + s0 + w[t - 7] + s1;
        }
        uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
        for (int t = 0; t < 64; t++) {
            uint32_t t1 =
                hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t];
            uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
            hh = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b;
            b = a;
            a = t1 + t2;
        }
        h[0] += a, h[1] += b, h[2] += c, h[3] += d;
        h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
    }
}

#if SHA256_HAVE_NI
/* The same with the SHA extensions. The state is kept as the two vectors the instructions
 * take, ABEF and CDGH; each SHA256RNDS2 does two rounds, the message schedule is four words
 * a vector: W[t..t+3] = MSG2(MSG1(W[t-16..], W[t-12..]) + W[t-7..t-4], W[t-4..t-1]). */
__attribute__((target("sha,sse4.1,ssse3"))) static void
blocks_ni(uint32_t h[8], const unsigned char *p, size_t nblocks)
{
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bll, 0x0405060700010203ll);
    __m128i dcba = _mm_loadu_si128((const __m128i *)(const void *)&h[0]);
    __m128i hgfe = _mm_loadu_si128((const __m128i *)(const void *)&h[4]);
    /* words named from the highest lane down: DCBA is A in lane 0 */
    __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
    __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
    __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
    __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
    for (; nblocks--; p += 64) {
        __m128i abef0 = abef, cdgh0 = cdgh, w[4];
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 16
#endif
        for (int g = 0; g < 16; g++) {
            if (g < 4) {
                w[g] = _mm_shuffle_epi8(
                    _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * g)), bswap);
            } else { /* w[g&3] holds W of group g-4, w[(g+1)&3] g-3, w[(g+2)&3] g-2, ... */
                __m128i t = _mm_sha256msg1_epu32(w[g & 3], w[(g + 1) & 3]);
                t = _mm_add_epi32(t, _mm_alignr_epi8(w[(g + 3) & 3], w[(g + 2) & 3], 4));
                w[g & 3] = _mm_sha256msg2_epu32(t, w[(g + 3) & 3]);
            }
            __m128i m =
                _mm_add_epi32(w[g & 3], _mm_loadu_si128((const __m128i *)(const void *)&K[4 * g]));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, m); /* now the new ABEF */
            m = _mm_shuffle_epi32(m, 0x0E);
            abef = _mm_sha256rnds2_epu32(abef, cdgh, m); /* and CDGH is the ABEF before */
        }
        abef = _mm_add_epi32(abef, abef0);
        cdgh = _mm_add_epi32(cdgh, cdgh0);
    }
    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    dcba = _mm_blend_epi16(feba, dchg, 0xF0);
    hgfe = _mm_alignr_epi8(dchg, feba, 8);
    _mm_storeu_si128((__m128i *)(void *)&h[0], dcba);
    _mm_storeu_si128((__m128i *)(void *)&h[4], hgfe);
}
#endif

static atomic_int force_portable;

int pq_sha256_accelerated(void)
{
#if SHA256_HAVE_NI
    return !atomic_load(&force_portable) && CPU_FEATURE_ACTIVE(SHA) && CPU_FEATURE_ACTIVE(SSE4_1) &&
           CPU_FEATURE_ACTIVE(SSSE3);
#else
    return 0;
#endif
}

void pq_sha256_force_portable(int on)
{
    atomic_store(&force_portable, on);
}

static void blocks(uint32_t h[8], const unsigned char *p, size_t nblocks)
{
#if SHA256_HAVE_NI
    if (pq_sha256_accelerated()) {
        blocks_ni(h, p, nblocks);
        return;
    }
#endif
    blocks_c(h, p, nblocks);
}

void pq_sha256_init(pq_sha256_ctx *s)
{
    static const uint32_t H0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, H0, sizeof H0);
    s->bytes = 0;
    s->ntail = 0;
}

void pq_sha256_update(pq_sha256_ctx *s, const void *data, size_t n)
{
    if (n == 0) /* DATA may be NULL (an empty file's mapping) */
        return;
    const unsigned char *p = data;
    s->bytes += n;
    if (s->ntail) {
        size_t k = 64 - s->ntail < n ? 64 - s->ntail : n;
        memcpy(s->tail + s->ntail, p, k);
        s->ntail += k, p += k, n -= k;
        if (s->ntail < 64)
            return;
        blocks(s->h, s->tail, 1);
        s->ntail = 0;
    }
    if (n >= 64) {
        blocks(s->h, p, n / 64);
        p += n / 64 * 64;
        n %= 64;
    }
    memcpy(s->tail, p, n);
    s->ntail = n;
}

void pq_sha256_final(pq_sha256_ctx *s, unsigned char md[32])
{
    uint64_t bits = s->bytes * 8;
    unsigned char pad[72] = {0x80};
    size_t npad = (s->ntail < 56 ? 56 : 120) - s->ntail;
    for (int i = 0; i < 8; i++)
        pad[npad + (size_t)i] = (unsigned char)(bits >> (56 - 8 * i));
    uint64_t keep = s->bytes;
    pq_sha256_update(s, pad, npad + 8);
    s->bytes = keep;
    for (int i = 0; i < 8; i++) {
        md[4 * i] = (unsigned char)(s->h[i] >> 24);
        md[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
        md[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
        md[4 * i + 3] = (unsigned char)s->h[i];
    }
}

void pq_sha256(const void *data, size_t n, unsigned char md[32])
{
    pq_sha256_ctx s;
    pq_sha256_init(&s);
    pq_sha256_update(&s, data, n);
    pq_sha256_final(&s, md);
}
