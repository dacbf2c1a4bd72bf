/* html_mem.c - the "Memory" section of the HTML report: per module drawn (the largest
 * peaks first), the memory viewer's figures, its heap size over program order with the peak
 * marked, and the buffers live at the peak (size, category, name, shape, framework op,
 * source; a click shows the buffer's live span on the chart); the list of every module with
 * a memory viewer; then the memory profile: per source and allocator the peak and the
 * sampled timeline. Reads pq_memory_viewer_result (and its detail, as render/memviewer.c
 * does) and pq_memory_profile_result; computes nothing. */
#include "analysis/memviewer.h"
#include "render/html.h"
#include "render/text.h"
#include "core/alloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void fig(buf *b, const char *label, double bytes)
{
    char t[32];
    buf_puts(b, "<div class=\"card\"><small>");
    html_text(b, label);
    buf_printf(b, "</small><b data-bytes=\"%.0f\">%s</b></div>", bytes, text_bytes(t, bytes));
}

static void buffer_row(buf *b, const mv_object *o, const html_heap_chart *hc)
{
    char t[32];
    const mv_lb *lb = o->lb;
    if (lb && lb->has_span) {
        buf_puts(b, "<tr class=\"buf\" data-chart=\"");
        html_text(b, hc->id);
        buf_puts(b, "\" data-x0=\"");
        fmt_fixed(b, html_heap_x(hc, (double)lb->span_start), 1);
        buf_puts(b, "\" data-x1=\"");
        fmt_fixed(b, html_heap_x(hc, (double)lb->span_end), 1);
        buf_printf(b, "\" data-span=\"live from %" PRId64 " to %" PRId64 ": ", lb->span_start,
                   lb->span_end);
        html_str(b, lb->instr->name);
        buf_puts(b, "\">");
    } else {
        buf_puts(b, "<tr>");
    }
    html_cell_num(b, (double)o->size_bytes, text_bytes(t, (double)o->size_bytes));
    if (!lb) {
        buf_puts(b, "<td>small (&lt;16384 bytes)</td><td></td><td></td><td></td><td></td><td "
                    "class=\"n\" data-v=\"\"></td></tr>\n");
        return;
    }
    buf_puts(b, "<td>");
    html_text(b, memviewer_category(lb->alloc));
    buf_puts(b, "</td><td class=\"w\">");
    html_str(b, lb->instr->name);
    buf_puts(b, "</td><td class=\"w\">");
    html_text(b, lb->shape_string);
    buf_puts(b, "</td><td class=\"w\">");
    html_str(b, lb->instr->op_name);
    buf_puts(b, "</td><td class=\"w\">");
    if (lb->instr->source_file.n) {
        html_str(b, lb->instr->source_file);
        buf_printf(b, ":%d", (int)lb->instr->source_line);
    }
    buf_puts(b, "</td>");
    if (lb->has_span) {
        char s[64];
        snprintf(s, sizeof s, "%" PRId64 "..%" PRId64, lb->span_start, lb->span_end);
        html_cell_num(b, (double)(lb->span_end - lb->span_start), s);
    } else {
        buf_puts(b, "<td class=\"n\" data-v=\"\"></td>");
    }
    buf_puts(b, "</tr>\n");
}

static void module_view(buf *b, const html_inputs *in, const html_module_view *v, size_t k)
{
    const pq_memory_viewer_result *r = v->mv;
    buf_puts(b, "<h3>");
    html_text(b, r->module.key);
    buf_puts(b, "</h3><p class=\"note\">memory space ");
    buf_printf(b, "%" PRId64 ", in ", r->memory_space);
    html_text(b, r->module.source);
    buf_puts(b, "</p><div class=\"cards\">");
    fig(b, "Peak heap", (double)(r->peak_heap_bytes + r->indefinite_bytes));
    fig(b, "Peak unpadded", (double)(r->peak_unpadded_bytes + r->indefinite_bytes));
    fig(b, "Entry parameters", (double)r->entry_params_bytes);
    fig(b, "Maybe live out", (double)r->maybe_live_out_bytes);
    fig(b, "Total allocations", (double)r->total_allocation_bytes);
    fig(b, "Indefinite allocations", (double)r->indefinite_allocation_bytes);
    buf_puts(b, "</div>");
    char id[32], title[64];
    snprintf(id, sizeof id, "heap-%zu", k);
    snprintf(title, sizeof title, "Heap size over program order (peak at position %" PRId64 ")",
             r->peak_position);
    html_heap_chart hc = {id, title, r->heap_bytes, r->ntimeline, (double)r->indefinite_bytes,
                          /* heap_bytes[i] is before event i: the peak is after its event */
                          r->peak_position >= 0 ? (size_t)r->peak_position + 1 : SIZE_MAX,
                          (size_t)in->opts->max_points};
    if (r->ntimeline) {
        size_t drawn = html_heap_chart_draw(b, &hc);
        if (drawn < r->ntimeline)
            buf_printf(b,
                       "<p class=\"note dropped\">%u points, drawn as %zu (the lowest and "
                       "highest of each run of consecutive points).</p>",
                       r->ntimeline, drawn);
    } else {
        buf_puts(b, "<p class=\"note\">No heap-simulator trace for this memory space: no "
                    "chart.</p>");
    }
    const mv_result *d = r->detail;
    static const char *const cols[] = {"Size",         "Category", "Buffer", "Shape",
                                       "Framework op", "Source",   "Span"};
    static const int num[] = {1, 0, 0, 0, 0, 0, 1};
    buf_printf(b, "<p>Buffers at the peak (%u); click one to see its span on the chart.</p>",
               d ? d->nobjects : 0);
    char tid[32];
    snprintf(tid, sizeof tid, "buffers-%zu", k);
    html_table_begin(b, tid, cols, num, 7, d && d->nobjects > 20);
    size_t shown = 0, max = (size_t)in->opts->max_rows;
    for (uint32_t i = 0; d && i < d->nobjects && shown < max; i++, shown++)
        buffer_row(b, &d->objects[d->by_size[i]], &hc);
    html_table_end(b, shown, d ? d->nobjects : 0, "size");
}

static void module_list(buf *b, const html_inputs *in)
{
    const pq_memory_viewer_result *l = in->module_list;
    if (!l || l->nmodules <= in->nmodules)
        return;
    static const char *const cols[] = {"Module", "Program id", "Source"};
    static const int num[] = {0, 1, 0};
    buf_printf(
        b,
        "<h3>Every module (%u)</h3><p class=\"note dropped\">The memory viewer of %zu "
        "module(s) is drawn above (among the first 64, those with a heap trace, then the largest "
        "peaks); %zu are only "
        "listed (profq memory-viewer --module KEY shows one).</p>",
        l->nmodules, in->nmodules, in->modules_dropped);
    html_table_begin(b, "modules", cols, num, 3, l->nmodules > 20);
    size_t shown = 0;
    for (uint32_t i = 0; i < l->nmodules && shown < (size_t)in->opts->max_rows; i++, shown++) {
        const pq_memory_module *m = &l->modules[i];
        buf_puts(b, "<tr><td class=\"w\">");
        html_text(b, m->key);
        buf_printf(b,
                   "</td><td class=\"n\" data-v=\"%" PRIu64 "\">%" PRIu64 "</td><td class=\"w\">",
                   m->program_id, m->program_id);
        html_text(b, m->source);
        buf_puts(b, "</td></tr>\n");
    }
    html_table_end(b, shown, l->nmodules, "source and program id");
}

static void memory_viewer(buf *b, const html_inputs *in)
{
    buf_puts(b, "<div id=\"memory-viewer\"><h2>Memory viewer</h2>");
    if (in->memviewer.status != PQ_OK)
        html_failed(b, &in->memviewer);
    size_t drawn = 0;
    for (size_t k = 0; k < in->nmodules; k++) {
        const html_module_view *v = &in->modules[k];
        if (!v->mv) {
            buf_puts(b, "<p class=\"err\">A module: ");
            html_text(b, v->message);
            buf_puts(b, "</p>");
            continue;
        }
        module_view(b, in, v, k);
        drawn++;
    }
    if (!drawn && in->memviewer.status == PQ_OK)
        buf_puts(b, "<p class=\"note\">No module has a memory viewer.</p>");
    module_list(b, in);
    buf_puts(b, "</div>\n");
}

static void allocator(buf *b, const pq_memprofile_allocator *a, size_t s, size_t k)
{
    char t[32], id[48];
    buf_puts(b, "<h3>Allocator ");
    html_text(b, a->id);
    buf_printf(b, "</h3><div class=\"cards\">");
    fig(b, "Peak in use", (double)a->peak.peak_bytes_in_use);
    fig(b, "Peak heap allocated", (double)a->peak.heap_allocated);
    fig(b, "Peak stack reserved", (double)a->peak.stack_reserved);
    if (a->capacity > 0)
        fig(b, "Capacity", (double)a->capacity);
    buf_printf(b, "</div><p class=\"note\">peak at %s into the profile; %u sampled snapshots",
               text_time(t, (double)a->peak_time_ps), a->nsampled);
    buf_puts(b, ".</p>");
    if (!a->nsampled)
        return;
    double *y = pq_malloc_array((size_t)a->nsampled * 2, sizeof *y);
    if (!y) {
        buf_puts(b, "<p class=\"err\">The timeline: out of memory.</p>");
        return;
    }
    for (uint32_t i = 0; i < a->nsampled; i++) {
        y[i] = (double)a->sampled[i].s.heap_allocated / 1048576.0;
        y[a->nsampled + i] = (double)a->sampled[i].s.stack_reserved / 1048576.0;
    }
    svg_series se[2] = {
        {"heap allocated (MiB)", "#2e86de", y, a->nsampled, 0, 0, NULL, NULL, NULL},
        {"stack reserved (MiB)", "#e67e22", y + a->nsampled, a->nsampled, 0, 1, NULL, NULL, NULL}};
    snprintf(id, sizeof id, "memprofile-%zu-%zu", s, k);
    svg_chart c = {.id = id,
                   .title = "Memory over the sampled snapshots",
                   .x_label = "snapshot (time order)",
                   .y_label = "MiB",
                   .series = se,
                   .nseries = 2,
                   .has_hline = a->capacity > 0,
                   .hline = (double)a->capacity / 1048576.0,
                   .hline_label = "capacity"};
    svg_line_chart(b, &c);
    pq_free(y);
}

static void memory_profile(buf *b, const html_inputs *in)
{
    buf_puts(b, "<div id=\"memory-profile\"><h2>Memory profile</h2>");
    const pq_memory_profile_result *r = in->memprofile_result;
    if (!r) {
        html_failed(b, &in->memprofile);
        buf_puts(b, "</div>\n");
        return;
    }
    for (size_t s = 0; s < r->nsources; s++) {
        const pq_memprofile_source *src = &r->sources[s];
        if (!src->nallocators)
            continue;
        if (r->nsources > 1) {
            buf_puts(b, "<p class=\"note\">");
            html_text(b, src->path);
            buf_puts(b, "</p>");
        }
        for (uint32_t k = 0; k < src->nallocators; k++)
            allocator(b, &src->allocators[k], s, k);
    }
    buf_puts(b, "</div>\n");
}

void html_section_memory(buf *b, const html_inputs *in)
{
    buf_puts(b, "<section id=\"memory\">");
    if (in->memviewer.fed)
        memory_viewer(b, in);
    if (in->memprofile.fed)
        memory_profile(b, in);
    if (in->memattr_part.fed)
        html_memattr(b, in);
    buf_puts(b, "</section>\n");
}
