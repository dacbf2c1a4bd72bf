/* html_memattr.c - the semantic memory attribution of the HTML report (`profq memory`,
 * pq_memory_result): per device the peak of the module it ran split into the buckets (KV
 * cache, model parameters, gradients, temporaries, ...) as one stacked bar each, and the
 * table of the same bytes with the three checks. Formats only: the buckets and their bytes
 * are the analysis's (analysis/memattr.c). */
#include "render/html.h"
#include "render/svg.h"
#include "render/text.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *const BUCKET_COLORS[] = {"#8e44ad", "#2e86de", "#16a085", "#27ae60",
                                            "#e67e22", "#f1c40f", "#c0392b", "#95a5a6"};

static const char *bucket_color(int k)
{
    return BUCKET_COLORS[(size_t)k % (sizeof BUCKET_COLORS / sizeof BUCKET_COLORS[0])];
}

/* One stacked bar per device that ran something, the buckets in the result's order. */
static void stacked(buf *b, const pq_memory_result *r, size_t max_rows)
{
    int64_t max = 0;
    size_t rows = 0;
    for (int i = 0; i < r->nrows && rows < max_rows; i++)
        if (!r->rows[i].ran_nothing) {
            rows++;
            max = r->rows[i].peak_bytes > max ? r->rows[i].peak_bytes : max;
        }
    double W = 900, L = 220, R = 20, rowh = 22, lines = 1, lx = L;
    for (int k = 0; k < r->nbuckets; k++) { /* the legend's lines */
        double w = 20 + 6.5 * (double)strlen(r->bucket_names[k]);
        if (lx + w > W && lx > L) {
            lines++;
            lx = L;
        }
        lx += w;
    }
    double T = 30 + 14 * lines, H = T + rowh * (double)rows + 8, ly = 24;
    buf_printf(b,
               "<svg class=\"chart bars\" xmlns=\"http://www.w3.org/2000/svg\" id=\"memattr-bars\" "
               "viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" role=\"img\"><title>Peak "
               "memory by bucket per device</title><text class=\"ct\" x=\"4\" y=\"16\">Peak "
               "memory by bucket per device</text>",
               W, H, W, H);
    lx = L;
    for (int k = 0; k < r->nbuckets; k++) { /* the legend */
        double w = 20 + 6.5 * (double)strlen(r->bucket_names[k]);
        if (lx + w > W && lx > L) {
            ly += 14;
            lx = L;
        }
        buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/>", lx,
                   ly, bucket_color(k));
        buf_printf(b, "<text class=\"lg\" x=\"%.1f\" y=\"%.1f\">", lx + 13, ly + 9);
        html_text(b, r->bucket_names[k]);
        buf_puts(b, "</text>");
        lx += w;
    }
    size_t row = 0;
    for (int i = 0; i < r->nrows && row < rows; i++) {
        const pq_memory_row *m = &r->rows[i];
        if (m->ran_nothing)
            continue;
        double y = T + rowh * (double)row++, x = L;
        buf_printf(b, "<text class=\"yt\" x=\"%.1f\" y=\"%.1f\">", L - 6, y + 14);
        html_text(b, m->device);
        buf_puts(b, "</text>");
        for (int k = 0; k < r->nbuckets; k++) {
            int64_t v = m->bucket_bytes[k];
            if (v <= 0 || max <= 0)
                continue;
            double w = (W - L - R) * (double)v / (double)max;
            char t[32];
            buf_printf(b, "<rect class=\"seg\" data-bytes=\"%" PRId64 "\" x=\"", v);
            fmt_fixed(b, x, 1);
            buf_printf(b, "\" y=\"%.1f\" width=\"", y + 3);
            fmt_fixed(b, w, 1);
            buf_printf(b, "\" height=\"16\" fill=\"%s\"><title>", bucket_color(k));
            html_text(b, m->device);
            buf_puts(b, ": ");
            html_text(b, r->bucket_names[k]);
            buf_printf(b, " %s</title></rect>", text_bytes(t, (double)v));
            x += w;
        }
    }
    buf_puts(b, "</svg>\n");
}

static void bytes_cell(buf *b, int64_t v)
{
    char t[32];
    html_cell_num(b, (double)v, text_bytes(t, (double)v));
}

void html_memattr(buf *b, const html_inputs *in)
{
    buf_puts(b, "<h2 id=\"memory-attribution\">Memory attribution</h2>");
    const pq_memory_result *r = in->memattr;
    if (!r) {
        html_failed(b, &in->memattr_part);
        return;
    }
    buf_puts(b, "<p class=\"note\">Per device, the peak of the module it ran (the memory viewer's "
                "maxHeapBySize rows) in semantic buckets by the default rules, as "
                "<code>profq memory</code> states them.</p>");
    size_t max = (size_t)in->opts->max_rows;
    if (r->nrows > r->nidle)
        stacked(b, r, max);
    const char *cols[4 + PQ_MEMORY_MAX_BUCKETS + 1];
    int num[4 + PQ_MEMORY_MAX_BUCKETS + 1];
    size_t nc = 0;
    const char *fixed[] = {"Host", "Device", "Module", "Peak"};
    for (size_t i = 0; i < 4; i++, nc++) {
        cols[nc] = fixed[i];
        num[nc] = i == 3;
    }
    for (int k = 0; k < r->nbuckets; k++, nc++) {
        cols[nc] = r->bucket_names[k];
        num[nc] = 1;
    }
    cols[nc] = "Checks";
    num[nc++] = 0;
    html_table_begin(b, "memattr-table", cols, num, nc, r->nrows > 20);
    size_t shown = 0;
    for (int i = 0; i < r->nrows && shown < max; i++, shown++) {
        const pq_memory_row *m = &r->rows[i];
        buf_puts(b, "<tr><td class=\"w\">");
        html_text(b, m->host);
        buf_puts(b, "</td><td class=\"w\">");
        html_text(b, m->device);
        buf_puts(b, "</td><td class=\"w\">");
        html_text(b, m->ran_nothing ? "(ran nothing)" : m->module);
        buf_puts(b, "</td>");
        bytes_cell(b, m->peak_bytes);
        for (int k = 0; k < r->nbuckets; k++)
            bytes_cell(b, m->bucket_bytes[k]);
        int ok = m->check_ok[0] && m->check_ok[1] && m->check_ok[2];
        buf_puts(b, ok || m->ran_nothing ? "<td>ok</td>" : "<td class=\"warn\">");
        for (int c = 0; !ok && !m->ran_nothing && c < 3; c++)
            if (!m->check_ok[c])
                buf_printf(b, "%s off by %" PRId64 " B; ", pq_memory_check_name(c),
                           m->check_delta[c]);
        if (!ok && !m->ran_nothing)
            buf_puts(b, "</td>");
        buf_puts(b, "</tr>\n");
    }
    html_table_end(b, shown, (size_t)r->nrows, "plane order");
}
