/* nsys_comm_bias.c - the notebook's per-device bias of the top modules (cell 22): for each
 * steady execution of a top module, every compute thunk's start and end on each device
 * minus their mean over devices; per device, the largest |bias| over executions summed over
 * those points ranks the devices (the notebook plots the 8 highest); the module's min, max
 * and population std of every bias value are kept. Devices that ran different compute
 * thunk sequences make the module `consistent = 0` (nothing computed), where the notebook's
 * arrays would not line up. */
#include "nsys_comm_int.h"

#include "core/alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct span {
    size_t lo, hi; /* rows [lo, hi) of t->th: one (program, exec, dev) group */
} span;

static int cmp_dev(const void *pa, const void *pb)
{
    const nsys_bias_device *a = pa, *b = pb;
    if (a->score_ns != b->score_ns)
        return a->score_ns > b->score_ns ? -1 : 1;
    return a->device < b->device ? -1 : a->device > b->device;
}

/* The compute thunks of group G, in thunk index order, into OUT (their row indexes). */
static size_t compute_rows(const nc_tables *t, span g, size_t *out)
{
    size_t n = 0;
    for (size_t i = g.lo; i < g.hi; i++)
        if (!t->th[i].comm)
            out[n++] = i;
    return n;
}

typedef struct bias_acc {
    double *maxabs; /* ndev x stride */
    size_t stride;
    double s1, s2;
    uint64_t n;
    size_t points;
} bias_acc;

/* One execution: groups G[0..ND) (one per device) with NP compute thunks each. */
static int add_execution(const nc_tables *t, const span *g, size_t nd, size_t *rows, double *mean,
                         nsys_bias_module *bm, bias_acc *a)
{
    size_t np = compute_rows(t, g[0], rows);
    if (a->points && np * 2 != a->points)
        return 0;
    a->points = np * 2;
    for (size_t p = 0; p < 2 * np; p++)
        mean[p] = 0;
    for (size_t d = 0; d < nd; d++) {
        size_t *r = rows + d * np;
        if (compute_rows(t, g[d], r) != np)
            return 0;
        for (size_t k = 0; k < np; k++) {
            if (t->th[r[k]].tidx != t->th[rows[k]].tidx)
                return 0;
            mean[2 * k] += t->th[r[k]].start / (double)nd;
            mean[2 * k + 1] += (t->th[r[k]].start + (double)t->th[r[k]].dur) / (double)nd;
        }
    }
    for (size_t d = 0; d < nd; d++) {
        const size_t *r = rows + d * np;
        for (size_t k = 0; k < 2 * np; k++) {
            const nc_thunk *h = &t->th[r[k / 2]];
            double x = (k % 2 ? h->start + (double)h->dur : h->start) - mean[k];
            double *m = &a->maxabs[d * a->stride + k];
            *m = fmax(*m, fabs(x));
            a->s1 += x;
            a->s2 += x * x;
            a->n++;
            bm->min_ns = fmin(bm->min_ns, x);
            bm->max_ns = fmax(bm->max_ns, x);
        }
    }
    bm->executions++;
    return 1;
}

/* The (program, exec, dev) groups of PROGRAM's steady rows into *G (*NG of them). */
static span *groups_of(const nc_tables *t, int64_t program, size_t *ng)
{
    span *g = pq_malloc((t->ndevices + 1) * 64 * sizeof *g);
    size_t cap = (t->ndevices + 1) * 64;
    *ng = 0;
    for (size_t i = 0, e; g && i < t->nth; i = e) {
        const nc_thunk *h = &t->th[i];
        for (e = i; e < t->nth && t->th[e].program == h->program && t->th[e].exec == h->exec &&
                    t->th[e].dev == h->dev;
             e++)
            ;
        if (h->program != program || h->frame != FR_STEADY)
            continue;
        if (*ng == cap) {
            span *n2 = pq_realloc(g, cap * 2 * sizeof *g);
            if (!n2) {
                pq_free(g);
                return NULL;
            }
            g = n2;
            cap *= 2;
        }
        g[(*ng)++] = (span){i, e};
    }
    return g;
}

static int module_bias(const nc_tables *t, int64_t program, nsys_comm_result *r,
                       nsys_bias_module *bm)
{
    *bm = (nsys_bias_module){
        .program_id = program, .min_ns = INFINITY, .max_ns = -INFINITY, .consistent = 1};
    size_t ng;
    span *g = groups_of(t, program, &ng);
    size_t maxn = 0;
    for (size_t i = 0; g && i < ng; i++)
        maxn = g[i].hi - g[i].lo > maxn ? g[i].hi - g[i].lo : maxn;
    size_t nd = 0;
    while (nd < ng && t->th[g[nd].lo].exec == t->th[g[0].lo].exec)
        nd++;
    bias_acc a = {.stride = 2 * maxn};
    size_t *rows = g ? pq_malloc((nd * maxn + 1) * sizeof *rows) : NULL;
    double *mean = g ? pq_malloc((2 * maxn + 1) * sizeof *mean) : NULL;
    a.maxabs = g ? pq_calloc(nd * 2 * maxn + 1, sizeof *a.maxabs) : NULL;
    int rc = g && rows && mean && a.maxabs ? 0 : -1;
    for (size_t i = 0; !rc && i < ng && bm->consistent; i += nd) {
        for (size_t d = 0; d < nd; d++)
            if (i + d >= ng || t->th[g[i + d].lo].exec != t->th[g[i].lo].exec ||
                t->th[g[i + d].lo].dev != t->th[g[d].lo].dev)
                bm->consistent = 0;
        if (bm->consistent)
            bm->consistent = add_execution(t, g + i, nd, rows, mean, bm, &a);
    }
    if (!rc && bm->consistent && a.n) {
        bm->points = a.points;
        double m = a.s1 / (double)a.n;
        bm->std_ns = sqrt(fmax(0, a.s2 / (double)a.n - m * m));
        bm->devices = arena_alloc(&r->mem, (nd + 1) * sizeof *bm->devices);
        rc = bm->devices ? 0 : -1;
        for (size_t d = 0; !rc && d < nd; d++) {
            nsys_bias_device *x = &bm->devices[bm->ndevices++];
            *x = (nsys_bias_device){.device = t->th[g[d].lo].dev};
            for (size_t k = 0; k < a.points; k++) {
                x->score_ns += a.maxabs[d * a.stride + k];
                x->max_abs_ns = fmax(x->max_abs_ns, a.maxabs[d * a.stride + k]);
            }
        }
        if (!rc)
            qsort(bm->devices, bm->ndevices, sizeof *bm->devices, cmp_dev);
    } else if (!a.n) {
        bm->min_ns = bm->max_ns = 0;
    }
    pq_free(g);
    pq_free(rows);
    pq_free(mean);
    pq_free(a.maxabs);
    return rc;
}

int nc_bias(const nc_tables *t, nsys_comm_result *r)
{
    r->bias = arena_alloc(&r->mem, (t->ntop + 1) * sizeof *r->bias);
    if (!r->bias)
        return -1;
    for (size_t k = 0; k < t->ntop; k++)
        if (module_bias(t, t->top[k], r, &r->bias[r->nbias++]) != 0)
            return -1;
    return 0;
}
