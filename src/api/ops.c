/* ops.c (api) - the public entry points of op metrics and the roofline: pq_ops_compute
 * (analysis/ops into a pq_ops_result), pq_ops_render (the result through the renderers of
 * render/ops_text.c, render/ops_xprof.c and render/op_profile.c, with op_profile's trees
 * built by analysis/op_profile.c first), pq_ops_result_free, and pq_render_ops and
 * pq_render_roofline as the three in turn. No figures are computed here. */
#include "analysis/op_profile.h"
#include "analysis/ops.h"
#include "core/err.h"
#include "render/op_profile.h"
#include "render/ops.h"

#include <string.h>

static const pq_ops_options DEFAULTS = {0};

pq_status pq_ops_compute(const pq_profile *profile, const pq_ops_options *opts,
                         pq_ops_result *result, pq_error *err)
{
    if (!opts)
        opts = &DEFAULTS;
    /* XProf's tables (--format xprof) cover device planes only: a CPU-only run gives XProf's
     * empty tables there; profq's own formats list its XLA:CPU ops. */
    ops_options oo = {opts->peak_tflops, opts->peak_hbm_gbps, opts->xprof != PQ_OPS_NATIVE,
                      opts->by};
    return ops_compute(profile, &oo, result, err);
}

void pq_ops_result_free(pq_ops_result *result)
{
    ops_free(result);
}

/* op_profile: both trees (with and without IDLE) for opts->by, then the writer. */
static void render_op_profile(buf *b, const pq_ops_result *r, pq_ops_group by)
{
    int group = by == PQ_OPS_BY_CATEGORY     ? OP_PROFILE_BY_CATEGORY
                : by == PQ_OPS_BY_PROVENANCE ? OP_PROFILE_BY_PROVENANCE
                                             : OP_PROFILE_BY_PROGRAM;
    op_profile_tree with_idle, without_idle;
    if (op_profile_build(r, group, 0, &with_idle) != 0) {
        b->status = PQ_ERR_NOMEM;
        return;
    }
    if (op_profile_build(r, group, 1, &without_idle) != 0) {
        op_profile_free(&with_idle);
        b->status = PQ_ERR_NOMEM;
        return;
    }
    op_profile_json(b, r, group, &with_idle, &without_idle);
    op_profile_free(&with_idle);
    op_profile_free(&without_idle);
}

static pq_status check_view(const pq_ops_result *r, const pq_ops_options *o, pq_ops_view view,
                            pq_error *err)
{
    RETURN_ERROR_IF(view != PQ_OPS_VIEW_OPS && view != PQ_OPS_VIEW_ROOFLINE, err, PQ_ERR_USAGE,
                    NULL, -1, "unknown ops view %d", (int)view);
    RETURN_ERROR_IF(view == PQ_OPS_VIEW_OPS &&
                        (o->by == PQ_OPS_BY_CATEGORY || o->by == PQ_OPS_BY_PROGRAM) &&
                        o->xprof == PQ_OPS_NATIVE && r->by != o->by,
                    err, PQ_ERR_USAGE, NULL, -1,
                    "the op metrics were computed for another grouping (opts->by)");
    RETURN_ERROR_IF(view == PQ_OPS_VIEW_OPS && o->by == PQ_OPS_BY_PROVENANCE &&
                        o->xprof != PQ_OPS_OP_PROFILE,
                    err, PQ_ERR_USAGE, NULL, -1, "grouping by provenance is for op_profile");
    return PQ_OK;
}

pq_status pq_ops_render(const pq_ops_result *result, const pq_ops_options *opts, pq_ops_view view,
                        pq_output fmt, pq_sink *sink, pq_error *err)
{
    const pq_ops_options *o = opts ? opts : &DEFAULTS;
    pq_status st = check_view(result, o, view, err);
    FORWARD_IF_ERROR(st);
    buf b;
    buf_init(&b, sink);
    if (view == PQ_OPS_VIEW_OPS && o->xprof == PQ_OPS_HLO_STATS)
        ops_render_hlo_stats(&b, result);
    else if (view == PQ_OPS_VIEW_OPS && o->xprof == PQ_OPS_OP_PROFILE)
        render_op_profile(&b, result, o->by);
    else if (view == PQ_OPS_VIEW_ROOFLINE && o->xprof == PQ_OPS_ROOFLINE_MODEL)
        ops_render_roofline_model(&b, result);
    else if (view == PQ_OPS_VIEW_OPS && fmt == PQ_OUT_JSON)
        ops_render_ops_json(&b, result, o);
    else if (view == PQ_OPS_VIEW_OPS)
        ops_render_ops_text(&b, result, o);
    else if (fmt == PQ_OUT_JSON)
        ops_render_roofline_json(&b, result, o);
    else
        ops_render_roofline_text(&b, result, o);
    st = b.status != PQ_OK ? b.status : buf_flush(&b);
    buf_release(&b);
    RETURN_ERROR_IF(st == PQ_ERR_NOMEM, err, st, NULL, -1, "out of memory rendering op metrics");
    if (st != PQ_OK)
        err_set(err, st, NULL, -1, "cannot write the output");
    return st;
}

static pq_status compute_render(const pq_profile *profile, const pq_ops_options *opts,
                                pq_ops_view view, pq_output fmt, pq_sink *sink, pq_error *err)
{
    pq_ops_result r;
    pq_status st = pq_ops_compute(profile, opts, &r, err);
    FORWARD_IF_ERROR(st);
    st = pq_ops_render(&r, opts, view, fmt, sink, err);
    pq_ops_result_free(&r);
    return st;
}

pq_status pq_render_ops(const pq_profile *profile, const pq_ops_options *opts, pq_output fmt,
                        pq_sink *sink, pq_error *err)
{
    return compute_render(profile, opts, PQ_OPS_VIEW_OPS, fmt, sink, err);
}

pq_status pq_render_roofline(const pq_profile *profile, const pq_ops_options *opts, pq_output fmt,
                             pq_sink *sink, pq_error *err)
{
    return compute_render(profile, opts, PQ_OPS_VIEW_ROOFLINE, fmt, sink, err);
}
