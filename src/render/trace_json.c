/* trace_json.c - every event of every plane as Chrome trace-event JSON (what Perfetto UI
 * and chrome://tracing load), streamed through the sink with no event cap: XProf's
 * trace_viewer keeps only the first 1,000,000/5,000,000 events (spec/xprof-tools.md 6.3).
 *
 * One process per plane (device and host alike; pid = 1 + the plane's position over all
 * sources), one thread per line (tid = 1 + the line's position: XLine ids are int64 and
 * JavaScript numbers are not), one trace event per XEvent: "X" with ts/dur in microseconds
 * printed exactly from picoseconds, or an instant "i" when the duration is 0. Name = the
 * metadata's display name (the full name in args.long_name) or its name; args = metadata
 * stats then event stats, by stat name. Not an XProf clone: no derived lines, no flows.
 *
 * Slices on one thread must nest in trace-event JSON; XPlane lines (XLA Ops, Async XLA Ops)
 * and some Kineto threads hold partly overlapping events. Those go to extra threads of the
 * same process named after the line ("XLA Ops (2)", as XProf's trace viewer splits them):
 * each event on the first lane (thread) where it nests, every event still written once. */
#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"
#include "formats/xplane_walk.h"
#include "core/alloc.h"
#include "model/model.h"

#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* Picoseconds as microseconds with six decimals: exact, no binary float on the way. */
static void put_us(buf *b, int64_t ps)
{
    uint64_t a = ps < 0 ? (uint64_t)0 - (uint64_t)ps : (uint64_t)ps;
    buf_printf(b, "%s%" PRIu64 ".%06" PRIu64, ps < 0 ? "-" : "", a / 1000000, a % 1000000);
}

/* One X event to place on a lane: its group (line or track), [start, end] and position. */
typedef struct lane_item {
    int64_t start, end;
    uint32_t group, idx;
} lane_item;

static int cmp_lane_item(const void *pa, const void *pb)
{
    const lane_item *a = pa, *b = pb;
    if (a->group != b->group)
        return a->group < b->group ? -1 : 1;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    if (a->end != b->end)
        return a->end > b->end ? -1 : 1; /* the enclosing one first */
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* The open events of each lane, innermost last. */
typedef struct lane_stacks {
    int64_t **end;
    uint32_t *len, *cap;
    uint32_t n, capn;
} lane_stacks;

static int lane_push(lane_stacks *ls, uint32_t l, int64_t end)
{
    if (ls->len[l] == ls->cap[l]) {
        uint32_t c = ls->cap[l] ? ls->cap[l] * 2 : 16;
        int64_t *p = pq_realloc_array(ls->end[l], c, sizeof *p);
        if (!p)
            return -1;
        ls->end[l] = p;
        ls->cap[l] = c;
    }
    ls->end[l][ls->len[l]++] = end;
    return 0;
}

static int lane_add(lane_stacks *ls)
{
    if (ls->n == ls->capn) {
        uint32_t c = ls->capn ? ls->capn * 2 : 4;
        int64_t **e = pq_realloc_array(ls->end, c, sizeof *e);
        if (e)
            ls->end = e;
        uint32_t *l = e ? pq_realloc_array(ls->len, c, sizeof *l) : NULL;
        if (l)
            ls->len = l;
        uint32_t *k = l ? pq_realloc_array(ls->cap, c, sizeof *k) : NULL;
        if (!k)
            return -1;
        ls->cap = k;
        for (uint32_t i = ls->capn; i < c; i++) {
            ls->end[i] = NULL;
            ls->cap[i] = 0;
        }
        ls->capn = c;
    }
    ls->len[ls->n++] = 0;
    return 0;
}

/* Sorts the N items and sets lane[idx] for each: the first lane where the event nests
 * (starts after the lane's open events end, or ends within the innermost one). LANES[group]
 * = how many lanes the group needed (1 when nothing overlaps). 0, or -1 out of memory. */
static int assign_lanes(lane_item *it, size_t n, uint32_t *lane, uint32_t *lanes)
{
    lane_stacks ls = {0};
    int rc = 0;
    qsort(it, n, sizeof *it, cmp_lane_item);
    for (size_t i = 0; i < n && rc == 0;) {
        uint32_t g = it[i].group;
        ls.n = 0;
        for (; i < n && it[i].group == g && rc == 0; i++) {
            for (uint32_t l = 0;; l++) {
                if (l == ls.n && lane_add(&ls) != 0) {
                    rc = -1;
                    break;
                }
                while (ls.len[l] && ls.end[l][ls.len[l] - 1] <= it[i].start)
                    ls.len[l]--;
                if (ls.len[l] == 0 || ls.end[l][ls.len[l] - 1] >= it[i].end) {
                    lane[it[i].idx] = l;
                    rc = lane_push(&ls, l, it[i].end);
                    break;
                }
            }
        }
        lanes[g] = ls.n;
    }
    for (uint32_t l = 0; l < ls.capn; l++)
        pq_free(ls.end[l]);
    pq_free(ls.end);
    pq_free(ls.len);
    pq_free(ls.cap);
    return rc;
}

static void put_jstr(buf *b, pq_str s)
{
    buf_putc(b, '"');
    json_escape_into(b, s.p, s.n);
    buf_putc(b, '"');
}

static void put_stat(buf *b, const xp_plane *pl, const stat_value *s, int *first)
{
    pq_str name = xp_stat_name(pl, s);
    if (name.n == 0 || s->kind == STAT_NONE)
        return;
    buf_puts(b, *first ? "" : ",");
    *first = 0;
    put_jstr(b, name);
    buf_putc(b, ':');
    char t[40];
    switch (s->kind) {
    case STAT_DOUBLE:
        json_format_double(t, sizeof t, s->v.d);
        buf_puts(b, (s->v.d == s->v.d && s->v.d - s->v.d == 0) ? t : "null");
        break;
    case STAT_UINT64: /* above 2^53 a JavaScript number would round: quote it */
        buf_printf(b, s->v.u > (1ull << 53) ? "\"%" PRIu64 "\"" : "%" PRIu64, s->v.u);
        break;
    case STAT_INT64: {
        int64_t v = s->v.i;
        int big = v > (int64_t)(1ll << 53) || v < -(int64_t)(1ll << 53);
        buf_printf(b, big ? "\"%" PRId64 "\"" : "%" PRId64, v);
        break;
    }
    case STAT_STR:
    case STAT_REF:
        put_jstr(b, xp_stat_str(pl, s));
        break;
    case STAT_BYTES:
        buf_printf(b, "\"<%zu bytes>\"", s->v.s.n);
        break;
    default:
        buf_puts(b, "null");
        break;
    }
}

/* Microseconds of the trace clock, BASE_US + REL_PS, with six decimals (exact). */
static void put_trace_us(buf *b, int64_t base_us, int64_t rel_ps)
{
    int64_t whole = rel_ps / 1000000, frac = rel_ps % 1000000;
    if (frac < 0) {
        frac += 1000000;
        whole--;
    }
    buf_printf(b, "%" PRId64 ".%06" PRId64, base_us + whole, frac);
}

static void put_arg(buf *b, const model_slices *m, const char *key, uint32_t id, int *first)
{
    if (!id)
        return;
    buf_printf(b, "%s\"%s\":", *first ? "" : ",", key);
    *first = 0;
    put_jstr(b, pq_str_of(intern_str(&m->names, id), intern_len(&m->names, id)));
}

/* Thread metadata of an extra lane: "NAME (K)", sorted beside its line (SORT; 0: none). */
static void put_lane_thread(buf *b, uint64_t pid, uint64_t tid, pq_str name, uint32_t k,
                            uint64_t sort, int *first_ev)
{
    buf_printf(b,
               "%s{\"ph\":\"M\",\"pid\":%" PRIu64 ",\"tid\":%" PRIu64
               ",\"name\":\"thread_name\",\"args\":{\"name\":\"",
               *first_ev ? "" : ",\n", pid, tid);
    *first_ev = 0;
    json_escape_into(b, name.p, name.n);
    buf_printf(b, " (%u)\"}}", k);
    if (sort)
        buf_printf(b,
                   ",\n{\"ph\":\"M\",\"pid\":%" PRIu64 ",\"tid\":%" PRIu64
                   ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%" PRIu64 "}}",
                   pid, tid, sort);
}

/* One slice as an X event on thread (PID, TID). */
static void put_slice(buf *b, const model_slices *m, size_t i, uint64_t pid, int64_t tid,
                      int *first_ev)
{
    buf_printf(b, "%s{\"ph\":\"X\",\"pid\":%" PRIu64 ",\"tid\":%" PRId64 ",\"ts\":",
               *first_ev ? "" : ",\n", pid, tid);
    *first_ev = 0;
    put_trace_us(b, m->base_us, m->start_ps[i]);
    buf_puts(b, ",\"dur\":");
    put_us(b, m->dur_ps[i]);
    buf_puts(b, ",\"name\":");
    put_jstr(b, pq_str_of(intern_str(&m->names, m->name[i]), intern_len(&m->names, m->name[i])));
    buf_puts(b, ",\"args\":{");
    int first = 1;
    put_arg(b, m, "tf_op", m->tf_op[i], &first);
    put_arg(b, m, "source", m->source[i], &first);
    put_arg(b, m, "long_name", m->long_name[i], &first);
    put_arg(b, m, "run_id", m->run_id[i], &first);
    if (m->flags[i] & SLICE_HAS_STEP)
        buf_printf(b, "%s\"step_num\":%" PRId64, first ? "" : ",", m->step[i]);
    buf_puts(b, "}}");
}

/* The lanes of every slice (LANE) and how many each track needs (LANES); 0 or -1. */
static int slice_lanes(const model_slices *m, uint32_t *lane, uint32_t *lanes)
{
    lane_item *items = pq_malloc_array(m->n ? m->n : 1, sizeof *items);
    if (!items)
        return -1;
    for (size_t i = 0; i < m->n; i++)
        items[i] =
            (lane_item){m->start_ps[i], m->start_ps[i] + m->dur_ps[i], m->track[i], (uint32_t)i};
    for (uint32_t t = 0; t < m->ntracks; t++)
        lanes[t] = 1;
    int rc = assign_lanes(items, m->n, lane, lanes);
    pq_free(items);
    return rc;
}

/* A trace-event JSON source re-exported from the model: its processes renumbered after the
 * planes written before (pids of several files would collide), threads as they were, one
 * X event per slice with the args the reader kept; slices that overlap without nesting on
 * extra threads numbered after the process's highest tid. */
static void put_slices(buf *b, const pq_source *src, int name_host, uint64_t *pid, int *first_ev)
{
    const model_slices *m = src->slices;
    uint64_t base_pid = *pid;
    size_t nt = (size_t)m->ntracks + 1;
    int64_t *pids = pq_malloc_array(nt, sizeof *pids),
            *next_tid = pq_malloc_array(nt, sizeof *next_tid);
    int64_t *xtid = pq_malloc_array(nt, sizeof *xtid); /* per track: its first extra tid */
    uint32_t *ptrack = pq_malloc_array(nt, sizeof *ptrack),
             *lanes = pq_malloc_array(nt, sizeof *lanes);
    uint32_t *lane = pq_calloc(m->n ? m->n : 1, sizeof *lane);
    uint32_t np = 0;
    if (!pids || !next_tid || !xtid || !ptrack || !lanes || !lane ||
        slice_lanes(m, lane, lanes) != 0) {
        b->status = PQ_ERR_NOMEM;
        goto done;
    }
    for (uint32_t t = 0; t < m->ntracks; t++) {
        const slice_track *tr = &m->tracks[t];
        uint32_t k = 0;
        while (k < np && pids[k] != tr->pid)
            k++;
        if (k == np) {
            pids[np] = tr->pid;
            next_tid[np++] = tr->tid;
        }
        ptrack[t] = k;
        if (tr->tid > next_tid[k])
            next_tid[k] = tr->tid;
    }
    for (uint32_t k = 0; k < np; k++)
        next_tid[k]++;
    for (uint32_t t = 0, seen = 0; t < m->ntracks; t++) {
        const slice_track *tr = &m->tracks[t];
        uint32_t k = ptrack[t];
        if (k == seen) {
            seen++;
            const char *pn = slices_process_name(m, tr->pid);
            buf_printf(b,
                       "%s{\"ph\":\"M\",\"pid\":%" PRIu64 ",\"name\":\"process_name\","
                       "\"args\":{\"name\":\"",
                       *first_ev ? "" : ",\n", base_pid + k + 1);
            *first_ev = 0;
            if (name_host) {
                json_escape_into(b, src->info.host.p, src->info.host.n);
                buf_putc(b, ' ');
            }
            json_escape_into(b, pn, strlen(pn));
            buf_puts(b, "\"}}");
        }
        const char *tn = slices_thread_name(m, tr->pid, tr->tid);
        buf_printf(b,
                   ",\n{\"ph\":\"M\",\"pid\":%" PRIu64 ",\"tid\":%" PRId64
                   ",\"name\":\"thread_name\",\"args\":{\"name\":",
                   base_pid + k + 1, tr->tid);
        put_jstr(b, pq_str_of(tn, strlen(tn)));
        buf_puts(b, "}}");
        xtid[t] = next_tid[k];
        for (uint32_t l = 1; l < lanes[t]; l++)
            put_lane_thread(b, base_pid + k + 1, (uint64_t)next_tid[k]++, pq_str_of(tn, strlen(tn)),
                            l + 1, 0, first_ev);
    }
    for (size_t i = 0; i < m->n && b->status == PQ_OK; i++) {
        uint32_t t = m->track[i];
        int64_t tid = lane[i] ? xtid[t] + lane[i] - 1 : m->tracks[t].tid;
        put_slice(b, m, i, base_pid + ptrack[t] + 1, tid, first_ev);
    }
    *pid = base_pid + np;
done:
    pq_free(pids);
    pq_free(next_tid);
    pq_free(xtid);
    pq_free(ptrack);
    pq_free(lanes);
    pq_free(lane);
}

/* One XEvent as a trace event on thread TID; BASE = the line's start in ps. */
static void put_xevent(buf *b, const xp_plane *pl, uint64_t pid, uint64_t tid, int64_t base,
                       const xp_event *ev, int *first_ev)
{
    const xp_event_meta *em = xp_event_meta_find(pl, ev->metadata_id);
    buf_printf(b, "%s{\"ph\":\"%s\",\"pid\":%" PRIu64 ",\"tid\":%" PRIu64 ",\"ts\":",
               *first_ev ? "" : ",\n", ev->duration_ps ? "X" : "i", pid, tid);
    *first_ev = 0;
    put_us(b, base + ev->offset_ps);
    if (ev->duration_ps) {
        buf_puts(b, ",\"dur\":");
        put_us(b, ev->duration_ps);
    } else {
        buf_puts(b, ",\"s\":\"t\"");
    }
    buf_puts(b, ",\"name\":");
    int has_display = em && em->display_name.n;
    put_jstr(b, em ? (has_display ? em->display_name : em->name) : pq_str_of("", 0));
    buf_puts(b, ",\"args\":{");
    int first = 1;
    if (has_display) {
        buf_puts(b, "\"long_name\":");
        put_jstr(b, em->name);
        first = 0;
    }
    stat_value s;
    xp_stat_iter it;
    if (em) {
        xp_stats_begin(&it, em->body, em->body_len, 5);
        while (xp_stats_next(&it, &s))
            put_stat(b, pl, &s, &first);
    }
    xp_stats_begin(&it, ev->stats, ev->body_len, 4);
    while (xp_stats_next(&it, &s))
        put_stat(b, pl, &s, &first);
    buf_puts(b, "}}");
}

/* Every event of line LI of PL, overlapping ones on extra threads numbered from *NEXT_TID. */
static void put_line(buf *b, const xp_plane *pl, uint32_t li, uint64_t pid, uint64_t *next_tid,
                     int *first_ev)
{
    const xp_line *line = &pl->lines[li];
    int64_t base = line->timestamp_ns * 1000;
    xp_event_iter ei;
    xp_event ev;
    size_t n = 0, nx = 0;
    xp_events_begin(line, &ei);
    while (xp_events_next(&ei, &ev))
        n++;
    lane_item *items = pq_malloc_array(n ? n : 1, sizeof *items);
    uint32_t *lane = pq_calloc(n ? n : 1, sizeof *lane), lanes = 1;
    if (!items || !lane) {
        b->status = PQ_ERR_NOMEM;
        goto done;
    }
    xp_events_begin(line, &ei);
    for (uint32_t i = 0; xp_events_next(&ei, &ev); i++)
        if (ev.duration_ps)
            items[nx++] = (lane_item){ev.offset_ps, ev.offset_ps + ev.duration_ps, 0, i};
    if (assign_lanes(items, nx, lane, &lanes) != 0) {
        b->status = PQ_ERR_NOMEM;
        goto done;
    }
    uint64_t first_tid = *next_tid;
    pq_str nm = line->display_name.n ? line->display_name : line->name;
    for (uint32_t k = 1; k < lanes; k++)
        put_lane_thread(b, pid, (*next_tid)++, nm, k + 1, li + 1, first_ev);
    xp_events_begin(line, &ei);
    for (uint32_t i = 0; xp_events_next(&ei, &ev) && b->status == PQ_OK; i++)
        put_xevent(b, pl, pid, lane[i] ? first_tid + lane[i] - 1 : li + 1, base, &ev, first_ev);
done:
    pq_free(items);
    pq_free(lane);
}

pq_status pq_render_trace_json(const pq_profile *profile, pq_sink *sink, pq_error *err)
{
    buf b;
    buf_init(&b, sink);
    buf_puts(&b, "{\"displayTimeUnit\":\"ns\",\"metadata\":{\"highres-ticks\":true},\n"
                 "\"traceEvents\":[\n");
    int first_ev = 1;
    uint64_t pid = 0;
    /* Metadata first: process and thread names, in plane and line order. */
    for (size_t si = 0; si < profile->nsources; si++) {
        const pq_source *src = &profile->sources[si];
        for (uint32_t pi = 0; pi < src->nplanes; pi++) {
            const xp_plane *pl = &src->planes[pi];
            pid++;
            if (pl->nlines == 0)
                continue;
            buf_printf(&b,
                       "%s{\"ph\":\"M\",\"pid\":%" PRIu64 ",\"name\":\"process_name\","
                       "\"args\":{\"name\":\"",
                       first_ev ? "" : ",\n", pid);
            first_ev = 0;
            if (profile->nsources > 1) {
                json_escape_into(&b, src->info.host.p, src->info.host.n);
                buf_putc(&b, ' ');
            }
            json_escape_into(&b, pl->name.p, pl->name.n);
            buf_printf(&b,
                       "\"}},\n{\"ph\":\"M\",\"pid\":%" PRIu64 ",\"name\":\"process_sort_index\","
                       "\"args\":{\"sort_index\":%" PRIu64 "}}",
                       pid, pid);
            for (uint32_t li = 0; li < pl->nlines; li++) {
                const xp_line *line = &pl->lines[li];
                pq_str nm = line->display_name.n ? line->display_name : line->name;
                buf_printf(&b,
                           ",\n{\"ph\":\"M\",\"pid\":%" PRIu64 ",\"tid\":%u,\"name\":"
                           "\"thread_name\",\"args\":{\"name\":",
                           pid, li + 1);
                put_jstr(&b, nm);
                buf_printf(&b,
                           "}},\n{\"ph\":\"M\",\"pid\":%" PRIu64 ",\"tid\":%u,\"name\":"
                           "\"thread_sort_index\",\"args\":{\"sort_index\":%u}}",
                           pid, li + 1, li + 1);
            }
        }
    }
    pid = 0;
    for (size_t si = 0; si < profile->nsources && b.status == PQ_OK; si++) {
        const pq_source *src = &profile->sources[si];
        for (uint32_t pi = 0; pi < src->nplanes; pi++) {
            const xp_plane *pl = &src->planes[pi];
            uint64_t next_tid = (uint64_t)pl->nlines + 1; /* extra lanes' threads */
            pid++;
            for (uint32_t li = 0; li < pl->nlines && b.status == PQ_OK; li++)
                put_line(&b, pl, li, pid, &next_tid, &first_ev);
        }
    }
    for (size_t si = 0; si < profile->nsources && b.status == PQ_OK; si++)
        if (profile->sources[si].slices)
            put_slices(&b, &profile->sources[si], profile->nsources > 1, &pid, &first_ev);
    buf_puts(&b, "\n]}\n");
    pq_status st = buf_flush(&b);
    buf_release(&b);
    if (st != PQ_OK)
        err_set(err, st, NULL, -1, "cannot write the output");
    return st;
}
