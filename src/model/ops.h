/* ops.h - the model's ops (DESIGN.md §2): per (program, op), what the input states about
 * the op, shared by all its executions: HLO op name, category, framework op path
 * (provenance: tf_op / op_name, with its op_type), source location and stack, and the
 * FLOPs, bytes and memory-access breakdown per occurrence where the input states them
 * (event metadata on TPUs; XLA's cost analysis of the HloProto on GPUs), and on TPU fusions
 * their fused instructions. An op is keyed by (program id, symbol id, name): TPU ops by
 * (program, symbol), GPU, CPU and trace-JSON ops (symbol 0) by (program, HLO op name).
 *
 * Kept on the source (pq_source.ops, freed with the profile) and filled by its reader with
 * what the input states, through model_ops_state: the XPlane reader states at load every
 * op of a TensorCore plane's event metadata (program_id, symbol_id, name, hlo_category,
 * tf_op, deduplicated_name, source, source_stack, flops, model_flops, bytes_accessed,
 * memory_access_breakdown: formats/xplane_ops.c), reading metadata only (no event, no
 * HloProto), and links each metadata entry to its op (xp_plane.emeta_op). A source with a
 * timeline from its reader (trace JSON, nsys) states at load the ops its slices name (JAX's
 * XLA ops by (hlo_module, name), Kineto's stream work by (stream, name): model/slices.h's
 * slices_state_ops) and links each slice to its op (model_slices.op). The XPlane reader
 * also states the ops of its GPU kernels and XLA:CPU thunks, keyed by (program, hlo_op)
 * from their per-event stats, read during the walk that validates the lines
 * (formats/xplane_xla.c), each event linked to its stats and op (xp_line.xla).
 *
 * The op analyses (analysis/ops_*.c) copy the stated ops into the table one computation
 * fills, profile-wide over its sources, as they meet them. What is derived from the HloProto
 * (category, provenance and costs on GPUs, TPU fusions' fused instructions) stays a lazy enrichment
 * the op analyses make on first use, into their table, so that `info` decodes no HloProto. Not
 * here: the times of executions (the op analyses' metrics, analysis/ops_core.c). */
#ifndef PQ_MODEL_OPS_H
#define PQ_MODEL_OPS_H
#include "core/hmap.h"
#include "profq.h"

#include <stddef.h>
#include <stdint.h>

/* memory_access_breakdown per occurrence (bytes), as pq_op_row's bd_* fields. */
typedef struct model_op_breakdown {
    double bd_hbm, bd_cmem_rd, bd_cmem_wr, bd_vmem_rd, bd_vmem_wr, bd_onchip_rd, bd_onchip_wr;
    int has_breakdown;
} model_op_breakdown;

typedef struct model_op {
    uint64_t program_id, symbol_id; /* symbol 0: keyed by name */
    pq_str name, long_name, category, provenance, op_type, dedup_name;
    pq_str source, source_stack;
    double flops, model_flops, bytes; /* per occurrence, as the event metadata states */
    /* per occurrence from the HloProto's cost analysis; 0 when it gives none */
    double cost_flops, cost_model_flops, cost_bytes;
    model_op_breakdown bd;
    int custom_call;          /* the figures come per event (summed), not per occurrence */
    int provenance_from_hlo;  /* category, provenance and op_type from the HloProto */
    const pq_fused_op *fused; /* TPU fusions: the fused instructions (preorder) */
    uint32_t nfused;          /* direct children */
} model_op;

typedef struct model_ops {
    model_op *v; /* in the order first met */
    size_t n, cap;
    pq_hmap map; /* (program, symbol, name) -> v index */
    int oom;     /* sticky: memory ran out */
} model_ops;

/* Finds or adds the op (PID, SID, NAME); *FRESH tells which (a fresh op holds only its
 * key). NAME must outlive T. The pointer is valid until the next add. NULL when out of
 * memory. */
model_op *model_ops_get(model_ops *t, uint64_t pid, uint64_t sid, pq_str name, int *fresh);
/* The op NAME (symbol 0) of program PID, or NULL. */
model_op *model_ops_find(const model_ops *t, uint64_t pid, pq_str name);
/* The op (PID, SID, NAME), or NULL. */
model_op *model_ops_lookup(const model_ops *t, uint64_t pid, uint64_t sid, pq_str name);
/* The op the input states (STATED: its key and what the reader read) into T when T has
 * none of that key yet (the first statement wins, as XProf takes an op's metadata from the
 * first event met); the op's index either way, or SIZE_MAX when out of memory. The texts
 * must outlive T (views into the source's mapped file). */
size_t model_ops_state(model_ops *t, const model_op *stated);
/* The index of the first op of program PID at or after FROM, or T->n when none is. */
size_t model_ops_next(const model_ops *t, uint64_t pid, size_t from);
void model_ops_free(model_ops *t);

#endif
