/* summary_gaps.c - idle time before device ops: pre-op gaps per payload op with their
 * marker op (spec 1.13) and the region context of each gap's payload, with copy labels
 * (1.15). Also puts the device-op events in (track, ts, end) order into ctx (go), which
 * the hierarchical regions read next. Not here: the regions themselves. */
#include "summary_int.h"

#include "core/alloc.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

typedef struct gapstate {
    counter pref; /* (name, <=4-deep tf_op path prefix): fallback payloads' regions */
    agg *gaps, *ctxs;
    size_t ngaps, nctx, capg, capc;
    pairmap gmap, cmap; /* payload name -> gap row; (payload name, region) -> context row */
    counter markers;    /* (gap row, marker name) */
} gapstate;

static void gap_free(gapstate *g)
{
    pq_free(g->gaps);
    pq_free(g->ctxs);
    pairmap_free(&g->gmap);
    pairmap_free(&g->cmap);
    counter_free(&g->markers);
    counter_free(&g->pref);
}

static int is_gap_marker(const sm_builder *b, uint32_t e)
{
    char canon[512];
    const char *nm = intern_str(b->names, b->m->name[e]);
    sm_canonical_op_name(nm, strlen(nm), canon, sizeof canon);
    for (char *q = canon; *q; q++)
        *q = (char)tolower((unsigned char)*q);
    static const char *const m[] = {"iota",      "constant", "bitcast",  "get-tuple-element",
                                    "parameter", "tuple",    "after-all"};
    for (size_t k = 0; k < sizeof m / sizeof *m; k++)
        if (strcmp(canon, m[k]) == 0)
            return 1;
    return strncmp(canon, "copy-start", 10) == 0 || strncmp(canon, "copy-done", 9) == 0;
}

/* The device-op events in (track, ts, end) order into C->go, and the preferred <=4-deep
 * tf_op path per op name, for fallback payloads. */
static int gap_prepare(ctx *c, gapstate *g)
{
    sm_builder *b = c->b;
    size_t n = b->m->n;
    c->go = pq_malloc_array(b->nwork + 1, sizeof *c->go);
    c->ng = 0;
    if (!c->go)
        return -1;
    for (size_t e = 0; e < n; e++)
        if (dev_op(b, e) && sm_work(b, e))
            c->go[c->ng++] = (uint32_t)e;
    if (sm_sort_by_track(b, SORT_END_ASC, c->go, c->ng) != 0)
        return -1;
    for (size_t k = 0; k < c->ng; k++) {
        uint32_t e = c->go[k];
        if (!b->m->tf_op[e])
            continue;
        int d, fb;
        uint32_t path = event_path(b, &c->s, e, &d, &fb);
        if (d > 0)
            counter_add(&g->pref, b->m->name[e], sm_path_prefix(b, path, 4), 1, 0);
    }
    return 0;
}

/* The region context (1.15) of the gap before PAYLOAD. */
static uint32_t gap_region(ctx *c, gapstate *g, uint32_t payload)
{
    sm_builder *b = c->b;
    int d, fb;
    uint32_t path = event_path(b, &c->s, payload, &d, &fb);
    uint32_t region = 0;
    if (fb) {
        const counter *pref = &g->pref;
        uint32_t best = UINT32_MAX;
        for (uint32_t r = 0; r < pref->n; r++) {
            if ((uint32_t)pref->key[r] != b->m->name[payload])
                continue;
            if (best == UINT32_MAX || pref->count[r] > pref->count[best] ||
                (pref->count[r] == pref->count[best] &&
                 strcmp(intern_str(b->names, (uint32_t)pref->value[r]),
                        intern_str(b->names, (uint32_t)pref->value[best])) < 0))
                best = r;
        }
        if (best != UINT32_MAX)
            region = (uint32_t)pref->value[best];
    }
    if (!region)
        region = d > 0 ? sm_path_prefix(b, path, 4) : intern_cstr(b->names, "unknown");
    char canon[1024];
    const char *pn = intern_str(b->names, b->m->name[payload]);
    sm_canonical_op_name(pn, strlen(pn), canon, sizeof canon);
    for (char *q = canon; *q; q++)
        *q = (char)tolower((unsigned char)*q);
    if (strncmp(canon, "copy", 4) == 0) {
        const char *rp = intern_str(b->names, region);
        char lab[4200];
        if (!*rp || strcmp(rp, "copy") == 0)
            snprintf(lab, sizeof lab, "copy");
        else if (strncmp(rp, "copy(", 5) == 0)
            snprintf(lab, sizeof lab, "%s", rp);
        else
            snprintf(lab, sizeof lab, "copy(%s)", rp);
        region = intern_cstr(b->names, lab);
    }
    return region;
}

/* The payload of a gap before event K of go: the event itself, or when it is a marker,
 * the first non-marker of the chain of up to 8 overlapping events after it. */
static uint32_t gap_payload(const ctx *c, size_t k)
{
    const sm_builder *b = c->b;
    const uint32_t *go = c->go;
    uint32_t e = go[k], payload = e;
    if (!is_gap_marker(b, e))
        return payload;
    int64_t chain_end = b->m->start_ps[e] + b->m->dur_ps[e];
    for (size_t j = k + 1; j < c->ng && j <= k + 8 && b->m->track[go[j]] == b->m->track[e]; j++) {
        uint32_t cnd = go[j];
        if (b->m->start_ps[cnd] > chain_end)
            break;
        if (is_gap_marker(b, cnd)) {
            int64_t ce = b->m->start_ps[cnd] + b->m->dur_ps[cnd];
            chain_end = ce > chain_end ? ce : chain_end;
            continue;
        }
        payload = cnd;
        break;
    }
    return payload;
}

/* A linear pass over go with the running max end per track. */
static void gap_scan(ctx *c, gapstate *g)
{
    sm_builder *b = c->b;
    const uint32_t *go = c->go;
    int64_t run_end = 0;
    for (size_t k = 0; k < c->ng; k++) {
        uint32_t e = go[k];
        int first = k == 0 || b->m->track[go[k - 1]] != b->m->track[e];
        if (!first && b->m->start_ps[e] > run_end) {
            int64_t gap = b->m->start_ps[e] - run_end;
            uint32_t payload = gap_payload(c, k);
            int fresh;
            uint32_t *gs = pairmap_slot(&g->gmap, b->m->name[payload], 0, &fresh);
            if (!gs)
                break;
            if (fresh && !sm_agg_new(&g->gaps, &g->ngaps, &g->capg, gs, b->m->name[payload], 0))
                break;
            agg *r = &g->gaps[*gs];
            r->count++;
            r->total += gap;
            r->excl = gap > r->excl ? gap : r->excl;
            counter_add(&g->markers, *gs, b->m->name[e], 1, 0);
            uint32_t region = gap_region(c, g, payload);
            uint32_t *cs = pairmap_slot(&g->cmap, b->m->name[payload], region, &fresh);
            if (!cs)
                break;
            if (fresh && !sm_agg_new(&g->ctxs, &g->nctx, &g->capc, cs, b->m->name[payload], region))
                break;
            g->ctxs[*cs].count++;
            g->ctxs[*cs].total += gap;
        }
        int64_t en = b->m->start_ps[e] + b->m->dur_ps[e];
        run_end = first ? en : (en > run_end ? en : run_end);
    }
}

/* gap_before_ops rows; the marker per gap row: most frequent, tie alphabetical. */
static int gap_rows(ctx *c, gapstate *g)
{
    sm_builder *b = c->b;
    agg *gaps = g->gaps;
    for (size_t k = 0; k < g->ngaps; k++)
        gaps[k].aux = 0;
    for (uint32_t r = 0; r < g->markers.n; r++) {
        agg *a = &gaps[g->markers.key[r]];
        uint32_t mk = (uint32_t)g->markers.value[r];
        uint64_t cnt = g->markers.count[r];
        if (!a->aux || cnt > (uint64_t)a->key2 ||
            (cnt == (uint64_t)a->key2 &&
             strcmp(intern_str(b->names, mk), intern_str(b->names, a->aux)) < 0)) {
            a->aux = mk;
            a->key2 = (double)cnt;
        }
    }
    sm_agg_sort(b->names, gaps, g->ngaps, AGG_GAP);
    size_t nrows = g->ngaps < c->big_limit ? g->ngaps : c->big_limit;
    pq_sm_gap *rows = arena_alloc(&c->res->mem, (nrows + 1) * sizeof *rows);
    if (!rows)
        return -1;
    for (size_t k = 0; k < nrows; k++)
        rows[k] = (pq_sm_gap){sm_keep(c, intern_str(b->names, gaps[k].name)),
                              gaps[k].count,
                              us_of(gaps[k].total),
                              us_of(gaps[k].excl),
                              us_of(gaps[k].total) / (double)gaps[k].count,
                              sm_keep(c, intern_str(b->names, gaps[k].aux))};
    c->res->r.gap_before_ops = rows;
    c->res->r.ngap_before_ops = nrows;
    c->top_gap_total = g->ngaps ? us_of(gaps[0].total) : 0;
    c->top_gap_max = g->ngaps ? us_of(gaps[0].excl) : 0;
    if (g->ngaps)
        snprintf(c->top_gap_name, sizeof c->top_gap_name, "%s", intern_str(b->names, gaps[0].name));
    return 0;
}

/* gap_region_contexts rows. */
static int context_rows(ctx *c, gapstate *g)
{
    sm_builder *b = c->b;
    agg *ctxs = g->ctxs;
    sm_agg_sort(b->names, ctxs, g->nctx, AGG_CTX);
    size_t nrows = g->nctx < c->big_limit ? g->nctx : c->big_limit;
    pq_sm_gap_context *rows = arena_alloc(&c->res->mem, (nrows + 1) * sizeof *rows);
    if (!rows)
        return -1;
    for (size_t k = 0; k < nrows; k++)
        rows[k] =
            (pq_sm_gap_context){sm_keep(c, intern_str(b->names, ctxs[k].name)),
                                sm_keep(c, intern_str(b->names, ctxs[k].aux)), ctxs[k].count,
                                us_of(ctxs[k].total), us_of(ctxs[k].total) / (double)ctxs[k].count};
    c->res->r.gap_region_contexts = rows;
    c->res->r.ngap_region_contexts = nrows;
    return 0;
}

int sm_gaps(ctx *c)
{
    gapstate g = {0};
    int rc = -1;
    if (gap_prepare(c, &g) == 0) {
        gap_scan(c, &g);
        rc = gap_rows(c, &g) == 0 && context_rows(c, &g) == 0 ? 0 : -1;
    }
    gap_free(&g);
    return rc;
}
