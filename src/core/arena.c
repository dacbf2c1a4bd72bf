/* arena.c - bump allocator: large blocks from pq_malloc, freed together. An allocation
 * bigger than half a block gets a block of its own from pq_calloc, which zeroes exactly it
 * (for free when the C library maps fresh pages, as it does for the first such block). */
#include "arena.h"
#include "alloc.h"

#include <string.h>

struct arena_block {
    arena_block *next;
    size_t cap, used;
    _Alignas(16) unsigned char data[];
};

enum { ARENA_BLOCK_BYTES = 1 << 20 };

void arena_init(arena *a)
{
    memset(a, 0, sizeof *a);
}

void arena_release(arena *a)
{
    arena_block *b = a->head;
    while (b) {
        arena_block *next = b->next;
        pq_free(b);
        b = next;
    }
    memset(a, 0, sizeof *a);
}

void *arena_alloc(arena *a, size_t n)
{
    if (a->failed)
        return NULL;
    size_t need = (n + 15) & ~(size_t)15;
    if (need < n) {
        a->failed = 1;
        return NULL;
    }
    arena_block *b = a->head;
    int zeroed = 0;
    if (!b || b->cap - b->used < need) {
        zeroed = need > ARENA_BLOCK_BYTES / 2;
        size_t cap = zeroed ? need : ARENA_BLOCK_BYTES;
        arena_block *nb = zeroed ? pq_calloc(1, sizeof *nb + cap) : pq_malloc(sizeof *nb + cap);
        if (!nb) {
            a->failed = 1;
            return NULL;
        }
        nb->cap = cap;
        nb->used = 0;
        if (b && need > ARENA_BLOCK_BYTES / 2) {
            /* A big one-off: keep the current block as head so its space stays usable. */
            nb->next = b->next;
            b->next = nb;
        } else {
            nb->next = b;
            a->head = nb;
        }
        b = nb;
    }
    void *p = b->data + b->used;
    b->used += need;
    a->used_bytes += need;
    if (!zeroed)
        memset(p, 0, n);
    return p;
}

char *arena_strndup(arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    if (!p)
        return NULL;
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}
