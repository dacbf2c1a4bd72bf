/* summary.h - profile_summary.v1 (spec/seed-tools.md section 1): the seed tool's summary
 * of a trace, computed from complete events that a reader feeds in.
 *
 * Readers (trace JSON, XPlane) fill the model's slices (model/slices.h) through the event
 * interface; sm_compute runs every analysis of the spec (exclusive time, categories,
 * breakdowns, steps and classes, hot ops, families, collectives, pre-op gaps, regions,
 * gap contexts, op-region aggregates, quality, candidates) into result structs;
 * render/summary_write.c writes the document from them (sm_write), byte-compatibly with the
 * seed's Python.
 * Times are kept as int64 picoseconds relative to the first event and reported in the
 * trace's units (microseconds), as the seed does. Pure: no I/O, no environment. */
#ifndef PQ_ANALYSIS_SUMMARY_H
#define PQ_ANALYSIS_SUMMARY_H
#include "core/arena.h"
#include "model/slices.h"
#include "profq.h"

#include <stdint.h>

typedef struct sm_options {
    int warmup_steps;     /* 5 */
    int hot_op_limit;     /* 25 */
    int global_breakdown; /* 0: exclusive_per_track, 1: exclusive_global */
    /* run_metadata the caller knows (a W&B download); NULL: null. */
    const char *run_path, *run_id, *artifact_ref, *artifact_name;
} sm_options;

typedef struct sm_source {
    const char *source_format; /* "perfetto_trace_json" | "xplane_pb" */
    const char *source_path;
    const char *sha256;            /* hex of the file bytes as stored */
    const char *display_time_unit; /* NULL: null */
    uint64_t num_events_total;
    const char *generated_at_utc;
    const char *const *extra_warnings; /* NULL-terminated, may be NULL */
} sm_source;

/* A computed summary: every section as result structs (pq_summary_result,
 * include/profq.h). */
typedef struct sm_result {
    pq_summary_result r;
    arena mem; /* r's rows and strings */
} sm_result;

/* Computes the summary of the slices of M into OUT. M is read only: the strings the
 * summary derives (canonical names, paths, signatures) go to a pool of its own that starts
 * as a copy of M's, and what is not GPU work on GPU tracks (Kineto gpu_user_annotation
 * ranges, cuda_sync records) is left out of the time and op sections through a view (a
 * bit per slice, summary_view.c), not dropped from M's columns. So M may be a profile's
 * pq_source.slices that other analyses read before or after, and computing twice gives
 * the same result. OUT's strings are its own (its arena). 0, or -1 when memory ran out
 * (OUT is then empty). Free with sm_result_free. */
int sm_compute(const model_slices *m, const sm_options *opts, const sm_source *src, sm_result *out);
void sm_result_free(sm_result *r);

/* Helpers of the spec, exposed for tests. OUT gets a NUL-terminated string. */
void sm_canonical_op_name(const char *name, size_t n, char *out, size_t cap);
const char *sm_collective_kind(const char *name);
const char *sm_semantic_family(const char *text);
void sm_shape_signature(const char *long_name, size_t n, char *out, size_t cap);
/* estimate_flop_proxy(family, signature); -1 stands for the seed's None. */
double sm_flop_proxy(const char *family, const char *signature);

#endif
