/* info.c - renders `profq info` (schema profq.info.v1) and `profq scan` (profq.scan.v1)
 * as JSON or text. Reads the model; computes nothing beyond formatting. */
#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"
#include "render/doc.h"
#include "render/info_trace.h"
#include "render/info_tt.h"
#include "render/scan.h"
#include "render/text.h"
#include "model/model.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void json_stat_value(json_writer *w, const xp_plane *pl, const stat_value *s)
{
    switch (s->kind) {
    case STAT_DOUBLE:
        json_double(w, s->v.d);
        break;
    case STAT_UINT64:
        json_uint(w, s->v.u);
        break;
    case STAT_INT64:
        json_int(w, s->v.i);
        break;
    case STAT_STR:
    case STAT_REF: {
        pq_str v = xp_stat_str(pl, s);
        json_str(w, v.p, v.n);
        break;
    }
    case STAT_BYTES:
        json_obj_begin(w);
        json_key(w, "bytes");
        json_uint(w, s->v.s.n);
        json_obj_end(w);
        break;
    case STAT_NONE:
        json_null(w);
        break;
    }
}

/* A capability value as text: numbers as JSON writes them, strings escaped. */
static void text_cap_value(buf *b, const pq_device_value *v)
{
    char tmp[40];
    switch (v->kind) {
    case PQ_DEV_NUM:
        json_format_double(tmp, sizeof tmp, v->d);
        buf_puts(b, tmp);
        break;
    case PQ_DEV_UINT:
        buf_printf(b, "%" PRIu64, v->u);
        break;
    case PQ_DEV_INT:
        buf_printf(b, "%" PRId64, v->i);
        break;
    case PQ_DEV_BOOL:
        buf_puts(b, v->i ? "true" : "false");
        break;
    case PQ_DEV_STR:
        json_escape_into(b, v->s.p, v->s.n); /* keeps control bytes off the terminal */
        break;
    }
}

static void json_pq_str(json_writer *w, pq_str s)
{
    json_str(w, s.p, s.n);
}

/* One plane of the JSON info: ids, counts, capabilities (of its device), stats and lines
 * (adding to the line and event totals). */
static void plane_json(json_writer *w, const pq_source *src, const xp_plane *pl, uint64_t *tlines,
                       uint64_t *tevents)
{
    json_obj_begin(w);
    json_key(w, "id");
    json_int(w, pl->id);
    json_key(w, "name");
    json_pq_str(w, pl->name);
    json_key(w, "device_kind");
    json_cstr(w, device_kind_name(pl->kind));
    json_key(w, "events");
    json_uint(w, pl->events);
    json_key(w, "event_metadata");
    json_uint(w, pl->nemeta);
    json_key(w, "stat_metadata");
    json_uint(w, pl->nsmeta);
    json_key(w, "capabilities");
    json_obj_begin(w);
    const model_device *dev = xp_plane_device(src, pl);
    const model_device_cap *caps = dev ? devices_caps(&src->devices, dev) : NULL;
    for (size_t c = 0; dev && c < dev->ncaps; c++) {
        json_key(w, caps[c].key);
        info_device_value_json(w, &caps[c].v);
    }
    json_obj_end(w);
    json_key(w, "plane_stats");
    json_obj_begin(w);
    for (uint32_t k = 0; k < pl->nstats; k++) {
        pq_str name = xp_stat_name(pl, &pl->stats[k]);
        char key[128];
        snprintf(key, sizeof key, "%.*s", (int)(name.n < 120 ? name.n : 120), name.p);
        if (!key[0])
            snprintf(key, sizeof key, "#%" PRId64, pl->stats[k].metadata_id);
        json_key(w, key);
        json_stat_value(w, pl, &pl->stats[k]);
    }
    json_obj_end(w);
    json_key(w, "lines");
    json_arr_begin(w);
    for (uint32_t li = 0; li < pl->nlines; li++) {
        const xp_line *l = &pl->lines[li];
        ++*tlines;
        *tevents += l->events;
        json_obj_begin(w);
        json_key(w, "id");
        json_int(w, l->id);
        if (l->display_id) {
            json_key(w, "display_id");
            json_int(w, l->display_id);
        }
        json_key(w, "name");
        json_pq_str(w, l->name);
        if (l->display_name.n) {
            json_key(w, "display_name");
            json_pq_str(w, l->display_name);
        }
        json_key(w, "timestamp_ns");
        json_int(w, l->timestamp_ns);
        json_key(w, "duration_ps");
        json_int(w, l->duration_ps);
        json_key(w, "events");
        json_uint(w, l->events);
        json_key(w, "event_stats");
        json_uint(w, l->event_stats);
        if (l->events) {
            json_key(w, "first_ps");
            json_int(w, l->first_ps);
            json_key(w, "end_ps");
            json_int(w, l->end_ps);
            json_key(w, "span_ps");
            json_uint(w, (uint64_t)l->end_ps - (uint64_t)l->first_ps);
        }
        json_obj_end(w);
    }
    json_arr_end(w);
    json_obj_end(w);
}

static void render_info_json(const pq_profile *prof, buf *b)
{
    json_writer w;
    uint64_t tplanes = 0, tlines = 0, tevents = 0, tprograms = 0, tbytes = 0;
    json_doc_begin(&w, b, "profq.info.v1");
    json_key(&w, "sources");
    json_arr_begin(&w);
    for (size_t si = 0; si < prof->nsources; si++) {
        const pq_source *src = &prof->sources[si];
        tbytes += src->info.size_bytes;
        json_obj_begin(&w);
        json_key(&w, "path");
        json_pq_str(&w, src->info.path);
        json_key(&w, "format");
        json_cstr(&w, pq_format_name(src->info.format));
        json_key(&w, "host");
        json_pq_str(&w, src->info.host);
        json_key(&w, "bytes");
        json_uint(&w, src->info.size_bytes);
        json_key(&w, "sha256");
        json_cstr(&w, src->info.sha256);
        json_key(&w, "events");
        json_uint(&w, src->info.events);
        json_key(&w, "stats");
        json_uint(&w, src->info.stats);
        json_key(&w, "hostnames");
        json_arr_begin(&w);
        for (uint32_t k = 0; k < src->nhostnames; k++)
            json_pq_str(&w, src->hostnames[k]);
        json_arr_end(&w);
        json_key(&w, "profiler_errors");
        json_arr_begin(&w);
        for (uint32_t k = 0; k < src->nerrors; k++)
            json_pq_str(&w, src->errors[k]);
        json_arr_end(&w);
        json_key(&w, "profiler_warnings");
        json_arr_begin(&w);
        for (uint32_t k = 0; k < src->nwarnings; k++)
            json_pq_str(&w, src->warnings[k]);
        json_arr_end(&w);
        if (src->slices) {
            info_trace_json(&w, src);
            tevents += src->trace_events;
        }
        if (src->ttlog)
            info_tt_json(&w, src);

        json_key(&w, "planes");
        json_arr_begin(&w);
        for (uint32_t pi = 0; pi < src->nplanes; pi++) {
            const xp_plane *pl = &src->planes[pi];
            tplanes++;
            plane_json(&w, src, pl, &tlines, &tevents);
        }
        json_arr_end(&w);

        json_key(&w, "programs");
        json_arr_begin(&w);
        for (uint32_t k = 0; k < src->nprograms; k++) {
            const pq_program *p = &src->programs[k];
            char id[24];
            tprograms++;
            snprintf(id, sizeof id, "%" PRIu64, p->program_id);
            json_obj_begin(&w);
            json_key(&w, "name");
            json_pq_str(&w, p->name);
            json_key(&w, "key");
            json_pq_str(&w, p->key);
            json_key(&w, "program_id");
            json_cstr(&w, id);
            json_key(&w, "hlo_proto_bytes");
            json_uint(&w, p->hlo_len);
            if (p->legacy_stat_name) {
                json_key(&w, "legacy_stat_name");
                json_bool(&w, 1);
            }
            json_obj_end(&w);
        }
        json_arr_end(&w);
        if (src->duplicate_programs) {
            json_key(&w, "duplicate_programs_ignored");
            json_uint(&w, src->duplicate_programs);
        }
        json_obj_end(&w);
    }
    json_arr_end(&w);
    json_key(&w, "totals");
    json_obj_begin(&w);
    json_key(&w, "sources");
    json_uint(&w, prof->nsources);
    json_key(&w, "planes");
    json_uint(&w, tplanes);
    json_key(&w, "lines");
    json_uint(&w, tlines);
    json_key(&w, "events");
    json_uint(&w, tevents);
    json_key(&w, "programs");
    json_uint(&w, tprograms);
    json_key(&w, "bytes");
    json_uint(&w, tbytes);
    json_obj_end(&w);
    json_obj_end(&w);
}

/* Formats picoseconds for people: "12.345 ms". */
static void text_duration(buf *b, uint64_t ps)
{
    double v = (double)ps;
    if (ps < 1000000)
        buf_printf(b, "%.3f ns", v / 1e3);
    else if (ps < 1000000000)
        buf_printf(b, "%.3f us", v / 1e6);
    else if (ps < UINT64_C(1000000000000))
        buf_printf(b, "%.3f ms", v / 1e9);
    else
        buf_printf(b, "%.3f s", v / 1e12);
}

static void text_str(buf *b, pq_str s)
{
    json_escape_into(b, s.p, s.n);
}

static void render_info_text(const pq_profile *prof, buf *b)
{
    for (size_t si = 0; si < prof->nsources; si++) {
        const pq_source *src = &prof->sources[si];
        if (si)
            buf_putc(b, '\n');
        buf_puts(b, "source ");
        text_str(b, src->info.path);
        char sz[32];
        buf_printf(b, "\n  format %s, %s, host ", pq_format_name(src->info.format),
                   text_bytes(sz, (double)src->info.size_bytes));
        text_str(b, src->info.host);
        buf_printf(b, "\n  sha256 %s\n", src->info.sha256[0] ? src->info.sha256 : "(not computed)");
        if (src->slices) {
            info_trace_text(b, src);
            continue;
        }
        if (src->ttlog) {
            info_tt_text(b, src);
            continue;
        }
        buf_printf(b, "  %u planes, %" PRIu64 " events, %" PRIu64 " stats, %u programs\n",
                   src->nplanes, src->info.events, src->info.stats, src->nprograms);
        for (uint32_t k = 0; k < src->nerrors; k++) {
            buf_puts(b, "  profiler error: ");
            text_str(b, src->errors[k]);
            buf_putc(b, '\n');
        }
        for (uint32_t pi = 0; pi < src->nplanes; pi++) {
            const xp_plane *pl = &src->planes[pi];
            buf_puts(b, "\n  plane ");
            text_str(b, pl->name);
            buf_printf(b, "  [%s, id %" PRId64 ", %u lines, %" PRIu64 " events]\n",
                       device_kind_name(pl->kind), pl->id, pl->nlines, pl->events);
            int any = 0;
            size_t col = 0; /* capabilities wrap at 120 columns */
            const model_device *dev = xp_plane_device(src, pl);
            const model_device_cap *caps = dev ? devices_caps(&src->devices, dev) : NULL;
            for (size_t c = 0; dev && c < dev->ncaps; c++) {
                buf t;
                buf_init(&t, NULL);
                buf_printf(&t, "%s=", caps[c].key);
                text_cap_value(&t, &caps[c].v);
                size_t w = text_cols(t.p, t.n);
                if (!any) {
                    buf_puts(b, "    capabilities: ");
                    col = 18;
                } else if (col + 2 + w + 1 > TEXT_COLS) { /* with its comma */
                    buf_puts(b, ",\n      ");
                    col = 6;
                } else {
                    buf_puts(b, ", ");
                    col += 2;
                }
                buf_put(b, t.p, t.n);
                col += w;
                if (t.status != PQ_OK && b->status == PQ_OK)
                    b->status = t.status;
                buf_release(&t);
                any = 1;
            }
            if (any)
                buf_putc(b, '\n');
            for (uint32_t li = 0; li < pl->nlines; li++) {
                const xp_line *l = &pl->lines[li];
                buf_puts(b, "    line ");
                text_str(b, l->display_name.n ? l->display_name : l->name);
                buf_printf(b, " (id %" PRId64 "): %" PRIu64 " events", l->id, l->events);
                if (l->events) {
                    buf_puts(b, ", span ");
                    text_duration(b, (uint64_t)l->end_ps - (uint64_t)l->first_ps);
                }
                buf_putc(b, '\n');
            }
        }
        if (src->nprograms) {
            buf_puts(b, "\n  programs\n");
            for (uint32_t k = 0; k < src->nprograms; k++) {
                const pq_program *p = &src->programs[k];
                buf_puts(b, "    ");
                text_str(b, p->name);
                char hz[32];
                buf_printf(b, "  program_id %" PRIu64 "  HloProto %s\n", p->program_id,
                           text_bytes(hz, (double)p->hlo_len));
            }
        }
    }
}

pq_status pq_render_info(const pq_profile *profile, pq_output fmt, pq_sink *sink, pq_error *err)
{
    buf b;
    buf_init(&b, sink);
    if (fmt == PQ_OUT_JSON)
        render_info_json(profile, &b);
    else
        render_info_text(profile, &b);
    return render_finish(&b, err);
}

pq_status pq_render_scan(const pq_profile *profile, const pq_scan_totals *t, pq_output fmt,
                         pq_sink *sink, pq_error *err)
{
    return render_scan_counts(profile->nsources, t, fmt, sink, err);
}

pq_status render_scan_counts(size_t nsources, const pq_scan_totals *t, pq_output fmt, pq_sink *sink,
                             pq_error *err)
{
    static const char *const kinds[7] = {"none", "double", "uint64", "int64",
                                         "str",  "bytes",  "ref"};
    buf b;
    buf_init(&b, sink);
    if (fmt == PQ_OUT_JSON) {
        json_writer w;
        json_doc_begin(&w, &b, "profq.scan.v1");
        json_key(&w, "sources");
        json_uint(&w, nsources);
        json_key(&w, "bytes");
        json_uint(&w, t->bytes);
        json_key(&w, "planes");
        json_uint(&w, t->planes);
        json_key(&w, "lines");
        json_uint(&w, t->lines);
        json_key(&w, "events");
        json_uint(&w, t->events);
        json_key(&w, "event_stats");
        json_uint(&w, t->event_stats);
        json_key(&w, "metadata_stats");
        json_uint(&w, t->metadata_stats);
        json_key(&w, "plane_stats");
        json_uint(&w, t->plane_stats);
        json_key(&w, "stats_by_kind");
        json_obj_begin(&w);
        for (int k = 0; k < 7; k++) {
            json_key(&w, kinds[k]);
            json_uint(&w, t->stats_by_kind[k]);
        }
        json_obj_end(&w);
        json_key(&w, "checksum");
        json_int(&w, t->checksum);
        json_obj_end(&w);
    } else {
        buf_printf(&b,
                   "%zu sources, %" PRIu64 " bytes: %" PRIu64 " planes, %" PRIu64 " lines, %" PRIu64
                   " events\n",
                   nsources, t->bytes, t->planes, t->lines, t->events);
        buf_printf(&b,
                   "stats: %" PRIu64 " on events, %" PRIu64 " on event metadata, %" PRIu64
                   " on planes\n",
                   t->event_stats, t->metadata_stats, t->plane_stats);
        buf_puts(&b, "by kind:");
        for (int k = 1; k < 7; k++)
            buf_printf(&b, " %s %" PRIu64, kinds[k], t->stats_by_kind[k]);
        buf_printf(&b, "\nchecksum %" PRId64 "\n", t->checksum);
    }
    return render_finish(&b, err);
}
