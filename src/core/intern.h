/* intern.h - the string intern pool: each distinct byte string gets a dense uint32 id, in
 * order of first sight (id 0 is ""). Strings live NUL-terminated in one growing buffer,
 * found again through the one hash index, core/hmap.h (the id is its value). Out of memory is
 * sticky (pool->failed); a failed intern returns 0. */
#ifndef PQ_CORE_INTERN_H
#define PQ_CORE_INTERN_H
#include "core/hmap.h"

#include <stddef.h>
#include <stdint.h>

typedef struct intern_pool {
    char *chars;
    size_t nchars, capchars;
    size_t *off; /* id -> offset; id 0 is "" */
    uint32_t *len;
    uint32_t n, cap;
    pq_hmap index; /* hash of the bytes -> id */
    int failed;
} intern_pool;

/* 0, or -1 when memory ran out. */
int intern_init(intern_pool *pl);
void intern_free(intern_pool *pl);
/* The id of P[0..N) (P may point into the pool itself). Strings over 4 GiB are cut. */
uint32_t intern_add(intern_pool *pl, const char *p, size_t n);
uint32_t intern_cstr(intern_pool *pl, const char *s);

/* The NUL-terminated string of ID, and its length. */
static inline const char *intern_str(const intern_pool *pl, uint32_t id)
{
    return pl->chars + pl->off[id];
}
static inline uint32_t intern_len(const intern_pool *pl, uint32_t id)
{
    return pl->len[id];
}

#endif
