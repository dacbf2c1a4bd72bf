/* arena.c - bump allocator: blocks that come zeroed (pq_calloc, or fresh pages from
 * pq_alloc_pages for the big ones), freed together. Block sizes double from 16 KiB, so a
 * small profile touches little memory and a big one few blocks; an allocation bigger than
 * half the next block gets a block of its own. Nothing is zeroed here: every block is. */
#include "arena.h"
#include "alloc.h"

#include <string.h>

struct arena_block {
    arena_block *next;
    size_t cap, used;
    size_t pages; /* > 0: from pq_alloc_pages, this many bytes */
    _Alignas(16) unsigned char data[];
};

enum {
    ARENA_FIRST_BLOCK = 16 << 10,
    ARENA_MAX_BLOCK = 2 << 20 /* header included: one 2 MiB page (pq_alloc_pages) */
};

void arena_init(arena *a)
{
    memset(a, 0, sizeof *a);
}

void arena_release(arena *a)
{
    arena_block *b = a->head;
    while (b) {
        arena_block *next = b->next;
        if (b->pages)
            pq_free_pages(b, b->pages);
        else
            pq_free(b);
        b = next;
    }
    memset(a, 0, sizeof *a);
}

/* A zeroed block with room for CAP bytes (NULL when out of memory). A full-size block is
 * whole 2 MiB pages; a block of its own for one big allocation comes from pq_calloc, whose
 * pages are only touched where it is written. */
static arena_block *block_new(size_t cap)
{
    size_t total = sizeof(arena_block) + cap;
    if (total < cap)
        return NULL;
    size_t pages = total == ARENA_MAX_BLOCK ? total : 0;
    arena_block *b = pages ? pq_alloc_pages(pages) : pq_calloc(1, total);
    if (b) {
        b->cap = cap;
        b->pages = pages;
    }
    return b;
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
        size_t next = b ? b->cap * 2 : ARENA_FIRST_BLOCK;
        if (next > ARENA_MAX_BLOCK - sizeof *b)
            next = ARENA_MAX_BLOCK - sizeof *b;
        int own = need > next / 2;
        arena_block *nb = block_new(own ? need : next);
        if (!nb) {
            a->failed = 1;
            return NULL;
        }
        if (b && own) {
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
