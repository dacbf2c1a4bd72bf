/* ttmem.c - the per-op memory analysis of a Tenstorrent log; see ttmem.h. Follows the seed
 * profiler's definitions (spec section 3.6): peak = first op at the maximum allocated MB/bank,
 * growth = positive DRAM delta vs the previous op, weights baseline = DRAM at the first op that
 * is not a const-eval op, padding = padded - unpadded bytes of the live tensors (the ratio
 * only from PQ_TT_PAD_RATIO_MIN_BYTES unpadded on). Not here: reading (formats/ttlog) and
 * output (render/ttmem, render/tthtml). */
#include "ttmem.h"

#include "core/alloc.h"

#include <string.h>

static double dram_delta(const tt_log *log, size_t i)
{
    if (i == 0 || i >= log->nops)
        return 0;
    return log->ops[i].mem[TT_DRAM].alloc_mb - log->ops[i - 1].mem[TT_DRAM].alloc_mb;
}

static void weights_split(const tt_log *log, const ttmem_result *r, size_t i, double *weights,
                          double *activations)
{
    double alloc = log->ops[i].mem[TT_DRAM].alloc_mb;
    if (log->ops[i].is_weight) {
        *weights = alloc;
        *activations = 0;
        return;
    }
    double base = r->weights_baseline_mb;
    *weights = alloc < base ? alloc : base;
    *activations = alloc > base ? alloc - base : 0;
}

int ttmem_pad_ratio(uint64_t unpadded, uint64_t padded, double *pct)
{
    *pct = 0;
    if (unpadded < PQ_TT_PAD_RATIO_MIN_BYTES)
        return 0;
    *pct = ((double)padded - (double)unpadded) / (double)unpadded * 100.0;
    return 1;
}

static pq_str short_name(const tt_op *op)
{
    pq_str s = op->name.n ? op->name : op->op_type;
    for (size_t i = s.n; i > 0; i--) {
        if (s.p[i - 1] == '.') {
            s.p += i;
            s.n -= i;
            break;
        }
    }
    return s;
}

static double out_padding(const tt_op *op)
{
    if (!op->out.present || op->out.padded_bytes <= op->out.unpadded_bytes)
        return 0;
    return (double)(op->out.padded_bytes - op->out.unpadded_bytes);
}

/* Peaks, minimum, average and fragmentation per memory type. */
static void mem_stats(const tt_log *log, ttmem_result *r)
{
    double sum[TT_NMEM] = {0};
    size_t nmem = 0;
    for (size_t i = 0; i < log->nops; i++) {
        const tt_op *op = &log->ops[i];
        if (op->mem_source == TT_MEM_NONE)
            continue;
        nmem++;
        for (int t = 0; t < TT_NMEM; t++) {
            ttmem_type_stats *s = &r->type[t];
            double a = op->mem[t].alloc_mb;
            if (!s->present) {
                s->present = 1;
                s->peak_mb = s->min_mb = a;
                s->peak_op = i;
                s->capacity_mb = op->mem[t].total_mb;
                s->num_banks = op->mem[t].num_banks;
            }
            if (a > s->peak_mb)
                s->peak_mb = a, s->peak_op = i;
            if (a < s->min_mb)
                s->min_mb = a;
            sum[t] += a;
            double frag = op->mem[t].free_mb - op->mem[t].largest_free_mb;
            if (frag > s->frag_mb)
                s->frag_mb = frag, s->frag_op = i;
        }
    }
    r->has_mem = nmem > 0;
    for (int t = 0; t < TT_NMEM; t++)
        if (nmem)
            r->type[t].avg_mb = sum[t] / (double)nmem;
    for (size_t k = 0; k < log->nsubmits; k++) {
        double a = log->submits[k].mem[TT_DRAM].alloc_mb;
        if (!r->has_submit_peak || a > r->submit_peak_mb) {
            r->has_submit_peak = 1;
            r->submit_peak_mb = a;
            r->submit_peak = k;
        }
    }
}

/* Top growth: insertion into a small sorted array (largest first, then lower index). */
static void top_growth(const tt_log *log, ttmem_result *r)
{
    for (size_t i = 1; i < log->nops; i++) {
        double d = dram_delta(log, i);
        if (!(d > 0))
            continue;
        size_t k = r->ngrowth;
        if (k == TTMEM_TOP && d <= r->growth_mb[TTMEM_TOP - 1])
            continue;
        if (k == TTMEM_TOP)
            k--;
        while (k > 0 && r->growth_mb[k - 1] < d) {
            r->growth_mb[k] = r->growth_mb[k - 1];
            r->growth_op[k] = r->growth_op[k - 1];
            k--;
        }
        r->growth_mb[k] = d;
        r->growth_op[k] = i;
        if (r->ngrowth < TTMEM_TOP)
            r->ngrowth++;
    }
}

static void weights(const tt_log *log, ttmem_result *r)
{
    int base_found = 0;
    for (size_t i = 0; i < log->nops; i++) {
        if (log->ops[i].is_weight) {
            r->has_weights = 1;
            r->weight_ops++;
        } else if (!base_found) {
            base_found = 1;
            r->baseline_op = i;
            r->weights_baseline_mb = log->ops[i].mem[TT_DRAM].alloc_mb;
        }
    }
}

/* The live DRAM tensors' padding peak, and the top ops by output padding. */
static void padding(const tt_log *log, ttmem_result *r)
{
    for (size_t i = 0; i < log->nops; i++) {
        const tt_op *op = &log->ops[i];
        const tt_live *l = &op->live[0];
        if (l->unpadded_bytes) {
            uint64_t pad =
                l->padded_bytes > l->unpadded_bytes ? l->padded_bytes - l->unpadded_bytes : 0;
            if (!r->has_padding || pad > r->peak_pad_bytes) {
                r->peak_pad_bytes = pad;
                r->peak_pad_unpadded = l->unpadded_bytes;
                r->peak_pad_op = i;
            }
            r->has_padding = 1;
        }
        double pad = out_padding(op);
        if (!(pad > 0))
            continue;
        size_t k = r->npad;
        if (k == TTMEM_TOP && pad <= out_padding(&log->ops[r->pad_op[TTMEM_TOP - 1]]))
            continue;
        if (k == TTMEM_TOP)
            k--;
        while (k > 0 && out_padding(&log->ops[r->pad_op[k - 1]]) < pad) {
            r->pad_op[k] = r->pad_op[k - 1];
            k--;
        }
        r->pad_op[k] = i;
        if (r->npad < TTMEM_TOP)
            r->npad++;
    }
}

/* 1 when A sorts before B: count descending, then name ascending. */
static int dist_before(const ttmem_count *a, const ttmem_count *b)
{
    if (a->count != b->count)
        return a->count > b->count;
    size_t n = a->name.n < b->name.n ? a->name.n : b->name.n;
    int c = memcmp(a->name.p, b->name.p, n);
    return c < 0 || (c == 0 && a->name.n < b->name.n);
}

/* Op distribution: distinct short names are few (tens), a linear table is enough. */
static void distribution(const tt_log *log, ttmem_result *r)
{
    enum { MAXD = 512 };
    ttmem_count tab[MAXD];
    size_t nd = 0;
    for (size_t i = 0; i < log->nops; i++) {
        pq_str s = short_name(&log->ops[i]);
        size_t k = 0;
        while (k < nd && !(tab[k].name.n == s.n && memcmp(tab[k].name.p, s.p, s.n) == 0))
            k++;
        if (k == nd) {
            if (nd == MAXD)
                continue; /* beyond 512 distinct names: not ranked */
            tab[nd].name = s;
            tab[nd].count = 0;
            nd++;
        }
        tab[k].count++;
    }
    r->ndistinct = nd;
    for (size_t j = 0; j < nd && r->ndist < TTMEM_DIST; j++) {
        size_t best = nd; /* selection of the next largest */
        for (size_t k = 0; k < nd; k++)
            if (tab[k].count && (best == nd || dist_before(&tab[k], &tab[best])))
                best = k;
        if (best == nd)
            break;
        r->dist[r->ndist++] = tab[best];
        tab[best].count = 0;
    }
}

/* One row of numbers per op (the renderers' charts and tables). */
static pq_status rows(const tt_log *log, ttmem_result *r)
{
    r->rows = pq_calloc(log->nops ? log->nops : 1, sizeof *r->rows);
    if (!r->rows)
        return PQ_ERR_NOMEM;
    r->nrows = log->nops;
    for (size_t i = 0; i < log->nops; i++) {
        const tt_op *op = &log->ops[i];
        pq_tt_op_row *w = &r->rows[i];
        for (int t = 0; t < TT_NMEM; t++) {
            w->alloc_mb[t] = op->mem[t].alloc_mb;
            w->free_mb[t] = op->mem[t].free_mb;
            w->largest_free_mb[t] = op->mem[t].largest_free_mb;
        }
        w->dram_delta_mb = dram_delta(log, i);
        if (r->has_weights)
            weights_split(log, r, i, &w->weights_mb, &w->activations_mb);
        w->dram_total_mb = op->mem[TT_DRAM].alloc_mb * (double)op->mem[TT_DRAM].num_banks;
        w->live_unpadded_bytes = op->live[0].unpadded_bytes;
        w->live_padded_bytes = op->live[0].padded_bytes;
    }
    return PQ_OK;
}

pq_status ttmem_analyze(const tt_log *log, ttmem_result *r)
{
    memset(r, 0, sizeof *r);
    mem_stats(log, r);
    top_growth(log, r);
    weights(log, r);
    padding(log, r);
    distribution(log, r);
    return rows(log, r);
}

void ttmem_release(ttmem_result *r)
{
    pq_free(r->rows);
    r->rows = NULL;
    r->nrows = 0;
}
