/* counter.c - counts of (key, value) pairs in first-seen order; see counter.h.
 * Not here: what the keys mean (the callers' ids). */
#include "core/counter.h"

#include "core/alloc.h"

#include <string.h>

void counter_free(counter *c)
{
    pairmap_free(&c->map);
    pq_free(c->key);
    pq_free(c->value);
    pq_free(c->count);
    pq_free(c->weight);
    memset(c, 0, sizeof *c);
}

void counter_add(counter *c, int64_t key, int64_t value, uint64_t n, double w)
{
    int fresh;
    uint32_t *slot = pairmap_slot(&c->map, key, value, &fresh);
    if (!slot) {
        c->failed = 1;
        return;
    }
    if (fresh) {
        if (c->n == c->cap) {
            uint32_t cap = c->cap ? c->cap * 2 : 256;
            int64_t *nk = pq_realloc_array(c->key, cap, sizeof *nk);
            if (nk)
                c->key = nk;
            int64_t *nv = pq_realloc_array(c->value, cap, sizeof *nv);
            if (nv)
                c->value = nv;
            uint64_t *nc = pq_realloc_array(c->count, cap, sizeof *nc);
            if (nc)
                c->count = nc;
            double *nw = pq_realloc_array(c->weight, cap, sizeof *nw);
            if (nw)
                c->weight = nw;
            if (!nk || !nv || !nc || !nw) {
                c->failed = 1;
                *slot = 0;
                return;
            }
            c->cap = cap;
        }
        *slot = c->n;
        c->key[c->n] = key;
        c->value[c->n] = value;
        c->count[c->n] = 0;
        c->weight[c->n] = 0;
        c->n++;
    }
    c->count[*slot] += n;
    c->weight[*slot] += w;
}

void counter_most_common(const counter *c, uint32_t *out, size_t nkeys)
{
    for (size_t k = 0; k < nkeys; k++)
        out[k] = UINT32_MAX;
    for (uint32_t r = 0; r < c->n; r++) {
        size_t key = (size_t)c->key[r];
        if (key >= nkeys)
            continue;
        if (out[key] == UINT32_MAX || c->count[r] > c->count[out[key]])
            out[key] = r;
    }
}
