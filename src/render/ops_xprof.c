/* ops_xprof.c - XProf's DataTables for `profq ops --format xprof` and `profq roofline
 * --format xprof`: hlo_stats (spec/xprof-tools.md 5.7, DataTable 5.12) and roofline_model
 * (spec 5.8), cell for cell as XProf 2.24 writes them (numbers as nlohmann prints doubles,
 * strings JSON- and, for source info, HTML-escaped). Formats the rows, rates and totals of
 * a pq_ops_result; profq's own text and JSON are render/ops_text.c's. */
#include "render/ops.h"

#include "core/json.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

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

/* The cells after a row's first: a comma, then the cell. */
static void dt_nums(buf *b, const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        buf_putc(b, ',');
        dt_num(b, v[i]);
    }
}

static void dt_cstrs(buf *b, const char *const *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        buf_putc(b, ',');
        dt_cstr(b, v[i]);
    }
}

#define DT_NUMS(b, ...)                                                                            \
    dt_nums((b), (const double[]){__VA_ARGS__},                                                    \
            sizeof((const double[]){__VA_ARGS__}) / sizeof(double))
#define DT_CSTRS(b, ...)                                                                           \
    dt_cstrs((b), (const char *const[]){__VA_ARGS__},                                              \
             sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))

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
static void dt_source(buf *b, const pq_op_row *m)
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

void ops_render_hlo_stats(buf *b, const pq_ops_result *r)
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
        const pq_op_row *m = &r->ops[i];
        if (m->occurrences == 0)
            continue;
        pq_op_rates o = m->rates;
        rank++;
        double t_us = (double)m->time_ps / 1e6, s_us = (double)m->self_time_ps / 1e6;
        double frac = ops_safe_div(s_us, total_us);
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
        double occ = (double)m->occurrences;
        DT_NUMS(b, occ, t_us, ops_safe_div(t_us, occ), s_us, ops_safe_div(s_us, occ), frac * 100,
                cum * 100, ops_safe_div((double)m->dma_stall_ps, (double)m->time_ps),
                o.model_flop_rate, o.flop_rate_gflops, o.mem_bw_gibps, o.hbm_bw_gibps,
                o.cmem_rd_gibps, o.cmem_wr_gibps, o.oi);
        DT_CSTRS(b, o.bound_by, remat ? "Yes" : "No", "No", "No");
        buf_putc(b, ',');
        dt_source(b, m);
        DT_CSTRS(b, r->hw == PQ_OPS_HW_TPU ? "TensorCore" : "", "");
        DT_NUMS(b, 0);
        buf_puts(b, "]}");
    }
    buf_puts(b, "]}");
}

/* ---- XProf roofline_model (spec 5.8) ---- */

typedef struct roof_ctx {
    const pq_ops_result *r;
    int gpu;
    double peak_flops, peak_hbm, peak_cmem_rd, peak_cmem_wr, peak_vmem_rd, peak_vmem_wr;
    int64_t total_ps;
    double steps; /* the "Average" over TPU steps: total times per step (XProf's AVERAGE_STEP) */
} roof_ctx;

/* One roofline record. M's HBM bytes follow ops_rates; PROGRAM marks the "Program" row. */
static void roof_row(buf *b, const roof_ctx *c, const char *step, int rank, const pq_op_row *m,
                     int program, double frac, double cum, int incl, int first)
{
    const pq_ops_result *r = c->r;
    pq_op_rates o = m->rates;
    double t_us = (double)m->time_ps / 1e6, s_us = (double)m->self_time_ps / 1e6;
    double occ = program ? 1 : (double)m->occurrences;
    double per = c->steps > 0 ? c->steps : 1; /* avg_time stays the whole time */
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
    DT_NUMS(b, occ, t_us / per, ops_safe_div(t_us, occ), s_us / per, ops_safe_div(s_us, occ), frac,
            cum);
    if (!c->gpu)
        DT_NUMS(b, ops_safe_div((double)m->dma_stall_ps, (double)m->time_ps));
    DT_NUMS(b, o.flop_rate_gflops, o.model_flop_rate, o.mem_bw_gibps, o.hbm_bw_gibps);
    if (!c->gpu)
        DT_NUMS(b, o.cmem_rd_gibps, o.cmem_wr_gibps, o.vmem_rd_gibps);
    DT_NUMS(b, o.vmem_wr_gibps, o.oi, o.hbm_oi);
    if (!c->gpu)
        DT_NUMS(b, ops_safe_div(m->flops, m->bd_cmem_rd), ops_safe_div(m->flops, m->bd_cmem_wr),
                ops_safe_div(m->flops, m->bd_vmem_rd));
    DT_NUMS(b, ops_safe_div(m->flops, m->bd_vmem_wr), o.bottleneck_oi);
    DT_CSTRS(b, o.bound_by);
    DT_NUMS(b, t_us / per / (r->device_planes ? r->device_planes : 1),
            ops_safe_div((double)m->time_ps, (double)c->total_ps), o.optimal_flop_rate,
            o.roofline_efficiency, o.flop_utilization, o.max_mem_utilization);
    buf_puts(b, incl ? ",{\"v\":true}," : ",{\"v\":false},");
    dt_cstr(b, pid);
    buf_putc(b, ',');
    if (program)
        dt_cstr(b, "");
    else
        dt_source(b, m);
    buf_puts(b, "]}");
}

/* The columns (TPU's, or GPU's without DMA/CMEM/VMEM read and with SHM/L1 labels) and the
 * table properties: device type, peaks and ridge points as XProf writes them. */
static void roofline_header(buf *b, const roof_ctx *cx)
{
    const roof_ctx c = *cx;
    const pq_ops_result *r = c.r;
    const pq_ops_peaks *pk = &r->peaks;
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
    double ridge = ops_safe_div(c.peak_flops, pk->bws[0]);
    if (c.gpu) {
        buf_printf(b, "\"device_type\":\"%s\"", r->gpu_model[0] ? r->gpu_model : r->device_type);
        snprintf(t, sizeof t, "%g", c.peak_flops);
        buf_printf(b, ",\"hbm_ridge_point\":\"%g\"", ridge);
        buf_printf(b, ",\"peak_flop_rate\":\"%s\"", t);
        buf_printf(b, ",\"peak_hbm_bw\":\"%g\"", c.peak_hbm);
        buf_printf(b, ",\"peak_vmem_write_bw\":\"%g\"", c.peak_vmem_wr);
        buf_printf(b, ",\"vmem_write_ridge_point\":\"%g\"", ops_safe_div(c.peak_flops, pk->bws[2]));
    } else {
        buf_printf(b, "\"cmem_read_ridge_point\":\"%g\"",
                   ops_safe_div(c.peak_flops, c.peak_cmem_rd / 0.9313225746154785));
        buf_printf(b, ",\"cmem_write_ridge_point\":\"%g\"",
                   ops_safe_div(c.peak_flops, c.peak_cmem_wr / 0.9313225746154785));
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
                   ops_safe_div(r->normalized_total_op_time_ps, (double)r->total_op_time_ps));
        buf_printf(b, ",\"vmem_read_ridge_point\":\"%g\"",
                   ops_safe_div(c.peak_flops, c.peak_vmem_rd / 0.9313225746154785));
        buf_printf(b, ",\"vmem_write_ridge_point\":\"%g\"",
                   ops_safe_div(c.peak_flops, c.peak_vmem_wr / 0.9313225746154785));
    }
}

void ops_render_roofline_model(buf *b, const pq_ops_result *r)
{
    roof_ctx c = {0};
    c.r = r;
    c.gpu = r->hw == PQ_OPS_HW_GPU || r->hw == PQ_OPS_HW_CPU; /* none: XProf's TPU-style columns */
    const pq_ops_peaks *pk = &r->peaks;
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
    roofline_header(b, &c);
    buf_puts(b, "},\"rows\":[");
    int first = 1;
    /* No device ops (a CPU-only run): XProf writes no rows and no diagnostics. */
    int none = r->hw == PQ_OPS_HW_NONE;
    for (int incl = 1; incl >= 0 && !none; incl--) {
        /* The "Program" record (analysis/ops_derived.c). */
        const pq_op_row *prog = &r->roofline.program[incl];
        c.total_ps = prog->time_ps;
        roof_row(b, &c, "Total", 0, prog, 1, 0, 0, incl, first);
        first = 0;
        double cum = 0;
        int rank = 0;
        for (size_t i = 0; i < r->nops && rank < 1000; i++) {
            const pq_op_row *m = &r->ops[i];
            if (m->occurrences == 0 || (!incl && ops_is_infeed_outfeed(m->category)))
                continue;
            double frac = ops_safe_div((double)m->self_time_ps, (double)prog->time_ps);
            cum += frac;
            roof_row(b, &c, "Total", ++rank, m, 0, frac, cum, incl, 0);
        }
        /* "Average" over complete steps: XProf writes an empty record when it finds no step
         * markers (the case for every profile here). */
        roof_ctx c0 = c;
        c0.total_ps = 0;
        if (r->step_rows) { /* TPU steps (analysis/ops_steps_tpu.c): the sum over them */
            const pq_op_row *avg = &r->step_rows[2 * r->nsteps + (size_t)incl];
            roof_ctx ca = c;
            ca.total_ps = avg->time_ps;
            ca.steps = (double)r->nsteps;
            roof_row(b, &ca, "Average", 0, avg, 1, 0, 0, incl, 0);
        } else if (!c.gpu || r->steps_combined) { /* on GPU only when it combines XSpaces */
            roof_row(b, &c0, "Average", 0, &r->roofline.average, 1, 0, 0, incl, 0);
        }
        /* One Program record per GPU step (analysis/ops_steps.c): XProf's GPU steps carry no
         * op metrics, so each is the empty record under the step number. */
        for (size_t i = 0; i < r->nsteps; i++) {
            char step[24];
            snprintf(step, sizeof step, "%" PRId64, r->steps[i]);
            const pq_op_row *m =
                r->step_rows ? &r->step_rows[2 * i + (size_t)incl] : &r->roofline.average;
            roof_ctx cs = c0;
            cs.total_ps = m->time_ps;
            roof_row(b, &cs, step, 0, m, 1, 0, 0, incl, 0);
        }
    }
    buf_puts(b, "]},{\"cols\":[{\"id\":\"severity\",\"label\":\"Severity\",\"type\":"
                "\"string\"},{\"id\":\"message\",\"label\":\"Message\",\"type\":\"string\"}],"
                "\"rows\":[");
    if (none || r->nsteps) { /* steps found: no step diagnostic */
        buf_puts(b, "]}]");
        return;
    }
    if (r->steps_empty_intersect) {
        buf_puts(b, "{\"c\":[{\"v\":\"WARNING\"},{\"v\":\"Although there are steps observed on "
                    "some host(s), the intersection of the steps over all hosts is empty (because "
                    "the differences among individual host's step sequences are too big). "
                    "Consequently, the overall step time is unknown.\"}]}]}]");
        return;
    }
    buf_puts(b, "{\"c\":[{\"v\":\"WARNING\"},{\"v\":\"No step marker observed and "
                "hence the step time is unknown. This may happen if (1) training steps are not "
                "instrumented (e.g., if you are not using Keras) or (2) the profiling duration is "
                "shorter than the step time. For (1), you need to add step instrumentation; for "
                "(2), you may try to profile longer.\"}]}]}]");
}
