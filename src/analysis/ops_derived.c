/* ops_derived.c - figures derived from the merged op rows for the reports: the rows grouped
 * by category or program (`profq ops --by`), the roofline's program totals (profq's, and
 * XProf's "Program" records with and without infeed/outfeed, spec/xprof-tools.md 5.8), the
 * programs' active and whole-window rates and the steady state's. Reads a finished
 * pq_ops_result; never the model. */
#include "analysis/ops_internal.h"

#include "core/alloc.h"

#include <stdlib.h>
#include <string.h>

typedef struct group_row {
    pq_str key;
    uint64_t program_id;
    pq_op_row m;
} group_row;

static int grp_cmp(const void *a, const void *b)
{
    const group_row *x = a, *y = b;
    if (x->m.self_time_ps != y->m.self_time_ps)
        return x->m.self_time_ps > y->m.self_time_ps ? -1 : 1;
    size_t n = x->key.n < y->key.n ? x->key.n : y->key.n;
    int c = n ? memcmp(x->key.p, y->key.p, n) : 0;
    if (c)
        return c;
    if (x->key.n != y->key.n)
        return x->key.n < y->key.n ? -1 : 1;
    return x->program_id < y->program_id ? -1 : x->program_id > y->program_id;
}

/* Adds S's amounts into D; D's bd_hbm holds HBM bytes either way (a breakdown's, else the
 * bytes accessed). */
static void add_metrics(pq_op_row *d, const pq_op_row *s)
{
    d->occurrences += s->occurrences;
    d->time_ps += s->time_ps;
    d->self_time_ps += s->self_time_ps;
    d->flops += s->flops;
    d->model_flops += s->model_flops;
    d->bytes_accessed += s->bytes_accessed;
    d->bd_hbm += s->has_breakdown ? s->bd_hbm : s->bytes_accessed;
    d->bd_cmem_rd += s->bd_cmem_rd;
    d->bd_cmem_wr += s->bd_cmem_wr;
    d->bd_vmem_rd += s->bd_vmem_rd;
    d->bd_vmem_wr += s->bd_vmem_wr;
    d->has_breakdown = 1; /* bd_hbm now holds HBM bytes either way */
    d->dma_stall_ps += s->dma_stall_ps;
}

const pq_ops_program *ops_program_find(const pq_ops_result *r, uint64_t pid)
{
    for (size_t i = 0; i < r->nprograms; i++)
        if (r->programs[i].program_id == pid)
            return &r->programs[i];
    return NULL;
}

pq_str ops_program_name(const pq_ops_result *r, uint64_t pid)
{
    const pq_ops_program *p = ops_program_find(r, pid);
    return p ? p->name : pq_str_of("", 0);
}

/* Rows for --by category|program (idle excluded); 0 on allocation failure. */
static int group_rows(pq_ops_result *r, pq_ops_group by)
{
    group_row *g = pq_calloc(r->nops + 1, sizeof *g);
    if (!g)
        return 0;
    size_t k = 0;
    for (size_t i = 0; i < r->nops; i++) {
        const pq_op_row *m = &r->ops[i];
        if (m->is_idle)
            continue;
        pq_str key = by == PQ_OPS_BY_CATEGORY ? m->category : ops_program_name(r, m->program_id);
        uint64_t pid = by == PQ_OPS_BY_PROGRAM ? m->program_id : 0;
        size_t j;
        for (j = 0; j < k; j++)
            if (g[j].program_id == pid && ops_str_same(g[j].key, key))
                break;
        if (j == k) {
            g[k].key = key;
            g[k].program_id = pid;
            g[k].m.name = key;
            g[k].m.category = by == PQ_OPS_BY_CATEGORY ? key : pq_str_of("", 0);
            g[k].m.program_id = pid;
            k++;
        }
        add_metrics(&g[j].m, m);
    }
    qsort(g, k, sizeof *g, grp_cmp);
    pq_op_row *rows = pq_calloc(k + 1, sizeof *rows);
    for (size_t i = 0; rows && i < k; i++) {
        rows[i] = g[i].m;
        ops_rates(r, &rows[i], &rows[i].rates);
    }
    pq_free(g);
    if (!rows)
        return 0;
    r->groups = rows;
    r->ngroups = k;
    return 1;
}

int ops_is_infeed_outfeed(pq_str cat)
{
    static const char *const words[] = {"infeed", "outfeed"};
    for (size_t w = 0; w < 2; w++) {
        size_t n = strlen(words[w]);
        for (size_t i = 0; i + n <= cat.n; i++)
            if (memcmp(cat.p + i, words[w], n) == 0)
                return 1;
    }
    return 0;
}

/* The ops outside call/conditional/while/megacore fusion summed into *D, infeed/outfeed
 * left out (their time into *INFEED_PS) unless INCL. XProf sums breakdowns: ops without one
 * add no HBM bytes, which fall back to bytes_accessed only when no op has a breakdown. */
void ops_program_sum(const pq_ops_result *r, int incl, pq_op_row *d, int64_t *infeed_ps)
{
    int any_bd = 0;
    double bd_hbm = 0;
    *infeed_ps = 0;
    for (size_t i = 0; i < r->nops; i++) {
        const pq_op_row *m = &r->ops[i];
        if (m->is_idle)
            continue;
        if (!incl && ops_is_infeed_outfeed(m->category)) {
            *infeed_ps += m->time_ps;
            continue;
        }
        if (pq_str_eq(m->category, "call") || pq_str_eq(m->category, "conditional") ||
            pq_str_eq(m->category, "while") || pq_str_eq(m->category, "megacore fusion"))
            continue;
        add_metrics(d, m);
        any_bd |= m->has_breakdown;
        bd_hbm += m->has_breakdown ? m->bd_hbm : 0;
    }
    if (any_bd)
        d->bd_hbm = bd_hbm;
    d->name = pq_str_of("Program", 7);
    d->category = d->name;
}

static double gibps(double bytes, int64_t ps)
{
    return ops_giga_to_gibi(ops_safe_div(bytes, (double)ps / 1e3));
}

static double gflops(double flops, int64_t ps)
{
    return ops_safe_div(flops, (double)ps / 1e3);
}

/* Per program: rates over its active time (module executions, else op time) and the
 * captured window; the dominant program's over its steady executions. */
static void program_rates(pq_ops_result *r)
{
    for (size_t i = 0; i < r->nprograms; i++) {
        pq_ops_program *p = &r->programs[i];
        int64_t active = p->module_ps ? p->module_ps : p->op_self_ps;
        p->active_gflops = gflops(p->flops, active);
        p->whole_gflops = gflops(p->flops, r->window_ps);
        p->active_hbm_gibps = gibps(p->hbm_bytes, active);
        p->whole_hbm_gibps = gibps(p->hbm_bytes, r->window_ps);
        if (r->has_dominant && p->program_id == r->dominant_program) {
            double kept = ops_safe_div((double)p->steady_executions, (double)p->executions);
            r->steady_gflops = gflops(p->flops * kept, p->steady_module_ps);
            r->steady_hbm_gibps = gibps(p->hbm_bytes * kept, p->steady_module_ps);
        }
    }
}

static void roofline_totals(pq_ops_result *r)
{
    pq_ops_roofline *rf = &r->roofline;
    int64_t infeed_ps;
    memset(rf, 0, sizeof *rf);
    ops_program_sum(r, 1, &rf->total, &infeed_ps);
    rf->total.occurrences = 0;
    rf->total.time_ps = r->total_time_ps;
    rf->total.self_time_ps = r->total_op_time_ps;
    ops_rates(r, &rf->total, &rf->total.rates);
    rf->active_gflops = gflops(rf->total.flops, r->total_op_time_ps);
    rf->active_hbm_gibps = gibps(rf->total.bd_hbm, r->total_op_time_ps);
    for (int incl = 0; incl <= 1; incl++) {
        pq_op_row *p = &rf->program[incl];
        ops_program_sum(r, incl, p, &infeed_ps);
        p->has_breakdown = 1;
        p->time_ps = r->total_time_ps - infeed_ps;
        p->self_time_ps = 0;
        p->dma_stall_ps = 0;
        ops_rates(r, p, &p->rates);
    }
    ops_rates(r, &rf->average, &rf->average.rates);
}

int ops_derive(pq_ops_result *r, pq_ops_group by)
{
    roofline_totals(r);
    program_rates(r);
    r->by = by;
    if (by != PQ_OPS_BY_CATEGORY && by != PQ_OPS_BY_PROGRAM)
        return 1;
    return group_rows(r, by);
}
