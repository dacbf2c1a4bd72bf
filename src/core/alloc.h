/* alloc.h - the one allocation wrapper; every heap allocation in libprofq goes through it
 * so tests can fail the Nth allocation (pq_debug_fail_alloc_after). */
#ifndef PQ_CORE_ALLOC_H
#define PQ_CORE_ALLOC_H
#include <stddef.h>

void *pq_malloc(size_t n);
void *pq_calloc(size_t count, size_t size);
void *pq_realloc(void *p, size_t n);
void pq_free(void *p);
/* COUNT elements of SIZE bytes: NULL, nothing allocated, when COUNT * SIZE overflows size_t.
 * Use these (or pq_calloc) wherever an allocation size is a count times a size. */
void *pq_malloc_array(size_t count, size_t size);
/* Resizes P to COUNT elements of SIZE bytes; on NULL (overflow or out of memory) P is intact. */
void *pq_realloc_array(void *p, size_t count, size_t size);
/* A pq_malloc'd copy of the NUL-terminated S (free with pq_free); NULL when out of memory. */
char *pq_strdup(const char *s);
/* N bytes (a multiple of 2 MiB) of fresh zeroed pages aligned to 2 MiB, which the kernel
 * may back with huge pages (one fault per 2 MiB instead of 512); NULL when out of memory.
 * Freed by pq_free_pages with the same N. */
void *pq_alloc_pages(size_t n);
/* Faults in the whole pages of [P, P+N) for writing in one system call (MADV_POPULATE_WRITE,
 * Linux 5.14; a no-op where it is missing or fails): about 0.4 us a page on this VM against
 * 1.3 to 6 us for a page faulted in by its first write (docs/internals/speed.md). */
void pq_populate(void *p, size_t n);
void pq_free_pages(void *p, size_t n);

#endif
