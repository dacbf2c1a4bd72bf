/* arena.c - bump allocator: blocks freed together, sizes doubling from 16 KiB (a small
 * profile touches little memory) to 2 MiB. A 2 MiB block is fresh pages from
 * pq_alloc_pages, which come zeroed and which the kernel may back with one huge page (one
 * page fault instead of 512), except an arena's first: the H100 module's arena used 81 KiB
 * of it, and the kernel zeroed all 2 MiB. Blocks of 64 KiB and more are faulted in ahead of
 * use, in steps that double as the block fills (pq_populate). A smaller one comes from pq_calloc
 * (heap memory a long-lived process reuses; zeroed for free when fresh); a reused spare's
 * allocations are zeroed one by one. An allocation
 * bigger than half the next block gets a block of its own from pq_calloc, which zeroes exactly it
 * (for free when the C library maps fresh pages). An arena told to expect 1.5 MiB or more
 * (arena_expect) starts with a 2 MiB block on a huge page: on this VM one huge page costs
 * 0.15-0.3 ms, 512 small pages 0.45-0.5 ms faulted in ahead. The largest heap or page block is
 * kept for the next arena of the thread (spare, below). */
#define _GNU_SOURCE /* madvise, MADV_NOHUGEPAGE */
#include "arena.h"
#include "alloc.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

struct arena_block {
    arena_block *next;
    size_t cap, used;
    size_t pages;     /* > 0: from pq_alloc_pages, this many bytes */
    size_t populated; /* bytes of data faulted in ahead (pq_populate), page-aligned end */
    int zeroed;       /* the data not yet handed out is zero (fresh calloc or pages) */
    int keep;         /* not a one-off: may become the spare */
    int huge;         /* an arena's first block on a huge page (arena_expect) */
    _Alignas(16) unsigned char data[];
};

enum {
    ARENA_FIRST_BLOCK = 16 << 10,
    ARENA_MAX_BLOCK = 2 << 20, /* header included: one 2 MiB page (pq_alloc_pages) */
    /* A block this big or bigger is faulted in at once (pq_populate): a fresh process
     * filled its heap page by page, 650 faults for the H100 module, ~0.35 ms. */
    ARENA_POPULATE_MIN = 64 << 10,
    ARENA_EXPECT_HUGE = 3 << 19 /* arena_expect from this on: the first block a huge page */
};

void arena_init(arena *a)
{
    memset(a, 0, sizeof *a);
}

void arena_expect(arena *a, size_t bytes)
{
    if (!a->head)
        a->expect = bytes;
}

/* The largest heap block (from pq_malloc) a released arena of this thread had, kept for the
 * next arena: a long-lived process that opens profile after profile does not hand its
 * biggest block back to the C library, whose heap would otherwise shrink (brk) and be
 * faulted in again every time (glibc trims a free top over its threshold: the H100 module
 * did so on every run, 500 page faults). At most ARENA_MAX_BLOCK per thread. */
static _Thread_local arena_block *spare;
/* A thread that ends frees its spare (a key's destructor; the main thread's goes at exit). */
static pthread_key_t spare_key;
static pthread_once_t spare_once = PTHREAD_ONCE_INIT;

static void block_free(arena_block *b)
{
    if (b && b->pages)
        pq_free_pages(b, b->pages);
    else
        pq_free(b);
}

static void spare_at_thread_exit(void *b)
{
    spare = NULL;
    block_free(b);
}

static void spare_key_create(void)
{
    pthread_key_create(&spare_key, spare_at_thread_exit);
}

static void spare_set(arena_block *b)
{
    spare = b;
    if (pthread_once(&spare_once, spare_key_create) == 0)
        pthread_setspecific(spare_key, b);
}

void arena_release(arena *a)
{
    arena_block *b = a->head;
    while (b) {
        arena_block *next = b->next;
        if (b->keep && (!spare || b->cap > spare->cap)) {
            block_free(spare);
            spare_set(b);
        } else {
            block_free(b);
        }
        b = next;
    }
    memset(a, 0, sizeof *a);
}

/* Faults in B's data ahead of use up to at least USED bytes: a step of the size faulted in
 * so far (64 KiB at least), so that a block that fills takes a few madvise calls and one
 * that does not is not zeroed whole by the kernel. */
static void populate_to(arena_block *b, size_t used)
{
    size_t step = b->populated > ARENA_POPULATE_MIN ? b->populated : ARENA_POPULATE_MIN;
    uintptr_t start = (uintptr_t)b->data + b->populated;
    uintptr_t want = (uintptr_t)b->data + (used > b->populated + step ? used : b->populated + step);
    uintptr_t end = (want + 4095) & ~(uintptr_t)4095, cap = (uintptr_t)b->data + b->cap;
    if (end > cap)
        end = cap;
    if (end > start)
        pq_populate((void *)start, end - start);
    b->populated = end - (uintptr_t)b->data;
}

/* A block with room for CAP bytes (NULL when out of memory); OWN: for one allocation;
 * SMALL_PAGES: an arena's first 2 MiB block, kept off huge pages (see the top). */
static arena_block *block_new(size_t cap, int own, int small_pages)
{
    size_t total = sizeof(arena_block) + cap;
    if (total < cap)
        return NULL;
    size_t pages = !own && total == ARENA_MAX_BLOCK ? total : 0;
    if (!own && spare && spare->cap >= cap) { /* the kept block, all of it */
        arena_block *b = spare;
        spare_set(NULL);
        b->used = 0;
        if (!b->pages) /* a page block's pages beyond populated were never touched */
            b->populated = b->cap;
        b->zeroed = 0; /* used before: each allocation is zeroed (arena_alloc) */
        return b;
    }
    /* calloc, not malloc and a memset of each allocation: in a fresh process the C library
     * hands out fresh pages (mmap, or the top of the heap) and skips the clearing; the H100
     * memory viewer's memsets were 1.2 M instructions, 6% of the process */
    arena_block *b = pages ? pq_alloc_pages(pages) : pq_calloc(1, total);
#ifdef MADV_NOHUGEPAGE
    if (b && pages && small_pages)
        madvise(b, pages, MADV_NOHUGEPAGE);
#endif
    if (b) {
        b->cap = cap;
        b->used = 0;
        b->pages = pages;
        b->zeroed = 1;
        b->keep = !own;
        /* a block under 64 KiB and a one-off allocation's are faulted in on demand */
        b->populated = own || total < ARENA_POPULATE_MIN ? cap : 0;
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
        /* the first block of an arena expecting much is a huge page; when it overflows,
         * blocks grow again from 64 KiB */
        int huge = !b && a->expect >= ARENA_EXPECT_HUGE;
        if (b && b->huge)
            next = ARENA_POPULATE_MIN;
        if (huge || next > ARENA_MAX_BLOCK - sizeof *b)
            next = ARENA_MAX_BLOCK - sizeof *b;
        int own = need > next / 2;
        arena_block *nb = block_new(own ? need : next, own,
                                    !huge && (!b || b->cap < ARENA_MAX_BLOCK - sizeof *b));
        if (!nb) {
            a->failed = 1;
            return NULL;
        }
        nb->huge = huge;
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
    if (b->used > b->populated)
        populate_to(b, b->used);
    if (!b->zeroed)
        memset(p, 0, n);
    return p;
}

void *arena_resize_last(arena *a, void *p, size_t old, size_t new)
{
    arena_block *b = a->head;
    size_t have = (old + 15) & ~(size_t)15, need = (new + 15) & ~(size_t)15;
    if (a->failed || !b || need < new || have < old ||
        (unsigned char *)p + have != b->data + b->used)
        return NULL;
    size_t start = (size_t)((unsigned char *)p - b->data); /* b->used - have */
    if (need > b->cap - start)
        return NULL;
    b->used = start + need;
    a->used_bytes = a->used_bytes - have + need;
    if (b->used > b->populated)
        populate_to(b, b->used);
    if (new > old && !b->zeroed) /* arena_alloc cleared only OLD bytes of the piece */
        memset((unsigned char *)p + old, 0, new - old);
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
