/* intern.c - the string intern pool; see intern.h. Strings are hashed with hash_bytes and
 * compared here; probing and growth are core/hmap's. */
#include "intern.h"

#include "alloc.h"
#include "hash.h"

#include <string.h>

typedef struct intern_key {
    const intern_pool *pl;
    const char *p;
    size_t n;
} intern_key;

static int intern_same(void *ctx, uint32_t id)
{
    const intern_key *k = ctx;
    return k->pl->len[id] == k->n && memcmp(k->pl->chars + k->pl->off[id], k->p, k->n) == 0;
}

int intern_init(intern_pool *pl)
{
    memset(pl, 0, sizeof *pl);
    if (pq_hmap_reserve(&pl->index, 512) != 0)
        return -1;
    intern_add(pl, "", 0);
    return pl->failed ? -1 : 0;
}

void intern_free(intern_pool *pl)
{
    pq_free(pl->chars);
    pq_free(pl->off);
    pq_free(pl->len);
    pq_hmap_free(&pl->index);
}

uint32_t intern_add(intern_pool *pl, const char *p, size_t n)
{
    /* id 0 is "", stored by intern_init (the only call that reaches the store with n 0). */
    if (pl->failed || !p || (!n && pl->n))
        return 0;
    if (n > 0xFFFFFFF0u)
        n = 0xFFFFFFF0u;
    uint64_t h = hash_bytes(p, n);
    intern_key k = {pl, p, n};
    size_t slot = pq_hmap_probe(&pl->index, h, intern_same, &k);
    if (pq_hmap_found(&pl->index, slot))
        return pq_hmap_value(&pl->index, slot);
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
    pq_hmap_put(&pl->index, slot, h, id);
    /* Room for the next string now, so that a probe always finds an empty slot. */
    if (pq_hmap_reserve(&pl->index, (size_t)pl->n + 1) != 0)
        pl->failed = 1;
    return id;
}

uint32_t intern_cstr(intern_pool *pl, const char *s)
{
    return intern_add(pl, s, strlen(s));
}
