/* sort.c - the out-of-line entry points of the stable merge sort of sort.h (the algorithm
 * is pq_sort_inline there): one generic instance, and the scratch allocation. */
#include "core/sort.h"

#include "core/alloc.h"

#include <string.h>

void pq_sort_with(void *base, void *tmp, size_t n, size_t size, pq_cmp_fn cmp, void *ctx)
{
    pq_sort_inline(base, tmp, n, size, cmp, ctx);
}

int pq_sort(void *base, size_t n, size_t size, pq_cmp_fn cmp, void *ctx)
{
    if (n < 2 || size == 0)
        return 0;
    void *tmp = pq_malloc_array(n, size); /* NULL when n * size overflows */
    if (!tmp)
        return -1;
    pq_sort_with(base, tmp, n, size, cmp, ctx);
    pq_free(tmp);
    return 0;
}
