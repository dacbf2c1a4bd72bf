/* hmap.h - the one generic hash index of profq: it maps a 64-bit hash the caller computes
 * to a uint32 value (usually the index of an entry in the caller's own array), and decides
 * equality of keys through a caller-supplied function, so the keys stay where the caller
 * keeps them. Open addressing with linear probing over a power-of-two number of slots, each
 * holding the full hash (compared before the equality call) and value + 1 (0: empty).
 * Grown by pq_hmap_reserve, at most half full. The probe is static inline so that a
 * constant equality function inlines at the call site.
 *
 *     size_t s = pq_hmap_probe(&m, h, same_key, &key);
 *     if (pq_hmap_found(&m, s)) ...entries[pq_hmap_value(&m, s)]...
 *     else { reserve room first (pq_hmap_reserve(&m, n + 1), then probe again) and
 *            pq_hmap_put(&m, s, h, new_index); }
 *
 * The typed layers over it: keys of two int64 (core/pairmap.h), interned strings
 * (core/intern.h); the ops table, memory-viewer's memo and the Tenstorrent reader's string
 * map (formats/ttlog_exec.c) use it directly. */
#ifndef PQ_CORE_HMAP_H
#define PQ_CORE_HMAP_H
#include <stddef.h>
#include <stdint.h>

typedef struct pq_hmap {
    uint64_t *hash; /* per slot */
    uint32_t *val;  /* per slot: value + 1, 0 empty */
    size_t cap;     /* slots: 0 or a power of two */
    size_t n;       /* values held */
} pq_hmap;

/* Whether the value V's key equals the one looked up (CTX says which). */
typedef int (*pq_hmap_eq_fn)(void *ctx, uint32_t v);

/* Grows M to room for N values at most half full (hmap.c): 0, or -1 (unchanged) when
 * memory runs out or N is over 2^31. */
int pq_hmap_grow(pq_hmap *m, size_t n);
void pq_hmap_free(pq_hmap *m);

/* Room for N values at most half full: 0, or -1 (unchanged) when memory runs out or N is
 * over 2^31. Slots returned by pq_hmap_probe are valid only until the next growth. */
static inline int pq_hmap_reserve(pq_hmap *m, size_t n)
{
    return m->cap && 2 * n <= m->cap ? 0 : pq_hmap_grow(m, n);
}

/* The slot of the value whose hash is H and for which EQ(CTX, value) holds, or the empty
 * slot where such a value goes. The map must have at least one slot (pq_hmap_reserve). */
static inline size_t pq_hmap_probe(const pq_hmap *m, uint64_t h, pq_hmap_eq_fn eq, void *ctx)
{
    size_t mask = m->cap - 1, j = (size_t)h & mask;
    while (m->val[j]) {
        if (m->hash[j] == h && eq(ctx, m->val[j] - 1))
            return j;
        j = (j + 1) & mask;
    }
    return j;
}

static inline int pq_hmap_found(const pq_hmap *m, size_t slot)
{
    return m->val[slot] != 0;
}

static inline uint32_t pq_hmap_value(const pq_hmap *m, size_t slot)
{
    return m->val[slot] - 1;
}

/* Puts V with hash H in the empty SLOT that pq_hmap_probe returned (after any reserve). */
static inline void pq_hmap_put(pq_hmap *m, size_t slot, uint64_t h, uint32_t v)
{
    m->hash[slot] = h;
    m->val[slot] = v + 1;
    m->n++;
}

#endif
