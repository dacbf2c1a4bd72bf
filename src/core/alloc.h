/* alloc.h - the one allocation wrapper; every heap allocation in libprofq goes through it
 * so tests can fail the Nth allocation (pq_debug_fail_alloc_after). */
#ifndef PQ_CORE_ALLOC_H
#define PQ_CORE_ALLOC_H
#include <stddef.h>

void *pq_malloc(size_t n);
void *pq_calloc(size_t count, size_t size);
void *pq_realloc(void *p, size_t n);
void pq_free(void *p);

#endif
