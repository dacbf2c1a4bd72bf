/* counter.h - a counter over (key, value) pairs of int64, as Python's collections.Counter
 * of tuples: a count and a float weight per pair, rows in first-seen order (row r is the
 * r-th distinct pair), so "most common, ties first seen" is a scan of the rows. Out of
 * memory is sticky (failed). Not thread-safe; a zeroed counter is empty. */
#ifndef PQ_CORE_COUNTER_H
#define PQ_CORE_COUNTER_H
#include "core/pairmap.h"

#include <stddef.h>
#include <stdint.h>

typedef struct counter {
    pairmap map; /* (key, value) -> row */
    int64_t *key, *value;
    uint64_t *count;
    double *weight;
    uint32_t n, cap;
    int failed;
} counter;

void counter_free(counter *c);
/* Adds N to the count and W to the weight of (KEY, VALUE). */
void counter_add(counter *c, int64_t key, int64_t value, uint64_t n, double w);
/* OUT[key] gets the row of KEY's most common value (ties: first seen), UINT32_MAX when
 * KEY has none, for keys 0..NKEYS-1; rows whose key is outside that range are skipped. */
void counter_most_common(const counter *c, uint32_t *out, size_t nkeys);

#endif
