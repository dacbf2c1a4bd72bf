/* nsys_comm_svg.c - `profq nsys --format svg`: the notebook's scatter of bus bandwidth
 * against message size (cell 20, left panel) as one standalone SVG document: each steady
 * collective instance is a point (x: message size on a log10 axis, y: the largest bus
 * bandwidth over its devices), one colour per collective kind with a legend, a <title>
 * tooltip per point. No script, no style sheet or font from outside; every string from the
 * profile (instruction names) goes through html_escape. */
#include "nsys_comm.h"

#include "render/svg.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

static const char *const COLORS[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                     "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};

enum { W = 760, H = 440, L = 70, R = 190, T = 40, B = 60 };

typedef struct axes {
    double x0, x1, y1; /* log10 bytes range, bandwidth max */
} axes;

static int usable(const nsys_coll_instance *x)
{
    return x->message_bytes > 0 && x->busbw_gbps == x->busbw_gbps && x->busbw_gbps >= 0 &&
           !isinf(x->busbw_gbps);
}

static axes bounds(const nsys_comm_result *r)
{
    axes a = {INFINITY, -INFINITY, 0};
    for (size_t i = 0; i < r->ninstances; i++) {
        const nsys_coll_instance *x = &r->instances[i];
        if (!usable(x))
            continue;
        double lx = log10((double)x->message_bytes);
        a.x0 = fmin(a.x0, floor(lx));
        a.x1 = fmax(a.x1, ceil(lx));
        a.y1 = fmax(a.y1, x->busbw_gbps);
    }
    if (!(a.x0 < a.x1)) {
        a.x0 = isinf(a.x0) ? 0 : a.x0;
        a.x1 = a.x0 + 1;
    }
    a.y1 = a.y1 > 0 ? a.y1 * 1.05 : 1;
    return a;
}

static double px(const axes *a, double bytes)
{
    return L + (log10(bytes) - a->x0) / (a->x1 - a->x0) * (W - L - R);
}

static double py(const axes *a, double bw)
{
    return H - B - bw / a->y1 * (H - T - B);
}

static void frame(buf *b, const axes *a)
{
    buf_printf(b,
               "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
               "stroke=\"#444\"/>\n",
               L, T, W - L - R, H - T - B);
    for (int e = (int)a->x0; e <= (int)a->x1; e++) {
        double x = px(a, pow(10, e));
        buf_printf(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>", x, T,
                   x, H - B);
        buf_printf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">1e%d</text>\n", x,
                   H - B + 16, e);
    }
    for (int k = 0; k <= 4; k++) {
        double v = a->y1 * k / 4, y = py(a, v);
        buf_printf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>", L, y,
                   W - R, y);
        buf_printf(b, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", L - 6, y + 4);
        fmt_fixed(b, v, 1);
        buf_puts(b, "</text>\n");
    }
    buf_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">Message size (B)</text>\n",
               (L + W - R) / 2, H - 20);
    buf_printf(b,
               "<text x=\"18\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 18 %d)\">"
               "Bus bandwidth (GB/s)</text>\n",
               (T + H - B) / 2, (T + H - B) / 2);
}

static void point(buf *b, const axes *a, const nsys_coll_instance *x, const char *color)
{
    buf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\" fill-opacity=\"0.7\">",
               px(a, (double)x->message_bytes), py(a, x->busbw_gbps), color);
    buf_puts(b, "<title>");
    html_escape(b, x->name, strlen(x->name));
    if (*x->op_name) {
        buf_putc(b, ' ');
        html_escape(b, x->op_name, strlen(x->op_name));
    }
    buf_printf(b, " (program %" PRId64 ", execution %" PRId64 "): %" PRId64 " B, ", x->program_id,
               x->execution, x->message_bytes);
    fmt_fixed(b, x->busbw_gbps, 2);
    buf_puts(b, " GB/s, wait ");
    fmt_fixed(b, x->wait_ns / 1e6, 4);
    buf_puts(b, " ms</title></circle>\n");
}

void nsys_comm_svg(buf *b, const nsys_comm_result *r)
{
    axes a = bounds(r);
    buf_printf(b,
               "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"nsys-busbw\" width=\"%d\" "
               "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" "
               "font-size=\"12\">\n",
               W, H, W, H);
    buf_printf(b, "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", W, H);
    buf_printf(b,
               "<text x=\"%d\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">Bus bandwidth "
               "vs message size (steady collectives, max over devices)</text>\n",
               W / 2);
    frame(b, &a);
    size_t shown = 0;
    for (size_t k = 0; k < r->nkinds; k++) {
        const char *color = COLORS[k % (sizeof COLORS / sizeof COLORS[0])];
        const char *name = nsys_coll_name(r->kinds[k].kind);
        buf_puts(b, "<g class=\"kind\">\n");
        for (size_t i = 0; i < r->ninstances; i++)
            if (r->instances[i].kind == r->kinds[k].kind && usable(&r->instances[i])) {
                point(b, &a, &r->instances[i], color);
                shown++;
            }
        buf_puts(b, "</g>\n");
        int y = T + 10 + 20 * (int)k;
        buf_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>",
                   W - R + 14, y - 10, color);
        buf_printf(b, "<text x=\"%d\" y=\"%d\">", W - R + 32, y);
        html_escape(b, name, strlen(name));
        buf_printf(b, " (%" PRIu64 ")</text>\n", r->kinds[k].instances);
    }
    if (!shown)
        buf_printf(b,
                   "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">no collective with a "
                   "known message size</text>\n",
                   (L + W - R) / 2, (T + H - B) / 2);
    buf_puts(b, "</svg>\n");
}
