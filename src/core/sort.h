/* sort.h - the one sort of profq: a stable merge sort of an array of fixed-size elements
 * with a comparator that takes a context pointer (qsort_r is not C11, and qsort is not
 * stable). Runs of 16 are sorted by insertion, then merged bottom-up between the array and
 * a scratch array of the same size (moves are memcpy of a size known per call; 4, 8 and 16
 * bytes get constant-size copies). Not here: the tuned natural merge sort of
 * analysis/summary*, and the radix sort of hlo_sort_ids for large id arrays. */
#ifndef PQ_CORE_SORT_H
#define PQ_CORE_SORT_H
#include <stddef.h>
#include <string.h>

#if defined(__GNUC__)
#define PQ_SORT_INLINE static inline __attribute__((always_inline))
#else
#define PQ_SORT_INLINE static inline
#endif

/* Negative when A sorts before B, positive when after, 0 when equal (their order is kept). */
typedef int (*pq_cmp_fn)(const void *a, const void *b, void *ctx);

/* Sorts the N elements of SIZE bytes at BASE, stably, with TMP as scratch (room for N
 * elements; not read before, garbage after). Never allocates. */
void pq_sort_with(void *base, void *tmp, size_t n, size_t size, pq_cmp_fn cmp, void *ctx);

/* As pq_sort_with, with the scratch allocated through core/alloc.h. Returns 0, or -1 (BASE
 * unchanged) when N * SIZE overflows or memory runs out. */
int pq_sort(void *base, size_t n, size_t size, pq_cmp_fn cmp, void *ctx);

/* The implementation, inline: pq_sort_with instantiates it once for every size and
 * comparator; a hot caller may call pq_sort_inline itself with a constant SIZE and a
 * static comparator, which the compiler then inlines (as a hand-written typed sort). The
 * same algorithm either way, so the results are the same. */
enum { PQ_SORT_RUN = 16 };

PQ_SORT_INLINE void pq_sort_copy1_(char *dst, const char *src, size_t size)
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
PQ_SORT_INLINE void pq_sort_insertion_(char *v, size_t lo, size_t hi, size_t size, pq_cmp_fn cmp,
                                       void *ctx, char *save)
{
    for (size_t i = lo + 1; i < hi; i++) {
        size_t j = i;
        while (j > lo && cmp(v + (j - 1) * size, v + i * size, ctx) > 0)
            j--;
        if (j == i)
            continue;
        pq_sort_copy1_(save, v + i * size, size);
        memmove(v + (j + 1) * size, v + j * size, (i - j) * size);
        pq_sort_copy1_(v + j * size, save, size);
    }
}

/* Merges the sorted [lo, mid) and [mid, hi) of SRC into DST. Stable: on a tie the left
 * element goes first. */
PQ_SORT_INLINE void pq_sort_merge_(const char *src, char *dst, size_t lo, size_t mid, size_t hi,
                                   size_t size, pq_cmp_fn cmp, void *ctx)
{
    size_t i = lo, j = mid, k = lo;
    if (mid >= hi || cmp(src + (mid - 1) * size, src + mid * size, ctx) <= 0) {
        memcpy(dst + lo * size, src + lo * size, (hi - lo) * size); /* already in order */
        return;
    }
    while (i < mid && j < hi) {
        if (cmp(src + j * size, src + i * size, ctx) < 0)
            pq_sort_copy1_(dst + k++ * size, src + j++ * size, size);
        else
            pq_sort_copy1_(dst + k++ * size, src + i++ * size, size);
    }
    if (i < mid)
        memcpy(dst + k * size, src + i * size, (mid - i) * size);
    else if (j < hi)
        memcpy(dst + k * size, src + j * size, (hi - j) * size);
}

PQ_SORT_INLINE void pq_sort_inline(void *base, void *tmp, size_t n, size_t size, pq_cmp_fn cmp,
                                   void *ctx)
{
    if (n < 2 || size == 0)
        return;
    char *v = base, *t = tmp;
    for (size_t lo = 0; lo < n; lo += PQ_SORT_RUN)
        pq_sort_insertion_(v, lo, lo + PQ_SORT_RUN < n ? lo + PQ_SORT_RUN : n, size, cmp, ctx, t);
    char *src = v, *dst = t;
    for (size_t w = PQ_SORT_RUN; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            pq_sort_merge_(src, dst, lo, mid, hi, size, cmp, ctx);
        }
        char *x = src;
        src = dst;
        dst = x;
    }
    if (src != v)
        memcpy(v, src, n * size);
}

#endif
