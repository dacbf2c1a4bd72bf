/* ops.c - op metrics from device planes (XProf's device OpMetricsDb, spec/xprof-tools.md
 * 5.2-5.6), merged over devices and hosts, plus programs and windows.
 *
 * TPU: events of the `XLA Ops` / `Framework Ops` / `Sparse Core Ops` lines, keyed by the
 * event metadata's (program_id, symbol_id); self time from an ancestor stack; FLOPs, bytes
 * and memory_access_breakdown from the metadata, multiplied by occurrences at the end.
 * GPU: kernels on the raw (non-derived) stream lines, keyed by (program_id, hlo_op);
 * category, provenance, FLOPs, bytes and HBM breakdown from the program's HloProto by
 * XLA's GPU cost analysis rules (analysis/hlo_cost.c), as XProf; event stats otherwise.
 * GPU peaks not stated by the plane from its core count, clock and architecture.
 * CPU-only runs: XLA:CPU thunks on host threads (hlo_op stats), nested per thread; XProf
 * has no device op database for those (its CPU path is for TensorFlow ops).
 * Not here: SparseCore offload nesting, step databases. */
#include "analysis/ops.h"

#include "analysis/hlo_cost.h"

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "formats/hlo.h"
#include "formats/pbwire.h"
#include "formats/xplane_walk.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double ops_giga_to_gibi(double x)
{
    return x / (1073741824.0 / 1e9);
}

static double safe_div(double a, double b)
{
    return fabs(b) < 1e-10 ? 0.0 : a / b;
}

/* ---- stat ids of one plane ---- */

enum {
    S_PROGRAM_ID,
    S_SYMBOL_ID,
    S_HLO_CATEGORY,
    S_TF_OP,
    S_FLOPS,
    S_MODEL_FLOPS,
    S_BYTES,
    S_MAB,
    S_DEDUP,
    S_DEV_OFFSET,
    S_DEV_DURATION,
    S_TSM,
    S_MIN_DURATION,
    S_DMA_STALL,
    S_HLO_OP,
    S_HLO_MODULE,
    S_GROUP_ID,
    S_SOURCE,
    S_SOURCE_STACK,
    S_COUNT
};

static const char *const STAT_NAMES[S_COUNT] = {"program_id",
                                                "symbol_id",
                                                "hlo_category",
                                                "tf_op",
                                                "flops",
                                                "model_flops",
                                                "bytes_accessed",
                                                "memory_access_breakdown",
                                                "deduplicated_name",
                                                "device_offset_ps",
                                                "device_duration_ps",
                                                "Time Scale Multiplier",
                                                "min_duration_ps",
                                                "dma_stall_duration_ps",
                                                "hlo_op",
                                                "hlo_module",
                                                "group_id",
                                                "source",
                                                "source_stack"};

enum { DENSE_IDS = 1024 };

typedef struct stat_ids {
    int64_t id[S_COUNT];     /* INT64_MIN when the plane has no such stat */
    int8_t dense[DENSE_IDS]; /* slot + 1 by metadata id, for the usual small ids */
} stat_ids;

static void stat_ids_init(const xp_plane *pl, stat_ids *ids)
{
    memset(ids->dense, 0, sizeof ids->dense);
    for (int k = 0; k < S_COUNT; k++) {
        const xp_stat_meta *m = xp_stat_meta_by_name(pl, STAT_NAMES[k]);
        ids->id[k] = m ? m->id : INT64_MIN;
        if (m && m->id >= 0 && m->id < DENSE_IDS)
            ids->dense[m->id] = (int8_t)(k + 1);
    }
}

static inline int stat_slot(const stat_ids *ids, int64_t id)
{
    if (id >= 0 && id < DENSE_IDS)
        return ids->dense[id] - 1;
    for (int k = 0; k < S_COUNT; k++)
        if (ids->id[k] == id)
            return k;
    return -1;
}

static double stat_num(const stat_value *s)
{
    switch (s->kind) {
    case STAT_DOUBLE:
        return s->v.d;
    case STAT_UINT64:
        return (double)s->v.u;
    case STAT_INT64:
        return (double)s->v.i;
    default:
        return 0.0;
    }
}

static int stat_u64(const stat_value *s, uint64_t *out)
{
    switch (s->kind) {
    case STAT_UINT64:
    case STAT_INT64:
        *out = s->v.u;
        return 1;
    case STAT_DOUBLE:
        *out = s->v.d >= 0 ? (uint64_t)s->v.d : 0;
        return 1;
    default:
        return 0;
    }
}

/* ---- parsed event metadata (TPU), cached per metadata entry ---- */

typedef struct meta_info {
    int parsed;
    uint32_t slot; /* op table index + 1 once this metadata has been merged */
    int off_duty;  /* category that does not count as busy (spec 5.3 duty cycle) */
    int custom_call;
    int has_pid, has_sid;
    uint64_t pid, sid;
    pq_str name, long_name, category, provenance, dedup, source, source_stack;
    double flops, model_flops, bytes;
    double bd_hbm, bd_cmem_rd, bd_cmem_wr, bd_vmem_rd, bd_vmem_wr, bd_onchip_rd, bd_onchip_wr;
    int has_breakdown;
} meta_info;

/* MemoryAccessBreakdown{repeated MemoryAccessed memory_accessed=1}, MemoryAccessed{
 * operation_type=1 (1 READ, 2 WRITE), memory_space=2 (1 HBM, 2 CMEM, 3 VMEM),
 * bytes_accessed=3}. Malformed bytes are ignored (the stat is then absent). */
static void parse_breakdown(pq_str b, meta_info *mi)
{
    pb_cursor c;
    pb_field f = {0};
    pb_init(&c, (const uint8_t *)b.p, b.n, (const uint8_t *)b.p);
    while (pb_next(&c, &f) == PB_FIELD) {
        if (f.num != 1 || f.wire != PB_LEN)
            continue;
        pb_cursor c2;
        pb_field g = {0};
        uint64_t op = 0, space = 0, bytes = 0;
        pb_init(&c2, f.data, f.len, f.data);
        while (pb_next(&c2, &g) == PB_FIELD) {
            if (g.wire != PB_VARINT)
                continue;
            if (g.num == 1)
                op = g.u;
            else if (g.num == 2)
                space = g.u;
            else if (g.num == 3)
                bytes = g.u;
        }
        double v = (double)bytes;
        mi->has_breakdown = 1;
        if (space == 1)
            mi->bd_hbm += v;
        else if (op == 1)
            mi->bd_onchip_rd += v;
        else if (op == 2)
            mi->bd_onchip_wr += v;
        if (space == 2 && op == 1)
            mi->bd_cmem_rd += v;
        if (space == 2 && op == 2)
            mi->bd_cmem_wr += v;
        if (space == 3 && op == 1)
            mi->bd_vmem_rd += v;
        if (space == 3 && op == 2)
            mi->bd_vmem_wr += v;
    }
}

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

/* Every stat of interest of one stats list (metadata field 5 or event field 4), folded into
 * O; a later occurrence overrides an earlier one, so reading metadata then event gives the
 * event's value where both state one. */
typedef struct op_stats {
    pq_str category, tf_op, dedup, source, source_stack, hlo_op, module, mab;
    uint64_t pid, sid;
    int has_pid, has_sid, has_min;
    double flops, model_flops, bytes, tsm;
    int64_t min_dur, dma;
} op_stats;

static void read_op_stats(const xp_plane *pl, const stat_ids *ids, const uint8_t *body,
                          uint32_t len, uint32_t field, op_stats *o)
{
    xp_stat_iter it;
    stat_value s;
    xp_stats_begin(&it, body, len, field);
    while (xp_stats_next(&it, &s)) {
        switch (stat_slot(ids, s.metadata_id)) {
        case S_PROGRAM_ID:
            o->has_pid = stat_u64(&s, &o->pid);
            break;
        case S_SYMBOL_ID:
            o->has_sid = stat_u64(&s, &o->sid);
            break;
        case S_HLO_CATEGORY:
            o->category = xp_stat_str(pl, &s);
            break;
        case S_TF_OP:
            o->tf_op = xp_stat_str(pl, &s);
            break;
        case S_FLOPS:
            o->flops = stat_num(&s);
            break;
        case S_MODEL_FLOPS:
            o->model_flops = stat_num(&s);
            break;
        case S_BYTES:
            o->bytes = stat_num(&s);
            break;
        case S_MAB:
            if (s.kind == STAT_BYTES || s.kind == STAT_STR)
                o->mab = s.v.s;
            break;
        case S_DEDUP:
            o->dedup = xp_stat_str(pl, &s);
            break;
        case S_SOURCE:
            o->source = xp_stat_str(pl, &s);
            break;
        case S_SOURCE_STACK:
            o->source_stack = xp_stat_str(pl, &s);
            break;
        case S_TSM:
            o->tsm = stat_num(&s);
            break;
        case S_MIN_DURATION:
            o->has_min = 1;
            o->min_dur = (int64_t)stat_num(&s);
            break;
        case S_DMA_STALL:
            o->dma = (int64_t)stat_num(&s);
            break;
        case S_HLO_OP:
            o->hlo_op = xp_stat_str(pl, &s);
            break;
        case S_HLO_MODULE:
            o->module = xp_stat_str(pl, &s);
            break;
        default:
            break;
        }
    }
}

static void parse_meta(const xp_plane *pl, const stat_ids *ids, const xp_event_meta *em,
                       meta_info *mi)
{
    memset(mi, 0, sizeof *mi);
    mi->parsed = 1;
    if (em->display_name.n) {
        mi->name = em->display_name;
        mi->long_name = em->name;
    } else {
        mi->name = em->name;
    }
    op_stats o = {0};
    read_op_stats(pl, ids, em->body, em->body_len, 5, &o);
    mi->has_pid = o.has_pid;
    mi->pid = o.pid;
    mi->has_sid = o.has_sid;
    mi->sid = o.sid;
    mi->category = o.category;
    mi->provenance = o.tf_op;
    mi->flops = o.flops;
    mi->model_flops = o.model_flops;
    mi->bytes = o.bytes;
    if (o.mab.p)
        parse_breakdown(o.mab, mi);
    mi->dedup = o.dedup;
    mi->source = o.source;
    mi->source_stack = o.source_stack;
    mi->off_duty = is_off_duty(mi->category);
    mi->custom_call = pq_str_eq(mi->category, "custom-call");
}

/* ---- the op table: open addressing over (program, symbol, name) ---- */

typedef struct op_slot {
    op_metrics m;
    int custom_call;
    double m_flops, m_model_flops, m_bytes; /* per occurrence, from the metadata */
    meta_info bd;                           /* per-occurrence breakdown */
    uint64_t hash;
} op_slot;

typedef struct op_table {
    op_slot *v;
    size_t n, cap;
    uint32_t *idx; /* hash -> v index + 1; 0 empty */
    size_t icap;
    int oom;
} op_table;

static uint64_t hash_key(uint64_t pid, uint64_t sid, pq_str name)
{
    uint64_t h = 1469598103934665603ull ^ pid;
    h = (h ^ sid) * 1099511628211ull;
    h ^= h >> 29;
    for (size_t i = 0; i < name.n; i++)
        h = (h ^ (unsigned char)name.p[i]) * 1099511628211ull;
    return h ^ (h >> 32);
}

static int str_same(pq_str a, pq_str b)
{
    return a.n == b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0);
}

static int table_grow(op_table *t)
{
    size_t icap = t->icap ? t->icap * 2 : 1024;
    uint32_t *idx = pq_calloc(icap, sizeof *idx);
    if (!idx)
        return 0;
    for (size_t i = 0; i < t->n; i++) {
        size_t j = t->v[i].hash & (icap - 1);
        while (idx[j])
            j = (j + 1) & (icap - 1);
        idx[j] = (uint32_t)i + 1;
    }
    pq_free(t->idx);
    t->idx = idx;
    t->icap = icap;
    return 1;
}

/* Finds or inserts the slot; *fresh tells which. NULL on allocation failure. */
static op_slot *table_get(op_table *t, uint64_t pid, uint64_t sid, pq_str name, int *fresh)
{
    if ((t->n + 1) * 2 > t->icap && !table_grow(t)) {
        t->oom = 1;
        return NULL;
    }
    uint64_t h = hash_key(pid, sid, name);
    size_t j = h & (t->icap - 1);
    while (t->idx[j]) {
        op_slot *s = &t->v[t->idx[j] - 1];
        if (s->hash == h && s->m.program_id == pid && s->m.symbol_id == sid &&
            (sid != 0 || str_same(s->m.name, name))) {
            *fresh = 0;
            return s;
        }
        j = (j + 1) & (t->icap - 1);
    }
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 256;
        op_slot *v = pq_realloc(t->v, cap * sizeof *v);
        if (!v) {
            t->oom = 1;
            return NULL;
        }
        t->v = v;
        t->cap = cap;
    }
    op_slot *s = &t->v[t->n];
    memset(s, 0, sizeof *s);
    s->hash = h;
    s->m.program_id = pid;
    s->m.symbol_id = sid;
    s->m.name = name;
    t->idx[j] = (uint32_t)++t->n;
    *fresh = 1;
    return s;
}

/* ---- programs ---- */

typedef struct prog_table {
    ops_program *v;
    size_t n, cap;
    int oom;
} prog_table;

static ops_program *prog_get(prog_table *t, uint64_t pid)
{
    for (size_t i = 0; i < t->n; i++) /* few programs per profile */
        if (t->v[i].program_id == pid)
            return &t->v[i];
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        ops_program *v = pq_realloc(t->v, cap * sizeof *v);
        if (!v) {
            t->oom = 1;
            return NULL;
        }
        t->v = v;
        t->cap = cap;
    }
    ops_program *p = &t->v[t->n++];
    memset(p, 0, sizeof *p);
    p->program_id = pid;
    p->first_ps = INT64_MAX;
    return p;
}

/* "(N)" at the end of a module name, as XProf falls back to. */
static int parse_paren_id(pq_str s, uint64_t *out)
{
    if (s.n < 3 || s.p[s.n - 1] != ')')
        return 0;
    size_t i = s.n - 1;
    uint64_t v = 0, mul = 1;
    while (i > 0 && s.p[i - 1] >= '0' && s.p[i - 1] <= '9') {
        v += (uint64_t)(s.p[i - 1] - '0') * mul;
        mul *= 10;
        i--;
    }
    if (i == s.n - 1 || i == 0 || s.p[i - 1] != '(')
        return 0;
    *out = v;
    return 1;
}

/* ---- TPU ---- */

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
    read_op_stats(pl, ids, r->stats, r->body_len, 4, &o);
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

typedef struct tpu_ctx {
    op_table *ops;
    prog_table *progs;
    ops_result *out;
} tpu_ctx;

static int tpu_plane(const pq_source *src, const xp_plane *pl, tpu_ctx *cx)
{
    stat_ids ids;
    stat_ids_init(pl, &ids);
    int need_timespan = ids.id[S_DEV_OFFSET] != INT64_MIN && ids.id[S_DEV_DURATION] != INT64_MIN;
    int has_extras = ids.id[S_TSM] != INT64_MIN || ids.id[S_MIN_DURATION] != INT64_MIN ||
                     ids.id[S_DMA_STALL] != INT64_MIN;
    meta_info *mcache = pl->nemeta ? pq_calloc(pl->nemeta, sizeof *mcache) : NULL;
    if (pl->nemeta && !mcache)
        return 0;
    int64_t span_lo = INT64_MAX, span_hi = INT64_MIN;
    int64_t plane_self = 0, busy = 0, module_ps = 0;
    double plane_norm = 0;
    /* first execution end per program on this device (for the steady-state window) */
    int ok = 1;

    /* Modules first: program executions. */
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
            int has = 0;
            xp_stat_iter it;
            stat_value st;
            xp_stats_begin(&it, ev.stats, ev.body_len, 4);
            while (xp_stats_next(&it, &st))
                if (st.metadata_id == ids.id[S_PROGRAM_ID])
                    has = stat_u64(&st, &pid);
            const xp_event_meta *em = xp_event_meta_find(pl, ev.metadata_id);
            if (!has && em) {
                xp_stats_begin(&it, em->body, em->body_len, 5);
                while (xp_stats_next(&it, &st))
                    if (st.metadata_id == ids.id[S_PROGRAM_ID])
                        has = stat_u64(&st, &pid);
                if (!has)
                    has = parse_paren_id(em->name, &pid);
            }
            if (has) {
                ops_program *p = prog_get(cx->progs, pid);
                if (!p) {
                    ok = 0;
                    goto out;
                }
                if (p->seen_on == pl) { /* not the first execution on this device */
                    p->steady_executions++;
                    p->steady_module_ps += ev.duration_ps;
                }
                p->seen_on = pl;
                p->executions++;
                p->module_ps += ev.duration_ps;
                if (s < p->first_ps)
                    p->first_ps = s;
                if (em && p->name.n == 0) {
                    pq_str nm = em->name;
                    for (size_t k = nm.n; k > 0; k--)
                        if (nm.p[k - 1] == '(') {
                            nm.n = k - 1;
                            break;
                        }
                    p->name = nm;
                }
            }
            /* union of module spans */
            if (s >= cur_end) {
                module_ps += ev.duration_ps;
                cur_end = e;
            } else if (e > cur_end) {
                module_ps += e - cur_end;
                cur_end = e;
            }
        }
    }

    for (uint32_t li = 0; li < pl->nlines; li++) {
        const xp_line *line = &pl->lines[li];
        int is_ops = pq_str_eq(line->name, "XLA Ops") || pq_str_eq(line->name, "Framework Ops") ||
                     pq_str_eq(line->name, "Sparse Core Ops");
        int is_span = pq_str_eq(line->name, "XLA Ops") ||
                      pq_str_eq(line->name, "Sparse Core Ops") || pq_str_eq(line->name, "Steps") ||
                      pq_str_eq(line->name, "Sparse Core Steps");
        if (!is_ops && !is_span)
            continue;
        int64_t base = line->timestamp_ns * 1000;
        if (is_span && !is_ops && line->events) {
            xp_event_iter ei;
            xp_event ev;
            xp_events_begin(line, &ei);
            while (xp_events_next(&ei, &ev)) {
                int64_t s = base + ev.offset_ps;
                if (s < span_lo)
                    span_lo = s;
                if (s + ev.duration_ps > span_hi)
                    span_hi = s + ev.duration_ps;
            }
        }
        if (!is_ops || line->events == 0)
            continue;
        int is_xla_ops = pq_str_eq(line->name, "XLA Ops");
        ev_rec *recs = pq_malloc((size_t)line->events * sizeof *recs);
        if (!recs) {
            ok = 0;
            goto out;
        }
        size_t n = 0;
        int unsorted = 0;
        xp_event_iter ei;
        xp_event ev;
        xp_events_begin(line, &ei);
        while (n < line->events && xp_events_next(&ei, &ev)) {
            ev_rec *r = &recs[n];
            memset(r, 0, sizeof *r);
            const xp_event_meta *em0 = xp_event_meta_find(pl, ev.metadata_id);
            r->meta = em0 ? (uint32_t)(em0 - pl->emeta) : UINT32_MAX;
            r->occurrences =
                ev.num_occurrences > INT32_MAX ? INT32_MAX : (int32_t)ev.num_occurrences;
            r->stats = ev.stats;
            r->body_len = (uint32_t)ev.body_len;
            r->order = (uint32_t)n;
            r->abs_start = base + ev.offset_ps;
            r->abs_end = r->abs_start + ev.duration_ps;
            if (is_span) {
                if (r->abs_start < span_lo)
                    span_lo = r->abs_start;
                if (r->abs_end > span_hi)
                    span_hi = r->abs_end;
            }
            r->start = r->abs_start;
            r->dur = ev.duration_ps;
            int has_off = 0, has_dur = 0;
            int64_t off = 0, dur = 0;
            if (need_timespan) {
                xp_stat_iter it;
                stat_value st;
                xp_stats_begin(&it, ev.stats, ev.body_len, 4);
                while (xp_stats_next(&it, &st)) {
                    int k = stat_slot(&ids, st.metadata_id);
                    if (k == S_DEV_OFFSET) {
                        has_off = 1;
                        off = (int64_t)stat_num(&st);
                    } else if (k == S_DEV_DURATION) {
                        has_dur = 1;
                        dur = (int64_t)stat_num(&st);
                    }
                }
            }
            if (has_off && has_dur) {
                r->start = off;
                r->dur = dur;
            }
            if (n > 0 && !unsorted && ev_cmp(&recs[n - 1], r) > 0)
                unsorted = 1;
            n++;
        }
        if (unsorted)
            qsort(recs, n, sizeof *recs, ev_cmp);
        /* Ancestor stack: a parent's span includes its children's. */
        size_t *stack = pq_malloc((n ? n : 1) * sizeof *stack);
        if (!stack) {
            pq_free(recs);
            ok = 0;
            goto out;
        }
        size_t depth = 0;
        int64_t busy_end = INT64_MIN;
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
        for (size_t i = 0; i < n; i++) {
            ev_rec *r = &recs[i];
            const xp_event_meta *em = r->meta == UINT32_MAX ? NULL : &pl->emeta[r->meta];
            meta_info *mi = NULL;
            if (em) {
                mi = &mcache[em - pl->emeta];
                if (!mi->parsed)
                    parse_meta(pl, &ids, em, mi);
            }
            if (r->top && is_xla_ops && !(mi && mi->off_duty)) {
                if (r->abs_start >= busy_end) {
                    busy += r->abs_end - r->abs_start;
                    busy_end = r->abs_end;
                } else if (r->abs_end > busy_end) {
                    busy += r->abs_end - busy_end;
                    busy_end = r->abs_end;
                }
            }
            if (!mi || !mi->has_pid || !mi->has_sid || mi->sid == 0)
                continue;
            ev_extras x = {1.0, 0, 0, 0, r->dur, 0};
            if (has_extras || mi->custom_call)
                read_extras(pl, &ids, r, &x);
            double tsm = x.tsm, ev_flops = x.flops, ev_mflops = x.model_flops;
            double ev_bytes = x.bytes;
            int64_t min_dur = x.min_dur, dma = x.dma;
            int fresh = 0;
            op_slot *sl;
            if (mi->slot) {
                sl = &cx->ops->v[mi->slot - 1];
            } else {
                sl = table_get(cx->ops, mi->pid, mi->sid, mi->name, &fresh);
                if (!sl) {
                    pq_free(recs);
                    ok = 0;
                    goto out;
                }
                mi->slot = (uint32_t)(sl - cx->ops->v) + 1;
            }
            int64_t occ = r->occurrences > 1 ? (int64_t)r->occurrences : 1;
            int64_t self = r->dur - r->children;
            op_metrics *m = &sl->m;
            if (fresh) {
                m->long_name = mi->long_name;
                m->category = mi->category;
                m->provenance = mi->provenance;
                m->dedup_name = mi->dedup;
                m->source = mi->source;
                m->source_stack = mi->source_stack;
                m->min_time_ps = min_dur;
                sl->custom_call = mi->custom_call;
                sl->m_flops = mi->flops;
                sl->m_model_flops = mi->model_flops;
                sl->m_bytes = mi->bytes;
                sl->bd = *mi;
            } else if (min_dur < m->min_time_ps) {
                m->min_time_ps = min_dur;
            }
            m->occurrences += occ;
            m->time_ps += r->dur;
            m->self_time_ps += self;
            m->dma_stall_ps += dma;
            m->normalized_time_ps += (double)r->dur * tsm;
            if (sl->custom_call) {
                m->flops += mi->flops + ev_flops;
                m->model_flops += mi->model_flops + ev_mflops;
                m->bytes_accessed += mi->bytes + ev_bytes;
            }
            plane_self += self;
            plane_norm += (double)r->dur * tsm;
            ops_program *p = prog_get(cx->progs, mi->pid);
            if (!p) {
                pq_free(recs);
                ok = 0;
                goto out;
            }
            p->op_self_ps += self;
            if (r->abs_start < p->first_ps)
                p->first_ps = r->abs_start;
        }
        pq_free(recs);
    }
    {
        int64_t span = span_hi > span_lo ? span_hi - span_lo : 0;
        int64_t total = span > plane_self ? span : plane_self;
        cx->out->total_time_ps += total;
        cx->out->total_op_time_ps += plane_self;
        cx->out->normalized_total_op_time_ps += plane_norm;
        cx->out->window_ps += total;
        cx->out->busy_ps += busy;
        cx->out->module_ps += module_ps;
        cx->out->ndevices++;
    }
    (void)src;
out:
    pq_free(mcache);
    return ok;
}

/* ---- GPU ---- */

/* Derived lines (XProf's kThreadIdDerivedMin = 0xdeadbeef and up) are skipped. */
static int gpu_derived_line(const xp_line *line)
{
    return line->id >= 0xdeadbeefLL && line->id < 0xdeadbeefLL + 64;
}

static pq_str last_hlo_op(pq_str s)
{
    for (size_t i = s.n; i >= 2; i--)
        if (s.p[i - 1] == ':' && s.p[i - 2] == ':')
            return pq_str_of(s.p + i, s.n - i);
    return s;
}

static uint64_t program_by_module(const pq_source *src, pq_str module, int *found)
{
    uint64_t id;
    if (parse_paren_id(module, &id)) {
        *found = 1;
        return id;
    }
    for (uint32_t i = 0; i < src->nprograms; i++)
        if (str_same(src->programs[i].name, module)) {
            *found = 1;
            return src->programs[i].program_id;
        }
    *found = 0;
    return 0;
}

/* The stats of a GPU kernel or XLA:CPU thunk, from its metadata then the event: hlo_op,
 * hlo_module, tf_op, program id (else the "(N)" suffix of hlo_module, else the HloProto of
 * that module name), flops and bytes_accessed. Returns 0 when it has no hlo_op. */
typedef struct xla_ev {
    pq_str hlo_op, module, tf_op;
    uint64_t pid;
    double flops, bytes;
} xla_ev;

static int xla_event(const pq_source *src, const xp_plane *pl, const stat_ids *ids,
                     const xp_event *ev, xla_ev *x)
{
    op_stats o = {0};
    const xp_event_meta *em = xp_event_meta_find(pl, ev->metadata_id);
    if (em)
        read_op_stats(pl, ids, em->body, em->body_len, 5, &o);
    read_op_stats(pl, ids, ev->stats, ev->body_len, 4, &o);
    if (!o.hlo_op.n)
        return 0;
    *x = (xla_ev){o.hlo_op, o.module, o.tf_op, o.pid, o.flops, o.bytes};
    if (!o.has_pid && o.module.n)
        x->pid = program_by_module(src, o.module, &o.has_pid);
    return 1;
}

static int gpu_plane(const pq_source *src, const xp_plane *pl, tpu_ctx *cx)
{
    stat_ids ids;
    stat_ids_init(pl, &ids);
    int64_t lo = INT64_MAX, hi = INT64_MIN, plane_self = 0;
    int64_t busy = 0;
    int any = 0;
    for (uint32_t li = 0; li < pl->nlines; li++) {
        const xp_line *line = &pl->lines[li];
        if (gpu_derived_line(line))
            continue;
        int64_t base = line->timestamp_ns * 1000, busy_end = INT64_MIN;
        xp_event_iter ei;
        xp_event ev;
        xp_events_begin(line, &ei);
        while (xp_events_next(&ei, &ev)) {
            any = 1;
            if (ev.offset_ps < lo)
                lo = ev.offset_ps;
            if (ev.offset_ps + ev.duration_ps > hi)
                hi = ev.offset_ps + ev.duration_ps;
            int64_t s = base + ev.offset_ps, e = s + ev.duration_ps;
            if (s >= busy_end) {
                busy += e - s;
                busy_end = e;
            } else if (e > busy_end) {
                busy += e - busy_end;
                busy_end = e;
            }
            xla_ev x;
            if (!xla_event(src, pl, &ids, &ev, &x))
                continue; /* not an XLA op (memcpy, eager kernels without tf_op) */
            uint64_t pid = x.pid;
            pq_str module = x.module, tf_op = x.tf_op;
            double flops = x.flops, bytes = x.bytes;
            pq_str name = last_hlo_op(x.hlo_op);
            int fresh;
            op_slot *sl = table_get(cx->ops, pid, 0, name, &fresh);
            if (!sl)
                return 0;
            op_metrics *m = &sl->m;
            if (fresh) {
                m->provenance = tf_op;
                m->min_time_ps = ev.duration_ps;
                sl->custom_call = 1; /* event stats are per occurrence: summed, not scaled */
            } else if (ev.duration_ps < m->min_time_ps) {
                m->min_time_ps = ev.duration_ps;
            }
            m->occurrences++;
            m->time_ps += ev.duration_ps;
            m->self_time_ps += ev.duration_ps;
            m->normalized_time_ps += (double)ev.duration_ps;
            m->flops += flops;
            m->model_flops += flops;
            m->bytes_accessed += bytes;
            plane_self += ev.duration_ps;
            ops_program *p = prog_get(cx->progs, pid);
            if (!p)
                return 0;
            p->op_self_ps += ev.duration_ps;
            p->module_ps += ev.duration_ps;
            if (s < p->first_ps)
                p->first_ps = s;
            if (p->name.n == 0 && module.n) {
                pq_str nm = module;
                for (size_t k = nm.n; k > 0; k--)
                    if (nm.p[k - 1] == '(') {
                        nm.n = k - 1;
                        break;
                    }
                p->name = nm;
            }
        }
    }
    if (!any)
        return 1;
    int64_t span = hi > lo ? hi - lo : 0;
    int64_t total = span > plane_self ? span : plane_self;
    cx->out->total_time_ps += total;
    cx->out->total_op_time_ps += plane_self;
    cx->out->normalized_total_op_time_ps += (double)plane_self;
    cx->out->window_ps += total;
    cx->out->busy_ps += busy;
    cx->out->ndevices++;
    return 1;
}

/* ---- CPU: XLA ops on host threads ----
 * XLA:CPU records each thunk it runs as a host event with hlo_op/hlo_module/program_id stats.
 * Per thread line, those events nest (a while or call thunk around its body): the ancestor
 * stack of the TPU path gives self time. Window: first to last op event over all threads. */

typedef struct cpu_rec {
    int64_t start, dur, children;
    uint32_t order;
    uint64_t pid;
    pq_str name, module;
} cpu_rec;

static int cpu_cmp(const void *a, const void *b)
{
    const cpu_rec *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->dur != y->dur)
        return x->dur > y->dur ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int cpu_plane(const pq_source *src, const xp_plane *pl, tpu_ctx *cx)
{
    stat_ids ids;
    stat_ids_init(pl, &ids);
    if (ids.id[S_HLO_OP] == INT64_MIN)
        return 1;
    int64_t lo = INT64_MAX, hi = INT64_MIN, plane_self = 0, busy = 0;
    for (uint32_t li = 0; li < pl->nlines; li++) {
        const xp_line *line = &pl->lines[li];
        if (line->events == 0)
            continue;
        cpu_rec *recs = pq_malloc((size_t)line->events * sizeof *recs);
        if (!recs)
            return 0;
        size_t n = 0;
        int64_t base = line->timestamp_ns * 1000;
        xp_event_iter ei;
        xp_event ev;
        xp_events_begin(line, &ei);
        while (n < line->events && xp_events_next(&ei, &ev)) {
            xla_ev x;
            if (!xla_event(src, pl, &ids, &ev, &x))
                continue;
            cpu_rec *r = &recs[n];
            r->start = base + ev.offset_ps;
            r->dur = ev.duration_ps;
            r->children = 0;
            r->order = (uint32_t)n;
            r->pid = x.pid;
            r->name = last_hlo_op(x.hlo_op);
            r->module = x.module;
            n++;
        }
        qsort(recs, n, sizeof *recs, cpu_cmp);
        size_t *stack = pq_malloc((n ? n : 1) * sizeof *stack);
        if (!stack) {
            pq_free(recs);
            return 0;
        }
        size_t depth = 0;
        int64_t busy_end = INT64_MIN;
        for (size_t i = 0; i < n; i++) {
            cpu_rec *r = &recs[i];
            while (depth > 0) {
                cpu_rec *p = &recs[stack[depth - 1]];
                if (p->start <= r->start && r->start + r->dur <= p->start + p->dur)
                    break;
                depth--;
            }
            if (depth > 0) {
                recs[stack[depth - 1]].children += r->dur;
            } else {
                int64_t e = r->start + r->dur;
                if (r->start >= busy_end) {
                    busy += r->dur;
                    busy_end = e;
                } else if (e > busy_end) {
                    busy += e - busy_end;
                    busy_end = e;
                }
            }
            stack[depth++] = i;
            if (r->start < lo)
                lo = r->start;
            if (r->start + r->dur > hi)
                hi = r->start + r->dur;
        }
        pq_free(stack);
        for (size_t i = 0; i < n; i++) {
            cpu_rec *r = &recs[i];
            int fresh;
            op_slot *sl = table_get(cx->ops, r->pid, 0, r->name, &fresh);
            ops_program *p = sl ? prog_get(cx->progs, r->pid) : NULL;
            if (!p) {
                pq_free(recs);
                return 0;
            }
            op_metrics *m = &sl->m;
            int64_t self = r->dur - r->children;
            if (fresh) {
                m->min_time_ps = r->dur;
                sl->custom_call = 1; /* no metadata FLOPs to scale */
            } else if (r->dur < m->min_time_ps) {
                m->min_time_ps = r->dur;
            }
            m->occurrences++;
            m->time_ps += r->dur;
            m->self_time_ps += self;
            m->normalized_time_ps += (double)r->dur;
            plane_self += self;
            p->op_self_ps += self;
            p->module_ps += self;
            if (r->start < p->first_ps)
                p->first_ps = r->start;
            if (p->name.n == 0 && r->module.n)
                p->name = r->module;
        }
        pq_free(recs);
    }
    if (hi <= lo)
        return 1;
    int64_t span = hi - lo;
    int64_t total = span > plane_self ? span : plane_self;
    cx->out->total_time_ps += total;
    cx->out->total_op_time_ps += plane_self;
    cx->out->normalized_total_op_time_ps += (double)plane_self;
    cx->out->window_ps += total;
    cx->out->busy_ps += busy;
    cx->out->ndevices++;
    return 1;
}

/* ---- peaks ---- */

static double plane_stat(const xp_plane *pl, const char *name)
{
    for (uint32_t k = 0; k < pl->nstats; k++)
        if (pq_str_eq(xp_stat_name(pl, &pl->stats[k]), name))
            return stat_num(&pl->stats[k]);
    return 0.0;
}

static pq_str plane_stat_str(const xp_plane *pl, const char *name)
{
    for (uint32_t k = 0; k < pl->nstats; k++)
        if (pq_str_eq(xp_stat_name(pl, &pl->stats[k]), name))
            return xp_stat_str(pl, &pl->stats[k]);
    return (pq_str){0};
}

/* Per-core peak rates of a GPU architecture, as XProf's cuda_type_utils.cc and
 * rocm_type_utils.cc tabulate them from the vendors' whitepapers: the largest of the FP32
 * and FP16 vector and matrix FLOPs per core per cycle, and shared-memory (LDS) bytes per
 * core per cycle. MODEL receives XProf's device type name. Returns 0 for a vendor or
 * architecture XProf has no figures for. */
static int gpu_arch_rates(pq_str vendor, pq_str name, int major, int minor, double *flops,
                          double *sram, char *model, size_t model_n)
{
    *flops = *sram = 0;
    if (pq_str_eq(vendor, "AMD")) {
        static const struct {
            const char *gfx;
            double flops, lds;
        } amd[] = {{"gfx908", 1024, 128},
                   {"gfx90a", 1024, 128},
                   {"gfx942", 2048, 128},
                   {"gfx950", 4096, 256}};
        /* the agent name ("gfx942") when well formed, else from the compute capability */
        char gfx[32] = "";
        int ok = name.n >= 6 && name.n < sizeof gfx && memcmp(name.p, "gfx", 3) == 0;
        for (size_t i = 3; ok && i < name.n; i++)
            ok = isxdigit((unsigned char)name.p[i]) != 0;
        if (ok) {
            memcpy(gfx, name.p, name.n);
            gfx[name.n] = 0;
        } else if (major == 9 && (minor == 4 || minor == 5)) {
            strcpy(gfx, minor == 4 ? "gfx942" : "gfx950");
        }
        if (gfx[0])
            snprintf(model, model_n, "AMD GPU - %s", gfx);
        else if (major >= 9 && major <= 11)
            snprintf(model, model_n, "AMD GPU - gfx-%dXX series", major);
        else
            snprintf(model, model_n, "AMD GPU");
        for (size_t i = 0; i < sizeof amd / sizeof amd[0]; i++)
            if (strcmp(gfx, amd[i].gfx) == 0) {
                *flops = amd[i].flops;
                *sram = amd[i].lds;
                return 1;
            }
        return 0;
    }
    if (pq_str_eq(vendor, "Nvidia")) {
        /* highest compute capability <= the device's, else the lowest */
        static const struct {
            int cc;
            double flops;
        } nv[] = {{10000, 8192}, {9000, 4096}, {8090, 1024}, {8060, 1024},
                  {8000, 2048},  {7050, 1024}, {7000, 1024}, {6010, 256},
                  {6000, 256},   {5000, 256},  {3000, 384},  {2000, 64}};
        static const char *const family[] = {"", "", "Fermi", "Kepler", "", "Maxwell", "Pascal"};
        int cc = major * 1000 + minor * 10;
        size_t i = 0;
        while (i + 1 < sizeof nv / sizeof nv[0] && nv[i].cc > cc)
            i++;
        *flops = nv[i].flops;
        *sram = major <= 2 ? 32 * 4 / 2 : 32 * 8;
        const char *f = major >= 2 && major <= 6 ? family[major]
                        : major == 7             ? (minor < 5 ? "Volta" : "Turing")
                        : major == 8             ? (minor < 9 ? "Ampere" : "Ada Lovelace")
                        : major == 9             ? "Hopper"
                        : major == 10            ? "Blackwell"
                                                 : "";
        if (f[0])
            snprintf(model, model_n, "Nvidia GPU (%s)", f);
        else
            snprintf(model, model_n, "Nvidia GPU");
        return 1;
    }
    return 0;
}

static void peaks_from_plane(const xp_plane *pl, ops_hw hw, ops_peaks *pk, char *model,
                             size_t model_n)
{
    memset(pk, 0, sizeof *pk);
    pk->tflops = plane_stat(pl, "peak_teraflops_per_second");
    if (pk->tflops < 0)
        pk->tflops = 0;
    if (hw == OPS_HW_TPU) {
        static const char *const bw[7] = {
            "peak_hbm_bw_gigabytes_per_second",     "peak_sram_rd_bw_gigabytes_per_second",
            "peak_sram_wr_bw_gigabytes_per_second", "peak_cmem_rd_bw_gigabytes_per_second",
            "peak_cmem_wr_bw_gigabytes_per_second", "peak_vmem_rd_bw_gigabytes_per_second",
            "peak_vmem_wr_bw_gigabytes_per_second"};
        for (int i = 0; i < 7; i++)
            pk->bws[i] = plane_stat(pl, bw[i]);
        pk->has_cmem = pk->bws[3] > 0 || pk->bws[4] > 0;
        pk->has_merged_vmem = plane_stat(pl, "has_merged_vmem") != 0;
        pk->has_megacore = plane_stat(pl, "has_megacore") != 0;
        return;
    }
    pk->bws[0] = plane_stat(pl, "memory_bandwidth") / 1e9;
    pk->bws[1] = plane_stat(pl, "peak_sram_rd_bw_gigabytes_per_second");
    pk->bws[2] = plane_stat(pl, "peak_sram_wr_bw_gigabytes_per_second");
    if (hw != OPS_HW_GPU)
        return;
    /* XProf's GetPerfEnvFromXPlane: peaks the plane does not state come from its core
     * count x clock (kHz) x the architecture's per-core rate; a figure the plane lacks
     * (cores, clock, a known architecture) leaves the peak unknown. */
    double cores = plane_stat(pl, "core_count"), ghz = plane_stat(pl, "clock_rate") / 1e6;
    double fpc, bpc;
    if (!gpu_arch_rates(plane_stat_str(pl, "device_vendor"), plane_stat_str(pl, "gpu_device_name"),
                        (int)plane_stat(pl, "compute_cap_major"),
                        (int)plane_stat(pl, "compute_cap_minor"), &fpc, &bpc, model, model_n) ||
        cores <= 0 || ghz <= 0)
        return;
    pk->cores = cores;
    pk->clock_ghz = ghz;
    pk->flops_per_cycle = fpc;
    pk->sram_bytes_per_cycle = bpc;
    if (pk->tflops <= 0 && fpc > 0) {
        pk->tflops = cores * (fpc * ghz) / 1000;
        pk->derived_flops = 1;
    }
    for (int i = 1; i <= 2; i++)
        if (pk->bws[i] <= 0 && bpc > 0) {
            pk->bws[i] = cores * bpc * ghz;
            pk->derived_sram = 1;
        }
}

/* ---- rates and bound-by (spec 5.6) ---- */

void ops_rates(const ops_result *r, const op_metrics *m, op_rates *o)
{
    memset(o, 0, sizeof *o);
    double ns = (double)m->time_ps / 1e3;
    o->flop_rate_gflops = safe_div(m->flops, ns);
    o->model_flop_rate = safe_div(m->model_flops, ns);
    o->mem_bw_gibps = ops_giga_to_gibi(safe_div(m->bytes_accessed, ns));
    o->hbm_bytes = m->has_breakdown ? m->bd_hbm : m->bytes_accessed;
    o->hbm_bw_gibps = ops_giga_to_gibi(safe_div(o->hbm_bytes, ns));
    o->cmem_rd_gibps = ops_giga_to_gibi(safe_div(m->bd_cmem_rd, ns));
    o->cmem_wr_gibps = ops_giga_to_gibi(safe_div(m->bd_cmem_wr, ns));
    o->vmem_rd_gibps = ops_giga_to_gibi(safe_div(m->bd_vmem_rd, ns));
    o->vmem_wr_gibps = ops_giga_to_gibi(safe_div(m->bd_vmem_wr, ns));
    o->oi = safe_div(m->flops, m->bytes_accessed);
    o->hbm_oi = safe_div(m->flops, o->hbm_bytes);
    const ops_peaks *pk = &r->peaks;
    const char *bound = "Unknown";
    double best = 0, boi = 0;
    double u = safe_div(o->flop_rate_gflops, pk->tflops * 1000);
    if (u > best) {
        best = u;
        bound = "Compute";
        boi = o->oi;
    }
    u = safe_div(o->hbm_bw_gibps, ops_giga_to_gibi(pk->bws[0]));
    if (u > best) {
        best = u;
        bound = "HBM";
        boi = o->hbm_oi;
    }
    if (r->hw == OPS_HW_TPU) {
        struct {
            double bytes, bw, peak;
            const char *name;
        } mem[4] = {{m->bd_cmem_rd, o->cmem_rd_gibps, pk->bws[3], "CMEM Read"},
                    {m->bd_cmem_wr, o->cmem_wr_gibps, pk->bws[4], "CMEM Write"},
                    {m->bd_vmem_rd, o->vmem_rd_gibps, pk->bws[5], "VMEM Read"},
                    {m->bd_vmem_wr, o->vmem_wr_gibps, pk->bws[6], "VMEM Write"}};
        for (int i = 0; i < 4; i++) {
            if (mem[i].bytes <= 0 || mem[i].peak == 0)
                continue;
            u = safe_div(mem[i].bw, ops_giga_to_gibi(mem[i].peak));
            if (u > best) {
                best = u;
                bound = mem[i].name;
                boi = safe_div(m->flops, mem[i].bytes);
            }
        }
    } else if (r->hw == OPS_HW_GPU && pk->bws[2] != 0) {
        u = safe_div(o->hbm_bw_gibps, ops_giga_to_gibi(pk->bws[2]));
        if (u > best) {
            best = u;
            bound = "Shm/L1";
            boi = o->hbm_oi;
        }
    }
    o->bound_by = bound;
    o->bottleneck_oi = boi;
}

/* ---- GPU/CPU categories from the HloProto (XLA HloInstruction::ToCategory) ---- */

static int str_in(pq_str s, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (pq_str_eq(s, list[i]))
            return 1;
    return 0;
}

static pq_str hlo_category(pq_str opcode, pq_str fusion_kind)
{
    static const char *const formatting[] = {"transpose", "copy", "copy-start", "copy-done"};
    if (str_in(opcode, formatting, sizeof formatting / sizeof formatting[0]))
        return pq_str_of("data formatting", 15);
    if (hlo_opcode_is_elementwise(opcode))
        return pq_str_of("non-fusion elementwise", 22);
    if (pq_str_eq(opcode, "fusion")) {
        if (pq_str_eq(fusion_kind, "kLoop"))
            return pq_str_of("loop fusion", 11);
        if (pq_str_eq(fusion_kind, "kInput"))
            return pq_str_of("input fusion", 12);
        if (pq_str_eq(fusion_kind, "kOutput"))
            return pq_str_of("output fusion", 13);
        if (pq_str_eq(fusion_kind, "kCustom"))
            return pq_str_of("custom fusion", 13);
        return pq_str_of("fusion", 6);
    }
    return opcode;
}

static const op_slot *table_find(const op_table *t, uint64_t pid, pq_str name)
{
    if (!t->icap)
        return NULL;
    uint64_t h = hash_key(pid, 0, name);
    size_t j = h & (t->icap - 1);
    while (t->idx[j]) {
        const op_slot *s = &t->v[t->idx[j] - 1];
        if (s->hash == h && s->m.program_id == pid && s->m.symbol_id == 0 &&
            str_same(s->m.name, name))
            return s;
        j = (j + 1) & (t->icap - 1);
    }
    return NULL;
}

/* XProf's source info of an HLO instruction (GetSourceInfo): the metadata's
 * "source_file:source_line" when it names a file, else "file:line" of the first frame of
 * its stack; the stack is "file:line:column\n" per frame, innermost first. The text goes
 * to arena A; returns 0 when out of memory. */
static int hlo_source_info(const hlo_module *m, const hlo_instruction *ins, arena *a,
                           pq_str *source, pq_str *stack)
{
    buf b;
    buf_init(&b, NULL);
    int32_t id = ins->stack_frame_id;
    for (uint32_t guard = 0; id > 0 && (uint32_t)id <= m->nstack_frames && guard < 4096; guard++) {
        const hlo_stack_frame *f = &m->stack_frames[id - 1];
        id = f->parent_frame_id;
        int32_t loc = f->file_location_id;
        if (loc <= 0 || (uint32_t)loc > m->nfile_locations)
            break;
        const hlo_file_location *fl = &m->file_locations[loc - 1];
        pq_str file = fl->file_name_id > 0 && (uint32_t)fl->file_name_id <= m->nfile_names
                          ? m->file_names[fl->file_name_id - 1]
                          : (pq_str){0};
        buf_put(&b, file.p, file.n);
        buf_printf(&b, ":%d:%d\n", fl->line, fl->column);
    }
    size_t nstack = b.n;
    if (ins->source_file.n) {
        buf_put(&b, ins->source_file.p, ins->source_file.n);
        buf_printf(&b, ":%d", ins->source_line);
    } else if (nstack) {
        /* first frame "file:line:col": its "file:line" */
        size_t end = 0, colons = 0;
        while (end < nstack && b.p[end] != '\n' && !(b.p[end] == ':' && ++colons == 2))
            end++;
        if (colons == 2)
            buf_put(&b, b.p, end);
    }
    int ok = b.status == PQ_OK;
    char *t = ok && b.n ? arena_strndup(a, b.p, b.n) : NULL;
    if (t) {
        *stack = pq_str_of(t, nstack);
        *source = pq_str_of(t + nstack, b.n - nstack);
    }
    ok = ok && (!b.n || t);
    buf_release(&b);
    return ok;
}

/* Sets category and provenance (metadata.op_name) of the ops of program PG from its
 * HloProto, as XProf does for GPU ops, and on GPUs their FLOPs, bytes and HBM breakdown from
 * XLA's GPU cost analysis of that module (analysis/hlo_cost.c), as XProf's
 * PerformanceInfoWrapper gives them: device FLOPs, model FLOPs and bytes where positive, else
 * what the events stated. A proto that does not decode is skipped silently: the load only
 * checked its header, and these are annotations. Returns 0 when out of memory. */
static int annotate_from_hlo(op_table *t, const pq_source *src, const pq_program *pg, int gpu,
                             arena *strings)
{
    arena a;
    arena_init(&a);
    hlo_module *m = NULL;
    hlo_cost_model *cm = NULL;
    int64_t off;
    const char *what;
    pq_status st = hlo_decode(pg->hlo, pg->hlo_len, src->file.data, &a, &m, &off, &what);
    if (st == PQ_OK && gpu)
        st = hlo_cost_analyze(m, &a, &cm);
    if (st == PQ_ERR_NOMEM) {
        arena_release(&a);
        return 0;
    }
    for (uint32_t ci = 0; st == PQ_OK && ci < m->ncomputations; ci++)
        for (uint32_t ii = 0; ii < m->computations[ci].ninstructions; ii++) {
            const hlo_instruction *ins = &m->computations[ci].instructions[ii];
            op_slot *s = (op_slot *)table_find(t, pg->program_id, ins->name);
            if (!s)
                continue;
            s->m.category = hlo_category(ins->opcode, ins->fusion_kind);
            s->m.provenance = ins->op_name;
            s->m.op_type = ins->op_type;
            s->m.provenance_from_hlo = 1;
            if (gpu && !hlo_source_info(m, ins, strings, &s->m.source, &s->m.source_stack)) {
                arena_release(&a);
                return 0;
            }
            hlo_cost c;
            if (!cm || !hlo_cost_get(cm, ins, &c))
                continue;
            double occ = (double)s->m.occurrences;
            if (c.device_flops > 0)
                s->m.flops = c.device_flops * occ;
            if (c.flops > 0)
                s->m.model_flops = c.flops * occ;
            if (c.bytes > 0)
                s->m.bytes_accessed = c.bytes * occ;
            s->bd.bd_hbm = c.hbm_read + c.hbm_written;
            s->bd.has_breakdown = s->bd.bd_hbm > 0;
        }
    arena_release(&a);
    return 1;
}

/* ---- compute ---- */

static int op_cmp(const void *a, const void *b)
{
    const op_metrics *x = a, *y = b;
    if (x->is_idle != y->is_idle)
        return x->is_idle - y->is_idle;
    if (x->self_time_ps != y->self_time_ps)
        return x->self_time_ps > y->self_time_ps ? -1 : 1;
    size_t n = x->name.n < y->name.n ? x->name.n : y->name.n;
    int c = n ? memcmp(x->name.p, y->name.p, n) : 0;
    if (c)
        return c;
    if (x->name.n != y->name.n)
        return x->name.n < y->name.n ? -1 : 1;
    if (x->program_id != y->program_id)
        return x->program_id < y->program_id ? -1 : 1;
    return x->symbol_id < y->symbol_id ? -1 : x->symbol_id > y->symbol_id;
}

static int prog_cmp(const void *a, const void *b)
{
    const ops_program *x = a, *y = b;
    if (x->op_self_ps != y->op_self_ps)
        return x->op_self_ps > y->op_self_ps ? -1 : 1;
    return x->program_id < y->program_id ? -1 : x->program_id > y->program_id;
}

pq_status ops_compute(const pq_profile *prof, const ops_options *opt, ops_result *out,
                      pq_error *err)
{
    memset(out, 0, sizeof *out);
    op_table t = {0};
    prog_table pt = {0};
    tpu_ctx cx = {&t, &pt, out};
    pq_status st = PQ_OK;
    /* Device planes: TPU TensorCores if any source has them, else GPUs (spec 5.1). */
    for (size_t si = 0; si < prof->nsources && out->hw == OPS_HW_NONE; si++)
        for (uint32_t pi = 0; pi < prof->sources[si].nplanes; pi++)
            if (prof->sources[si].planes[pi].kind == DEV_TPU)
                out->hw = OPS_HW_TPU;
    if (out->hw == OPS_HW_NONE)
        for (size_t si = 0; si < prof->nsources && out->hw == OPS_HW_NONE; si++)
            for (uint32_t pi = 0; pi < prof->sources[si].nplanes; pi++)
                if (prof->sources[si].planes[pi].kind == DEV_GPU)
                    out->hw = OPS_HW_GPU;
    if (out->hw == OPS_HW_NONE && !(opt && opt->device_only))
        for (size_t si = 0; si < prof->nsources && out->hw == OPS_HW_NONE; si++)
            for (uint32_t pi = 0; pi < prof->sources[si].nplanes; pi++)
                if (prof->sources[si].planes[pi].kind == DEV_HOST_THREADS &&
                    xp_stat_meta_by_name(&prof->sources[si].planes[pi], "hlo_op"))
                    out->hw = OPS_HW_CPU;
    device_kind want = out->hw == OPS_HW_TPU   ? DEV_TPU
                       : out->hw == OPS_HW_GPU ? DEV_GPU
                                               : DEV_HOST_THREADS;
    int have_peaks = 0;
    for (size_t si = 0; out->hw != OPS_HW_NONE && si < prof->nsources; si++) {
        const pq_source *src = &prof->sources[si];
        for (uint32_t pi = 0; pi < src->nplanes; pi++) {
            const xp_plane *pl = &src->planes[pi];
            if (pl->kind != want)
                continue;
            out->device_planes++;
            if (!have_peaks) {
                peaks_from_plane(pl, out->hw, &out->peaks, out->gpu_model, sizeof out->gpu_model);
                if (out->hw == OPS_HW_TPU) {
                    for (uint32_t k = 0; k < pl->nstats; k++)
                        if (pq_str_eq(xp_stat_name(pl, &pl->stats[k]), "device_type_string")) {
                            pq_str s = xp_stat_str(pl, &pl->stats[k]);
                            size_t n = s.n < sizeof out->device_type - 1
                                           ? s.n
                                           : sizeof out->device_type - 1;
                            memcpy(out->device_type, s.p, n);
                            out->device_type[n] = 0;
                        }
                    if (!out->device_type[0])
                        strcpy(out->device_type, "TPU");
                } else {
                    strcpy(out->device_type, out->hw == OPS_HW_GPU ? "GPU" : "CPU");
                }
                have_peaks = 1;
            }
            int ok = out->hw == OPS_HW_TPU   ? tpu_plane(src, pl, &cx)
                     : out->hw == OPS_HW_GPU ? gpu_plane(src, pl, &cx)
                                             : cpu_plane(src, pl, &cx);
            if (!ok || t.oom || pt.oom) {
                st = err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory computing op metrics");
                goto fail;
            }
        }
    }
    if (opt && opt->peak_tflops > 0) {
        out->peaks.tflops = opt->peak_tflops;
        out->peaks.user_flops = 1;
    }
    if (opt && opt->peak_hbm_gbps > 0) {
        out->peaks.bws[0] = opt->peak_hbm_gbps;
        out->peaks.user_bw = 1;
    }
    if ((out->hw == OPS_HW_GPU || out->hw == OPS_HW_CPU) &&
        (out->strings = pq_calloc(1, sizeof *out->strings)) != NULL)
        arena_init(out->strings);
    if (out->hw == OPS_HW_GPU || out->hw == OPS_HW_CPU)
        for (size_t k = 0; k < pt.n; k++)
            for (size_t si = 0; si < prof->nsources; si++)
                for (uint32_t i = 0; i < prof->sources[si].nprograms; i++) {
                    const pq_program *pg = &prof->sources[si].programs[i];
                    if (pg->program_id == pt.v[k].program_id && pg->hlo &&
                        (!out->strings ||
                         !annotate_from_hlo(&t, &prof->sources[si], pg, out->hw == OPS_HW_GPU,
                                            out->strings))) {
                        st = err_set(err, PQ_ERR_NOMEM, NULL, -1,
                                     "out of memory computing op metrics");
                        goto fail;
                    }
                }
    /* Finalize (spec 5.3): per-occurrence metadata figures times occurrences. */
    out->ops = pq_calloc(t.n + 1, sizeof *out->ops);
    if (!out->ops) {
        st = err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory computing op metrics");
        goto fail;
    }
    for (size_t i = 0; i < t.n; i++) {
        op_slot *s = &t.v[i];
        op_metrics *m = &s->m;
        double occ = (double)m->occurrences;
        if (!s->custom_call) {
            m->flops = s->m_flops * occ;
            m->model_flops = s->m_model_flops * occ;
            m->bytes_accessed = s->m_bytes * occ;
        }
        if (m->model_flops == 0)
            m->model_flops = m->flops;
        m->has_breakdown = s->bd.has_breakdown;
        m->bd_hbm = s->bd.bd_hbm * occ;
        m->bd_cmem_rd = s->bd.bd_cmem_rd * occ;
        m->bd_cmem_wr = s->bd.bd_cmem_wr * occ;
        m->bd_vmem_rd = s->bd.bd_vmem_rd * occ;
        m->bd_vmem_wr = s->bd.bd_vmem_wr * occ;
        m->bd_onchip_rd = s->bd.bd_onchip_rd * occ;
        m->bd_onchip_wr = s->bd.bd_onchip_wr * occ;
        out->ops[i] = *m;
        ops_program *p = NULL;
        for (size_t k = 0; k < pt.n; k++)
            if (pt.v[k].program_id == m->program_id)
                p = &pt.v[k];
        if (p) {
            p->flops += m->flops;
            p->model_flops += m->model_flops;
            p->bytes_accessed += m->bytes_accessed;
            p->hbm_bytes += m->has_breakdown ? m->bd_hbm : m->bytes_accessed;
        }
    }
    out->nops = t.n;
    if (out->ndevices > 0) {
        op_metrics *idle = &out->ops[out->nops++];
        idle->name = pq_str_of("IDLE", 4);
        idle->category = idle->name;
        idle->is_idle = 1;
        idle->time_ps = idle->self_time_ps = out->total_time_ps - out->total_op_time_ps;
    }
    out->idle_ps = out->total_time_ps - out->total_op_time_ps;
    if (out->nops)
        qsort(out->ops, out->nops, sizeof *out->ops, op_cmp);
    /* Program names from the HloProtos the profile carries, where module lines named none. */
    for (size_t k = 0; k < pt.n; k++)
        for (size_t si = 0; si < prof->nsources && pt.v[k].name.n == 0; si++)
            for (uint32_t i = 0; i < prof->sources[si].nprograms; i++)
                if (prof->sources[si].programs[i].program_id == pt.v[k].program_id) {
                    pt.v[k].name = prof->sources[si].programs[i].name;
                    break;
                }
    if (pt.n)
        qsort(pt.v, pt.n, sizeof *pt.v, prog_cmp);
    out->programs = pt.v;
    out->nprograms = pt.n;
    pt.v = NULL;
    /* Steady state: the dominant program's executions after its first (warm-up, compile
     * and cache fill) on each device; its op time scales by the module-time share. */
    if (pt.n || out->nprograms) {
        ops_program *dom = NULL;
        for (size_t k = 0; k < out->nprograms; k++)
            if (out->programs[k].executions > 1 &&
                (!dom || out->programs[k].module_ps > dom->module_ps))
                dom = &out->programs[k];
        if (dom) {
            out->has_dominant = 1;
            out->dominant_program = dom->program_id;
            dom->steady_share = safe_div((double)dom->steady_module_ps, (double)dom->module_ps);
            out->steady_window_ps = dom->steady_module_ps;
            out->steady_busy_ps = (int64_t)((double)dom->op_self_ps * dom->steady_share);
        }
    }
    pq_free(t.v);
    pq_free(t.idx);
    return PQ_OK;
fail:
    pq_free(t.v);
    pq_free(t.idx);
    pq_free(pt.v);
    ops_free(out);
    return st;
}

void ops_free(ops_result *r)
{
    if (!r)
        return;
    pq_free(r->ops);
    pq_free(r->programs);
    if (r->strings) {
        arena_release(r->strings);
        pq_free(r->strings);
        r->strings = NULL;
    }
    r->ops = NULL;
    r->programs = NULL;
    r->nops = r->nprograms = 0;
}
