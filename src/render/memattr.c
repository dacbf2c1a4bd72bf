/* memattr.c - renders a `profq memory` result (pq_memory_result, computed by
 * analysis/memattr.c): a GiB table like the seed's, TSV, Markdown, or JSON schema
 * profq.memory.v1 (bytes, per row and min/avg/max; devices that ran nothing under
 * idle_devices). Text and Markdown fit 120 columns: per row a line naming it, then its
 * figures three to a line with their unit (B/KiB/MiB/GiB by size); TSV keeps one line per
 * row in bytes for programs. Formats only: rows, buckets and aggregates are the analysis's. */
#include "profq.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"
#include "render/text.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double GIB = 1073741824.0;

static int all_ok(const pq_memory_row *row)
{
    return row->check_ok[0] && row->check_ok[1] && row->check_ok[2];
}

/* Figure F's name as the text shows it. */
static const char *figure_name(const pq_memory_result *r, int f)
{
    return f == 0 ? "peak" : f == 1 ? "entry_params" : r->figure_names[f];
}

/* One cell of the grid: NAME and VALUE, aligned (text) or as two table cells (md). */
static void cell(buf *b, int md, const char *name, const char *value, int col)
{
    if (md)
        buf_printf(b, "%s %s | %s |", col == 0 ? "|" : "", name, value);
    else
        buf_printf(b, "%s%-17s %12s", col == 0 ? "  " : "   ", name, value);
}

/* The figures of a row (or the aggregates) three to a line. VAL(f) formats figure F. */
static void grid(buf *b, const pq_memory_result *r, int md, const pq_memory_row *row, int k)
{
    int nf = r->nfigures, col = 0;
    if (md)
        buf_puts(b, "\n| figure | value | figure | value | figure | value |\n"
                    "|---|---:|---|---:|---|---:|\n");
    for (int f = 0; f < nf; f++) {
        char t[96], u[32];
        if (row) {
            int64_t v = pq_memory_figure(r, row, f);
            if (f == nf - 1)
                snprintf(t, sizeof t, "%" PRId64, v);
            else
                text_bytes(t, (double)v);
        } else {
            const pq_memory_stat *a = &r->aggregate[f];
            double v = k == 0 ? (double)a->min : k == 1 ? a->avg : (double)a->max;
            if (f == nf - 1)
                snprintf(t, sizeof t, "%.1f", v);
            else
                snprintf(t, sizeof t, "%s", text_bytes(u, v));
        }
        cell(b, md, figure_name(r, f), t, col);
        if (++col == 3 || f == nf - 1) {
            buf_putc(b, '\n');
            col = 0;
        }
    }
}

/* Text and Markdown: per row "host  device  module  checks ok" (the host shortened in the
 * middle unless WIDE), then its figures; min/avg/max over the devices that ran. */
static void blocks(buf *b, const pq_memory_result *r, int md, int wide)
{
    for (int i = 0; i < r->nrows; i++) {
        const pq_memory_row *row = &r->rows[i];
        if (md)
            buf_puts(b, i ? "\n**" : "**");
        size_t used = strlen(row->device) + strlen(row->module) + 24;
        text_fit(b, row->host, strlen(row->host), wide || used >= 100 ? 0 : TEXT_COLS - used, 0);
        if (row->ran_nothing) {
            buf_printf(b, "%s  %s  (ran nothing)\n", md ? "**" : "", row->device);
            continue;
        }
        buf_printf(b, "%s  %s  %s  checks %s\n", md ? "**" : "", row->device, row->module,
                   all_ok(row) ? "ok" : "FAILED");
        grid(b, r, md, row, 0);
    }
    if (r->nrows - r->nidle > 1) {
        static const char *const AGG[] = {"min", "avg", "max"};
        for (int k = 0; k < 3; k++) {
            buf_printf(b, "%s%s over the %d devices that ran%s\n", md ? "\n**" : "", AGG[k],
                       r->nrows - r->nidle, md ? "**" : "");
            grid(b, r, md, NULL, k);
        }
    }
    if (!md)
        for (int i = 0; i < r->nrows; i++)
            for (int c = 0; c < 3; c++)
                if (!r->rows[i].ran_nothing && !r->rows[i].check_ok[c]) {
                    buf_puts(b, "check failed: ");
                    text_fit(b, r->rows[i].host, strlen(r->rows[i].host), wide ? 0 : 48, 0);
                    buf_printf(b, " %s %s: %s (delta %" PRId64 " bytes)\n", r->rows[i].device,
                               r->rows[i].module, pq_memory_check_name(c),
                               r->rows[i].check_delta[c]);
                }
}

/* The seed's table: one line per row, every figure a column (TSV, for programs). */
static void table(buf *b, const pq_memory_result *r, int style) /* 1 tsv */
{
    const char *sep = style == 1 ? "\t" : style == 2 ? " | " : "  ";
    int nf = r->nfigures;
    int64_t maxpeak = 0;
    for (int i = 0; i < r->nrows; i++)
        if (r->rows[i].peak_bytes > maxpeak)
            maxpeak = r->rows[i].peak_bytes;
    /* GiB like the seed's table, or MiB when every peak is under 1 GiB (a CPU demo's
     * 0.3 MiB would print as 0.000 GiB). */
    double unit_bytes = maxpeak < (int64_t)1 << 30 ? 1048576.0 : GIB;
    const char *unit_suffix = maxpeak < (int64_t)1 << 30 ? "_mib" : "_gib";
    if (style == 2)
        buf_puts(b, "| ");
    buf_printf(b, "host%sdevice%smodule", sep, sep);
    for (int f = 0; f < nf; f++) {
        const char *n = r->figure_names[f];
        if (f == 0)
            n = "peak";
        else if (f == 1)
            n = "entry_params";
        buf_printf(b, "%s%s%s", sep, n, f < nf - 1 && style != 1 ? unit_suffix : "");
    }
    buf_printf(b, "%schecks%s\n", sep, style == 2 ? " |" : "");
    if (style == 2) {
        buf_puts(b, "|---|---|---|");
        for (int f = 0; f <= nf; f++)
            buf_puts(b, "---:|");
        buf_putc(b, '\n');
    }
    for (int i = 0; i < r->nrows; i++) {
        const pq_memory_row *row = &r->rows[i];
        if (style == 2)
            buf_puts(b, "| ");
        if (row->ran_nothing) { /* no figure to show, and none is zero by measurement */
            buf_printf(b, "%s%s%s%s(ran nothing)", row->host, sep, row->device, sep);
            for (int f = 0; f <= nf; f++)
                buf_printf(b, "%s-", sep);
            buf_puts(b, style == 2 ? " |\n" : "\n");
            continue;
        }
        buf_printf(b, "%s%s%s%s%s", row->host, sep, row->device, sep, row->module);
        for (int f = 0; f < nf; f++) {
            int64_t v = pq_memory_figure(r, row, f);
            if (f == nf - 1)
                buf_printf(b, "%s%" PRId64, sep, v);
            else if (style == 1)
                buf_printf(b, "%s%" PRId64, sep, v);
            else
                buf_printf(b, "%s%.3f", sep, (double)v / unit_bytes);
        }
        buf_printf(b, "%s%s%s\n", sep, all_ok(row) ? "ok" : "FAILED", style == 2 ? " |" : "");
    }
    if (r->nrows - r->nidle > 1 && style != 1) {
        static const char *const AGG[] = {"min", "avg", "max"};
        for (int k = 0; k < 3; k++) {
            if (style == 2)
                buf_puts(b, "| ");
            buf_printf(b, "%s%s%s%s", AGG[k], sep, "", sep);
            for (int f = 0; f < nf; f++) {
                const pq_memory_stat *a = &r->aggregate[f];
                double v = k == 0 ? (double)a->min : k == 1 ? a->avg : (double)a->max;
                if (f == nf - 1)
                    buf_printf(b, "%s%.1f", sep, v);
                else
                    buf_printf(b, "%s%.3f", sep, v / unit_bytes);
            }
            buf_printf(b, "%s%s\n", sep, style == 2 ? " |" : "");
        }
    }
    if (style == 0)
        for (int i = 0; i < r->nrows; i++)
            for (int c = 0; c < 3; c++)
                if (!r->rows[i].ran_nothing && !r->rows[i].check_ok[c])
                    buf_printf(b, "check failed: %s %s %s: %s (delta %" PRId64 " bytes)\n",
                               r->rows[i].host, r->rows[i].device, r->rows[i].module,
                               pq_memory_check_name(c), r->rows[i].check_delta[c]);
}

static void json(buf *b, const pq_memory_result *r)
{
    json_writer w;
    json_init(&w, b, 1);
    json_obj_begin(&w);
    json_key(&w, "schema");
    json_cstr(&w, "profq.memory.v1");
    json_key(&w, "rows");
    json_arr_begin(&w);
    for (int i = 0; i < r->nrows; i++) {
        const pq_memory_row *row = &r->rows[i];
        if (row->ran_nothing)
            continue; /* listed under idle_devices */
        char id[32];
        snprintf(id, sizeof id, "%" PRIu64, row->program_id);
        json_obj_begin(&w);
        json_key(&w, "host");
        json_cstr(&w, row->host);
        json_key(&w, "device");
        json_cstr(&w, row->device);
        json_key(&w, "module");
        json_cstr(&w, row->module);
        json_key(&w, "program_id");
        json_cstr(&w, id);
        json_key(&w, "peak_bytes");
        json_int(&w, row->peak_bytes);
        json_key(&w, "entry_params_bytes");
        json_int(&w, row->entry_params_bytes);
        json_key(&w, "groups");
        json_obj_begin(&w);
        for (int g = 0; g < row->ngroups; g++) {
            json_key(&w, row->group_names[g]);
            json_int(&w, row->group_bytes[g]);
        }
        json_obj_end(&w);
        json_key(&w, "buckets");
        json_obj_begin(&w);
        for (int k = 0; k < r->nbuckets; k++) {
            json_key(&w, r->bucket_names[k]);
            json_int(&w, row->bucket_bytes[k]);
        }
        json_obj_end(&w);
        json_key(&w, "gradient_hits");
        json_int(&w, row->gradient_hits);
        json_key(&w, "gradients_present");
        json_bool(&w, row->gradient_hits > 0);
        json_key(&w, "checks");
        json_arr_begin(&w);
        for (int c = 0; c < 3; c++) {
            json_obj_begin(&w);
            json_key(&w, "name");
            json_cstr(&w, pq_memory_check_name(c));
            json_key(&w, "ok");
            json_bool(&w, row->check_ok[c]);
            json_key(&w, "delta_bytes");
            json_int(&w, row->check_delta[c]);
            json_obj_end(&w);
        }
        json_arr_end(&w);
        json_obj_end(&w);
    }
    json_arr_end(&w);
    json_key(&w, "idle_devices"); /* device planes without any event: they ran nothing */
    json_arr_begin(&w);
    for (int i = 0; i < r->nrows; i++) {
        if (!r->rows[i].ran_nothing)
            continue;
        json_obj_begin(&w);
        json_key(&w, "host");
        json_cstr(&w, r->rows[i].host);
        json_key(&w, "device");
        json_cstr(&w, r->rows[i].device);
        json_obj_end(&w);
    }
    json_arr_end(&w);
    json_key(&w, "aggregate");
    json_obj_begin(&w);
    for (int f = 0; f < r->nfigures; f++) {
        const pq_memory_stat *a = &r->aggregate[f];
        json_key(&w, r->figure_names[f]);
        json_obj_begin(&w);
        json_key(&w, "min");
        json_int(&w, a->min);
        json_key(&w, "avg");
        json_double(&w, a->avg);
        json_key(&w, "max");
        json_int(&w, a->max);
        json_obj_end(&w);
    }
    json_obj_end(&w);
    json_obj_end(&w);
    buf_putc(b, '\n');
}

pq_status pq_memory_render(const pq_memory_result *r, pq_output fmt, pq_sink *sink, pq_error *err)
{
    return pq_memory_render_ex(r, NULL, fmt, sink, err);
}

pq_status pq_memory_render_ex(const pq_memory_result *r, const pq_memory_options *opts,
                              pq_output fmt, pq_sink *sink, pq_error *err)
{
    buf b;
    buf_init(&b, sink);
    if (fmt == PQ_OUT_JSON)
        json(&b, r);
    else if (fmt == PQ_OUT_TSV)
        table(&b, r, 1);
    else
        blocks(&b, r, fmt == PQ_OUT_MD, opts && opts->wide);
    pq_status st = buf_flush(&b);
    buf_release(&b);
    if (st != PQ_OK)
        st = err_set(err, PQ_ERR_OUTPUT, "", -1, "could not write the output");
    return st;
}
