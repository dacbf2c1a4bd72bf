/* ops_merge.c - op metrics as a partial and its merge (issue 15 Deliver 2): keeps of a
 * pq_ops_result only what sums over hosts (rows keyed by program, symbol and name; programs
 * by id; device windows and counts) and the peaks of the first device, merges two such parts,
 * and finishes a part into the pq_ops_result ops_compute gives for all the sources at once:
 * IDLE row, program sums, the sort, steady state, rates and groups (ops_core.c's finishing
 * steps on the merged table; ops_rates.c and ops_derived.c as they are). Not the reading of
 * planes (ops_core.c and the extractors), not the bytes on disk (api/partial_ops.c). */
#include "analysis/ops_merge.h"
#include "analysis/ops.h"
#include "analysis/ops_steps.h"
#include "core/alloc.h"
#include "core/err.h"

#include <stdlib.h>
#include <string.h>

static pq_str dup_str(arena *a, pq_str s, int *ok)
{
    if (!s.n)
        return pq_str_of("", 0);
    char *c = arena_strndup(a, s.p, s.n);
    if (!c) {
        *ok = 0;
        return pq_str_of("", 0);
    }
    return pq_str_of(c, s.n);
}

/* Path S as held in P's table of paths (added when new), which the rows' first and last
 * point into: a part holds each source path once. */
static pq_str part_path(ops_part *p, pq_str s, int *ok)
{
    for (size_t i = p->npaths; i > 0; i--) /* the latest first: rows come source by source */
        if (p->paths[i - 1].n == s.n && memcmp(p->paths[i - 1].p, s.p, s.n) == 0)
            return p->paths[i - 1];
    if (p->npaths == p->cap_paths) {
        size_t cap = p->cap_paths ? p->cap_paths * 2 : 8;
        pq_str *v = pq_realloc_array(p->paths, cap, sizeof *v);
        if (!v) {
            *ok = 0;
            return pq_str_of("", 0);
        }
        p->paths = v;
        p->cap_paths = cap;
    }
    pq_str c = dup_str(&p->strings, s, ok);
    p->paths[p->npaths++] = c;
    return c;
}

/* Points ROW's strings into A; the derived and private fields cleared. */
static void own_row(arena *a, pq_op_row *row, int *ok)
{
    row->name = dup_str(a, row->name, ok);
    row->long_name = dup_str(a, row->long_name, ok);
    row->category = dup_str(a, row->category, ok);
    row->provenance = dup_str(a, row->provenance, ok);
    row->dedup_name = dup_str(a, row->dedup_name, ok);
    row->source = dup_str(a, row->source, ok);
    row->source_stack = dup_str(a, row->source_stack, ok);
    row->op_type = dup_str(a, row->op_type, ok);
    if (!ops_part_own_fused(a, row))
        *ok = 0;
    memset(&row->rates, 0, sizeof row->rates);
}

size_t ops_fused_entries(const pq_fused_op *f, uint32_t n)
{
    size_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        k += f[k].size ? f[k].size : 1;
    return k;
}

/* The TPU fusions' instructions (op_profile's) in A: they come with the row's HloProto names
 * (add_row). */
int ops_part_own_fused(arena *a, pq_op_row *row)
{
    size_t n = row->nfused ? ops_fused_entries(row->fused, row->nfused) : 0;
    pq_fused_op *v = n ? arena_alloc(a, n * sizeof *v) : NULL;
    if (n && !v)
        return 0;
    int ok = 1;
    for (size_t i = 0; i < n; i++) {
        v[i] = row->fused[i];
        v[i].name = dup_str(a, v[i].name, &ok);
        v[i].expression = dup_str(a, v[i].expression, &ok);
        v[i].category = dup_str(a, v[i].category, &ok);
        v[i].provenance = dup_str(a, v[i].provenance, &ok);
    }
    row->fused = v;
    if (!n)
        row->nfused = 0;
    return ok;
}

/* Clears what ops_part_result derives again, so that a part holds sums only. */
static void clear_derived(pq_ops_result *r)
{
    r->idle_ps = 0;
    r->strings = NULL;
    r->steady_window_ps = r->steady_busy_ps = 0;
    r->dominant_program = 0;
    r->has_dominant = 0;
    r->steady_gflops = r->steady_hbm_gibps = 0;
    r->by = PQ_OPS_BY_OP;
    r->groups = NULL;
    r->ngroups = 0;
    r->steps = NULL;     /* XProf's step rows: from the parts' hosts (ops_part_result) */
    r->step_rows = NULL; /* TPU: from the parts' step counts (ops_steps_tpu_records) */
    r->nsteps = 0;
    r->steps_combined = r->steps_empty_intersect = 0;
    memset(&r->roofline, 0, sizeof r->roofline);
}

static void clear_program(pq_ops_program *p)
{
    p->flops = p->model_flops = p->bytes_accessed = p->hbm_bytes = 0;
    p->steady_share = 0;
    p->name_shared = 0;
    p->active_gflops = p->whole_gflops = p->active_hbm_gibps = p->whole_hbm_gibps = 0;
    p->seen_on = NULL;
}

/* Is M's cost scaled from per-occurrence metadata (ops_tpu.c: TPU ops but custom calls)? */
static int scaled_row(const pq_ops_result *r, const pq_op_row *m)
{
    return r->hw == PQ_OPS_HW_TPU && m->occurrences > 0 &&
           !(m->category.n == 11 && memcmp(m->category.p, "custom-call", 11) == 0);
}

/* *A += B; *OVER set when the sum leaves int64 (a crafted partial: real sums of
 * picoseconds and counts stay far below 2^63). */
static void add_i64(int64_t *a, int64_t b, int *over)
{
    if (__builtin_add_overflow(*a, b, a))
        *over = 1;
}

static void add_u32(uint32_t *a, uint32_t b, int *over)
{
    if (__builtin_add_overflow(*a, b, a))
        *over = 1;
}

/* The figures of row M, in ops_prow.per's order. */
static double *figure(pq_op_row *m, int k)
{
    double *f[OPS_PER_N] = {&m->flops,        &m->model_flops, &m->bytes_accessed, &m->bd_hbm,
                            &m->bd_cmem_rd,   &m->bd_cmem_wr,  &m->bd_vmem_rd,     &m->bd_vmem_wr,
                            &m->bd_onchip_rd, &m->bd_onchip_wr};
    return f[k];
}

/* A scaled row's per-occurrence figures: its figures divided by its occurrences, the
 * metadata's again (exact when the product was, as FLOP and byte counts below 2^53 are). */
static void per_occurrence(ops_prow *row)
{
    for (int k = 0; k < OPS_PER_N; k++)
        row->per[k] = *figure(&row->m, k) / (double)row->m.occurrences;
}

int ops_part_from_result(ops_part *p, const pq_ops_result *r, pq_str key, int has_key, pq_str last)
{
    memset(p, 0, sizeof *p);
    arena_init(&p->strings);
    int ok = 1;
    p->key = dup_str(&p->strings, key, &ok);
    p->has_key = has_key;
    p->last = dup_str(&p->strings, last, &ok);
    p->r = *r;
    clear_derived(&p->r);
    p->r.ops = NULL;
    p->r.nops = 0;
    p->rows = pq_calloc(r->nops ? r->nops : 1, sizeof *p->rows);
    p->r.programs = pq_calloc(r->nprograms ? r->nprograms : 1, sizeof *p->r.programs);
    p->r.nprograms = 0;
    if (!p->rows || !p->r.programs)
        return 0;
    for (size_t i = 0; i < r->nops; i++) {
        if (r->ops[i].is_idle)
            continue;
        ops_prow *row = &p->rows[p->nrows++];
        row->m = r->ops[i];
        own_row(&p->strings, &row->m, &ok);
        row->first = row->last = part_path(p, p->last, &ok);
        row->scaled = scaled_row(r, &row->m);
        if (row->scaled)
            per_occurrence(row);
    }
    for (size_t i = 0; i < r->nprograms; i++) {
        pq_ops_program *q = &p->r.programs[p->r.nprograms++];
        *q = r->programs[i];
        q->name = dup_str(&p->strings, q->name, &ok);
        clear_program(q);
    }
    return ok && !arena_failed(&p->strings);
}

void ops_part_free(ops_part *p)
{
    if (!p)
        return;
    pq_free(p->rows);
    pq_free(p->paths);
    pq_free(p->r.programs);
    pq_free(p->hosts);
    ops_tpu_steps_free(&p->tpu);
    arena_release(&p->host_mem);
    arena_release(&p->strings);
}

/* ---- merge ---- */

/* The table key of a row: program, symbol (0 for GPU and CPU ops) and name (ops_core.c's
 * table hashes all three, so ops of one symbol but two names are two rows). */
static int key_cmp(const pq_op_row *x, const pq_op_row *y)
{
    if (x->program_id != y->program_id)
        return x->program_id < y->program_id ? -1 : 1;
    if (x->symbol_id != y->symbol_id)
        return x->symbol_id < y->symbol_id ? -1 : 1;
    size_t n = x->name.n < y->name.n ? x->name.n : y->name.n;
    int c = n ? memcmp(x->name.p, y->name.p, n) : 0;
    if (c)
        return c;
    return x->name.n < y->name.n ? -1 : x->name.n > y->name.n;
}

static int row_key_cmp(const void *a, const void *b)
{
    return key_cmp(a, b);
}

static int prow_key_cmp(const void *a, const void *b)
{
    return key_cmp(&((const ops_prow *)a)->m, &((const ops_prow *)b)->m);
}

static int str_cmp(pq_str a, pq_str b)
{
    size_t n = a.n < b.n ? a.n : b.n;
    int c = n ? memcmp(a.p, b.p, n) : 0;
    return c ? c : a.n < b.n ? -1 : a.n > b.n;
}

/* Does FROM's first device come before INTO's (one process: sources in sorted order)? */
static int from_first(const ops_part *into, const ops_part *from)
{
    if (!from->has_key || !into->has_key)
        return from->has_key && !into->has_key;
    return str_cmp(from->key, into->key) < 0;
}

/* A string of the row: the first part's where it states one. */
static pq_str pick(arena *a, pq_str mine, pq_str theirs, int theirs_first, int *ok)
{
    if (theirs.n && (theirs_first || !mine.n))
        return dup_str(a, theirs, ok);
    return mine;
}

/* The names of row M from F: the first part's, except that names from an HloProto
 * (provenance_from_hlo) replace the events' and come from the last part that has them. */
static void add_names(arena *a, pq_op_row *m, const pq_op_row *f, int f_first, int f_last, int *ok)
{
    m->name = pick(a, m->name, f->name, f_first, ok);
    if (f->provenance_from_hlo && (!m->provenance_from_hlo || f_last)) {
        m->long_name = dup_str(a, f->long_name, ok);
        m->category = dup_str(a, f->category, ok);
        m->provenance = dup_str(a, f->provenance, ok);
        m->dedup_name = dup_str(a, f->dedup_name, ok);
        m->source = dup_str(a, f->source, ok);
        m->source_stack = dup_str(a, f->source_stack, ok);
        m->op_type = dup_str(a, f->op_type, ok);
        m->provenance_from_hlo = 1;
    } else if (!m->provenance_from_hlo) {
        m->long_name = pick(a, m->long_name, f->long_name, f_first, ok);
        m->category = pick(a, m->category, f->category, f_first, ok);
        m->provenance = pick(a, m->provenance, f->provenance, f_first, ok);
        m->dedup_name = pick(a, m->dedup_name, f->dedup_name, f_first, ok);
        m->source = pick(a, m->source, f->source, f_first, ok);
        m->source_stack = pick(a, m->source_stack, f->source_stack, f_first, ok);
        m->op_type = pick(a, m->op_type, f->op_type, f_first, ok);
    }
}

static void add_row(ops_part *into, ops_prow *pm, const ops_prow *pf, int *ok)
{
    arena *a = &into->strings;
    int f_first = str_cmp(pf->first, pm->first)<0, f_last = str_cmp(pf->last, pm->last)> 0;
    pq_op_row *m = &pm->m;
    const pq_op_row *f = &pf->m;
    add_names(a, m, f, f_first, f_last, ok);
    if (f->occurrences && (!m->occurrences || f->min_time_ps < m->min_time_ps))
        m->min_time_ps = f->min_time_ps;
    add_i64(&m->time_ps, f->time_ps, &into->overflow);
    add_i64(&m->self_time_ps, f->self_time_ps, &into->overflow);
    add_i64(&m->dma_stall_ps, f->dma_stall_ps, &into->overflow);
    m->normalized_time_ps += f->normalized_time_ps;
    pq_op_row g = *f;
    for (int k = 0; k < OPS_PER_N; k++)
        *figure(m, k) += *figure(&g, k);
    if (f_first) { /* whether to scale, and by what, is the first source's */
        pm->scaled = pf->scaled;
        memcpy(pm->per, pf->per, sizeof pm->per);
        pm->first = part_path(into, pf->first, ok);
    }
    if (f_last)
        pm->last = part_path(into, pf->last, ok);
    if (f->nfused && (!m->nfused || f_last)) { /* from the HloProto, as the names */
        m->fused = f->fused;
        m->nfused = f->nfused;
        if (!ops_part_own_fused(a, m))
            *ok = 0;
    }
    m->has_breakdown |= f->has_breakdown;
    add_i64(&m->occurrences, f->occurrences, &into->overflow);
}

static int merge_rows(ops_part *into, const ops_part *from)
{
    int ok = 1;
    size_t n = into->nrows, cap = n + from->nrows;
    ops_prow *v = pq_realloc_array(into->rows, cap ? cap : 1, sizeof *v);
    if (!v)
        return 0;
    into->rows = v;
    if (n)
        qsort(v, n, sizeof *v, prow_key_cmp);
    for (size_t i = 0; i < from->nrows; i++) {
        const ops_prow *f = &from->rows[i];
        ops_prow *m = n ? bsearch(f, v, n, sizeof *v, prow_key_cmp) : NULL;
        if (m) {
            add_row(into, m, f, &ok);
            continue;
        }
        /* appended after the sorted N: searched only by later parts' merges */
        ops_prow *row = &v[into->nrows++];
        *row = *f;
        own_row(&into->strings, &row->m, &ok);
        row->first = part_path(into, f->first, &ok);
        row->last = part_path(into, f->last, &ok);
    }
    return ok;
}

static int merge_programs(ops_part *into, const ops_part *from, int f_first)
{
    int ok = 1;
    for (size_t i = 0; i < from->r.nprograms; i++) {
        const pq_ops_program *f = &from->r.programs[i];
        pq_ops_program *m = NULL;
        for (size_t k = 0; k < into->r.nprograms && !m; k++)
            if (into->r.programs[k].program_id == f->program_id)
                m = &into->r.programs[k];
        if (!m) {
            pq_ops_program *v =
                pq_realloc_array(into->r.programs, into->r.nprograms + 1, sizeof *v);
            if (!v)
                return 0;
            into->r.programs = v;
            m = &v[into->r.nprograms++];
            *m = *f;
            m->name = dup_str(&into->strings, f->name, &ok);
            continue;
        }
        m->name = pick(&into->strings, m->name, f->name, f_first, &ok);
        add_i64(&m->executions, f->executions, &into->overflow);
        add_i64(&m->module_ps, f->module_ps, &into->overflow);
        add_i64(&m->op_self_ps, f->op_self_ps, &into->overflow);
        if (f->first_ps < m->first_ps)
            m->first_ps = f->first_ps;
        add_i64(&m->steady_executions, f->steady_executions, &into->overflow);
        add_i64(&m->steady_module_ps, f->steady_module_ps, &into->overflow);
    }
    return ok;
}

int ops_part_sums_fit(const ops_part *p)
{
    int over = 0;
    int64_t occ = 0, time = 0, self = 0, stall = 0;
    for (size_t i = 0; i < p->nrows; i++) {
        const pq_op_row *m = &p->rows[i].m;
        add_i64(&occ, m->occurrences, &over);
        add_i64(&time, m->time_ps, &over);
        add_i64(&self, m->self_time_ps, &over);
        add_i64(&stall, m->dma_stall_ps, &over);
    }
    int64_t exec = 0, module = 0, op_self = 0;
    for (size_t k = 0; k < p->r.nprograms; k++) {
        const pq_ops_program *g = &p->r.programs[k];
        add_i64(&exec, g->executions, &over);
        add_i64(&module, g->module_ps, &over);
        add_i64(&op_self, g->op_self_ps, &over);
    }
    return !over;
}

int ops_part_add_host(ops_part *p, const ops_part_host *h)
{
    ops_part_host *v = pq_realloc_array(p->hosts, p->nhosts + 1, sizeof *v);
    if (!v)
        return 0;
    p->hosts = v;
    size_t at = p->nhosts;
    while (at > 0 && str_cmp(v[at - 1].path, h->path) > 0)
        at--;
    memmove(v + at + 1, v + at, (p->nhosts - at) * sizeof *v);
    p->nhosts++;
    int ok = 1;
    v[at].path = dup_str(&p->host_mem, h->path, &ok);
    v[at].nsteps = h->nsteps;
    v[at].v = arena_alloc(&p->host_mem, 3 * h->nsteps * sizeof *v[at].v + 1);
    if (!ok || !v[at].v)
        return 0;
    if (h->nsteps)
        memcpy(v[at].v, h->v, 3 * h->nsteps * sizeof *v[at].v);
    return 1;
}

/* What XProf's tables take from every XSpace (ops_part.xprof): counted over all kinds. */
static int merge_steps(ops_part *into, const ops_part *from)
{
    into->xspaces += from->xspaces;
    into->trace_kinds |= from->trace_kinds;
    into->steps_active |= from->steps_active;
    into->steps_unsupported |= from->steps_unsupported;
    if (!ops_tpu_steps_merge(&into->tpu, &from->tpu, &into->host_mem))
        return 0; /* TPU hosts' steps, in path order */
    for (size_t i = 0; i < from->nhosts; i++)
        if (!ops_part_add_host(into, &from->hosts[i]))
            return 0;
    return 1;
}

int ops_part_merge(ops_part *into, const ops_part *from)
{
    pq_ops_result *a = &into->r;
    const pq_ops_result *b = &from->r;
    if (!merge_steps(into, from))
        return 0;
    if (b->hw < a->hw) /* one process reads the highest kind's planes only */
        return 1;
    if (b->hw > a->hw) { /* the other way round: FROM replaces INTO */
        ops_part keep = *into;
        into->hosts = NULL;
        arena_init(&into->host_mem);
        memset(&into->tpu, 0, sizeof into->tpu);
        ops_part_free(into);
        memset(into, 0, sizeof *into);
        arena_init(&into->strings);
        into->xprof = keep.xprof;
        into->steps_active = keep.steps_active;
        into->steps_unsupported = keep.steps_unsupported;
        into->xspaces = keep.xspaces;
        into->trace_kinds = keep.trace_kinds;
        into->hosts = keep.hosts;
        into->nhosts = keep.nhosts;
        into->host_mem = keep.host_mem;
        into->tpu = keep.tpu;
        into->r = *b;
        into->r.ops = NULL;
        into->r.programs = NULL;
        into->r.nprograms = 0;
        a->ndevices = a->device_planes = 0;
        a->total_time_ps = a->total_op_time_ps = a->window_ps = a->module_ps = a->busy_ps = 0;
        a->normalized_total_op_time_ps = 0;
        a->has_modules = 0;
    }
    int f_first = from_first(into, from);
    int f_last = str_cmp(from->last, into->last) > 0;
    if (f_first) {
        int ok = 1;
        memcpy(a->device_type, b->device_type, sizeof a->device_type);
        memcpy(a->gpu_model, b->gpu_model, sizeof a->gpu_model);
        a->peaks = b->peaks;
        into->key = dup_str(&into->strings, from->key, &ok);
        into->has_key = 1;
        if (!ok)
            return 0;
    }
    add_u32(&a->ndevices, b->ndevices, &into->overflow);
    add_u32(&a->device_planes, b->device_planes, &into->overflow);
    add_i64(&a->total_time_ps, b->total_time_ps, &into->overflow);
    add_i64(&a->total_op_time_ps, b->total_op_time_ps, &into->overflow);
    a->normalized_total_op_time_ps += b->normalized_total_op_time_ps;
    add_i64(&a->window_ps, b->window_ps, &into->overflow);
    a->has_modules |= b->has_modules;
    add_i64(&a->module_ps, b->module_ps, &into->overflow);
    add_i64(&a->busy_ps, b->busy_ps, &into->overflow);
    if (f_last) {
        int ok = 1;
        into->last = dup_str(&into->strings, from->last, &ok);
        if (!ok)
            return 0;
    }
    if (!merge_rows(into, from) || !merge_programs(into, from, f_first) ||
        arena_failed(&into->strings))
        return 0;
    return into->overflow || !ops_part_sums_fit(into) ? -1 : 1;
}

/* ---- the finished result ---- */

/* The program sums over the ops (in key order, so that any merge order sums alike), the
 * shared names, the sort; then the dominant program's steady state, as ops_core.c. */
static void finish_programs(pq_ops_result *out)
{
    for (size_t i = 0; i < out->nops; i++) {
        const pq_op_row *m = &out->ops[i];
        for (size_t k = 0; k < out->nprograms && !m->is_idle; k++) {
            pq_ops_program *p = &out->programs[k];
            if (p->program_id != m->program_id)
                continue;
            p->flops += m->flops;
            p->model_flops += m->model_flops;
            p->bytes_accessed += m->bytes_accessed;
            p->hbm_bytes += m->has_breakdown ? m->bd_hbm : m->bytes_accessed;
        }
    }
    if (out->nprograms)
        qsort(out->programs, out->nprograms, sizeof *out->programs, ops_program_order);
    for (size_t k = 0; k < out->nprograms; k++)
        for (size_t j = k + 1; j < out->nprograms; j++)
            if (out->programs[k].name.n == out->programs[j].name.n &&
                memcmp(out->programs[k].name.p, out->programs[j].name.p, out->programs[k].name.n) ==
                    0)
                out->programs[k].name_shared = out->programs[j].name_shared = 1;
    ops_steady_state(out);
}

/* XProf's step rows of P's GPU XSpaces (ops_steps_build's, over the parts' hosts): one
 * XSpace's group ids, or the hosts' step intersection numbered 0..n-1. 0 when out of
 * memory. */
static int part_steps(const ops_part *p, pq_ops_result *out)
{
    out->steps_combined = p->xspaces > 1;
    size_t n = 0;
    for (size_t i = 0; i < p->nhosts; i++)
        n += p->hosts[i].nsteps;
    ops_host_step *hs = pq_malloc_array(n + 1, sizeof *hs);
    uint32_t *gpus = pq_malloc_array(p->nhosts + 1, sizeof *gpus);
    int ok = hs && gpus;
    n = 0;
    for (size_t i = 0; ok && i < p->nhosts; i++) {
        gpus[i] = (uint32_t)i;
        for (size_t k = 0; k < p->hosts[i].nsteps; k++, n++) {
            const int64_t *v = p->hosts[i].v + 3 * k;
            hs[n] = (ops_host_step){(uint32_t)i, v[0], v[1], v[2]};
        }
    }
    if (ok && out->steps_combined) {
        ok = ops_steps_intersect(hs, n, gpus, p->nhosts, &out->steps, &out->nsteps,
                                 &out->steps_empty_intersect, NULL);
    } else if (ok) {
        out->steps = pq_malloc_array(n + 1, sizeof *out->steps);
        ok = out->steps != NULL;
        for (size_t i = 0; ok && i < n; i++)
            out->steps[i] = hs[i].group;
        out->nsteps = ok ? n : 0;
    }
    pq_free(hs);
    pq_free(gpus);
    return ok;
}

pq_status ops_part_result(const ops_part *p, const pq_ops_options *opts, pq_ops_result *out,
                          pq_error *err)
{
    RETURN_ERROR_IF(p->xprof && p->r.hw == PQ_OPS_HW_GPU && p->steps_active && p->steps_unsupported,
                    err, PQ_ERR_INPUT, NULL, -1,
                    "XProf's tables of these partials are not mergeable: one XSpace has step "
                    "markers of a kind profq does not group (one process then groups no "
                    "XSpace's kernels by step, the partials of the others did)");
    *out = p->r;
    out->ops = pq_calloc(p->nrows + 1, sizeof *out->ops);
    out->programs = pq_calloc(p->r.nprograms ? p->r.nprograms : 1, sizeof *out->programs);
    out->groups = NULL;
    if (!out->ops || !out->programs)
        goto oom;
    for (size_t i = 0; i < p->nrows; i++) {
        out->ops[i] = p->rows[i].m;
        for (int k = 0; p->rows[i].scaled && k < OPS_PER_N; k++)
            *figure(&out->ops[i], k) = p->rows[i].per[k] * (double)out->ops[i].occurrences;
    }
    out->nops = p->nrows;
    if (p->r.nprograms)
        memcpy(out->programs, p->r.programs, p->r.nprograms * sizeof *out->programs);
    if (out->nops)
        qsort(out->ops, out->nops, sizeof *out->ops, row_key_cmp);
    if (opts && opts->peak_tflops > 0) {
        out->peaks.tflops = opts->peak_tflops;
        out->peaks.user_flops = 1;
    }
    if (opts && opts->peak_hbm_gbps > 0) {
        out->peaks.bws[0] = opts->peak_hbm_gbps;
        out->peaks.user_bw = 1;
    }
    if (p->xprof) /* XProf's tables: several XSpaces' PerfEnv, as ops_core.c */
        ops_peaks_xprof_combine(&out->peaks, p->xspaces);
    if (p->xprof && out->hw == PQ_OPS_HW_GPU && !part_steps(p, out))
        goto oom;
    finish_programs(out);
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
    for (size_t i = 0; i < out->nops; i++)
        ops_rates(out, &out->ops[i], &out->ops[i].rates);
    if (ops_derive(out, opts ? opts->by : PQ_OPS_BY_OP) &&
        (!p->xprof || out->hw != PQ_OPS_HW_TPU ||
         ops_steps_tpu_records(out, &p->tpu, p->xspaces))) /* roofline_model's, as ops_core.c */
        return PQ_OK;
oom:
    ops_free(out);
    return err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory merging op metrics");
}
