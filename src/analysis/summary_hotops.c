/* summary_hotops.c - the op tables of the summary: hot ops with their most common shape
 * signature, source and tf_op path and FLOP proxy (spec 1.9, 1.10), semantic families of
 * the listed hot ops (1.11) and collectives by kind (1.12), all over device-op events.
 * Not here: what a name means (summary_names.c), regions and gaps. */
#include "summary_int.h"

#include "core/alloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Per-name aggregates of the device-op events and their per-name counters. */
typedef struct hotstate {
    agg *hot;       /* one row per op name, in first-seen order, then sorted */
    uint32_t *slot; /* name id -> row, UINT32_MAX none */
    size_t nhot;
    counter sigc, srcc, tfc;           /* (name, signature / source / tf_op) */
    uint32_t *mc_sig, *mc_src, *mc_tf; /* name id -> most common counter row */
} hotstate;

typedef struct family_row {
    const char *family;
    uint64_t count;
    double total, excl, flop_total;
    int has_flop;
    uint32_t example;
    counter *shapes;
} family_row;

static int cmp_family(const void *pa, const void *pb)
{
    const family_row *a = pa, *b = pb;
    if (a->excl != b->excl)
        return a->excl > b->excl ? -1 : 1;
    return strcmp(a->family, b->family);
}

static void hot_free(hotstate *h)
{
    pq_free(h->hot);
    pq_free(h->slot);
    pq_free(h->mc_sig);
    pq_free(h->mc_src);
    pq_free(h->mc_tf);
    counter_free(&h->sigc);
    counter_free(&h->srcc);
    counter_free(&h->tfc);
}

/* One pass over the events: count, total and self time per device-op name, and the
 * counters of their signatures, sources and tf_op paths; then the rows in 1.9's order. */
static int hot_collect(ctx *c, hotstate *h)
{
    sm_builder *b = c->b;
    opstate *s = &c->s;
    h->hot = pq_calloc(s->npool + 1, sizeof *h->hot);
    h->slot = pq_malloc_array(s->npool + 1, sizeof *h->slot);
    if (!h->hot || !h->slot)
        return -1;
    for (uint32_t k = 0; k < s->npool; k++)
        h->slot[k] = UINT32_MAX;
    for (size_t e = 0; e < b->m->n; e++) {
        if (!dev_op(b, e) || !sm_work(b, e))
            continue;
        uint32_t nm = b->m->name[e];
        if (h->slot[nm] == UINT32_MAX) {
            h->slot[nm] = (uint32_t)h->nhot;
            h->hot[h->nhot].name = nm;
            h->nhot++;
        }
        agg *a = &h->hot[h->slot[nm]];
        a->count++;
        a->total += b->m->dur_ps[e];
        a->excl += c->excl[e];
        uint32_t sg = sig_id(b, s, b->m->long_name[e]);
        if (sg)
            counter_add(&h->sigc, nm, sg, 1, 0);
        if (b->m->source[e])
            counter_add(&h->srcc, nm, b->m->source[e], 1, 0);
        if (b->m->tf_op[e])
            counter_add(&h->tfc, nm, b->m->tf_op[e], 1, 0);
    }
    h->mc_sig = pq_malloc_array(s->npool + 1, sizeof *h->mc_sig);
    h->mc_src = pq_malloc_array(s->npool + 1, sizeof *h->mc_src);
    h->mc_tf = pq_malloc_array(s->npool + 1, sizeof *h->mc_tf);
    if (!h->mc_sig || !h->mc_src || !h->mc_tf)
        return -1;
    counter_most_common(&h->sigc, h->mc_sig, s->npool);
    counter_most_common(&h->srcc, h->mc_src, s->npool);
    counter_most_common(&h->tfc, h->mc_tf, s->npool);
    sm_agg_sort(b->names, h->hot, h->nhot, AGG_HOT);
    return 0;
}

/* The hot_ops row O of A; adds A to its family in FAM[0..*nfam). */
static void hot_row(ctx *c, hotstate *h, const agg *a, pq_sm_hot_op *o, family_row *fam,
                    size_t *nfam)
{
    sm_builder *b = c->b;
    const char *nm = intern_str(b->names, a->name);
    char canon[1024];
    sm_canonical_op_name(nm, strlen(nm), canon, sizeof canon);
    uint32_t tf = h->mc_tf[a->name] == UINT32_MAX ? 0 : (uint32_t)h->tfc.value[h->mc_tf[a->name]];
    uint32_t sg =
        h->mc_sig[a->name] == UINT32_MAX ? 0 : (uint32_t)h->sigc.value[h->mc_sig[a->name]];
    uint32_t sr =
        h->mc_src[a->name] == UINT32_MAX ? 0 : (uint32_t)h->srcc.value[h->mc_src[a->name]];
    char text[2048];
    snprintf(text, sizeof text, "%s %s", canon, tf ? intern_str(b->names, tf) : "");
    const char *family = sm_semantic_family(text);
    /* Mean of per-event proxies over the events that have one. */
    double psum = 0;
    uint64_t pn = 0;
    for (uint32_t r = 0; r < h->sigc.n; r++) {
        if ((uint32_t)h->sigc.key[r] != a->name)
            continue;
        double px = sm_flop_proxy(family, intern_str(b->names, (uint32_t)h->sigc.value[r]));
        if (px > 0) {
            psum += px * (double)h->sigc.count[r];
            pn += h->sigc.count[r];
        }
    }
    o->name = sm_keep(c, nm);
    o->canonical_name = sm_keep(c, canon);
    o->category = sm_op_category(c->name_flags[a->name]);
    o->count = a->count;
    o->total_duration = us_of(a->total);
    o->exclusive_duration = us_of(a->excl);
    o->avg_duration = us_of(a->total) / (double)a->count;
    o->shape_signature = sm_keep_id(c, sg);
    o->source_file = sm_keep_id(c, sr);
    o->tf_op_path = sm_keep_id(c, tf);
    o->flop_proxy_per_invocation = pn ? psum / (double)pn : NAN;
    /* semantic families (1.11) from the truncated list */
    size_t f = 0;
    for (; f < *nfam; f++)
        if (strcmp(fam[f].family, family) == 0)
            break;
    if (f == *nfam) {
        fam[f].family = family;
        fam[f].example = a->name;
        fam[f].shapes = pq_calloc(1, sizeof(counter));
        (*nfam)++;
    }
    fam[f].count += a->count;
    fam[f].total += us_of(a->total);
    fam[f].excl += us_of(a->excl);
    if (pn) {
        fam[f].flop_total += psum / (double)pn * (double)a->count;
        fam[f].has_flop = 1;
    }
    if (sg && fam[f].shapes)
        counter_add(fam[f].shapes, 0, sg, a->count, 0);
}

/* semantic_families (1.11): the families of the listed hot ops, shares of D. */
static void family_rows(ctx *c, family_row *fam, size_t nfam, double sum_excl)
{
    sm_builder *b = c->b;
    double D = c->total > 0 && sum_excl > 0 ? (c->total > sum_excl ? c->total : sum_excl)
               : c->total > 0               ? c->total
                                            : sum_excl;
    if (fam)
        qsort(fam, nfam, sizeof *fam, cmp_family);
    size_t flimit = c->hot_limit > 50 ? c->hot_limit : 50;
    size_t nrows = nfam < flimit ? nfam : flimit;
    pq_sm_family *rows = arena_alloc(&c->res->mem, (nrows + 1) * sizeof *rows);
    if (!rows)
        return;
    for (size_t f = 0; f < nrows; f++) {
        pq_sm_family *r = &rows[f];
        r->family = fam[f].family;
        r->count = fam[f].count;
        r->total_duration = fam[f].total;
        r->exclusive_duration = fam[f].excl;
        r->share_of_total = D > 0 ? fam[f].excl / D : 0.0;
        r->avg_duration = fam[f].total / (double)fam[f].count;
        r->avg_exclusive_duration = fam[f].excl / (double)fam[f].count;
        r->example_op = sm_keep(c, intern_str(b->names, fam[f].example));
        uint32_t best = UINT32_MAX;
        for (uint32_t q = 0; fam[f].shapes && q < fam[f].shapes->n; q++)
            if (best == UINT32_MAX || fam[f].shapes->count[q] > fam[f].shapes->count[best])
                best = q;
        r->dominant_shape_signature =
            best == UINT32_MAX
                ? NULL
                : sm_keep(c, intern_str(b->names, (uint32_t)fam[f].shapes->value[best]));
        r->flop_proxy_total = fam[f].has_flop ? fam[f].flop_total : NAN;
        r->time_per_flop_proxy =
            fam[f].has_flop && fam[f].flop_total > 0 ? fam[f].excl / fam[f].flop_total : NAN;
    }
    c->res->r.semantic_families = rows;
    c->res->r.nsemantic_families = nrows;
}

int sm_hot_ops(ctx *c)
{
    hotstate h = {0};
    if (hot_collect(c, &h) != 0) {
        hot_free(&h);
        return -1;
    }
    size_t nh = h.nhot < c->hot_limit ? h.nhot : c->hot_limit;
    pq_sm_hot_op *rows = arena_alloc(&c->res->mem, (nh + 1) * sizeof *rows);
    family_row *fam = pq_calloc(sm_nfamilies() + 2, sizeof *fam);
    size_t nfam = 0, nrows = 0;
    double sum_excl = 0;
    for (size_t k = 0; k < nh && fam && rows; k++) {
        hot_row(c, &h, &h.hot[k], &rows[nrows++], fam, &nfam);
        sum_excl += us_of(h.hot[k].excl);
    }
    c->res->r.hot_ops = rows;
    c->res->r.nhot_ops = nrows;
    family_rows(c, fam, nfam, sum_excl);
    for (size_t f = 0; f < nfam; f++) {
        if (fam[f].shapes)
            counter_free(fam[f].shapes);
        pq_free(fam[f].shapes);
    }
    pq_free(fam);
    c->nhot = nh;
    if (nh)
        snprintf(c->top_hot_name, sizeof c->top_hot_name, "%s",
                 intern_str(c->b->names, h.hot[0].name));
    c->top_hot_excl = nh ? us_of(h.hot[0].excl) : 0;
    hot_free(&h);
    return 0;
}

/* communication_ops (1.12): device-op collectives by kind, self time descending; the
 * first kind is the candidates' top collective. */
int sm_collectives(ctx *c)
{
    sm_builder *b = c->b;
    static const char *const KINDS[] = {"all-reduce", "all-gather",         "reduce-scatter",
                                        "all-to-all", "collective-permute", "async-collective",
                                        "send-recv",  "other-collective"};
    enum { NKINDS = 8 };
    uint64_t kc[NKINDS] = {0};
    int64_t kt[NKINDS] = {0};
    uint8_t *kind_of = pq_calloc(b->names->n + 1, 1); /* name id -> 1 + kind, 0 unknown */
    if (!kind_of)
        return -1;
    for (size_t e = 0; e < b->m->n; e++) {
        uint32_t nm = b->m->name[e];
        if (!dev_op(b, e) || !(c->name_flags[nm] & 2) || !sm_work(b, e))
            continue;
        if (!kind_of[nm]) {
            const char *kind = sm_collective_kind(intern_str(b->names, nm));
            kind_of[nm] = NKINDS + 1;
            for (int k = 0; k < NKINDS; k++)
                if (strcmp(kind, KINDS[k]) == 0)
                    kind_of[nm] = (uint8_t)(k + 1);
        }
        if (kind_of[nm] <= NKINDS) {
            kc[kind_of[nm] - 1]++;
            kt[kind_of[nm] - 1] += c->excl[e];
        }
    }
    pq_free(kind_of);
    pq_sm_collective *rows = arena_alloc(&c->res->mem, (NKINDS + 1) * sizeof *rows);
    if (!rows)
        return -1;
    size_t nrows = 0;
    int used[NKINDS] = {0};
    for (;;) {
        int best = -1;
        for (int k = 0; k < NKINDS; k++)
            if (kc[k] && !used[k] &&
                (best < 0 || kt[k] > kt[best] ||
                 (kt[k] == kt[best] && strcmp(KINDS[k], KINDS[best]) < 0)))
                best = k;
        if (best < 0)
            break;
        used[best] = 1;
        if (!c->top_collective)
            c->top_collective = KINDS[best];
        rows[nrows++] = (pq_sm_collective){KINDS[best], kc[best], us_of(kt[best]),
                                           us_of(kt[best]) / (double)kc[best]};
    }
    c->res->r.communication_ops = rows;
    c->res->r.ncommunication_ops = nrows;
    return 0;
}
