/* html_compare.c - the comparison page of `profq html --compare BEFORE AFTER`: the two
 * profile_summary.v1 results side by side (step time over steps of each, the steady median
 * and p90 with their change, the time breakdown shares with their change) and the hot ops
 * whose exclusive time regressed and improved most (the pairs src/api/html.c matched by
 * name). Every string from the profiles is escaped. Computes nothing. */
#include "render/html.h"

#include "core/alloc.h"
#include "render/text.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const CATS[PQ_SM_NCATEGORIES] = {"compute", "communication", "host", "stall",
                                                    "other"};

static void delta_cell(buf *b, double before, double after)
{
    double pct = before > 0 && isfinite(after) ? (after - before) / before * 100 : NAN;
    char t[40];
    snprintf(t, sizeof t, "%+.2f%%", pct);
    html_cell_num(b, pct, isfinite(pct) ? t : "n/a");
}

/* The steps of one side as a line chart (ms), or a note when it has none. */
static void step_chart(buf *b, const pq_summary_result *r, const char *id, const char *title,
                       size_t max_points)
{
    const pq_sm_step_time *st = &r->step_time;
    buf_puts(b, "<div class=\"side\">");
    if (!st->nsteps) {
        buf_puts(b, "<p class=\"note\">");
        html_text(b, title);
        buf_puts(b, ": the profile marks no steps.</p></div>");
        return;
    }
    double *ms = pq_malloc_array(st->nsteps, sizeof *ms);
    if (!ms) {
        b->status = b->status == PQ_OK ? PQ_ERR_NOMEM : b->status;
        buf_puts(b, "</div>");
        return;
    }
    for (size_t i = 0; i < st->nsteps; i++)
        ms[i] = st->step_durations[i] / 1e3;
    html_line lc = {
        id,        title, "step", "ms", st->step_numbers, ms, st->nsteps, st->warmup_steps_ignored,
        max_points};
    html_line_chart(b, &lc);
    pq_free(ms);
    buf_puts(b, "</div>");
}

static void steps(buf *b, const html_compare *c)
{
    buf_puts(b, "<section id=\"cmp-steps\"><h2>Step time</h2><div class=\"sides\">");
    step_chart(b, c->sum[0], "step-time-before", "Before: step time over steps",
               (size_t)c->opts->max_points);
    step_chart(b, c->sum[1], "step-time-after", "After: step time over steps",
               (size_t)c->opts->max_points);
    buf_puts(b, "</div>");
    static const char *const cols[] = {"Steady-state steps", "Before", "After", "Change"};
    static const int num[] = {0, 1, 1, 1};
    html_table_begin(b, "cmp-steps-table", cols, num, 4, 0);
    const pq_sm_duration_stats *s0 = &c->sum[0]->step_time.steady_state_steps,
                               *s1 = &c->sum[1]->step_time.steady_state_steps;
    const char *names[] = {"count", "median", "p90", "mean", "max"};
    double v0[] = {(double)s0->count, s0->median, s0->p90, s0->mean, s0->max};
    double v1[] = {(double)s1->count, s1->median, s1->p90, s1->mean, s1->max};
    for (int i = 0; i < 5; i++) {
        buf_printf(b, "<tr><td>%s</td>", names[i]);
        if (i == 0) {
            char t[32];
            snprintf(t, sizeof t, "%.0f", v0[i]);
            html_cell_num(b, v0[i], t);
            snprintf(t, sizeof t, "%.0f", v1[i]);
            html_cell_num(b, v1[i], t);
        } else {
            html_cell_time(b, v0[i] * 1e6); /* the summary's µs */
            html_cell_time(b, v1[i] * 1e6);
        }
        delta_cell(b, v0[i], v1[i]);
        buf_puts(b, "</tr>\n");
    }
    html_table_end(b, 5, 5, "");
    buf_puts(b, "</section>\n");
}

static void shares(buf *b, const html_compare *c)
{
    buf_puts(b, "<section id=\"cmp-shares\"><h2>Where time goes: shares</h2>");
    static const char *const cols[] = {"Category", "Before", "After", "Change (points)"};
    static const int num[] = {0, 1, 1, 1};
    html_table_begin(b, "cmp-shares-table", cols, num, 4, 0);
    for (int k = 0; k < PQ_SM_NCATEGORIES; k++) {
        double s0 = c->sum[0]->time_breakdown.category_share[k],
               s1 = c->sum[1]->time_breakdown.category_share[k];
        buf_printf(b, "<tr><td>%s</td>", CATS[k]);
        html_cell_fixed(b, s0 * 100, 2);
        html_cell_fixed(b, s1 * 100, 2);
        html_cell_fixed(b, (s1 - s0) * 100, 2);
        buf_puts(b, "</tr>\n");
    }
    html_table_end(b, PQ_SM_NCATEGORIES, PQ_SM_NCATEGORIES, "");
    buf_puts(b, "<p class=\"note\">Shares of each profile's total duration (");
    html_time(b, c->sum[0]->time_breakdown.total_duration * 1e6);
    buf_puts(b, " before, ");
    html_time(b, c->sum[1]->time_breakdown.total_duration * 1e6);
    buf_puts(b, " after), in percent.</p></section>\n");
}

static void op_table(buf *b, const char *id, const html_op_delta *d, size_t n, size_t max)
{
    static const char *const cols[] = {"Op", "Before", "After", "Change", "Change (%)"};
    static const int num[] = {0, 1, 1, 1, 1};
    html_table_begin(b, id, cols, num, 5, n > 20);
    size_t shown = 0;
    for (size_t i = 0; i < n && shown < max; i++, shown++) {
        buf_puts(b, "<tr><td class=\"w\">");
        html_text(b, d[i].name);
        buf_puts(b, "</td>");
        html_cell_time(b, d[i].before * 1e6);
        html_cell_time(b, d[i].after * 1e6);
        html_cell_time(b, (d[i].after - d[i].before) * 1e6);
        delta_cell(b, d[i].before, d[i].after);
        buf_puts(b, "</tr>\n");
    }
    html_table_end(b, shown, n, "change");
}

static void ops(buf *b, const html_compare *c)
{
    buf_puts(b, "<section id=\"cmp-ops\"><h2>Regressed and improved ops</h2><p "
                "class=\"note\">The hot ops of either profile (exclusive time, matched by "
                "name; an op missing on one side counts 0 there).</p><div class=\"sides\">"
                "<div class=\"side\"><h3>Regressed</h3>");
    op_table(b, "cmp-regressed", c->regressed, c->nregressed, (size_t)c->opts->max_rows);
    buf_puts(b, "</div><div class=\"side\"><h3>Improved</h3>");
    op_table(b, "cmp-improved", c->improved, c->nimproved, (size_t)c->opts->max_rows);
    buf_puts(b, "</div></div></section>\n");
}

pq_status html_render_compare(const html_compare *c, pq_sink *sink, pq_error *err)
{
    buf b;
    buf_init(&b, sink);
    char title2[1100];
    snprintf(title2, sizeof title2, " vs %s", c->paths[1]);
    html_page_begin(&b, "profq comparison", (pq_str){c->paths[0], strlen(c->paths[0])}, title2);
    buf_puts(&b, "Before: <code>");
    html_text(&b, c->paths[0]);
    buf_puts(&b, "</code>, after: <code>");
    html_text(&b, c->paths[1]);
    buf_printf(&b,
               "</code>. Written by profq %s.</p><nav><a href=\"#cmp-steps\">Step time</a><a "
               "href=\"#cmp-shares\">Shares</a><a href=\"#cmp-ops\">Ops</a></nav></header>\n"
               "<main>\n",
               PQ_VERSION_STRING);
    steps(&b, c);
    shares(&b, c);
    ops(&b, c);
    return html_page_end(&b, err);
}
