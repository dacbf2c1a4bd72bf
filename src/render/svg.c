/* svg.c - inline SVG line charts and the HTML escaper; see svg.h. Coordinates are written
 * with one decimal so output is byte-stable. Not here: what a chart shows (the reports). */
#include "svg.h"

#include <math.h>
#include <string.h>

void html_escape(buf *b, const char *s, size_t n)
{
    /* 1: escaped or dropped (control bytes but tab and newline, DEL); 0: copied. */
    static const unsigned char table[256] = {
        [0] = 1,   [1] = 1,   [2] = 1,    [3] = 1,   [4] = 1,  [5] = 1,  [6] = 1,   [7] = 1,
        [8] = 1,   [11] = 1,  [12] = 1,   [13] = 1,  [14] = 1, [15] = 1, [16] = 1,  [17] = 1,
        [18] = 1,  [19] = 1,  [20] = 1,   [21] = 1,  [22] = 1, [23] = 1, [24] = 1,  [25] = 1,
        [26] = 1,  [27] = 1,  [28] = 1,   [29] = 1,  [30] = 1, [31] = 1, ['&'] = 1, ['<'] = 1,
        ['>'] = 1, ['"'] = 1, ['\''] = 1, [0x7f] = 1};
    /* Escaped text goes through a local chunk: log text (MLIR layouts) is full of '<' and
     * '>', and one append per chunk is much cheaper than one per run. */
    char out[4096];
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (o > sizeof out - 8) {
            buf_put(b, out, o);
            o = 0;
        }
        if (!table[c]) {
            out[o++] = (char)c;
            continue;
        }
        const char *rep = "";
        size_t k = 0;
        switch (c) {
        case '&':
            rep = "&amp;", k = 5;
            break;
        case '<':
            rep = "&lt;", k = 4;
            break;
        case '>':
            rep = "&gt;", k = 4;
            break;
        case '"':
            rep = "&quot;", k = 6;
            break;
        case '\'':
            rep = "&#39;", k = 5;
            break;
        default: /* control bytes are dropped */
            break;
        }
        memcpy(out + o, rep, k);
        o += k;
    }
    if (o)
        buf_put(b, out, o);
}

void fmt_fixed(buf *b, double v, int decimals)
{
    static const double P10[] = {1, 10, 100, 1000, 1e4, 1e5, 1e6};
    if (decimals < 0)
        decimals = 0;
    if (decimals > 6)
        decimals = 6;
    if (!isfinite(v))
        v = 0;
    if (fabs(v) >= 1e12) {
        buf_printf(b, "%.*f", decimals, v);
        return;
    }
    long long k = llround(fabs(v) * P10[decimals]);
    char tmp[40];
    int n = 0;
    for (int i = 0; i < decimals; i++) {
        tmp[n++] = (char)('0' + k % 10);
        k /= 10;
    }
    if (decimals)
        tmp[n++] = '.';
    do {
        tmp[n++] = (char)('0' + k % 10);
        k /= 10;
    } while (k);
    if (v < 0 && llround(fabs(v) * P10[decimals]) != 0)
        tmp[n++] = '-';
    char out[40];
    for (int i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    buf_put(b, out, (size_t)n);
}

static void esc(buf *b, const char *s)
{
    if (s)
        html_escape(b, s, strlen(s));
}

/* A "nice" step (1, 2 or 5 times a power of ten) giving about 5 ticks over [0, max]. */
static double nice_step(double max)
{
    if (!(max > 0))
        return 1;
    double raw = max / 5, p = pow(10, floor(log10(raw))), m = raw / p;
    double step = m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10;
    return step * p;
}

static void num(buf *b, double v)
{
    if (v == floor(v) && fabs(v) < 1e15)
        buf_printf(b, "%.0f", v);
    else if (fabs(v) >= 100)
        buf_printf(b, "%.1f", v);
    else
        buf_printf(b, "%.3g", v);
}

void svg_line_chart(buf *b, const svg_chart *c)
{
    const double L = 64, R = 16, T = 28, B = 40;
    double W = c->width > 0 ? c->width : 900, H = c->height > 0 ? c->height : 260;
    double pw = W - L - R, ph = H - T - B;
    size_t n = 0;
    double ymax = 0;
    for (size_t s = 0; s < c->nseries; s++) {
        if (c->series[s].n > n)
            n = c->series[s].n;
        for (size_t i = 0; i < c->series[s].n; i++)
            if (isfinite(c->series[s].y[i]) && c->series[s].y[i] > ymax)
                ymax = c->series[s].y[i];
    }
    int show_hline =
        c->has_hline && isfinite(c->hline) && (c->hline <= ymax * 4 || ymax == 0) && c->hline > 0;
    if (show_hline && c->hline > ymax)
        ymax = c->hline;
    double step = nice_step(ymax);
    double top = ymax > 0 ? ceil(ymax / step) * step : 1;
    if (top <= 0)
        top = 1;
    double xden = n > 1 ? (double)(n - 1) : 1;
#define XP(i) (L + pw * (double)(i) / xden)
#define YP(v) (T + ph - ph * ((v) / top))
    buf_puts(b, "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" id=\"");
    esc(b, c->id);
    buf_printf(b, "\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" role=\"img\">", W, H,
               W, H);
    buf_puts(b, "<title>");
    esc(b, c->title);
    buf_puts(b, "</title>");
    buf_printf(b, "<text class=\"ct\" x=\"%.1f\" y=\"16\">", L);
    esc(b, c->title);
    buf_puts(b, "</text>");
    /* grid and y ticks */
    for (double v = 0; v <= top + step / 2; v += step) {
        buf_printf(b,
                   "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
                   "<text class=\"yt\" x=\"%.1f\" y=\"%.1f\">",
                   L, L + pw, YP(v), YP(v), L - 6, YP(v) + 4);
        num(b, v);
        buf_puts(b, "</text>");
    }
    /* x ticks: about 10 */
    size_t xstep = n > 10 ? (n + 9) / 10 : 1;
    for (size_t i = 0; i < n; i += xstep)
        buf_printf(b, "<text class=\"xt\" x=\"%.1f\" y=\"%.1f\">%zu</text>", XP(i), T + ph + 16, i);
    buf_printf(b, "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", L,
               L + pw, T + ph, T + ph);
    buf_printf(b, "<text class=\"xl\" x=\"%.1f\" y=\"%.1f\">", L + pw / 2, H - 6);
    esc(b, c->x_label);
    buf_printf(b, "</text><text class=\"yl\" transform=\"translate(14 %.1f) rotate(-90)\">",
               T + ph / 2);
    esc(b, c->y_label);
    buf_puts(b, "</text>");
    if (show_hline) {
        buf_printf(b,
                   "<line class=\"cap\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
                   "<text class=\"capl\" x=\"%.1f\" y=\"%.1f\">",
                   L, L + pw, YP(c->hline), YP(c->hline), L + pw - 4, YP(c->hline) - 4);
        esc(b, c->hline_label);
        buf_puts(b, "</text>");
    } else if (c->has_hline) {
        buf_printf(b, "<text class=\"capl\" x=\"%.1f\" y=\"%.1f\">", L + pw - 4, T + 10.0);
        esc(b, c->hline_label);
        buf_puts(b, " (off scale)</text>");
    }
    /* series */
    for (size_t s = 0; s < c->nseries; s++) {
        const svg_series *se = &c->series[s];
        buf_printf(b, "<g class=\"series\" data-s=\"%zu\">", s);
        if (se->n) {
            buf_puts(b, "<polyline fill=\"none\" stroke=\"");
            esc(b, se->color);
            buf_printf(b, "\" stroke-width=\"1.6\"%s points=\"",
                       se->dashed ? " stroke-dasharray=\"5 3\"" : "");
            /* More points than 2 per horizontal pixel: per bucket of indices only its
             * minimum and maximum (in index order) are drawn, which looks the same. */
            size_t bucket = se->n > (size_t)(2 * pw) ? (size_t)(se->n / pw) : 1;
            int first = 1;
            for (size_t i0 = 0; i0 < se->n; i0 += bucket) {
                size_t i1 = i0 + bucket < se->n ? i0 + bucket : se->n, lo = i0, hi = i0;
                for (size_t i = i0; i < i1; i++) {
                    double v = isfinite(se->y[i]) ? se->y[i] : 0;
                    double vl = isfinite(se->y[lo]) ? se->y[lo] : 0;
                    double vh = isfinite(se->y[hi]) ? se->y[hi] : 0;
                    if (v < vl)
                        lo = i;
                    if (v > vh)
                        hi = i;
                }
                size_t pick[2] = {lo < hi ? lo : hi, lo < hi ? hi : lo};
                for (int k = 0; k < (pick[0] == pick[1] ? 1 : 2); k++) {
                    double v = isfinite(se->y[pick[k]]) ? se->y[pick[k]] : 0;
                    if (!first)
                        buf_putc(b, ' ');
                    first = 0;
                    fmt_fixed(b, XP(pick[k]), 1);
                    buf_putc(b, ',');
                    fmt_fixed(b, YP(v), 1);
                }
            }
            buf_puts(b, "\"/>");
        }
        if (se->markers && (!c->max_markers || se->n <= c->max_markers)) {
            for (size_t i = 0; i < se->n; i++) {
                double v = isfinite(se->y[i]) ? se->y[i] : 0;
                const char *col = se->alt && se->alt[i] ? se->alt_color : se->color;
                buf_printf(b, "<circle class=\"pt\" data-i=\"%zu\" cx=\"", i);
                fmt_fixed(b, XP(i), 1);
                buf_puts(b, "\" cy=\"");
                fmt_fixed(b, YP(v), 1);
                buf_puts(b, "\" r=\"3\" fill=\"");
                esc(b, col);
                buf_puts(b, "\">");
                if (c->point_title) {
                    buf_puts(b, "<title>");
                    c->point_title(c->ctx, s, i, b);
                    buf_puts(b, "</title>");
                }
                buf_puts(b, "</circle>");
            }
        }
        buf_puts(b, "</g>");
    }
    /* legend */
    double lx = L + 8;
    for (size_t s = 0; s < c->nseries; s++) {
        buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"", lx,
                   T + 2.0);
        esc(b, c->series[s].color);
        buf_printf(b, "\"/><text class=\"lg\" x=\"%.1f\" y=\"%.1f\">", lx + 14, T + 11.0);
        esc(b, c->series[s].label);
        buf_puts(b, "</text>");
        lx += 24 + 7.0 * (double)strlen(c->series[s].label ? c->series[s].label : "");
        if (c->series[s].alt && c->series[s].alt_label) {
            buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"", lx,
                       T + 2.0);
            esc(b, c->series[s].alt_color);
            buf_printf(b, "\"/><text class=\"lg\" x=\"%.1f\" y=\"%.1f\">", lx + 14, T + 11.0);
            esc(b, c->series[s].alt_label);
            buf_puts(b, "</text>");
            lx += 24 + 7.0 * (double)strlen(c->series[s].alt_label);
        }
    }
    buf_puts(b, "</svg>\n");
#undef XP
#undef YP
}
