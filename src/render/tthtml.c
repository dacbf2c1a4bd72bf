/* tthtml.c - the self-contained HTML report of a Tenstorrent log: summary and peak cards,
 * memory per op for DRAM, L1 and L1_SMALL (SVG from render/svg.c), top DRAM growth,
 * fragmentation, weights vs activations, tile padding, an op table with search and per-op
 * details. One file: inline CSS, inline SVG, a few lines of inline JavaScript; no network.
 * Every string from the log goes through html_escape. Not here: the numbers (analysis/ttmem). */
#include "analysis/ttmem.h"
#include "formats/ttlog.h" /* ttlog_next_tensor: the shapes of an op's output type */
#include "core/alloc.h"
#include "render/svg.h"
#include "render/ttmem.h"

#include <stdio.h>
#include <string.h>

static const double MB = 1048576.0;

static void e(buf *b, pq_str s)
{
    if (s.p)
        html_escape(b, s.p, s.n);
}

static void ec(buf *b, const char *s)
{
    html_escape(b, s, strlen(s));
}

static pq_str op_label(const tt_op *op)
{
    return op->name.n ? op->name : op->op_type;
}

typedef struct title_ctx {
    const tt_log *log;
    int type;
} title_ctx;

static void point_title(void *ctx, size_t s, size_t i, buf *b)
{
    const title_ctx *t = ctx;
    const tt_op *op = &t->log->ops[i];
    (void)s;
    buf_printf(b, "#%zu ", i);
    e(b, op_label(op));
    if (op->loc.n) {
        buf_puts(b, " @ ");
        e(b, op->loc);
    }
    buf_puts(b, ": ");
    fmt_fixed(b, op->mem[t->type].alloc_mb, 3);
    buf_puts(b, " MB/bank allocated, ");
    fmt_fixed(b, op->mem[t->type].free_mb, 3);
    buf_puts(b, " free, ");
    fmt_fixed(b, op->mem[t->type].largest_free_mb, 3);
    buf_puts(b, " largest free");
}

static const char CSS[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1d2330}"
    "header{background:#1d2330;color:#fff;padding:14px 24px}header h1{margin:0;font-size:20px}"
    "header p{margin:4px 0 0;color:#c8cfdb}main{padding:16px 24px;max-width:1200px}"
    "section{background:#fff;border:1px solid #dde1e8;border-radius:8px;padding:12px 16px;"
    "margin:0 0 16px}h2{font-size:16px;margin:0 0 10px}"
    ".cards{display:flex;flex-wrap:wrap;gap:10px}.card{border:1px solid #dde1e8;border-radius:6px;"
    "padding:8px 12px;min-width:160px;background:#fbfcfd}.card b{display:block;font-size:18px}"
    ".card small{color:#5b6474}.peak{flex:1 1 260px}.peak code{word-break:break-all}"
    "table{border-collapse:collapse;width:100%;font-size:13px}th,td{border-bottom:1px solid "
    "#e6e9ee;"
    "padding:4px 6px;text-align:left;vertical-align:top;overflow-wrap:anywhere}"
    "td.n,th.n{text-align:right;white-space:nowrap;overflow-wrap:normal;"
    "font-variant-numeric:tabular-nums}tr.op{cursor:pointer}tr.op:hover{background:#eef3fb}"
    "tr.det td{background:#f8f9fb}pre{white-space:pre-wrap;word-break:break-all;margin:4px 0;"
    "font-size:12px}#q{width:320px;padding:5px 8px;margin:0 0 8px}"
    "svg.chart{max-width:100%;height:auto;display:block;margin:6px 0 12px}"
    ".grid{stroke:#e6e9ee}.axis{stroke:#8a93a3}.cap{stroke:#c0392b;stroke-dasharray:6 4}"
    ".ct{font-weight:600;font-size:13px}.yt{font-size:11px;text-anchor:end;fill:#5b6474}"
    ".xt{font-size:11px;text-anchor:middle;fill:#5b6474}.xl,.yl{font-size:12px;fill:#3b4352;"
    "text-anchor:middle}.capl{font-size:11px;fill:#c0392b;text-anchor:end}.lg{font-size:11px}"
    "circle.pt{cursor:pointer}circle.pt:hover{r:5}.warn{color:#a15c00}";

static const char JS[] =
    "(function(){'use strict';"
    "var q=document.getElementById('q');"
    "var rows=document.querySelectorAll('#ops tbody tr.op');"
    "function det(r){var d=r.nextElementSibling;return d&&d.classList.contains('det')?d:null;}"
    "q.addEventListener('input',function(){var v=q.value.toLowerCase();var shown=0;"
    "for(var i=0;i<rows.length;i++){var r=rows[i];var m=!v||r.getAttribute('data-s')"
    ".indexOf(v)>=0;r.hidden=!m;if(m)shown++;var d=det(r);if(d&&!m)d.hidden=true;}"
    "document.getElementById('nshown').textContent=String(shown);});"
    "for(var i=0;i<rows.length;i++){rows[i].addEventListener('click',function(){"
    "var d=det(this);if(d)d.hidden=!d.hidden;});}"
    "var pts=document.querySelectorAll('circle.pt');"
    "for(var j=0;j<pts.length;j++){pts[j].addEventListener('click',function(){"
    "var r=document.getElementById('op'+this.getAttribute('data-i'));if(!r)return;"
    "r.hidden=false;var d=det(r);if(d)d.hidden=false;r.scrollIntoView({block:'center'});});}"
    "document.body.setAttribute('data-ready','1');})();";

static void card(buf *b, const char *label, const char *value_fmt_done, const char *note)
{
    buf_puts(b, "<div class=\"card\"><small>");
    ec(b, label);
    buf_puts(b, "</small><b>");
    ec(b, value_fmt_done);
    buf_puts(b, "</b>");
    if (note) {
        buf_puts(b, "<small>");
        ec(b, note);
        buf_puts(b, "</small>");
    }
    buf_puts(b, "</div>");
}

static void shapes(buf *b, pq_str types)
{
    size_t pos = 0;
    pq_str shape, dtype;
    int first = 1;
    while (ttlog_next_tensor(types, &pos, &shape, &dtype)) {
        buf_puts(b, first ? "" : ", ");
        e(b, shape);
        buf_puts(b, shape.n ? "x" : "");
        e(b, dtype);
        first = 0;
    }
    if (first)
        buf_puts(b, "-");
}

static void peak_card(buf *b, const tt_log *log, const ttmem_result *r, int t)
{
    const ttmem_type_stats *s = &r->type[t];
    const tt_op *op = &log->ops[s->peak_op];
    buf_printf(b, "<div class=\"card peak\"><small>%s peak</small><b>%.3f MB/bank</b>",
               TT_MEM_NAMES[t], s->peak_mb);
    buf_printf(b,
               "<small>at operation <a href=\"#op%zu\">#%zu</a> of %.3f MB/bank "
               "(%.1f%%)</small><div>",
               s->peak_op, s->peak_op, s->capacity_mb,
               s->capacity_mb > 0 ? s->peak_mb / s->capacity_mb * 100 : 0.0);
    buf_puts(b, "<code>");
    e(b, op_label(op));
    buf_puts(b, "</code>");
    if (op->loc.n) {
        buf_puts(b, "<br><small>");
        e(b, op->loc);
        buf_puts(b, "</small>");
    }
    if (op->text.n) {
        buf_puts(b, "<br><small>in: ");
        shapes(b, op->input_types);
        buf_puts(b, " &rarr; out: ");
        shapes(b, op->output_type);
        buf_puts(b, "</small>");
    }
    if (op->attributes.n) {
        buf_puts(b, "<br><small>attrs: ");
        e(b, op->attributes);
        buf_puts(b, "</small>");
    }
    buf_printf(b,
               "<br><small>free %.3f MB/bank, largest contiguous free %.3f MB/bank</small>"
               "</div></div>",
               op->mem[t].free_mb, op->mem[t].largest_free_mb);
}

/* A line chart over the operations (x), 1000 wide, without a reference line or point titles
 * (the caller sets those when it wants them). */
static svg_chart op_chart(const char *id, const char *title, const char *y_label, int height,
                          const svg_series *s, size_t ns)
{
    svg_chart c = {id, title, "operation", y_label, 1000, height, s, ns, 0, 0, NULL, NULL, NULL, 0};
    return c;
}

/* The start of a table row of operation I: its linked number, then its label. */
static void op_row_start(buf *b, size_t i, const tt_op *op)
{
    buf_printf(b, "<tr><td class=\"n\"><a href=\"#op%zu\">%zu</a></td><td>", i, i);
    e(b, op_label(op));
    buf_puts(b, "</td><td>");
}

static void memory_charts(buf *b, const tt_log *log, const ttmem_result *r, int t, double *ys)
{
    size_t n = log->nops;
    title_ctx tc = {log, t};
    for (size_t i = 0; i < n; i++)
        ys[i] = r->rows[i].alloc_mb[t];
    unsigned char *alt = (unsigned char *)(ys + 3 * n);
    for (size_t i = 0; i < n; i++)
        alt[i] = (unsigned char)log->ops[i].is_weight;
    char id[32], title[96], cap[96];
    const char *lower = t == TT_DRAM ? "dram" : t == TT_L1 ? "l1" : "l1_small";
    snprintf(id, sizeof id, "chart-%s", lower);
    snprintf(title, sizeof title, "%s allocated per operation (MB per bank)", TT_MEM_NAMES[t]);
    snprintf(cap, sizeof cap, "capacity %.3f MB/bank", n ? log->ops[0].mem[t].total_mb : 0.0);
    svg_series s1 = {"allocated", "#2563eb", ys, n, 1, 0, alt, "#dc2626", "const-eval op"};
    svg_chart c = op_chart(id, title, "MB per bank", 270, &s1, 1);
    c.has_hline = 1;
    c.hline = n ? log->ops[0].mem[t].total_mb : 0.0;
    c.hline_label = cap;
    c.point_title = point_title;
    c.ctx = &tc;
    c.max_markers = 20000;
    svg_line_chart(b, &c);
    /* free vs largest contiguous free (fragmentation), with the capacity line */
    double *fr = ys + n, *lg = ys + 2 * n;
    for (size_t i = 0; i < n; i++) {
        fr[i] = r->rows[i].free_mb[t];
        lg[i] = r->rows[i].largest_free_mb[t];
    }
    svg_series s2[3] = {{"allocated", "#2563eb", ys, n, 0, 0, NULL, NULL, NULL},
                        {"free", "#16a34a", fr, n, 0, 0, NULL, NULL, NULL},
                        {"largest contiguous free", "#f59e0b", lg, n, 0, 1, NULL, NULL, NULL}};
    snprintf(id, sizeof id, "frag-%s", lower);
    snprintf(title, sizeof title, "%s free vs largest contiguous free (MB per bank)",
             TT_MEM_NAMES[t]);
    svg_chart c2 = op_chart(id, title, "MB per bank", 230, s2, 3);
    c2.has_hline = 1;
    c2.hline = c.hline;
    c2.hline_label = cap;
    svg_line_chart(b, &c2);
}

static void op_details(buf *b, const tt_op *op)
{
    buf_puts(b, "<tr class=\"det\" hidden><td colspan=\"8\">");
    if (op->text.n) {
        buf_puts(b, "<pre>");
        e(b, op->text);
        buf_puts(b, "</pre>");
    }
    buf_puts(b, "<table><tr><th>inputs</th><td>");
    e(b, op->operands);
    buf_puts(b, "</td></tr><tr><th>input shapes</th><td>");
    shapes(b, op->input_types);
    buf_puts(b, "</td></tr><tr><th>output shapes</th><td>");
    shapes(b, op->output_type);
    buf_puts(b, "</td></tr><tr><th>attributes</th><td>");
    e(b, op->attributes);
    buf_puts(b, "</td></tr><tr><th>source</th><td>");
    if (op->const_eval.p) {
        buf_puts(b, "const-eval ");
        e(b, op->const_eval);
        buf_puts(b, op->cache_miss ? " (cache miss)" : "");
    } else {
        buf_puts(b, "main");
    }
    if (op->out.present) {
        buf_puts(b, "</td></tr><tr><th>output</th><td>");
        fmt_fixed(b, (double)op->out.unpadded_bytes / MB, 3);
        buf_puts(b, " MB unpadded, ");
        fmt_fixed(b, (double)op->out.padded_bytes / MB, 3);
        buf_puts(b, op->out.tiled ? " MB padded (tiled), " : " MB padded, ");
        e(b, op->out.buffer_type);
    }
    buf_puts(b, "</td></tr><tr><th>log offset</th><td>");
    fmt_fixed(b, (double)op->offset, 0);
    buf_puts(b, "</td></tr>");
    for (int t = 0; t < TT_NMEM; t++) {
        buf_puts(b, "<tr><th>");
        buf_puts(b, TT_MEM_NAMES[t]);
        buf_puts(b, "</th><td>");
        fmt_fixed(b, op->mem[t].alloc_mb, 3);
        buf_puts(b, " allocated, ");
        fmt_fixed(b, op->mem[t].free_mb, 3);
        buf_puts(b, " free, ");
        fmt_fixed(b, op->mem[t].largest_free_mb, 3);
        buf_puts(b, " largest free of ");
        fmt_fixed(b, op->mem[t].total_mb, 3);
        buf_puts(b, " MB/bank x ");
        fmt_fixed(b, (double)op->mem[t].num_banks, 0);
        buf_puts(b, " banks</td></tr>");
    }
    buf_puts(b, "</table></td></tr>\n");
}

/* Lower-cased search text of a row, escaped for an attribute. */
static void search_attr(buf *b, size_t i, const tt_op *op)
{
    char tmp[512];
    int k = snprintf(tmp, sizeof tmp, "#%zu ", i);
    buf_put(b, tmp, (size_t)k);
    pq_str parts[4] = {op->op_type, op->name, op->loc, op->output_type};
    for (int p = 0; p < 4; p++) {
        size_t n = parts[p].n < sizeof tmp - 1 ? parts[p].n : sizeof tmp - 1;
        for (size_t j = 0; j < n; j++) {
            char c = parts[p].p[j];
            tmp[j] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
        }
        tmp[n] = ' ';
        html_escape(b, tmp, n + 1);
    }
}

/* The page head, the header line and the summary cards. */
static void head_and_summary(buf *b, const tt_log *log, const ttmem_result *r, const char *name)
{
    size_t n = log->nops;
    pq_ttlog_info info;
    pq_ttlog_get_info(log, &info);
    buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
                "<title>profq tt report: ");
    ec(b, name);
    buf_puts(b, "</title><style>");
    buf_puts(b, CSS);
    buf_puts(b, "</style></head><body>\n<header><h1>Tenstorrent memory report: ");
    ec(b, name);
    buf_printf(b,
               "</h1><p>%zu operations (log shape %s; %llu executed op lines, %llu per-op "
               "blocks, %zu submit blocks, %llu deallocate/get_device excluded, %llu malformed "
               "blocks). Written by profq %s.</p></header>\n<main>\n",
               n, info.shape, (unsigned long long)log->executed_ops,
               (unsigned long long)log->op_blocks, log->nsubmits,
               (unsigned long long)log->excluded_ops, (unsigned long long)log->malformed_blocks,
               PQ_VERSION_STRING);
    char v[64], note[96];
    buf_puts(b, "<section><h2>Summary</h2><div class=\"cards\">");
    snprintf(v, sizeof v, "%zu", n);
    card(b, "Total operations", v, NULL);
    const ttmem_type_stats *d = &r->type[TT_DRAM];
    snprintf(v, sizeof v, "%.3f MB/bank", d->peak_mb);
    snprintf(note, sizeof note, "%.1f%% of %.3f, op #%zu",
             d->capacity_mb > 0 ? d->peak_mb / d->capacity_mb * 100 : 0.0, d->capacity_mb,
             d->peak_op);
    card(b, "Peak DRAM", v, note);
    snprintf(v, sizeof v, "%.3f MB/bank", r->type[TT_L1].peak_mb);
    snprintf(note, sizeof note, "op #%zu", r->type[TT_L1].peak_op);
    card(b, "Peak L1", v, note);
    snprintf(v, sizeof v, "%.3f MB/bank", d->avg_mb);
    card(b, "Average DRAM", v, NULL);
    if (r->has_weights) {
        snprintf(v, sizeof v, "%.3f MB/bank", r->weights_baseline_mb);
        snprintf(note, sizeof note, "DRAM at op #%zu, after %llu const-eval ops", r->baseline_op,
                 (unsigned long long)r->weight_ops);
        card(b, "Weights (DRAM)", v, note);
    }
    if (r->has_submit_peak) {
        const tt_submit *s = &log->submits[r->submit_peak];
        snprintf(v, sizeof v, "%.3f MB/bank", r->submit_peak_mb);
        snprintf(note, sizeof note, "%s submit %llu", s->after ? "after" : "before",
                 (unsigned long long)s->number);
        card(b, "Peak DRAM over submits", v, note);
    }
    if (r->has_padding) {
        buf tmp;
        buf_init(&tmp, NULL);
        ttmem_fmt_bytes(&tmp, r->peak_pad_bytes);
        buf_printf(&tmp, "\nlive DRAM tensors at op #%zu, ", r->peak_pad_op);
        ttmem_fmt_pad_of(&tmp, r->peak_pad_unpadded, r->peak_pad_bytes);
        buf_putc(&tmp, '\0');
        if (tmp.status == PQ_OK) {
            char *nl = strchr(tmp.p, '\n');
            *nl = '\0';
            card(b, "Peak tile padding", tmp.p, nl + 1);
        } else {
            b->status = tmp.status;
        }
        buf_release(&tmp);
    }
    buf_puts(b, "</div></section>\n");
}

static void growth_and_fragmentation(buf *b, const tt_log *log, const ttmem_result *r)
{
    buf_puts(b, "<section><h2>Top DRAM growth (vs previous operation)</h2><table><thead><tr>"
                "<th class=\"n\">op</th><th>operation</th><th>location</th><th class=\"n\">"
                "growth MB/bank</th><th class=\"n\">DRAM MB/bank</th></tr></thead><tbody>");
    for (size_t k = 0; k < r->ngrowth; k++) {
        const tt_op *op = &log->ops[r->growth_op[k]];
        op_row_start(b, r->growth_op[k], op);
        e(b, op->loc);
        buf_printf(b, "</td><td class=\"n\">+%.3f</td><td class=\"n\">%.3f</td></tr>",
                   r->growth_mb[k], op->mem[TT_DRAM].alloc_mb);
    }
    if (!r->ngrowth)
        buf_puts(b, "<tr><td colspan=\"5\">No operation grew DRAM.</td></tr>");
    buf_puts(b, "</tbody></table></section>\n");
    buf_puts(b, "<section><h2>Fragmentation</h2><p>Largest gap between free and largest "
                "contiguous free memory (charts above):</p><ul>");
    for (int t = 0; t < TT_NMEM; t++)
        buf_printf(b, "<li>%s: %.3f MB/bank at operation <a href=\"#op%zu\">#%zu</a></li>",
                   TT_MEM_NAMES[t], r->type[t].frag_mb, r->type[t].frag_op, r->type[t].frag_op);
    buf_puts(b, "</ul></section>\n");
}

/* The weights and padding sections; YS is scratch for 3 series of n doubles. */
static void weights_and_padding(buf *b, const tt_log *log, const ttmem_result *r, double *ys)
{
    size_t n = log->nops;
    buf_puts(b, "<section><h2>Weights vs activations (DRAM)</h2>");
    if (r->has_weights && n) {
        double *w = ys, *a = ys + n;
        for (size_t i = 0; i < n; i++) {
            w[i] = r->rows[i].weights_mb;
            a[i] = r->rows[i].activations_mb;
        }
        svg_series s[2] = {{"weights", "#7c3aed", w, n, 0, 0, NULL, NULL, NULL},
                           {"activations", "#0891b2", a, n, 0, 0, NULL, NULL, NULL}};
        svg_chart c = op_chart("chart-weights", "DRAM weights vs activations (MB per bank)",
                               "MB per bank", 230, s, 2);
        svg_line_chart(b, &c);
        buf_printf(b,
                   "<p>Baseline: DRAM at the first non-const-eval operation (#%zu), %.3f "
                   "MB/bank, is counted as weights.</p>",
                   r->baseline_op, r->weights_baseline_mb);
    } else {
        buf_puts(b, "<p>The log does not tell: no const-eval programs were logged.</p>");
    }
    buf_puts(b, "</section>\n<section><h2>Tile padding</h2>");
    if (r->has_padding && n) {
        double *u = ys, *p = ys + n, *act = ys + 2 * n;
        for (size_t i = 0; i < n; i++) {
            u[i] = (double)r->rows[i].live_unpadded_bytes / MB;
            p[i] = (double)r->rows[i].live_padded_bytes / MB;
            act[i] = r->rows[i].dram_total_mb;
        }
        svg_series s[3] = {
            {"unpadded (live tensors)", "#0891b2", u, n, 0, 0, NULL, NULL, NULL},
            {"padded (live tensors)", "#f59e0b", p, n, 0, 0, NULL, NULL, NULL},
            {"DRAM allocated (all banks)", "#2563eb", act, n, 0, 1, NULL, NULL, NULL}};
        svg_chart c =
            op_chart("chart-padding", "DRAM: unpadded vs padded vs allocated (MB, all banks)", "MB",
                     230, s, 3);
        svg_line_chart(b, &c);
        buf_puts(b, "<p>Peak padding of live DRAM tensors: ");
        ttmem_fmt_bytes(b, r->peak_pad_bytes);
        buf_printf(b, " at operation <a href=\"#op%zu\">#%zu</a> (", r->peak_pad_op,
                   r->peak_pad_op);
        ttmem_fmt_pad_of(b, r->peak_pad_unpadded, r->peak_pad_bytes);
        buf_printf(b, "). %s</p>", TTMEM_PAD_NOTE);
        buf_puts(b, "<table><thead><tr><th class=\"n\">op</th><th>operation</th><th>output"
                    "</th><th class=\"n\">unpadded MB</th><th class=\"n\">padded MB</th>"
                    "<th class=\"n\">overhead</th></tr></thead><tbody>");
        for (size_t k = 0; k < r->npad; k++) {
            const tt_op *op = &log->ops[r->pad_op[k]];
            op_row_start(b, r->pad_op[k], op);
            shapes(b, op->output_type);
            buf_printf(b,
                       "</td><td class=\"n\">%.3f</td><td class=\"n\">%.3f</td><td "
                       "class=\"n\">",
                       (double)op->out.unpadded_bytes / MB, (double)op->out.padded_bytes / MB);
            ttmem_fmt_ratio(b, op->out.unpadded_bytes, op->out.padded_bytes);
            buf_puts(b, "</td></tr>");
        }
        buf_puts(b, "</tbody></table>");
    } else {
        buf_puts(b, "<p>The log does not tell: no op text with tensor layouts.</p>");
    }
    buf_puts(b, "</section>\n");
}

static void submits_and_distribution(buf *b, const tt_log *log, const ttmem_result *r)
{
    size_t n = log->nops;
    if (log->nsubmits) {
        buf_puts(b, "<section><h2>Submits</h2><table><thead><tr><th class=\"n\">submit</th>"
                    "<th>when</th><th class=\"n\">ops before</th><th class=\"n\">DRAM MB/bank"
                    "</th><th class=\"n\">largest free</th><th class=\"n\">L1 MB/bank</th>"
                    "</tr></thead><tbody>");
        for (size_t k = 0; k < log->nsubmits; k++) {
            const tt_submit *s = &log->submits[k];
            buf_printf(b,
                       "<tr><td class=\"n\">%llu</td><td>%s</td><td class=\"n\">%llu</td><td "
                       "class=\"n\">%.3f</td><td class=\"n\">%.3f</td><td class=\"n\">%.3f</td>"
                       "</tr>",
                       (unsigned long long)s->number, s->after ? "after" : "before",
                       (unsigned long long)s->ops_before, s->mem[TT_DRAM].alloc_mb,
                       s->mem[TT_DRAM].largest_free_mb, s->mem[TT_L1].alloc_mb);
        }
        buf_puts(b, "</tbody></table></section>\n");
    }
    buf_puts(b, "<section><h2>Operation distribution</h2><table><thead><tr><th>operation</th>"
                "<th class=\"n\">count</th><th class=\"n\">%</th></tr></thead><tbody>");
    for (size_t k = 0; k < r->ndist; k++) {
        buf_puts(b, "<tr><td>");
        e(b, r->dist[k].name);
        buf_printf(b, "</td><td class=\"n\">%llu</td><td class=\"n\">%.1f%%</td></tr>",
                   (unsigned long long)r->dist[k].count,
                   n ? (double)r->dist[k].count * 100.0 / (double)n : 0.0);
    }
    buf_puts(b, "</tbody></table></section>\n");
}

/* The searchable table of every operation, each with its hidden details row. */
static void ops_table(buf *b, const tt_log *log, const ttmem_result *r)
{
    size_t n = log->nops;
    buf_printf(b,
               "<section><h2>Operations</h2><input id=\"q\" type=\"search\" placeholder=\""
               "search op, type, location, shape\" aria-label=\"search operations\"> "
               "<span id=\"nshown\">%zu</span> shown. Click a row (or a chart point) for "
               "details.<table id=\"ops\"><thead><tr><th class=\"n\">#</th><th>op type</th>"
               "<th>MLIR op</th><th>location</th><th>output</th><th class=\"n\">DRAM MB/bank"
               "</th><th class=\"n\">&Delta; DRAM</th><th class=\"n\">L1 MB/bank</th></tr>"
               "</thead><tbody>\n",
               n);
    for (size_t i = 0; i < n; i++) {
        const tt_op *op = &log->ops[i];
        buf_printf(b, "<tr class=\"op\" id=\"op%zu\" data-s=\"", i);
        search_attr(b, i, op);
        buf_printf(b, "\"><td class=\"n\">%zu</td><td>", i);
        e(b, op->op_type);
        buf_puts(b, "</td><td>");
        e(b, op->name);
        buf_puts(b, op->is_weight ? " <small>(const-eval)</small>" : "");
        buf_puts(b, "</td><td>");
        e(b, op->loc);
        buf_puts(b, "</td><td>");
        shapes(b, op->output_type);
        buf_puts(b, "</td><td class=\"n\">");
        fmt_fixed(b, op->mem[TT_DRAM].alloc_mb, 3);
        buf_puts(b, "</td><td class=\"n\">");
        double delta = r->rows[i].dram_delta_mb;
        if (!(delta < 0))
            buf_putc(b, '+');
        fmt_fixed(b, delta, 3);
        buf_puts(b, "</td><td class=\"n\">");
        fmt_fixed(b, op->mem[TT_L1].alloc_mb, 3);
        buf_puts(b, "</td></tr>\n");
        op_details(b, op);
    }
    buf_puts(b, "</tbody></table></section>\n");
}

static void log_section(buf *b, const tt_log *log)
{
    if (log->nmodules || log->nwarnings) {
        buf_puts(b, "<section><h2>Log</h2>");
        if (log->nmodules) {
            buf_puts(b, "<p>MLIR module dumps:</p><ul>");
            for (size_t k = 0; k < log->nmodules; k++) {
                buf_puts(b, "<li>");
                e(b, log->modules[k].stage);
                buf_printf(b, " (offset %lld, %llu lines)</li>", (long long)log->modules[k].offset,
                           (unsigned long long)log->modules[k].lines);
            }
            buf_puts(b, "</ul>");
        }
        if (log->nwarnings) {
            buf_puts(b, "<p class=\"warn\">Warnings:</p><ul>");
            for (size_t k = 0; k < log->nwarnings; k++) {
                buf_printf(b, "<li>offset %lld: ", (long long)log->warnings[k].offset);
                ec(b, log->warnings[k].what);
                buf_puts(b, "</li>");
            }
            buf_puts(b, "</ul>");
        }
        buf_puts(b, "</section>\n");
    }
}

void tthtml_render(const tt_log *log, const ttmem_result *r, const char *name, buf *b)
{
    size_t n = log->nops;
    head_and_summary(b, log, r, name);
    if (n && r->has_mem) {
        buf_puts(b, "<section><h2>Peak memory</h2><div class=\"cards\">");
        for (int t = 0; t < TT_NMEM; t++)
            peak_card(b, log, r, t);
        buf_puts(b, "</div></section>\n");
    }
    double *ys = pq_malloc_array(n ? n : 1, 3 * sizeof(double) + 1);
    if (!ys) {
        b->status = PQ_ERR_NOMEM;
        return;
    }
    if (n) {
        buf_puts(b, "<section id=\"memory\"><h2>Memory per operation</h2>");
        if (log->shape == TT_SHAPE_SUBMIT)
            buf_puts(b, "<p class=\"warn\">This log has memory state per submit only: each "
                        "operation shows the latest submit block before it.</p>");
        for (int t = TT_DRAM; t <= TT_L1_SMALL; t++)
            memory_charts(b, log, r, t, ys);
        buf_puts(b, "</section>\n");
    }
    growth_and_fragmentation(b, log, r);
    weights_and_padding(b, log, r, ys);
    pq_free(ys);
    submits_and_distribution(b, log, r);
    ops_table(b, log, r);
    log_section(b, log);
    buf_puts(b, "</main>\n<script>");
    buf_puts(b, JS);
    buf_puts(b, "</script>\n</body></html>\n");
}
