/* nsys.c (api) - the public entry points of `profq nsys`: pq_nsys_compute (the composed nsys
 * analysis, analysis/nsys.c, with the figures a program reads copied into pq_nsys_result),
 * pq_nsys_render (render/nsys.c), pq_nsys_free, and pq_render_nsys as the three in turn.
 * Copies and unit conversions only: no figure is computed here. */
#include "analysis/nsys.h"
#include "api/partial_nsys.h"
#include "core/alloc.h"
#include "core/err.h"
#include "render/nsys.h"

#include <string.h>

/* The public result, its detail and the arrays it points to, in one allocation's owner. */
struct pq_nsys_detail {
    nsys_result r;
};

typedef struct nsys_api {
    pq_nsys_result pub; /* first: pq_nsys_free casts back */
    pq_nsys_detail detail;
    pq_nsys_module *modules;
    pq_nsys_collective *collectives;
    pq_nsys_compile_pass *passes;
} nsys_api;

static void fill_modules(pq_nsys_result *p, pq_nsys_module *m, const nsys_modules_result *r)
{
    for (size_t k = 0; k < r->nmodules; k++) {
        const nsys_module_row *x = &r->modules[k];
        m[k] = (pq_nsys_module){x->program_id,  x->name,       x->rows,
                                x->total_ns,    x->total_ms,   x->share,
                                x->thunks_mean, x->thunks_std, x->wait_share};
    }
    p->modules = m;
    p->nmodules = r->nmodules;
    p->ntop = r->ntop;
    p->modules_total_ns = r->total_ns;
    p->sources = r->sources;
    p->devices = r->devices;
    p->compiled_programs = r->compiled_programs;
    p->all_steady = r->all_steady;
    for (int f = 0; f < PQ_NSYS_NFRAMES; f++) {
        p->frames[f].module_rows = r->frames[f].module_rows;
        p->frames[f].thunk_rows = r->frames[f].thunk_rows;
    }
}

/* runtime.*, alignment and collectives[] as the JSON document states them (ms = ns / 1e6). */
static void fill_comm(pq_nsys_result *p, pq_nsys_collective *k, const nsys_comm_result *c)
{
    p->warmup_head = c->warmup_head;
    for (int f = 0; f < PQ_NSYS_NFRAMES; f++)
        p->frames[f].communication_rows = c->communication_rows[f];
    p->has_runtime = 1;
    p->thunks_ms = (double)c->thunks_ns / 1e6;
    p->modules_ms = (double)c->modules_ns / 1e6;
    p->wall_ms = c->wall_ns / 1e6;
    p->idle_in_modules_ms = (double)(c->modules_ns - c->thunks_ns) / 1e6;
    p->idle_between_modules_ms = (c->wall_ns - (double)c->modules_ns) / 1e6;
    p->comm_hidden_ms = (double)c->comm_hidden_ns / 1e6;
    p->comm_exposed_ms = (double)c->comm_exposed_ns / 1e6;
    p->aligned = c->aligned;
    p->corrections_ns = c->corrections_ns;
    p->ndevices = c->ndevices;
    for (size_t i = 0; i < c->nkinds; i++) {
        const nsys_coll_kind_row *x = &c->kinds[i];
        k[i] = (pq_nsys_collective){nsys_coll_name(x->kind), x->rows,           x->instances,
                                    x->busbw_mean,           x->busbw_median,   x->busbw_max,
                                    x->wait_mean_ms,         x->wait_median_ms, x->wait_max_ms};
    }
    p->collectives = k;
    p->ncollectives = c->nkinds;
}

/* compile.{total_s, passes[]} and frames.*.compile_rows (the frame is initialisation). */
static void fill_compile(pq_nsys_result *p, pq_nsys_compile_pass *q, const nsys_compile_result *c)
{
    p->has_compile = 1;
    p->compile_total_s = c->total_ns / 1e9;
    p->frames[PQ_NSYS_ALL].compile_rows = c->rows;
    p->frames[PQ_NSYS_INIT].compile_rows = c->rows;
    for (size_t i = 0; i < c->npasses; i++) {
        const nsys_compile_pass *x = &c->passes[i];
        q[i] = (pq_nsys_compile_pass){nsys_compile_name(c, x), x->non_child_ns / 1e9,
                                      x->child_ns / 1e9, x->share};
    }
    p->passes = q;
    p->npasses = c->npasses;
    p->ntop_passes = c->ntop;
}

/* The public view of A->detail.r. */
static pq_status fill(nsys_api *a, pq_error *err)
{
    const nsys_result *r = &a->detail.r;
    size_t nk = r->have_comm ? r->comm.nkinds : 0, np = r->have_compile ? r->compile.npasses : 0;
    /* + 1: a zero-length array is still an allocation */
    a->modules = pq_malloc_array(r->modules.nmodules + 1, sizeof *a->modules);
    a->collectives = pq_malloc_array(nk + 1, sizeof *a->collectives);
    a->passes = pq_malloc_array(np + 1, sizeof *a->passes);
    RETURN_ERROR_IF(!a->modules || !a->collectives || !a->passes, err, PQ_ERR_NOMEM, NULL, -1,
                    "out of memory");
    pq_nsys_result *p = &a->pub;
    p->xplane = r->xplane;
    p->sections = r->sections;
    fill_modules(p, a->modules, &r->modules);
    if (r->have_comm)
        fill_comm(p, a->collectives, &r->comm);
    if (r->have_compile)
        fill_compile(p, a->passes, &r->compile);
    p->detail = &a->detail;
    return PQ_OK;
}

pq_status pq_nsys_compute(const pq_profile *profile, const pq_nsys_options *opts,
                          pq_nsys_result **out, pq_error *err)
{
    return nsys_compute_api(profile, opts, NULL, out, err);
}

pq_status nsys_compute_api(const pq_profile *profile, const pq_nsys_options *opts,
                           const nsys_compile_part *const *parts, pq_nsys_result **out,
                           pq_error *err)
{
    *out = NULL;
    unsigned sections = opts ? opts->sections : 0;
    pq_status st =
        nsys_check_request(profile, sections, opts && opts->render_as == PQ_OUT_SVG, err);
    FORWARD_IF_ERROR(st);
    nsys_api *a = pq_calloc(1, sizeof *a);
    RETURN_ERROR_IF(!a, err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    st = nsys_compute_parts(profile, sections, parts, &a->detail.r, err);
    if (st != PQ_OK) {
        pq_free(a);
        return st;
    }
    st = fill(a, err);
    if (st != PQ_OK) {
        pq_nsys_free(&a->pub);
        return st;
    }
    *out = &a->pub;
    return PQ_OK;
}

pq_status pq_nsys_render(const pq_nsys_result *result, pq_output fmt, pq_sink *sink, pq_error *err)
{
    return nsys_render(&result->detail->r, fmt, sink, err);
}

void pq_nsys_free(pq_nsys_result *result)
{
    if (!result)
        return;
    nsys_api *a = (nsys_api *)result;
    nsys_result_free(&a->detail.r);
    pq_free(a->modules);
    pq_free(a->collectives);
    pq_free(a->passes);
    pq_free(a);
}

pq_status pq_render_nsys(const pq_profile *profile, unsigned sections, pq_output fmt, pq_sink *sink,
                         pq_error *err)
{
    pq_nsys_options o = {sections, fmt};
    pq_nsys_result *r = NULL;
    pq_status st = pq_nsys_compute(profile, &o, &r, err);
    if (st == PQ_OK)
        st = pq_nsys_render(r, fmt, sink, err);
    pq_nsys_free(r);
    return st;
}
