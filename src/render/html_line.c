/* html_line.c - the linear line chart of the HTML report (step time over steps): a y grid
 * from 0, the points joined in order (downsampled to the lowest and highest of each bucket
 * when there are more than max_points), one hoverable dot per point when they are few, and
 * the points whose x lies below mark_below shaded as warm-up. Coordinates with one decimal
 * so the bytes are stable. Not here: which points (html.c), log-log charts (html_chart.c). */
#include "render/html.h"
#include "render/svg.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

static const double LL = 64, LR = 16, LT = 28, LB = 40, LW = 900, LH = 260;

static double line_x(int64_t xi, double lo, double hi)
{
    double x = (double)xi;
    return LL + (LW - LL - LR) * (hi > lo ? (x - lo) / (hi - lo) : 0.5);
}

/* Grid lines and y labels from 0 to TOP in four steps. */
static void y_grid(buf *b, double top, double ph)
{
    for (int k = 0; k <= 4; k++) {
        double v = top * k / 4, y = LT + ph - ph * v / top;
        buf_printf(b, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"", LL, LW - LR);
        fmt_fixed(b, y, 1);
        buf_puts(b, "\" y2=\"");
        fmt_fixed(b, y, 1);
        buf_printf(b, "\"/><text class=\"yt\" x=\"%.1f\" y=\"", LL - 6);
        fmt_fixed(b, y + 4, 1);
        buf_puts(b, "\">");
        fmt_fixed(b, v, v >= 100 ? 0 : v >= 1 ? 1 : 3);
        buf_puts(b, "</text>");
    }
}

size_t html_minmax(size_t n, size_t max, double (*value)(void *ctx, size_t i),
                   void (*emit)(void *ctx, size_t i, size_t k), void *ctx)
{
    size_t bucket = max >= 2 && n > max ? (n + max / 2 - 1) / (max / 2) : 1, drawn = 0;
    for (size_t i0 = 0; i0 < n; i0 += bucket) {
        size_t i1 = i0 + bucket < n ? i0 + bucket : n, a = i0, z = i0;
        for (size_t i = i0; i < i1; i++) {
            double v = value(ctx, i);
            if (v < value(ctx, a))
                a = i;
            if (v > value(ctx, z))
                z = i;
        }
        size_t pick[2] = {a < z ? a : z, a < z ? z : a};
        for (int k = 0; k < (pick[0] == pick[1] ? 1 : 2); k++)
            emit(ctx, pick[k], drawn++);
    }
    return drawn;
}

typedef struct line_ctx {
    buf *b;
    const html_line *c;
    double lo, hi, top, ph;
} line_ctx;

static double line_value(void *ctx, size_t i)
{
    const line_ctx *l = ctx;
    return isfinite(l->c->y[i]) ? l->c->y[i] : 0;
}

static void line_emit(void *ctx, size_t i, size_t k)
{
    const line_ctx *l = ctx;
    if (k)
        buf_putc(l->b, ' ');
    fmt_fixed(l->b, line_x(l->c->x[i], l->lo, l->hi), 1);
    buf_putc(l->b, ',');
    fmt_fixed(l->b, LT + l->ph - l->ph * line_value(ctx, i) / l->top, 1);
}

size_t html_line_chart(buf *b, const html_line *c)
{
    double lo = INFINITY, hi = -INFINITY, max = 0, pw = LW - LL - LR, ph = LH - LT - LB;
    for (size_t i = 0; i < c->n; i++) {
        lo = fmin(lo, (double)c->x[i]);
        hi = fmax(hi, (double)c->x[i]);
        if (isfinite(c->y[i]))
            max = fmax(max, c->y[i]);
    }
    double top = max > 0 ? max * 1.08 : 1;
    buf_puts(b, "<svg class=\"chart line\" xmlns=\"http://www.w3.org/2000/svg\" id=\"");
    html_text(b, c->id);
    buf_printf(b, "\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" role=\"img\">", LW,
               LH, LW, LH);
    buf_puts(b, "<title>");
    html_text(b, c->title);
    buf_printf(b, "</title><text class=\"ct\" x=\"%.1f\" y=\"16\">", LL);
    html_text(b, c->title);
    buf_puts(b, "</text>");
    y_grid(b, top, ph);
    if (c->n && c->x[0] < c->mark_below) { /* the warm-up: up to half-way to the next point */
        size_t k = 0;
        while (k < c->n && c->x[k] < c->mark_below)
            k++;
        double x1 =
            k < c->n ? (line_x(c->x[k - 1], lo, hi) + line_x(c->x[k], lo, hi)) / 2 : LL + pw;
        buf_printf(b, "<rect class=\"warmup\" x=\"%.1f\" y=\"%.1f\" width=\"", LL, LT);
        fmt_fixed(b, x1 - LL, 1);
        buf_printf(b,
                   "\" height=\"%.1f\" fill=\"#f5b041\" fill-opacity=\".18\"><title>warm-up "
                   "(%zu point(s))</title></rect><text class=\"lg\" x=\"%.1f\" "
                   "y=\"%.1f\">warm-up</text>",
                   ph, k, LL + 4, LT + 12);
    }
    buf_printf(b, "<text class=\"xl\" x=\"%.1f\" y=\"%.1f\">", LL + pw / 2, LH - 6);
    html_text(b, c->x_label);
    buf_printf(b, "</text><text class=\"yl\" transform=\"translate(14 %.1f) rotate(-90)\">",
               LT + ph / 2);
    html_text(b, c->y_label);
    buf_puts(b, "</text>");
    buf_printf(b, "<text class=\"xt\" x=\"%.1f\" y=\"%.1f\">", LL, LT + ph + 16);
    html_num(b, c->n ? lo : 0);
    buf_printf(b, "</text><text class=\"xt\" x=\"%.1f\" y=\"%.1f\">", LL + pw, LT + ph + 16);
    html_num(b, c->n ? hi : 0);
    buf_puts(b, "</text>");
    buf_puts(b, "<polyline class=\"data\" fill=\"none\" stroke=\"#2e86de\" stroke-width=\"1.6\" "
                "points=\"");
    line_ctx lc = {b, c, lo, hi, top, ph};
    size_t drawn = html_minmax(c->n, c->max_points, line_value, line_emit, &lc);
    buf_puts(b, "\"/>");
    for (size_t i = 0; drawn == c->n && c->n <= 300 && i < c->n; i++) {
        double y = isfinite(c->y[i]) ? c->y[i] : 0;
        buf_puts(b, "<circle class=\"pt\" r=\"3\" fill=\"#2e86de\" cx=\"");
        fmt_fixed(b, line_x(c->x[i], lo, hi), 1);
        buf_puts(b, "\" cy=\"");
        fmt_fixed(b, LT + ph - ph * y / top, 1);
        buf_puts(b, "\" data-x=\"");
        buf_printf(b, "%" PRId64 "\" data-y=\"%.17g\"><title>", c->x[i], c->y[i]);
        html_text(b, c->x_label);
        buf_putc(b, ' ');
        buf_printf(b, "%" PRId64, c->x[i]);
        buf_puts(b, ": ");
        fmt_fixed(b, y, 3);
        buf_putc(b, ' ');
        html_text(b, c->y_label);
        buf_puts(b, "</title></circle>");
    }
    buf_puts(b, "</svg>\n");
    return drawn;
}
