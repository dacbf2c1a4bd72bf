/* html_trace.c - the "Traces" section of the HTML report, from pq_summary_result (the
 * profile_summary.v1 of a trace JSON source): step time, the time breakdown by category (a
 * stacked bar and its table), hot ops, semantic families, collectives, gaps before ops and
 * the hierarchical regions. Times are the summary's, in the trace's units (µs). Computes
 * nothing (analysis/summary*.c does). */
#include "render/html.h"
#include "render/text.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static void count_cell(buf *b, uint64_t n)
{
    char t[32];
    snprintf(t, sizeof t, "%" PRIu64, n);
    html_cell_num(b, (double)n, t);
}

static void text_cell(buf *b, const char *s)
{
    buf_puts(b, "<td class=\"w\">");
    html_text(b, s);
    buf_puts(b, "</td>");
}

static void share_cell(buf *b, double share)
{
    char t[32];
    snprintf(t, sizeof t, "%.2f%%", share * 100);
    html_cell_num(b, isfinite(share) ? share * 100 : NAN, isfinite(share) ? t : "n/a");
}

static const char *const CAT_NAMES[PQ_SM_NCATEGORIES] = {"compute", "communication", "host",
                                                         "stall", "other"};
static const char *const CAT_COLORS[PQ_SM_NCATEGORIES] = {"#2e86de", "#e67e22", "#27ae60",
                                                          "#c0392b", "#95a5a6"};

static void breakdown(buf *b, const pq_sm_breakdown *d)
{
    buf_puts(b, "<h3>Time breakdown</h3><svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" "
                "id=\"breakdown\" viewBox=\"0 0 900 60\" width=\"900\" height=\"60\" role=\"img\">"
                "<title>Time by category</title>");
    double x = 10, w = 880;
    for (int c = 0; c < PQ_SM_NCATEGORIES; c++) {
        double share = isfinite(d->category_share[c]) ? d->category_share[c] : 0;
        if (share <= 0)
            continue;
        buf_puts(b, "<rect class=\"cat\" x=\"");
        fmt_fixed(b, x, 1);
        buf_puts(b, "\" y=\"8\" width=\"");
        fmt_fixed(b, share * w, 1);
        buf_printf(b, "\" height=\"24\" fill=\"%s\"><title>%s ", CAT_COLORS[c], CAT_NAMES[c]);
        fmt_fixed(b, share * 100, 2);
        buf_puts(b, "%</title></rect>");
        x += share * w;
    }
    double lx = 10;
    for (int c = 0; c < PQ_SM_NCATEGORIES; c++) {
        buf_printf(b,
                   "<rect x=\"%.1f\" y=\"40\" width=\"10\" height=\"10\" fill=\"%s\"/><text "
                   "class=\"lg\" x=\"%.1f\" y=\"49\">%s</text>",
                   lx, CAT_COLORS[c], lx + 14, CAT_NAMES[c]);
        lx += 30 + 7.0 * (double)strlen(CAT_NAMES[c]);
    }
    buf_puts(b, "</svg>");
    static const char *const cols[] = {"Category", "Time", "Share"};
    static const int num[] = {0, 1, 1};
    html_table_begin(b, "breakdown-table", cols, num, 3, 0);
    for (int c = 0; c < PQ_SM_NCATEGORIES; c++) {
        buf_printf(b, "<tr><td>%s</td>", CAT_NAMES[c]);
        html_cell_time(b, d->category_total[c] * 1e6);
        share_cell(b, d->category_share[c]);
        buf_puts(b, "</tr>\n");
    }
    html_table_end(b, PQ_SM_NCATEGORIES, PQ_SM_NCATEGORIES, "");
    buf_puts(b, "<p class=\"note\">Basis: ");
    html_text(b, d->duration_basis);
    buf_puts(b, "; total ");
    html_time(b, d->total_duration * 1e6);
    buf_puts(b, ".</p>");
}

static void steps(buf *b, const pq_sm_step_time *s)
{
    buf_puts(b, "<h3>Step time</h3>");
    if (!s->all_steps.count) {
        buf_puts(b, "<p class=\"note\">The trace marks no steps.</p>");
        return;
    }
    static const char *const cols[] = {"Steps", "Count", "Mean", "Median", "p90", "Min", "Max"};
    static const int num[] = {0, 1, 1, 1, 1, 1, 1};
    html_table_begin(b, "steps-table", cols, num, 7, 0);
    const pq_sm_duration_stats *st[2] = {&s->all_steps, &s->steady_state_steps};
    for (int i = 0; i < 2; i++) {
        buf_printf(b, "<tr><td>%s</td>", i ? "steady state" : "all");
        count_cell(b, st[i]->count);
        html_cell_time(b, st[i]->mean * 1e6);
        html_cell_time(b, st[i]->median * 1e6);
        html_cell_time(b, st[i]->p90 * 1e6);
        html_cell_time(b, st[i]->min * 1e6);
        html_cell_time(b, st[i]->max * 1e6);
        buf_puts(b, "</tr>\n");
    }
    html_table_end(b, 2, 2, "");
    buf_printf(b, "<p class=\"note\">%" PRId64 " warm-up step(s) left out of the steady state.</p>",
               s->warmup_steps_ignored);
}

static void hot_ops(buf *b, const pq_summary_result *r, size_t max)
{
    static const char *const cols[] = {"Op",        "Category", "Count", "Total",
                                       "Exclusive", "Average",  "Shape", "Source"};
    static const int num[] = {0, 0, 1, 1, 1, 1, 0, 0};
    buf_printf(b, "<h3>Hot ops (%zu)</h3>", r->nhot_ops);
    html_table_begin(b, "hot-ops", cols, num, 8, r->nhot_ops > 10);
    size_t n = r->nhot_ops < max ? r->nhot_ops : max;
    for (size_t i = 0; i < n; i++) {
        const pq_sm_hot_op *o = &r->hot_ops[i];
        buf_puts(b, "<tr>");
        text_cell(b, o->name);
        text_cell(b, o->category);
        count_cell(b, o->count);
        html_cell_time(b, o->total_duration * 1e6);
        html_cell_time(b, o->exclusive_duration * 1e6);
        html_cell_time(b, o->avg_duration * 1e6);
        text_cell(b, o->shape_signature);
        text_cell(b, o->source_file);
        buf_puts(b, "</tr>\n");
    }
    html_table_end(b, n, r->nhot_ops, "exclusive time");
}

static void families(buf *b, const pq_summary_result *r, size_t max)
{
    static const char *const cols[] = {"Family",    "Count", "Total",
                                       "Exclusive", "Share", "Example op"};
    static const int num[] = {0, 1, 1, 1, 1, 0};
    buf_printf(b, "<h3>Op families (%zu)</h3>", r->nsemantic_families);
    html_table_begin(b, "families", cols, num, 6, 0);
    size_t n = r->nsemantic_families < max ? r->nsemantic_families : max;
    for (size_t i = 0; i < n; i++) {
        const pq_sm_family *f = &r->semantic_families[i];
        buf_puts(b, "<tr>");
        text_cell(b, f->family);
        count_cell(b, f->count);
        html_cell_time(b, f->total_duration * 1e6);
        html_cell_time(b, f->exclusive_duration * 1e6);
        share_cell(b, f->share_of_total);
        text_cell(b, f->example_op);
        buf_puts(b, "</tr>\n");
    }
    html_table_end(b, n, r->nsemantic_families, "share");
}

static void collectives_gaps(buf *b, const pq_summary_result *r, size_t max)
{
    static const char *const ccols[] = {"Collective", "Count", "Total", "Average"};
    static const int cnum[] = {0, 1, 1, 1};
    buf_printf(b, "<h3>Collectives (%zu)</h3>", r->ncommunication_ops);
    html_table_begin(b, "collectives", ccols, cnum, 4, 0);
    size_t n = r->ncommunication_ops < max ? r->ncommunication_ops : max;
    for (size_t i = 0; i < n; i++) {
        const pq_sm_collective *c = &r->communication_ops[i];
        buf_puts(b, "<tr>");
        text_cell(b, c->collective);
        count_cell(b, c->count);
        html_cell_time(b, c->total_duration * 1e6);
        html_cell_time(b, c->avg_duration * 1e6);
        buf_puts(b, "</tr>\n");
    }
    html_table_end(b, n, r->ncommunication_ops, "total time");
    static const char *const gcols[] = {"Op",      "Gaps",        "Total gap",
                                        "Max gap", "Average gap", "Marker op"};
    static const int gnum[] = {0, 1, 1, 1, 1, 0};
    buf_printf(b, "<h3>Gaps before ops (%zu)</h3>", r->ngap_before_ops);
    html_table_begin(b, "gaps", gcols, gnum, 6, r->ngap_before_ops > 10);
    n = r->ngap_before_ops < max ? r->ngap_before_ops : max;
    for (size_t i = 0; i < n; i++) {
        const pq_sm_gap *g = &r->gap_before_ops[i];
        buf_puts(b, "<tr>");
        text_cell(b, g->name);
        count_cell(b, g->count);
        html_cell_time(b, g->total_gap_duration * 1e6);
        html_cell_time(b, g->max_gap_duration * 1e6);
        html_cell_time(b, g->avg_gap_duration * 1e6);
        text_cell(b, g->marker_op);
        buf_puts(b, "</tr>\n");
    }
    html_table_end(b, n, r->ngap_before_ops, "total gap");
}

static void regions(buf *b, const pq_summary_result *r, size_t max)
{
    static const char *const cols[] = {"Region", "Depth", "Count", "Inclusive", "Exclusive"};
    static const int num[] = {0, 1, 1, 1, 1};
    buf_printf(b, "<h3>Regions (%zu)</h3>", r->nhierarchical_regions);
    html_table_begin(b, "regions", cols, num, 5, r->nhierarchical_regions > 10);
    size_t n = r->nhierarchical_regions < max ? r->nhierarchical_regions : max;
    for (size_t i = 0; i < n; i++) {
        const pq_sm_region *g = &r->hierarchical_regions[i];
        buf_puts(b, "<tr>");
        text_cell(b, g->path);
        char t[32];
        snprintf(t, sizeof t, "%" PRId64, g->depth);
        html_cell_num(b, (double)g->depth, t);
        count_cell(b, g->count);
        html_cell_time(b, g->inclusive_duration * 1e6);
        html_cell_time(b, g->exclusive_duration * 1e6);
        buf_puts(b, "</tr>\n");
    }
    html_table_end(b, n, r->nhierarchical_regions, "the summary's order");
}

void html_section_traces(buf *b, const html_inputs *in)
{
    buf_puts(b, "<section id=\"traces\"><h2>Traces</h2>");
    const pq_summary_result *r = in->summary_result;
    if (!r) {
        html_failed(b, &in->summary);
        buf_puts(b, "</section>\n");
        return;
    }
    buf_puts(b, "<p class=\"note\">profile_summary.v1 of ");
    html_text(b, in->summary_path);
    buf_printf(b, " (%" PRIu64 " events, %" PRIu64 " tracks).</p>",
               r->trace_overview.num_events_total, r->trace_overview.num_threads);
    for (size_t i = 0; i < r->trace_overview.nquality_warnings; i++) {
        buf_puts(b, "<p class=\"warn\">");
        html_text(b, r->trace_overview.quality_warnings[i]);
        buf_puts(b, "</p>");
    }
    size_t max = (size_t)in->opts->max_rows;
    breakdown(b, &r->time_breakdown);
    steps(b, &r->step_time);
    hot_ops(b, r, max);
    families(b, r, max);
    collectives_gaps(b, r, max);
    regions(b, r, max);
    buf_puts(b, "</section>\n");
}
