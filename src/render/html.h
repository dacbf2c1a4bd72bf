/* html.h - the one-file HTML report of a profile (`profq html`, issue 14): the result structs
 * of the analyses the input feeds in, one self-contained page out (inline CSS, inline SVG,
 * a little inline JavaScript; no network; the same inputs give the same bytes). The parts
 * (html_ops.c, html_mem.c, html_trace.c, html_nsys.c, html_chart.c) share the helpers declared
 * here. Not here: any computing (src/api/html.c runs the analyses) or re-parsing of their JSON. */
#ifndef PQ_RENDER_HTML_H
#define PQ_RENDER_HTML_H
#include "core/buf.h"
#include "profq.h"
#include "render/svg.h"

#include <stddef.h>
#include <stdint.h>

/* An analysis the page shows: what the tools verdict said, and what computing it gave. */
typedef struct html_part {
    int fed;          /* the input feeds it (`profq tools`) */
    pq_status status; /* PQ_OK, or why computing it failed */
    char message[512];
} html_part;

typedef struct html_module_view {
    pq_memory_viewer_result *mv; /* NULL when computing it failed (status says why) */
    pq_status status;
    char message[512];
} html_module_view;

/* Everything the page is made of; NULL/0 where the analysis is not fed or failed. */
typedef struct html_inputs {
    const pq_profile *profile;
    const pq_html_options *opts; /* never NULL (limits filled) */
    html_part ops, memviewer, memprofile, nsys, summary;
    const pq_ops_result *ops_result;
    const struct op_profile_tree *op_tree; /* op_profile by program without IDLE; NULL: none */
    const pq_memory_result *memattr;       /* the semantic attribution (`profq memory`) */
    html_part memattr_part;
    const pq_memory_viewer_result *module_list; /* the memory viewer's module list */
    const html_module_view *modules;            /* the modules drawn, peak descending */
    size_t nmodules;
    size_t modules_dropped; /* modules of the list not drawn (over opts->max_modules) */
    const pq_memory_profile_result *memprofile_result;
    const pq_nsys_result *nsys_result;
    /* the nsys renderer's own output, made by src/api/html.c: the bus bandwidth chart (SVG,
     * profile strings escaped by its renderer), and on an archive the variability and bias
     * text (raw: escaped here) and the flame graphs (SVG); empty: none */
    buf nsys_busbw_svg, nsys_more_text, nsys_flame_svg;
    const pq_summary_result *summary_result; /* of the first trace JSON source */
    const char *summary_path;
    /* no trace summary with steps: an XPlane's well-formed steps (GPU step markers, the
     * steps of roofline_model's step rows; made by src/api/html.c), of the first XSpace
     * with steps: step numbers ascending and each step's time (ms); 0: none */
    const int64_t *xsteps;
    const double *xstep_ms;
    size_t nxsteps;
    const char *xsteps_path;
} html_inputs;

/* Writes the page into SINK. */
pq_status html_render(const html_inputs *in, pq_sink *sink, pq_error *err);

/* The comparison page (`profq html --compare`): two summaries and the hot ops matched by
 * name whose exclusive time (µs) rose (regressed, largest rise first) and fell (improved,
 * largest fall first). */
typedef struct html_op_delta {
    const char *name;
    double before, after; /* 0 where the op is not among that side's hot ops */
} html_op_delta;

typedef struct html_compare {
    const char *paths[2];
    const pq_summary_result *sum[2];
    const html_op_delta *regressed, *improved;
    size_t nregressed, nimproved;
    const pq_html_options *opts; /* never NULL (limits filled) */
} html_compare;

pq_status html_render_compare(const html_compare *c, pq_sink *sink, pq_error *err);

/* The page's head (TITLE escaped, and TITLE2 after it, as "KIND: TITLETITLE2"), the inline
 * CSS and the header's opening up to its first paragraph, left open; and the end: main
 * closed, the inline script, the page closed and flushed. */
void html_page_begin(buf *b, const char *kind, pq_str title, const char *title2);
pq_status html_page_end(buf *b, pq_error *err);

/* Shared by the parts. */
void html_text(buf *b, const char *s);           /* NUL-terminated, escaped (NULL: nothing) */
void html_str(buf *b, pq_str s);                 /* escaped */
void html_time(buf *b, double ps);               /* "12.345 ms" */
void html_bytes(buf *b, double bytes);           /* "1.500 GiB" */
void html_num(buf *b, double v);                 /* a number for a table cell, %.4g style */
void html_failed(buf *b, const html_part *part); /* the note of an analysis that failed */
/* A table head: COLS[i] names column i; NUMERIC[i] != 0: sorted as numbers, right-aligned.
 * The table gets id ID, a filter box when FILTER, and sorts on a click of a head cell. */
void html_table_begin(buf *b, const char *id, const char *const *cols, const int *numeric,
                      size_t ncols, int filter);
void html_table_end(buf *b, size_t shown, size_t total, const char *dropped_by);
/* A numeric cell: data-v holds V exactly (sorting), the cell shows TEXT (escaped). */
void html_cell_num(buf *b, double v, const char *text);
/* A numeric cell of V with DECIMALS fixed decimals ("n/a" when not finite). */
void html_cell_fixed(buf *b, double v, int decimals);
/* A cell of PS picoseconds as "12.345 ms" ("n/a" when not finite). */
void html_cell_time(buf *b, double ps);

/* html_tree.c: the op_profile tree T as nested details (at most MAX_NODES nodes). */
void html_op_tree(buf *b, const struct op_profile_tree *t, size_t max_nodes);

/* The sections. */
void html_section_ops(buf *b, const html_inputs *in);
void html_section_memory(buf *b, const html_inputs *in);
void html_section_traces(buf *b, const html_inputs *in);
void html_section_nsys(buf *b, const html_inputs *in);
void html_memattr(buf *b, const html_inputs *in); /* within the memory section */

/* html_chart.c: a log-log scatter (the roofline). Points carry a radius, one of the caller's
 * colours and a title (hover); the roof is min(roof_flops, x * roof_bw). */
typedef struct html_scatter_point {
    double x, y, r;
    int color; /* index in html_scatter.colors */
} html_scatter_point;

typedef struct html_scatter {
    const char *id, *title, *x_label, *y_label;
    int width, height;
    const html_scatter_point *pts;
    size_t npts;
    const char *const *colors, *const *color_labels;
    size_t ncolors;
    double roof_flops, roof_bw; /* y and slope of the roof; 0: not drawn */
    const char *roof_label;
    svg_point_title point_title; /* writes point I's escaped title (S is 0); may be NULL */
    void *ctx;
} html_scatter;

void html_scatter_chart(buf *b, const html_scatter *c);

/* The memory viewer's heap size over program order (MiB: BYTES + ADD), the peak marked, and
 * a hidden rectangle ID-span that the page's script moves over a clicked buffer's span.
 * More than MAX_POINTS points: per bucket its lowest and highest. Returns the points drawn. */
typedef struct html_heap_chart {
    const char *id, *title;
    const int64_t *bytes;
    size_t n;
    double add;
    size_t peak; /* index of the peak (>= n: none) */
    size_t max_points;
} html_heap_chart;

size_t html_heap_chart_draw(buf *b, const html_heap_chart *c);
/* The x coordinate of program position I on that chart. */
double html_heap_x(const html_heap_chart *c, double i);

/* Horizontal bars of VALUES (picoseconds, largest first as given): the first 15, then the
 * rest summed in one bar; each with its label (escaped, shortened; whole in the hover) and
 * its time and share of TOTAL. */
typedef struct html_bars {
    const char *id, *title;
    const double *values;
    size_t n;
    double total;
    void (*label)(void *ctx, size_t i, char *out, size_t cap); /* NUL-terminated, raw */
    void *ctx;
} html_bars;

void html_bar_chart(buf *b, const html_bars *c);

/* html_line.c: a linear line chart of points (X, Y >= 0) with X below MARK_BELOW
 * shaded as warm-up; more than MAX_POINTS points: per bucket its lowest and highest. Returns
 * the points drawn. */
typedef struct html_line {
    const char *id, *title, *x_label, *y_label;
    const int64_t *x; /* ascending */
    const double *y;
    size_t n;
    int64_t mark_below;
    size_t max_points;
} html_line;

size_t html_line_chart(buf *b, const html_line *c);

/* The points a chart draws of N values: all when N <= MAX (or MAX < 2), else per bucket the
 * lowest and highest VALUE, in order: EMIT(CTX, i, k) for the K-th point drawn. Returns the
 * number drawn. */
size_t html_minmax(size_t n, size_t max, double (*value)(void *ctx, size_t i),
                   void (*emit)(void *ctx, size_t i, size_t k), void *ctx);

#endif
