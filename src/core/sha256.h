/* sha256.h - SHA-256 (FIPS 180-4), incremental; see sha256.c. */
#ifndef PQ_CORE_SHA256_H
#define PQ_CORE_SHA256_H
#include <stddef.h>
#include <stdint.h>

typedef struct pq_sha256_ctx {
    uint32_t h[8];
    uint64_t bytes;         /* message length so far */
    unsigned char tail[64]; /* a partial block */
    size_t ntail;
} pq_sha256_ctx;

void pq_sha256_init(pq_sha256_ctx *s);
void pq_sha256_update(pq_sha256_ctx *s, const void *data, size_t n);
void pq_sha256_final(pq_sha256_ctx *s, unsigned char md[32]);
/* The digest of N bytes at DATA in one call. */
void pq_sha256(const void *data, size_t n, unsigned char md[32]);
/* Which block function runs: 0 portable C, 1 the x86 SHA extensions (for tests). */
int pq_sha256_accelerated(void);
/* Tests only: 1 forces the portable C blocks, 0 lets the CPU choose again. */
void pq_sha256_force_portable(int on);

#endif
