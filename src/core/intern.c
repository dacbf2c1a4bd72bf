/* intern.c - the string intern pool; see intern.h. */
#include "intern.h"

#include "alloc.h"
#include "hash.h"

#include <string.h>

int intern_init(intern_pool *pl)
{
    memset(pl, 0, sizeof *pl);
    pl->nslots = 1024;
    pl->slots = pq_calloc(pl->nslots, sizeof *pl->slots);
    if (!pl->slots)
        return -1;
    intern_add(pl, "", 0);
    return pl->failed ? -1 : 0;
}

void intern_free(intern_pool *pl)
{
    pq_free(pl->chars);
    pq_free(pl->off);
    pq_free(pl->len);
    pq_free(pl->slots);
}

uint32_t intern_add(intern_pool *pl, const char *p, size_t n)
{
    if (pl->failed || !p || !n)
        return 0; /* id 0 is "" */
    if (n > 0xFFFFFFF0u)
        n = 0xFFFFFFF0u;
    uint64_t h = hash_bytes(p, n);
    size_t mask = pl->nslots - 1, i = (size_t)h & mask;
    while (pl->slots[i]) {
        uint32_t id = pl->slots[i] - 1;
        if (pl->len[id] == n && memcmp(pl->chars + pl->off[id], p, n) == 0)
            return id;
        i = (i + 1) & mask;
    }
    if (pl->n == pl->cap) {
        uint32_t cap = pl->cap ? pl->cap * 2 : 256;
        size_t *no = pq_realloc_array(pl->off, cap, sizeof *no);
        if (no)
            pl->off = no;
        uint32_t *nl = pq_realloc_array(pl->len, cap, sizeof *nl);
        if (nl)
            pl->len = nl;
        if (!no || !nl) {
            pl->failed = 1;
            return 0;
        }
        pl->cap = cap;
    }
    if (pl->nchars + n + 1 > pl->capchars) {
        /* P may point into the pool itself (a prefix of an interned path). */
        int inside = pl->chars && p >= pl->chars && p < pl->chars + pl->nchars;
        size_t poff = inside ? (size_t)(p - pl->chars) : 0;
        size_t cap = pl->capchars ? pl->capchars * 2 : 4096;
        while (cap < pl->nchars + n + 1)
            cap *= 2;
        char *nc = pq_realloc(pl->chars, cap);
        if (!nc) {
            pl->failed = 1;
            return 0;
        }
        pl->chars = nc;
        pl->capchars = cap;
        if (inside)
            p = pl->chars + poff;
    }
    uint32_t id = pl->n++;
    pl->off[id] = pl->nchars;
    pl->len[id] = (uint32_t)n;
    if (n)
        memcpy(pl->chars + pl->nchars, p, n);
    pl->chars[pl->nchars + n] = '\0';
    pl->nchars += n + 1;
    pl->slots[i] = id + 1;
    if ((size_t)pl->n * 2 > pl->nslots) {
        size_t ns = pl->nslots * 2;
        uint32_t *nsl = pq_calloc(ns, sizeof *nsl);
        if (!nsl) {
            pl->failed = 1;
            return id;
        }
        for (uint32_t k = 0; k < pl->n; k++) {
            size_t j = (size_t)hash_bytes(pl->chars + pl->off[k], pl->len[k]) & (ns - 1);
            while (nsl[j])
                j = (j + 1) & (ns - 1);
            nsl[j] = k + 1;
        }
        pq_free(pl->slots);
        pl->slots = nsl;
        pl->nslots = ns;
    }
    return id;
}

uint32_t intern_cstr(intern_pool *pl, const char *s)
{
    return intern_add(pl, s, strlen(s));
}
