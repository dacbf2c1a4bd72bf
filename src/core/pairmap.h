/* pairmap.h - a hash map from a pair of int64 keys to a uint32 value (a dense index the
 * caller owns): a thin typed layer over the one hash index, core/hmap.h, with the entries
 * (keys and value) in one array in order of insertion. Used for (pid, tid) -> track,
 * (pid, 0) -> process name and counters keyed by two ids. Zero-initialise before use. */
#ifndef PQ_CORE_PAIRMAP_H
#define PQ_CORE_PAIRMAP_H
#include "core/hmap.h"

#include <stddef.h>
#include <stdint.h>

typedef struct pairmap_entry {
    int64_t a, b;
    uint32_t val;
} pairmap_entry;

typedef struct pairmap {
    pq_hmap index;    /* hash of (a, b) -> entry */
    pairmap_entry *e; /* entries in order of insertion */
    size_t n, cap;    /* entries held, room */
    int failed;       /* memory ran out (sticky) */
} pairmap;

void pairmap_free(pairmap *m);
/* A pointer to the value of (A, B), valid until the next pairmap_slot; *fresh = 1 when it
 * was just inserted (the value then holds UINT32_MAX for the caller to fill). NULL when
 * memory ran out (sticky). */
uint32_t *pairmap_slot(pairmap *m, int64_t a, int64_t b, int *fresh);
/* The value of (A, B), or UINT32_MAX when absent. */
uint32_t pairmap_get(const pairmap *m, int64_t a, int64_t b);

#endif
