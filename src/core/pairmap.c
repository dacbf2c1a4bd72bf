/* pairmap.c - the (int64, int64) -> uint32 hash map; see pairmap.h. */
#include "pairmap.h"

#include "alloc.h"
#include "hash.h"

#include <string.h>

void pairmap_free(pairmap *m)
{
    pq_free(m->ka);
    pq_free(m->kb);
    pq_free(m->val);
    memset(m, 0, sizeof *m);
}

static int pairmap_grow(pairmap *m)
{
    size_t ns = m->nslots ? m->nslots * 2 : 256;
    int64_t *ka = pq_malloc_array(ns, sizeof *ka), *kb = pq_malloc_array(ns, sizeof *kb);
    uint32_t *val = pq_malloc_array(ns, sizeof *val);
    if (!ka || !kb || !val) {
        pq_free(ka);
        pq_free(kb);
        pq_free(val);
        m->failed = 1;
        return -1;
    }
    for (size_t k = 0; k < ns; k++)
        val[k] = UINT32_MAX;
    for (size_t k = 0; k < m->nslots; k++) {
        if (m->val[k] == UINT32_MAX)
            continue;
        size_t j = (size_t)hash_mix64((uint64_t)m->ka[k] * 31 + (uint64_t)m->kb[k]) & (ns - 1);
        while (val[j] != UINT32_MAX)
            j = (j + 1) & (ns - 1);
        ka[j] = m->ka[k];
        kb[j] = m->kb[k];
        val[j] = m->val[k];
    }
    pq_free(m->ka);
    pq_free(m->kb);
    pq_free(m->val);
    m->ka = ka;
    m->kb = kb;
    m->val = val;
    m->nslots = ns;
    return 0;
}

uint32_t *pairmap_slot(pairmap *m, int64_t a, int64_t b, int *fresh)
{
    if ((m->n + 1) * 2 > m->nslots && pairmap_grow(m) != 0)
        return NULL;
    size_t mask = m->nslots - 1;
    size_t j = (size_t)hash_mix64((uint64_t)a * 31 + (uint64_t)b) & mask;
    while (m->val[j] != UINT32_MAX) {
        if (m->ka[j] == a && m->kb[j] == b) {
            *fresh = 0;
            return &m->val[j];
        }
        j = (j + 1) & mask;
    }
    m->ka[j] = a;
    m->kb[j] = b;
    m->n++;
    *fresh = 1;
    return &m->val[j];
}

uint32_t pairmap_get(const pairmap *m, int64_t a, int64_t b)
{
    if (!m->nslots)
        return UINT32_MAX;
    size_t mask = m->nslots - 1;
    size_t j = (size_t)hash_mix64((uint64_t)a * 31 + (uint64_t)b) & mask;
    while (m->val[j] != UINT32_MAX) {
        if (m->ka[j] == a && m->kb[j] == b)
            return m->val[j];
        j = (j + 1) & mask;
    }
    return UINT32_MAX;
}
