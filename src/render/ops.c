/* ops.c - renders `profq ops` (profq.ops.v1, XProf's hlo_stats DataTable) and
 * `profq roofline` (profq.roofline.v1) from analysis/ops. Formats only; the figures and
 * formulas are ops_compute's and ops_rates'. Every text report opens with the windows, and
 * with a warning when idle time is more than half of the captured window. */
#include "analysis/ops.h"
#include "op_profile.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double sdiv(double a, double b)
{
    return fabs(b) < 1e-10 ? 0.0 : a / b;
}

static double gibps(double bytes, int64_t ps)
{
    return ops_giga_to_gibi(sdiv(bytes, (double)ps / 1e3));
}

static double gflops(double flops, int64_t ps)
{
    return sdiv(flops, (double)ps / 1e3);
}

static pq_str prog_name(const ops_result *r, uint64_t pid)
{
    for (size_t i = 0; i < r->nprograms; i++)
        if (r->programs[i].program_id == pid)
            return r->programs[i].name;
    return pq_str_of("", 0);
}

/* ---- shared text header: windows, the idle warning, peaks ---- */

static void text_ms(buf *b, int64_t ps)
{
    buf_printf(b, "%.3f ms", (double)ps / 1e9);
}

static void text_windows(buf *b, const ops_result *r)
{
    if (r->ndevices == 0) {
        buf_puts(b, "no op events in this profile (TPU XLA Ops, GPU stream kernels or XLA:CPU "
                    "thunks with hlo_op stats)\n");
        return;
    }
    double idle_frac = sdiv((double)r->idle_ps, (double)r->total_time_ps);
    if (idle_frac > 0.5) {
        buf_printf(b,
                   "WARNING: devices were idle %.1f%% of the captured window; rates over the "
                   "whole window are diluted, see the active-window figures beside them.\n",
                   idle_frac * 100);
    }
    double nd = (double)r->ndevices;
    buf_printf(b, "window (per device, %u %s device%s): captured ", r->ndevices, r->device_type,
               r->ndevices == 1 ? "" : "s");
    text_ms(b, (int64_t)((double)r->window_ps / nd));
    buf_puts(b, ", in modules ");
    text_ms(b, (int64_t)((double)r->module_ps / nd));
    buf_puts(b, ", in ops ");
    text_ms(b, (int64_t)((double)r->total_op_time_ps / nd));
    buf_printf(b, " (busy %.1f%%), idle ", 100 * sdiv((double)r->busy_ps, (double)r->window_ps));
    text_ms(b, (int64_t)((double)r->idle_ps / nd));
    buf_printf(b, " (%.1f%%)\n", idle_frac * 100);
    if (r->has_dominant) {
        const ops_program *d = NULL;
        for (size_t i = 0; i < r->nprograms; i++)
            if (r->programs[i].program_id == r->dominant_program)
                d = &r->programs[i];
        if (d) {
            double steady_flops =
                d->flops * sdiv((double)d->steady_executions, (double)d->executions);
            double steady_hbm =
                d->hbm_bytes * sdiv((double)d->steady_executions, (double)d->executions);
            buf_printf(b,
                       "steady state (%.*s, %" PRId64 " of %" PRId64
                       " executions, first per device dropped): module time ",
                       (int)d->name.n, d->name.p, d->steady_executions, d->executions);
            text_ms(b, (int64_t)((double)d->steady_module_ps / nd));
            buf_printf(b, " per device, %.3g GFLOP/s, HBM %.3g GiB/s\n",
                       gflops(steady_flops, d->steady_module_ps),
                       gibps(steady_hbm, d->steady_module_ps));
        }
    }
    buf_puts(b, "peaks (per device): ");
    if (r->peaks.tflops > 0 && r->peaks.derived_flops && !r->peaks.user_flops)
        buf_printf(b, "%.6g TFLOP/s (%s: %.6g cores x %.6g GHz x %.6g FLOP/cycle)", r->peaks.tflops,
                   r->gpu_model, r->peaks.cores, r->peaks.clock_ghz, r->peaks.flops_per_cycle);
    else if (r->peaks.tflops > 0)
        buf_printf(b, "%.6g TFLOP/s%s", r->peaks.tflops,
                   r->peaks.user_flops ? " (--peak-flops)" : "");
    else
        buf_puts(b, "FLOP/s unknown");
    if (r->peaks.bws[0] > 0)
        buf_printf(b, ", HBM %.6g GB/s%s\n", r->peaks.bws[0],
                   r->peaks.user_bw ? " (--peak-bw)" : "");
    else
        buf_puts(b, ", HBM bandwidth unknown\n");
}

/* ---- grouping ---- */

typedef struct group_row {
    pq_str key;
    uint64_t program_id;
    op_metrics m;
} group_row;

static int grp_cmp(const void *a, const void *b)
{
    const group_row *x = a, *y = b;
    if (x->m.self_time_ps != y->m.self_time_ps)
        return x->m.self_time_ps > y->m.self_time_ps ? -1 : 1;
    size_t n = x->key.n < y->key.n ? x->key.n : y->key.n;
    int c = n ? memcmp(x->key.p, y->key.p, n) : 0;
    if (c)
        return c;
    if (x->key.n != y->key.n)
        return x->key.n < y->key.n ? -1 : 1;
    return x->program_id < y->program_id ? -1 : x->program_id > y->program_id;
}

static void add_metrics(op_metrics *d, const op_metrics *s)
{
    d->occurrences += s->occurrences;
    d->time_ps += s->time_ps;
    d->self_time_ps += s->self_time_ps;
    d->flops += s->flops;
    d->model_flops += s->model_flops;
    d->bytes_accessed += s->bytes_accessed;
    d->bd_hbm += s->has_breakdown ? s->bd_hbm : s->bytes_accessed;
    d->bd_cmem_rd += s->bd_cmem_rd;
    d->bd_cmem_wr += s->bd_cmem_wr;
    d->bd_vmem_rd += s->bd_vmem_rd;
    d->bd_vmem_wr += s->bd_vmem_wr;
    d->has_breakdown = 1; /* bd_hbm now holds HBM bytes either way */
    d->dma_stall_ps += s->dma_stall_ps;
}

/* Rows for --by category|program (idle excluded); NULL on allocation failure. */
static group_row *group_rows(const ops_result *r, pq_ops_group by, size_t *n)
{
    group_row *g = pq_calloc(r->nops + 1, sizeof *g);
    if (!g)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < r->nops; i++) {
        const op_metrics *m = &r->ops[i];
        if (m->is_idle)
            continue;
        pq_str key = by == PQ_OPS_BY_CATEGORY ? m->category : prog_name(r, m->program_id);
        uint64_t pid = by == PQ_OPS_BY_PROGRAM ? m->program_id : 0;
        size_t j;
        for (j = 0; j < k; j++)
            if (g[j].program_id == pid && g[j].key.n == key.n &&
                (key.n == 0 || memcmp(g[j].key.p, key.p, key.n) == 0))
                break;
        if (j == k) {
            g[k].key = key;
            g[k].program_id = pid;
            g[k].m.name = key;
            g[k].m.category = by == PQ_OPS_BY_CATEGORY ? key : pq_str_of("", 0);
            g[k].m.program_id = pid;
            k++;
        }
        add_metrics(&g[j].m, m);
    }
    qsort(g, k, sizeof *g, grp_cmp);
    *n = k;
    return g;
}

/* ---- profq.ops.v1 ---- */

static void json_pstr(json_writer *w, pq_str s)
{
    json_str(w, s.p, s.n);
}

static void json_u64_string(json_writer *w, uint64_t v)
{
    char t[24];
    snprintf(t, sizeof t, "%" PRIu64, v);
    json_cstr(w, t);
}

static void json_peak(json_writer *w, const char *key, double v)
{
    json_key(w, key);
    if (v > 0)
        json_double(w, v);
    else
        json_null(w);
}

static void json_header(json_writer *w, const ops_result *r, const char *schema)
{
    json_key(w, "schema");
    json_cstr(w, schema);
    json_key(w, "hardware");
    json_cstr(w, r->hw == OPS_HW_TPU   ? "tpu"
                 : r->hw == OPS_HW_GPU ? "gpu"
                 : r->hw == OPS_HW_CPU ? "cpu"
                                       : "none");
    json_key(w, "device_type");
    json_cstr(w, r->device_type);
    json_key(w, "devices");
    json_uint(w, r->ndevices);
    json_key(w, "peaks");
    json_obj_begin(w);
    json_peak(w, "tflops", r->peaks.tflops);
    json_peak(w, "hbm_gbps", r->peaks.bws[0]);
    json_key(w, "source");
    json_cstr(w, r->peaks.user_flops || r->peaks.user_bw ? "input+user" : "input");
    if (r->gpu_model[0]) {
        json_key(w, "gpu_model");
        json_cstr(w, r->gpu_model);
    }
    if (r->peaks.derived_flops || r->peaks.derived_sram) {
        /* derived from the plane's core count and clock and the architecture's rates */
        json_key(w, "cores");
        json_double(w, r->peaks.cores);
        json_key(w, "clock_ghz");
        json_double(w, r->peaks.clock_ghz);
        json_key(w, "flops_per_core_cycle");
        json_double(w, r->peaks.flops_per_cycle);
        json_key(w, "sram_bytes_per_core_cycle");
        json_double(w, r->peaks.sram_bytes_per_cycle);
    }
    json_obj_end(w);
    json_key(w, "windows");
    json_obj_begin(w);
    json_key(w, "captured_ps");
    json_int(w, r->window_ps);
    json_key(w, "in_modules_ps");
    json_int(w, r->module_ps);
    json_key(w, "in_ops_ps");
    json_int(w, r->total_op_time_ps);
    json_key(w, "busy_ps");
    json_int(w, r->busy_ps);
    json_key(w, "idle_ps");
    json_int(w, r->idle_ps);
    json_key(w, "idle_fraction");
    json_double(w, sdiv((double)r->idle_ps, (double)r->total_time_ps));
    json_key(w, "idle_over_half");
    json_bool(w, sdiv((double)r->idle_ps, (double)r->total_time_ps) > 0.5);
    json_key(w, "steady_state");
    if (r->has_dominant) {
        json_obj_begin(w);
        json_key(w, "program_id");
        json_u64_string(w, r->dominant_program);
        json_key(w, "in_modules_ps");
        json_int(w, r->steady_window_ps);
        json_key(w, "in_ops_ps");
        json_int(w, r->steady_busy_ps);
        json_obj_end(w);
    } else {
        json_null(w);
    }
    json_obj_end(w);
}

static void json_rates(json_writer *w, const ops_result *r, const op_metrics *m)
{
    op_rates o;
    ops_rates(r, m, &o);
    json_key(w, "gflops_per_s");
    json_double(w, o.flop_rate_gflops);
    json_key(w, "model_gflops_per_s");
    json_double(w, o.model_flop_rate);
    json_key(w, "memory_gibps");
    json_double(w, o.mem_bw_gibps);
    json_key(w, "hbm_gibps");
    json_double(w, o.hbm_bw_gibps);
    if (r->hw == OPS_HW_TPU) {
        json_key(w, "cmem_read_gibps");
        json_double(w, o.cmem_rd_gibps);
        json_key(w, "cmem_write_gibps");
        json_double(w, o.cmem_wr_gibps);
        json_key(w, "vmem_read_gibps");
        json_double(w, o.vmem_rd_gibps);
        json_key(w, "vmem_write_gibps");
        json_double(w, o.vmem_wr_gibps);
    }
    json_key(w, "operational_intensity");
    json_double(w, o.oi);
    json_key(w, "bound_by");
    json_cstr(w, o.bound_by);
}

static void json_op(json_writer *w, const ops_result *r, const op_metrics *m, int rank, double cum)
{
    json_obj_begin(w);
    json_key(w, "rank");
    json_int(w, rank);
    json_key(w, "name");
    json_pstr(w, m->name);
    json_key(w, "program_id");
    json_u64_string(w, m->program_id);
    json_key(w, "program");
    json_pstr(w, prog_name(r, m->program_id));
    json_key(w, "category");
    json_pstr(w, m->category);
    json_key(w, "provenance");
    json_pstr(w, m->provenance);
    json_key(w, "occurrences");
    json_int(w, m->occurrences);
    json_key(w, "time_ps");
    json_int(w, m->time_ps);
    json_key(w, "self_time_ps");
    json_int(w, m->self_time_ps);
    json_key(w, "self_fraction");
    json_double(w, sdiv((double)m->self_time_ps, (double)r->total_time_ps));
    json_key(w, "cumulative_fraction");
    json_double(w, cum);
    json_key(w, "flops");
    json_double(w, m->flops);
    json_key(w, "model_flops");
    json_double(w, m->model_flops);
    json_key(w, "bytes_accessed");
    json_double(w, m->bytes_accessed);
    json_rates(w, r, m);
    json_obj_end(w);
}

/* ---- XProf hlo_stats (spec 5.7, DataTable 5.12) ---- */

static void dt_num(buf *b, double v)
{
    char t[40];
    json_format_double(t, sizeof t, v);
    /* nlohmann prints integral doubles with ".0" */
    buf_puts(b, "{\"v\":");
    buf_puts(b, t);
    if (!strpbrk(t, ".eEn"))
        buf_puts(b, ".0");
    buf_puts(b, "}");
}

static void dt_str(buf *b, pq_str s)
{
    buf_puts(b, "{\"v\":\"");
    json_escape_into(b, s.p, s.n);
    buf_puts(b, "\"}");
}

static void dt_cstr(buf *b, const char *s)
{
    dt_str(b, pq_str_of(s, strlen(s)));
}

static void html_escape(buf *b, pq_str s)
{
    size_t run = 0;
    for (size_t i = 0; i < s.n; i++) {
        const char *rep = NULL;
        switch (s.p[i]) {
        case '&':
            rep = "&amp;";
            break;
        case '<':
            rep = "&lt;";
            break;
        case '>':
            rep = "&gt;";
            break;
        case '"':
            rep = "&quot;";
            break;
        case '\'':
            rep = "&#39;";
            break;
        default:
            break;
        }
        if (!rep)
            continue;
        json_escape_into(b, s.p + run, i - run);
        json_escape_into(b, rep, strlen(rep));
        run = i + 1;
    }
    json_escape_into(b, s.p + run, s.n - run);
}

/* XProf's source_info cell: the HTML div around "file:line" with the stack as its title, or
 * "" when the op states no source (spec 5.7). */
static void dt_source(buf *b, const op_metrics *m)
{
    pq_str file = m->source;
    size_t k = file.n;
    while (k > 0 && file.p[k - 1] != ':')
        k--;
    if (k == 0 || k == 1 || k == file.n) {
        dt_cstr(b, "");
        return;
    }
    pq_str line = pq_str_of(file.p + k, file.n - k);
    file.n = k - 1;
    buf_puts(b, "{\"v\":\"<div class='source-info-cell' title='");
    html_escape(b, m->source_stack);
    buf_puts(b, "'>");
    html_escape(b, file);
    buf_putc(b, ':');
    html_escape(b, line);
    buf_puts(b, "</div>\"}");
}

static int str_contains(pq_str s, const char *lit)
{
    size_t n = strlen(lit);
    for (size_t i = 0; i + n <= s.n; i++)
        if (memcmp(s.p + i, lit, n) == 0)
            return 1;
    return 0;
}

static void hlo_stats_table(buf *b, const ops_result *r)
{
    static const char *const cols[][3] = {
        {"rank", "Rank", "number"},
        {"program_id", "Program id", "string"},
        {"category", "HLO op category", "string"},
        {"hlo_op_name", "HLO op name", "string"},
        {"hlo_op_expression", "HLO op text", "string"},
        {"tf_op_name", "Framework op name", "string"},
        {"occurrences", "#Occurrences", "number"},
        {"total_time", "Total time (us)", "number"},
        {"avg_time", "Avg. time (us)", "number"},
        {"total_self_time", "Total self time (us)", "number"},
        {"avg_self_time", "Avg. self time (us)", "number"},
        {"total_self_time_percent", "Total self time (%)", "number"},
        {"cumulative_total_self_time_percent", "Cumulative total self time (%)", "number"},
        {"dma_stall_percent", "%time stalled by DMA", "number"},
        {"model_flop_rate", "Model GFLOP/s", "number"},
        {"normalized_flop_rate", "Normalized GFLOP/s", "number"},
        {"measured_memory_bw", "Measured memory BW (GiB/s)", "number"},
        {"hbm_bw", "HBM BW (GiB/s)", "number"},
        {"cmem_read_bw", "CMEM Read BW (GiB/s)", "number"},
        {"cmem_write_bw", "CMEM Write BW (GiB/s)", "number"},
        {"operational_intensity", "Operational intensity (FLOPS/Byte)", "number"},
        {"bound_by", "Bound by", "string"},
        {"hlo_rematerialization", "Rematerialization", "string"},
        {"outside_compilation", "Outside Compilation", "string"},
        {"autotuned", "Autotuned", "string"},
        {"source_info", "Source Info", "string"},
        {"core_type", "TPU core type", "string"},
        {"parent_op_name", "Parent op name", "string"},
        {"vdd_energy", "VDD Energy (J)", "number"},
    };
    buf_puts(b, "{\"cols\":[");
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        buf_printf(b, "%s{\"id\":\"%s\",\"label\":\"%s\",\"type\":\"%s\"}", i ? "," : "",
                   cols[i][0], cols[i][1], cols[i][2]);
    buf_puts(b, "],\"rows\":[");
    double total_us = (double)r->total_time_ps / 1e6, cum = 0;
    int rank = 0;
    for (size_t i = 0; i < r->nops; i++) {
        const op_metrics *m = &r->ops[i];
        if (m->occurrences == 0)
            continue;
        op_rates o;
        ops_rates(r, m, &o);
        rank++;
        double t_us = (double)m->time_ps / 1e6, s_us = (double)m->self_time_ps / 1e6;
        double frac = sdiv(s_us, total_us);
        cum += frac;
        pq_str expr = m->long_name.n ? m->long_name : m->name;
        pq_str opname = expr;
        for (size_t k = 0; k + 3 <= expr.n; k++)
            if (memcmp(expr.p + k, " = ", 3) == 0) {
                opname.n = k;
                break;
            }
        if (opname.n && opname.p[0] == '%') {
            opname.p++;
            opname.n--;
        }
        char pid[24];
        snprintf(pid, sizeof pid, "%" PRIu64, m->program_id);
        pq_str lhs = expr;
        for (size_t k = 0; k < expr.n; k++)
            if (expr.p[k] == '=') {
                lhs.n = k;
                break;
            }
        int remat =
            str_contains(lhs, ".remat") || str_contains(m->provenance, "/rematted_computation/");
        buf_puts(b, rank > 1 ? ",{\"c\":[" : "{\"c\":[");
        dt_num(b, rank);
        buf_putc(b, ',');
        dt_cstr(b, pid);
        buf_putc(b, ',');
        dt_str(b, m->category);
        buf_putc(b, ',');
        dt_str(b, opname);
        buf_putc(b, ',');
        dt_str(b, expr);
        buf_putc(b, ',');
        if (m->provenance_from_hlo && m->provenance.n) {
            buf_puts(b, "{\"v\":\"");
            json_escape_into(b, m->provenance.p, m->provenance.n);
            buf_putc(b, ':');
            json_escape_into(b, m->op_type.p, m->op_type.n);
            buf_puts(b, "\"}");
        } else {
            dt_str(b, m->provenance);
        }
        buf_putc(b, ',');
        dt_num(b, (double)m->occurrences);
        buf_putc(b, ',');
        dt_num(b, t_us);
        buf_putc(b, ',');
        dt_num(b, sdiv(t_us, (double)m->occurrences));
        buf_putc(b, ',');
        dt_num(b, s_us);
        buf_putc(b, ',');
        dt_num(b, sdiv(s_us, (double)m->occurrences));
        buf_putc(b, ',');
        dt_num(b, frac * 100);
        buf_putc(b, ',');
        dt_num(b, cum * 100);
        buf_putc(b, ',');
        dt_num(b, sdiv((double)m->dma_stall_ps, (double)m->time_ps));
        buf_putc(b, ',');
        dt_num(b, o.model_flop_rate);
        buf_putc(b, ',');
        dt_num(b, o.flop_rate_gflops);
        buf_putc(b, ',');
        dt_num(b, o.mem_bw_gibps);
        buf_putc(b, ',');
        dt_num(b, o.hbm_bw_gibps);
        buf_putc(b, ',');
        dt_num(b, o.cmem_rd_gibps);
        buf_putc(b, ',');
        dt_num(b, o.cmem_wr_gibps);
        buf_putc(b, ',');
        dt_num(b, o.oi);
        buf_putc(b, ',');
        dt_cstr(b, o.bound_by);
        buf_putc(b, ',');
        dt_cstr(b, remat ? "Yes" : "No");
        buf_putc(b, ',');
        dt_cstr(b, "No");
        buf_putc(b, ',');
        dt_cstr(b, "No");
        buf_putc(b, ',');
        dt_source(b, m);
        buf_putc(b, ',');
        dt_cstr(b, r->hw == OPS_HW_TPU ? "TensorCore" : "");
        buf_putc(b, ',');
        dt_cstr(b, "");
        buf_putc(b, ',');
        dt_num(b, 0);
        buf_puts(b, "]}");
    }
    buf_puts(b, "]}");
}

/* ---- XProf roofline_model (spec 5.8) ---- */

typedef struct roof_ctx {
    const ops_result *r;
    int gpu;
    double peak_flops, peak_hbm, peak_cmem_rd, peak_cmem_wr, peak_vmem_rd, peak_vmem_wr;
    int64_t total_ps;
} roof_ctx;

static int is_infeed_outfeed(pq_str cat)
{
    return str_contains(cat, "infeed") || str_contains(cat, "outfeed");
}

/* One roofline record. M's HBM bytes follow ops_rates; PROGRAM marks the "Program" row. */
static void roof_row(buf *b, const roof_ctx *c, const char *step, int rank, const op_metrics *m,
                     int program, double frac, double cum, int incl, int first)
{
    const ops_result *r = c->r;
    op_rates o;
    ops_rates(r, m, &o);
    double t_us = (double)m->time_ps / 1e6, s_us = (double)m->self_time_ps / 1e6;
    double occ = program ? 1 : (double)m->occurrences;
    double flop_util = sdiv(o.flop_rate_gflops, c->peak_flops);
    double mem = sdiv(o.hbm_bw_gibps, c->peak_hbm);
    if (!c->gpu && r->peaks.has_cmem) {
        mem = fmax(mem, sdiv(o.cmem_rd_gibps, c->peak_cmem_rd));
        mem = fmax(mem, sdiv(o.cmem_wr_gibps, c->peak_cmem_wr));
    }
    if (c->gpu || r->peaks.has_merged_vmem) {
        mem = fmax(mem, sdiv(o.vmem_rd_gibps, c->peak_vmem_rd));
        mem = fmax(mem, sdiv(o.vmem_wr_gibps, c->peak_vmem_wr));
    }
    double eff = fmax(flop_util, mem);
    char pid[24];
    snprintf(pid, sizeof pid, "%" PRIu64, program ? (uint64_t)0 : m->program_id);
    pq_str name = program ? pq_str_of("Program", 7) : m->name;
    pq_str cat = program ? pq_str_of("Program", 7) : m->category;
    buf_puts(b, first ? "{\"c\":[" : ",{\"c\":[");
    dt_cstr(b, step);
    buf_putc(b, ',');
    dt_num(b, rank);
    buf_putc(b, ',');
    dt_str(b, cat);
    buf_putc(b, ',');
    dt_str(b, name);
    double v1[] = {occ, t_us, sdiv(t_us, occ), s_us, sdiv(s_us, occ), frac, cum};
    for (size_t i = 0; i < sizeof v1 / sizeof v1[0]; i++) {
        buf_putc(b, ',');
        dt_num(b, v1[i]);
    }
    if (!c->gpu) {
        buf_putc(b, ',');
        dt_num(b, sdiv((double)m->dma_stall_ps, (double)m->time_ps));
    }
    buf_putc(b, ',');
    dt_num(b, o.flop_rate_gflops);
    buf_putc(b, ',');
    dt_num(b, o.model_flop_rate);
    buf_putc(b, ',');
    dt_num(b, o.mem_bw_gibps);
    buf_putc(b, ',');
    dt_num(b, o.hbm_bw_gibps);
    if (!c->gpu) {
        double v2[] = {o.cmem_rd_gibps, o.cmem_wr_gibps, o.vmem_rd_gibps};
        for (size_t i = 0; i < 3; i++) {
            buf_putc(b, ',');
            dt_num(b, v2[i]);
        }
    }
    buf_putc(b, ',');
    dt_num(b, o.vmem_wr_gibps);
    buf_putc(b, ',');
    dt_num(b, o.oi);
    buf_putc(b, ',');
    dt_num(b, o.hbm_oi);
    if (!c->gpu) {
        double v3[] = {sdiv(m->flops, m->bd_cmem_rd), sdiv(m->flops, m->bd_cmem_wr),
                       sdiv(m->flops, m->bd_vmem_rd)};
        for (size_t i = 0; i < 3; i++) {
            buf_putc(b, ',');
            dt_num(b, v3[i]);
        }
    }
    buf_putc(b, ',');
    dt_num(b, sdiv(m->flops, m->bd_vmem_wr));
    buf_putc(b, ',');
    dt_num(b, o.bottleneck_oi);
    buf_putc(b, ',');
    dt_cstr(b, o.bound_by);
    double v4[] = {t_us / (r->device_planes ? r->device_planes : 1),
                   sdiv((double)m->time_ps, (double)c->total_ps),
                   sdiv(o.flop_rate_gflops, eff),
                   eff,
                   flop_util,
                   mem};
    for (size_t i = 0; i < sizeof v4 / sizeof v4[0]; i++) {
        buf_putc(b, ',');
        dt_num(b, v4[i]);
    }
    buf_puts(b, incl ? ",{\"v\":true}," : ",{\"v\":false},");
    dt_cstr(b, pid);
    buf_putc(b, ',');
    if (program)
        dt_cstr(b, "");
    else
        dt_source(b, m);
    buf_puts(b, "]}");
}

static void roofline_model_table(buf *b, const ops_result *r)
{
    roof_ctx c = {0};
    c.r = r;
    c.gpu = r->hw == OPS_HW_GPU || r->hw == OPS_HW_CPU; /* none: XProf's TPU-style columns */
    const ops_peaks *pk = &r->peaks;
    c.peak_flops = pk->tflops * 1000;
    c.peak_hbm = ops_giga_to_gibi(pk->bws[0]);
    if (c.gpu) {
        c.peak_vmem_rd = ops_giga_to_gibi(pk->bws[1]);
        c.peak_vmem_wr = ops_giga_to_gibi(pk->bws[2]);
    } else if (pk->has_cmem) {
        c.peak_cmem_rd = ops_giga_to_gibi(pk->bws[3]);
        c.peak_cmem_wr = ops_giga_to_gibi(pk->bws[4]);
    } else if (pk->has_merged_vmem) {
        c.peak_vmem_rd = ops_giga_to_gibi(pk->bws[5]);
        c.peak_vmem_wr = ops_giga_to_gibi(pk->bws[6]);
    }
    static const char *const tpu_cols[][3] = {
        {"step", "Step", "string"},
        {"rank", "Rank", "number"},
        {"category", "Category", "string"},
        {"operation", "Operation", "string"},
        {"occurrences", "# Occurrences", "number"},
        {"total_time", "Total Time (us)", "number"},
        {"avg_time", "Avg. time (us)", "number"},
        {"total_self_time", "Total self time (us)", "number"},
        {"avg_self_time", "Avg. self time (us)", "number"},
        {"total_self_time_percent", "Total self time (%)", "number"},
        {"cumulative_total_self_time_percent", "Cumulative total self time (%)", "number"},
        {"dma_stall_percent", "%time stalled by DMA", "number"},
        {"measured_flop_rate", "Normalized FLOP Rate (GFLOP/s)", "number"},
        {"model_flop_rate", "Model FLOP Rate (GFLOP/s)", "number"},
        {"measured_memory_bw", "Memory BW (GiB/s)", "number"},
        {"hbm_bw", "HBM BW (GiB/s)", "number"},
        {"cmem_read_bw", "CMEM Read BW (GiB/s)", "number"},
        {"cmem_write_bw", "CMEM Write BW (GiB/s)", "number"},
        {"vmem_read_bw", "VMEM Read BW (GiB/s)", "number"},
        {"vmem_write_bw", "VMEM Write BW (GiB/s)", "number"},
        {"operational_intensity", "Operational Intensity (FLOP/Byte)", "number"},
        {"hbm_operational_intensity", "HBM Operational Intensity (FLOP/Byte)", "number"},
        {"cmem_read_operational_intensity", "CMEM Read Operational Intensity (FLOP/Byte)",
         "number"},
        {"cmem_write_operational_intensity", "CMEM Write Operational Intensity (FLOP/Byte)",
         "number"},
        {"vmem_read_operational_intensity", "VMEM Read Operational Intensity (FLOP/Byte)",
         "number"},
        {"vmem_write_operational_intensity", "VMEM Write Operational Intensity (FLOP/Byte)",
         "number"},
        {"bottleneck_operational_intensity", "Bottleneck Operational Intensity (FLOP/Byte)",
         "number"},
        {"bound_by", "Bound by", "string"},
        {"total_time_per_core", "Total Time per core (us)", "number"},
        {"total_time_in_percentage", "Total Time (%)", "number"},
        {"optimal_flop_rate", "Optimal FLOP Rate (GFLOP/s)", "number"},
        {"roofline_efficiency", "Roofline efficiency (%)", "number"},
        {"compute_efficiency", "FLOP Rate / Peak (%)", "number"},
        {"max_mem_bw_utilization", "Max memory BW utilization (among supported memories) (%)",
         "number"},
        {"include_infeed_outfeed", "Include Infeed/Outfeed", "boolean"},
        {"hlo_module_id", "Program ID", "string"},
        {"source_info", "Source Info", "string"},
    };
    buf_puts(b, "[{\"cols\":[");
    int first = 1;
    for (size_t i = 0; i < sizeof tpu_cols / sizeof tpu_cols[0]; i++) {
        const char *id = tpu_cols[i][0], *label = tpu_cols[i][1];
        if (c.gpu && (strcmp(id, "dma_stall_percent") == 0 || strncmp(id, "cmem_", 5) == 0 ||
                      strncmp(id, "vmem_read_", 10) == 0))
            continue;
        if (c.gpu && strcmp(id, "vmem_write_bw") == 0)
            label = "SHM/L1 BW (GiB/s)";
        if (c.gpu && strcmp(id, "vmem_write_operational_intensity") == 0)
            label = "SHM/L1 Operational Intensity (FLOP/Byte)";
        buf_printf(b, "%s{\"id\":\"%s\",\"label\":\"%s\",\"type\":\"%s\"}", first ? "" : ",", id,
                   label, tpu_cols[i][2]);
        first = 0;
    }
    buf_puts(b, "],\"p\":{");
    char t[64];
    double ridge = sdiv(c.peak_flops, pk->bws[0]);
    if (c.gpu) {
        buf_printf(b, "\"device_type\":\"%s\"", r->gpu_model[0] ? r->gpu_model : r->device_type);
        snprintf(t, sizeof t, "%g", c.peak_flops);
        buf_printf(b, ",\"hbm_ridge_point\":\"%g\"", ridge);
        buf_printf(b, ",\"peak_flop_rate\":\"%s\"", t);
        buf_printf(b, ",\"peak_hbm_bw\":\"%g\"", c.peak_hbm);
        buf_printf(b, ",\"peak_vmem_write_bw\":\"%g\"", c.peak_vmem_wr);
        buf_printf(b, ",\"vmem_write_ridge_point\":\"%g\"", sdiv(c.peak_flops, pk->bws[2]));
    } else {
        buf_printf(b, "\"cmem_read_ridge_point\":\"%g\"",
                   sdiv(c.peak_flops, c.peak_cmem_rd / 0.9313225746154785));
        buf_printf(b, ",\"cmem_write_ridge_point\":\"%g\"",
                   sdiv(c.peak_flops, c.peak_cmem_wr / 0.9313225746154785));
        buf_printf(b, ",\"device_type\":\"");
        json_escape_into(b, r->device_type, strlen(r->device_type));
        buf_printf(b, "\",\"has_cmem\":\"%d\",\"has_merged_vmem\":\"%d\"", pk->has_cmem,
                   pk->has_merged_vmem);
        buf_printf(b, ",\"hbm_ridge_point\":\"%g\",\"megacore\":\"%d\"", ridge, pk->has_megacore);
        buf_printf(b, ",\"peak_cmem_read_bw\":\"%g\",\"peak_cmem_write_bw\":\"%g\"", c.peak_cmem_rd,
                   c.peak_cmem_wr);
        buf_printf(b, ",\"peak_flop_rate\":\"%g\",\"peak_hbm_bw\":\"%g\"", c.peak_flops,
                   c.peak_hbm);
        buf_printf(b, ",\"peak_vmem_read_bw\":\"%g\",\"peak_vmem_write_bw\":\"%g\"", c.peak_vmem_rd,
                   c.peak_vmem_wr);
        buf_printf(b, ",\"time_scale_multiplier\":\"%g\"",
                   sdiv(r->normalized_total_op_time_ps, (double)r->total_op_time_ps));
        buf_printf(b, ",\"vmem_read_ridge_point\":\"%g\"",
                   sdiv(c.peak_flops, c.peak_vmem_rd / 0.9313225746154785));
        buf_printf(b, ",\"vmem_write_ridge_point\":\"%g\"",
                   sdiv(c.peak_flops, c.peak_vmem_wr / 0.9313225746154785));
    }
    buf_puts(b, "},\"rows\":[");
    first = 1;
    /* No device ops (a CPU-only run): XProf writes no rows and no diagnostics. */
    int none = r->hw == OPS_HW_NONE;
    for (int incl = 1; incl >= 0 && !none; incl--) {
        /* The "Program" record: ops outside call/conditional/while/megacore fusion; breakdowns
         * summed as XProf does (see pq_render_roofline). */
        op_metrics prog = {0};
        int64_t infeed_ps = 0;
        int any_bd = 0;
        double bd_hbm = 0;
        for (size_t i = 0; i < r->nops; i++) {
            const op_metrics *m = &r->ops[i];
            if (m->is_idle)
                continue;
            if (!incl && is_infeed_outfeed(m->category)) {
                infeed_ps += m->time_ps;
                continue;
            }
            if (pq_str_eq(m->category, "call") || pq_str_eq(m->category, "conditional") ||
                pq_str_eq(m->category, "while") || pq_str_eq(m->category, "megacore fusion"))
                continue;
            add_metrics(&prog, m);
            prog.bd_cmem_rd += 0;
            any_bd |= m->has_breakdown;
            bd_hbm += m->has_breakdown ? m->bd_hbm : 0;
        }
        if (any_bd)
            prog.bd_hbm = bd_hbm;
        prog.has_breakdown = 1;
        prog.time_ps = r->total_time_ps - infeed_ps;
        prog.self_time_ps = 0;
        prog.dma_stall_ps = 0;
        ((roof_ctx *)&c)->total_ps = prog.time_ps;
        roof_row(b, &c, "Total", 0, &prog, 1, 0, 0, incl, first);
        first = 0;
        double cum = 0;
        int rank = 0;
        for (size_t i = 0; i < r->nops && rank < 1000; i++) {
            const op_metrics *m = &r->ops[i];
            if (m->occurrences == 0 || (!incl && is_infeed_outfeed(m->category)))
                continue;
            double frac = sdiv((double)m->self_time_ps, (double)prog.time_ps);
            cum += frac;
            roof_row(b, &c, "Total", ++rank, m, 0, frac, cum, incl, 0);
        }
        /* "Average" over complete steps: profq has no step grouping yet, and XProf writes an
         * empty record when it finds no step markers (the case for every profile here). */
        if (!c.gpu) { /* XProf writes it for TPUs only */
            op_metrics empty = {0};
            roof_ctx c0 = c;
            c0.total_ps = 0;
            roof_row(b, &c0, "Average", 0, &empty, 1, 0, 0, incl, 0);
        }
    }
    buf_puts(b, "]},{\"cols\":[{\"id\":\"severity\",\"label\":\"Severity\",\"type\":"
                "\"string\"},{\"id\":\"message\",\"label\":\"Message\",\"type\":\"string\"}],"
                "\"rows\":[");
    if (none) {
        buf_puts(b, "]}]");
        return;
    }
    buf_puts(b, "{\"c\":[{\"v\":\"WARNING\"},{\"v\":\"No step marker observed and "
                "hence the step time is unknown. This may happen if (1) training steps are not "
                "instrumented (e.g., if you are not using Keras) or (2) the profiling duration is "
                "shorter than the step time. For (1), you need to add step instrumentation; for "
                "(2), you may try to profile longer.\"}]}]}]");
}

/* ---- text tables ---- */

static void text_name(buf *b, pq_str s, int width)
{
    if ((int)s.n <= width)
        buf_printf(b, "%-*.*s", width, (int)s.n, s.p);
    else
        buf_printf(b, "%.*s~", width - 1, s.p);
}

static void text_rate(buf *b, double v, int known)
{
    if (known)
        buf_printf(b, " %10.4g", v);
    else
        buf_printf(b, " %10s", "-");
}

static void text_ops(buf *b, const ops_result *r, const pq_ops_options *o)
{
    size_t n = 0;
    group_row *g = NULL;
    int grouped = o->by != PQ_OPS_BY_OP;
    if (grouped) {
        g = group_rows(r, o->by, &n);
        if (!g) {
            b->status = PQ_ERR_NOMEM;
            return;
        }
    } else {
        n = r->nops;
    }
    buf_printf(b, "\n%4s %14s %6s %6s %10s  %-18s  %-40s %10s %10s %8s  %s\n", "rank",
               "self time us", "self%", "cum%", "occur", grouped ? "" : "category",
               o->by == PQ_OPS_BY_CATEGORY  ? "category"
               : o->by == PQ_OPS_BY_PROGRAM ? "program"
                                            : "op (program)",
               "GFLOP/s", "HBM GiB/s", "FLOP/B", "bound by");
    double cum = 0;
    int rank = 0;
    for (size_t i = 0; i < n; i++) {
        const op_metrics *m = grouped ? &g[i].m : &r->ops[i];
        if (o->top > 0 && rank >= o->top && !m->is_idle)
            continue;
        op_rates rt;
        ops_rates(r, m, &rt);
        double frac = sdiv((double)m->self_time_ps, (double)r->total_time_ps);
        if (!m->is_idle)
            cum += frac;
        rank++;
        buf_printf(b, "%4d %14.3f %6.2f %6.2f %10" PRId64 "  ", rank, (double)m->self_time_ps / 1e6,
                   frac * 100, cum * 100, m->occurrences);
        text_name(b, grouped ? pq_str_of("", 0) : m->category, 18);
        buf_puts(b, "  ");
        if (!grouped && !m->is_idle) {
            char t[300];
            pq_str pn = prog_name(r, m->program_id);
            snprintf(t, sizeof t, "%.*s (%.*s)", (int)(m->name.n > 200 ? 200 : m->name.n),
                     m->name.p, (int)(pn.n > 60 ? 60 : pn.n), pn.p);
            text_name(b, pq_str_of(t, strlen(t)), 40);
        } else if (o->by == PQ_OPS_BY_PROGRAM) {
            char t[120];
            snprintf(t, sizeof t, "%.*s(%" PRIu64 ")", (int)(m->name.n > 80 ? 80 : m->name.n),
                     m->name.p, m->program_id);
            text_name(b, pq_str_of(t, strlen(t)), 40);
        } else {
            text_name(b, m->name, 40);
        }
        int has_work = !m->is_idle;
        text_rate(b, rt.flop_rate_gflops, has_work);
        text_rate(b, rt.hbm_bw_gibps, has_work);
        if (has_work)
            buf_printf(b, " %8.3g", rt.oi);
        else
            buf_printf(b, " %8s", "-");
        buf_printf(b, "  %s\n", has_work ? rt.bound_by : "");
    }
    pq_free(g);
}

static void text_programs(buf *b, const ops_result *r)
{
    if (r->nprograms == 0)
        return;
    buf_printf(b,
               "\nprograms: %-34s %6s %12s %12s | %-21s | %-21s\n"
               "          %-34s %6s %12s %12s | %10s %10s | %10s %10s\n",
               "", "", "", "", "GFLOP/s per device", "HBM GiB/s per device", "name(program id)",
               "execs", "module ms*", "op ms*", "active", "whole", "active", "whole");
    for (size_t i = 0; i < r->nprograms; i++) {
        const ops_program *p = &r->programs[i];
        char t[160];
        snprintf(t, sizeof t, "%.*s(%" PRIu64 ")", (int)(p->name.n > 100 ? 100 : p->name.n),
                 p->name.p, p->program_id);
        int64_t active = p->module_ps ? p->module_ps : p->op_self_ps;
        buf_puts(b, "          ");
        text_name(b, pq_str_of(t, strlen(t)), 34);
        buf_printf(b, " %6" PRId64 " %12.3f %12.3f | %10.4g %10.4g | %10.4g %10.4g\n",
                   p->executions, (double)p->module_ps / 1e9, (double)p->op_self_ps / 1e9,
                   gflops(p->flops, active), gflops(p->flops, r->window_ps),
                   gibps(p->hbm_bytes, active), gibps(p->hbm_bytes, r->window_ps));
    }
    buf_puts(b, "          * summed over devices; active = module executions (op time where the "
                "input has no module lines), whole = the captured window\n");
}

static void json_programs(json_writer *w, const ops_result *r)
{
    json_key(w, "programs");
    json_arr_begin(w);
    for (size_t i = 0; i < r->nprograms; i++) {
        const ops_program *p = &r->programs[i];
        int64_t active = p->module_ps ? p->module_ps : p->op_self_ps;
        json_obj_begin(w);
        json_key(w, "program_id");
        json_u64_string(w, p->program_id);
        json_key(w, "name");
        json_pstr(w, p->name);
        json_key(w, "executions");
        json_int(w, p->executions);
        json_key(w, "module_ps");
        json_int(w, p->module_ps);
        json_key(w, "op_self_ps");
        json_int(w, p->op_self_ps);
        json_key(w, "flops");
        json_double(w, p->flops);
        json_key(w, "bytes_accessed");
        json_double(w, p->bytes_accessed);
        json_key(w, "hbm_bytes");
        json_double(w, p->hbm_bytes);
        json_key(w, "active_gflops_per_s");
        json_double(w, gflops(p->flops, active));
        json_key(w, "whole_window_gflops_per_s");
        json_double(w, gflops(p->flops, r->window_ps));
        json_key(w, "active_hbm_gibps");
        json_double(w, gibps(p->hbm_bytes, active));
        json_key(w, "whole_window_hbm_gibps");
        json_double(w, gibps(p->hbm_bytes, r->window_ps));
        json_obj_end(w);
    }
    json_arr_end(w);
}

static pq_status finish(buf *b, pq_error *err, ops_result *r)
{
    pq_status st = b->status != PQ_OK ? b->status : buf_flush(b);
    buf_release(b);
    ops_free(r);
    if (st == PQ_ERR_NOMEM)
        return err_set(err, st, NULL, -1, "out of memory rendering op metrics");
    if (st != PQ_OK)
        err_set(err, st, NULL, -1, "cannot write the output");
    return st;
}

/* The ops (IDLE left out) as a JSON array, ranked by self time, the first TOP (all if 0). */
static void json_op_list(json_writer *w, const ops_result *r, int top)
{
    json_arr_begin(w);
    double cum = 0;
    int rank = 0;
    for (size_t i = 0; i < r->nops; i++) {
        const op_metrics *m = &r->ops[i];
        if (m->is_idle || (top > 0 && rank >= top))
            continue;
        cum += sdiv((double)m->self_time_ps, (double)r->total_time_ps);
        json_op(w, r, m, ++rank, cum);
    }
    json_arr_end(w);
}

/* The prologue of every ops renderer: options (NULL for the defaults, *O points at them
 * after), the op metrics into R and the output buffer B on SINK. */
static pq_status ops_begin(const pq_profile *profile, const pq_ops_options **o, ops_result *r,
                           buf *b, pq_sink *sink, pq_error *err)
{
    static const pq_ops_options defaults = {0};
    if (!*o)
        *o = &defaults;
    /* XProf's tables (--format xprof) cover device planes only: a CPU-only run gives XProf's
     * empty tables there; profq's own formats list its XLA:CPU ops. */
    ops_options oo = {(*o)->peak_tflops, (*o)->peak_hbm_gbps, (*o)->xprof != 0};
    pq_status st = ops_compute(profile, &oo, r, err);
    if (st == PQ_OK)
        buf_init(b, sink);
    return st;
}

pq_status pq_render_ops(const pq_profile *profile, const pq_ops_options *opts, pq_output fmt,
                        pq_sink *sink, pq_error *err)
{
    const pq_ops_options *o = opts;
    ops_result r;
    buf b;
    pq_status st = ops_begin(profile, &o, &r, &b, sink, err);
    if (st != PQ_OK)
        return st;
    if (o->xprof == PQ_OPS_HLO_STATS) {
        hlo_stats_table(&b, &r);
    } else if (o->xprof == PQ_OPS_OP_PROFILE) {
        if (op_profile_json(&b, &r,
                            o->by == PQ_OPS_BY_CATEGORY     ? OP_PROFILE_BY_CATEGORY
                            : o->by == PQ_OPS_BY_PROVENANCE ? OP_PROFILE_BY_PROVENANCE
                                                            : OP_PROFILE_BY_PROGRAM) != 0)
            b.status = PQ_ERR_NOMEM;
    } else if (fmt == PQ_OUT_JSON) {
        json_writer w;
        json_init(&w, &b, 1);
        json_obj_begin(&w);
        json_header(&w, &r, "profq.ops.v1");
        json_key(&w, "by");
        json_cstr(&w, o->by == PQ_OPS_BY_CATEGORY  ? "category"
                      : o->by == PQ_OPS_BY_PROGRAM ? "program"
                                                   : "op");
        json_key(&w, "total_time_ps");
        json_int(&w, r.total_time_ps);
        json_key(&w, "total_op_time_ps");
        json_int(&w, r.total_op_time_ps);
        json_programs(&w, &r);
        json_key(&w, "rows");
        if (o->by == PQ_OPS_BY_OP) {
            json_op_list(&w, &r, o->top);
        } else {
            json_arr_begin(&w);
            double cum = 0;
            size_t n = 0;
            group_row *g = group_rows(&r, o->by, &n);
            if (!g) {
                b.status = PQ_ERR_NOMEM;
            } else {
                for (size_t i = 0; i < n && (o->top <= 0 || (int)i < o->top); i++) {
                    cum += sdiv((double)g[i].m.self_time_ps, (double)r.total_time_ps);
                    json_op(&w, &r, &g[i].m, (int)i + 1, cum);
                }
                pq_free(g);
            }
            json_arr_end(&w);
        }
        json_obj_end(&w);
        buf_putc(&b, '\n');
    } else {
        text_windows(&b, &r);
        text_ops(&b, &r, o);
        text_programs(&b, &r);
    }
    return finish(&b, err, &r);
}

pq_status pq_render_roofline(const pq_profile *profile, const pq_ops_options *opts, pq_output fmt,
                             pq_sink *sink, pq_error *err)
{
    const pq_ops_options *o = opts;
    ops_result r;
    buf b;
    pq_status st = ops_begin(profile, &o, &r, &b, sink, err);
    if (st != PQ_OK)
        return st;
    /* Program totals over ops outside call/conditional/while/megacore fusion (spec 5.8). */
    op_metrics total = {0};
    int any_bd = 0;
    double bd_hbm = 0;
    for (size_t i = 0; i < r.nops; i++) {
        const op_metrics *m = &r.ops[i];
        if (m->is_idle || pq_str_eq(m->category, "call") || pq_str_eq(m->category, "conditional") ||
            pq_str_eq(m->category, "while") || pq_str_eq(m->category, "megacore fusion"))
            continue;
        add_metrics(&total, m);
        /* XProf sums breakdowns: ops without one add no HBM bytes to the Program record,
         * which falls back to bytes_accessed only when no op has a breakdown. */
        any_bd |= m->has_breakdown;
        bd_hbm += m->has_breakdown ? m->bd_hbm : 0;
    }
    if (any_bd)
        total.bd_hbm = bd_hbm;
    total.occurrences = 0;
    total.time_ps = r.total_time_ps;
    total.self_time_ps = r.total_op_time_ps;
    total.name = pq_str_of("Program", 7);
    if (o->xprof == PQ_OPS_ROOFLINE_MODEL) {
        roofline_model_table(&b, &r);
    } else if (fmt == PQ_OUT_JSON) {
        json_writer w;
        json_init(&w, &b, 1);
        json_obj_begin(&w);
        json_header(&w, &r, "profq.roofline.v1");
        json_key(&w, "ridge_point_flop_per_byte");
        if (r.peaks.tflops > 0 && r.peaks.bws[0] > 0)
            json_double(&w, r.peaks.tflops * 1000 / r.peaks.bws[0]);
        else
            json_null(&w);
        json_key(&w, "total");
        json_obj_begin(&w);
        json_key(&w, "time_ps");
        json_int(&w, total.time_ps);
        json_key(&w, "flops");
        json_double(&w, total.flops);
        json_key(&w, "hbm_bytes");
        json_double(&w, total.bd_hbm);
        json_rates(&w, &r, &total);
        json_key(&w, "active_gflops_per_s");
        json_double(&w, gflops(total.flops, r.total_op_time_ps));
        json_key(&w, "active_hbm_gibps");
        json_double(&w, gibps(total.bd_hbm, r.total_op_time_ps));
        json_obj_end(&w);
        json_programs(&w, &r);
        json_key(&w, "ops");
        json_op_list(&w, &r, o->top);
        json_obj_end(&w);
        buf_putc(&b, '\n');
    } else {
        text_windows(&b, &r);
        op_rates rt;
        ops_rates(&r, &total, &rt);
        if (r.peaks.tflops > 0 && r.peaks.bws[0] > 0)
            buf_printf(&b, "ridge point: %.4g FLOP/byte\n", r.peaks.tflops * 1000 / r.peaks.bws[0]);
        else
            buf_puts(&b, "ridge point: unknown (needs both peaks; --peak-flops, --peak-bw)\n");
        buf_printf(&b,
                   "all programs: %.4g GFLOP over the window; %.4g GFLOP/s per device over the "
                   "whole window, %.4g inside ops; HBM %.4g GiB/s whole window, %.4g inside ops; "
                   "bound by %s\n",
                   total.flops / 1e9, sdiv(rt.flop_rate_gflops, 1),
                   gflops(total.flops, r.total_op_time_ps), rt.hbm_bw_gibps,
                   gibps(total.bd_hbm, r.total_op_time_ps), rt.bound_by);
        text_programs(&b, &r);
        pq_ops_options oo2 = *o;
        oo2.by = PQ_OPS_BY_OP;
        text_ops(&b, &r, &oo2);
    }
    return finish(&b, err, &r);
}
