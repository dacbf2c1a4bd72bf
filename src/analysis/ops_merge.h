/* ops_merge.h - the partial of op metrics (issue 15 Deliver 2): what one process's
 * pq_ops_result holds that a merge over hosts needs (the summed rows, programs, windows and
 * the peaks of the first device), merged associatively, and turned back into the
 * pq_ops_result one process over all the sources computes. Serialized by api/partial_ops.c. */
#ifndef PQ_ANALYSIS_OPS_MERGE_H
#define PQ_ANALYSIS_OPS_MERGE_H
#include "analysis/ops_steps.h"
#include "core/arena.h"
#include "profq.h"

/* A row of a part: M's figures summed over the part's sources. SCALED: in the part's first
 * source the op is a TPU op whose FLOPs, bytes and breakdown are its metadata's
 * per-occurrence figures (PER) times its occurrences (ops_core.c's finalize), as one process
 * then scales the first source's metadata by all the occurrences; else one process sums. */
enum { OPS_PER_N = 10 }; /* flops, model_flops, bytes_accessed, bd_hbm .. bd_onchip_wr */
typedef struct ops_prow {
    pq_op_row m;
    int scaled;
    double per[OPS_PER_N];
    /* The paths of the first and the last source that has the row: its names, scaling and
     * per-occurrence figures are the first's, its HloProto names the last's. */
    pq_str first, last;
} ops_prow;

/* One GPU XSpace's steps (ops_steps.h): group ids and times, as drop_incomplete leaves them. */
typedef struct ops_part_host {
    pq_str path;
    int64_t *v; /* 3 per step: group id, begin, end (ps); in the part's host_mem */
    size_t nsteps;
} ops_part_host;

typedef struct ops_part {
    arena strings; /* every string of the part */
    /* The path of the first source (in the order one process reads them: sorted paths)
     * that has device planes of kind r.hw; "" when none. The peaks, device type and first
     * names of rows come from the part with the least key, as one process takes them from
     * its first device plane and the first occurrence of each op. */
    pq_str key;
    int has_key;
    /* The path of the part's last source: rows annotated from HloProtos take their names
     * from the part with the greatest (one process annotates from each source in turn, the
     * last one's HloProto last). */
    pq_str last;
    pq_str *paths; /* the distinct paths the rows' first and last point to */
    size_t npaths, cap_paths;
    /* hw, device_type, gpu_model, ndevices, device_planes, total_time_ps, total_op_time_ps,
     * normalized_total_op_time_ps, window_ps, has_modules, module_ps, busy_ps, peaks;
     * programs (counts and times). Nothing derived: rates, groups, steady state and
     * roofline are computed by ops_part_result. Its ops are ROWS instead (IDLE left out). */
    pq_ops_result r;
    ops_prow *rows;
    size_t nrows;
    int overflow; /* a merge summed past int64 (ops_part_merge then returns -1) */
    /* For XProf's tables (made with device planes only and GPU step groups: one process's
     * --format xprof): XSpaces read (XProf combines the op stats of several), whether some
     * source's GPU kernels were grouped by steps and whether a grouping rule profq lacks
     * applied to one (one process then groups none), and each GPU XSpace's well-formed
     * steps (the hosts' step intersection is taken at the result). */
    int xprof, steps_active, steps_unsupported;
    uint64_t xspaces;
    /* What the part's plane-less sources (trace JSON, read alone as their own kind) hold:
     * bit 1 << PQ_OPS_HW_CPU XLA op slices, 1 << PQ_OPS_HW_GPU GPU work slices; one process
     * reads them as the profile's kind. */
    uint64_t trace_kinds;
    ops_part_host *hosts; /* by path */
    size_t nhosts;
    arena host_mem; /* the hosts' paths and steps (kept when a part of a higher kind comes) */
    /* The TPU step counts (ops_steps_tpu_counts) of the part's XSpaces with TPU planes, in
     * path order, names in host_mem: ops_part_result makes roofline_model's TPU step records
     * of them as one process does (one XSpace's steps, or the hosts' step intersection). */
    ops_tpu_steps tpu;
} ops_part;

/* P from R (ops over the sources whose first with device planes is KEY, whose last is
 * LAST), strings copied. 0 when out of memory. */
int ops_part_from_result(ops_part *p, const pq_ops_result *r, pq_str key, int has_key, pq_str last);
/* Adds FROM into INTO (FROM unchanged): rows keyed by (program, symbol, name), programs by
 * id; the part of a lower device kind than the other's is dropped, as one process reads
 * only the planes of the highest kind. 1, or 0 when out of memory, or -1 when a sum leaves
 * int64 (INTO is then not to be used). */
int ops_part_merge(ops_part *into, const ops_part *from);
/* Whether the times and counts of P's rows, and of its programs, sum within int64 (what
 * the groupings and totals computed from them add up). */
int ops_part_sums_fit(const ops_part *p);
/* The pq_ops_result of P as pq_ops_compute computes it (OPTS: by and the peak overrides;
 * NULL for defaults). Free with pq_ops_result_free. */
pq_status ops_part_result(const ops_part *p, const pq_ops_options *opts, pq_ops_result *out,
                          pq_error *err);
void ops_part_free(ops_part *p);
/* Appends a copy of host H to P's hosts, in path order; 0 when out of memory. */
int ops_part_add_host(ops_part *p, const ops_part_host *h);
/* Copies the fused instructions of ROW (preorder subtrees, op_profile's) into A; 0 when out
 * of memory. */
int ops_part_own_fused(arena *a, pq_op_row *row);
/* The number of entries of the preorder subtrees of the N fused instructions at F. */
size_t ops_fused_entries(const pq_fused_op *f, uint32_t n);

#endif
