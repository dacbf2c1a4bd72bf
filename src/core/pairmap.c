/* pairmap.c - the (int64, int64) -> uint32 hash map of pairmap.h: keys hashed with
 * hash_mix64, equality and storage here, probing and growth in core/hmap. */
#include "pairmap.h"

#include "alloc.h"
#include "hash.h"
#include "vec.h"

#include <string.h>

typedef struct pair_key {
    const pairmap *m;
    int64_t a, b;
} pair_key;

static int pair_same(void *ctx, uint32_t v)
{
    const pair_key *k = ctx;
    const pairmap_entry *e = &k->m->e[v];
    return e->a == k->a && e->b == k->b;
}

static uint64_t pair_hash(int64_t a, int64_t b)
{
    return hash_mix64((uint64_t)a * 31 + (uint64_t)b);
}

void pairmap_free(pairmap *m)
{
    pq_hmap_free(&m->index);
    pq_free(m->e);
    memset(m, 0, sizeof *m);
}

/* Room for one more entry in the array and the index: 0, or -1 (sticky failure). */
static int pairmap_room(pairmap *m)
{
    if (m->failed)
        return -1;
    if (m->n == m->cap) { /* grown as core/vec.h grows, at most 2^31 entries (hmap's bound) */
        size_t cap = pq_vec_next_cap(m->cap, m->n + 1, sizeof(pairmap_entry), (size_t)1 << 31);
        pairmap_entry *e = cap ? pq_realloc_array(m->e, cap, sizeof *e) : NULL;
        if (!e)
            return m->failed = -1;
        m->e = e;
        m->cap = cap;
    }
    if (pq_hmap_reserve(&m->index, m->n + 1) != 0)
        return m->failed = -1;
    return 0;
}

uint32_t *pairmap_slot(pairmap *m, int64_t a, int64_t b, int *fresh)
{
    if (pairmap_room(m) != 0)
        return NULL;
    uint64_t h = pair_hash(a, b);
    pair_key k = {m, a, b};
    size_t s = pq_hmap_probe(&m->index, h, pair_same, &k);
    if (pq_hmap_found(&m->index, s)) {
        *fresh = 0;
        return &m->e[pq_hmap_value(&m->index, s)].val;
    }
    pairmap_entry *e = &m->e[m->n];
    e->a = a;
    e->b = b;
    e->val = UINT32_MAX;
    pq_hmap_put(&m->index, s, h, (uint32_t)m->n++);
    *fresh = 1;
    return &e->val;
}

uint32_t pairmap_get(const pairmap *m, int64_t a, int64_t b)
{
    if (!m->index.cap)
        return UINT32_MAX;
    pair_key k = {m, a, b};
    size_t s = pq_hmap_probe(&m->index, pair_hash(a, b), pair_same, &k);
    return pq_hmap_found(&m->index, s) ? m->e[pq_hmap_value(&m->index, s)].val : UINT32_MAX;
}
