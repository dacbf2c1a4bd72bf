/* alloc.c - malloc wrapper with a failure-injection counter for allocation torture tests,
 * and overflow-checked array sizes (count * size).
 * Not an allocator: it forwards to libc. */
#define _GNU_SOURCE /* MAP_ANONYMOUS, MADV_HUGEPAGE */
#include "alloc.h"
#include "profq.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static atomic_long fail_countdown; /* 0 = never fail */

void pq_debug_fail_alloc_after(long n)
{
    atomic_store(&fail_countdown, n);
}

static int should_fail(void)
{
    long c = atomic_load(&fail_countdown);
    if (c <= 0)
        return 0;
    /* Once the counter reaches 1, this and every later allocation fails (sticky). */
    if (c == 1)
        return 1;
    atomic_fetch_sub(&fail_countdown, 1);
    return 0;
}

static int mul_overflows(size_t count, size_t size)
{
    return size && count > SIZE_MAX / size;
}

void *pq_malloc(size_t n)
{
    if (should_fail())
        return NULL;
    return malloc(n ? n : 1);
}

void *pq_calloc(size_t count, size_t size)
{
    if (should_fail())
        return NULL;
    if (mul_overflows(count, size))
        return NULL;
    return calloc(count ? count : 1, size ? size : 1);
}

void *pq_realloc(void *p, size_t n)
{
    if (should_fail())
        return NULL;
    return realloc(p, n ? n : 1);
}

void pq_free(void *p)
{
    free(p);
}

void *pq_malloc_array(size_t count, size_t size)
{
    return mul_overflows(count, size) ? NULL : pq_malloc(count * size);
}

void *pq_realloc_array(void *p, size_t count, size_t size)
{
    return mul_overflows(count, size) ? NULL : pq_realloc(p, count * size);
}

char *pq_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = pq_malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

void *pq_alloc_pages(size_t n)
{
    enum { HUGE = 2 << 20 };
    if (should_fail() || n > SIZE_MAX - HUGE)
        return NULL;
    uint8_t *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    if ((uintptr_t)p & (HUGE - 1)) { /* map more and keep an aligned middle */
        munmap(p, n);
        p = mmap(NULL, n + HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return NULL;
        size_t head = (HUGE - ((uintptr_t)p & (HUGE - 1))) & (HUGE - 1);
        if (head)
            munmap(p, head);
        munmap(p + head + n, HUGE - head);
        p += head;
    }
#ifdef MADV_HUGEPAGE
    madvise(p, n, MADV_HUGEPAGE);
#endif
    return p;
}

void pq_populate(void *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
    uintptr_t page = 4096, b = ((uintptr_t)p + page - 1) & ~(page - 1);
    uintptr_t e = ((uintptr_t)p + n) & ~(page - 1);
    if (e > b)
        madvise((void *)b, e - b, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)n;
#endif
}

void pq_free_pages(void *p, size_t n)
{
    if (p)
        munmap(p, n);
}
