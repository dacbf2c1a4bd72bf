/* html_nsys.c - the "Nsight" section of the HTML report, from pq_nsys_result: the frames'
 * row counts, the steady module table (share, time, executions, thunks, launch wait), and
 * on an nsys-jax archive the runtime of the top modules, the collectives (bus bandwidth and
 * straggler wait) and the compile passes; the nsys renderer's bus bandwidth chart,
 * variability and bias text and flame graphs, which src/api/html.c had it write. Computes
 * nothing (analysis/nsys*.c does). */
#include "render/html.h"

#include <inttypes.h>
#include <stdio.h>

static void modules(buf *b, const pq_nsys_result *r, size_t max)
{
    static const char *const cols[] = {"Program id", "Module",         "Rows",
                                       "Total",      "Share (%)",      "Thunks mean",
                                       "Thunks std", "Launch wait (%)"};
    static const int num[] = {1, 0, 1, 1, 1, 1, 1, 1};
    buf_printf(b,
               "<h3>Modules of the steady state (%zu)</h3><p class=\"note\">The first %zu cover "
               "99%% of the time.</p>",
               r->nmodules, r->ntop);
    html_table_begin(b, "nsys-modules", cols, num, 8, r->nmodules > 20);
    size_t n = r->nmodules < max ? r->nmodules : max;
    for (size_t i = 0; i < n; i++) {
        const pq_nsys_module *m = &r->modules[i];
        char t[32];
        snprintf(t, sizeof t, "%" PRId64, m->program_id);
        buf_puts(b, "<tr>");
        html_cell_num(b, (double)m->program_id, m->program_id < 0 ? "none" : t);
        buf_puts(b, "<td class=\"w\">");
        html_text(b, m->name);
        buf_puts(b, "</td>");
        snprintf(t, sizeof t, "%" PRIu64, m->rows);
        html_cell_num(b, (double)m->rows, t);
        html_cell_time(b, m->total_ms * 1e9);
        html_cell_fixed(b, m->share * 100, 2);
        html_cell_fixed(b, m->thunks_mean, 1);
        html_cell_fixed(b, m->thunks_std, 1);
        html_cell_fixed(b, m->wait_share * 100, 2);
        buf_puts(b, "</tr>\n");
    }
    html_table_end(b, n, r->nmodules, "total time");
}

static void collectives(buf *b, const pq_nsys_result *r)
{
    static const char *const cols[] = {"Collective",         "Rows",        "Instances",
                                       "Bus BW mean (GB/s)", "median",      "max",
                                       "Wait mean",          "Wait median", "Wait max"};
    static const int num[] = {0, 1, 1, 1, 1, 1, 1, 1, 1};
    buf_printf(b, "<h3>Collectives (%zu kinds)</h3>", r->ncollectives);
    html_table_begin(b, "nsys-collectives", cols, num, 9, 0);
    for (size_t i = 0; i < r->ncollectives; i++) {
        const pq_nsys_collective *c = &r->collectives[i];
        char t[32];
        buf_puts(b, "<tr><td>");
        html_text(b, c->collective);
        buf_puts(b, "</td>");
        snprintf(t, sizeof t, "%" PRIu64, c->rows);
        html_cell_num(b, (double)c->rows, t);
        snprintf(t, sizeof t, "%" PRIu64, c->instances);
        html_cell_num(b, (double)c->instances, t);
        html_cell_fixed(b, c->busbw_mean_gbps, 2);
        html_cell_fixed(b, c->busbw_median_gbps, 2);
        html_cell_fixed(b, c->busbw_max_gbps, 2);
        html_cell_time(b, c->wait_mean_ms * 1e9);
        html_cell_time(b, c->wait_median_ms * 1e9);
        html_cell_time(b, c->wait_max_ms * 1e9);
        buf_puts(b, "</tr>\n");
    }
    html_table_end(b, r->ncollectives, r->ncollectives, "");
}

static void runtime(buf *b, const pq_nsys_result *r)
{
    static const char *const cols[] = {"Runtime of the top modules", "Time"};
    static const int num[] = {0, 1};
    const struct {
        const char *what;
        double ms;
    } rows[] = {{"thunks (definition 1)", r->thunks_ms},
                {"modules (definition 2)", r->modules_ms},
                {"wall clock (definition 3)", r->wall_ms},
                {"idle inside modules", r->idle_in_modules_ms},
                {"idle between modules", r->idle_between_modules_ms},
                {"communication hidden", r->comm_hidden_ms},
                {"communication exposed", r->comm_exposed_ms}};
    html_table_begin(b, "nsys-runtime", cols, num, 2, 0);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        buf_printf(b, "<tr><td>%s</td>", rows[i].what);
        html_cell_time(b, rows[i].ms * 1e9);
        buf_puts(b, "</tr>\n");
    }
    html_table_end(b, 7, 7, "");
}

static void compile(buf *b, const pq_nsys_result *r, size_t max)
{
    static const char *const cols[] = {"Pass", "Non-child time", "Child time", "Share (%)"};
    static const int num[] = {0, 1, 1, 1};
    buf_printf(b, "<h3>Compilation (%.3f s; the first %zu passes cover 97%%)</h3>",
               r->compile_total_s, r->ntop_passes);
    html_table_begin(b, "nsys-compile", cols, num, 4, r->npasses > 20);
    size_t n = r->npasses < max ? r->npasses : max;
    for (size_t i = 0; i < n; i++) {
        const pq_nsys_compile_pass *p = &r->passes[i];
        buf_puts(b, "<tr><td class=\"w\">");
        html_text(b, p->name);
        buf_puts(b, "</td>");
        html_cell_time(b, p->non_child_s * 1e12);
        html_cell_time(b, p->child_s * 1e12);
        html_cell_fixed(b, p->share * 100, 2);
        buf_puts(b, "</tr>\n");
    }
    html_table_end(b, n, r->npasses, "non-child time");
}

/* One of the nsys renderer's outputs (src/api/html.c made it): an SVG as it is (its
 * renderer escapes the profile's strings), text escaped in a pre. */
static void embed(buf *b, const buf *part, int svg)
{
    if (!svg)
        buf_puts(b, "<pre class=\"nsys-text\">");
    if (svg)
        buf_put(b, part->p, part->n);
    else
        html_escape(b, part->p, part->n);
    if (!svg)
        buf_puts(b, "</pre>");
    buf_putc(b, '\n');
}

void html_section_nsys(buf *b, const html_inputs *in)
{
    buf_puts(b, "<section id=\"nsys\"><h2>Nsight</h2>");
    const pq_nsys_result *r = in->nsys_result;
    if (!r) {
        html_failed(b, &in->nsys);
        buf_puts(b, "</section>\n");
        return;
    }
    buf_printf(b,
               "<p class=\"note\">%s; %zu source(s), %zu device(s). Module rows: %" PRIu64
               " all, %" PRIu64 " steady, %" PRIu64 " initialisation.</p>",
               r->xplane ? "from a JAX XPlane GPU profile (every execution steady)"
                         : "from an nsys-jax archive",
               r->sources, r->devices, r->frames[PQ_NSYS_ALL].module_rows,
               r->frames[PQ_NSYS_STEADY].module_rows, r->frames[PQ_NSYS_INIT].module_rows);
    size_t max = (size_t)in->opts->max_rows;
    modules(b, r, max);
    if (r->has_runtime)
        runtime(b, r);
    if (r->ncollectives)
        collectives(b, r);
    if (in->nsys_busbw_svg.n) {
        buf_puts(b, "<h3>Bus bandwidth vs message size</h3><p class=\"note\">Steady "
                    "collectives, the largest over devices; the wait columns of the table "
                    "above are the straggler wait (launch to start of the last device).</p>"
                    "<div class=\"embed\" id=\"nsys-busbw-box\">");
        embed(b, &in->nsys_busbw_svg, 1);
        buf_puts(b, "</div>");
    }
    if (r->has_compile)
        compile(b, r, max);
    if (in->nsys_more_text.n) {
        buf_puts(b, "<h3>Variability and per-device bias</h3>");
        embed(b, &in->nsys_more_text, 0);
    }
    if (in->nsys_flame_svg.n) {
        buf_puts(b, "<h3>Flame graphs</h3><p class=\"note\">Steady thunk time by source "
                    "line and by op_name (hover a frame for its time).</p>"
                    "<div class=\"embed\" id=\"nsys-flame-box\">");
        embed(b, &in->nsys_flame_svg, 1);
        buf_puts(b, "</div>");
    }
    buf_puts(b, "</section>\n");
}
