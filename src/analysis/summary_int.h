/* summary_int.h - what the files of the profile_summary.v1 analysis share; not public.
 * The summary's view of the tracks (sm_builder), the build context handed from section
 * to section (ctx: exclusive times, event order, name flags, per-name caches, and the few
 * results that later sections read, such as the breakdown shares for the candidates),
 * the sorts, the aggregate rows, and the small per-event helpers that the hot loops of
 * several sections call (static inline here so that every file inlines them).
 * Files: summary.c (sm_compute, the order of the sections, aggregate rows), summary_names.c
 * (1.3, 1.6, 1.10, 1.14 parts), summary_time.c (sorts, 1.4, 1.5, 1.7), summary_steps.c
 * (1.8), summary_hotops.c (1.9, 1.11, 1.12), summary_gaps.c (1.13, 1.15),
 * summary_regions.c (1.14, 1.16), summary_quality.c (overview, provenance, 1.17, 1.18),
 * summary_view.c (GPU annotations and other non-work on GPU tracks left out). */
#ifndef PQ_ANALYSIS_SUMMARY_INT_H
#define PQ_ANALYSIS_SUMMARY_INT_H
#include "analysis/summary.h"
#include "core/counter.h"
#include "core/pairmap.h"

#include <stdint.h>
#include <string.h>

#define PS_PER_US 1000000.0

/* ---------------------------------------------------------------------------------------
 * The summary's view of the model's slices: each track with its classes (spec 1.4). */

typedef struct track {
    int64_t pid, tid;
    int has_kernel;
    int device, host, device_op, steps;
} track;

typedef struct sm_builder {
    const model_slices *m; /* the timeline, read only: the profile's own slices */
    /* The summary's own pool: M's names under the same ids (a copy), then the strings the
     * summary derives (canonical names, paths, signatures), interned after them. */
    intern_pool *names;
    track *tracks;
    uint32_t ntracks;
    int cpu_ops; /* no device-op track: XLA ops on host threads stand in for device ops */
    int kineto;  /* no /device: or /host: process: GPU processes are the ones with kernels */
    /* The work view (summary_view.c): one bit per slice of M, set where the slice is left
     * out of the time and op sections (NULL: none is, as before sm_leave_out), and how
     * many slices are not. */
    const uint64_t *left_out;
    size_t nwork;
} sm_builder;

/* A GPU annotation range (Kineto gpu_user_annotation) as a region window of 1.16: its path
 * is the names of the annotations enclosing it on its track and its own joined by "=>",
 * its depth their number (summary_view.c). */
typedef struct sm_annot {
    int64_t start_ps, dur_ps;
    uint32_t path, track;
    int depth;
} sm_annot;

/* Per-name caches of the op sections (sized for the pool as it was when they started;
 * names interned later are computed each time). */
typedef struct opstate {
    uint32_t npool;
    uint32_t *sig_of_long;       /* long_name id -> signature id */
    uint32_t *path_tf, *path_nm; /* cache: tf_op id / name id -> path id (+1), 0 unknown */
    uint8_t *depth_tf, *depth_nm;
    uint8_t *name_sep; /* name id -> 1 + (the name holds "=>" or "::"), 0 unknown */
} opstate;

/* The categories of 1.6, in the order of PQ_SM_COMPUTE.. (include/profq.h). */
enum { CAT_COMPUTE, CAT_COMM, CAT_HOST, CAT_STALL, CAT_OTHER };

typedef struct ctx {
    sm_builder *b;
    sm_result *res; /* the result structs being filled */
    const sm_options *o;
    int64_t *excl;       /* per slice of b->m (0 for those left out) */
    uint32_t *order;     /* the work view's events (b->nwork) by (track, ts, -end) */
    uint8_t *name_flags; /* per name id: 1 stall, 2 comm */
    double total;        /* breakdown total (trace units) */
    double shares[5];
    opstate s;
    size_t hot_limit, big_limit; /* rows of hot_ops; of gaps, contexts and regions */
    uint32_t *go;                /* device-op events by (track, ts, end) */
    size_t ng;
    sm_annot *ann; /* GPU annotation windows, by (track, start, longest first) */
    size_t nann;
    uint64_t *left_bits; /* the storage of b->left_out */
    /* Read by the candidates (1.18). Names are copies: the pool may move. */
    double steady_median, steady_p90;
    size_t nsteady, nhot;
    char top_hot_name[1024];
    double top_hot_excl;
    const char *top_collective;
    double top_gap_total, top_gap_max;
    char top_gap_name[512];
} ctx;

/* ---------------------------------------------------------------------------------------
 * Tracks and sorting (summary_time.c). */

/* Name of process PID, "" when none was given. */
const char *sm_pname(const sm_builder *b, int64_t pid);

typedef struct srec {
    int64_t t;
    uint32_t idx;
    uint32_t kind; /* SORT_POINTS: the tie-break before idx */
} srec;

enum { SORT_END_DESC, SORT_END_ASC, SORT_POINTS };

/* Sorts A[0..n) in MODE's order, TMP is scratch of N records. */
void sm_srec_sort(const sm_builder *b, int mode, srec *a, srec *tmp, size_t n);
/* Sorts the event indices IDX[0..n) (ascending on entry) by (track, ts, end, index). */
int sm_sort_by_track(const sm_builder *b, int mode, uint32_t *idx, size_t n);

/* ---------------------------------------------------------------------------------------
 * Aggregate rows (summary.c). */

typedef struct agg {
    uint32_t name;
    uint64_t count;
    int64_t total, excl;
    double dtotal; /* float totals where the seed sums floats */
    double key2;
    uint32_t aux, aux2;
} agg;

/* The orders of the spec's aggregate lists. */
enum { AGG_HOT, AGG_GAP, AGG_CTX, AGG_REGION, AGG_OPREG };

/* Appends a zeroed row {NAME, AUX} to *ARR (N rows, room for CAP) and stores its index in
 * *SLOT. NULL when memory ran out. */
agg *sm_agg_new(agg **arr, size_t *n, size_t *cap, uint32_t *slot, uint32_t name, uint32_t aux);
/* Sorts A[0..n) in ORDER (AGG_*); names are compared as strings of POOL. */
void sm_agg_sort(const intern_pool *pool, agg *a, size_t n, int order);
/* A copy of S owned by the result (NULL stays NULL); of pool string ID (0, UINT32_MAX:
 * NULL). NULL also when memory ran out (sticky in the result's arena). */
const char *sm_keep(ctx *c, const char *s);
const char *sm_keep_id(ctx *c, uint32_t id);

/* ---------------------------------------------------------------------------------------
 * The sections, in the order sm_compute runs them (the order matters: later sections
 * intern strings, and read what earlier ones left in ctx). Each fills its part of
 * ctx->res->r and returns 0, or -1 when memory ran out. */

int sm_name_flags(ctx *c);                             /* summary_names.c */
int sm_exclusive(ctx *c);                              /* summary_time.c: order, excl (1.5) */
void sm_classify_tracks(sm_builder *b);                /* summary_time.c (1.4) */
int sm_trace_overview(ctx *c, const sm_source *src);   /* summary_quality.c */
int sm_trace_provenance(ctx *c, const sm_source *src); /* summary_quality.c */
int sm_step_time(ctx *c);                              /* summary_steps.c (1.8) */
int sm_time_breakdown(ctx *c);                         /* summary_time.c (1.7) */
int sm_hot_ops(ctx *c);                                /* summary_hotops.c (1.9, 1.11) */
int sm_collectives(ctx *c);                            /* summary_hotops.c (1.12) */
int sm_gaps(ctx *c);                                   /* summary_gaps.c (1.13, 1.15) */
int sm_hierarchical_regions(ctx *c);                   /* summary_regions.c (1.14) */
int sm_op_region_aggregates(ctx *c);                   /* summary_regions.c (1.16) */
int sm_candidates(ctx *c);                             /* summary_quality.c (1.18) */

/* Leaves out of the time and op sections what is not GPU work (summary_view.c):
 * annotation slices anywhere, and on a Kineto GPU process every slice that is not a
 * kernel, memcpy or memset. The slices stay as they are: C->b->left_out marks those left
 * out (C->b->nwork counts the rest) and every later section skips them (sm_work); the
 * annotations become C->ann first. Needs the classified tracks. 0, or -1 when memory ran
 * out (C->left_bits is C->b->left_out's storage, freed with the context). */
int sm_leave_out(ctx *c);

/* ---------------------------------------------------------------------------------------
 * Names (summary_names.c). */

const char *sm_op_category(uint8_t name_flags);
/* How many semantic families sm_semantic_family knows (the "other" one included). */
size_t sm_nfamilies(void);
/* Builds the parts path of an event into OUT as "a=>b=>c"; *depth = number of parts;
 * *fallback = 1 when the parts came from the op name alone (spec 1.14). */
void sm_event_parts(const char *tf_op, const char *name, char *out, size_t cap, int *depth,
                    int *fallback);
uint32_t sm_sig_id_slow(sm_builder *b, opstate *s, uint32_t ln);
uint32_t sm_event_path_slow(sm_builder *b, opstate *s, uint32_t e, int *depth);
/* The first MAXD parts of PATH joined by "=>". */
uint32_t sm_path_prefix(sm_builder *b, uint32_t path, int maxd);

/* ---------------------------------------------------------------------------------------
 * Per-event helpers of the hot loops. */

static inline double us_of(int64_t ps)
{
    return (double)ps / PS_PER_US;
}

/* Whether slice E is in the work view: not left out by sm_leave_out. The loops of the
 * sections after it that go over every slice test it; those that go over C->order or
 * C->go need not (they hold only slices of the view). */
static inline int sm_work(const sm_builder *b, size_t e)
{
    return !b->left_out || !((b->left_out[e >> 6] >> (e & 63)) & 1);
}

/* A device op event (spec 1.4); on a CPU-only run, an XLA op on a host thread. */
static inline int dev_op(const sm_builder *b, size_t e)
{
    return b->tracks[b->m->track[e]].device_op || (b->cpu_ops && (b->m->flags[e] & SLICE_XLA_OP));
}

/* Whether the name NM holds a path separator ("=>" or "::"), once per name. */
static inline int name_has_sep(const sm_builder *b, opstate *s, uint32_t nm)
{
    if (nm < s->npool && s->name_sep[nm])
        return s->name_sep[nm] - 1;
    const char *p = intern_str(b->names, nm);
    int has = strstr(p, "=>") || strstr(p, "::");
    if (nm < s->npool)
        s->name_sep[nm] = (uint8_t)(1 + has);
    return has;
}

/* The shape signature (spec 1.10) of long name LN as a pool id, 0 for none. */
static inline uint32_t sig_id(sm_builder *b, opstate *s, uint32_t ln)
{
    if (!ln)
        return 0;
    if (ln < s->npool && s->sig_of_long[ln] != UINT32_MAX)
        return s->sig_of_long[ln];
    return sm_sig_id_slow(b, s, ln);
}

/* Path of an event (spec 1.14) as a pool id (0 = no parts), its depth, and whether it is
 * the name fallback. */
static inline uint32_t event_path(sm_builder *b, opstate *s, uint32_t e, int *depth, int *fallback)
{
    uint32_t tf = b->m->tf_op[e], nm = b->m->name[e];
    *fallback = tf == 0 && !name_has_sep(b, s, nm);
    uint32_t key = tf ? tf : nm;
    if (key < s->npool && (tf ? s->path_tf : s->path_nm)[key]) {
        *depth = (tf ? s->depth_tf : s->depth_nm)[key];
        return (tf ? s->path_tf : s->path_nm)[key] - 1;
    }
    return sm_event_path_slow(b, s, e, depth);
}

#endif
