/* svg.h - profq's chart module: inline SVG line charts for the HTML reports (no script, no
 * network). One function per chart kind; every caller-provided text is escaped here. Reports
 * of other analyses reuse it (DESIGN.md section 4). Also the HTML text escaper they share. */
#ifndef PQ_RENDER_SVG_H
#define PQ_RENDER_SVG_H
#include "core/buf.h"

#include <stddef.h>

/* Appends S escaped for HTML text and attribute values (& < > " '); control bytes other than
 * tab and newline are dropped. */
void html_escape(buf *b, const char *s, size_t n);

/* Appends V with DECIMALS (0..6) fixed decimals ("%.*f" without printf; rounds half away from
 * zero, NaN and infinities as 0). */
void fmt_fixed(buf *b, double v, int decimals);

typedef struct svg_series {
    const char *label; /* legend text */
    const char *color; /* a CSS colour literal chosen by the caller, not from input */
    const double *y;
    size_t n;
    int markers; /* one <circle class="pt" data-i="I"> per point */
    int dashed;
    const unsigned char *alt; /* not NULL: points with alt[i] get ALT_COLOR (e.g. weight ops) */
    const char *alt_color;
    const char *alt_label;
} svg_series;

/* Writes the (already escaped) tooltip of point I of series S into B. */
typedef void (*svg_point_title)(void *ctx, size_t s, size_t i, buf *b);

typedef struct svg_chart {
    const char *id; /* element id of the <svg> */
    const char *title, *x_label, *y_label;
    int width, height;
    const svg_series *series;
    size_t nseries;
    int has_hline; /* a dashed horizontal reference line (capacity) */
    double hline;
    const char *hline_label;
    svg_point_title point_title; /* may be NULL */
    void *ctx;
    size_t max_markers; /* series longer than this get no markers (0: no limit) */
} svg_chart;

/* A line chart of every series over x = 0..n-1, y from 0 to the largest value (and the
 * reference line when it is at most 4x that). */
void svg_line_chart(buf *b, const svg_chart *c);

#endif
