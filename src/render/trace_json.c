/* trace_json.c - every event of every plane as Chrome trace-event JSON (what Perfetto UI
 * and chrome://tracing load), streamed through the sink with no event cap: XProf's
 * trace_viewer keeps only the first 1,000,000/5,000,000 events (spec/xprof-tools.md 6.3).
 *
 * One process per plane (device and host alike; pid = 1 + the plane's position over all
 * sources), one thread per line (tid = 1 + the line's position: XLine ids are int64 and
 * JavaScript numbers are not), one trace event per XEvent: "X" with ts/dur in microseconds
 * printed exactly from picoseconds, or an instant "i" when the duration is 0. Name = the
 * metadata's display name (the full name in args.long_name) or its name; args = metadata
 * stats then event stats, by stat name. Not an XProf clone: no derived lines, no flows. */
#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"
#include "formats/xplane_walk.h"
#include "core/alloc.h"
#include "model/model.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Picoseconds as microseconds with six decimals: exact, no binary float on the way. */
static void put_us(buf *b, int64_t ps)
{
    uint64_t a = ps < 0 ? (uint64_t)0 - (uint64_t)ps : (uint64_t)ps;
    buf_printf(b, "%s%" PRIu64 ".%06" PRIu64, ps < 0 ? "-" : "", a / 1000000, a % 1000000);
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

/* A trace-event JSON source re-exported from the model: its processes renumbered after the
 * planes written before (pids of several files would collide), threads as they were, one
 * X event per slice with the args the reader kept. */
static void put_slices(buf *b, const pq_source *src, int name_host, uint64_t *pid, int *first_ev)
{
    const model_slices *m = src->slices;
    uint64_t base_pid = *pid;
    int64_t *pids = pq_malloc_array((size_t)m->ntracks + 1, sizeof *pids);
    if (!pids) {
        b->status = PQ_ERR_NOMEM;
        return;
    }
    uint32_t np = 0;
    for (uint32_t t = 0; t < m->ntracks; t++) {
        const slice_track *tr = &m->tracks[t];
        uint32_t k = 0;
        while (k < np && pids[k] != tr->pid)
            k++;
        if (k == np) {
            pids[np++] = tr->pid;
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
    }
    for (size_t i = 0; i < m->n && b->status == PQ_OK; i++) {
        const slice_track *tr = &m->tracks[m->track[i]];
        uint32_t k = 0;
        while (pids[k] != tr->pid)
            k++;
        buf_printf(b, "%s{\"ph\":\"X\",\"pid\":%" PRIu64 ",\"tid\":%" PRId64 ",\"ts\":",
                   *first_ev ? "" : ",\n", base_pid + k + 1, tr->tid);
        *first_ev = 0;
        put_trace_us(b, m->base_us, m->start_ps[i]);
        buf_puts(b, ",\"dur\":");
        put_us(b, m->dur_ps[i]);
        buf_puts(b, ",\"name\":");
        put_jstr(b,
                 pq_str_of(intern_str(&m->names, m->name[i]), intern_len(&m->names, m->name[i])));
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
    *pid = base_pid + np;
    pq_free(pids);
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
            pid++;
            for (uint32_t li = 0; li < pl->nlines && b.status == PQ_OK; li++) {
                const xp_line *line = &pl->lines[li];
                int64_t base = line->timestamp_ns * 1000;
                xp_event_iter ei;
                xp_event ev;
                xp_events_begin(line, &ei);
                while (xp_events_next(&ei, &ev)) {
                    const xp_event_meta *em = xp_event_meta_find(pl, ev.metadata_id);
                    buf_printf(&b, "%s{\"ph\":\"%s\",\"pid\":%" PRIu64 ",\"tid\":%u,\"ts\":",
                               first_ev ? "" : ",\n", ev.duration_ps ? "X" : "i", pid, li + 1);
                    first_ev = 0;
                    put_us(&b, base + ev.offset_ps);
                    if (ev.duration_ps) {
                        buf_puts(&b, ",\"dur\":");
                        put_us(&b, ev.duration_ps);
                    } else {
                        buf_puts(&b, ",\"s\":\"t\"");
                    }
                    buf_puts(&b, ",\"name\":");
                    int has_display = em && em->display_name.n;
                    put_jstr(&b,
                             em ? (has_display ? em->display_name : em->name) : pq_str_of("", 0));
                    buf_puts(&b, ",\"args\":{");
                    int first = 1;
                    if (has_display) {
                        buf_puts(&b, "\"long_name\":");
                        put_jstr(&b, em->name);
                        first = 0;
                    }
                    stat_value s;
                    xp_stat_iter it;
                    if (em) {
                        xp_stats_begin(&it, em->body, em->body_len, 5);
                        while (xp_stats_next(&it, &s))
                            put_stat(&b, pl, &s, &first);
                    }
                    xp_stats_begin(&it, ev.stats, ev.body_len, 4);
                    while (xp_stats_next(&it, &s))
                        put_stat(&b, pl, &s, &first);
                    buf_puts(&b, "}}");
                }
            }
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
