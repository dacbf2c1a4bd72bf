/* ops_text.c - profq's own reports of op metrics: `profq ops` and `profq roofline` as text
 * (windows first, with a warning when idle time is more than half of the captured window;
 * then the op or group table and the programs) and as JSON (profq.ops.v1,
 * profq.roofline.v1). Formats the rows, rates, groups and totals of a pq_ops_result; XProf's
 * DataTables are render/ops_xprof.c's. */
#include "render/ops.h"

#include "core/json.h"
#include "render/text.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* ---- shared text header: windows, the idle warning, peaks ---- */

static void text_t(buf *b, double ps)
{
    char t[32];
    buf_puts(b, text_time(t, ps));
}

static void text_windows(buf *b, const pq_ops_result *r, int wide)
{
    if (r->ndevices == 0) {
        buf_puts(b, "no op events in this profile (TPU XLA Ops, GPU stream kernels or XLA:CPU "
                    "thunks with hlo_op stats)\n");
        return;
    }
    double idle_frac = ops_safe_div((double)r->idle_ps, (double)r->total_time_ps);
    if (idle_frac > 0.5) {
        buf_printf(b,
                   "WARNING: devices were idle %.1f%% of the captured window; rates over the "
                   "whole window\n  are diluted, see the active-window figures beside them.\n",
                   idle_frac * 100);
    }
    double nd = (double)r->ndevices;
    buf_printf(b, "window (per device, %u %s device%s): captured ", r->ndevices, r->device_type,
               r->ndevices == 1 ? "" : "s");
    text_t(b, (double)r->window_ps / nd);
    buf_puts(b, ", in modules ");
    if (r->has_modules)
        text_t(b, (double)r->module_ps / nd);
    else
        buf_puts(b, "n/a (no module events)");
    buf_puts(b, "\n  in ops ");
    text_t(b, (double)r->total_op_time_ps / nd);
    buf_printf(b, " (busy %.1f%%), idle ",
               100 * ops_safe_div((double)r->busy_ps, (double)r->window_ps));
    text_t(b, (double)r->idle_ps / nd);
    buf_printf(b, " (%.1f%%)\n", idle_frac * 100);
    if (r->has_dominant) {
        const pq_ops_program *d = ops_program_find(r, r->dominant_program);
        if (d) {
            buf_puts(b, "steady state (");
            text_fit(b, d->name.p, d->name.n, wide ? 0 : 48, 0);
            buf_printf(b,
                       ", %" PRId64 " of %" PRId64
                       " executions, first per device dropped):\n  module time ",
                       d->steady_executions, d->executions);
            text_t(b, (double)d->steady_module_ps / nd);
            buf_printf(b, " per device, %.3g GFLOP/s, HBM %.3g GiB/s\n", r->steady_gflops,
                       r->steady_hbm_gibps);
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

static void json_header(json_writer *w, const pq_ops_result *r, const char *schema)
{
    json_key(w, "schema");
    json_cstr(w, schema);
    json_key(w, "hardware");
    json_cstr(w, r->hw == PQ_OPS_HW_TPU   ? "tpu"
                 : r->hw == PQ_OPS_HW_GPU ? "gpu"
                 : r->hw == PQ_OPS_HW_CPU ? "cpu"
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
    if (r->has_modules)
        json_int(w, r->module_ps);
    else
        json_null(w);
    json_key(w, "in_ops_ps");
    json_int(w, r->total_op_time_ps);
    json_key(w, "busy_ps");
    json_int(w, r->busy_ps);
    json_key(w, "idle_ps");
    json_int(w, r->idle_ps);
    json_key(w, "idle_fraction");
    json_double(w, ops_safe_div((double)r->idle_ps, (double)r->total_time_ps));
    json_key(w, "idle_over_half");
    json_bool(w, ops_safe_div((double)r->idle_ps, (double)r->total_time_ps) > 0.5);
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

static void json_rate(json_writer *w, double v, int not_meaningful)
{
    if (not_meaningful)
        json_null(w);
    else
        json_double(w, v);
}

static void json_rates(json_writer *w, const pq_ops_result *r, const pq_op_row *m)
{
    const pq_op_rates o = m->rates;
    int na = o.not_meaningful != NULL; /* time-based rates: null */
    json_key(w, "gflops_per_s");
    json_rate(w, o.flop_rate_gflops, na);
    json_key(w, "model_gflops_per_s");
    json_rate(w, o.model_flop_rate, na);
    json_key(w, "memory_gibps");
    json_rate(w, o.mem_bw_gibps, na);
    json_key(w, "hbm_gibps");
    json_rate(w, o.hbm_bw_gibps, na);
    if (r->hw == PQ_OPS_HW_TPU) {
        json_key(w, "cmem_read_gibps");
        json_rate(w, o.cmem_rd_gibps, na);
        json_key(w, "cmem_write_gibps");
        json_rate(w, o.cmem_wr_gibps, na);
        json_key(w, "vmem_read_gibps");
        json_rate(w, o.vmem_rd_gibps, na);
        json_key(w, "vmem_write_gibps");
        json_rate(w, o.vmem_wr_gibps, na);
    }
    json_key(w, "operational_intensity");
    json_double(w, o.oi);
    json_key(w, "bound_by");
    if (na) {
        json_null(w);
        json_key(w, "rates_not_meaningful");
        json_cstr(w, o.not_meaningful);
    } else {
        json_cstr(w, o.bound_by);
    }
}

static void json_op(json_writer *w, const pq_ops_result *r, const pq_op_row *m, int rank,
                    double cum)
{
    json_obj_begin(w);
    json_key(w, "rank");
    json_int(w, rank);
    json_key(w, "name");
    json_pstr(w, m->name);
    json_key(w, "program_id");
    json_u64_string(w, m->program_id);
    json_key(w, "program");
    json_pstr(w, ops_program_name(r, m->program_id));
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
    json_double(w, ops_safe_div((double)m->self_time_ps, (double)r->total_time_ps));
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

/* ---- text tables ---- */

/* The name column of row M: "op (program)" (with the program id when another program has
 * the same name), "program(id)" or the group's name. ROOM > 0: an "op (program)" longer than
 * ROOM columns shortens the program first, keeping as much of the op's name as fits. */
static pq_str row_name(const pq_ops_result *r, const pq_ops_options *o, const pq_op_row *m, char *t,
                       size_t cap, size_t room)
{
    if (o->by == PQ_OPS_BY_OP) {
        const pq_ops_program *p = ops_program_find(r, m->program_id);
        pq_str pn = p ? p->name : pq_str_of("", 0);
        char pt[600];
        int n0 = p && p->name_shared
                     ? snprintf(pt, sizeof pt, "%.*s(%" PRIu64 ")", (int)(pn.n > 400 ? 400 : pn.n),
                                pn.p, m->program_id)
                     : snprintf(pt, sizeof pt, "%.*s", (int)(pn.n > 400 ? 400 : pn.n), pn.p);
        size_t pc = text_cols(pt, (size_t)n0), oc = text_cols(m->name.p, m->name.n);
        char op[1500];
        text_fit_str(op, sizeof op, m->name.p, m->name.n, 0);
        if (room && oc + pc + 3 > room) { /* the program first, down to 12 columns */
            size_t pk = room > oc + 3 ? room - oc - 3 : 0;
            if (pk < 12)
                pk = pc < 12 ? pc : 12;
            char sp[600];
            text_fit_str(sp, sizeof sp, pt, (size_t)n0, pk);
            memcpy(pt, sp, sizeof pt);
            if (oc + pk + 3 > room)
                text_fit_str(op, sizeof op, m->name.p, m->name.n,
                             room > pk + 3 ? room - pk - 3 : 3);
        }
        snprintf(t, cap, "%s (%s)", op, pt);
        return pq_str_of(t, strlen(t));
    }
    if (o->by == PQ_OPS_BY_PROGRAM) {
        snprintf(t, cap, "%.*s(%" PRIu64 ")", (int)(m->name.n > 1500 ? 1500 : m->name.n), m->name.p,
                 m->program_id);
        return pq_str_of(t, strlen(t));
    }
    return m->name;
}

static size_t max_cols(size_t a, pq_str s)
{
    size_t c = text_cols(s.p, s.n);
    return c > a ? c : a;
}

/* The ranked rows: one line each within 120 columns (category and name shortened in the
 * middle unless --wide), self time with its unit. */
static void text_ops(buf *b, const pq_ops_result *r, const pq_ops_options *o)
{
    int grouped = o->by != PQ_OPS_BY_OP;
    const pq_op_row *rows = grouped ? r->groups : r->ops;
    size_t n = grouped ? r->ngroups : r->nops;
    const char *title = o->by == PQ_OPS_BY_CATEGORY  ? "category"
                        : o->by == PQ_OPS_BY_PROGRAM ? "program"
                                                     : "op (program)";
    char t[2048], tm[32];
    size_t cw = grouped ? 0 : 8, nw = strlen(title);
    for (size_t i = 0, k = 0; i < n && (o->top <= 0 || k < (size_t)o->top); i++) {
        if (rows[i].is_idle)
            continue;
        k++;
        if (!grouped)
            cw = max_cols(cw, rows[i].category);
        nw = max_cols(nw, row_name(r, o, &rows[i], t, sizeof t, 0));
    }
    if (!o->wide) { /* 120 columns: 41 for category and name, 43 for a name alone */
        if (!grouped && cw > 12)
            cw = 12;
        size_t room = grouped ? 43 : 41 - cw;
        if (nw > room)
            nw = room;
    }
    buf_printf(b, "\n%4s %10s %5s %6s %6s  ", "rank", "self time", "self%", "cum%", "occur");
    if (!grouped) {
        text_fit(b, "category", 8, cw, 1);
        buf_puts(b, "  ");
    }
    text_fit(b, title, strlen(title), nw, 1);
    buf_printf(b, " %9s %9s %6s  %s\n", "GFLOP/s", "HBM GiB/s", "FLOP/B", "bound by");
    double cum = 0;
    int rank = 0;
    const char *note = NULL;      /* why some rows print n/a */
    const pq_op_row *idle = NULL; /* not an op: below the ranked rows */
    for (size_t i = 0; i < n; i++) {
        const pq_op_row *m = &rows[i];
        if (m->is_idle)
            idle = m;
        if (m->is_idle || (o->top > 0 && rank >= o->top))
            continue;
        const pq_op_rates rt = m->rates;
        double frac = ops_safe_div((double)m->self_time_ps, (double)r->total_time_ps);
        cum += frac;
        rank++;
        buf_printf(
            b, "%4d %*s %5.2f %6.2f %6" PRId64 "  ", rank,
            10 + (int)(strlen(text_time(tm, (double)m->self_time_ps)) - text_cols(tm, strlen(tm))),
            tm, frac * 100, cum * 100, m->occurrences);
        if (!grouped) {
            text_fit(b, m->category.p, m->category.n, cw, 1);
            buf_puts(b, "  ");
        }
        pq_str nm = row_name(r, o, m, t, sizeof t, o->wide ? 0 : nw);
        text_fit(b, nm.p, nm.n, nw, 1);
        if (rt.not_meaningful) {
            buf_printf(b, " %9s %9s %6.3g  %s\n", "n/a", "n/a", rt.oi, "n/a (async)");
            note = rt.not_meaningful;
            continue;
        }
        buf_printf(b, " %9.4g %9.4g %6.3g  %s\n", rt.flop_rate_gflops, rt.hbm_bw_gibps, rt.oi,
                   rt.bound_by);
    }
    if (idle)
        buf_printf(b, "     IDLE (no op running; not ranked): %s, %.2f%% of the device time\n",
                   text_time(tm, (double)idle->self_time_ps),
                   100 * ops_safe_div((double)idle->self_time_ps, (double)r->total_time_ps));
    if (note)
        buf_printf(b, "     n/a (async): %s\n", note);
}

/* The first TOP programs (all when TOP is 0); execs and module time "-" when the input has
 * no module events. */
static void text_programs(buf *b, const pq_ops_result *r, int top, int wide)
{
    if (r->nprograms == 0)
        return;
    size_t shown = top > 0 && (size_t)top < r->nprograms ? (size_t)top : r->nprograms;
    char t[1600];
    size_t nw = 16;
    for (size_t i = 0; i < shown; i++) {
        const pq_ops_program *p = &r->programs[i];
        snprintf(t, sizeof t, "%.*s(%" PRIu64 ")", (int)(p->name.n > 1500 ? 1500 : p->name.n),
                 p->name.p, p->program_id);
        nw = max_cols(nw, pq_str_of(t, strlen(t)));
    }
    if (!wide && nw > 35)
        nw = 35;
    buf_printf(b, "\nprograms:%*s | %-21s | %-21s\n  %-*s %6s %12s %12s | %10s %10s | %10s %10s\n",
               (int)nw + 2 + 33 - 9, "", "GFLOP/s per device", "HBM GiB/s per device", (int)nw,
               "name(program id)", "execs", "module ms*", "op ms*", "active", "whole", "active",
               "whole");
    for (size_t i = 0; i < shown; i++) {
        const pq_ops_program *p = &r->programs[i];
        snprintf(t, sizeof t, "%.*s(%" PRIu64 ")", (int)(p->name.n > 1500 ? 1500 : p->name.n),
                 p->name.p, p->program_id);
        buf_puts(b, "  ");
        text_fit(b, t, strlen(t), nw, 1);
        if (r->has_modules)
            buf_printf(b, " %6" PRId64 " %12.3f", p->executions, (double)p->module_ps / 1e9);
        else
            buf_printf(b, " %6s %12s", "-", "-");
        buf_printf(b, " %12.3f | %10.4g %10.4g | %10.4g %10.4g\n", (double)p->op_self_ps / 1e9,
                   p->active_gflops, p->whole_gflops, p->active_hbm_gibps, p->whole_hbm_gibps);
    }
    if (shown < r->nprograms)
        buf_printf(b, "  ... %zu more program%s (all without --top)\n", r->nprograms - shown,
                   r->nprograms - shown == 1 ? "" : "s");
    buf_puts(b, "  * summed over devices; active = module executions (op time where the input has "
                "no module lines),\n    whole = the captured window\n");
}

static void json_programs(json_writer *w, const pq_ops_result *r)
{
    json_key(w, "programs");
    json_arr_begin(w);
    for (size_t i = 0; i < r->nprograms; i++) {
        const pq_ops_program *p = &r->programs[i];
        json_obj_begin(w);
        json_key(w, "program_id");
        json_u64_string(w, p->program_id);
        json_key(w, "name");
        json_pstr(w, p->name);
        json_key(w, "executions");
        if (r->has_modules)
            json_int(w, p->executions);
        else
            json_null(w);
        json_key(w, "module_ps");
        if (r->has_modules)
            json_int(w, p->module_ps);
        else
            json_null(w);
        json_key(w, "op_self_ps");
        json_int(w, p->op_self_ps);
        json_key(w, "flops");
        json_double(w, p->flops);
        json_key(w, "bytes_accessed");
        json_double(w, p->bytes_accessed);
        json_key(w, "hbm_bytes");
        json_double(w, p->hbm_bytes);
        json_key(w, "active_gflops_per_s");
        json_double(w, p->active_gflops);
        json_key(w, "whole_window_gflops_per_s");
        json_double(w, p->whole_gflops);
        json_key(w, "active_hbm_gibps");
        json_double(w, p->active_hbm_gibps);
        json_key(w, "whole_window_hbm_gibps");
        json_double(w, p->whole_hbm_gibps);
        json_obj_end(w);
    }
    json_arr_end(w);
}

/* The ops (IDLE left out) as a JSON array, ranked by self time, the first TOP (all if 0). */
static void json_op_list(json_writer *w, const pq_ops_result *r, int top)
{
    json_arr_begin(w);
    double cum = 0;
    int rank = 0;
    for (size_t i = 0; i < r->nops; i++) {
        const pq_op_row *m = &r->ops[i];
        if (m->is_idle || (top > 0 && rank >= top))
            continue;
        cum += ops_safe_div((double)m->self_time_ps, (double)r->total_time_ps);
        json_op(w, r, m, ++rank, cum);
    }
    json_arr_end(w);
}

void ops_render_ops_json(buf *b, const pq_ops_result *r, const pq_ops_options *o)
{
    json_writer w;
    json_init(&w, b, 1);
    json_obj_begin(&w);
    json_header(&w, r, "profq.ops.v1");
    json_key(&w, "by");
    json_cstr(&w, o->by == PQ_OPS_BY_CATEGORY  ? "category"
                  : o->by == PQ_OPS_BY_PROGRAM ? "program"
                                               : "op");
    json_key(&w, "total_time_ps");
    json_int(&w, r->total_time_ps);
    json_key(&w, "total_op_time_ps");
    json_int(&w, r->total_op_time_ps);
    json_programs(&w, r);
    json_key(&w, "rows");
    if (o->by == PQ_OPS_BY_OP) {
        json_op_list(&w, r, o->top);
    } else {
        json_arr_begin(&w);
        double cum = 0;
        for (size_t i = 0; i < r->ngroups && (o->top <= 0 || (int)i < o->top); i++) {
            cum += ops_safe_div((double)r->groups[i].self_time_ps, (double)r->total_time_ps);
            json_op(&w, r, &r->groups[i], (int)i + 1, cum);
        }
        json_arr_end(&w);
    }
    json_obj_end(&w);
    buf_putc(b, '\n');
}

void ops_render_ops_text(buf *b, const pq_ops_result *r, const pq_ops_options *o)
{
    text_windows(b, r, o->wide);
    text_ops(b, r, o);
    text_programs(b, r, o->top, o->wide);
}

void ops_render_roofline_json(buf *b, const pq_ops_result *r, const pq_ops_options *o)
{
    const pq_op_row *total = &r->roofline.total;
    json_writer w;
    json_init(&w, b, 1);
    json_obj_begin(&w);
    json_header(&w, r, "profq.roofline.v1");
    json_key(&w, "ridge_point_flop_per_byte");
    if (r->peaks.tflops > 0 && r->peaks.bws[0] > 0)
        json_double(&w, r->peaks.tflops * 1000 / r->peaks.bws[0]);
    else
        json_null(&w);
    json_key(&w, "total");
    json_obj_begin(&w);
    json_key(&w, "time_ps");
    json_int(&w, total->time_ps);
    json_key(&w, "flops");
    json_double(&w, total->flops);
    json_key(&w, "hbm_bytes");
    json_double(&w, total->bd_hbm);
    json_rates(&w, r, total);
    json_key(&w, "active_gflops_per_s");
    json_double(&w, r->roofline.active_gflops);
    json_key(&w, "active_hbm_gibps");
    json_double(&w, r->roofline.active_hbm_gibps);
    json_obj_end(&w);
    json_programs(&w, r);
    json_key(&w, "ops");
    json_op_list(&w, r, o->top);
    json_obj_end(&w);
    buf_putc(b, '\n');
}

void ops_render_roofline_text(buf *b, const pq_ops_result *r, const pq_ops_options *o)
{
    const pq_op_row *total = &r->roofline.total;
    text_windows(b, r, o->wide);
    const pq_op_rates rt = total->rates;
    if (r->peaks.tflops > 0 && r->peaks.bws[0] > 0)
        buf_printf(b, "ridge point: %.4g FLOP/byte\n", r->peaks.tflops * 1000 / r->peaks.bws[0]);
    else
        buf_puts(b, "ridge point: unknown (needs both peaks; --peak-flops, --peak-bw)\n");
    buf_printf(b,
               "all programs: %.4g GFLOP over the window; bound by %s\n"
               "  per device: %.4g GFLOP/s over the whole window, %.4g inside ops;"
               " HBM %.4g GiB/s whole window, %.4g inside ops\n",
               total->flops / 1e9, rt.bound_by, ops_safe_div(rt.flop_rate_gflops, 1),
               r->roofline.active_gflops, rt.hbm_bw_gibps, r->roofline.active_hbm_gibps);
    text_programs(b, r, o->top, o->wide);
    pq_ops_options oo2 = *o;
    oo2.by = PQ_OPS_BY_OP;
    text_ops(b, r, &oo2);
}
