/* ops_steps.c - step grouping of GPU XSpaces for the op metrics and roofline_model (issue 13
 * item 5), as tsl's group_events (xla/tsl/profiler/utils/group_events.cc) and XProf's step
 * database (xprof/convert/xplane_to_step_events.cc, step_events_to_steps_db.cc,
 * derived_timeline.cc, xprof/utils/step_intersection.cc) do it:
 *
 * - an event forest over the /host:CPU plane: each event the child of the innermost event
 *   of its line that includes it (events with the `_a` stat are left out of the nesting),
 *   producers (`_pt`/`_p`) the parents of consumers (`_ct`/`_c`) of the same type and id
 *   (none when both sides have 64 or more), kernel launches (host events with a
 *   `correlation_id`) the parents of the device kernels with that id (the last launch of
 *   an id wins);
 * - roots: events with `_r` (root level = its value) or named "TraceContext" (level 1),
 *   sorted by level (higher first) then start; a root already grouped, or under an
 *   ancestor root of its level, starts no group; the others get group ids 0, 1, ... in
 *   that order, propagated breadth first to their descendants that have none;
 * - on each GPU plane with grouped events, an ungrouped event takes the group of the event
 *   before it in time (ProcessUngroupedEvents);
 * - steps: the groups with a device compute kernel (not a memcpy, not NCCL) of positive
 *   length and a device step time: the longest run of the group's events in the plane's
 *   time order (the derived "Steps" line); sorted; the first and last dropped when there
 *   are more than 5;
 * - several XSpaces: XProf's StepIntersection of their steps (the chief spans least, the
 *   others aligned to it by the best overlap), numbered 0, 1, ...
 *
 * TF grouping events are events like any other, as XProf 2.24.2 groups them (checked on
 * inputs from scripts/add_tf_steps.py): ExecutorState::Process iterations (step_id, iter_num)
 * start no groups and hide no roots, roots with a `step_id` are roots whatever the tf.data
 * functions' step_ids (tsl's ProcessTensorFlowLoop and ProcessTfDataSteps take no effect in
 * that build).
 *
 * Not covered, and then no groups at all (profq's ops stay as without step markers):
 * grouping stats on planes other than /host:CPU. TPU steps come from the device "Steps"
 * lines instead: ops_steps_tpu.c. XSpaces with TF loop ops get no groups, as in tsl. Device
 * kernels nested in one another on a stream line are not linked (tsl would). Root events
 * with equal level and start are taken in event order, hosts of equal step spans in input
 * order (tsl's sort and XProf's hash map leave those open). Not here: the op merge
 * (ops_gpu.c), the rows (render/ops_xprof.c).
 * docs/internals/ops.md ("Step rows") has the rules and what was checked. */
#include "analysis/ops_steps.h"

#include "analysis/ops_internal.h"

#include "core/alloc.h"

#include <stdlib.h>
#include <string.h>

typedef struct gnode {
    int64_t begin, end, corr, group;
    pq_str name;
    int32_t level; /* root level; 0: not a root */
    uint8_t has_corr, root_of_group;
} gnode;

typedef struct gedge {
    uint32_t from, to;
} gedge;

typedef struct gctx_item { /* one producer or consumer side of a context pair */
    int64_t type, id;
    uint32_t node;
    uint8_t consumer;
} gctx_item;

typedef struct forest {
    gnode *n;
    size_t nn, capn;
    gedge *e;
    size_t ne, cape;
    gctx_item *c;
    size_t nc, capc;
    uint32_t *kid_off, *kids, *par_off, *pars; /* CSR of the edges */
    uint32_t *seen;                            /* BFS marks by epoch */
    uint32_t *queue;
    uint32_t epoch;
    int oom;
} forest;

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 1;
    size_t c = *cap ? *cap * 2 : 256;
    void *q = pq_realloc_array(*p, c, size);
    if (!q)
        return 0;
    *p = q;
    *cap = c;
    return 1;
}

static int add_edge(forest *f, uint32_t from, uint32_t to)
{
    if (!grow((void **)&f->e, &f->cape, f->ne, sizeof *f->e))
        return 0;
    f->e[f->ne++] = (gedge){from, to};
    return 1;
}

enum { G_ROOT, G_ASYNC, G_PT, G_P, G_CT, G_C, G_CORR, G_NSTATS };
static const char *const GSTAT_NAMES[G_NSTATS] = {"_r",  "_a", "_pt",           "_p",
                                                  "_ct", "_c", "correlation_id"};

typedef struct gstats {
    int64_t v[G_NSTATS];
    uint8_t has[G_NSTATS];
} gstats;

static void read_gstats(const int64_t ids[G_NSTATS], const uint8_t *body, size_t len,
                        uint32_t field, gstats *g)
{
    xp_stat_iter it;
    stat_value s = {0};
    xp_stats_begin(&it, body, len, field);
    while (xp_stats_next(&it, &s)) {
        for (int k = 0; k < G_NSTATS; k++) {
            if (ids[k] != s.metadata_id || ids[k] == INT64_MIN)
                continue;
            uint64_t u = 0;
            if (!ops_stat_u64(&s, &u))
                continue;
            g->v[k] = (int64_t)u;
            g->has[k] = 1;
        }
    }
}

static void stat_ids_of(const xp_plane *pl, int64_t ids[G_NSTATS])
{
    for (int k = 0; k < G_NSTATS; k++) {
        const xp_stat_meta *m = xp_stat_meta_by_name(pl, GSTAT_NAMES[k]);
        ids[k] = m ? m->id : INT64_MIN;
    }
}

/* The stats of event EV: its metadata's, then its own (which win). */
static void event_gstats(const xp_plane *pl, const int64_t ids[G_NSTATS], const xp_event *ev,
                         gstats *g)
{
    memset(g, 0, sizeof *g);
    const xp_event_meta *em = xp_event_meta_find(pl, ev->metadata_id);
    if (em)
        read_gstats(ids, em->body, em->body_len, 5, g);
    read_gstats(ids, ev->stats, ev->body_len, 4, g);
}

static int name_is(pq_str s, const char *c)
{
    return pq_str_eq(s, c);
}

static int starts(pq_str s, const char *p)
{
    size_t n = strlen(p);
    return s.n >= n && memcmp(s.p, p, n) == 0;
}

/* tsl's CheckLoopOp: TF loop ops anywhere in the XSpace turn grouping off. */
static int has_loop_ops(const pq_source *src)
{
    static const char *const loops[] = {"WhileOp-EvalCond", "WhileOp-StartBody", "ForOp",
                                        "ParallelForOp", "ForeverOp"};
    for (uint32_t pi = 0; pi < src->nplanes; pi++)
        for (uint32_t m = 0; m < src->planes[pi].nemeta; m++)
            for (size_t k = 0; k < sizeof loops / sizeof loops[0]; k++)
                if (name_is(src->planes[pi].emeta[m].name, loops[k]))
                    return 1;
    return 0;
}

/* Grouping stats on a plane other than the host threads' one: not covered. */
static int other_plane_grouping(const pq_source *src, const xp_plane *host)
{
    static const char *const names[] = {"_r", "_p", "_c", "_pt", "_ct"};
    for (uint32_t pi = 0; pi < src->nplanes; pi++) {
        const xp_plane *pl = &src->planes[pi];
        if (pl == host)
            continue;
        for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
            if (xp_stat_meta_by_name(pl, names[k]))
                return 1;
    }
    return 0;
}

/* The nodes, nesting edges and context items of one line. STACK holds room for the line. */
static int forest_line(forest *f, const xp_plane *pl, const xp_line *line,
                       const int64_t ids[G_NSTATS], uint32_t *stack)
{
    size_t depth = 0;
    int64_t base = line->timestamp_ns * 1000;
    xp_event_iter ei;
    xp_event ev;
    xp_events_begin(line, &ei);
    while (xp_events_next(&ei, &ev)) {
        if (!grow((void **)&f->n, &f->capn, f->nn, sizeof *f->n))
            return 0;
        gstats g;
        event_gstats(pl, ids, &ev, &g);
        const xp_event_meta *em = xp_event_meta_find(pl, ev.metadata_id);
        uint32_t me = (uint32_t)f->nn;
        gnode *n = &f->n[f->nn++];
        memset(n, 0, sizeof *n);
        n->begin = base + ev.offset_ps;
        n->end = n->begin + ev.duration_ps;
        n->group = -1;
        n->name = em ? em->name : (pq_str){0};
        n->has_corr = g.has[G_CORR];
        n->corr = g.v[G_CORR];
        if (g.has[G_ROOT])
            n->level = (int32_t)g.v[G_ROOT];
        else if (name_is(n->name, "TraceContext"))
            n->level = 1;
        for (int side = 0; side < 2; side++) {
            int kt = side ? G_CT : G_PT, ki = side ? G_C : G_P;
            if (!g.has[kt] || !g.has[ki])
                continue;
            if (!grow((void **)&f->c, &f->capc, f->nc, sizeof *f->c))
                return 0;
            f->c[f->nc++] = (gctx_item){g.v[kt], g.v[ki], me, (uint8_t)side};
        }
        if (g.has[G_ASYNC] && g.v[G_ASYNC])
            continue; /* async events take no part in the nesting */
        while (depth) {
            const gnode *p = &f->n[stack[depth - 1]];
            if (p->begin <= n->begin && n->end <= p->end) {
                if (!add_edge(f, stack[depth - 1], me))
                    return 0;
                break;
            }
            depth--;
        }
        stack[depth++] = me;
    }
    return 1;
}

static int ctx_cmp(const void *a, const void *b)
{
    const gctx_item *x = a, *y = b;
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->node < y->node ? -1 : x->node > y->node;
}

/* Producers become parents of the consumers of the same (type, id). */
static int connect_contexts(forest *f)
{
    if (f->nc)
        qsort(f->c, f->nc, sizeof *f->c, ctx_cmp);
    for (size_t i = 0; i < f->nc;) {
        size_t j = i, np = 0, nc = 0;
        while (j < f->nc && f->c[j].type == f->c[i].type && f->c[j].id == f->c[i].id) {
            if (f->c[j].consumer)
                nc++;
            else
                np++;
            j++;
        }
        if (!(np >= 64 && nc >= 64))
            for (size_t p = i; p < j; p++)
                for (size_t c = i; c < j && !f->c[p].consumer; c++)
                    if (f->c[c].consumer && !add_edge(f, f->c[p].node, f->c[c].node))
                        return 0;
        i = j;
    }
    return 1;
}

/* Compressed rows of the edges: children by parent and parents by child. */
static int build_csr(forest *f)
{
    size_t n = f->nn;
    f->kid_off = pq_calloc(n + 1, sizeof *f->kid_off);
    f->par_off = pq_calloc(n + 1, sizeof *f->par_off);
    f->kids = pq_malloc_array(f->ne + 1, sizeof *f->kids);
    f->pars = pq_malloc_array(f->ne + 1, sizeof *f->pars);
    f->seen = pq_calloc(n + 1, sizeof *f->seen);
    f->queue = pq_malloc_array(n + 1, sizeof *f->queue);
    if (!f->kid_off || !f->par_off || !f->kids || !f->pars || !f->seen || !f->queue)
        return 0;
    for (size_t i = 0; i < f->ne; i++) {
        f->kid_off[f->e[i].from + 1]++;
        f->par_off[f->e[i].to + 1]++;
    }
    for (size_t i = 0; i < n; i++) {
        f->kid_off[i + 1] += f->kid_off[i];
        f->par_off[i + 1] += f->par_off[i];
    }
    uint32_t *kf = pq_malloc_array(n + 1, sizeof *kf), *pf = pq_malloc_array(n + 1, sizeof *pf);
    if (!kf || !pf) {
        pq_free(kf);
        pq_free(pf);
        return 0;
    }
    memcpy(kf, f->kid_off, n * sizeof *kf);
    memcpy(pf, f->par_off, n * sizeof *pf);
    for (size_t i = 0; i < f->ne; i++) {
        f->kids[kf[f->e[i].from]++] = f->e[i].to;
        f->pars[pf[f->e[i].to]++] = f->e[i].from;
    }
    pq_free(kf);
    pq_free(pf);
    return 1;
}

/* tsl's RootNeedsGrouping: not yet grouped, and no ancestor root of the same level. */
static int root_needs_grouping(forest *f, uint32_t r)
{
    if (f->n[r].group >= 0)
        return 0;
    uint32_t ep = ++f->epoch, head = 0, tail = 0;
    f->seen[r] = ep;
    for (uint32_t k = f->par_off[r]; k < f->par_off[r + 1]; k++)
        if (f->seen[f->pars[k]] != ep) {
            f->seen[f->pars[k]] = ep;
            f->queue[tail++] = f->pars[k];
        }
    while (head < tail) {
        uint32_t x = f->queue[head++];
        if (f->n[x].level > 0 && f->n[x].level == f->n[r].level)
            return 0;
        for (uint32_t k = f->par_off[x]; k < f->par_off[x + 1]; k++)
            if (f->seen[f->pars[k]] != ep) {
                f->seen[f->pars[k]] = ep;
                f->queue[tail++] = f->pars[k];
            }
    }
    return 1;
}

/* tsl's PropagateGroupId: breadth first, stopping at nodes that have a group. */
static void propagate(forest *f, uint32_t r, int64_t g)
{
    uint32_t ep = ++f->epoch, head = 0, tail = 0;
    f->seen[r] = ep;
    f->queue[tail++] = r;
    while (head < tail) {
        uint32_t x = f->queue[head++];
        if (f->n[x].group >= 0)
            continue;
        f->n[x].group = g;
        for (uint32_t k = f->kid_off[x]; k < f->kid_off[x + 1]; k++)
            if (f->seen[f->kids[k]] != ep) {
                f->seen[f->kids[k]] = ep;
                f->queue[tail++] = f->kids[k];
            }
    }
}

typedef struct root_ref {
    int64_t begin;
    int32_t level;
    uint32_t node;
} root_ref;

static int root_cmp(const void *a, const void *b)
{
    const root_ref *x = a, *y = b;
    if (x->level != y->level)
        return x->level > y->level ? -1 : 1;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    return x->node < y->node ? -1 : x->node > y->node;
}

/* Groups the roots; returns the number of groups, -1 when out of memory. */
static int64_t create_groups(forest *f)
{
    size_t nr = 0;
    for (size_t i = 0; i < f->nn; i++)
        nr += f->n[i].level > 0;
    root_ref *roots = pq_malloc_array(nr + 1, sizeof *roots);
    if (!roots)
        return -1;
    nr = 0;
    for (size_t i = 0; i < f->nn; i++)
        if (f->n[i].level > 0)
            roots[nr++] = (root_ref){f->n[i].begin, f->n[i].level, (uint32_t)i};
    qsort(roots, nr, sizeof *roots, root_cmp);
    int64_t g = 0;
    for (size_t i = 0; i < nr; i++)
        if (root_needs_grouping(f, roots[i].node)) {
            f->n[roots[i].node].root_of_group = 1;
            propagate(f, roots[i].node, g++);
        }
    pq_free(roots);
    return g;
}

static void forest_free(forest *f)
{
    pq_free(f->n);
    pq_free(f->e);
    pq_free(f->c);
    pq_free(f->kid_off);
    pq_free(f->kids);
    pq_free(f->par_off);
    pq_free(f->pars);
    pq_free(f->seen);
    pq_free(f->queue);
}

/* XProf's ClassifyGpuEvent: memcpys and NCCL kernels are not device compute. */
static int gpu_compute(pq_str name)
{
    if (starts(name, "MemcpyHToD") || starts(name, "MemcpyDToH") || starts(name, "MemcpyDToD") ||
        starts(name, "MemcpyHToH"))
        return 0;
    return !(name.n >= 4 && (name.p[0] | 32) == 'n' && (name.p[1] | 32) == 'c' &&
             (name.p[2] | 32) == 'c' && (name.p[3] | 32) == 'l');
}

/* Whether the line is one of XProf's derived lines (0xdeadbeef and up). */
static int derived_line(const xp_line *line)
{
    return line->id >= 0xdeadbeefLL && line->id < 0xdeadbeefLL + 64;
}

/* The group tsl gives device event EV: that of the kernel launch of its correlation id. */
static int64_t own_group(const ops_steps *st, const pq_source *src, const xp_plane *pl,
                         int64_t corr_id, const xp_event *ev, int *has_corr)
{
    *has_corr = 0;
    if (corr_id == INT64_MIN)
        return -1;
    int64_t ids[G_NSTATS];
    for (int k = 0; k < G_NSTATS; k++)
        ids[k] = k == G_CORR ? corr_id : INT64_MIN;
    gstats g;
    event_gstats(pl, ids, ev, &g);
    if (!g.has[G_CORR])
        return -1;
    *has_corr = 1;
    uint32_t v = pairmap_get(&st->launch_group, (int64_t)(src - st->sources), g.v[G_CORR]);
    return v == UINT32_MAX || v == UINT32_MAX - 1 ? -1 : (int64_t)v;
}

/* An event's key in ST->inherited: the address of its body, unique in the profile. */
static int64_t event_key(const xp_event *ev)
{
    return (int64_t)(uintptr_t)ev->stats;
}

int64_t ops_steps_kernel_group(const ops_steps *st, const pq_source *src, const xp_plane *pl,
                               int64_t corr_id, const xp_event *ev)
{
    if (!st || !st->active)
        return -1;
    int has_corr;
    int64_t g = own_group(st, src, pl, corr_id, ev, &has_corr);
    if (g >= 0)
        return g;
    uint32_t v = pairmap_get(&st->inherited, (int64_t)(src - st->sources), event_key(ev));
    return v == UINT32_MAX ? -1 : (int64_t)v;
}

typedef struct dev_ev { /* an event of a device plane */
    int64_t begin, end, group, key;
    uint8_t has_corr, compute;
} dev_ev;

static int dev_ev_cmp(const void *a, const void *b)
{
    const dev_ev *x = a, *y = b; /* tsl's Timespan order: earlier, then longer first */
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1;
    return 0;
}

typedef struct span {
    int64_t begin, end;
} span;

/* XProf's derived "Steps" line of one GPU plane (DeriveStepEventsFromGroups): its grouped
 * events in time order (EV, sorted), a run of one group one step event; each group's
 * longest such event (the first of equal ones) is its device step marker (DEV, by group). */
static void device_markers(const dev_ev *ev, size_t nev, span *dev)
{
    span f = {0, 0};
    int64_t fg = -1;
    for (size_t i = 0; i <= nev; i++) {
        if (i < nev && ev[i].group < 0)
            continue; /* ungrouped events are not on the line */
        if (i < nev && ev[i].group == fg) {
            if (ev[i].end > f.end)
                f.end = ev[i].end;
            continue;
        }
        if (fg >= 0 && f.end - f.begin > dev[fg].end - dev[fg].begin)
            dev[fg] = f;
        if (i < nev) {
            f = (span){ev[i].begin, ev[i].end};
            fg = ev[i].group;
        }
    }
}

/* XProf's ProcessUngroupedEvents on one GPU plane whose events EV (sorted) have some group:
 * an ungrouped event takes the group of the event before it, recorded in ST->inherited. */
static int inherit_groups(ops_steps *st, uint32_t si, dev_ev *ev, size_t nev)
{
    int64_t cur = -1;
    for (size_t i = 0; i < nev; i++) {
        if (ev[i].group >= 0) {
            cur = ev[i].group;
            continue;
        }
        if (cur < 0)
            continue;
        ev[i].group = cur;
        int fresh;
        uint32_t *v = pairmap_slot(&st->inherited, si, ev[i].key, &fresh);
        if (!v)
            return 0;
        *v = (uint32_t)cur;
    }
    return 1;
}

/* The events of GPU plane PL of source SI, with their own groups; 0 when out of memory. */
static int plane_events(ops_steps *st, uint32_t si, const xp_plane *pl, int64_t corr_id,
                        dev_ev **ev, size_t *cap, size_t *nev, int *any)
{
    const pq_source *src = &st->sources[si];
    *nev = 0;
    *any = 0;
    for (uint32_t li = 0; li < pl->nlines; li++) {
        if (derived_line(&pl->lines[li]))
            continue;
        int64_t base = pl->lines[li].timestamp_ns * 1000;
        xp_event_iter ei;
        xp_event e;
        xp_events_begin(&pl->lines[li], &ei);
        while (xp_events_next(&ei, &e)) {
            int has_corr;
            int64_t g = own_group(st, src, pl, corr_id, &e, &has_corr);
            const xp_event_meta *em = xp_event_meta_find(pl, e.metadata_id);
            if (!grow((void **)ev, cap, *nev, sizeof **ev))
                return 0;
            (*ev)[(*nev)++] = (dev_ev){base + e.offset_ps,
                                       base + e.offset_ps + e.duration_ps,
                                       g,
                                       event_key(&e),
                                       (uint8_t)has_corr,
                                       (uint8_t)(e.duration_ps > 0 && em && gpu_compute(em->name))};
            *any |= g >= 0;
        }
    }
    return 1;
}

/* The device events of SRC's GPU planes by group: COMPUTE (1 device events, 2 a device
 * compute kernel of positive length; events with a correlation id, as
 * ConvertDeviceTraceXLineToStepEvents) and DEV, the device step markers. 0 out of memory. */
static int device_groups(ops_steps *st, uint32_t si, int64_t ngroups, uint8_t *compute, span *dev,
                         int *grouped)
{
    const pq_source *src = &st->sources[si];
    dev_ev *ev = NULL;
    size_t cap = 0, nev = 0;
    int ok = 1;
    for (uint32_t pi = 0; ok && pi < src->nplanes; pi++) {
        const xp_plane *pl = &src->planes[pi];
        const xp_stat_meta *cm = xp_stat_meta_by_name(pl, "correlation_id");
        int any = 0;
        if (!xp_plane_is(src, pl, "GPU") || !cm)
            continue;
        ok = plane_events(st, si, pl, cm->id, &ev, &cap, &nev, &any);
        if (!ok || !any)
            continue;
        qsort(ev, nev, sizeof *ev, dev_ev_cmp);
        ok = inherit_groups(st, si, ev, nev);
        for (size_t i = 0; ok && i < nev; i++) {
            int64_t g = ev[i].group;
            if (g < 0 || g >= ngroups)
                continue;
            *grouped = 1;
            if (ev[i].has_corr && !compute[g])
                compute[g] = 1;
            if (ev[i].has_corr && ev[i].compute)
                compute[g] = 2;
        }
        if (ok)
            device_markers(ev, nev, dev);
    }
    pq_free(ev);
    return ok;
}

/* The steps of source SI: groups with a device compute kernel of positive length and a
 * device step marker of positive length, which is the step's time (XProf's
 * StepDetails::StepTime; host markers take no part when the XSpace has a device). Appends
 * them to ST->host_steps; 0 when out of memory. */
static int source_steps(ops_steps *st, uint32_t si, int64_t ngroups, int *grouped)
{
    uint8_t *compute = pq_calloc((size_t)ngroups + 1, 1);
    span *dev = pq_calloc((size_t)ngroups + 1, sizeof *dev);
    int ok = compute && dev && device_groups(st, si, ngroups, compute, dev, grouped);
    for (int64_t g = 0; g < ngroups && ok; g++) {
        if (compute[g] != 2 || dev[g].end <= dev[g].begin)
            continue;
        if (!grow((void **)&st->host_steps, &st->caphost, st->nhost, sizeof *st->host_steps))
            ok = 0;
        else
            st->host_steps[st->nhost++] = (ops_host_step){si, g, dev[g].begin, dev[g].end};
    }
    pq_free(compute);
    pq_free(dev);
    return ok;
}

/* The forest of source SI's host plane, its groups, and the launch map. 1 done (or
 * nothing to do), 0 out of memory. */
static int source_groups(ops_steps *st, uint32_t si)
{
    const pq_source *src = &st->sources[si];
    const xp_plane *host = NULL;
    for (uint32_t pi = 0; pi < src->nplanes; pi++)
        if (name_is(src->planes[pi].name, "/host:CPU"))
            host = &src->planes[pi];
    if (!host || has_loop_ops(src))
        return 1;
    int64_t ids[G_NSTATS];
    stat_ids_of(host, ids);
    if (ids[G_ROOT] == INT64_MIN) {
        int legacy = 0;
        for (uint32_t m = 0; m < host->nemeta && !legacy; m++)
            legacy = name_is(host->emeta[m].name, "TraceContext");
        if (!legacy)
            return 1; /* no roots: no groups */
    }
    if (other_plane_grouping(src, host))
        st->unsupported = 1;
    forest f = {0};
    size_t maxline = 0;
    for (uint32_t li = 0; li < host->nlines; li++)
        if (host->lines[li].events > maxline)
            maxline = host->lines[li].events;
    uint32_t *stack = pq_malloc_array(maxline + 1, sizeof *stack);
    int ok = stack != NULL;
    for (uint32_t li = 0; ok && li < host->nlines; li++)
        ok = forest_line(&f, host, &host->lines[li], ids, stack);
    pq_free(stack);
    ok = ok && connect_contexts(&f) && build_csr(&f);
    int64_t ngroups = ok ? create_groups(&f) : -1;
    ok = ngroups >= 0;
    for (size_t i = 0; ok && i < f.nn; i++) {
        if (!f.n[i].has_corr)
            continue;
        int fresh;
        uint32_t *v = pairmap_slot(&st->launch_group, si, f.n[i].corr, &fresh);
        if (!v)
            ok = 0;
        else /* the last launch of an id is the kernels' parent */
            *v = f.n[i].group >= 0 && f.n[i].group < UINT32_MAX - 1 ? (uint32_t)f.n[i].group
                                                                    : UINT32_MAX - 1;
    }
    if (ok && ngroups > 0) {
        int grouped = 0;
        st->active = 1;
        ok = source_steps(st, si, ngroups, &grouped);
        if (grouped)
            st->has_groups = 1;
    }
    forest_free(&f);
    return ok;
}

/* XProf's maybe_drop_incomplete_steps, per XSpace: with more than 5 steps, the first and
 * the last are dropped. */
static void drop_incomplete(ops_steps *st)
{
    size_t w = 0;
    for (size_t i = 0; i < st->nhost;) {
        size_t j = i;
        while (j < st->nhost && st->host_steps[j].source == st->host_steps[i].source)
            j++;
        size_t lo = i, hi = j;
        if (j - i > 5) {
            lo++;
            hi--;
        }
        for (size_t k = lo; k < hi; k++)
            st->host_steps[w++] = st->host_steps[k];
        i = j;
    }
    st->nhost = w;
}

typedef struct host_seq { /* one host's steps in ST->host_steps */
    size_t off, n;
    int64_t total; /* last end - first begin of its steps */
} host_seq;

typedef struct align { /* StepsAlignment */
    size_t sub, chief, n;
} align;

/* XProf's FindStepsAlignment: the offset of subordinate S against chief C whose overlaps
 * of step times sum highest (offsets 0, 1, ... first, then -1, -2, ...; first best wins). */
static int find_alignment(const ops_host_step *s, size_t sn, const ops_host_step *c, size_t cn,
                          align *out)
{
    *out = (align){0, 0, 0};
    if (!sn || !cn)
        return 1;
    uint64_t *sim = pq_calloc(sn + cn, sizeof *sim); /* index: chief - sub + sn - 1 */
    if (!sim)
        return 0;
    for (size_t si = 0, ci = 0; si < sn && ci < cn;) {
        int64_t b = s[si].begin > c[ci].begin ? s[si].begin : c[ci].begin;
        int64_t e = s[si].end < c[ci].end ? s[si].end : c[ci].end;
        sim[ci + sn - 1 - si] += b < e ? (uint64_t)(e - b) : 0;
        if (s[si].end < c[ci].end)
            si++;
        else if (c[ci].end < s[si].end)
            ci++;
        else {
            si++;
            ci++;
        }
    }
    uint64_t best = 0;
    int64_t best_k = 0;
    int found = 0;
    for (int64_t k = 0; k < (int64_t)cn; k++)
        if (!found || sim[k + (int64_t)sn - 1] > best) {
            best = sim[k + (int64_t)sn - 1];
            best_k = k;
            found = 1;
        }
    for (int64_t k = -1; k >= -((int64_t)sn - 1); k--)
        if (sim[k + (int64_t)sn - 1] > best) {
            best = sim[k + (int64_t)sn - 1];
            best_k = k;
        }
    pq_free(sim);
    out->sub = best_k >= 0 ? 0 : (size_t)-best_k;
    out->chief = best_k >= 0 ? (size_t)best_k : 0;
    out->n = sn - out->sub < cn - out->chief ? sn - out->sub : cn - out->chief;
    return 1;
}

/* XProf's StepIntersection over the XSpaces with GPU planes (the others are coordinators):
 * the chief is the host whose steps span the least time (the first of equal ones: XProf
 * takes them in hash order), every other host is aligned with it, and the steps all hosts
 * share are numbered 0, 1, ... Sets ST->steps; 0 when out of memory. */
static int intersect_hosts(const pq_profile *prof, ops_steps *st)
{
    uint32_t *gpus = pq_malloc_array(prof->nsources + 1, sizeof *gpus);
    if (!gpus)
        return 0;
    size_t ngpu = 0;
    for (size_t si = 0; si < prof->nsources; si++) {
        const pq_source *src = &prof->sources[si];
        int gpu = 0;
        for (uint32_t pi = 0; pi < src->nplanes && !gpu; pi++)
            gpu = xp_plane_is(src, &src->planes[pi], "GPU");
        if (gpu)
            gpus[ngpu++] = (uint32_t)si;
    }
    int ok = ops_steps_intersect(st->host_steps, st->nhost, gpus, ngpu, &st->steps, &st->nsteps,
                                 &st->empty_intersect, NULL);
    pq_free(gpus);
    return ok;
}

int ops_steps_intersect(const ops_host_step *hs, size_t nhs, const uint32_t *gpus, size_t ngpu,
                        int64_t **steps, size_t *nsteps, int *empty, size_t *first)
{
    host_seq *h = pq_calloc(ngpu + 1, sizeof *h);
    align *al = pq_calloc(ngpu + 1, sizeof *al);
    if (!h || !al) {
        pq_free(h);
        pq_free(al);
        return 0;
    }
    size_t nh = 0, chief = SIZE_MAX;
    for (size_t g = 0, k = 0; g < ngpu; g++) {
        uint32_t si = gpus[g];
        while (k < nhs && hs[k].source < si)
            k++;
        host_seq *q = &h[nh];
        q->off = k;
        while (k < nhs && hs[k].source == si)
            k++;
        q->n = k - q->off;
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (size_t x = q->off; x < k; x++) {
            lo = hs[x].begin < lo ? hs[x].begin : lo;
            hi = hs[x].end > hi ? hs[x].end : hi;
        }
        q->total = lo < hi ? hi - lo : 0;
        if (chief == SIZE_MAX || q->total < h[chief].total)
            chief = nh;
        nh++;
    }
    size_t n = 0, max_begin = 0;
    int ok = 1;
    if (chief != SIZE_MAX && h[chief].n) {
        size_t min_end = SIZE_MAX;
        for (size_t i = 0; ok && i < nh; i++) {
            al[i] = (align){0, 0, h[i].n};
            if (i != chief)
                ok = find_alignment(hs + h[i].off, h[i].n, hs + h[chief].off, h[chief].n, &al[i]);
            max_begin = al[i].chief > max_begin ? al[i].chief : max_begin;
            min_end = al[i].chief + al[i].n < min_end ? al[i].chief + al[i].n : min_end;
        }
        if (max_begin > min_end)
            *empty = 1;
        else
            n = min_end - max_begin;
    }
    for (size_t i = 0; first && i < nh; i++) /* XProf's FirstStepIndex */
        first[i] = n ? al[i].sub + (max_begin - al[i].chief) : 0;
    pq_free(h);
    pq_free(al);
    *steps = ok ? pq_malloc_array(n + 1, sizeof **steps) : NULL;
    if (!*steps)
        return 0;
    for (size_t i = 0; i < n; i++)
        (*steps)[i] = (int64_t)i;
    *nsteps = n;
    return 1;
}

int ops_steps_build(const pq_profile *prof, int gpu, ops_steps *st)
{
    memset(st, 0, sizeof *st);
    st->sources = prof->sources;
    if (!gpu)
        return 1;
    size_t xspaces = 0;
    for (size_t si = 0; si < prof->nsources; si++)
        if (prof->sources[si].nplanes) {
            xspaces++;
            if (!source_groups(st, (uint32_t)si)) {
                ops_steps_free(st);
                return 0;
            }
        }
    st->combined = xspaces > 1; /* XProf's CombineAllOpStats */
    if (st->unsupported || !st->has_groups) {
        /* a rule profq lacks would apply: no groups at all, as without step markers */
        st->active = 0;
        st->has_groups = 0;
        st->nhost = 0;
    }
    drop_incomplete(st);
    int ok;
    if (st->combined) {
        ok = intersect_hosts(prof, st);
    } else {
        st->steps = pq_malloc_array(st->nhost + 1, sizeof *st->steps);
        ok = st->steps != NULL;
        for (size_t i = 0; ok && i < st->nhost; i++)
            st->steps[i] = st->host_steps[i].group;
        st->nsteps = ok ? st->nhost : 0;
    }
    if (!ok)
        ops_steps_free(st);
    return ok;
}

void ops_steps_free(ops_steps *st)
{
    pq_free(st->steps);
    pq_free(st->host_steps);
    pairmap_free(&st->inherited);
    pairmap_free(&st->launch_group);
    memset(st, 0, sizeof *st);
}
