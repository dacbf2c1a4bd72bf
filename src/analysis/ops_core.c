/* ops_core.c - the merge core of op metrics (XProf's device OpMetricsDb, spec/xprof-tools.md
 * 5.2-5.6): chooses the device kind (TPU TensorCores, else GPUs, else XLA:CPU host threads),
 * hands each device plane to its extractor (ops_tpu.c, ops_gpu.c, ops_cpu.c), which copies
 * the source's ops (model/ops.h, keyed by (program, symbol, name), stated by the readers)
 * into one table as it meets them and merges
 * their metrics into one op table and one program table over devices and hosts; then
 * annotates the model ops from their HloProtos, makes each row from its model op and
 * metrics (per-occurrence figures scaled by occurrences), adds IDLE, sorts, and sums the windows
 * (captured, in modules, busy, idle, steady state). Not here: reading stats (ops_stats.c), peaks
 * (pq_ops_peaks.c), rates (ops_rates.c), rendering (render/ops_*.c). */
#include "analysis/ops_internal.h"
#include "analysis/ops_steps.h"

#include "core/alloc.h"
#include "core/err.h"

#include <stdlib.h>
#include <string.h>

/* ---- the op table ---- */

op_slot *ops_table_get(op_table *t, uint64_t pid, uint64_t sid, pq_str name, model_op **op,
                       int *fresh)
{
    model_op *o = model_ops_get(t->model, pid, sid, name, fresh);
    if (!o) {
        t->oom = 1;
        return NULL;
    }
    size_t i = (size_t)(o - t->model->v);
    if (i >= t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 256;
        while (cap <= i)
            cap *= 2;
        op_slot *v = pq_realloc_array(t->v, cap, sizeof *v);
        if (!v) {
            t->oom = 1;
            return NULL;
        }
        t->v = v;
        t->cap = cap;
    }
    if (*fresh)
        memset(&t->v[i], 0, sizeof t->v[i]);
    *op = o;
    return &t->v[i];
}

/* ---- programs ---- */

pq_ops_program *ops_prog_get(prog_table *t, uint64_t pid)
{
    for (size_t i = 0; i < t->n; i++) /* few programs per profile */
        if (t->v[i].program_id == pid)
            return &t->v[i];
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        pq_ops_program *v = pq_realloc_array(t->v, cap, sizeof *v);
        if (!v) {
            t->oom = 1;
            return NULL;
        }
        t->v = v;
        t->cap = cap;
    }
    pq_ops_program *p = &t->v[t->n++];
    memset(p, 0, sizeof *p);
    p->program_id = pid;
    p->first_ps = INT64_MAX;
    return p;
}

void ops_prog_name_from_module(pq_ops_program *p, pq_str module)
{
    if (p->name.n || !module.n)
        return;
    for (size_t k = module.n; k > 0; k--)
        if (module.p[k - 1] == '(') {
            module.n = k - 1;
            break;
        }
    p->name = module;
}

void ops_add_device(pq_ops_result *out, int64_t span, int64_t plane_self, double plane_norm,
                    int64_t busy, int64_t module_ps)
{
    int64_t total = span > plane_self ? span : plane_self;
    out->total_time_ps += total;
    out->total_op_time_ps += plane_self;
    out->normalized_total_op_time_ps += plane_norm;
    out->window_ps += total;
    out->busy_ps += busy;
    out->module_ps += module_ps;
    out->ndevices++;
}

/* ---- compute ---- */

int ops_row_order(const void *a, const void *b)
{
    const pq_op_row *x = a, *y = b;
    if (x->is_idle != y->is_idle)
        return x->is_idle - y->is_idle;
    if (x->self_time_ps != y->self_time_ps)
        return x->self_time_ps > y->self_time_ps ? -1 : 1;
    size_t n = x->name.n < y->name.n ? x->name.n : y->name.n;
    int c = n ? memcmp(x->name.p, y->name.p, n) : 0;
    if (c)
        return c;
    if (x->name.n != y->name.n)
        return x->name.n < y->name.n ? -1 : 1;
    if (x->program_id != y->program_id)
        return x->program_id < y->program_id ? -1 : 1;
    return x->symbol_id < y->symbol_id ? -1 : x->symbol_id > y->symbol_id;
}

int ops_program_order(const void *a, const void *b)
{
    const pq_ops_program *x = a, *y = b;
    if (x->op_self_ps != y->op_self_ps)
        return x->op_self_ps > y->op_self_ps ? -1 : 1;
    return x->program_id < y->program_id ? -1 : x->program_id > y->program_id;
}

int ops_plane_is(const pq_source *src, const xp_plane *pl, const char *kind)
{
    return xp_plane_is(src, pl, kind);
}

/* Device planes: TPU TensorCores if any source has them, else GPUs (spec 5.1), else host
 * threads with hlo_op stats (XLA:CPU) unless OPT asks for device planes only. */
static pq_ops_hw choose_hw(const pq_profile *prof, const ops_options *opt)
{
    static const char *const kinds[2] = {"TPU", "GPU"};
    for (int k = 0; k < 2; k++)
        for (size_t si = 0; si < prof->nsources; si++)
            for (uint32_t pi = 0; pi < prof->sources[si].nplanes; pi++)
                if (ops_plane_is(&prof->sources[si], &prof->sources[si].planes[pi], kinds[k]))
                    return k == 0 ? PQ_OPS_HW_TPU : PQ_OPS_HW_GPU;
    if (opt && opt->device_only)
        return PQ_OPS_HW_NONE;
    for (size_t si = 0; si < prof->nsources; si++)
        for (uint32_t pi = 0; pi < prof->sources[si].nplanes; pi++)
            if (ops_plane_is(&prof->sources[si], &prof->sources[si].planes[pi], "CPU") &&
                xp_stat_meta_by_name(&prof->sources[si].planes[pi], "hlo_op"))
                return PQ_OPS_HW_CPU;
    /* Trace JSON (profq's own: XProf reads no trace JSON): XLA ops, else GPU streams. */
    return ops_trace_hw(prof);
}

/* Every plane of the chosen kind (its model device's kind) through its extractor; peaks
 * from the first one's capabilities. 0 when out of memory. */
static int merge_planes(const pq_profile *prof, ops_ctx *cx)
{
    pq_ops_result *out = cx->out;
    const char *want = out->hw == PQ_OPS_HW_TPU ? "TPU" : out->hw == PQ_OPS_HW_GPU ? "GPU" : "CPU";
    int have_peaks = 0;
    for (size_t si = 0; out->hw != PQ_OPS_HW_NONE && si < prof->nsources; si++) {
        const pq_source *src = &prof->sources[si];
        for (uint32_t pi = 0; pi < src->nplanes; pi++) {
            const xp_plane *pl = &src->planes[pi];
            if (!ops_plane_is(src, pl, want))
                continue;
            out->device_planes++;
            if (!have_peaks) {
                ops_peaks_from_device(&src->devices, xp_plane_device(src, pl), out);
                have_peaks = 1;
            }
            int ok = out->hw == PQ_OPS_HW_TPU   ? ops_tpu_plane(src, pl, cx)
                     : out->hw == PQ_OPS_HW_GPU ? ops_gpu_plane(src, pl, cx)
                                                : ops_cpu_plane(src, pl, cx);
            if (!ok || cx->ops->oom || cx->ops->model->oom || cx->progs->oom)
                return 0;
        }
        if (src->slices && !ops_trace_source(src, out->hw, cx))
            return 0;
    }
    return 1;
}

/* GPU/CPU: category, provenance and costs of each program's ops from its HloProto; TPU: the
 * fused instructions of its fusion ops. */
static int annotate_programs(const pq_profile *prof, pq_ops_result *out, op_table *t,
                             const prog_table *pt)
{
    if (out->hw != PQ_OPS_HW_GPU && out->hw != PQ_OPS_HW_CPU && out->hw != PQ_OPS_HW_TPU)
        return 1;
    arena *strings = pq_calloc(1, sizeof *strings);
    if (strings)
        arena_init(strings);
    out->strings = strings;
    for (size_t k = 0; k < pt->n; k++)
        for (size_t si = 0; si < prof->nsources; si++)
            for (uint32_t i = 0; i < prof->sources[si].nprograms; i++) {
                const pq_program *pg = &prof->sources[si].programs[i];
                if (pg->program_id != pt->v[k].program_id || !pg->hlo)
                    continue;
                if (!out->strings ||
                    (out->hw == PQ_OPS_HW_TPU
                         ? !ops_tpu_fused(t->model, &prof->sources[si], pg, out->strings)
                         : !ops_annotate_from_hlo(t->model, &prof->sources[si], pg,
                                                  out->hw == PQ_OPS_HW_GPU, out->strings)))
                    return 0;
            }
    return 1;
}

/* Finalize (spec 5.3): per-occurrence metadata figures times occurrences, program sums,
 * the IDLE row, the sort. 0 when out of memory. */
static int finalize_ops(pq_ops_result *out, op_table *t, prog_table *pt)
{
    size_t nops = t->model->n;
    out->ops = pq_calloc(nops + 1, sizeof *out->ops);
    if (!out->ops)
        return 0;
    for (size_t i = 0; i < nops; i++) {
        const model_op *o = &t->model->v[i];
        const op_metrics *x = &t->v[i].m;
        pq_op_row *m = &out->ops[i];
        double occ = (double)x->occurrences;
        m->occurrences = x->occurrences;
        m->time_ps = x->time_ps;
        m->self_time_ps = x->self_time_ps;
        m->min_time_ps = x->min_time_ps;
        m->dma_stall_ps = x->dma_stall_ps;
        m->normalized_time_ps = x->normalized_time_ps;
        m->flops = x->flops;
        m->model_flops = x->model_flops;
        m->bytes_accessed = x->bytes_accessed;
        m->program_id = o->program_id;
        m->symbol_id = o->symbol_id;
        m->name = o->name;
        m->long_name = o->long_name;
        m->category = o->category;
        m->provenance = o->provenance;
        m->op_type = o->op_type;
        m->provenance_from_hlo = o->provenance_from_hlo;
        m->dedup_name = o->dedup_name;
        m->source = o->source;
        m->source_stack = o->source_stack;
        m->fused = o->fused;
        m->nfused = o->nfused;
        if (!o->custom_call) {
            m->flops = o->flops * occ;
            m->model_flops = o->model_flops * occ;
            m->bytes_accessed = o->bytes * occ;
        }
        /* XProf's PerformanceInfoWrapper: the cost analysis's figures where positive */
        if (o->cost_flops > 0)
            m->flops = o->cost_flops * occ;
        if (o->cost_model_flops > 0)
            m->model_flops = o->cost_model_flops * occ;
        if (o->cost_bytes > 0)
            m->bytes_accessed = o->cost_bytes * occ;
        if (m->model_flops == 0)
            m->model_flops = m->flops;
        m->has_breakdown = o->bd.has_breakdown;
        m->bd_hbm = o->bd.bd_hbm * occ;
        m->bd_cmem_rd = o->bd.bd_cmem_rd * occ;
        m->bd_cmem_wr = o->bd.bd_cmem_wr * occ;
        m->bd_vmem_rd = o->bd.bd_vmem_rd * occ;
        m->bd_vmem_wr = o->bd.bd_vmem_wr * occ;
        m->bd_onchip_rd = o->bd.bd_onchip_rd * occ;
        m->bd_onchip_wr = o->bd.bd_onchip_wr * occ;
        pq_ops_program *p = NULL;
        for (size_t k = 0; k < pt->n; k++)
            if (pt->v[k].program_id == m->program_id)
                p = &pt->v[k];
        if (p) {
            p->flops += m->flops;
            p->model_flops += m->model_flops;
            p->bytes_accessed += m->bytes_accessed;
            p->hbm_bytes += m->has_breakdown ? m->bd_hbm : m->bytes_accessed;
        }
    }
    out->nops = nops;
    if (out->ndevices > 0) {
        pq_op_row *idle = &out->ops[out->nops++];
        idle->name = pq_str_of("IDLE", 4);
        idle->category = idle->name;
        idle->is_idle = 1;
        idle->time_ps = idle->self_time_ps = out->total_time_ps - out->total_op_time_ps;
    }
    out->idle_ps = out->total_time_ps - out->total_op_time_ps;
    if (out->nops)
        qsort(out->ops, out->nops, sizeof *out->ops, ops_row_order);
    return 1;
}

/* Program names from the HloProtos the profile carries, where module lines named none;
 * then the programs, sorted, move into OUT. */
static void finalize_programs(const pq_profile *prof, pq_ops_result *out, prog_table *pt)
{
    for (size_t k = 0; k < pt->n; k++)
        for (size_t si = 0; si < prof->nsources && pt->v[k].name.n == 0; si++)
            for (uint32_t i = 0; i < prof->sources[si].nprograms; i++)
                if (prof->sources[si].programs[i].program_id == pt->v[k].program_id) {
                    pt->v[k].name = prof->sources[si].programs[i].name;
                    break;
                }
    if (pt->n)
        qsort(pt->v, pt->n, sizeof *pt->v, ops_program_order);
    for (size_t k = 0; k < pt->n; k++)
        for (size_t j = k + 1; j < pt->n; j++)
            if (ops_str_same(pt->v[k].name, pt->v[j].name))
                pt->v[k].name_shared = pt->v[j].name_shared = 1;
    out->programs = pt->v;
    out->nprograms = pt->n;
    pt->v = NULL;
}

/* Steady state: the dominant program's executions after its first (warm-up, compile and
 * cache fill) on each device; its op time scales by the module-time share. */
void ops_steady_state(pq_ops_result *out)
{
    pq_ops_program *dom = NULL;
    for (size_t k = 0; k < out->nprograms; k++)
        if (out->programs[k].executions > 1 &&
            (!dom || out->programs[k].module_ps > dom->module_ps))
            dom = &out->programs[k];
    if (!dom)
        return;
    out->has_dominant = 1;
    out->dominant_program = dom->program_id;
    dom->steady_share = ops_safe_div((double)dom->steady_module_ps, (double)dom->module_ps);
    out->steady_window_ps = dom->steady_module_ps;
    out->steady_busy_ps = (int64_t)((double)dom->op_self_ps * dom->steady_share);
}

pq_status ops_compute(const pq_profile *prof, const ops_options *opt, pq_ops_result *out,
                      pq_error *err)
{
    model_ops ops = {0};
    pq_status st = ops_compute_model(prof, opt, out, &ops, err);
    model_ops_free(&ops);
    return st;
}

pq_status ops_compute_model(const pq_profile *prof, const ops_options *opt, pq_ops_result *out,
                            model_ops *ops, pq_error *err)
{
    memset(out, 0, sizeof *out);
    op_table t = {ops, NULL, 0, 0};
    prog_table pt = {0};
    ops_steps steps;
    out->hw = choose_hw(prof, opt);
    /* XProf's step grouping changes its GPU op rows (ops_gpu.c): for its tables only; profq's
     * own reports keep each kernel under its program. */
    int ok = ops_steps_build(prof, out->hw == PQ_OPS_HW_GPU && opt && opt->device_only, &steps);
    ops_ctx cx = {&t, &pt, out, &steps};
    out->steps_combined = ok && steps.combined;
    out->steps_empty_intersect = ok && steps.empty_intersect;
    if (ok && steps.nsteps) { /* roofline_model's step rows */
        out->steps = pq_malloc_array(steps.nsteps, sizeof *out->steps);
        ok = out->steps != NULL;
        if (ok) {
            memcpy(out->steps, steps.steps, steps.nsteps * sizeof *out->steps);
            out->nsteps = steps.nsteps;
        }
    }
    ok = ok && merge_planes(prof, &cx);
    ops_steps_free(&steps);
    if (ok && opt && opt->device_only) /* XProf's tables: several XSpaces' PerfEnv */
        ops_peaks_xprof_combine(&out->peaks, ops_xspace_count(prof));
    if (ok && opt && opt->peak_tflops > 0) {
        out->peaks.tflops = opt->peak_tflops;
        out->peaks.user_flops = 1;
    }
    if (ok && opt && opt->peak_hbm_gbps > 0) {
        out->peaks.bws[0] = opt->peak_hbm_gbps;
        out->peaks.user_bw = 1;
    }
    ok = ok && annotate_programs(prof, out, &t, &pt) && finalize_ops(out, &t, &pt);
    if (ok) {
        finalize_programs(prof, out, &pt);
        ops_steady_state(out);
        for (size_t i = 0; i < out->nops; i++)
            ops_rates(out, &out->ops[i], &out->ops[i].rates);
        ok = ops_derive(out, opt ? opt->by : PQ_OPS_BY_OP);
        if (ok && out->hw == PQ_OPS_HW_TPU && opt && opt->device_only)
            ok = ops_steps_tpu(prof, out); /* roofline_model's TPU step records */
    }
    pq_free(t.v);
    pq_free(pt.v);
    if (ok)
        return PQ_OK;
    ops_free(out);
    return err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory computing op metrics");
}

void ops_free(pq_ops_result *r)
{
    if (!r)
        return;
    pq_free(r->ops);
    pq_free(r->programs);
    pq_free(r->groups);
    pq_free(r->steps);
    pq_free(r->step_rows);
    r->steps = NULL;
    r->step_rows = NULL;
    r->nsteps = 0;
    if (r->strings) {
        arena_release(r->strings);
        pq_free(r->strings);
        r->strings = NULL;
    }
    r->ops = NULL;
    r->programs = NULL;
    r->groups = NULL;
    r->nops = r->nprograms = r->ngroups = 0;
}

/* ---- nesting ---- */

static int span_cmp(const void *a, const void *b)
{
    const ops_span *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->dur != y->dur)
        return x->dur > y->dur ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

int ops_nest(void *recs, size_t n, size_t stride, int64_t *busy)
{
    unsigned char *base = recs;
#define SPAN(i) ((ops_span *)(void *)(base + (i)*stride))
    if (n)
        qsort(recs, n, stride, span_cmp);
    size_t *stack = pq_malloc_array(n ? n : 1, sizeof *stack);
    if (!stack)
        return 0;
    size_t depth = 0;
    int64_t busy_end = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        ops_span *r = SPAN(i);
        while (depth > 0) {
            const ops_span *p = SPAN(stack[depth - 1]);
            if (p->start <= r->start && r->start + r->dur <= p->start + p->dur)
                break;
            depth--;
        }
        if (depth > 0) {
            SPAN(stack[depth - 1])->children += r->dur;
        } else {
            int64_t e = r->start + r->dur;
            if (r->start >= busy_end)
                *busy += r->dur, busy_end = e;
            else if (e > busy_end)
                *busy += e - busy_end, busy_end = e;
        }
        stack[depth++] = i;
    }
#undef SPAN
    pq_free(stack);
    return 1;
}
