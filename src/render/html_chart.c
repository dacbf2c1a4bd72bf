/* html_chart.c - the log-log scatter of the HTML report (the roofline): decade grid and
 * ticks, the roof min(peak FLOP rate, intensity x bandwidth) with its ridge point marked,
 * one circle per point with its title (hover). Coordinates are written with one decimal so
 * the bytes are stable. Not here: which points (html_ops.c), line charts (svg.c). */
#include "render/html.h"
#include "render/svg.h"

#include <math.h>
#include <string.h>

/* An <svg> of class CLASS (a literal), id ID, W x H, with its title as <title> and as a
 * heading at x = TX. */
static void chart_open(buf *b, const char *cls, const char *id, const char *title, double W,
                       double H, double tx)
{
    buf_printf(b, "<svg class=\"%s\" xmlns=\"http://www.w3.org/2000/svg\" id=\"", cls);
    html_text(b, id);
    buf_printf(b,
               "\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" role=\"img\"><title>",
               W, H, W, H);
    html_text(b, title);
    buf_printf(b, "</title><text class=\"ct\" x=\"%.1f\" y=\"16\">", tx);
    html_text(b, title);
    buf_puts(b, "</text>");
}

typedef struct loglog {
    double L, T, pw, ph;
    double x0, x1, y0, y1; /* decades (log10) of the plot's edges */
} loglog;

static double lx(const loglog *g, double v)
{
    return g->L + g->pw * (log10(v) - g->x0) / (g->x1 - g->x0);
}

static double ly(const loglog *g, double v)
{
    return g->T + g->ph - g->ph * (log10(v) - g->y0) / (g->y1 - g->y0);
}

static void decade(buf *b, int e)
{
    if (e >= 0 && e <= 5)
        buf_printf(b, "%.0f", pow(10, e));
    else
        buf_printf(b, "1e%d", e);
}

/* The decades covering the positive finite values of the points (and EXTRA when > 0). */
static void range(const html_scatter *c, int xs, double extra, double *lo, double *hi)
{
    double mn = INFINITY, mx = -INFINITY;
    for (size_t i = 0; i < c->npts; i++) {
        double v = xs ? c->pts[i].x : c->pts[i].y;
        if (v > 0 && isfinite(v)) {
            mn = fmin(mn, v);
            mx = fmax(mx, v);
        }
    }
    if (extra > 0 && isfinite(extra)) {
        mn = fmin(mn, extra);
        mx = fmax(mx, extra);
    }
    if (!isfinite(mn)) {
        mn = 1;
        mx = 10;
    }
    *lo = floor(log10(mn));
    *hi = ceil(log10(mx));
    if (*hi <= *lo)
        *hi = *lo + 1;
}

static void grid(buf *b, const loglog *g, const html_scatter *c, double W, double H)
{
    for (int e = (int)g->x0; e <= (int)g->x1; e++) {
        double x = lx(g, pow(10, e));
        buf_puts(b, "<line class=\"grid\" x1=\"");
        fmt_fixed(b, x, 1);
        buf_puts(b, "\" x2=\"");
        fmt_fixed(b, x, 1);
        buf_printf(b, "\" y1=\"%.1f\" y2=\"%.1f\"/><text class=\"xt\" x=\"", g->T, g->T + g->ph);
        fmt_fixed(b, x, 1);
        buf_printf(b, "\" y=\"%.1f\">", g->T + g->ph + 16);
        decade(b, e);
        buf_puts(b, "</text>");
    }
    for (int e = (int)g->y0; e <= (int)g->y1; e++) {
        double y = ly(g, pow(10, e));
        buf_printf(b, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"", g->L, g->L + g->pw);
        fmt_fixed(b, y, 1);
        buf_puts(b, "\" y2=\"");
        fmt_fixed(b, y, 1);
        buf_printf(b, "\"/><text class=\"yt\" x=\"%.1f\" y=\"", g->L - 6);
        fmt_fixed(b, y + 4, 1);
        buf_puts(b, "\">");
        decade(b, e);
        buf_puts(b, "</text>");
    }
    buf_printf(b, "<text class=\"xl\" x=\"%.1f\" y=\"%.1f\">", g->L + g->pw / 2, H - 6);
    html_text(b, c->x_label);
    buf_printf(b, "</text><text class=\"yl\" transform=\"translate(14 %.1f) rotate(-90)\">",
               g->T + g->ph / 2);
    html_text(b, c->y_label);
    buf_puts(b, "</text>");
    (void)W;
}

/* The roof: a sloped part up to the ridge (peak / bandwidth), flat after it. */
static void roof(buf *b, const loglog *g, const html_scatter *c)
{
    double ridge = c->roof_flops / c->roof_bw;
    double xa = pow(10, g->x0), xb = pow(10, g->x1);
    double ya = xa * c->roof_bw, pts[3][2];
    int n = 0;
    pts[n][0] = xa, pts[n][1] = fmin(ya, c->roof_flops), n++;
    if (ridge > xa && ridge < xb)
        pts[n][0] = ridge, pts[n][1] = c->roof_flops, n++;
    pts[n][0] = xb, pts[n][1] = fmin(xb * c->roof_bw, c->roof_flops), n++;
    buf_puts(b, "<polyline class=\"roof\" points=\"");
    for (int i = 0; i < n; i++) {
        double y = fmax(fmin(ly(g, pts[i][1]), g->T + g->ph), g->T);
        if (i)
            buf_putc(b, ' ');
        fmt_fixed(b, lx(g, pts[i][0]), 1);
        buf_putc(b, ',');
        fmt_fixed(b, y, 1);
    }
    buf_puts(b, "\"/>");
    if (ridge > xa && ridge < xb) {
        double x = lx(g, ridge);
        buf_puts(b, "<line class=\"ridge\" id=\"");
        html_text(b, c->id);
        buf_puts(b, "-ridge\" x1=\"");
        fmt_fixed(b, x, 1);
        buf_puts(b, "\" x2=\"");
        fmt_fixed(b, x, 1);
        buf_printf(b, "\" y1=\"%.1f\" y2=\"%.1f\"><title>ridge point: ", g->T, g->T + g->ph);
        fmt_fixed(b, ridge, 2);
        buf_puts(b, " FLOP/byte</title></line><text class=\"capl\" x=\"");
        fmt_fixed(b, x - 4, 1);
        buf_puts(b, "\" y=\"");
        fmt_fixed(b, ly(g, c->roof_flops) + 14, 1);
        buf_puts(b, "\">");
        html_text(b, c->roof_label);
        buf_puts(b, "</text>");
    }
}

void html_scatter_chart(buf *b, const html_scatter *c)
{
    double W = c->width > 0 ? c->width : 900, H = c->height > 0 ? c->height : 420;
    loglog g = {.L = 64, .T = 28};
    g.pw = W - g.L - 16, g.ph = H - g.T - 40;
    int has_roof = c->roof_flops > 0 && c->roof_bw > 0;
    range(c, 1, has_roof ? c->roof_flops / c->roof_bw : 0, &g.x0, &g.x1);
    range(c, 0, has_roof ? c->roof_flops : 0, &g.y0, &g.y1);
    chart_open(b, "chart", c->id, c->title, W, H, g.L);
    grid(b, &g, c, W, H);
    if (has_roof)
        roof(b, &g, c);
    buf_puts(b, "<g class=\"points\">");
    for (size_t i = 0; i < c->npts; i++) {
        const html_scatter_point *p = &c->pts[i];
        if (!(p->x > 0 && p->y > 0 && isfinite(p->x) && isfinite(p->y)))
            continue;
        buf_printf(b, "<circle class=\"op\" data-i=\"%zu\" cx=\"", i);
        fmt_fixed(b, lx(&g, p->x), 1);
        buf_puts(b, "\" cy=\"");
        fmt_fixed(b, ly(&g, p->y), 1);
        buf_puts(b, "\" r=\"");
        fmt_fixed(b, p->r, 1);
        buf_puts(b, "\" fill=\"");
        html_text(b, c->colors[p->color]);
        buf_puts(b, "\">");
        if (c->point_title) {
            buf_puts(b, "<title>");
            c->point_title(c->ctx, 0, i, b);
            buf_puts(b, "</title>");
        }
        buf_puts(b, "</circle>");
    }
    buf_puts(b, "</g>");
    double lxp = g.L + 8;
    for (size_t k = 0; k < c->ncolors; k++) {
        buf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"", lxp + 5, g.T + 7.0);
        html_text(b, c->colors[k]);
        buf_printf(b, "\"/><text class=\"lg\" x=\"%.1f\" y=\"%.1f\">", lxp + 14, g.T + 11.0);
        html_text(b, c->color_labels[k]);
        buf_puts(b, "</text>");
        lxp += 26 + 7.0 * (double)strlen(c->color_labels[k]);
    }
    buf_puts(b, "</svg>\n");
}

/* ---- the heap chart of the memory viewer ---- */

static const double HL = 64, HR = 16, HT = 28, HB = 40, HW = 900, HH = 280;

double html_heap_x(const html_heap_chart *c, double i)
{
    double den = c->n > 1 ? (double)(c->n - 1) : 1;
    return HL + (HW - HL - HR) * i / den;
}

typedef struct heap_ctx {
    buf *b;
    const html_heap_chart *c;
    double top, ph;
} heap_ctx;

static double heap_value(void *ctx, size_t i)
{
    const heap_ctx *h = ctx;
    return ((double)h->c->bytes[i] + h->c->add) / 1048576.0;
}

static void heap_emit(void *ctx, size_t i, size_t k)
{
    const heap_ctx *h = ctx;
    if (k)
        buf_putc(h->b, ' ');
    fmt_fixed(h->b, html_heap_x(h->c, (double)i), 1);
    buf_putc(h->b, ',');
    fmt_fixed(h->b, HT + h->ph - h->ph * heap_value(ctx, i) / h->top, 1);
}

size_t html_heap_chart_draw(buf *b, const html_heap_chart *c)
{
    double pw = HW - HL - HR, ph = HH - HT - HB, max = 0;
    for (size_t i = 0; i < c->n; i++)
        max = fmax(max, ((double)c->bytes[i] + c->add) / 1048576.0);
    double top = max > 0 ? max * 1.08 : 1;
    chart_open(b, "chart heap", c->id, c->title, HW, HH, HL);
    for (int k = 0; k <= 4; k++) {
        double v = top * k / 4, y = HT + ph - ph * v / top;
        buf_printf(b, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"", HL, HL + pw);
        fmt_fixed(b, y, 1);
        buf_puts(b, "\" y2=\"");
        fmt_fixed(b, y, 1);
        buf_printf(b, "\"/><text class=\"yt\" x=\"%.1f\" y=\"", HL - 6);
        fmt_fixed(b, y + 4, 1);
        buf_puts(b, "\">");
        fmt_fixed(b, v, v >= 100 ? 0 : v >= 1 ? 1 : 3);
        buf_puts(b, "</text>");
    }
    buf_printf(b,
               "<text class=\"xl\" x=\"%.1f\" y=\"%.1f\">program order (heap-simulator "
               "events)</text><text class=\"yl\" transform=\"translate(14 %.1f) "
               "rotate(-90)\">MiB</text>",
               HL + pw / 2, HH - 6, HT + ph / 2);
    buf_puts(b, "<rect class=\"span\" id=\"");
    html_text(b, c->id);
    buf_printf(b,
               "-span\" x=\"%.1f\" y=\"%.1f\" width=\"0\" height=\"%.1f\" visibility=\"hidden\"/>",
               HL, HT, ph);
    buf_puts(b, "<polyline fill=\"none\" stroke=\"#2e86de\" stroke-width=\"1.6\" points=\"");
    heap_ctx hc = {b, c, top, ph};
    size_t drawn = html_minmax(c->n, c->max_points, heap_value, heap_emit, &hc);
    buf_puts(b, "\"/>");
    if (c->peak < c->n) {
        double x = html_heap_x(c, (double)c->peak);
        double v = ((double)c->bytes[c->peak] + c->add) / 1048576.0;
        buf_puts(b, "<line class=\"ridge\" x1=\"");
        fmt_fixed(b, x, 1);
        buf_puts(b, "\" x2=\"");
        fmt_fixed(b, x, 1);
        buf_printf(b, "\" y1=\"%.1f\" y2=\"%.1f\"/><circle class=\"peak\" cx=\"", HT, HT + ph);
        fmt_fixed(b, x, 1);
        buf_puts(b, "\" cy=\"");
        fmt_fixed(b, HT + ph - ph * v / top, 1);
        buf_puts(b, "\" r=\"4\" fill=\"#c0392b\"><title>peak ");
        fmt_fixed(b, v, 3);
        buf_printf(b, " MiB at position %zu</title></circle>", c->peak);
    }
    buf_puts(b, "<text class=\"capl\" id=\"");
    html_text(b, c->id);
    buf_printf(b, "-spantext\" x=\"%.1f\" y=\"%.1f\"></text></svg>\n", HL + pw, HT + 10);
    return drawn;
}

/* ---- horizontal bars ---- */

/* At most MAX bytes of S, not cutting a UTF-8 sequence, escaped; "…" when cut. */
static void short_label(buf *b, const char *p, size_t max)
{
    pq_str s = {p, strlen(p)};
    if (s.n <= max) {
        html_str(b, s);
        return;
    }
    size_t n = max;
    while (n > 0 && ((unsigned char)s.p[n] & 0xC0) == 0x80)
        n--;
    html_escape(b, s.p, n);
    buf_puts(b, "\xE2\x80\xA6");
}

void html_bar_chart(buf *b, const html_bars *c)
{
    size_t n = c->n < 15 ? c->n : 15;
    double rest = 0, max = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (i < n)
            max = fmax(max, c->values[i]);
        else
            rest += c->values[i];
    }
    max = fmax(max, rest);
    size_t rows = n + (c->n > n);
    double W = 900, L = 300, R = 150, T = 24, rowh = 20, H = T + rowh * (double)rows + 8;
    chart_open(b, "chart bars", c->id, c->title, W, H, 4);
    for (size_t i = 0; i < rows; i++) {
        double v = i < n ? c->values[i] : rest, y = T + rowh * (double)i;
        double w = max > 0 ? (W - L - R) * v / max : 0;
        buf_printf(b, "<text class=\"yt\" x=\"%.1f\" y=\"%.1f\">", L - 6, y + 14);
        char label[256] = "";
        if (i < n) {
            c->label(c->ctx, i, label, sizeof label);
            short_label(b, label, 44);
        } else
            buf_printf(b, "the other %zu", c->n - n);
        buf_printf(b, "</text><rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"", L, y + 3);
        fmt_fixed(b, w, 1);
        buf_puts(b, "\" height=\"14\" fill=\"#2e86de\"><title>");
        if (i < n)
            html_text(b, label);
        else
            buf_printf(b, "the other %zu", c->n - n);
        buf_puts(b, "</title></rect><text class=\"lg\" x=\"");
        fmt_fixed(b, L + w + 6, 1);
        buf_printf(b, "\" y=\"%.1f\">", y + 14);
        html_time(b, v);
        if (c->total > 0)
            buf_printf(b, " (%.1f%%)", v / c->total * 100);
        buf_puts(b, "</text>");
    }
    buf_puts(b, "</svg>\n");
}
