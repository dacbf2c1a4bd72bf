/* ops_tpu.c - TPU op extraction (XProf's device OpMetricsDb, spec/xprof-tools.md 5.2-5.3):
 * the events of a TensorCore plane's `XLA Ops` / `Framework Ops` / `Sparse Core Ops` lines,
 * each of the op its metadata entry states (the source's ops, stated by the XPlane reader:
 * formats/xplane_ops.c, keyed by program_id, symbol_id and name); self time from an ancestor stack
 * per line; FLOPs, bytes and memory_access_breakdown from the metadata (per occurrence, scaled by
 * occurrences in ops_core.c); program executions from the `XLA Modules` line; the plane's window
 * from its op and step lines. Not here: GPU and CPU planes, SparseCore offload nesting, step
 * databases. */
#include "analysis/ops_internal.h"

#include "core/alloc.h"

#include <stdlib.h>
#include <string.h>

/* ---- event metadata: the ops the reader stated (pq_source.ops), per metadata entry ---- */

/* The model op one event metadata entry states (kept on the source, stated by the XPlane
 * reader: formats/xplane_ops.c) and what merging it needs, looked up once per entry. */
typedef struct meta_info {
    int parsed;
    uint32_t slot;        /* op table index + 1 once this metadata has been merged */
    uint32_t prog;        /* program table index + 1 once looked up */
    int slot_custom_call; /* the merged op's custom_call, as first stated (once slot is set) */
    int off_duty;         /* category that does not count as busy (spec 5.3 duty cycle) */
    const model_op *op;   /* NULL: the entry states no op (no program, no symbol, symbol 0) */
} meta_info;

static int is_off_duty(pq_str cat)
{
    static const char *const off[] = {"infeed",         "outfeed",   "host send",
                                      "host send-done", "host recv", "host recv-done",
                                      "megacore fusion"};
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++)
        if (pq_str_eq(cat, off[i]))
            return 1;
    return 0;
}

/* The op and category of the metadata entry EM of plane PL: the op the reader stated, else
 * only the entry's category (an event without an op still counts toward busy time). */
static void parse_meta(const pq_source *src, const xp_plane *pl, const stat_ids *ids,
                       const xp_event_meta *em, meta_info *mi)
{
    memset(mi, 0, sizeof *mi);
    mi->parsed = 1;
    uint32_t at = pl->emeta_op ? pl->emeta_op[em - pl->emeta] : 0;
    if (at) {
        mi->op = &src->ops.v[at - 1];
        mi->off_duty = is_off_duty(mi->op->category);
        return;
    }
    op_stats o = {0};
    ops_read_op_stats(pl, ids, em->body, em->body_len, 5, &o);
    mi->off_duty = is_off_duty(o.category);
}

typedef struct ev_rec {
    int64_t start, dur; /* device timespan (device_offset_ps/duration when stated) */
    int64_t abs_start, abs_end;
    int64_t children;
    const uint8_t *stats; /* the event body, for the rarely present per-event stats */
    uint32_t body_len;
    uint32_t order;
    uint32_t meta; /* index into the plane's emeta, UINT32_MAX when unknown */
    int32_t occurrences;
    int top;
} ev_rec;

/* Per-event stats other than the timespan: read again at merge time, and only when the
 * plane has them or the op is a custom-call, so that the record stays small. */
typedef struct ev_extras {
    double tsm, flops, model_flops, bytes;
    int64_t min_dur, dma;
} ev_extras;

static void read_extras(const xp_plane *pl, const stat_ids *ids, const ev_rec *r, ev_extras *x)
{
    op_stats o = {.tsm = 1.0};
    ops_read_op_stats(pl, ids, r->stats, r->body_len, 4, &o);
    x->tsm = o.tsm;
    x->min_dur = o.has_min ? o.min_dur : r->dur;
    x->dma = o.dma;
    x->flops = o.flops;
    x->model_flops = o.model_flops;
    x->bytes = o.bytes;
}

static int ev_cmp(const void *a, const void *b)
{
    const ev_rec *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->dur != y->dur)
        return x->dur > y->dur ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Sorts RECS by ev_cmp (a total order: any sort gives the same result). Op lines are in
 * start order but for a few swapped neighbours (a child listed before its parent of the
 * same start, device timespans out of step), so an insertion sort finishes in about one
 * pass; it hands over to qsort when the records turn out far from sorted. */
static void sort_records(ev_rec *recs, size_t n)
{
    size_t moves = 0, limit = 4 * n + 64;
    for (size_t i = 1; i < n; i++) {
        if (ev_cmp(&recs[i - 1], &recs[i]) <= 0)
            continue;
        ev_rec r = recs[i];
        size_t j = i;
        while (j > 0 && ev_cmp(&recs[j - 1], &r) > 0) {
            recs[j] = recs[j - 1];
            j--;
            moves++;
        }
        recs[j] = r;
        if (moves > limit) {
            qsort(recs, n, sizeof *recs, ev_cmp);
            return;
        }
    }
}

/* What one TensorCore plane accumulates while its lines are read. */
typedef struct tpu_plane_st {
    const pq_source *src;
    const xp_plane *pl;
    stat_ids ids;
    int need_timespan, has_extras;
    meta_info *mcache;
    int64_t span_lo, span_hi;
    int64_t plane_self, busy, module_ps;
    double plane_norm;
} tpu_plane_st;

/* The program of one `XLA Modules` event: its program_id stat, else its metadata's, else
 * the "(N)" suffix of the metadata name. */
static int module_program(const tpu_plane_st *ts, const xp_event *ev, const xp_event_meta *em,
                          uint64_t *pid)
{
    int has = 0;
    xp_stat_iter it;
    stat_value st;
    xp_stats_begin(&it, ev->stats, ev->body_len, 4);
    while (xp_stats_next(&it, &st))
        if (st.metadata_id == ts->ids.id[S_PROGRAM_ID])
            has = ops_stat_u64(&st, pid);
    if (!has && em) {
        xp_stats_begin(&it, em->body, em->body_len, 5);
        while (xp_stats_next(&it, &st))
            if (st.metadata_id == ts->ids.id[S_PROGRAM_ID])
                has = ops_stat_u64(&st, pid);
        if (!has)
            has = ops_parse_paren_id(em->name, pid);
    }
    return has;
}

/* Program executions from the `XLA Modules` lines, and the union of module spans. */
static int tpu_modules(tpu_plane_st *ts, ops_ctx *cx)
{
    const xp_plane *pl = ts->pl;
    for (uint32_t li = 0; li < pl->nlines; li++) {
        const xp_line *line = &pl->lines[li];
        if (!pq_str_eq(line->name, "XLA Modules"))
            continue;
        int64_t base = line->timestamp_ns * 1000, cur_end = INT64_MIN;
        xp_event_iter ei;
        xp_event ev;
        xp_events_begin(line, &ei);
        while (xp_events_next(&ei, &ev)) {
            int64_t s = base + ev.offset_ps, e = s + ev.duration_ps;
            uint64_t pid = 0;
            cx->out->has_modules = 1;
            const xp_event_meta *em = xp_event_meta_find(pl, ev.metadata_id);
            if (module_program(ts, &ev, em, &pid)) {
                pq_ops_program *p = ops_prog_get(cx->progs, pid);
                if (!p)
                    return 0;
                if (p->seen_on == pl) { /* not the first execution on this device */
                    p->steady_executions++;
                    p->steady_module_ps += ev.duration_ps;
                }
                p->seen_on = pl;
                p->executions++;
                p->module_ps += ev.duration_ps;
                if (s < p->first_ps)
                    p->first_ps = s;
                if (em)
                    ops_prog_name_from_module(p, em->name);
            }
            /* union of module spans */
            if (s >= cur_end) {
                ts->module_ps += ev.duration_ps;
                cur_end = e;
            } else if (e > cur_end) {
                ts->module_ps += e - cur_end;
                cur_end = e;
            }
        }
    }
    return 1;
}

static void widen_span(tpu_plane_st *ts, int64_t s, int64_t e)
{
    if (s < ts->span_lo)
        ts->span_lo = s;
    if (e > ts->span_hi)
        ts->span_hi = e;
}

/* The events of one op line as records with their device timespans, sorted by start (then
 * longest first); widens the plane's span when IS_SPAN. Returns the count. */
static size_t tpu_line_records(tpu_plane_st *ts, const xp_line *line, int is_span, ev_rec *recs)
{
    const xp_plane *pl = ts->pl;
    int64_t base = line->timestamp_ns * 1000;
    size_t n = 0;
    int unsorted = 0;
    xp_event_iter ei;
    xp_event ev;
    /* The device offset and duration stats are picked in the same pass over the event. */
    xp_stat_pick pick = {{ts->ids.id[S_DEV_OFFSET], ts->ids.id[S_DEV_DURATION]}, {{0}}, {0, 0}};
    xp_stat_pick *pk = ts->need_timespan ? &pick : NULL;
    xp_events_begin(line, &ei);
    while (n < line->events && xp_events_next_pick(&ei, &ev, pk)) {
        ev_rec *r = &recs[n];
        memset(r, 0, sizeof *r);
        const xp_event_meta *em0 = xp_event_meta_find(pl, ev.metadata_id);
        r->meta = em0 ? (uint32_t)(em0 - pl->emeta) : UINT32_MAX;
        r->occurrences = ev.num_occurrences > INT32_MAX ? INT32_MAX : (int32_t)ev.num_occurrences;
        r->stats = ev.stats;
        r->body_len = (uint32_t)ev.body_len;
        r->order = (uint32_t)n;
        r->abs_start = base + ev.offset_ps;
        r->abs_end = r->abs_start + ev.duration_ps;
        r->start = r->abs_start;
        r->dur = ev.duration_ps;
        int has_off = pk && pick.got[0], has_dur = pk && pick.got[1];
        int64_t off = has_off ? (int64_t)ops_stat_num(&pick.v[0]) : 0;
        int64_t dur = has_dur ? (int64_t)ops_stat_num(&pick.v[1]) : 0;
        if (has_off && has_dur) {
            r->start = off;
            r->dur = dur;
        }
        /* The window is XProf's GetDeviceEventTimespan: the device offset/duration stats
         * when the event has them, else its own span. */
        if (is_span)
            widen_span(ts, r->start, r->start + r->dur);
        if (n > 0 && !unsorted && ev_cmp(&recs[n - 1], r) > 0)
            unsorted = 1;
        n++;
    }
    if (unsorted)
        sort_records(recs, n);
    return n;
}

/* Ancestor stack: a parent's span includes its children's. Sets children time and top. */
static int tpu_nest(ev_rec *recs, size_t n)
{
    size_t *stack = pq_malloc_array(n ? n : 1, sizeof *stack);
    if (!stack)
        return 0;
    size_t depth = 0;
    for (size_t i = 0; i < n; i++) {
        ev_rec *r = &recs[i];
        while (depth > 0) {
            ev_rec *p = &recs[stack[depth - 1]];
            if (p->start <= r->start && r->start + r->dur <= p->start + p->dur)
                break;
            depth--;
        }
        if (depth > 0)
            recs[stack[depth - 1]].children += r->dur;
        else
            r->top = 1;
        stack[depth++] = i;
    }
    pq_free(stack);
    return 1;
}

/* Merges record R of metadata MI into its op slot and program. */
static int tpu_merge_one(tpu_plane_st *ts, ops_ctx *cx, const ev_rec *r, meta_info *mi)
{
    ev_extras x = {1.0, 0, 0, 0, r->dur, 0};
    const model_op *mo = mi->op;
    if (ts->has_extras || mo->custom_call)
        read_extras(ts->pl, &ts->ids, r, &x);
    double tsm = x.tsm;
    int64_t min_dur = x.min_dur;
    int fresh = 0;
    op_slot *sl;
    if (mi->slot) {
        sl = &cx->ops->v[mi->slot - 1];
    } else {
        model_op *op;
        sl = ops_table_get(cx->ops, mo->program_id, mo->symbol_id, mo->name, &op, &fresh);
        if (!sl)
            return 0;
        mi->slot = (uint32_t)(sl - cx->ops->v) + 1;
        if (fresh) /* the first metadata met states the op (XProf: the first event's) */
            *op = *mo;
        mi->slot_custom_call = op->custom_call;
    }
    int64_t occ = r->occurrences > 1 ? (int64_t)r->occurrences : 1;
    int64_t self = r->dur - r->children;
    op_metrics *m = &sl->m;
    if (fresh)
        m->min_time_ps = min_dur;
    else if (min_dur < m->min_time_ps)
        m->min_time_ps = min_dur;
    m->occurrences += occ;
    m->time_ps += r->dur;
    m->self_time_ps += self;
    m->dma_stall_ps += x.dma;
    m->normalized_time_ps += (double)r->dur * tsm;
    if (mi->slot_custom_call) {
        m->flops += mo->flops + x.flops;
        m->model_flops += mo->model_flops + x.model_flops;
        m->bytes_accessed += mo->bytes + x.bytes;
    }
    ts->plane_self += self;
    ts->plane_norm += (double)r->dur * tsm;
    pq_ops_program *p;
    if (mi->prog) {
        p = &cx->progs->v[mi->prog - 1];
    } else {
        p = ops_prog_get(cx->progs, mo->program_id);
        if (!p)
            return 0;
        mi->prog = (uint32_t)(p - cx->progs->v) + 1;
    }
    p->op_self_ps += self;
    if (r->abs_start < p->first_ps)
        p->first_ps = r->abs_start;
    return 1;
}

/* The busy union (top-level `XLA Ops` events outside off-duty categories) and the merge of
 * every record with a (program_id, symbol_id) key. */
static int tpu_merge(tpu_plane_st *ts, ops_ctx *cx, const ev_rec *recs, size_t n, int is_xla_ops)
{
    const xp_plane *pl = ts->pl;
    int64_t busy_end = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        const ev_rec *r = &recs[i];
        const xp_event_meta *em = r->meta == UINT32_MAX ? NULL : &pl->emeta[r->meta];
        meta_info *mi = NULL;
        if (em) {
            mi = &ts->mcache[em - pl->emeta];
            if (!mi->parsed)
                parse_meta(ts->src, pl, &ts->ids, em, mi);
        }
        if (r->top && is_xla_ops && !(mi && mi->off_duty)) {
            if (r->abs_start >= busy_end) {
                ts->busy += r->abs_end - r->abs_start;
                busy_end = r->abs_end;
            } else if (r->abs_end > busy_end) {
                ts->busy += r->abs_end - busy_end;
                busy_end = r->abs_end;
            }
        }
        if (!mi || !mi->op)
            continue;
        if (!tpu_merge_one(ts, cx, r, mi))
            return 0;
    }
    return 1;
}

/* The step lines widen the window only; op lines are read, nested and merged. */
static int tpu_line(tpu_plane_st *ts, ops_ctx *cx, const xp_line *line)
{
    int is_ops = pq_str_eq(line->name, "XLA Ops") || pq_str_eq(line->name, "Framework Ops") ||
                 pq_str_eq(line->name, "Sparse Core Ops");
    int is_span = pq_str_eq(line->name, "XLA Ops") || pq_str_eq(line->name, "Sparse Core Ops") ||
                  pq_str_eq(line->name, "Steps") || pq_str_eq(line->name, "Sparse Core Steps");
    if (!is_ops && !is_span)
        return 1;
    int64_t base = line->timestamp_ns * 1000;
    if (is_span && !is_ops && line->events) {
        xp_event_iter ei;
        xp_event ev;
        xp_events_begin(line, &ei);
        while (xp_events_next(&ei, &ev))
            widen_span(ts, base + ev.offset_ps, base + ev.offset_ps + ev.duration_ps);
    }
    if (!is_ops || line->events == 0)
        return 1;
    ev_rec *recs = pq_malloc_array((size_t)line->events, sizeof *recs);
    if (!recs)
        return 0;
    size_t n = tpu_line_records(ts, line, is_span, recs);
    int ok = tpu_nest(recs, n) && tpu_merge(ts, cx, recs, n, pq_str_eq(line->name, "XLA Ops"));
    pq_free(recs);
    return ok;
}

int ops_tpu_plane(const pq_source *src, const xp_plane *pl, ops_ctx *cx)
{
    tpu_plane_st ts = {0};
    ts.src = src;
    ts.pl = pl;
    ops_stat_ids_init(pl, &ts.ids);
    ts.need_timespan =
        ts.ids.id[S_DEV_OFFSET] != INT64_MIN && ts.ids.id[S_DEV_DURATION] != INT64_MIN;
    ts.has_extras = ts.ids.id[S_TSM] != INT64_MIN || ts.ids.id[S_MIN_DURATION] != INT64_MIN ||
                    ts.ids.id[S_DMA_STALL] != INT64_MIN;
    ts.mcache = pl->nemeta ? pq_calloc(pl->nemeta, sizeof *ts.mcache) : NULL;
    if (pl->nemeta && !ts.mcache)
        return 0;
    ts.span_lo = INT64_MAX;
    ts.span_hi = INT64_MIN;
    int ok = tpu_modules(&ts, cx);
    for (uint32_t li = 0; ok && li < pl->nlines; li++)
        ok = tpu_line(&ts, cx, &pl->lines[li]);
    if (ok) {
        int64_t span = ts.span_hi > ts.span_lo ? ts.span_hi - ts.span_lo : 0;
        ops_add_device(cx->out, span, ts.plane_self, ts.plane_norm, ts.busy, ts.module_ps);
    }
    pq_free(ts.mcache);
    return ok;
}
