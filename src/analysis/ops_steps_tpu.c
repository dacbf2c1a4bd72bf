/* ops_steps_tpu.c - XProf's TPU steps for roofline_model's step records (issue 13 item 5):
 * the steps of a TPU XSpace whose TensorCore planes carry a device "Steps" line, and each
 * step's "Program" record and the "Average" one, as XProf 2.24.2 builds them
 * (xprof/convert/xplane_to_step_events.cc ConvertDeviceTraceXPlaneToStepEvents,
 * step_events_to_steps_db.cc StepEventsToPerCoreStepInfo, op_stats_combiner.cc,
 * op_stats_to_roofline_model.cc):
 *
 * - per TensorCore plane: markers are the "Steps" line's events with a group_id (device
 *   timespan); step events are the "XLA Ops" line's events with a group_id, nested in one
 *   another by device timespan in line order (an event's self time is its time less its
 *   direct children's); a group is kept on the plane when it has both (IntersectCombine);
 * - the planes' groups together, ascending; a step's time is its longest marker over the
 *   planes that kept it (the first of equal ones); each core's op database of the step totals
 *   max(its ops' self time, the step time); none is dropped (XProf drops the first and
 *   last of more than 5 GPU steps, not TPU ones: checked with 7);
 * - a step's Program record sums its ops (their per-occurrence FLOPs, bytes and breakdown
 *   from the op rows, times its events' own) as the Total one does, over the step's total
 *   time (less infeed/outfeed without them); the Average one sums every step's;
 * - several XSpaces (xprof/convert/multi_xplanes_to_op_stats.cc, op_stats_combiner.cc,
 *   xprof/utils/step_intersection.cc): the XSpaces with TPU planes are the hosts (one without
 *   steps too); their steps are intersected by their step times (ops_steps_intersect, as for
 *   GPU: the chief spans least, the others aligned to it by the best overlap), and step i,
 *   numbered i, sums each host's aligned step (its counts and total time); the Average sums
 *   the intersected steps.
 *
 * The steps are counted first (ops_steps_tpu_counts: per host its path and steps, each
 * step's group, step time, total time and the occurrences and times of the op rows its
 * events count in, by row key), then made into records over a table of op rows
 * (ops_steps_tpu_records): one process does both, a partial keeps each XSpace's counts and
 * its merge makes the records over the merged rows and hosts (api/partial_ops.c).
 *
 * XSpaces already grouped skip tsl's grouping in XProf (IsXSpaceGrouped), so only the
 * stats in the input count. Not covered (no TPU steps, as before): a host plane with
 * group_id stats (host step markers take part in the step time), SparseCore step lines;
 * differs: an XSpace missing a step's markers on every core (XProf numbers its steps anew,
 * docs/internals/ops.md). Not here: GPU grouping (ops_steps.c), the rows
 * (render/ops_xprof.c). docs/internals/ops.md ("Step rows") has what was checked. */
#include "analysis/ops_steps.h"

#include "analysis/ops_internal.h"

#include "core/alloc.h"

#include <stdlib.h>
#include <string.h>

typedef struct tev { /* a grouped event of one plane */
    int64_t begin, dur, group, children;
    uint32_t plane, row; /* row: index into the result's ops, UINT32_MAX when none */
    size_t seq;          /* its place among the XSpace's events read */
    uint8_t marker;
} tev;

typedef struct tvec {
    tev *v;
    size_t n, cap;
} tvec;

static int push(tvec *t, tev e)
{
    if (t->n == t->cap) {
        size_t c = t->cap ? t->cap * 2 : 256;
        tev *q = pq_realloc_array(t->v, c, sizeof *q);
        if (!q)
            return 0;
        t->v = q;
        t->cap = c;
    }
    t->v[t->n++] = e;
    return 1;
}

/* group_id, device offset and duration of an event: its metadata's, then its own. */
typedef struct tstats {
    int64_t group, off, dur;
    uint8_t has_group, has_off, has_dur;
} tstats;

static void read_tstats(int64_t gid, int64_t oid, int64_t did, const uint8_t *body, size_t len,
                        uint32_t field, tstats *t)
{
    xp_stat_iter it;
    stat_value s = {0};
    xp_stats_begin(&it, body, len, field);
    while (xp_stats_next(&it, &s)) {
        uint64_t u = 0;
        if (!ops_stat_u64(&s, &u))
            continue;
        if (s.metadata_id == gid) {
            t->group = (int64_t)u;
            t->has_group = 1;
        } else if (s.metadata_id == oid) {
            t->off = (int64_t)u;
            t->has_off = 1;
        } else if (s.metadata_id == did) {
            t->dur = (int64_t)u;
            t->has_dur = 1;
        }
    }
}

/* The op row of event metadata EM: the result's row of its (program, symbol, name). */
static uint32_t row_of(const pq_ops_result *r, const xp_plane *pl, const stat_ids *ids,
                       const xp_event_meta *em)
{
    op_stats o = {0};
    ops_read_op_stats(pl, ids, em->body, em->body_len, 5, &o);
    pq_str name = em->display_name.n ? em->display_name : em->name;
    for (size_t i = 0; i < r->nops; i++)
        if (!r->ops[i].is_idle && r->ops[i].program_id == o.pid && r->ops[i].symbol_id == o.sid &&
            ops_str_same(r->ops[i].name, name))
            return (uint32_t)i;
    return UINT32_MAX;
}

/* The grouped events of one line into T: markers (the "Steps" line) or ops with their
 * nesting (children's time). ROWS caches the op row by metadata index. */
static int line_events(const pq_ops_result *r, const xp_plane *pl, uint32_t plane,
                       const xp_line *line, int marker, uint32_t *rows, tvec *t)
{
    stat_ids ids;
    ops_stat_ids_init(pl, &ids);
    int64_t gid = ids.id[S_GROUP_ID], oid = ids.id[S_DEV_OFFSET], did = ids.id[S_DEV_DURATION];
    int64_t base = line->timestamp_ns * 1000;
    size_t *stack = NULL, depth = 0;
    if (!marker && !(stack = pq_malloc_array(line->events + 1, sizeof *stack)))
        return 0;
    xp_event_iter ei;
    xp_event ev;
    xp_events_begin(line, &ei);
    while (xp_events_next(&ei, &ev)) {
        const xp_event_meta *em = xp_event_meta_find(pl, ev.metadata_id);
        tstats s = {0};
        if (em)
            read_tstats(gid, oid, did, em->body, em->body_len, 5, &s);
        read_tstats(gid, oid, did, ev.stats, ev.body_len, 4, &s);
        if (!s.has_group)
            continue;
        tev e = {s.has_off ? s.off : base + ev.offset_ps,
                 s.has_dur ? s.dur : ev.duration_ps,
                 s.group,
                 0,
                 plane,
                 UINT32_MAX,
                 t->n,
                 (uint8_t)marker};
        if (!marker && em) {
            uint32_t k = (uint32_t)(em - pl->emeta);
            if (rows[k] == UINT32_MAX - 1)
                rows[k] = row_of(r, pl, &ids, em);
            e.row = rows[k];
        }
        while (!marker && depth) { /* tsl's AncestorStack over device timespans */
            tev *p = &t->v[stack[depth - 1]];
            if (p->begin <= e.begin && e.begin + e.dur <= p->begin + p->dur) {
                p->children += e.dur;
                break;
            }
            depth--;
        }
        if (!push(t, e)) {
            pq_free(stack);
            return 0;
        }
        if (!marker)
            stack[depth++] = t->n - 1;
    }
    pq_free(stack);
    return 1;
}

static int tev_cmp(const void *a, const void *b)
{
    const tev *x = a, *y = b;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    if (x->plane != y->plane)
        return x->plane < y->plane ? -1 : 1;
    if (x->marker != y->marker)
        return x->marker > y->marker ? -1 : 1; /* markers first */
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* ROWS (counted) become op rows: the result's, with FLOPs, bytes and breakdown per
 * occurrence times the counted occurrences. */
static void scale_rows(const pq_ops_result *r, pq_op_row *rows)
{
    for (size_t j = 0; j < r->nops; j++) {
        pq_op_row *d = &rows[j];
        const pq_op_row *s = &r->ops[j];
        if (!d->occurrences || !s->occurrences) {
            memset(d, 0, sizeof *d);
            d->is_idle = 1; /* left out of the Program sum */
            continue;
        }
        double k = (double)d->occurrences / (double)s->occurrences;
        pq_op_row c = *d;
        *d = *s;
        d->occurrences = c.occurrences;
        d->time_ps = c.time_ps;
        d->self_time_ps = c.self_time_ps;
        d->dma_stall_ps = 0;
        d->flops = s->flops * k;
        d->model_flops = s->model_flops * k;
        d->bytes_accessed = s->bytes_accessed * k;
        d->bd_hbm = s->bd_hbm * k;
        d->bd_cmem_rd = s->bd_cmem_rd * k;
        d->bd_cmem_wr = s->bd_cmem_wr * k;
        d->bd_vmem_rd = s->bd_vmem_rd * k;
        d->bd_vmem_wr = s->bd_vmem_wr * k;
        d->bd_onchip_rd = s->bd_onchip_rd * k;
        d->bd_onchip_wr = s->bd_onchip_wr * k;
    }
}

/* The Program records [0] (infeed/outfeed left out) and [1] of the op rows ROWS over
 * TOTAL_PS. */
static void program_records(const pq_ops_result *r, pq_op_row *rows, int64_t total_ps,
                            pq_op_row out[2])
{
    pq_ops_result t = *r;
    t.ops = rows;
    for (int incl = 0; incl <= 1; incl++) {
        int64_t infeed_ps = 0;
        memset(&out[incl], 0, sizeof out[incl]);
        ops_program_sum(&t, incl, &out[incl], &infeed_ps);
        out[incl].has_breakdown = 1;
        out[incl].time_ps = total_ps - infeed_ps;
        out[incl].self_time_ps = 0;
        out[incl].dma_stall_ps = 0;
        ops_rates(r, &out[incl], &out[incl].rates);
    }
}

/* One group's events EV[0..N), sorted by plane, markers first, then in line order: the
 * planes that have both markers and ops keep it (their other events get no row). The step's
 * time (the first of its longest markers on those planes) into *BEGIN and *END, its total
 * time over those cores into *TOTAL; 0 when no plane keeps it or its time is empty. */
static int step_total(tev *ev, size_t n, int64_t *begin, int64_t *end, int64_t *total)
{
    int64_t step = 0;
    *total = *begin = *end = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0, j; i < n; i = j) {
            int has_marker = 0, has_ops = 0;
            int64_t self = 0, longest = 0, at = 0;
            for (j = i; j < n && ev[j].plane == ev[i].plane; j++) {
                has_marker |= ev[j].marker;
                has_ops |= !ev[j].marker;
                if (ev[j].marker && ev[j].dur > longest) {
                    longest = ev[j].dur;
                    at = ev[j].begin;
                }
                if (!ev[j].marker)
                    self += ev[j].dur - ev[j].children;
            }
            if (!(has_marker && has_ops)) {
                for (size_t k = i; k < j; k++)
                    ev[k].row = UINT32_MAX;
            } else if (pass == 0 && longest > step) {
                step = longest;
                *begin = at;
                *end = at + longest;
            } else if (pass == 1) { /* SetTotalTimePs: never below the ops' self time */
                *total += self > step ? self : step;
            }
        }
    return step > 0;
}

/* The TPU planes' grouped events of SRC into T; 0 when out of memory. */
static int source_events(const pq_ops_result *r, const pq_source *src, tvec *t)
{
    for (uint32_t pi = 0; pi < src->nplanes; pi++) {
        const xp_plane *pl = &src->planes[pi];
        if (!xp_plane_is(src, pl, "TPU") || !xp_stat_meta_by_name(pl, "group_id"))
            continue;
        uint32_t *rows = pq_malloc_array(pl->nemeta + 1, sizeof *rows);
        if (!rows)
            return 0;
        for (uint32_t k = 0; k <= pl->nemeta; k++)
            rows[k] = UINT32_MAX - 1;
        int ok = 1;
        for (uint32_t li = 0; ok && li < pl->nlines; li++) {
            const xp_line *line = &pl->lines[li];
            int marker = pq_str_eq(line->name, "Steps");
            if (marker || pq_str_eq(line->name, "XLA Ops"))
                ok = line_events(r, pl, pi, line, marker, rows, t);
        }
        pq_free(rows);
        if (!ok)
            return 0;
    }
    return 1;
}

/* Appends to ST step S (group, times) with the counts of its events EV[0..N): occurrences
 * and times per op row of R, in row order, summed in ONE (R->nops zeroed entries, zeroed
 * again on return). */
static int add_step(ops_tpu_steps *st, const pq_ops_result *r, const tev *ev, size_t n,
                    ops_tpu_step s, pq_op_row *one)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (ev[i].marker || ev[i].row == UINT32_MAX)
            continue;
        pq_op_row *d = &one[ev[i].row];
        k += !d->occurrences;
        d->occurrences++;
        d->time_ps += ev[i].dur;
        d->self_time_ps += ev[i].dur - ev[i].children;
    }
    ops_tpu_count *c = pq_realloc_array(st->counts, st->ncounts + k + 1, sizeof *c);
    ops_tpu_step *v = pq_realloc_array(st->steps, st->nsteps + 1, sizeof *v);
    if (c)
        st->counts = c;
    if (v)
        st->steps = v;
    for (size_t j = 0; j < r->nops; j++) {
        pq_op_row *d = &one[j];
        if (c && v && d->occurrences)
            c[st->ncounts++] =
                (ops_tpu_count){r->ops[j].program_id, r->ops[j].symbol_id, r->ops[j].name,
                                d->occurrences,       d->time_ps,          d->self_time_ps};
        memset(d, 0, sizeof *d);
    }
    if (!c || !v)
        return 0;
    s.ncounts = k;
    v[st->nsteps++] = s;
    return 1;
}

/* The key order of op rows: program, symbol, name. */
static int key_cmp(uint64_t pa, uint64_t sa, pq_str na, const pq_op_row *b)
{
    if (pa != b->program_id)
        return pa < b->program_id ? -1 : 1;
    if (sa != b->symbol_id)
        return sa < b->symbol_id ? -1 : 1;
    size_t n = na.n < b->name.n ? na.n : b->name.n;
    int c = n ? memcmp(na.p, b->name.p, n) : 0;
    return c ? c : na.n < b->name.n ? -1 : na.n > b->name.n;
}

static int row_ptr_cmp(const void *a, const void *b)
{
    const pq_op_row *x = *(const pq_op_row *const *)a;
    return key_cmp(x->program_id, x->symbol_id, x->name, *(const pq_op_row *const *)b);
}

/* The index in R->ops of the row of count C (BY: R's rows without IDLE in key order, N of
 * them), or UINT32_MAX. */
static uint32_t find_row(const pq_ops_result *r, pq_op_row *const *by, size_t n,
                         const ops_tpu_count *c)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int k = key_cmp(c->program_id, c->symbol_id, c->name, by[mid]);
        if (!k)
            return (uint32_t)(by[mid] - r->ops);
        if (k < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return UINT32_MAX;
}

/* Adds the counts C[0..N) to ROWS (R->nops entries), the rows found through BY (NBY). */
static void count_rows(const pq_ops_result *r, pq_op_row *const *by, size_t nby,
                       const ops_tpu_count *c, size_t n, pq_op_row *rows)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t k = find_row(r, by, nby, &c[i]);
        if (k == UINT32_MAX)
            continue;
        rows[k].occurrences += c[i].occurrences;
        rows[k].time_ps += c[i].time_ps;
        rows[k].self_time_ps += c[i].self_time_ps;
    }
}

/* The records of N steps into R: step I is, over the hosts H[0..NH), the sum of step
 * FIRST[h] + I of each (HOSTS: its first step in ST, OFF: the first count of each step of
 * ST), numbered by NUMBER (NULL: 0..n-1). */
typedef struct tpu_pick {
    const ops_tpu_steps *st;
    const size_t *hosts, *first, *off;
    size_t nh;
} tpu_pick;

static int make_records(pq_ops_result *r, const tpu_pick *pk, size_t n, const int64_t *number)
{
    size_t nby = 0;
    pq_op_row *one = pq_calloc(r->nops + 1, sizeof *one);
    pq_op_row *acc = pq_calloc(r->nops + 1, sizeof *acc);
    pq_op_row **by = pq_malloc_array(r->nops + 1, sizeof *by);
    r->steps = pq_malloc_array(n + 1, sizeof *r->steps);
    r->step_rows = pq_calloc(2 * n + 2, sizeof *r->step_rows);
    int ok = one && acc && by && r->steps && r->step_rows;
    for (size_t j = 0; ok && j < r->nops; j++)
        if (!r->ops[j].is_idle)
            by[nby++] = &r->ops[j];
    if (ok && nby)
        qsort(by, nby, sizeof *by, row_ptr_cmp);
    int64_t all = 0;
    for (size_t i = 0; ok && i < n; i++) {
        int64_t total = 0;
        memset(one, 0, (r->nops + 1) * sizeof *one);
        for (size_t h = 0; h < pk->nh; h++) { /* CombinePerCoreStepInfo over the hosts */
            size_t k = pk->hosts[h] + pk->first[h] + i;
            const ops_tpu_step *s = &pk->st->steps[k];
            const ops_tpu_count *c = pk->st->counts + pk->off[k];
            count_rows(r, by, nby, c, s->ncounts, one);
            count_rows(r, by, nby, c, s->ncounts, acc);
            total += s->total_ps;
        }
        scale_rows(r, one);
        program_records(r, one, total, &r->step_rows[2 * i]);
        r->steps[i] = number ? number[i] : (int64_t)i;
        all += total;
    }
    if (ok) {
        scale_rows(r, acc);
        program_records(r, acc, all, &r->step_rows[2 * n]);
        r->nsteps = n;
    }
    pq_free(one);
    pq_free(acc);
    pq_free(by);
    return ok; /* on failure R's steps and step rows are freed with R */
}

int ops_steps_tpu_records(pq_ops_result *r, const ops_tpu_steps *st, size_t xspaces)
{
    if (st->unsupported || !st->nhosts || !st->nsteps)
        return 1;
    size_t nh = st->nhosts;
    size_t *hosts = pq_malloc_array(nh + 1, sizeof *hosts);
    size_t *first = pq_calloc(nh + 1, sizeof *first);
    size_t *off = pq_malloc_array(st->nsteps + 1, sizeof *off);
    uint32_t *ids = pq_malloc_array(nh + 1, sizeof *ids);
    ops_host_step *hs = pq_malloc_array(st->nsteps + 1, sizeof *hs);
    int64_t *number = NULL, *steps = NULL;
    size_t n = 0;
    int ok = hosts && first && off && ids && hs;
    for (size_t h = 0, k = 0, c = 0; ok && h < nh; h++) {
        hosts[h] = k;
        ids[h] = (uint32_t)h;
        for (size_t e = k + st->hosts[h].nsteps; k < e; k++) {
            off[k] = c;
            c += st->steps[k].ncounts;
            hs[k] = (ops_host_step){(uint32_t)h, st->steps[k].group, st->steps[k].begin_ps,
                                    st->steps[k].end_ps};
        }
    }
    if (ok && xspaces > 1) { /* XProf's StepIntersection, CombineAllOpStats */
        ok = ops_steps_intersect(hs, st->nsteps, ids, nh, &steps, &n, &r->steps_empty_intersect,
                                 first);
    } else if (ok) { /* one XSpace: its op stats as they are, steps by group */
        nh = 1;
        n = st->hosts[0].nsteps;
        ok = (number = pq_malloc_array(n + 1, sizeof *number)) != NULL;
        for (size_t i = 0; ok && i < n; i++)
            number[i] = st->steps[i].group;
    }
    tpu_pick pk = {st, hosts, first, off, nh};
    ok = ok && (!n || make_records(r, &pk, n, number));
    pq_free(hosts);
    pq_free(first);
    pq_free(off);
    pq_free(ids);
    pq_free(hs);
    pq_free(number);
    pq_free(steps);
    return ok;
}

void ops_tpu_steps_free(ops_tpu_steps *st)
{
    pq_free(st->hosts);
    pq_free(st->steps);
    pq_free(st->counts);
    memset(st, 0, sizeof *st);
}

/* *S copied into A; 0 when out of memory. */
static int own_str(arena *a, pq_str *s)
{
    char *p = arena_strndup(a, s->p ? s->p : "", s->n);
    if (p)
        *s = pq_str_of(p, s->n);
    return p != NULL;
}

/* Appends host H of SRC (its steps from step S, counts from count C) to DST, sized for it;
 * names and path into A. 0 when out of memory. */
static int append_host(ops_tpu_steps *dst, const ops_tpu_steps *src, size_t h, size_t s, size_t c,
                       arena *a)
{
    ops_tpu_host hh = src->hosts[h];
    if (!own_str(a, &hh.path))
        return 0;
    dst->hosts[dst->nhosts++] = hh;
    for (size_t k = s; k < s + hh.nsteps; k++) {
        dst->steps[dst->nsteps++] = src->steps[k];
        for (size_t e = c + src->steps[k].ncounts; c < e; c++) {
            ops_tpu_count cc = src->counts[c];
            if (!own_str(a, &cc.name))
                return 0;
            dst->counts[dst->ncounts++] = cc;
        }
    }
    return 1;
}

static int path_cmp(pq_str a, pq_str b)
{
    size_t n = a.n < b.n ? a.n : b.n;
    int c = n ? memcmp(a.p, b.p, n) : 0;
    return c ? c : a.n < b.n ? -1 : a.n > b.n;
}

/* The first step and count of each host of T into S and C (T->nhosts entries). */
static void host_offsets(const ops_tpu_steps *t, size_t *s, size_t *c)
{
    for (size_t h = 0, k = 0, n = 0; h < t->nhosts; h++) {
        s[h] = k;
        c[h] = n;
        for (size_t e = k + t->hosts[h].nsteps; k < e; k++)
            n += t->steps[k].ncounts;
    }
}

int ops_tpu_steps_merge(ops_tpu_steps *into, const ops_tpu_steps *from, arena *a)
{
    if (into->unsupported || from->unsupported) { /* no TPU steps at all: no hosts kept */
        ops_tpu_steps_free(into);
        into->unsupported = 1;
        return 1;
    }
    ops_tpu_steps m = {0};
    size_t nh = into->nhosts + from->nhosts;
    m.hosts = pq_malloc_array(nh + 1, sizeof *m.hosts);
    m.steps = pq_malloc_array(into->nsteps + from->nsteps + 1, sizeof *m.steps);
    m.counts = pq_malloc_array(into->ncounts + from->ncounts + 1, sizeof *m.counts);
    size_t *is = pq_malloc_array(2 * into->nhosts + 1, sizeof *is);
    size_t *fs = pq_malloc_array(2 * from->nhosts + 1, sizeof *fs);
    int ok = m.hosts && m.steps && m.counts && is && fs;
    if (ok) {
        host_offsets(into, is, is + into->nhosts);
        host_offsets(from, fs, fs + from->nhosts);
    }
    for (size_t i = 0, j = 0; ok && i + j < nh;) {
        if (j == from->nhosts ||
            (i < into->nhosts && path_cmp(into->hosts[i].path, from->hosts[j].path) <= 0)) {
            ok = append_host(&m, into, i, is[i], is[into->nhosts + i], a);
            i++;
        } else {
            ok = append_host(&m, from, j, fs[j], fs[from->nhosts + j], a);
            j++;
        }
    }
    pq_free(is);
    pq_free(fs);
    if (!ok) {
        ops_tpu_steps_free(&m);
        return 0;
    }
    ops_tpu_steps_free(into);
    *into = m;
    return 1;
}

/* Whether SRC has a /host:CPU plane with group_id stats (host step markers, which take part
 * in XProf's step time: not covered). */
static int host_markers(const pq_source *src)
{
    for (uint32_t pi = 0; pi < src->nplanes; pi++)
        if (pq_str_eq(src->planes[pi].name, "/host:CPU") &&
            xp_stat_meta_by_name(&src->planes[pi], "group_id"))
            return 1;
    return 0;
}

/* The steps of XSpace SRC (a host: it has TPU planes) appended to ST, ONE: R->nops zeroed
 * rows. 0 when out of memory. */
static int source_steps(const pq_source *src, const pq_ops_result *r, ops_tpu_steps *st,
                        pq_op_row *one)
{
    ops_tpu_host *hv = pq_realloc_array(st->hosts, st->nhosts + 1, sizeof *hv);
    if (!hv)
        return 0;
    st->hosts = hv;
    ops_tpu_host *host = &st->hosts[st->nhosts++];
    *host = (ops_tpu_host){src->info.path, 0};
    tvec t = {0};
    int ok = source_events(r, src, &t);
    if (ok && t.n)
        qsort(t.v, t.n, sizeof *t.v, tev_cmp);
    for (size_t i = 0, j; ok && i < t.n; i = j) {
        for (j = i; j < t.n && t.v[j].group == t.v[i].group; j++)
            ;
        ops_tpu_step s = {t.v[i].group, 0, 0, 0, 0};
        /* all of them: XProf drops no incomplete TPU steps */
        if (step_total(t.v + i, j - i, &s.begin_ps, &s.end_ps, &s.total_ps)) {
            ok = add_step(st, r, t.v + i, j - i, s, one);
            host->nsteps += ok;
        }
    }
    pq_free(t.v);
    return ok;
}

int ops_steps_tpu_counts(const pq_profile *prof, const pq_ops_result *r, ops_tpu_steps *st)
{
    memset(st, 0, sizeof *st);
    if (r->nsteps && !r->step_rows)
        return 1; /* GPU steps */
    pq_op_row *one = pq_calloc(r->nops + 1, sizeof *one);
    int ok = one != NULL;
    for (size_t si = 0; ok && si < prof->nsources; si++) {
        const pq_source *src = &prof->sources[si];
        int tpu = 0;
        for (uint32_t pi = 0; pi < src->nplanes && !tpu; pi++)
            tpu = xp_plane_is(src, &src->planes[pi], "TPU");
        st->unsupported |= host_markers(src);
        if (tpu && !st->unsupported)
            ok = source_steps(src, r, st, one);
    }
    pq_free(one);
    if (ok && st->unsupported) { /* none at all, as before */
        ops_tpu_steps_free(st);
        st->unsupported = 1;
    }
    if (!ok)
        ops_tpu_steps_free(st);
    return ok;
}

int ops_steps_tpu(const pq_profile *prof, pq_ops_result *r)
{
    ops_tpu_steps st;
    int ok =
        ops_steps_tpu_counts(prof, r, &st) && ops_steps_tpu_records(r, &st, ops_xspace_count(prof));
    ops_tpu_steps_free(&st);
    return ok;
}
