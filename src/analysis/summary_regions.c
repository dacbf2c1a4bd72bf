/* summary_regions.c - where device-op time sits in the program's structure: hierarchical
 * regions over the tf_op / name paths with pruning of single-child chains (spec 1.14),
 * and the device-op region aggregates of 1.16: each device op falls, at its midpoint, in
 * the deepest (then shortest, then last by path) open region window, found by one sweep
 * over window starts, midpoints and window ends. On Kineto traces the GPU annotation
 * ranges are windows too, for the ops of their own stream only, and preferred there to
 * any other window (a host range that happens to be open at a kernel's midpoint says
 * little about the kernel; the annotation on its stream does). The sweep's
 * layout into a few ascending runs and its loop stay in this file (docs/internals/summary.md). Not
 * here: the path parts themselves (summary_names.c), the sorts (summary_time.c). */
#include "summary_int.h"

#include "core/alloc.h"

#include <math.h>
#include <string.h>

/* Region rows keyed by path, each path's parent path. */
typedef struct regstate {
    pairmap rmap, parent;
    agg *reg; /* name: path, aux2: depth, total: inclusive, excl: exclusive */
    size_t nreg, capr;
} regstate;

/* Adds the self time of every device op to its path and each prefix of it. */
static void region_collect(ctx *c, regstate *r)
{
    sm_builder *b = c->b;
    int oom = 0;
    for (size_t k = 0; k < c->ng && !oom; k++) {
        uint32_t e = c->go[k];
        int d, fb;
        uint32_t path = event_path(b, &c->s, e, &d, &fb);
        if (!d)
            continue;
        uint32_t p = path;
        for (int depth = d; depth >= 1; depth--) {
            int fresh;
            uint32_t *rs = pairmap_slot(&r->rmap, p, 0, &fresh);
            if (!rs) {
                oom = 1;
                break;
            }
            if (fresh) {
                agg *nr = sm_agg_new(&r->reg, &r->nreg, &r->capr, rs, p, 0);
                if (!nr) {
                    oom = 1;
                    break;
                }
                nr->aux2 = (uint32_t)depth;
            }
            agg *a = &r->reg[*rs];
            a->count++;
            a->total += c->excl[e];
            if (depth == d)
                a->excl += c->excl[e];
            if (depth > 1) {
                uint32_t par = pairmap_get(&r->parent, p, 0);
                if (par == UINT32_MAX) {
                    par = sm_path_prefix(b, p, depth - 1);
                    uint32_t *ps = pairmap_slot(&r->parent, p, 0, &fresh);
                    if (ps)
                        *ps = par;
                }
                p = par;
            }
        }
    }
}

/* Drops regions of depth > 1 with exactly one child of (almost) equal inclusive time. */
static void region_prune(regstate *r)
{
    agg *reg = r->reg;
    size_t nreg = r->nreg;
    uint32_t *nchild = pq_calloc(nreg + 1, sizeof *nchild);
    uint32_t *onechild = pq_calloc(nreg + 1, sizeof *onechild);
    for (size_t k = 0; k < nreg && nchild && onechild; k++) {
        if (reg[k].aux2 <= 1)
            continue;
        uint32_t par = pairmap_get(&r->parent, reg[k].name, 0);
        uint32_t pi = par == UINT32_MAX ? UINT32_MAX : pairmap_get(&r->rmap, par, 0);
        if (pi != UINT32_MAX) {
            nchild[pi]++;
            onechild[pi] = (uint32_t)k;
        }
    }
    size_t w = 0;
    for (size_t k = 0; k < nreg; k++) {
        int drop = 0;
        if (nchild && onechild && reg[k].aux2 > 1 && nchild[k] == 1) {
            double a = us_of(reg[k].total), ch = us_of(reg[onechild[k]].total);
            double diff = fabs(a - ch), mx = fabs(a) > fabs(ch) ? fabs(a) : fabs(ch);
            drop = diff <= 1e-9 * mx || diff <= 1e-6;
        }
        reg[k].key2 = drop;
    }
    for (size_t k = 0; k < nreg; k++)
        if (!reg[k].key2)
            reg[w++] = reg[k];
    r->nreg = w;
    pq_free(nchild);
    pq_free(onechild);
}

int sm_hierarchical_regions(ctx *c)
{
    sm_builder *b = c->b;
    regstate r = {0};
    region_collect(c, &r);
    region_prune(&r);
    sm_agg_sort(b->names, r.reg, r.nreg, AGG_REGION);
    size_t nrows = r.nreg < c->big_limit ? r.nreg : c->big_limit;
    pq_sm_region *rows = arena_alloc(&c->res->mem, (nrows + 1) * sizeof *rows);
    for (size_t k = 0; k < nrows && rows; k++)
        rows[k] = (pq_sm_region){sm_keep(c, intern_str(b->names, r.reg[k].name)), r.reg[k].aux2,
                                 r.reg[k].count, us_of(r.reg[k].total), us_of(r.reg[k].excl)};
    c->res->r.hierarchical_regions = rows;
    c->res->r.nhierarchical_regions = rows ? nrows : 0;
    pq_free(r.reg);
    pairmap_free(&r.rmap);
    pairmap_free(&r.parent);
    return rows ? 0 : -1;
}

/* ---------------------------------------------------------------------------------------
 * Device-op region aggregates (1.16). */

typedef struct window {
    int64_t start2, end2; /* doubled times (midpoints are half-units) */
    uint32_t path;
    int depth;
    int64_t dur;
    uint32_t trk;
    int annot; /* a GPU annotation range (sm_annot): picked before other windows */
} window;

typedef srec wpt; /* t, index (window or event), kind: 0 start, 1 midpoint, 2 end */

/* The sweep's state: windows, points, the open windows, and the (path, op) rows. */
typedef struct sweep {
    window *win;
    size_t nw, capw, nmid;
    wpt *pts, *ptmp;
    size_t np;
    uint32_t *active, *apos; /* open windows; window -> its place in active */
    size_t na;
    agg *ag; /* name: op name, aux: region path, aux2: most common signature */
    size_t nag, capa;
    pairmap amap;
    counter shp;
} sweep;

static void sweep_free(sweep *w)
{
    pq_free(w->win);
    pq_free(w->pts);
    pq_free(w->ptmp);
    pq_free(w->active);
    pq_free(w->apos);
    pq_free(w->ag);
    pairmap_free(&w->amap);
    counter_free(&w->shp);
}

/* Appends window W; 0, or -1 when memory ran out. */
static int window_add(sweep *w, window x)
{
    if (w->nw == w->capw) {
        size_t cap = w->capw ? w->capw * 2 : 256;
        window *nw2 = pq_realloc_array(w->win, cap, sizeof *nw2);
        if (!nw2)
            return -1;
        w->win = nw2;
        w->capw = cap;
    }
    w->win[w->nw++] = x;
    return 0;
}

/* The region windows: events that are not device ops and have a non-fallback path, in
 * the events' order by (track, start), so that the windows' starts and the midpoints come
 * as one ascending run per track, which the points' sort merges; then the GPU annotation
 * ranges (Kineto), on tracks of their own, in the same order. Counts the midpoints. */
static void sweep_windows(ctx *c, sweep *w)
{
    sm_builder *b = c->b;
    for (size_t k = 0; k < b->nwork; k++) {
        uint32_t e = c->order[k];
        if (dev_op(b, e)) {
            w->nmid++;
            continue;
        }
        int d, fb;
        if (!b->m->tf_op[e] && !name_has_sep(b, &c->s, b->m->name[e]))
            continue;
        uint32_t path = event_path(b, &c->s, e, &d, &fb);
        if (fb || !d)
            continue;
        if (window_add(w, (window){2 * b->m->start_ps[e], 2 * (b->m->start_ps[e] + b->m->dur_ps[e]),
                                   path, d, b->m->dur_ps[e], b->m->track[e], 0}) != 0)
            return;
    }
    for (size_t k = 0; k < c->nann; k++) {
        const sm_annot *a = &c->ann[k];
        if (window_add(w, (window){2 * a->start_ps, 2 * (a->start_ps + a->dur_ps), a->path,
                                   a->depth, a->dur_ps, a->track, 1}) != 0)
            return;
    }
}

/* The points in a few ascending runs, then sorted. 0, or -1 when memory ran out. */
static int sweep_points(ctx *c, sweep *w)
{
    sm_builder *b = c->b;
    const window *win = w->win;
    size_t nw = w->nw, n = b->nwork; /* c->order's */
    w->pts = pq_malloc_array(2 * nw + w->nmid + 1, sizeof *w->pts);
    w->ptmp = pq_malloc_array(2 * nw + w->nmid + 1, sizeof *w->ptmp);
    w->active = pq_malloc_array(nw + 1, sizeof *w->active);
    w->apos = pq_malloc_array(nw + 1, sizeof *w->apos);
    if (!w->pts || !w->ptmp || !w->active || !w->apos)
        return -1;
    wpt *pts = w->pts;
    uint32_t *active = w->active;
    size_t np = 0;
    for (size_t k = 0; k < nw; k++)
        pts[np++] = (wpt){win[k].start2, (uint32_t)k, 0};
    /* The ends through a stack of open windows per track (active[] serves):
     * properly nested windows give their ends in ascending order. */
    size_t sp = 0;
    for (size_t k = 0; k <= nw; k++) {
        while (sp && (k == nw || win[k].trk != win[active[sp - 1]].trk ||
                      win[active[sp - 1]].end2 <= win[k].start2)) {
            uint32_t x = active[--sp];
            pts[np++] = (wpt){win[x].end2, x, 2};
        }
        if (k < nw)
            active[sp++] = (uint32_t)k;
    }
    for (size_t k = 0; k < n; k++)
        if (dev_op(b, c->order[k]))
            pts[np++] =
                (wpt){2 * b->m->start_ps[c->order[k]] + b->m->dur_ps[c->order[k]], c->order[k], 1};
    sm_srec_sort(b, SORT_POINTS, pts, w->ptmp, np);
    w->np = np;
    return 0;
}

/* How window X claims an op on track TRK, before the spec's (depth, -duration, path): a
 * GPU annotation on the op's own stream 1, any window that is not an annotation 0, an
 * annotation on another stream -1 (none: Kineto writes an annotation's range per stream). */
static inline int win_rank(const window *x, uint32_t trk)
{
    return !x->annot ? 0 : x->trk == trk ? 1 : -1;
}

/* The spec's order of windows of one rank: deeper, then shorter, then the later path. */
static inline int win_beats(const intern_pool *names, const window *x, const window *y)
{
    if (x->depth != y->depth)
        return x->depth > y->depth;
    if (x->dur != y->dur)
        return x->dur < y->dur;
    return strcmp(intern_str(names, x->path), intern_str(names, y->path)) > 0;
}

/* The sweep: opens and closes windows, and adds each midpoint's op to the row of the
 * innermost open window. */
static void sweep_run(ctx *c, sweep *w)
{
    sm_builder *b = c->b;
    const window *win = w->win;
    uint32_t *active = w->active, *apos = w->apos;
    size_t na = 0;
    for (size_t k = 0; k < w->np; k++) {
        wpt *q = &w->pts[k];
        if (q->kind == 0) {
            apos[q->idx] = (uint32_t)na;
            active[na++] = q->idx;
        } else if (q->kind == 2) {
            uint32_t at = apos[q->idx];
            active[at] = active[--na];
            apos[active[at]] = at;
        } else if (na) {
            uint32_t e = q->idx, trk = b->m->track[e], best = UINT32_MAX;
            int rbest = -1;
            for (size_t a = 0; a < na; a++) {
                const window *x = &win[active[a]];
                int rx = win_rank(x, trk);
                if (rx < 0 || rx < rbest)
                    continue;
                if (rx > rbest || win_beats(b->names, x, &win[best])) {
                    best = active[a];
                    rbest = rx;
                }
            }
            if (best == UINT32_MAX)
                continue;
            int fresh;
            uint32_t *as = pairmap_slot(&w->amap, win[best].path, b->m->name[e], &fresh);
            if (!as)
                break;
            if (fresh && !sm_agg_new(&w->ag, &w->nag, &w->capa, as, b->m->name[e], win[best].path))
                break;
            w->ag[*as].count++;
            w->ag[*as].total += b->m->dur_ps[e];
            w->ag[*as].excl += c->excl[e];
            uint32_t sg = sig_id(b, &c->s, b->m->long_name[e]);
            if (sg)
                counter_add(&w->shp, *as, sg, 1, 0);
        }
    }
}

/* The rows of 1.16 with their most common signature, in the spec's order. */
static void sweep_rows(ctx *c, sweep *w)
{
    sm_builder *b = c->b;
    agg *ag = w->ag;
    uint32_t *mcs = pq_malloc_array(w->nag + 1, sizeof *mcs);
    if (mcs)
        counter_most_common(&w->shp, mcs, w->nag);
    for (size_t k = 0; k < w->nag; k++)
        ag[k].aux2 = mcs && mcs[k] != UINT32_MAX ? (uint32_t)w->shp.value[mcs[k]] : 0;
    pq_free(mcs);
    sm_agg_sort(b->names, ag, w->nag, AGG_OPREG);
    size_t nrows = w->nag < c->big_limit ? w->nag : c->big_limit;
    pq_sm_op_region *rows = arena_alloc(&c->res->mem, (nrows + 1) * sizeof *rows);
    if (!rows)
        return; /* the arena's failure fails the summary */
    for (size_t k = 0; k < nrows; k++) {
        const char *nm = intern_str(b->names, ag[k].name);
        char canon[1024];
        sm_canonical_op_name(nm, strlen(nm), canon, sizeof canon);
        pq_sm_op_region *r = &rows[k];
        r->region_path = sm_keep(c, intern_str(b->names, ag[k].aux));
        r->op_name = sm_keep(c, nm);
        r->canonical_name = sm_keep(c, canon);
        r->category = sm_op_category(c->name_flags[ag[k].name]);
        r->count = ag[k].count;
        r->total_duration = us_of(ag[k].total);
        r->exclusive_duration = us_of(ag[k].excl);
        r->avg_duration = us_of(ag[k].total) / (double)ag[k].count;
        r->shape_signature = sm_keep_id(c, ag[k].aux2);
    }
    c->res->r.device_op_region_aggregates = rows;
    c->res->r.ndevice_op_region_aggregates = nrows;
}

int sm_op_region_aggregates(ctx *c)
{
    sweep w = {0};
    sweep_windows(c, &w);
    if (w.nw && w.nmid && sweep_points(c, &w) == 0) {
        sweep_run(c, &w);
        sweep_rows(c, &w);
    }
    sweep_free(&w);
    return 0;
}
