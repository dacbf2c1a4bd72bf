/* html.c - pq_render_html: runs each analysis the profile feeds (the tools verdicts: ops and
 * the op_profile tree, memory viewer, memory profile, memory attribution, the trace summary,
 * nsys), hands the result structs to the HTML renderer (render/html.c) and frees them. An
 * analysis that fails is recorded for its section, not returned: the page shows what did
 * work. The nsys charts and text are the nsys renderer's own, written here into buffers the
 * page embeds. pq_render_html_compare: the two summaries of `--compare` and their hot ops
 * matched by name (render/html_compare.c draws them). Nothing else is formatted here. */
#include "analysis/op_profile.h"
#include "analysis/ops_steps.h"
#include "analysis/summary.h"
#include "analysis/tools.h"
#include "core/alloc.h"
#include "core/err.h"
#include "core/sort.h"
#include "model/model.h"
#include "render/html.h"

#include <stdio.h>
#include <string.h>

static int fed(const tools_result *t, const char *name)
{
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->items[i].name, name) == 0)
            return t->items[i].available && t->items[i].implemented;
    return 0;
}

/* The XPlane's well-formed steps (ops_steps: the host step markers' spans, as roofline_model's
 * step rows) of the first XSpace with steps into IN's xsteps (allocated: the caller frees
 * both arrays), when the ops are a GPU's. 0 when out of memory. */
static int xplane_steps(const pq_profile *p, const pq_ops_result *ops, html_inputs *in)
{
    if (!ops || ops->hw != PQ_OPS_HW_GPU) /* (ops_steps groups GPU XSpaces only) */
        return 1;
    ops_steps st;
    if (!ops_steps_build(p, 1, &st))
        return 0;
    size_t n = 0;
    uint32_t src = st.nhost ? st.host_steps[0].source : 0;
    while (n < st.nhost && st.host_steps[n].source == src)
        n++;
    int64_t *x = n ? pq_malloc_array(n, sizeof *x) : NULL;
    double *y = n ? pq_malloc_array(n, sizeof *y) : NULL;
    int ok = !n || (x && y);
    for (size_t i = 0; ok && i < n; i++) {
        x[i] = st.host_steps[i].group;
        y[i] = (double)(st.host_steps[i].end - st.host_steps[i].begin) / 1e9; /* ps -> ms */
    }
    if (ok && n) {
        in->xsteps = x;
        in->xstep_ms = y;
        in->nxsteps = n;
        in->xsteps_path = p->sources[src].path;
    } else {
        pq_free(x);
        pq_free(y);
    }
    ops_steps_free(&st);
    return ok;
}

static int put_buf(void *ctx, const void *data, size_t n)
{
    buf *b = ctx;
    buf_put(b, data, n);
    return b->status == PQ_OK ? 0 : -1;
}

static void record(html_part *p, pq_status st, const pq_error *e)
{
    p->status = st;
    snprintf(p->message, sizeof p->message, "%s", st == PQ_OK ? "" : e->message);
}

/* Modules whose buffer assignment has a heap-simulator trace (a heap chart to draw) first,
 * then the larger peak. */
static int by_peak_desc(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const html_module_view *x = a, *y = b;
    int tx = x->mv && x->mv->ntimeline > 0, ty = y->mv && y->mv->ntimeline > 0;
    if (tx != ty)
        return ty - tx;
    int64_t px = x->mv ? x->mv->peak_heap_bytes + x->mv->indefinite_bytes : -1;
    int64_t py = y->mv ? y->mv->peak_heap_bytes + y->mv->indefinite_bytes : -1;
    return px > py ? -1 : px < py ? 1 : 0; /* stable sort: list order among ties */
}

/* The memory viewer of every listed module (at most 64 computed), those with a heap trace
 * first, then the largest peak; the first opts->max_modules are kept. */
static pq_status memory_viewers(const pq_profile *profile, html_inputs *in,
                                pq_memory_viewer_result **list, html_module_view **views)
{
    pq_error e;
    err_clear(&e);
    pq_memviewer_options mo = {0};
    pq_status st = pq_memory_viewer_compute(profile, &mo, list, &e);
    record(&in->memviewer, st, &e);
    if (st != PQ_OK)
        return st == PQ_ERR_NOMEM ? st : PQ_OK;
    in->module_list = *list;
    size_t n = (*list)->nmodules < 64 ? (*list)->nmodules : 64;
    html_module_view *v = pq_calloc(n ? n : 1, sizeof *v);
    if (!v)
        return PQ_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        pq_memviewer_options one = {0};
        one.module = (*list)->modules[i].key;
        err_clear(&e);
        v[i].status = pq_memory_viewer_compute(profile, &one, &v[i].mv, &e);
        if (v[i].status != PQ_OK) {
            v[i].mv = NULL;
            snprintf(v[i].message, sizeof v[i].message, "%s", e.message);
        }
    }
    if (pq_sort(v, n, sizeof *v, by_peak_desc, NULL) != 0) {
        for (size_t i = 0; i < n; i++)
            pq_memory_viewer_free(v[i].mv);
        pq_free(v);
        return PQ_ERR_NOMEM;
    }
    size_t keep = n < (size_t)in->opts->max_modules ? n : (size_t)in->opts->max_modules;
    for (size_t i = keep; i < n; i++) {
        pq_memory_viewer_free(v[i].mv);
        v[i].mv = NULL;
    }
    in->modules = v;
    in->nmodules = keep;
    in->modules_dropped = (*list)->nmodules - keep;
    *views = v;
    return PQ_OK;
}

/* profile_summary.v1 of the first trace JSON source, from its timeline as the profile
 * holds it (pq_source.slices, which sm_compute reads and leaves as they are: the page's
 * other analyses read the same slices). 1 when *RES holds what to free. */
static int trace_summary(const pq_profile *p, html_inputs *in, sm_result *res)
{
    const pq_source *src = NULL;
    for (size_t i = 0; i < p->nsources && !src; i++)
        if (p->sources[i].info.format == PQ_FORMAT_TRACE_JSON)
            src = &p->sources[i];
    in->summary.fed = src != NULL;
    if (!src)
        return 0;
    in->summary_path = src->path;
    pq_error e;
    err_clear(&e);
    pq_status st = PQ_OK;
    int have = 0;
    if (!src->slices)
        st = err_set(&e, PQ_ERR_INPUT, src->path, -1, "the trace was not read into a timeline");
    if (st == PQ_OK) {
        sm_options so = {.warmup_steps = 5, .hot_op_limit = 25};
        sm_source ss = {"perfetto_trace_json", src->path, "", NULL, src->trace_events, "", NULL};
        have = sm_compute(src->slices, &so, &ss, res) == 0;
        if (!have)
            st = err_set(&e, PQ_ERR_NOMEM, NULL, -1, "out of memory while summarizing");
    }
    record(&in->summary, st, &e);
    if (have)
        in->summary_result = &res->r;
    return have;
}

/* R rendered as FMT into OUT (accumulated); OUT is left empty when that fails but for
 * running out of memory (the page then goes without it). */
static pq_status nsys_part(const pq_nsys_result *r, pq_output fmt, buf *out)
{
    pq_sink s = {put_buf, out};
    pq_error e;
    err_clear(&e);
    pq_status st = pq_nsys_render(r, fmt, &s, &e);
    if (st != PQ_OK)
        out->n = 0;
    return st == PQ_ERR_NOMEM ? st : PQ_OK;
}

/* The nsys renderer's bus bandwidth chart of NS and, on an archive, the variability and
 * bias text and the flame graphs of a second computation with those sections. */
static pq_status nsys_parts(const pq_profile *profile, const pq_nsys_result *ns, int archive,
                            html_inputs *in)
{
    pq_status st =
        ns->ncollectives || ns->xplane ? nsys_part(ns, PQ_OUT_SVG, &in->nsys_busbw_svg) : PQ_OK;
    if (st != PQ_OK || !archive)
        return st;
    pq_nsys_options xo = {PQ_NSYS_VARIABILITY | PQ_NSYS_BIAS | PQ_NSYS_FLAME, PQ_OUT_SVG};
    pq_nsys_result *nsx = NULL;
    pq_error e;
    err_clear(&e);
    st = pq_nsys_compute(profile, &xo, &nsx, &e);
    if (st != PQ_OK) /* the section goes without them */
        return st == PQ_ERR_NOMEM ? st : PQ_OK;
    st = nsys_part(nsx, PQ_OUT_TEXT, &in->nsys_more_text);
    if (st == PQ_OK)
        st = nsys_part(nsx, PQ_OUT_SVG, &in->nsys_flame_svg);
    pq_nsys_free(nsx);
    return st;
}

pq_status pq_render_html(const pq_profile *profile, const pq_html_options *opts, pq_sink *sink,
                         pq_error *err)
{
    pq_html_options o = opts ? *opts : (pq_html_options){0};
    if (o.max_rows <= 0)
        o.max_rows = 1000;
    if (o.max_points <= 0)
        o.max_points = 2000;
    if (o.max_modules <= 0)
        o.max_modules = 4;
    tools_result *t = pq_malloc(sizeof *t);
    RETURN_ERROR_IF(!t, err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    pq_status st = tools_compute(profile, t, err);
    if (st != PQ_OK) {
        pq_free(t);
        return st;
    }
    html_inputs in;
    memset(&in, 0, sizeof in);
    buf_init(&in.nsys_busbw_svg, NULL);
    buf_init(&in.nsys_more_text, NULL);
    buf_init(&in.nsys_flame_svg, NULL);
    in.profile = profile;
    in.opts = &o;
    in.ops.fed = fed(t, "ops");
    in.memviewer.fed = fed(t, "memory-viewer");
    in.memprofile.fed = fed(t, "memory-profile");
    in.memattr_part.fed = fed(t, "memory");
    in.nsys.fed = fed(t, "nsys");
    pq_free(t);

    pq_error e;
    pq_ops_result ops;
    int have_ops = 0;
    if (in.ops.fed) {
        err_clear(&e);
        pq_ops_options oo = {.by = PQ_OPS_BY_CATEGORY}; /* the ops, and by category */
        st = pq_ops_compute(profile, &oo, &ops, &e);
        record(&in.ops, st, &e);
        have_ops = st == PQ_OK;
        if (have_ops)
            in.ops_result = &ops;
    }
    op_profile_tree tree;
    int have_tree = have_ops && op_profile_build(&ops, OP_PROFILE_BY_PROGRAM, 1, &tree) == 0;
    if (have_tree)
        in.op_tree = &tree;
    pq_memory_viewer_result *list = NULL;
    html_module_view *views = NULL;
    st = in.memviewer.fed ? memory_viewers(profile, &in, &list, &views) : PQ_OK;
    pq_nsys_result *ns = NULL;
    if (st == PQ_OK && in.nsys.fed) {
        int archive = 0;
        for (size_t i = 0; i < profile->nsources; i++)
            archive |= profile->sources[i].info.format == PQ_FORMAT_NSYS_JAX;
        pq_nsys_options no = {archive ? PQ_NSYS_MODULES | PQ_NSYS_RUNTIME | PQ_NSYS_COLLECTIVES |
                                            PQ_NSYS_COMPILE
                                      : PQ_NSYS_MODULES,
                              PQ_OUT_TEXT};
        err_clear(&e);
        pq_status s2 = pq_nsys_compute(profile, &no, &ns, &e);
        record(&in.nsys, s2, &e);
        in.nsys_result = s2 == PQ_OK ? ns : NULL;
        if (s2 == PQ_OK)
            st = nsys_parts(profile, ns, archive, &in);
    }
    pq_memory_profile_result *mp = NULL;
    if (st == PQ_OK && in.memprofile.fed) {
        err_clear(&e);
        pq_status s2 = pq_memory_profile_compute(profile, &mp, &e);
        record(&in.memprofile, s2, &e);
        in.memprofile_result = s2 == PQ_OK ? mp : NULL;
    }
    pq_memory_result *ma = NULL;
    if (st == PQ_OK && in.memattr_part.fed) {
        err_clear(&e);
        pq_memory_options mo = {0};
        pq_status s2 = pq_memory_compute(profile, &mo, &ma, &e);
        record(&in.memattr_part, s2, &e);
        in.memattr = s2 == PQ_OK ? ma : NULL;
    }
    sm_result sum;
    int have_sum = st == PQ_OK && trace_summary(profile, &in, &sum);
    if (st == PQ_OK && !(have_sum && in.summary_result && in.summary_result->step_time.nsteps) &&
        !xplane_steps(profile, in.ops_result, &in))
        st = PQ_ERR_NOMEM;
    if (st == PQ_OK)
        st = html_render(&in, sink, err);
    else
        err_set(err, st, NULL, -1, "out of memory");
    pq_free((void *)in.xsteps);
    pq_free((void *)in.xstep_ms);
    if (have_sum)
        sm_result_free(&sum);
    pq_memory_profile_free(mp);
    pq_memory_free(ma);
    pq_nsys_free(ns);
    buf_release(&in.nsys_busbw_svg);
    buf_release(&in.nsys_more_text);
    buf_release(&in.nsys_flame_svg);
    for (size_t i = 0; views && i < in.nmodules; i++)
        pq_memory_viewer_free(views[i].mv);
    pq_free(views);
    pq_memory_viewer_free(list);
    if (have_tree)
        op_profile_free(&tree);
    if (have_ops)
        pq_ops_result_free(&ops);
    return st;
}

static int by_rise(const void *a, const void *b, void *ctx)
{
    const html_op_delta *x = a, *y = b;
    double dx = x->after - x->before, dy = y->after - y->before;
    int sign = *(const int *)ctx; /* 1: largest rise first, -1: largest fall first */
    return dx == dy ? strcmp(x->name, y->name) : (dx > dy ? -sign : sign);
}

/* The hot ops of both summaries matched by name (at most NB + NA pairs) split into those
 * whose exclusive time rose and those whose time fell, each sorted by its change. */
static pq_status op_deltas(const pq_summary_result *s0, const pq_summary_result *s1,
                           html_op_delta **all, html_compare *c)
{
    size_t n = 0, cap = s0->nhot_ops + s1->nhot_ops;
    html_op_delta *d = pq_calloc(cap ? cap : 1, sizeof *d);
    if (!d)
        return PQ_ERR_NOMEM;
    for (size_t i = 0; i < s0->nhot_ops; i++)
        d[n++] = (html_op_delta){s0->hot_ops[i].name, s0->hot_ops[i].exclusive_duration, 0};
    size_t n0 = n;
    for (size_t i = 0; i < s1->nhot_ops; i++) {
        size_t k = 0;
        while (k < n0 && strcmp(d[k].name, s1->hot_ops[i].name) != 0)
            k++;
        if (k == n0)
            d[k = n++] = (html_op_delta){s1->hot_ops[i].name, 0, 0};
        d[k].after = s1->hot_ops[i].exclusive_duration;
    }
    /* rises first, then falls; unchanged ops are in neither */
    size_t nr = 0, nf = 0;
    html_op_delta *out = pq_calloc(n ? n : 1, sizeof *out);
    if (!out) {
        pq_free(d);
        return PQ_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++)
        if (d[i].after > d[i].before)
            out[nr++] = d[i];
    for (size_t i = 0; i < n; i++)
        if (d[i].after < d[i].before)
            out[nr + nf++] = d[i];
    pq_free(d);
    int rise = 1, fall = -1;
    if (pq_sort(out, nr, sizeof *out, by_rise, &rise) != 0 ||
        pq_sort(out + nr, nf, sizeof *out, by_rise, &fall) != 0) {
        pq_free(out);
        return PQ_ERR_NOMEM;
    }
    *all = out;
    c->regressed = out;
    c->nregressed = nr;
    c->improved = out + nr;
    c->nimproved = nf;
    return PQ_OK;
}

pq_status pq_render_html_compare(const char *before, const char *after, const pq_html_options *opts,
                                 pq_sink *sink, pq_error *err)
{
    pq_html_options o = opts ? *opts : (pq_html_options){0};
    if (o.max_rows <= 0)
        o.max_rows = 1000;
    if (o.max_points <= 0)
        o.max_points = 2000;
    pq_summary_options so = {.warmup_steps = 5, .hot_op_limit = 200};
    pq_summary_result *s[2] = {NULL, NULL};
    const char *paths[2] = {before, after};
    pq_status st = PQ_OK;
    for (int i = 0; i < 2 && st == PQ_OK; i++)
        st = pq_summary_compute(paths[i], &so, &s[i], err);
    html_compare c = {{before, after}, {s[0], s[1]}, NULL, NULL, 0, 0, &o};
    html_op_delta *all = NULL;
    if (st == PQ_OK && (st = op_deltas(s[0], s[1], &all, &c)) != PQ_OK)
        err_set(err, st, NULL, -1, "out of memory");
    if (st == PQ_OK)
        st = html_render_compare(&c, sink, err);
    pq_free(all);
    pq_summary_result_free(s[0]);
    pq_summary_result_free(s[1]);
    return st;
}
