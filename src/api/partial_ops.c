/* partial_ops.c - the op metrics kind of partial (`profq ops --partial`): an ops_part
 * (analysis/ops_merge.c) to and from the body bytes of docs/internals/partial.md, and
 * pq_partial_ops. Every field is listed once (the X-lists below) for both directions. Not
 * the merge itself (ops_merge.c), not the header and dispatch (partial.c), not the fields
 * of XProf's tables and trace files (partial_xprof.c). */
#include "analysis/ops.h"
#include "analysis/ops_merge.h"
#include "api/partial_int.h"
#include "api/partial_xprof.h"
#include "core/alloc.h"
#include "core/err.h"
#include "io/mapfile.h"

#include <string.h>

/* X(type, lvalue, what): the scalars of the result, then of a row, then of a program. */
#define RESULT_FIELDS(X, r)                                                                        \
    X(U64, r->hw, "hw")                                                                            \
    X(F64, r->peaks.tflops, "peak")                                                                \
    X(F64, r->peaks.bws[0], "peak")                                                                \
    X(F64, r->peaks.bws[1], "peak")                                                                \
    X(F64, r->peaks.bws[2], "peak")                                                                \
    X(F64, r->peaks.bws[3], "peak")                                                                \
    X(F64, r->peaks.bws[4], "peak")                                                                \
    X(F64, r->peaks.bws[5], "peak")                                                                \
    X(F64, r->peaks.bws[6], "peak")                                                                \
    X(INT, r->peaks.has_cmem, "peak")                                                              \
    X(INT, r->peaks.has_merged_vmem, "peak")                                                       \
    X(INT, r->peaks.has_megacore, "peak")                                                          \
    X(INT, r->peaks.user_flops, "peak")                                                            \
    X(INT, r->peaks.user_bw, "peak")                                                               \
    X(INT, r->peaks.derived_flops, "peak")                                                         \
    X(INT, r->peaks.derived_sram, "peak")                                                          \
    X(F64, r->peaks.cores, "peak")                                                                 \
    X(F64, r->peaks.clock_ghz, "peak")                                                             \
    X(F64, r->peaks.flops_per_cycle, "peak")                                                       \
    X(F64, r->peaks.sram_bytes_per_cycle, "peak")                                                  \
    X(U32, r->ndevices, "ndevices")                                                                \
    X(U32, r->device_planes, "device_planes")                                                      \
    X(I64, r->total_time_ps, "total_time_ps")                                                      \
    X(I64, r->total_op_time_ps, "total_op_time_ps")                                                \
    X(F64, r->normalized_total_op_time_ps, "normalized_total_op_time_ps")                          \
    X(I64, r->window_ps, "window_ps")                                                              \
    X(INT, r->has_modules, "has_modules")                                                          \
    X(I64, r->module_ps, "module_ps")                                                              \
    X(I64, r->busy_ps, "busy_ps")

#define ROW_FIELDS(X, m)                                                                           \
    X(U64, m->program_id, "row program_id")                                                        \
    X(U64, m->symbol_id, "row symbol_id")                                                          \
    X(STR, m->name, "row name")                                                                    \
    X(STR, m->long_name, "row long_name")                                                          \
    X(STR, m->category, "row category")                                                            \
    X(STR, m->provenance, "row provenance")                                                        \
    X(STR, m->dedup_name, "row dedup_name")                                                        \
    X(STR, m->source, "row source")                                                                \
    X(STR, m->source_stack, "row source_stack")                                                    \
    X(STR, m->op_type, "row op_type")                                                              \
    X(I64, m->occurrences, "row occurrences")                                                      \
    X(I64, m->time_ps, "row time_ps")                                                              \
    X(I64, m->self_time_ps, "row self_time_ps")                                                    \
    X(I64, m->min_time_ps, "row min_time_ps")                                                      \
    X(I64, m->dma_stall_ps, "row dma_stall_ps")                                                    \
    X(F64, m->normalized_time_ps, "row normalized_time_ps")                                        \
    X(F64, m->flops, "row flops")                                                                  \
    X(F64, m->model_flops, "row model_flops")                                                      \
    X(F64, m->bytes_accessed, "row bytes_accessed")                                                \
    X(F64, m->bd_hbm, "row breakdown")                                                             \
    X(F64, m->bd_cmem_rd, "row breakdown")                                                         \
    X(F64, m->bd_cmem_wr, "row breakdown")                                                         \
    X(F64, m->bd_vmem_rd, "row breakdown")                                                         \
    X(F64, m->bd_vmem_wr, "row breakdown")                                                         \
    X(F64, m->bd_onchip_rd, "row breakdown")                                                       \
    X(F64, m->bd_onchip_wr, "row breakdown")                                                       \
    X(INT, m->has_breakdown, "row has_breakdown")                                                  \
    X(INT, m->provenance_from_hlo, "row provenance_from_hlo")

#define PROGRAM_FIELDS(X, p)                                                                       \
    X(U64, p->program_id, "program id")                                                            \
    X(STR, p->name, "program name")                                                                \
    X(I64, p->executions, "program executions")                                                    \
    X(I64, p->module_ps, "program module_ps")                                                      \
    X(I64, p->op_self_ps, "program op_self_ps")                                                    \
    X(I64, p->first_ps, "program first_ps")                                                        \
    X(I64, p->steady_executions, "program steady_executions")                                      \
    X(I64, p->steady_module_ps, "program steady_module_ps")

#define PUT_U64(b, v)       pt_put_u64(b, (uint64_t)(v))
#define PUT_I64             PUT_U64
#define PUT_U32             PUT_U64
#define PUT_INT             PUT_U64
#define PUT_F64(b, v)       pt_put_f64(b, v)
#define PUT_STR(b, v)       pt_put_str(b, v)
#define PUT(type, lv, what) PUT_##type(b, lv);

#define GET_U64(r, a, what) pt_get_u64(r, what)
#define GET_I64(r, a, what) pt_get_time(r, what)
#define GET_U32(r, a, what) (uint32_t) pt_get_u64(r, what)
#define GET_INT(r, a, what) (int)pt_get_u64(r, what)
#define GET_F64(r, a, what) pt_get_f64(r, what)
#define GET_STR(r, a, what) pt_get_str(r, a, what)
#define GET(type, lv, what) lv = GET_##type(rd, &o->strings, what);

static pq_str cstr(const char *s)
{
    pq_str v = {s, strlen(s)};
    return v;
}

/* The index of P in O's table of paths (the rows point into it). */
static size_t path_index(const ops_part *o, pq_str p)
{
    for (size_t i = 0; i < o->npaths; i++)
        if (o->paths[i].p == p.p)
            return i;
    return 0; /* not reached: every row's paths are in the table */
}

static void ops_write(const void *body, buf *b)
{
    const ops_part *o = body;
    const pq_ops_result *r = &o->r;
    pt_put_str(b, o->key);
    pt_put_u64(b, (uint64_t)o->has_key);
    pt_put_str(b, o->last);
    pt_put_str(b, cstr(r->device_type));
    pt_put_str(b, cstr(r->gpu_model));
    RESULT_FIELDS(PUT, r)
    pt_put_u64(b, o->npaths);
    for (size_t i = 0; i < o->npaths; i++)
        pt_put_str(b, o->paths[i]);
    pt_put_u64(b, o->nrows);
    for (size_t i = 0; i < o->nrows; i++) {
        const pq_op_row *m = &o->rows[i].m;
        ROW_FIELDS(PUT, m)
        pt_put_u64(b, (uint64_t)o->rows[i].scaled);
        for (int k = 0; k < OPS_PER_N; k++)
            pt_put_f64(b, o->rows[i].per[k]);
        pt_put_u64(b, path_index(o, o->rows[i].first));
        pt_put_u64(b, path_index(o, o->rows[i].last));
        pt_ops_put_fused(b, m);
    }
    pt_put_u64(b, r->nprograms);
    for (size_t i = 0; i < r->nprograms; i++) {
        const pq_ops_program *p = &r->programs[i];
        PROGRAM_FIELDS(PUT, p)
    }
    pt_ops_put_xprof(b, o);
}

/* A time or count: every I64 field of the op metrics is one, never negative (sums of them
 * are checked in the merge). */
int64_t pt_get_time(pt_reader *rd, const char *what)
{
    const uint8_t *at = rd->p;
    uint64_t u = pt_get_u64(rd, what);
    if (rd->status == PQ_OK && u > (uint64_t)INT64_MAX) {
        rd->p = at;
        pt_fail(rd, "malformed partial", "a non-negative time or count");
        return 0;
    }
    return (int64_t)u;
}

/* A count of records of at least MIN_BYTES each: no more than the bytes left can hold. */
size_t pt_get_count(pt_reader *rd, size_t min_bytes, const char *what)
{
    const uint8_t *at = rd->p;
    uint64_t n = pt_get_u64(rd, what);
    if (rd->status == PQ_OK && n > (uint64_t)(rd->end - rd->p) / min_bytes) {
        rd->p = at;
        pt_fail(rd, "malformed partial", "a count the rest of the body can hold");
        return 0;
    }
    return (size_t)n;
}

static void copy_cstr(char *dst, size_t cap, pq_str s)
{
    size_t n = s.n < cap - 1 ? s.n : cap - 1;
    memcpy(dst, s.p, n);
    dst[n] = 0;
}

static void ops_body_free(void *body)
{
    ops_part_free(body);
    pq_free(body);
}

static void *ops_read(pt_reader *rd)
{
    ops_part *o = pq_calloc(1, sizeof *o);
    if (!o) {
        rd->status = err_set(rd->err, PQ_ERR_NOMEM, rd->name, -1, "out of memory");
        return NULL;
    }
    arena_init(&o->strings);
    pq_ops_result *r = &o->r;
    o->key = pt_get_str(rd, &o->strings, "key");
    o->has_key = (int)pt_get_u64(rd, "has_key");
    o->last = pt_get_str(rd, &o->strings, "last");
    copy_cstr(r->device_type, sizeof r->device_type, pt_get_str(rd, &o->strings, "device_type"));
    copy_cstr(r->gpu_model, sizeof r->gpu_model, pt_get_str(rd, &o->strings, "gpu_model"));
    RESULT_FIELDS(GET, r)
    if (rd->status == PQ_OK && r->hw > PQ_OPS_HW_TPU)
        pt_fail(rd, "malformed partial", "a device kind 0..3");
    size_t n = pt_get_count(rd, 8, "the number of paths");
    o->paths = pq_calloc(n ? n : 1, sizeof *o->paths);
    for (size_t i = 0; o->paths && rd->status == PQ_OK && i < n; i++)
        o->paths[o->npaths++] = pt_get_str(rd, &o->strings, "a source path");
    o->cap_paths = o->npaths;
    n = rd->status == PQ_OK ? pt_get_count(rd, 8 * (31 + OPS_PER_N), "the number of rows") : 0;
    o->rows = pq_calloc(n ? n : 1, sizeof *o->rows);
    for (size_t i = 0; o->rows && rd->status == PQ_OK && i < n; i++) {
        pq_op_row *m = &o->rows[o->nrows].m;
        ROW_FIELDS(GET, m)
        o->rows[o->nrows].scaled = pt_get_u64(rd, "row scaled") != 0;
        for (int k = 0; k < OPS_PER_N; k++)
            o->rows[o->nrows].per[k] = pt_get_f64(rd, "row per-occurrence figures");
        uint64_t first = pt_get_u64(rd, "row first source"),
                 last = pt_get_u64(rd, "row last source");
        if (rd->status == PQ_OK && (first >= o->npaths || last >= o->npaths)) {
            rd->p -= 16;
            pt_fail(rd, "malformed partial", "source indexes below the number of paths");
        }
        if (rd->status == PQ_OK) {
            o->rows[o->nrows].first = o->paths[first];
            o->rows[o->nrows].last = o->paths[last];
        }
        pt_ops_get_fused(rd, o, m);
        o->nrows++;
    }
    n = rd->status == PQ_OK ? pt_get_count(rd, 8 * 8, "the number of programs") : 0;
    r->programs = pq_calloc(n ? n : 1, sizeof *r->programs);
    for (size_t i = 0; r->programs && rd->status == PQ_OK && i < n; i++) {
        pq_ops_program *p = &r->programs[r->nprograms++];
        PROGRAM_FIELDS(GET, p)
        /* the steady executions are some of the executions (the steady share stays in 0..1) */
        if (rd->status == PQ_OK &&
            (p->steady_module_ps > p->module_ps || p->steady_executions > p->executions))
            pt_fail(rd, "malformed partial",
                    "a program's steady executions and time within its executions and time");
    }
    if (rd->status == PQ_OK)
        pt_ops_get_xprof(rd, o);
    if (rd->status == PQ_OK && (!o->rows || !o->paths || !r->programs || arena_failed(&o->strings)))
        rd->status = err_set(rd->err, PQ_ERR_NOMEM, rd->name, -1, "out of memory");
    if (rd->status == PQ_OK && !ops_part_sums_fit(o))
        pt_fail(rd, "malformed partial",
                "op rows and programs whose times and counts sum "
                "within 64 bits");
    if (rd->status != PQ_OK) {
        ops_body_free(o);
        return NULL;
    }
    return o;
}

static pq_status ops_merge(void *into, const void *from, pq_error *err)
{
    RETURN_ERROR_IF(((const ops_part *)into)->xprof != ((const ops_part *)from)->xprof, err,
                    PQ_ERR_INPUT, NULL, -1,
                    "expected partials made alike: one with --format xprof (XProf's tables), "
                    "one without");
    int r = ops_part_merge(into, from);
    RETURN_ERROR_IF(r == 0, err, PQ_ERR_NOMEM, NULL, -1, "out of memory merging op metrics");
    RETURN_ERROR_IF(r < 0, err, PQ_ERR_INPUT, NULL, -1,
                    "expected partials whose sums fit in 64 bits: a time or count of the "
                    "merged op metrics overflows");
    return PQ_OK;
}

static pq_status render_view(const void *body, const pq_ops_options *opts, pq_ops_view view,
                             pq_output fmt, pq_sink *sink, pq_error *err)
{
    static const pq_ops_options defaults = {0};
    if (!opts)
        opts = &defaults;
    const ops_part *part = body;
    int xprof = part->xprof;
    RETURN_ERROR_IF((opts->xprof != PQ_OPS_NATIVE) != xprof, err, PQ_ERR_USAGE, NULL, -1,
                    xprof ? "partials made with --format xprof render as XProf's tables only "
                            "(merge --format xprof)"
                          : "XProf's tables (merge --format xprof) take partials made with "
                            "--format xprof");
    RETURN_ERROR_IF(!pt_ops_trace_kinds_agree(part), err, PQ_ERR_INPUT, NULL, -1,
                    "these partials are not mergeable: a trace file's XLA ops were read alone "
                    "as XLA:CPU ops, one process reads them as the %s ops of the other inputs "
                    "(merge the XSpaces' partials alone, or read them with one process)",
                    part->r.hw == PQ_OPS_HW_TPU ? "TPU" : "GPU");
    ops_part none; /* XProf's tables of no device planes: empty, as one process's */
    memset(&none, 0, sizeof none);
    none.xprof = 1;
    pq_ops_result r;
    FORWARD_IF_ERROR(ops_part_result(xprof && !part->has_key ? &none : part, opts, &r, err));
    pq_status st = pq_ops_render(&r, opts, view, fmt, sink, err);
    pq_ops_result_free(&r);
    return st;
}

static pq_status ops_render(const void *body, const pq_ops_options *opts, pq_output fmt,
                            pq_sink *sink, pq_error *err)
{
    return render_view(body, opts, PQ_OPS_VIEW_OPS, fmt, sink, err);
}

static pq_status roofline_render(const void *body, const pq_ops_options *opts, pq_output fmt,
                                 pq_sink *sink, pq_error *err)
{
    return render_view(body, opts, PQ_OPS_VIEW_ROOFLINE, fmt, sink, err);
}

const pt_kind pt_kind_ops = {PQ_PARTIAL_OPS, "ops",      ops_write,    ops_read,
                             ops_merge,      ops_render, ops_body_free};

/* The roofline's partial: the same body, rendered as `profq roofline`. */
const pt_kind pt_kind_roofline = {PQ_PARTIAL_ROOFLINE, "roofline",      ops_write,    ops_read,
                                  ops_merge,           roofline_render, ops_body_free};

/* The path of the first source with device planes of the kind HW reads (ops_core.c's
 * choice of planes), which one process takes the peaks from. */
static int first_device_source(const pq_profile *prof, pq_ops_hw hw, pq_str *key)
{
    const char *want = hw == PQ_OPS_HW_TPU ? "TPU" : hw == PQ_OPS_HW_GPU ? "GPU" : "CPU";
    for (size_t si = 0; hw != PQ_OPS_HW_NONE && si < prof->nsources; si++)
        for (uint32_t pi = 0; pi < prof->sources[si].nplanes; pi++)
            if (xp_plane_is(&prof->sources[si], &prof->sources[si].planes[pi], want)) {
                *key = prof->sources[si].info.path;
                return 1;
            }
    return 0;
}

/* The part of source SI of PROF alone (a view of the profile with that one source): the
 * unit a merge is exact over, as one process scales or sums each op by its first source. */
static pq_status source_part(const pq_profile *prof, size_t si, int xprof, int roofline,
                             ops_part *part, pq_error *err)
{
    pq_profile view = {&prof->sources[si], 1};
    /* The open's pass touched every page of the file; the op tables read the device
     * planes only (about 60% of a generated host): drop the rest from the process's RSS. */
    mapfile_drop_resident(&prof->sources[si].file);
    pq_ops_result r;
    pq_ops_options o = {0};
    /* a trace file is read as its own kind; one process reads it as the profile's (XProf's
     * tables: the XSpaces' device kind), which the render checks (trace_kinds) */
    const pq_source *src = &prof->sources[si];
    int trace = src->nplanes == 0 && src->slices;
    o.xprof = xprof && !trace ? PQ_OPS_HLO_STATS : PQ_OPS_NATIVE;
    FORWARD_IF_ERROR(pq_ops_compute(&view, &o, &r, err));
    /* roofline_model's TPU step records (device "Steps" lines, ops_steps_tpu.c): a TPU
     * XSpace's step counts (none: a host without steps, which XProf's step intersection
     * counts), made into records by the render over the merged hosts as one process makes
     * them. hlo_stats and op_profile do not depend on them. */
    ops_tpu_steps tpu = {0};
    int ok = !(roofline && xprof && r.hw == PQ_OPS_HW_TPU) || ops_steps_tpu_counts(&view, &r, &tpu);
    pq_str key = {"", 0};
    int has_key = first_device_source(&view, r.hw, &key);
    ok = ok && ops_part_from_result(part, &r, key, has_key, prof->sources[si].info.path);
    part->xprof = xprof;
    ok = ok && ops_tpu_steps_merge(&part->tpu, &tpu, &part->host_mem);
    ops_tpu_steps_free(&tpu);
    for (size_t i = 0; trace && i < src->slices->n; i++)
        part->trace_kinds |= (src->slices->flags[i] & SLICE_XLA_OP ? 1u << PQ_OPS_HW_CPU : 0) |
                             (src->slices->flags[i] & SLICE_GPU_WORK ? 1u << PQ_OPS_HW_GPU : 0);
    if (ok && xprof)
        ok = pt_ops_source_steps(&view, part);
    pq_ops_result_free(&r);
    RETURN_ERROR_IF(!ok, err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    return PQ_OK;
}

static pq_status partial_of(const pt_kind *kind, const pq_profile *profile, int xprof,
                            pq_partial **out, pq_error *err)
{
    *out = NULL;
    ops_part *acc = pq_calloc(1, sizeof *acc);
    RETURN_ERROR_IF(!acc, err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    arena_init(&acc->strings);
    acc->xprof = xprof;
    pq_status st = PQ_OK;
    for (size_t si = 0; st == PQ_OK && si < profile->nsources; si++) {
        ops_part one;
        memset(&one, 0, sizeof one);
        arena_init(&one.strings);
        st = source_part(profile, si, xprof, kind == &pt_kind_roofline, &one, err);
        int r = st == PQ_OK ? ops_part_merge(acc, &one) : 1;
        if (r == 0)
            st = err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
        else if (r < 0)
            st = err_set(err, PQ_ERR_INPUT, profile->sources[si].path, -1,
                         "expected op metrics whose sums fit in 64 bits");
        ops_part_free(&one);
    }
    if (st != PQ_OK) {
        ops_body_free(acc);
        return st;
    }
    return pt_new(kind, acc, out, err);
}

pq_status pq_partial_ops(const pq_profile *profile, pq_partial **out, pq_error *err)
{
    return partial_of(&pt_kind_ops, profile, 0, out, err);
}

pq_status pq_partial_roofline(const pq_profile *profile, pq_partial **out, pq_error *err)
{
    return partial_of(&pt_kind_roofline, profile, 0, out, err);
}

pq_status pq_partial_ops_xprof(const pq_profile *profile, int roofline, pq_partial **out,
                               pq_error *err)
{
    return partial_of(roofline ? &pt_kind_roofline : &pt_kind_ops, profile, 1, out, err);
}
