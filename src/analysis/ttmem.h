/* ttmem.h - per-op device memory analysis of a Tenstorrent log (spec section 3.6): peaks per
 * memory type, top DRAM growth, fragmentation, weights vs activations, tile padding, op
 * distribution, and one row of numbers per op. Pure: a tt_log in, the public result struct
 * pq_tt_memory (include/profq.h) out; renderers only format it. */
#ifndef PQ_ANALYSIS_TTMEM_H
#define PQ_ANALYSIS_TTMEM_H
#include "model/opmem.h"

enum { TTMEM_TOP = PQ_TT_TOP, TTMEM_DIST = PQ_TT_DIST };
_Static_assert((int)TT_NMEM == (int)PQ_TT_NMEM, "memory types of the reader and the result agree");

typedef pq_tt_memory ttmem_result;
typedef pq_tt_mem_stats ttmem_type_stats;
typedef pq_tt_count ttmem_count;

/* Analyses LOG into *OUT (rows allocated; ttmem_release). Returns PQ_ERR_NOMEM only. */
pq_status ttmem_analyze(const tt_log *log, ttmem_result *out);
void ttmem_release(ttmem_result *r);

/* Padding of PADDED over UNPADDED bytes in percent into *PCT; 0 when the ratio is not shown
 * (under PQ_TT_PAD_RATIO_MIN_BYTES unpadded), else 1. */
int ttmem_pad_ratio(uint64_t unpadded, uint64_t padded, double *pct);

#endif
