/* ttmem.c - renders the Tenstorrent memory analysis: <name>_memory.json and
 * <name>_operations.json in the seed profiler's structures (spec section 3.5; the nth element
 * of each is the same operation), and the markdown summary (the seed's LLM report, 3.6).
 * The HTML report is render/tthtml.c. Deterministic: fixed key order, shortest round-trip
 * doubles. */
#include "render/ttmem.h"
#include "analysis/ttmem.h"
#include "formats/ttlog.h" /* ttlog_next_tensor: the shapes of an op's output type */
#include "core/buf.h"
#include "core/json.h"
#include "render/text.h"

#include <math.h>
#include <string.h>

static const double MB = 1048576.0;

/* A computed percentage, rounded to 6 decimals, and MB computed from bytes, rounded to 9
 * (a thousandth of a byte): the JSON stays exact for every value read from the log (and the
 * byte counts beside these), and computed values print without the slow shortest-round-trip
 * search. */
static double pct6(double v)
{
    return isfinite(v) ? round(v * 1e6) / 1e6 : v;
}

static double mb9(uint64_t bytes)
{
    return round((double)bytes / MB * 1e9) / 1e9;
}

static void jstr(json_writer *w, pq_str s)
{
    if (s.p && s.n)
        json_str(w, s.p, s.n);
    else
        json_null(w);
}

/* A key and its value: kv_str, kv_cstr, kv_int, kv_uint, kv_double, kv_bool. */
#define KV_WRITER(name, type, write)                                                               \
    static void name(json_writer *w, const char *k, type v)                                        \
    {                                                                                              \
        json_key(w, k);                                                                            \
        write(w, v);                                                                               \
    }
KV_WRITER(kv_str, pq_str, jstr)
KV_WRITER(kv_cstr, const char *, json_cstr)
KV_WRITER(kv_int, int64_t, json_int)
KV_WRITER(kv_uint, uint64_t, json_uint)
KV_WRITER(kv_double, double, json_double)
KV_WRITER(kv_bool, int, json_bool)
#undef KV_WRITER

static void jdims(json_writer *w, const int64_t *d, int n)
{
    json_arr_begin(w);
    for (int i = 0; i < n; i++)
        json_int(w, d[i]);
    json_arr_end(w);
}

static void memview_json(json_writer *w, const tt_memview *m)
{
    json_obj_begin(w);
    kv_int(w, "numBanks", m->num_banks);
    kv_double(w, "totalBytesPerBank_MB", m->total_mb);
    kv_double(w, "totalBytesAllocatedPerBank_MB", m->alloc_mb);
    kv_double(w, "totalBytesFreePerBank_MB", m->free_mb);
    kv_double(w, "largestContiguousBytesFreePerBank_MB", m->largest_free_mb);
    json_obj_end(w);
}

static const char *mem_source_name(tt_mem_source s)
{
    switch (s) {
    case TT_MEM_OPERATION:
        return "operation";
    case TT_MEM_BEFORE_SUBMIT:
        return "before_submit";
    case TT_MEM_AFTER_SUBMIT:
        return "after_submit";
    case TT_MEM_NONE:
        break;
    }
    return "none";
}

/* {"L1": {...}, "DRAM": {...}, ...} of one memory snapshot. */
static void memviews_json(json_writer *w, const tt_memview *mem)
{
    json_obj_begin(w);
    for (int t = 0; t < TT_NMEM; t++) {
        json_key(w, TT_MEM_NAMES[t]);
        memview_json(w, &mem[t]);
    }
    json_obj_end(w);
}

/* The const-eval fields of an operation (both JSON files). */
static void op_flags(json_writer *w, const tt_op *op)
{
    kv_str(w, "const_eval_graph", op->const_eval);
    kv_bool(w, "const_eval_cache_miss", op->cache_miss);
    kv_bool(w, "is_weight_op", op->is_weight);
}

static void render_memory(const tt_log *log, json_writer *w)
{
    json_obj_begin(w);
    kv_cstr(w, "schema", "profq.tt_memory.v1");
    json_key(w, "metadata");
    json_obj_begin(w);
    json_key(w, "memory_config");
    json_obj_begin(w);
    const tt_op *first = NULL;
    for (size_t i = 0; i < log->nops && !first; i++)
        if (log->ops[i].mem_source != TT_MEM_NONE)
            first = &log->ops[i];
    for (int t = 0; t < TT_NMEM && first; t++) {
        json_key(w, TT_MEM_NAMES[t]);
        json_obj_begin(w);
        kv_int(w, "num_banks", first->mem[t].num_banks);
        kv_double(w, "total_bytes_per_bank_MB", first->mem[t].total_mb);
        json_obj_end(w);
    }
    json_obj_end(w);
    kv_uint(w, "total_operations", log->nops);
    pq_ttlog_info info;
    pq_ttlog_get_info(log, &info);
    kv_cstr(w, "log_shape", info.shape);
    kv_uint(w, "executed_ops", log->executed_ops);
    kv_uint(w, "op_blocks", log->op_blocks);
    kv_uint(w, "excluded_ops", log->excluded_ops);
    kv_uint(w, "malformed_blocks", log->malformed_blocks);
    kv_uint(w, "ops_without_block", log->ops_without_block);
    kv_uint(w, "programs", log->programs);
    kv_uint(w, "const_eval_programs", log->const_eval_programs);
    kv_uint(w, "cache_misses", log->cache_misses);
    json_key(w, "mlir_modules");
    json_arr_begin(w);
    for (size_t i = 0; i < log->nmodules; i++) {
        json_obj_begin(w);
        kv_str(w, "stage", log->modules[i].stage);
        kv_int(w, "offset", log->modules[i].offset);
        kv_uint(w, "lines", log->modules[i].lines);
        json_obj_end(w);
    }
    json_arr_end(w);
    json_key(w, "submits");
    json_arr_begin(w);
    for (size_t i = 0; i < log->nsubmits; i++) {
        const tt_submit *s = &log->submits[i];
        json_obj_begin(w);
        kv_uint(w, "submit", s->number);
        kv_cstr(w, "when", s->after ? "after" : "before");
        kv_int(w, "offset", s->offset);
        kv_uint(w, "operations_before", s->ops_before);
        json_key(w, "memory");
        memviews_json(w, s->mem);
        json_obj_end(w);
    }
    json_arr_end(w);
    json_key(w, "warnings");
    json_arr_begin(w);
    for (size_t i = 0; i < log->nwarnings; i++) {
        json_obj_begin(w);
        kv_int(w, "offset", log->warnings[i].offset);
        kv_cstr(w, "message", log->warnings[i].what);
        json_obj_end(w);
    }
    json_arr_end(w);
    json_obj_end(w);
    json_key(w, "operations");
    json_arr_begin(w);
    for (size_t i = 0; i < log->nops; i++) {
        const tt_op *op = &log->ops[i];
        json_obj_begin(w);
        kv_str(w, "op_type", op->op_type);
        json_key(w, "memory");
        if (op->mem_source == TT_MEM_NONE)
            json_null(w);
        else
            memviews_json(w, op->mem);
        kv_uint(w, "index", i);
        kv_str(w, "mlir_op", op->name);
        kv_str(w, "loc", op->loc);
        op_flags(w, op);
        json_key(w, "unpadded_memory");
        json_obj_begin(w);
        for (int t = 0; t < 2; t++) {
            const tt_live *l = &op->live[t];
            json_key(w, TT_MEM_NAMES[t]);
            json_obj_begin(w);
            kv_uint(w, "unpadded_bytes", l->unpadded_bytes);
            kv_uint(w, "padded_bytes", l->padded_bytes);
            kv_uint(w, "num_tensors", l->num_tensors);
            kv_double(w, "unpadded_MB", mb9(l->unpadded_bytes));
            kv_double(w, "padded_MB", mb9(l->padded_bytes));
            kv_double(w, "overhead_MB", mb9(l->padded_bytes - l->unpadded_bytes));
            kv_double(w, "overhead_pct",
                      l->unpadded_bytes ? pct6((double)(l->padded_bytes - l->unpadded_bytes) /
                                               (double)l->unpadded_bytes * 100.0)
                                        : 0.0);
            json_obj_end(w);
        }
        json_obj_end(w);
        kv_cstr(w, "memory_source", mem_source_name(op->mem_source));
        json_key(w, "submit");
        if (op->submit >= 0)
            json_int(w, op->submit);
        else
            json_null(w);
        kv_int(w, "offset", op->offset);
        json_obj_end(w);
    }
    json_arr_end(w);
    json_obj_end(w);
}

/* Splits S at top-level commas (brackets and quotes respected) and writes each trimmed part. */
static void split_list(json_writer *w, pq_str s)
{
    json_arr_begin(w);
    size_t i = 0, start = 0;
    int depth = 0, quote = 0;
    while (i <= s.n) {
        char c = i < s.n ? s.p[i] : ',';
        if (quote) {
            if (c == '\\')
                i++;
            else if (c == '"')
                quote = 0;
        } else if (c == '"') {
            quote = 1;
        } else if (c == '(' || c == '[' || c == '{' || c == '<') {
            depth++;
        } else if ((c == ')' || c == ']' || c == '}' || c == '>') && depth > 0) {
            if (!(c == '>' && i > 0 && s.p[i - 1] == '-'))
                depth--;
        } else if (c == ',' && depth == 0) {
            size_t a = start, b = i < s.n ? i : s.n;
            while (a < b && s.p[a] == ' ')
                a++;
            while (b > a && s.p[b - 1] == ' ')
                b--;
            if (b > a)
                json_str(w, s.p + a, b - a);
            start = i + 1;
        }
        i++;
    }
    json_arr_end(w);
}

static void kv_tensors(json_writer *w, const char *k, pq_str types, int want_dtype)
{
    json_key(w, k);
    json_arr_begin(w);
    size_t pos = 0;
    pq_str shape, dtype;
    while (ttlog_next_tensor(types, &pos, &shape, &dtype)) {
        pq_str v = want_dtype ? dtype : shape;
        json_str(w, v.p ? v.p : "", v.n);
    }
    json_arr_end(w);
}

static void render_operations(const tt_log *log, json_writer *w)
{
    json_arr_begin(w);
    for (size_t i = 0; i < log->nops; i++) {
        const tt_op *op = &log->ops[i];
        json_obj_begin(w);
        kv_str(w, "result", op->result);
        kv_str(w, "mlir_op", op->name);
        json_key(w, "inputs");
        split_list(w, op->operands);
        kv_str(w, "attributes", op->attributes);
        kv_str(w, "input_types", op->input_types);
        kv_str(w, "output_type", op->output_type);
        kv_tensors(w, "input_shapes", op->input_types, 0);
        kv_tensors(w, "input_dtypes", op->input_types, 1);
        kv_tensors(w, "output_shapes", op->output_type, 0);
        kv_tensors(w, "output_dtypes", op->output_type, 1);
        json_key(w, "output_layout_info");
        const tt_layout *l = &op->out;
        if (!l->present) {
            json_null(w);
        } else {
            json_obj_begin(w);
            json_key(w, "logical_shape");
            jdims(w, l->shape, l->ndims);
            kv_str(w, "dtype", l->dtype);
            kv_uint(w, "unpadded_bytes", l->unpadded_bytes);
            kv_bool(w, "is_tiled", l->tiled);
            json_key(w, "memref_shape");
            if (l->memref_ndims)
                jdims(w, l->memref_shape, l->memref_ndims);
            else
                json_null(w);
            json_key(w, "tile_size");
            if (l->tiled) {
                int64_t ts[2] = {l->tile_h, l->tile_w};
                jdims(w, ts, 2);
            } else {
                json_null(w);
            }
            json_key(w, "padded_shape");
            jdims(w, l->padded_shape, l->padded_ndims);
            kv_uint(w, "padded_bytes", l->padded_bytes);
            kv_str(w, "buffer_type", l->buffer_type);
            kv_double(w, "overhead_pct",
                      l->unpadded_bytes
                          ? pct6(((double)l->padded_bytes - (double)l->unpadded_bytes) /
                                 (double)l->unpadded_bytes * 100.0)
                          : 0.0);
            json_obj_end(w);
        }
        kv_str(w, "loc", op->loc);
        kv_uint(w, "index", i);
        op_flags(w, op);
        json_key(w, "weights");
        json_arr_begin(w);
        json_arr_end(w);
        kv_str(w, "op_type", op->op_type);
        json_obj_end(w);
    }
    json_arr_end(w);
}

/* ------------------------------------------------------------------------------------------
 * Markdown. */

const char TTMEM_PAD_NOTE[] = "Padding is reported in bytes; its ratio to the unpadded bytes is "
                              "shown only from 1 MiB unpadded on (a small tensor padded to one "
                              "32x32 tile has a ratio that means nothing).";

void ttmem_fmt_bytes(buf *b, uint64_t bytes)
{
    if (bytes < ((uint64_t)1 << 20))
        buf_printf(b, "%llu B", (unsigned long long)bytes);
    else
        buf_printf(b, "%.3f MB", (double)bytes / MB);
}

void ttmem_fmt_pad_of(buf *b, uint64_t unpadded, uint64_t pad)
{
    double pct;
    if (ttmem_pad_ratio(unpadded, unpadded + pad, &pct))
        buf_printf(b, "+%.1f%% ", pct);
    buf_puts(b, "over ");
    ttmem_fmt_bytes(b, unpadded);
    buf_puts(b, " unpadded");
}

void ttmem_fmt_ratio(buf *b, uint64_t unpadded, uint64_t padded)
{
    double pct;
    if (ttmem_pad_ratio(unpadded, padded, &pct))
        buf_printf(b, "%.1f%%", pct);
    else
        buf_putc(b, '-');
}

/* A table cell: '|' escaped, newlines and control bytes dropped, long text cut. */
static void md_cell(buf *b, pq_str s)
{
    if (!s.p || !s.n) {
        buf_puts(b, "-");
        return;
    }
    size_t n = s.n > 120 ? 120 : s.n;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s.p[i];
        if (c == '|' || c == '\\' || c == '`' || c == '<' || c == '>')
            buf_putc(b, '\\');
        if (c < 0x20)
            continue;
        buf_putc(b, (char)c);
    }
    if (n < s.n)
        buf_puts(b, "...");
}

static pq_str cstr(const char *s)
{
    pq_str v = {s, strlen(s)};
    return v;
}

static void render_md(const tt_log *log, const ttmem_result *r, const char *name, buf *b)
{
    buf_puts(b, "# Memory Profile: ");
    md_cell(b, cstr(name));
    buf_puts(b, "\n\n");
    const ttmem_type_stats *d = &r->type[TT_DRAM], *l1 = &r->type[TT_L1];
    double peak_dram = d->peak_mb;
    if (r->has_submit_peak && log->shape == TT_SHAPE_SUBMIT && r->submit_peak_mb > peak_dram)
        peak_dram = r->submit_peak_mb;
    buf_printf(b, "> Peak DRAM: %.3f MB/bank (%.1f%%) | Peak L1: %.3f MB/bank | Ops: %zu",
               peak_dram, d->capacity_mb > 0 ? peak_dram / d->capacity_mb * 100 : 0.0, l1->peak_mb,
               log->nops);
    if (r->has_weights)
        buf_printf(b, " | Weights: %.3f MB/bank", r->weights_baseline_mb);
    if (r->has_padding) {
        buf_puts(b, "\n> | Peak Padding: ");
        ttmem_fmt_bytes(b, r->peak_pad_bytes);
    }
    buf_puts(b, "\n\n");
    pq_ttlog_info info;
    pq_ttlog_get_info(log, &info);
    buf_printf(b,
               "Log shape: %s. %llu executed ops, %llu per-op memory blocks, %llu submit "
               "blocks,\n%llu excluded (deallocate/get_device), %llu malformed blocks.\n\n",
               info.shape, (unsigned long long)log->executed_ops,
               (unsigned long long)log->op_blocks, (unsigned long long)log->nsubmits,
               (unsigned long long)log->excluded_ops, (unsigned long long)log->malformed_blocks);
    buf_puts(b, "## Configuration\n\n| Memory | Banks | MB/bank |\n|---|---:|---:|\n");
    for (int t = 0; t < TT_NMEM; t++)
        if (r->type[t].present)
            buf_printf(b, "| %s | %lld | %.3f |\n", TT_MEM_NAMES[t],
                       (long long)r->type[t].num_banks, r->type[t].capacity_mb);
    buf_puts(b, "\n## Peak Memory\n\n| Type | Op# | Operation | Location | Allocated | Capacity "
                "| Utilization |\n|---|---:|---|---|---:|---:|---:|\n");
    for (int t = 0; t < TT_NMEM; t++) {
        const ttmem_type_stats *s = &r->type[t];
        if (!s->present)
            continue;
        const tt_op *op = &log->ops[s->peak_op];
        buf_printf(b, "| %s | %zu | ", TT_MEM_NAMES[t], s->peak_op);
        md_cell(b, op->name.n ? op->name : op->op_type);
        buf_puts(b, " | ");
        md_cell(b, op->loc);
        buf_printf(b, " | %.3f MB | %.3f MB | %.1f%% |\n", s->peak_mb, s->capacity_mb,
                   s->capacity_mb > 0 ? s->peak_mb / s->capacity_mb * 100 : 0.0);
    }
    if (r->has_submit_peak) {
        const tt_submit *s = &log->submits[r->submit_peak];
        buf_printf(b,
                   "\nPeak DRAM over submit blocks: %.3f MB/bank %s submit %llu (offset %lld).\n",
                   r->submit_peak_mb, s->after ? "after" : "before", (unsigned long long)s->number,
                   (long long)s->offset);
    }
    buf_puts(b, "\n## Top 10 Memory Consumers (DRAM)\n\n| Op# | Operation | Location | "
                "Growth MB/bank | DRAM MB/bank |\n|---:|---|---|---:|---:|\n");
    for (size_t k = 0; k < r->ngrowth; k++) {
        const tt_op *op = &log->ops[r->growth_op[k]];
        buf_printf(b, "| %zu | ", r->growth_op[k]);
        md_cell(b, op->name.n ? op->name : op->op_type);
        buf_puts(b, " | ");
        md_cell(b, op->loc);
        buf_printf(b, " | +%.3f | %.3f |\n", r->growth_mb[k], op->mem[TT_DRAM].alloc_mb);
    }
    if (!r->ngrowth)
        buf_puts(b, "| - | no op grew DRAM | | | |\n");
    buf_puts(b, "\n## Top 10 Padding Overhead\n\n");
    if (r->npad) {
        buf_puts(b, "| Op# | Operation | Output shape | Unpadded | Padded | Overhead |\n"
                    "|---:|---|---|---:|---:|---:|\n");
        for (size_t k = 0; k < r->npad; k++) {
            const tt_op *op = &log->ops[r->pad_op[k]];
            buf_printf(b, "| %zu | ", r->pad_op[k]);
            md_cell(b, op->name);
            buf_puts(b, " | ");
            for (int j = 0; j < op->out.ndims; j++)
                buf_printf(b, "%s%lld", j ? "x" : "", (long long)op->out.shape[j]);
            buf_printf(b, " %.*s | %.3f MB | %.3f MB | ", (int)op->out.dtype.n,
                       op->out.dtype.p ? op->out.dtype.p : "", (double)op->out.unpadded_bytes / MB,
                       (double)op->out.padded_bytes / MB);
            ttmem_fmt_ratio(b, op->out.unpadded_bytes, op->out.padded_bytes);
            buf_puts(b, " |\n");
        }
        if (r->has_padding) {
            buf_puts(b, "\nPeak live-tensor padding (DRAM): ");
            ttmem_fmt_bytes(b, r->peak_pad_bytes);
            buf_printf(b, " at op %zu (", r->peak_pad_op);
            ttmem_fmt_pad_of(b, r->peak_pad_unpadded, r->peak_pad_bytes);
            buf_puts(b, ").\n");
        }
        buf_putc(b, '\n');
        text_wrap(b, TTMEM_PAD_NOTE, TEXT_COLS, "");
        buf_putc(b, '\n');
    } else {
        buf_puts(b, "The log has no tiled op outputs (no op text with layouts).\n");
    }
    buf_puts(b, "\n## Model Weights\n\n");
    if (r->has_weights)
        buf_printf(b,
                   "%llu const-eval (weight) ops. DRAM at the first non-weight op (#%zu): "
                   "%.3f MB/bank,\ncounted as weights; growth beyond it is activations.\n",
                   (unsigned long long)r->weight_ops, r->baseline_op, r->weights_baseline_mb);
    else
        buf_puts(b, "The log does not tell (no const-eval programs).\n");
    buf_puts(b, "\n## Operation Distribution\n\n| Operation | Count | % |\n|---|---:|---:|\n");
    for (size_t k = 0; k < r->ndist; k++) {
        buf_puts(b, "| ");
        md_cell(b, r->dist[k].name);
        buf_printf(b, " | %llu | %.1f%% |\n", (unsigned long long)r->dist[k].count,
                   log->nops ? (double)r->dist[k].count * 100.0 / (double)log->nops : 0.0);
    }
}

void ttmem_render(const tt_log *log, const ttmem_result *r, pq_tt_output what, const char *name,
                  buf *b)
{
    json_writer w;
    switch (what) {
    case PQ_TT_MEMORY_JSON:
        json_init(&w, b, 1);
        render_memory(log, &w);
        buf_putc(b, '\n');
        break;
    case PQ_TT_OPERATIONS_JSON:
        json_init(&w, b, 1);
        render_operations(log, &w);
        buf_putc(b, '\n');
        break;
    case PQ_TT_SUMMARY_MD:
        render_md(log, r, name, b);
        break;
    case PQ_TT_REPORT_HTML:
        tthtml_render(log, r, name, b);
        break;
    }
}
