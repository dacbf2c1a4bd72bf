/* arena.c - bump allocator: large blocks from pq_calloc, freed together. A block is zeroed
 * once when it is obtained (for free when the C library maps fresh pages, as it does for
 * blocks this large) and its bytes are handed out only once, so allocations need no memset. */
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
    if (!b || b->cap - b->used < need) {
        size_t cap = need > ARENA_BLOCK_BYTES / 2 ? need : ARENA_BLOCK_BYTES;
        arena_block *nb = pq_calloc(1, sizeof *nb + cap);
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
    return p; /* zero: the block was calloc'd and no byte is handed out twice */
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
