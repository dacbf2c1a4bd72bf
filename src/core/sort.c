/* sort.c - the stable merge sort of sort.h: insertion-sorted runs of 16, then bottom-up
 * merges that alternate between the array and the scratch array. Elements are moved with
 * memcpy of a size known per call; 4, 8 and 16 bytes (indexes, pointers, id/pointer pairs)
 * get constant-size copies the compiler turns into loads and stores. */
#include "core/sort.h"

#include "core/alloc.h"

#include <stdint.h>
#include <string.h>

enum { RUN = 16 };

static inline void copy1(char *dst, const char *src, size_t size)
{
    switch (size) {
    case 4:
        memcpy(dst, src, 4);
        break;
    case 8:
        memcpy(dst, src, 8);
        break;
    case 16:
        memcpy(dst, src, 16);
        break;
    default:
        memcpy(dst, src, size);
    }
}

/* Insertion sort of [lo, hi) of V; SAVE holds one element. Stable: an element moves left
 * only past elements that compare greater. */
static void insertion(char *v, size_t lo, size_t hi, size_t size, pq_cmp_fn cmp, void *ctx,
                      char *save)
{
    for (size_t i = lo + 1; i < hi; i++) {
        size_t j = i;
        while (j > lo && cmp(v + (j - 1) * size, v + i * size, ctx) > 0)
            j--;
        if (j == i)
            continue;
        copy1(save, v + i * size, size);
        memmove(v + (j + 1) * size, v + j * size, (i - j) * size);
        copy1(v + j * size, save, size);
    }
}

/* Merges the sorted [lo, mid) and [mid, hi) of SRC into DST. Stable: on a tie the left
 * element goes first. */
static void merge(const char *src, char *dst, size_t lo, size_t mid, size_t hi, size_t size,
                  pq_cmp_fn cmp, void *ctx)
{
    size_t i = lo, j = mid, k = lo;
    if (mid >= hi || cmp(src + (mid - 1) * size, src + mid * size, ctx) <= 0) {
        memcpy(dst + lo * size, src + lo * size, (hi - lo) * size); /* already in order */
        return;
    }
    while (i < mid && j < hi) {
        if (cmp(src + j * size, src + i * size, ctx) < 0)
            copy1(dst + k++ * size, src + j++ * size, size);
        else
            copy1(dst + k++ * size, src + i++ * size, size);
    }
    if (i < mid)
        memcpy(dst + k * size, src + i * size, (mid - i) * size);
    else if (j < hi)
        memcpy(dst + k * size, src + j * size, (hi - j) * size);
}

void pq_sort_with(void *base, void *tmp, size_t n, size_t size, pq_cmp_fn cmp, void *ctx)
{
    if (n < 2 || size == 0)
        return;
    char *v = base, *t = tmp;
    for (size_t lo = 0; lo < n; lo += RUN)
        insertion(v, lo, lo + RUN < n ? lo + RUN : n, size, cmp, ctx, t);
    char *src = v, *dst = t;
    for (size_t w = RUN; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            merge(src, dst, lo, mid, hi, size, cmp, ctx);
        }
        char *x = src;
        src = dst;
        dst = x;
    }
    if (src != v)
        memcpy(v, src, n * size);
}

int pq_sort(void *base, size_t n, size_t size, pq_cmp_fn cmp, void *ctx)
{
    if (n < 2 || size == 0)
        return 0;
    if (n > SIZE_MAX / size)
        return -1;
    void *tmp = pq_malloc(n * size);
    if (!tmp)
        return -1;
    pq_sort_with(base, tmp, n, size, cmp, ctx);
    pq_free(tmp);
    return 0;
}
