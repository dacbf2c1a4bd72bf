/* summary.c - sm_compute: profile_summary.v1 from the model's slices (see summary.h), as the
 * sequence of its sections, each computed by its own file (summary_int.h lists them), and
 * the aggregate rows and orders that several sections share.
 * The algorithms are the seed's (spec/seed-tools.md 1.3-1.19). Not here: reading traces
 * (formats/), writing files (cli/). */
#include "summary_int.h"

#include "core/alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------
 * Aggregate rows. qsort has no context argument in C11: the pool of the names compared is
 * set by sm_agg_sort for the comparison functions below. */

static const intern_pool *g_pool;

agg *sm_agg_new(agg **arr, size_t *n, size_t *cap, uint32_t *slot, uint32_t name, uint32_t aux)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 256;
        agg *na = pq_realloc_array(*arr, nc, sizeof *na);
        if (!na)
            return NULL;
        *arr = na;
        *cap = nc;
    }
    agg *r = &(*arr)[*n];
    memset(r, 0, sizeof *r);
    r->name = name;
    r->aux = aux;
    *slot = (uint32_t)(*n)++;
    return r;
}

/* The aggregate orders of the spec are lists of keys compared in turn: totals descending,
 * names ascending. */
enum { BY_TOTAL, BY_EXCL, BY_NAME, BY_AUX, BY_END };

static int cmp_agg_by(const agg *a, const agg *b, const int *keys)
{
    for (; *keys != BY_END; keys++) {
        int64_t x = *keys == BY_TOTAL ? a->total : a->excl,
                y = *keys == BY_TOTAL ? b->total : b->excl;
        int c;
        if (*keys == BY_NAME)
            c = strcmp(intern_str(g_pool, a->name), intern_str(g_pool, b->name));
        else if (*keys == BY_AUX)
            c = strcmp(intern_str(g_pool, a->aux), intern_str(g_pool, b->aux));
        else
            c = x != y ? (x > y ? -1 : 1) : 0;
        if (c)
            return c;
    }
    return 0;
}

#define AGG_ORDER(fn, ...)                                                                         \
    static int fn(const void *pa, const void *pb)                                                  \
    {                                                                                              \
        static const int keys[] = {__VA_ARGS__, BY_END};                                           \
        return cmp_agg_by(pa, pb, keys);                                                           \
    }

AGG_ORDER(cmp_hot, BY_EXCL, BY_TOTAL, BY_NAME)
AGG_ORDER(cmp_gap, BY_TOTAL, BY_EXCL, BY_NAME) /* excl holds the max gap */
AGG_ORDER(cmp_ctx, BY_TOTAL, BY_NAME, BY_AUX)
AGG_ORDER(cmp_region, BY_TOTAL, BY_EXCL, BY_NAME) /* total is inclusive */
AGG_ORDER(cmp_opreg, BY_EXCL, BY_TOTAL, BY_AUX, BY_NAME)

void sm_agg_sort(const intern_pool *pool, agg *a, size_t n, int order)
{
    static int (*const cmp[])(const void *, const void *) = {[AGG_HOT] = cmp_hot,
                                                             [AGG_GAP] = cmp_gap,
                                                             [AGG_CTX] = cmp_ctx,
                                                             [AGG_REGION] = cmp_region,
                                                             [AGG_OPREG] = cmp_opreg};
    if (!a || n < 2)
        return;
    g_pool = pool;
    qsort(a, n, sizeof *a, cmp[order]);
}

const char *sm_keep(ctx *c, const char *s)
{
    return s ? arena_strndup(&c->res->mem, s, strlen(s)) : NULL;
}

const char *sm_keep_id(ctx *c, uint32_t id)
{
    return id && id != UINT32_MAX ? sm_keep(c, intern_str(c->b->names, id)) : NULL;
}

/* ---------------------------------------------------------------------------------------
 * sm_compute. */

static int opstate_init(opstate *s, uint32_t npool)
{
    s->npool = npool;
    s->sig_of_long = pq_malloc_array(s->npool + 1, sizeof *s->sig_of_long);
    s->path_tf = pq_calloc(s->npool + 1, sizeof *s->path_tf);
    s->path_nm = pq_calloc(s->npool + 1, sizeof *s->path_nm);
    s->depth_tf = pq_calloc(s->npool + 1, 1);
    s->depth_nm = pq_calloc(s->npool + 1, 1);
    s->name_sep = pq_calloc(s->npool + 1, 1);
    if (!s->sig_of_long || !s->path_tf || !s->path_nm || !s->depth_tf || !s->depth_nm ||
        !s->name_sep)
        return -1;
    for (uint32_t k = 0; k < s->npool; k++)
        s->sig_of_long[k] = UINT32_MAX;
    return 0;
}

static void ctx_free(ctx *c)
{
    pq_free(c->b->tracks);
    pq_free(c->excl);
    pq_free(c->order);
    pq_free(c->name_flags);
    pq_free(c->go);
    pq_free(c->ann);
    pq_free(c->left_bits);
    pq_free(c->s.sig_of_long);
    pq_free(c->s.path_tf);
    pq_free(c->s.path_nm);
    pq_free(c->s.depth_tf);
    pq_free(c->s.depth_nm);
    pq_free(c->s.name_sep);
}

/* The sections about the trace as a whole, on every slice of it: overview, provenance,
 * steps (Kineto's ProfilerStep#N ranges on GPU tracks count as the seed's per-device step
 * events). */
static int trace_sections(ctx *c, const sm_source *src)
{
    const sm_options *o = c->o;
    pq_summary_result *r = &c->res->r;
    r->schema_version = "profile_summary.v1";
    r->generated_at_utc = sm_keep(c, src->generated_at_utc);
    r->source_format = sm_keep(c, src->source_format);
    r->source_path = sm_keep(c, src->source_path);
    r->run_metadata =
        (pq_sm_run_metadata){sm_keep(c, o->run_path), sm_keep(c, o->run_id),
                             sm_keep(c, o->artifact_ref), sm_keep(c, o->artifact_name)};
    if (sm_trace_overview(c, src) != 0 || sm_trace_provenance(c, src) != 0)
        return -1;
    return sm_step_time(c);
}

/* The time and op sections in the seed's order, on the slices that are GPU work; each may intern
 * strings that later ones see. */
static int work_sections(ctx *c)
{
    const sm_options *o = c->o;
    if (sm_exclusive(c) != 0 || sm_name_flags(c) != 0 || sm_time_breakdown(c) != 0)
        return -1;
    /* Op sections work on device-op events. */
    if (opstate_init(&c->s, c->b->names->n) != 0)
        return -1;
    c->hot_limit = o->hot_op_limit > 0 ? (size_t)o->hot_op_limit : 0;
    c->big_limit = c->hot_limit > 500 ? c->hot_limit : 500;
    if (sm_hot_ops(c) != 0 || sm_collectives(c) != 0)
        return -1;
    if (sm_gaps(c) != 0 || sm_hierarchical_regions(c) != 0 || sm_op_region_aggregates(c) != 0 ||
        sm_candidates(c) != 0)
        return -1;
    return c->b->names->failed || arena_failed(&c->res->mem) ? -1 : 0;
}

void sm_result_free(sm_result *r)
{
    arena_release(&r->mem);
    memset(r, 0, sizeof *r);
}

/* DST: a pool with SRC's strings under the same ids, for the strings the summary derives
 * to be interned after them (SRC, the profile's, stays as it is). 0, or -1 when memory ran
 * out. */
static int pool_copy(intern_pool *dst, const intern_pool *src)
{
    if (intern_init(dst) != 0)
        return -1;
    for (uint32_t id = 0; id < src->n && !dst->failed; id++)
        if (intern_add(dst, intern_str(src, id), intern_len(src, id)) != id)
            return -1; /* (distinct strings in order: only a failure gives another id) */
    return dst->failed ? -1 : 0;
}

int sm_compute(const model_slices *m, const sm_options *o, const sm_source *src, sm_result *out)
{
    memset(out, 0, sizeof *out);
    arena_init(&out->mem);
    if (m->failed)
        return -1;
    intern_pool names;
    sm_builder bs = {m, &names, NULL, 0, 0, 0, NULL, m->n}, *b = &bs;
    if (pool_copy(&names, &m->names) != 0) {
        intern_free(&names);
        return -1;
    }
    b->tracks = pq_calloc(m->ntracks + 1, sizeof *b->tracks);
    if (!b->tracks) {
        intern_free(&names);
        return -1;
    }
    b->ntracks = m->ntracks;
    for (uint32_t t = 0; t < m->ntracks; t++) {
        b->tracks[t].pid = m->tracks[t].pid;
        b->tracks[t].tid = m->tracks[t].tid;
        b->tracks[t].has_kernel = m->tracks[t].has_kernel;
    }
    ctx c = {0};
    c.b = b;
    c.res = out;
    c.o = o;
    c.steady_median = c.steady_p90 = NAN;
    int rc = -1;
    sm_classify_tracks(b);
    /* From the time sections on, without what is not GPU work (summary_view.c). */
    if (trace_sections(&c, src) == 0 && sm_leave_out(&c) == 0 && work_sections(&c) == 0)
        rc = 0;
    ctx_free(&c);
    intern_free(&names);
    if (rc != 0)
        sm_result_free(out);
    return rc;
}
