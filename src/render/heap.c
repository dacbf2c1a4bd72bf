/* heap.c - renders `profq heap` (analysis/heapsim.c): per module its heap-simulator
 * traces over program order, as text, TSV (one line per point), JSON (profq.heap.v1) or an
 * SVG line chart (one line per module: its trace with the highest peak). */
#include "analysis/heapsim.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"
#include "model/model.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const double GIB = 1073741824.0;

typedef struct hp_mod {
    const pq_source *src;
    const pq_program *prog;
    hs_result r;
} hp_mod;

static int wanted(const pq_program *p, const char *module)
{
    if (!module || !*module)
        return 1;
    char key[600];
    snprintf(key, sizeof key, "%.*s(%" PRIu64 ")", (int)p->name.n, p->name.p, p->program_id);
    return strncmp(key, module, strlen(module)) == 0;
}

static void key_of(buf *b, const pq_program *p)
{
    buf_put(b, p->name.p, p->name.n);
    buf_printf(b, "(%" PRIu64 ")", p->program_id);
}

static const hs_trace *top_trace(const hs_result *r)
{
    const hs_trace *t = NULL;
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

static void render_svg(buf *b, const hp_mod *mods, int n)
{
    static const char *const COLORS[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                         "#9467bd", "#8c564b", "#e377c2", "#17becf"};
    const double W = 900, H = 420, L = 70, R = 20, T = 30, B = 40;
    double ymax = 0;
    for (int i = 0; i < n; i++)
        if ((double)mods[i].r.peak_bytes > ymax)
            ymax = (double)mods[i].r.peak_bytes;
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
        const hs_trace *t = top_trace(&mods[i].r);
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
        buf t2;
        buf_init(&t2, NULL);
        key_of(&t2, mods[i].prog);
        svg_escape(b, t2.p ? t2.p : "", t2.n);
        buf_release(&t2);
        buf_printf(b, ": peak %.3f GiB</text>\n", (double)mods[i].r.peak_bytes / GIB);
    }
    buf_puts(b, "</svg>\n");
}

pq_status pq_render_heap(const pq_profile *p, const char *module, pq_output fmt, pq_sink *sink,
                         pq_error *err)
{
    arena a;
    arena_init(&a);
    pq_status st = PQ_OK;
    int cap = 0;
    for (size_t s = 0; s < p->nsources; s++)
        cap += (int)p->sources[s].nprograms;
    hp_mod *mods = arena_alloc(&a, (size_t)(cap ? cap : 1) * sizeof *mods);
    int n = 0;
    if (!mods)
        st = err_set(err, PQ_ERR_NOMEM, "", -1, "out of memory");
    for (size_t s = 0; s < p->nsources && st == PQ_OK; s++)
        for (uint32_t i = 0; i < p->sources[s].nprograms && st == PQ_OK; i++) {
            const pq_program *prog = &p->sources[s].programs[i];
            if (!wanted(prog, module))
                continue;
            hlo_module *m;
            int64_t off;
            const char *what;
            st = hlo_decode(prog->hlo, prog->hlo_len, p->sources[s].file.data, &a, &m, &off, &what);
            if (st == PQ_ERR_INPUT) {
                st = err_set(err, st, p->sources[s].path, off, "expected %s in an HloProto", what);
                break;
            }
            if (st == PQ_OK)
                st = heapsim_compute(m, &a, &mods[n].r);
            if (st != PQ_OK) {
                st = err_set(err, st, p->sources[s].path, -1, "out of memory");
                break;
            }
            if (!mods[n].r.ntraces)
                continue;
            mods[n].src = &p->sources[s];
            mods[n].prog = prog;
            n++;
        }
    if (st == PQ_OK && n == 0 && module && *module)
        st = err_set(err, PQ_ERR_NOT_FOUND, "", -1,
                     "no module with heap-simulator traces matches '%s'", module);
    if (st != PQ_OK) {
        arena_release(&a);
        return st;
    }
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
            buf t;
            buf_init(&t, NULL);
            key_of(&t, mods[i].prog);
            json_key(&w, "module");
            json_str(&w, t.p, t.n);
            buf_release(&t);
            char id[32];
            snprintf(id, sizeof id, "%" PRIu64, mods[i].prog->program_id);
            json_key(&w, "program_id");
            json_cstr(&w, id);
            json_key(&w, "source");
            json_cstr(&w, mods[i].src->path);
            json_key(&w, "peak_bytes");
            json_int(&w, mods[i].r.peak_bytes);
            json_key(&w, "traces");
            json_arr_begin(&w);
            for (uint32_t k = 0; k < mods[i].r.ntraces; k++) {
                const hs_trace *tr = &mods[i].r.traces[k];
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
            for (uint32_t k = 0; k < mods[i].r.ntraces; k++) {
                const hs_trace *tr = &mods[i].r.traces[k];
                for (uint32_t q = 0; q <= tr->nevents; q++) {
                    key_of(&b, mods[i].prog);
                    buf_printf(&b, "\t%u\t%u\t%" PRId64 "\t", tr->index, q, tr->usage[q]);
                    buf_put(&b, tr->instruction[q].p, tr->instruction[q].n);
                    buf_putc(&b, '\n');
                }
            }
    } else {
        for (int i = 0; i < n; i++) {
            key_of(&b, mods[i].prog);
            buf_printf(&b, "  peak %.3f GiB over %u trace(s)\n", (double)mods[i].r.peak_bytes / GIB,
                       mods[i].r.ntraces);
            for (uint32_t k = 0; k < mods[i].r.ntraces; k++) {
                const hs_trace *tr = &mods[i].r.traces[k];
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
    st = buf_flush(&b);
    buf_release(&b);
    arena_release(&a);
    if (st != PQ_OK)
        st = err_set(err, PQ_ERR_OUTPUT, "", -1, "could not write the output");
    return st;
}
