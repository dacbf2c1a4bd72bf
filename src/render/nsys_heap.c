/* nsys_heap.c - the heap section of `profq nsys` (analysis/nsys_heap.c): per top module,
 * its heap-simulator traces' peak and where it happens (text), and in profq.nsys.v1 the
 * "heap" object with each trace's usage before every event (the existing `heap`
 * analysis's numbers; `profq heap` on the extracted dump gives the same). Formats only. */
#include "render/nsys_sections.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static pq_str peak_instruction(const pq_heap_trace *t)
{
    pq_str s = t->nevents ? t->instruction[t->peak_position] : (pq_str){"", 0};
    return s.p ? s : (pq_str){"", 0};
}

static void trace_json(json_writer *w, const pq_heap_trace *t)
{
    json_obj_begin(w);
    json_key(w, "index");
    json_uint(w, t->index);
    json_key(w, "memory_space");
    json_int(w, t->color);
    json_key(w, "events");
    json_uint(w, t->nevents);
    json_key(w, "peak_bytes");
    json_int(w, t->peak_bytes);
    json_key(w, "peak_position");
    json_uint(w, t->peak_position);
    json_key(w, "peak_instruction");
    pq_str pi = peak_instruction(t);
    json_str(w, pi.p, pi.n);
    json_key(w, "unknown_buffers");
    json_uint(w, t->unknown_buffers);
    json_key(w, "usage_bytes");
    json_arr_begin(w);
    for (uint32_t q = 0; q <= t->nevents; q++)
        json_int(w, t->usage[q]);
    json_arr_end(w);
    json_obj_end(w);
}

void nsys_heap_json(json_writer *w, const nsys_heap_result *r)
{
    char id[24];
    json_key(w, "heap");
    json_obj_begin(w);
    json_key(w, "modules");
    json_arr_begin(w);
    for (size_t k = 0; k < r->nmodules; k++) {
        const nsys_heap_module *m = &r->modules[k];
        json_obj_begin(w);
        json_key(w, "program_id");
        snprintf(id, sizeof id, "%" PRId64, m->program_id);
        json_cstr(w, id);
        json_key(w, "name");
        json_cstr(w, m->name);
        json_key(w, "has_dump");
        json_bool(w, m->has_dump);
        json_key(w, "peak_bytes");
        json_int(w, m->heap.peak_bytes);
        json_key(w, "traces");
        json_arr_begin(w);
        for (uint32_t t = 0; t < m->heap.ntraces; t++)
            trace_json(w, &m->heap.traces[t]);
        json_arr_end(w);
        json_obj_end(w);
    }
    json_arr_end(w);
    json_obj_end(w);
}

void nsys_heap_text(const nsys_heap_result *r, buf *b)
{
    buf_puts(b, "\nheap: heap-simulator usage over program order of the top modules\n");
    buf_puts(b, "  traces    peak GB  events  peak at (event, instruction)  name (program id)\n");
    for (size_t k = 0; k < r->nmodules; k++) {
        const nsys_heap_module *m = &r->modules[k];
        if (!m->has_dump || !m->heap.ntraces) {
            buf_printf(b, "  %s  ", m->has_dump ? "no heap-simulator trace" : "no dump");
        } else {
            const pq_heap_trace *t = &m->heap.traces[m->top_trace];
            pq_str pi = peak_instruction(t);
            buf_printf(b, "  %6" PRIu32 " %10.3f %7" PRIu32 "  %7" PRIu32 " ", m->heap.ntraces,
                       (double)t->peak_bytes / 1e9, t->nevents, t->peak_position);
            json_escape_into(b, pi.p, pi.n);
            buf_puts(b, "  ");
        }
        json_escape_into(b, m->name, strlen(m->name));
        buf_printf(b, " (%" PRId64 ")\n", m->program_id);
    }
}
