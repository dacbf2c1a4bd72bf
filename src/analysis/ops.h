/* ops.h - op metrics from device planes, as XProf's OpStats pipeline computes them
 * (spec/xprof-tools.md section 5): one row per (program, op) merged over devices and hosts,
 * the device peaks the planes state, and the captured/active/idle windows, into the public
 * pq_ops_result (include/profq.h). A pure function of the model (ops_core.c with the
 * extractors ops_tpu.c, ops_gpu.c, ops_cpu.c, the peaks ops_peaks.c, the rates ops_rates.c
 * and the groups, totals and program rates ops_derived.c); the renderers in render/ turn the result
 * into text, JSON and XProf's DataTables. */
#ifndef PQ_ANALYSIS_OPS_H
#define PQ_ANALYSIS_OPS_H
#include "core/arena.h"
#include "model/model.h"
#include "model/ops.h"

typedef struct ops_options {
    double peak_tflops; /* > 0 overrides the plane stats */
    double peak_hbm_gbps;
    int device_only; /* XProf's device tables: no XLA:CPU fallback (empty on CPU-only runs) */
    pq_ops_group by; /* PQ_OPS_BY_CATEGORY / PQ_OPS_BY_PROGRAM: fill result->groups */
} ops_options;

/* The op metrics of PROF into OUT, every row's rates filled; on error OUT holds nothing. */
pq_status ops_compute(const pq_profile *prof, const ops_options *opt, pq_ops_result *out,
                      pq_error *err);
/* ops_compute that also gives the model's ops it filled (model/ops.h) in OPS, an empty
 * model_ops the caller frees with model_ops_free (also on error). The texts it took from
 * the HloProtos (fused instructions, GPU expressions and sources) live in OUT's strings:
 * read OPS before ops_free(OUT). */
pq_status ops_compute_model(const pq_profile *prof, const ops_options *opt, pq_ops_result *out,
                            model_ops *ops, pq_error *err);
void ops_free(pq_ops_result *r);

/* Derived figures of row M against R's peaks (spec 5.6). */
void ops_rates(const pq_ops_result *r, const pq_op_row *m, pq_op_rates *out);
/* A / B, 0 when |B| < 1e-10. */
double ops_safe_div(double a, double b);
/* The orders of the result (qsort comparators, ops_core.c): rows with IDLE last, self time
 * descending, then name, program id, symbol id; programs by op self time descending, then
 * id. Used again when partial results are merged (ops_merge.c). */
int ops_row_order(const void *a, const void *b);
int ops_program_order(const void *a, const void *b);
/* The steady state of OUT's programs: the dominant program (the most module time among
 * those executed more than once) after its first execution per device; its op time scales
 * by its steady module-time share. Nothing when no program ran twice. */
void ops_steady_state(pq_ops_result *out);
/* GiB/s from GB/s. */
double ops_giga_to_gibi(double x);

/* The figures derived from R's merged rows (ops_derived.c): the ops (IDLE left out) grouped
 * BY category or program into R->groups, sorted by self time; the roofline totals; the
 * programs' and the steady state's rates. Every row's rates filled. 0 when out of memory. */
int ops_derive(pq_ops_result *r, pq_ops_group by);
/* Program PID of R, or NULL. */
const pq_ops_program *ops_program_find(const pq_ops_result *r, uint64_t pid);
/* The name of program PID in R, "" when R has none. */
pq_str ops_program_name(const pq_ops_result *r, uint64_t pid);
/* An infeed or outfeed category (XProf's roofline leaves these out of one record). */
int ops_is_infeed_outfeed(pq_str cat);

#endif
