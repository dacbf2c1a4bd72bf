/* heap.c - renders a `profq heap` result (pq_heap_result, computed by analysis/heapsim.c):
 * per module its heap-simulator traces over program order, as text, TSV (one line per
 * point), JSON (profq.heap.v1) or an SVG line chart (one line per module: its trace with
 * the highest peak). Formats only: module choice and replay are the analysis's. */
#include "profq.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const double GIB = 1073741824.0;

static const pq_heap_trace *top_trace(const pq_heap_module *r)
{
    const pq_heap_trace *t = NULL;
    for (uint32_t i = 0; i < r->ntraces; i++)
        if (!t || r->traces[i].peak_bytes > t->peak_bytes)
            t = &r->traces[i];
    return t;
}

static void svg_escape(buf *b, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (c == '<')
            buf_puts(b, "&lt;");
        else if (c == '>')
            buf_puts(b, "&gt;");
        else if (c == '&')
            buf_puts(b, "&amp;");
        else if (c == '"')
            buf_puts(b, "&quot;");
        else if ((unsigned char)c >= 0x20)
            buf_putc(b, c);
    }
}

static void render_svg(buf *b, const pq_heap_module *mods, int n)
{
    static const char *const COLORS[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                         "#9467bd", "#8c564b", "#e377c2", "#17becf"};
    const double W = 900, H = 420, L = 70, R = 20, T = 30, B = 40;
    double ymax = 0;
    for (int i = 0; i < n; i++)
        if ((double)mods[i].peak_bytes > ymax)
            ymax = (double)mods[i].peak_bytes;
    if (ymax <= 0)
        ymax = 1;
    buf_printf(b,
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n",
               W, H + 20.0 * n, W, H + 20.0 * n);
    buf_puts(b, "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
    buf_printf(b,
               "<text x=\"%.0f\" y=\"18\">heap usage over program order (heap-simulator "
               "events, fraction of each trace)</text>\n",
               L);
    for (int g = 0; g <= 4; g++) {
        double y = T + (H - T - B) * (1.0 - g / 4.0);
        buf_printf(b,
                   "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.3g GiB</text>\n",
                   L, y, W - R, y, L - 6, y + 4, ymax / GIB * g / 4.0);
    }
    buf_printf(b,
               "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000000\"/>\n"
               "<text x=\"%.1f\" y=\"%.1f\">0</text><text x=\"%.1f\" y=\"%.1f\" "
               "text-anchor=\"end\">end</text>\n",
               L, H - B, W - R, H - B, L, H - B + 16, W - R, H - B + 16);
    for (int i = 0; i < n; i++) {
        const pq_heap_trace *t = top_trace(&mods[i]);
        const char *color = COLORS[i % 8];
        if (t && t->nevents) {
            buf_printf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
                       color);
            uint32_t npts = t->nevents + 1, step = npts > 2000 ? npts / 2000 + 1 : 1;
            for (uint32_t k = 0; k < npts; k += step) {
                int64_t v = t->usage[k]; /* the max of the bucket keeps the peak visible */
                for (uint32_t q = k; q < k + step && q < npts; q++)
                    if (t->usage[q] > v)
                        v = t->usage[q];
                double x = L + (W - R - L) * ((double)k / (double)(npts - 1));
                double y = T + (H - T - B) * (1.0 - (double)v / ymax);
                buf_printf(b, "%.1f,%.1f ", x, y);
            }
            buf_puts(b, "\"/>\n");
        }
        buf_printf(b, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/>", L,
                   H + 20.0 * i - 4, color);
        buf_printf(b, "<text x=\"%.0f\" y=\"%.0f\">", L + 18, H + 20.0 * i + 6);
        svg_escape(b, mods[i].module.key, strlen(mods[i].module.key));
        buf_printf(b, ": peak %.3f GiB</text>\n", (double)mods[i].peak_bytes / GIB);
    }
    buf_puts(b, "</svg>\n");
}

pq_status pq_heap_render(const pq_heap_result *r, pq_output fmt, pq_sink *sink, pq_error *err)
{
    const pq_heap_module *mods = r->modules;
    int n = (int)r->nmodules;
    buf b;
    buf_init(&b, sink);
    if (fmt == PQ_OUT_SVG) {
        render_svg(&b, mods, n);
    } else if (fmt == PQ_OUT_JSON) {
        json_writer w;
        json_init(&w, &b, 1);
        json_obj_begin(&w);
        json_key(&w, "schema");
        json_cstr(&w, "profq.heap.v1");
        json_key(&w, "modules");
        json_arr_begin(&w);
        for (int i = 0; i < n; i++) {
            json_obj_begin(&w);
            json_key(&w, "module");
            json_cstr(&w, mods[i].module.key);
            char id[32];
            snprintf(id, sizeof id, "%" PRIu64, mods[i].module.program_id);
            json_key(&w, "program_id");
            json_cstr(&w, id);
            json_key(&w, "source");
            json_cstr(&w, mods[i].module.source);
            json_key(&w, "peak_bytes");
            json_int(&w, mods[i].peak_bytes);
            json_key(&w, "traces");
            json_arr_begin(&w);
            for (uint32_t k = 0; k < mods[i].ntraces; k++) {
                const pq_heap_trace *tr = &mods[i].traces[k];
                json_obj_begin(&w);
                json_key(&w, "index");
                json_int(&w, tr->index);
                json_key(&w, "memory_space");
                json_int(&w, tr->color);
                json_key(&w, "events");
                json_int(&w, tr->nevents);
                json_key(&w, "peak_bytes");
                json_int(&w, tr->peak_bytes);
                json_key(&w, "peak_position");
                json_int(&w, tr->peak_position);
                json_key(&w, "peak_instruction");
                pq_str pi = tr->nevents ? tr->instruction[tr->peak_position] : (pq_str){"", 0};
                json_str(&w, pi.p ? pi.p : "", pi.n);
                json_key(&w, "unknown_buffers");
                json_int(&w, tr->unknown_buffers);
                json_key(&w, "usage_bytes");
                json_arr_begin(&w);
                for (uint32_t q = 0; q <= tr->nevents; q++)
                    json_int(&w, tr->usage[q]);
                json_arr_end(&w);
                json_obj_end(&w);
            }
            json_arr_end(&w);
            json_obj_end(&w);
        }
        json_arr_end(&w);
        json_obj_end(&w);
        buf_putc(&b, '\n');
    } else if (fmt == PQ_OUT_TSV) {
        buf_puts(&b, "module\ttrace\tstep\tbytes\tinstruction\n");
        for (int i = 0; i < n; i++)
            for (uint32_t k = 0; k < mods[i].ntraces; k++) {
                const pq_heap_trace *tr = &mods[i].traces[k];
                for (uint32_t q = 0; q <= tr->nevents; q++) {
                    buf_puts(&b, mods[i].module.key);
                    buf_printf(&b, "\t%u\t%u\t%" PRId64 "\t", tr->index, q, tr->usage[q]);
                    buf_put(&b, tr->instruction[q].p, tr->instruction[q].n);
                    buf_putc(&b, '\n');
                }
            }
    } else {
        for (int i = 0; i < n; i++) {
            buf_puts(&b, mods[i].module.key);
            buf_printf(&b, "  peak %.3f GiB over %u trace(s)\n", (double)mods[i].peak_bytes / GIB,
                       mods[i].ntraces);
            for (uint32_t k = 0; k < mods[i].ntraces; k++) {
                const pq_heap_trace *tr = &mods[i].traces[k];
                buf_printf(&b,
                           "    trace %u (memory space %" PRId64 "): %u events, peak %.3f "
                           "GiB after event %u",
                           tr->index, tr->color, tr->nevents, (double)tr->peak_bytes / GIB,
                           tr->peak_position);
                if (tr->nevents) {
                    buf_puts(&b, " (");
                    buf_put(&b, tr->instruction[tr->peak_position].p,
                            tr->instruction[tr->peak_position].n);
                    buf_putc(&b, ')');
                }
                buf_putc(&b, '\n');
            }
        }
    }
    pq_status st = buf_flush(&b);
    buf_release(&b);
    if (st != PQ_OK)
        st = err_set(err, PQ_ERR_OUTPUT, "", -1, "could not write the output");
    return st;
}
