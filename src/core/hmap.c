/* hmap.c - growth and release of the generic hash index of hmap.h (the probe is inline in
 * the header). Growth re-places every value by its stored hash; keys are never touched. */
#include "core/hmap.h"

#include "core/alloc.h"

int pq_hmap_grow(pq_hmap *m, size_t n)
{
    if (n > ((size_t)1 << 31))
        return -1;
    if (m->cap && 2 * n <= m->cap)
        return 0;
    size_t cap = m->cap ? m->cap : 16;
    while (cap < 2 * n)
        cap *= 2;
    uint64_t *hash = pq_malloc(cap * sizeof *hash);
    uint32_t *val = pq_calloc(cap, sizeof *val);
    if (!hash || !val) {
        pq_free(hash);
        pq_free(val);
        return -1;
    }
    size_t mask = cap - 1;
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->val[i])
            continue;
        size_t j = (size_t)m->hash[i] & mask;
        while (val[j])
            j = (j + 1) & mask;
        hash[j] = m->hash[i];
        val[j] = m->val[i];
    }
    pq_free(m->hash);
    pq_free(m->val);
    m->hash = hash;
    m->val = val;
    m->cap = cap;
    return 0;
}

void pq_hmap_free(pq_hmap *m)
{
    pq_free(m->hash);
    pq_free(m->val);
    m->hash = NULL;
    m->val = NULL;
    m->cap = m->n = 0;
}
