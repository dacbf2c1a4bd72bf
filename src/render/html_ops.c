/* html_ops.c - "Where time goes" of the HTML report, from pq_ops_result: cards with the
 * device and its peaks, the op table with XProf's hlo_stats columns (sortable, filterable;
 * the first max_rows rows by self time), the programs, and the roofline chart (log-log,
 * ridge point, one point per op sized by its self time and coloured by what bounds it, plus
 * the whole-window and active-window points of the program total). Not here: any figure
 * (analysis/ops_*.c computes them all). */
#include "render/html.h"
#include "render/text.h"
#include "core/alloc.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static double pct(double part, double whole)
{
    return whole > 0 ? part / whole * 100 : 0;
}

static void cell_text(buf *b, pq_str s)
{
    buf_puts(b, "<td class=\"w\">");
    html_str(b, s);
    buf_puts(b, "</td>");
}

/* One op row in XProf's hlo_stats column order. */
static void op_row(buf *b, const pq_ops_result *r, const pq_op_row *o, size_t rank, double *cum)
{
    double total = (double)r->total_time_ps;
    *cum += (double)o->self_time_ps;
    buf_printf(b, "<tr%s><td class=\"n\" data-v=\"%zu\">%zu</td>",
               o->is_idle ? " class=\"idle\"" : "", rank, rank);
    if (o->is_idle)
        buf_puts(b, "<td class=\"n\" data-v=\"\"></td>");
    else
        buf_printf(b, "<td class=\"n\" data-v=\"%" PRIu64 "\">%" PRIu64 "</td>", o->program_id,
                   o->program_id);
    cell_text(b, o->category);
    cell_text(b, o->name);
    cell_text(b, o->provenance);
    char t[32];
    snprintf(t, sizeof t, "%" PRId64, o->occurrences);
    html_cell_num(b, (double)o->occurrences, t);
    double occ = o->occurrences > 0 ? (double)o->occurrences : 1;
    html_cell_time(b, (double)o->time_ps);
    html_cell_time(b, (double)o->time_ps / occ);
    html_cell_time(b, (double)o->self_time_ps);
    html_cell_time(b, (double)o->self_time_ps / occ);
    html_cell_fixed(b, pct((double)o->self_time_ps, total), 2);
    html_cell_fixed(b, pct(*cum, total), 2);
    html_cell_fixed(b, pct((double)o->dma_stall_ps, (double)o->time_ps), 2);
    const pq_op_rates *q = &o->rates;
    double nan = NAN;
    int ok = !o->is_idle && !q->not_meaningful;
    html_cell_fixed(b, ok ? q->flop_rate_gflops : nan, 3);
    html_cell_fixed(b, ok ? q->mem_bw_gibps : nan, 3);
    html_cell_fixed(b, ok ? q->hbm_bw_gibps : nan, 3);
    html_cell_fixed(b, ok && o->bytes_accessed > 0 ? q->oi : nan, 3);
    buf_puts(b, "<td>");
    html_text(b, ok ? q->bound_by : q->not_meaningful ? "n/a" : "");
    buf_puts(b, "</td>");
    cell_text(b, o->source);
    buf_puts(b, "</tr>\n");
}

static void op_table(buf *b, const pq_ops_result *r, size_t max_rows)
{
    static const char *const cols[] = {"Rank",
                                       "Program id",
                                       "HLO op category",
                                       "HLO op name",
                                       "Framework op name",
                                       "#Occurrences",
                                       "Total time",
                                       "Avg. time",
                                       "Total self time",
                                       "Avg. self time",
                                       "Total self time (%)",
                                       "Cumulative total-self time (%)",
                                       "DMA stall (%)",
                                       "Measured FLOP rate (GFLOP/s)",
                                       "Measured memory BW (GiB/s)",
                                       "HBM BW (GiB/s)",
                                       "Operational intensity (FLOP/byte)",
                                       "Bound by",
                                       "Source"};
    static const int num[] = {1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0};
    buf_printf(b,
               "<h3>Ops (<span id=\"ops-table-shown\">%zu</span> shown of %zu)</h3><p "
               "class=\"note\">XProf's hlo_stats columns; times summed over the devices. Click a "
               "column head to sort.</p>",
               r->nops < max_rows ? r->nops : max_rows, r->nops);
    html_table_begin(b, "ops-table", cols, num, sizeof cols / sizeof cols[0], 1);
    double cum = 0;
    size_t shown = 0;
    for (size_t i = 0; i < r->nops && shown < max_rows; i++, shown++)
        op_row(b, r, &r->ops[i], i + 1, &cum);
    html_table_end(b, shown, r->nops, "self time");
}

static void program_table(buf *b, const pq_ops_result *r, size_t max_rows)
{
    static const char *const cols[] = {
        "Program id",   "Module",           "Executions",       "Module time",
        "Op self time", "GFLOP/s (active)", "GFLOP/s (window)", "HBM GiB/s (active)"};
    static const int num[] = {1, 0, 1, 1, 1, 1, 1, 1};
    buf_printf(b, "<h3>Programs (%zu)</h3>", r->nprograms);
    html_table_begin(b, "programs-table", cols, num, sizeof cols / sizeof cols[0],
                     r->nprograms > 20);
    size_t shown = 0;
    for (size_t i = 0; i < r->nprograms && shown < max_rows; i++, shown++) {
        const pq_ops_program *p = &r->programs[i];
        buf_printf(b, "<tr><td class=\"n\" data-v=\"%" PRIu64 "\">%" PRIu64 "</td>", p->program_id,
                   p->program_id);
        cell_text(b, p->name);
        char t[32];
        snprintf(t, sizeof t, "%" PRId64, p->executions);
        html_cell_num(b, (double)p->executions, t);
        html_cell_time(b, (double)p->module_ps);
        html_cell_time(b, (double)p->op_self_ps);
        html_cell_fixed(b, p->active_gflops, 3);
        html_cell_fixed(b, p->whole_gflops, 3);
        html_cell_fixed(b, p->active_hbm_gibps, 3);
        buf_puts(b, "</tr>\n");
    }
    html_table_end(b, shown, r->nprograms, "op self time");
}

/* The roofline chart's points: the first max_points ops that have a FLOP rate and an
 * intensity, then the program total over the active and the whole window. */
typedef struct roof_ctx {
    const pq_ops_result *r;
    const pq_op_row **rows; /* per point: the op, NULL for the two total points */
    size_t nops_pts;
} roof_ctx;

static const char *const COLORS[] = {"#2e86de", "#e67e22", "#8e44ad", "#7f8c8d", "#c0392b"};
static const char *const COLOR_LABELS[] = {"Compute", "HBM", "other memory", "Unknown",
                                           "program total"};

static int bound_color(const char *bound_by)
{
    if (!bound_by || strcmp(bound_by, "Unknown") == 0)
        return 3;
    if (strcmp(bound_by, "Compute") == 0)
        return 0;
    return strcmp(bound_by, "HBM") == 0 ? 1 : 2;
}

static void roof_title(void *ctx, size_t s, size_t i, buf *b)
{
    (void)s;
    const roof_ctx *c = ctx;
    if (i >= c->nops_pts) {
        const pq_ops_roofline *t = &c->r->roofline;
        buf_puts(b, i == c->nops_pts ? "program total over the active window: "
                                     : "program total over the whole window: ");
        html_num(b, i == c->nops_pts ? t->active_gflops : t->total.rates.flop_rate_gflops);
        buf_puts(b, " GFLOP/s at ");
        html_num(b, t->total.rates.oi);
        buf_puts(b, " FLOP/byte");
        return;
    }
    const pq_op_row *o = c->rows[i];
    html_str(b, o->name);
    buf_puts(b, " (");
    html_str(b, o->category);
    buf_puts(b, "): ");
    html_num(b, o->rates.flop_rate_gflops);
    buf_puts(b, " GFLOP/s, ");
    html_num(b, o->rates.oi);
    buf_puts(b, " FLOP/byte, self time ");
    html_time(b, (double)o->self_time_ps);
    buf_puts(b, ", bound by ");
    html_text(b, o->rates.bound_by);
}

static void roofline(buf *b, const pq_ops_result *r, size_t max_points)
{
    html_scatter_point *pts = pq_calloc(max_points + 2, sizeof *pts);
    const pq_op_row **rows = pq_calloc(max_points + 2, sizeof *rows);
    if (!pts || !rows) {
        pq_free(pts);
        pq_free(rows);
        buf_puts(b, "<p class=\"err\">The roofline chart: out of memory.</p>");
        return;
    }
    size_t n = 0, eligible = 0;
    double total = r->total_op_time_ps > 0 ? (double)r->total_op_time_ps : 1;
    for (size_t i = 0; i < r->nops; i++) {
        const pq_op_row *o = &r->ops[i];
        if (o->is_idle || o->rates.not_meaningful || !(o->flops > 0) || !(o->bytes_accessed > 0) ||
            !(o->rates.flop_rate_gflops > 0))
            continue;
        eligible++;
        if (n == max_points)
            continue;
        rows[n] = o;
        pts[n] = (html_scatter_point){o->rates.oi, o->rates.flop_rate_gflops,
                                      2 + 10 * sqrt((double)o->self_time_ps / total),
                                      bound_color(o->rates.bound_by)};
        n++;
    }
    size_t nops_pts = n;
    const pq_ops_roofline *t = &r->roofline;
    if (t->total.rates.oi > 0) {
        pts[n++] = (html_scatter_point){t->total.rates.oi, t->active_gflops, 7, 4};
        pts[n++] = (html_scatter_point){t->total.rates.oi, t->total.rates.flop_rate_gflops, 7, 4};
    }
    roof_ctx ctx = {r, rows, nops_pts};
    char label[96];
    snprintf(label, sizeof label, "peak %.0f GFLOP/s, HBM %.0f GB/s", r->peaks.tflops * 1000,
             r->peaks.bws[0]);
    html_scatter c = {.id = "roofline",
                      .title = "Roofline: measured FLOP rate vs operational intensity",
                      .x_label = "operational intensity (FLOP/byte)",
                      .y_label = "GFLOP/s",
                      .pts = pts,
                      .npts = n,
                      .colors = COLORS,
                      .color_labels = COLOR_LABELS,
                      .ncolors = 5,
                      .roof_flops = r->peaks.tflops * 1000,
                      .roof_bw = r->peaks.bws[0],
                      .roof_label = label,
                      .point_title = roof_title,
                      .ctx = &ctx};
    buf_puts(b, "<h3>Roofline</h3>");
    if (!(r->peaks.tflops > 0 && r->peaks.bws[0] > 0))
        buf_puts(b, "<p class=\"note\">The input states no FLOP or HBM peak of the device: no "
                    "roof is drawn (profq roofline --peak-flops/--peak-bw supply them).</p>");
    if (!eligible)
        buf_puts(b, "<p class=\"note\">No op states both FLOPs and bytes accessed: the chart "
                    "has no op points.</p>");
    html_scatter_chart(b, &c);
    if (eligible > nops_pts)
        buf_printf(b,
                   "<p class=\"note dropped\">%zu of %zu ops with a FLOP rate drawn; the %zu "
                   "with less self time are left out.</p>",
                   nops_pts, eligible, eligible - nops_pts);
    pq_free(pts);
    pq_free(rows);
}

static void category_label(void *ctx, size_t i, char *out, size_t cap)
{
    pq_str c = ((const pq_ops_result *)ctx)->groups[i].category;
    snprintf(out, cap, "%.*s", (int)(c.n < cap ? c.n : cap), c.p ? c.p : "");
}

/* "name(id)" when another program has the same name, else the name. */
static void program_label(void *ctx, size_t i, char *out, size_t cap)
{
    const pq_ops_program *p = &((const pq_ops_result *)ctx)->programs[i];
    int n = p->name.n < cap ? (int)p->name.n : (int)cap;
    if (!p->name.n)
        snprintf(out, cap, "(%" PRIu64 ")", p->program_id);
    else if (p->name_shared)
        snprintf(out, cap, "%.*s(%" PRIu64 ")", n, p->name.p, p->program_id);
    else
        snprintf(out, cap, "%.*s", n, p->name.p);
}

/* Op self time by category and by program (bars). */
static void breakdowns(buf *b, const pq_ops_result *r)
{
    size_t n = r->ngroups > r->nprograms ? r->ngroups : r->nprograms;
    double *v = pq_malloc_array(n ? n : 1, sizeof *v);
    if (!v) {
        buf_puts(b, "<p class=\"err\">The breakdowns: out of memory.</p>");
        return;
    }
    double total = (double)r->total_op_time_ps;
    if (r->by == PQ_OPS_BY_CATEGORY && r->ngroups) {
        for (size_t i = 0; i < r->ngroups; i++)
            v[i] = (double)r->groups[i].self_time_ps;
        html_bars c = {
            "by-category", "Op self time by category", v, r->ngroups, total, category_label,
            (void *)r};
        html_bar_chart(b, &c);
    }
    if (r->nprograms) {
        for (size_t i = 0; i < r->nprograms; i++)
            v[i] = (double)r->programs[i].op_self_ps;
        html_bars c = {
            "by-program", "Op self time by program", v, r->nprograms, total, program_label,
            (void *)r};
        html_bar_chart(b, &c);
    }
    pq_free(v);
}

void html_section_ops(buf *b, const html_inputs *in)
{
    buf_puts(b, "<section id=\"ops\"><h2>Where time goes</h2>");
    const pq_ops_result *r = in->ops_result;
    if (!r) {
        html_failed(b, &in->ops);
        buf_puts(b, "</section>\n");
        return;
    }
    buf_puts(b, "<p>");
    html_text(b, r->gpu_model[0] ? r->gpu_model : r->device_type);
    buf_printf(b, ": %u device plane(s) with ops; total op time ", r->ndevices);
    html_time(b, (double)r->total_op_time_ps);
    buf_puts(b, ", idle ");
    html_time(b, (double)r->idle_ps);
    buf_puts(b, ".</p>");
    breakdowns(b, r);
    html_op_tree(b, in->op_tree, (size_t)in->opts->max_rows);
    roofline(b, r, (size_t)in->opts->max_points);
    op_table(b, r, (size_t)in->opts->max_rows);
    program_table(b, r, (size_t)in->opts->max_rows);
    buf_puts(b, "</section>\n");
}
