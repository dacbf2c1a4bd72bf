/* pairmap.h - a hash map from a pair of int64 keys to a uint32 value (a dense index the
 * caller owns): open addressing with linear probing, grown at half full. Used for
 * (pid, tid) -> track, (pid, 0) -> process name and counters keyed by two ids. */
#ifndef PQ_CORE_PAIRMAP_H
#define PQ_CORE_PAIRMAP_H
#include <stddef.h>
#include <stdint.h>

typedef struct pairmap {
    int64_t *ka, *kb;
    uint32_t *val; /* UINT32_MAX: empty slot */
    size_t nslots, n;
    int failed;
} pairmap;

void pairmap_free(pairmap *m);
/* A pointer to the value slot of (A, B); *fresh = 1 when it was just inserted (the slot
 * then holds UINT32_MAX for the caller to fill). NULL when memory ran out (sticky). */
uint32_t *pairmap_slot(pairmap *m, int64_t a, int64_t b, int *fresh);
/* The value of (A, B), or UINT32_MAX when absent. */
uint32_t pairmap_get(const pairmap *m, int64_t a, int64_t b);

#endif
