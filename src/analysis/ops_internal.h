/* ops_internal.h - what the op extractors (ops_tpu.c, ops_gpu.c, ops_cpu.c), the device
 * peaks (pq_ops_peaks.c) and the merge core (ops_core.c) share: the stat ids of a plane, the
 * stats of one event or metadata entry, the op table (the model's ops, model/ops.h, and
 * their metrics), the program table and the context one plane is merged into. Not part of the
 * library's API. */
#ifndef PQ_ANALYSIS_OPS_INTERNAL_H
#define PQ_ANALYSIS_OPS_INTERNAL_H
#include "analysis/ops.h"
#include "core/hmap.h"
#include "formats/xplane_opstats.h"
#include "formats/xplane_walk.h"
#include "model/ops.h"

/* The Program record's sums of R's ops into *D (ops_derived.c): infeed/outfeed left out
 * unless INCL (their time into *INFEED_PS). */
void ops_program_sum(const pq_ops_result *r, int incl, pq_op_row *d, int64_t *infeed_ps);
/* "(N)" at the end of a module name, as XProf falls back to. */
int ops_parse_paren_id(pq_str s, uint64_t *out);
int ops_str_same(pq_str a, pq_str b);

/* ---- the op table: the model's ops (model/ops.h) and their metrics (ops_core.c) ---- */

/* The metrics of one op (times, occurrences, summed event figures); its metadata is the
 * model op of the same index: both make its row when the result is made. */
typedef struct op_metrics {
    int64_t occurrences;
    int64_t time_ps, self_time_ps, min_time_ps, dma_stall_ps;
    double normalized_time_ps;
    double flops, model_flops, bytes_accessed; /* summed per event (custom calls, GPU, CPU) */
} op_metrics;

typedef struct op_slot {
    op_metrics m;
} op_slot;

typedef struct op_table {
    model_ops *model; /* the ops, filled as they are first met; index i <-> v[i] */
    op_slot *v;
    size_t cap;
    int oom;
} op_table;

/* Finds or inserts the op (PID, SID, NAME): its metrics slot, and its model op in *OP
 * (valid until the next insert); *fresh tells whether it is new. NULL when out of memory. */
op_slot *ops_table_get(op_table *t, uint64_t pid, uint64_t sid, pq_str name, model_op **op,
                       int *fresh);

typedef struct prog_table {
    pq_ops_program *v;
    size_t n, cap;
    int oom;
} prog_table;

/* Finds or adds the program PID; NULL on allocation failure. */
pq_ops_program *ops_prog_get(prog_table *t, uint64_t pid);
/* Names program P after MODULE, cut at its "(N)" suffix, unless P has a name. */
void ops_prog_name_from_module(pq_ops_program *p, pq_str module);

/* What one device plane is merged into. */
typedef struct ops_steps ops_steps;
typedef struct ops_ctx {
    op_table *ops;
    prog_table *progs;
    pq_ops_result *out;
    const ops_steps *steps; /* GPU step groups (ops_steps.c); NULL or inactive: none */
} ops_ctx;

/* Adds one device's windows (per-plane totals) to the result. */
void ops_add_device(pq_ops_result *out, int64_t span, int64_t plane_self, double plane_norm,
                    int64_t busy, int64_t module_ps);

/* ---- nesting on one thread (ops_core.c) ---- */

/* The head of a record of ops_nest: an event on one thread or stream. */
typedef struct ops_span {
    int64_t start, dur;
    int64_t children; /* out: time of the events directly inside */
    uint32_t order;   /* the tie-break after (start, longer first) */
} ops_span;

/* Sorts the N records at RECS (STRIDE bytes each, each starting with an ops_span) by
 * (start, longer first, order) and sums, through a stack of ancestors, each record's direct
 * children's time into its children field, and into *BUSY the union of the top-level
 * events. 0 when out of memory. XLA:CPU thunks and trace-JSON ops nest this way. */
int ops_nest(void *recs, size_t n, size_t stride, int64_t *busy);

/* ---- the extractors: each merges one device plane; 0 when out of memory ---- */

int ops_tpu_plane(const pq_source *src, const xp_plane *pl, ops_ctx *cx);
int ops_gpu_plane(const pq_source *src, const xp_plane *pl, ops_ctx *cx);
int ops_cpu_plane(const pq_source *src, const xp_plane *pl, ops_ctx *cx);
/* The ops of a trace-event JSON source's timeline for HW (ops_trace.c): XLA ops (CPU) or
 * GPU stream work; each process a device. */
int ops_trace_source(const pq_source *src, pq_ops_hw hw, ops_ctx *cx);
/* The kind of ops the profile's traces hold: CPU (XLA ops with hlo_op args), GPU (Kineto
 * GPU stream work), or NONE. */
pq_ops_hw ops_trace_hw(const pq_profile *prof);

/* Category, provenance and (on GPUs) cost figures of program PG's model ops from its
 * HloProto (ops_gpu.c); 0 when out of memory. */
int ops_annotate_from_hlo(model_ops *t, const pq_source *src, const pq_program *pg, int gpu,
                          arena *strings);

/* The fused instructions of program PG's TPU fusion ops (model ops) from its HloProto
 * (ops_fused.c), their text in STRINGS; 0 when out of memory. */
int ops_tpu_fused(model_ops *t, const pq_source *src, const pq_program *pg, arena *strings);
/* XLA's HloInstruction::ToCategory of an instruction (ops_gpu.c). */
pq_str ops_hlo_category(pq_str opcode, pq_str fusion_kind);

/* ---- device peaks and type (pq_ops_peaks.c) ---- */

/* Fills OUT's peaks, device_type and gpu_model from the capabilities of the first device V
 * (model/devices.h; NULL: it states none). */
void ops_peaks_from_device(const model_devices *d, const model_device *v, pq_ops_result *out);
/* Whether plane PL of SRC is a model device of KIND ("TPU", "GPU", "CPU": /host:CPU). */
int ops_plane_is(const pq_source *src, const xp_plane *pl, const char *kind);

#endif
