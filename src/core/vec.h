/* vec.h - the one growable array of profq: PQ_VEC_DEFINE(name, T) defines a type NAME
 * { T *v; size_t n, cap; } and static inline functions to grow it (doubling, at least 8),
 * push onto it (a value, or a zeroed element to fill in place) and free it. Every growth is
 * checked: against a hard maximum of elements the caller states (an input cannot make it grow
 * without bound), against size_t overflow of cap * sizeof(T), and allocation goes through
 * core/alloc.h (so tests can fail it). On failure the array is left as it was. Zero-initialise a
 * NAME before use: PQ_VEC_DEFINE(i64_vec, int64_t)   (no semicolon after it) i64_vec ids = {0}; if
 * (i64_vec_push(&ids, 42, 1u << 20) != 0) ...out of memory or over the maximum...
 *     i64_vec_free(&ids);
 * Not here: arenas (core/arena.h) for memory freed all at once. */
#ifndef PQ_CORE_VEC_H
#define PQ_CORE_VEC_H
#include "core/alloc.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The capacity to grow CAP to for NEED elements of SIZE bytes, at most MAX: doubled, at
 * least 8 and at least NEED. 0 when NEED exceeds MAX or the bytes overflow size_t. */
static inline size_t pq_vec_next_cap(size_t cap, size_t need, size_t size, size_t max)
{
    if (need > max || size == 0)
        return 0;
    size_t c = cap < 4 ? 8 : cap <= SIZE_MAX / 2 ? cap * 2 : SIZE_MAX;
    if (c < need)
        c = need;
    if (c > max)
        c = max;
    if (c > SIZE_MAX / size)
        return 0;
    return c;
}

#define PQ_VEC_DEFINE(name, T)                                                                     \
    typedef struct name {                                                                          \
        T *v;                                                                                      \
        size_t n, cap;                                                                             \
    } name;                                                                                        \
    /* Room for NEED elements in all. 0, or -1 (unchanged) over MAX or out of memory. */           \
    static inline int name##_reserve(name *a, size_t need, size_t max)                             \
    {                                                                                              \
        if (need <= a->cap)                                                                        \
            return 0;                                                                              \
        size_t c = pq_vec_next_cap(a->cap, need, sizeof(T), max);                                  \
        T *p = c ? (T *)pq_realloc_array(a->v, c, sizeof(T)) : NULL;                               \
        if (!p)                                                                                    \
            return -1;                                                                             \
        a->v = p;                                                                                  \
        a->cap = c;                                                                                \
        return 0;                                                                                  \
    }                                                                                              \
    /* Appends X. 0, or -1 (unchanged) when the array holds MAX already or memory ran out. */      \
    static inline int name##_push(name *a, T x, size_t max)                                        \
    {                                                                                              \
        if (a->n == a->cap && (a->n == SIZE_MAX || name##_reserve(a, a->n + 1, max) != 0))         \
            return -1;                                                                             \
        a->v[a->n++] = x;                                                                          \
        return 0;                                                                                  \
    }                                                                                              \
    /* Appends one zeroed element and returns it (valid until the next growth); NULL               \
     * (unchanged) when the array holds MAX already or memory ran out. */                          \
    static inline T *name##_add(name *a, size_t max)                                               \
    {                                                                                              \
        if (a->n == a->cap && (a->n == SIZE_MAX || name##_reserve(a, a->n + 1, max) != 0))         \
            return NULL;                                                                           \
        T *e = &a->v[a->n++];                                                                      \
        memset(e, 0, sizeof *e);                                                                   \
        return e;                                                                                  \
    }                                                                                              \
    /* Frees the elements and zeroes A (it can be used again). */                                  \
    static inline void name##_free(name *a)                                                        \
    {                                                                                              \
        pq_free(a->v);                                                                             \
        a->v = NULL;                                                                               \
        a->n = a->cap = 0;                                                                         \
    }

#endif
