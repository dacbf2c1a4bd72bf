/* ttmem.h - per-op device memory analysis of a Tenstorrent log (spec section 3.6): peaks per
 * memory type, top DRAM growth, fragmentation, weights vs activations, tile padding, op
 * distribution. Pure: a tt_log in, a result struct out; renderers print it. */
#ifndef PQ_ANALYSIS_TTMEM_H
#define PQ_ANALYSIS_TTMEM_H
#include "formats/ttlog.h"

enum { TTMEM_TOP = 10, TTMEM_DIST = 15 };

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
    /* Tile padding over the live tensors (DRAM) and the ops' outputs. */
    int has_padding;
    double peak_overhead_pct;
    size_t peak_overhead_op;
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
/* The op's short name: the MLIR op name after its last '.', else the OpType. */
pq_str ttmem_short_name(const tt_op *op);

#endif
