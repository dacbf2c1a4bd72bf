/* sort.h - the one sort of profq: a stable merge sort of an array of fixed-size elements
 * with a comparator that takes a context pointer (qsort_r is not C11, and qsort is not
 * stable). Runs of 16 are sorted by insertion, then merged bottom-up between the array and
 * a scratch array of the same size. Not here: the tuned natural merge sort of
 * analysis/summary*, and the radix sort of hlo_sort_ids for large id arrays. */
#ifndef PQ_CORE_SORT_H
#define PQ_CORE_SORT_H
#include <stddef.h>

/* Negative when A sorts before B, positive when after, 0 when equal (their order is kept). */
typedef int (*pq_cmp_fn)(const void *a, const void *b, void *ctx);

/* Sorts the N elements of SIZE bytes at BASE, stably, with TMP as scratch (room for N
 * elements; not read before, garbage after). Never allocates. */
void pq_sort_with(void *base, void *tmp, size_t n, size_t size, pq_cmp_fn cmp, void *ctx);

/* As pq_sort_with, with the scratch allocated through core/alloc.h. Returns 0, or -1 (BASE
 * unchanged) when N * SIZE overflows or memory runs out. */
int pq_sort(void *base, size_t n, size_t size, pq_cmp_fn cmp, void *ctx);

#endif
