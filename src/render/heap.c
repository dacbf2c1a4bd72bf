/* heap.c - renders a `profq heap` result (pq_heap_result, computed by analysis/heapsim.c):
 * per module its heap-simulator traces over program order, as text, TSV (one line per
 * point), JSON (profq.heap.v1) or an SVG line chart (one line per module: its trace with
 * the highest peak, one colour each; y in round steps of a readable unit, x in % of the
 * trace). Formats only: module choice and replay are the analysis's. */
#include "profq.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"
#include "render/text.h"
#include "render/svg.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const double GIB = 1073741824.0;

/* A unit a person reads a byte count in. */
typedef struct heap_unit {
    double bytes;
    const char *name;
} heap_unit;

static heap_unit unit_for(double v)
{
    if (v >= GIB)
        return (heap_unit){GIB, "GiB"};
    if (v >= 1048576.0)
        return (heap_unit){1048576.0, "MiB"};
    if (v >= 1024.0)
        return (heap_unit){1024.0, "KiB"};
    return (heap_unit){1.0, "B"};
}

/* "18.0 MiB", "512 B". */
static void put_human(buf *b, int64_t bytes)
{
    heap_unit u = unit_for((double)bytes);
    if (u.bytes == 1.0)
        buf_printf(b, "%" PRId64 " B", bytes);
    else
        buf_printf(b, "%.1f %s", (double)bytes / u.bytes, u.name);
}

/* The y axis: a round step (1, 2, 2.5 or 5 times a power of ten of the unit) giving at
 * most 5 intervals up to the largest peak, and labels with as many decimals as the step
 * needs ("0.0938 GiB" was cut at the chart's left edge; "96 MiB" says the same). */
typedef struct heap_axis {
    heap_unit unit;
    double step; /* in units */
    int nticks;  /* intervals */
    int decimals;
    double top_bytes;
} heap_axis;

static heap_axis y_axis(double ymax)
{
    heap_axis ax;
    ax.unit = unit_for(ymax);
    double max_units = ymax / ax.unit.bytes, raw = max_units / 5.0;
    double p = raw > 0 ? pow(10.0, floor(log10(raw))) : 1.0;
    static const double M[] = {1.0, 2.0, 2.5, 5.0, 10.0};
    ax.step = 10.0 * p;
    for (int i = 0; i < 5; i++)
        if (M[i] * p >= raw) {
            ax.step = M[i] * p;
            break;
        }
    if (ax.unit.bytes == 1.0 && ax.step < 1.0)
        ax.step = 1.0; /* whole bytes */
    ax.nticks = (int)ceil(max_units / ax.step - 1e-9);
    if (ax.nticks < 1)
        ax.nticks = 1;
    int e = (int)floor(log10(ax.step) + 1e-9);
    ax.decimals = e >= 0 ? 0 : -e + (fmod(ax.step / pow(10.0, e), 1.0) > 1e-9);
    ax.top_bytes = ax.nticks * ax.step * ax.unit.bytes;
    return ax;
}

/* The colour of module I: a palette of 8, then hues a golden angle apart (two modules
 * shared a colour with the palette alone). */
static void module_color(char *out, size_t n, int i)
{
    static const char *const COLORS[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                         "#9467bd", "#8c564b", "#e377c2", "#17becf"};
    if (i < 8)
        snprintf(out, n, "%s", COLORS[i]);
    else
        snprintf(out, n, "hsl(%.1f,70%%,%d%%)", fmod((i - 8) * 137.508 + 15.0, 360.0),
                 i % 2 ? 35 : 50);
}

/* Up to 2000 points of trace T between x0 and x1 (the max of each bucket keeps the peak
 * visible). */
static void polyline(buf *b, const pq_heap_trace *t, const char *color, double x0, double x1,
                     double y0, double height, double top)
{
    buf_printf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", color);
    uint32_t npts = t->nevents + 1, step = npts > 2000 ? npts / 2000 + 1 : 1;
    for (uint32_t k = 0; k < npts; k += step) {
        int64_t v = t->usage[k];
        for (uint32_t q = k; q < k + step && q < npts; q++)
            if (t->usage[q] > v)
                v = t->usage[q];
        double x = x0 + (x1 - x0) * ((double)k / (double)(npts - 1));
        double y = y0 + height * (1.0 - (double)v / top);
        buf_printf(b, "%.1f,%.1f ", x, y);
    }
    buf_puts(b, "\"/>\n");
}

static void render_svg(buf *b, const pq_heap_module *mods, int n)
{
    const double W = 900, H = 420, R = 20, T = 30, B = 50;
    double ymax = 0;
    for (int i = 0; i < n; i++)
        if ((double)mods[i].peak_bytes > ymax)
            ymax = (double)mods[i].peak_bytes;
    heap_axis ax = y_axis(ymax);
    char labels[16][48];
    int nlab = ax.nticks + 1 < 16 ? ax.nticks + 1 : 16;
    size_t widest = 0;
    for (int g = 0; g < nlab; g++) {
        snprintf(labels[g], sizeof labels[g], "%.*f %s", ax.decimals, g * ax.step, ax.unit.name);
        if (strlen(labels[g]) > widest)
            widest = strlen(labels[g]);
    }
    /* 12px sans-serif text is under 7px a character: the labels end 6px left of the axis */
    double L = 10.0 + 7.0 * (double)widest;
    if (L < 70)
        L = 70;
    double ph = H - T - B;
    buf_printf(b,
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n",
               W, H + 20.0 * n, W, H + 20.0 * n);
    buf_puts(b, "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
    buf_printf(b,
               "<text x=\"%.0f\" y=\"18\">heap usage over program order (each module's "
               "heap-simulator trace with the highest peak)</text>\n",
               L);
    for (int g = 0; g < nlab; g++) {
        double y = T + ph * (1.0 - (double)g / (double)(nlab - 1));
        buf_printf(b,
                   "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>"
                   "<text class=\"ylabel\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                   L, y, W - R, y, L - 6, y + 4, labels[g]);
    }
    buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000000\"/>\n", L,
               H - B, W - R, H - B);
    static const char *const ANCHOR[] = {"start", "middle", "middle", "middle", "end"};
    for (int k = 0; k <= 4; k++) {
        double x = L + (W - R - L) * k / 4.0;
        buf_printf(b,
                   "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000000\"/>"
                   "<text class=\"xlabel\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%d%%</text>\n",
                   x, H - B, x, H - B + 4, x, H - B + 16, ANCHOR[k], 25 * k);
    }
    buf_printf(b,
               "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">program order (%% of the "
               "trace's heap-simulator events)</text>\n",
               (L + W - R) / 2, H - B + 34);
    for (int i = 0; i < n; i++) {
        const pq_heap_trace *t = mods[i].ntraces ? &mods[i].traces[mods[i].top_trace] : NULL;
        char color[40];
        module_color(color, sizeof color, i);
        if (t && t->nevents)
            polyline(b, t, color, L, W - R, T, ph, ax.top_bytes);
        buf_printf(b,
                   "<rect class=\"key\" x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" "
                   "fill=\"%s\"/>",
                   L, H + 20.0 * i - 4, color);
        buf_printf(b, "<text x=\"%.0f\" y=\"%.0f\">", L + 18, H + 20.0 * i + 6);
        html_escape(b, mods[i].module.key, strlen(mods[i].module.key));
        buf_puts(b, ": peak ");
        put_human(b, mods[i].peak_bytes);
        buf_puts(b, "</text>\n");
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
            char pk[32];
            buf_printf(&b, "  peak %s over %u trace(s)\n",
                       text_bytes(pk, (double)mods[i].peak_bytes), mods[i].ntraces);
            for (uint32_t k = 0; k < mods[i].ntraces; k++) {
                const pq_heap_trace *tr = &mods[i].traces[k];
                buf_printf(&b,
                           "    trace %u (memory space %" PRId64 "): %u events, peak %s after "
                           "event %u\n",
                           tr->index, tr->color, tr->nevents,
                           text_bytes(pk, (double)tr->peak_bytes), tr->peak_position);
                if (tr->nevents) { /* on its own line: instruction names are long */
                    buf_puts(&b, "      at ");
                    buf_put(&b, tr->instruction[tr->peak_position].p,
                            tr->instruction[tr->peak_position].n);
                    buf_putc(&b, '\n');
                }
            }
        }
    }
    pq_status st = buf_flush(&b);
    buf_release(&b);
    if (st != PQ_OK)
        st = err_set(err, PQ_ERR_OUTPUT, "", -1, "could not write the output");
    return st;
}
