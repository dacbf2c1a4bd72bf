/* ttmem.h - per-op device memory analysis of a Tenstorrent log (spec section 3.6): peaks per
 * memory type, top DRAM growth, fragmentation, weights vs activations, tile padding, op
 * distribution. Pure: a tt_log in, a result struct out; renderers print it. */
#ifndef PQ_ANALYSIS_TTMEM_H
#define PQ_ANALYSIS_TTMEM_H
#include "formats/ttlog.h"

enum { TTMEM_TOP = 10, TTMEM_DIST = 15 };
/* Padding is reported in bytes; its ratio to the unpadded bytes only from this many unpadded
 * bytes on (a 4x32 tensor padded to one 32x32 tile is +700%, which means nothing). */
#define TTMEM_PAD_RATIO_MIN_BYTES ((uint64_t)1 << 20)

typedef struct ttmem_type_stats {
    int present;
    double peak_mb, min_mb, avg_mb, capacity_mb;
    size_t peak_op; /* first op at the peak */
    int64_t num_banks;
} ttmem_type_stats;

typedef struct ttmem_count {
    pq_str name;
    uint64_t count;
} ttmem_count;

typedef struct ttmem_result {
    ttmem_type_stats type[TT_NMEM];
    int has_mem; /* some op has a memory state */
    /* Submit-shaped logs: the peak over every before/after submit block. */
    int has_submit_peak;
    double submit_peak_mb;
    size_t submit_peak; /* index into log->submits */
    /* DRAM growth vs the previous op (op 0: 0), largest first, positive only. */
    size_t growth_op[TTMEM_TOP];
    double growth_mb[TTMEM_TOP];
    size_t ngrowth;
    /* Fragmentation: the largest (free - largest contiguous free) per type and where. */
    double frag_mb[TT_NMEM];
    size_t frag_op[TT_NMEM];
    /* Weights (const-eval ops) vs activations, DRAM. */
    int has_weights;
    uint64_t weight_ops;
    double weights_baseline_mb; /* DRAM allocated at the first non-weight op */
    size_t baseline_op;
    /* Tile padding over the live tensors (DRAM): the op where padded - unpadded bytes is
     * largest (first such op), and the ops' outputs. */
    int has_padding;
    uint64_t peak_pad_bytes, peak_pad_unpadded;
    size_t peak_pad_op;
    size_t pad_op[TTMEM_TOP]; /* by output padded - unpadded bytes, largest first */
    size_t npad;
    ttmem_count dist[TTMEM_DIST];
    size_t ndist;
    uint64_t ndistinct;
} ttmem_result;

/* Analyses LOG. Returns PQ_ERR_NOMEM only. */
pq_status ttmem_analyze(const tt_log *log, ttmem_result *out);

/* DRAM allocated (MB/bank) change of op I vs op I-1 (0 for the first op). */
double ttmem_dram_delta(const tt_log *log, size_t i);
/* Weights / activations split of op I (seed's weight-vs-activation, DRAM MB/bank). */
void ttmem_weights_split(const tt_log *log, const ttmem_result *r, size_t i, double *weights,
                         double *activations);
/* Padding of PADDED over UNPADDED bytes in percent into *PCT; 0 when the ratio is not shown
 * (under TTMEM_PAD_RATIO_MIN_BYTES unpadded), else 1. */
int ttmem_pad_ratio(uint64_t unpadded, uint64_t padded, double *pct);
/* The op's short name: the MLIR op name after its last '.', else the OpType. */
pq_str ttmem_short_name(const tt_op *op);

#endif
