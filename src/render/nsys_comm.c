/* nsys_comm.c - `profq nsys` communication sections (render/nsys_comm.h) from the result of
 * analysis/nsys_comm.c: text in the notebook's spirit, the profq.nsys.v1 keys, and the SVG
 * of bus bandwidth against message size (self-contained: no script, no external reference;
 * every profile string escaped). Formats only. */
#include "nsys_comm.h"

#include "profq.h"
#include "render/svg.h"
#include "render/text.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static int on(unsigned sections, unsigned bit)
{
    sections &= ~(unsigned)(PQ_NSYS_WARMUP_HEAD | PQ_NSYS_WARMUP_ARCHIVE);
    return !sections || (sections & bit);
}

static void key_ms(json_writer *w, const char *k, double ns)
{
    json_key(w, k);
    json_double(w, ns / 1e6);
}

static void program_id(json_writer *w, int64_t id)
{
    char s[24];
    snprintf(s, sizeof s, "%" PRId64, id);
    json_key(w, "program_id");
    json_cstr(w, s);
}

static void json_alignment(json_writer *w, const nsys_comm_result *r)
{
    json_key(w, "alignment");
    json_obj_begin(w);
    json_key(w, "aligned");
    json_bool(w, r->aligned);
    json_key(w, "collective_size");
    json_int(w, r->alignment_size);
    json_key(w, "skews");
    json_uint(w, r->nskews);
    json_key(w, "skew_std_ns");
    json_double(w, r->nskews ? r->skew_std_ns : NAN);
    json_key(w, "skew_min_ns");
    json_double(w, r->nskews ? r->skew_min_ns : NAN);
    json_key(w, "skew_max_ns");
    json_double(w, r->nskews ? r->skew_max_ns : NAN);
    json_key(w, "corrections_ns");
    json_arr_begin(w);
    for (uint32_t d = 0; d < r->ndevices; d++)
        json_double(w, r->corrections_ns[d]);
    json_arr_end(w);
    json_obj_end(w);
    json_key(w, "warmup");
    json_obj_begin(w);
    json_key(w, "rule");
    json_cstr(w, r->warmup_none   ? "none: every execution steady"
                 : r->warmup_head ? "head"
                                  : "archive-era");
    json_key(w, "has_communication");
    json_bool(w, r->has_communication);
    json_obj_end(w);
}

static void json_runtime(json_writer *w, const nsys_comm_result *r)
{
    json_key(w, "runtime");
    json_obj_begin(w);
    key_ms(w, "thunks_ms", (double)r->thunks_ns);
    key_ms(w, "modules_ms", (double)r->modules_ns);
    key_ms(w, "wall_ms", r->wall_ns);
    key_ms(w, "idle_in_modules_ms", (double)(r->modules_ns - r->thunks_ns));
    key_ms(w, "idle_between_modules_ms", r->wall_ns - (double)r->modules_ns);
    key_ms(w, "comm_hidden_ms", (double)r->comm_hidden_ns);
    key_ms(w, "comm_exposed_ms", (double)r->comm_exposed_ns);
    json_obj_end(w);
    json_key(w, "thunks");
    json_arr_begin(w);
    for (size_t k = 0; k < r->nthunks; k++) {
        const nsys_thunk_total *x = &r->thunks[k];
        json_obj_begin(w);
        program_id(w, x->program_id);
        json_key(w, "name");
        json_cstr(w, x->name);
        json_key(w, "opcode");
        json_cstr(w, x->opcode);
        json_key(w, "op_name");
        json_cstr(w, x->op_name);
        key_ms(w, "total_ms", (double)x->ns);
        json_key(w, "communication");
        json_bool(w, x->communication);
        json_obj_end(w);
    }
    json_arr_end(w);
}

static void json_opcodes(json_writer *w, const nsys_comm_result *r)
{
    json_key(w, "opcodes");
    json_arr_begin(w);
    for (size_t k = 0; k < r->nopcodes; k++) {
        json_obj_begin(w);
        json_key(w, "opcode");
        json_cstr(w, r->opcodes[k].opcode);
        key_ms(w, "total_ms", (double)r->opcodes[k].ns);
        json_key(w, "share");
        json_double(w, r->opcodes[k].share);
        json_obj_end(w);
    }
    json_arr_end(w);
}

static void json_kinds(json_writer *w, const nsys_comm_result *r)
{
    json_key(w, "collectives");
    json_arr_begin(w);
    for (size_t k = 0; k < r->nkinds; k++) {
        const nsys_coll_kind_row *x = &r->kinds[k];
        json_obj_begin(w);
        json_key(w, "collective");
        json_cstr(w, nsys_coll_name(x->kind));
        json_key(w, "instances");
        json_uint(w, x->instances);
        json_key(w, "rows");
        json_uint(w, x->rows);
        json_key(w, "busbw_mean_gbps");
        json_double(w, x->busbw_mean);
        json_key(w, "busbw_median_gbps");
        json_double(w, x->busbw_median);
        json_key(w, "busbw_max_gbps");
        json_double(w, x->busbw_max);
        json_key(w, "wait_mean_ms");
        json_double(w, x->wait_mean_ms);
        json_key(w, "wait_median_ms");
        json_double(w, x->wait_median_ms);
        json_key(w, "wait_max_ms");
        json_double(w, x->wait_max_ms);
        json_obj_end(w);
    }
    json_arr_end(w);
}

static void json_collectives(json_writer *w, const nsys_comm_result *r)
{
    json_kinds(w, r);
    json_key(w, "collective_sizes");
    json_arr_begin(w);
    for (size_t k = 0; k < r->nsizes; k++) {
        const nsys_coll_size_row *x = &r->sizes[k];
        json_obj_begin(w);
        json_key(w, "collective");
        json_cstr(w, nsys_coll_name(x->kind));
        json_key(w, "message_bytes");
        json_int(w, x->message_bytes);
        json_key(w, "collective_size");
        json_int(w, x->collective_size);
        json_key(w, "rows");
        json_uint(w, x->rows);
        json_key(w, "busbw_mean_gbps");
        json_double(w, x->busbw_mean);
        json_key(w, "busbw_max_gbps");
        json_double(w, x->busbw_max);
        json_obj_end(w);
    }
    json_arr_end(w);
    json_key(w, "collective_instances");
    json_arr_begin(w);
    for (size_t k = 0; k < r->ninstances; k++) {
        const nsys_coll_instance *x = &r->instances[k];
        json_obj_begin(w);
        json_key(w, "collective");
        json_cstr(w, nsys_coll_name(x->kind));
        program_id(w, x->program_id);
        json_key(w, "execution");
        json_int(w, x->execution);
        json_key(w, "thunk_index");
        json_uint(w, x->thunk_index);
        json_key(w, "name");
        json_cstr(w, x->name);
        json_key(w, "op_name");
        json_cstr(w, x->op_name);
        json_key(w, "devices");
        json_uint(w, x->devices);
        json_key(w, "message_bytes");
        json_int(w, x->message_bytes);
        json_key(w, "collective_size");
        json_int(w, x->collective_size);
        json_key(w, "busbw_gbps");
        json_double(w, x->busbw_gbps);
        key_ms(w, "wait_ms", x->wait_ns);
        json_obj_end(w);
    }
    json_arr_end(w);
}

static void json_variability(json_writer *w, const nsys_comm_result *r)
{
    json_key(w, "variability");
    json_obj_begin(w);
    json_key(w, "threshold");
    json_double(w, 0.10);
    json_key(w, "groups");
    json_uint(w, r->var_groups);
    json_key(w, "over_threshold");
    json_uint(w, r->var_over);
    key_ms(w, "mean_threshold_ms", r->var_mean_threshold_ns);
    json_key(w, "top");
    json_arr_begin(w);
    for (size_t k = 0; k < r->ntop; k++) {
        const nsys_var_row *x = &r->top[k];
        json_obj_begin(w);
        program_id(w, x->program_id);
        json_key(w, "name");
        json_cstr(w, x->name);
        json_key(w, "n");
        json_uint(w, x->n);
        key_ms(w, "mean_ms", x->mean_ns);
        key_ms(w, "std_ms", x->std_ns);
        json_key(w, "rel");
        json_double(w, x->rel);
        json_obj_end(w);
    }
    json_arr_end(w);
    json_obj_end(w);
}

static void json_bias(json_writer *w, const nsys_comm_result *r)
{
    json_key(w, "bias");
    json_arr_begin(w);
    for (size_t k = 0; k < r->nbias; k++) {
        const nsys_bias_module *m = &r->bias[k];
        json_obj_begin(w);
        program_id(w, m->program_id);
        json_key(w, "consistent");
        json_bool(w, m->consistent);
        json_key(w, "executions");
        json_uint(w, m->executions);
        json_key(w, "points");
        json_uint(w, m->points);
        key_ms(w, "min_ms", m->min_ns);
        key_ms(w, "max_ms", m->max_ns);
        key_ms(w, "std_ms", m->std_ns);
        json_key(w, "devices");
        json_arr_begin(w);
        for (uint32_t d = 0; d < m->ndevices && d < NSYS_BIAS_DEVICES; d++) {
            json_obj_begin(w);
            json_key(w, "device");
            json_uint(w, m->devices[d].device);
            key_ms(w, "score_ms", m->devices[d].score_ns);
            key_ms(w, "max_abs_ms", m->devices[d].max_abs_ns);
            json_obj_end(w);
        }
        json_arr_end(w);
        json_obj_end(w);
    }
    json_arr_end(w);
}

void nsys_comm_json(json_writer *w, const nsys_comm_result *r, unsigned sections)
{
    json_alignment(w, r);
    if (on(sections, PQ_NSYS_RUNTIME))
        json_runtime(w, r);
    if (on(sections, PQ_NSYS_OPCODES))
        json_opcodes(w, r);
    if (on(sections, PQ_NSYS_COLLECTIVES))
        json_collectives(w, r);
    if (on(sections, PQ_NSYS_VARIABILITY))
        json_variability(w, r);
    if (on(sections, PQ_NSYS_BIAS))
        json_bias(w, r);
}

/* ---- text ---- */

static void text_runtime(buf *b, const nsys_comm_result *r)
{
    buf_printf(b, "\nalignment: ");
    if (r->aligned) {
        buf_printf(b,
                   "%" PRIu64 " end times of %" PRId64 "-device collectives (skew std %.0f ns, "
                   "min %.0f, max %.0f)\n  correction per device (ns):",
                   r->nskews, r->alignment_size, r->skew_std_ns, r->skew_min_ns, r->skew_max_ns);
        for (uint32_t d = 0; d < r->ndevices; d++)
            buf_printf(b, "%s %u:%+.3f", d && d % 6 == 0 ? "\n   " : "", d, r->corrections_ns[d]);
        buf_putc(b, '\n');
    } else {
        buf_printf(b, "none (no collective spans all %u devices)\n", r->ndevices);
    }
    double d1 = (double)r->thunks_ns / 1e6, d2 = (double)r->modules_ns / 1e6, d3 = r->wall_ns / 1e6;
    buf_puts(b, "\nruntime of the top modules (steady)\n");
    buf_printf(b, "  (1) thunks, overlap subtracted %12.3f ms\n", d1);
    buf_printf(b, "  (2) modules                    %12.3f ms  GPU idle during modules %.3f ms\n",
               d2, d2 - d1);
    buf_printf(b, "  (3) wall, summed over devices  %12.3f ms  idle between modules %.3f ms\n", d3,
               d3 - d2);
    buf_printf(b, "  communication (steady): hidden %.3f ms, exposed %.3f ms\n",
               (double)r->comm_hidden_ns / 1e6, (double)r->comm_exposed_ns / 1e6);
    buf_puts(b, "top thunks by runtime\n");
    for (size_t k = 0; k < r->nthunks && k < 10; k++) {
        const nsys_thunk_total *x = &r->thunks[k];
        buf_printf(b, "  %6.2f%% %10.3f ms  ", d1 > 0 ? 100.0 * (double)x->ns / 1e6 / d1 : 0,
                   (double)x->ns / 1e6);
        text_fit(b, x->name, strlen(x->name), 40, 0);
        buf_puts(b, "  ");
        text_fit(b, x->op_name, strlen(x->op_name), TEXT_COLS - 65, 0);
        buf_putc(b, '\n');
    }
}

static void text_opcodes(buf *b, const nsys_comm_result *r)
{
    buf_puts(b, "\nruntime by HLO opcode (% of definition 2)\n");
    for (size_t k = 0; k < r->nopcodes; k++) {
        buf_printf(b, "  %6.2f%% %10.3f ms  ", 100 * r->opcodes[k].share,
                   (double)r->opcodes[k].ns / 1e6);
        text_fit(b, r->opcodes[k].opcode, strlen(r->opcodes[k].opcode), 60, 0);
        buf_putc(b, '\n');
    }
}

static void text_collectives(buf *b, const nsys_comm_result *r)
{
    buf_puts(b, "\ncollectives (steady; per instance: max bus bandwidth over devices, wait = last "
                "end - first start - fastest)\n");
    buf_puts(b, "  collective            instances   rows  busbw GB/s mean  median     max"
                "   wait ms mean   median      max\n");
    for (size_t k = 0; k < r->nkinds; k++) {
        const nsys_coll_kind_row *x = &r->kinds[k];
        buf_printf(b, "  %-20s %10" PRIu64 " %6" PRIu64 " %15.2f %7.2f %7.2f %14.4f %8.4f %8.4f\n",
                   nsys_coll_name(x->kind), x->instances, x->rows, x->busbw_mean, x->busbw_median,
                   x->busbw_max, x->wait_mean_ms, x->wait_median_ms, x->wait_max_ms);
    }
    buf_puts(b, "  by message size: collective, bytes, devices, rows, busbw mean, max GB/s\n");
    for (size_t k = 0; k < r->nsizes; k++) {
        const nsys_coll_size_row *x = &r->sizes[k];
        buf_printf(b, "    %-20s %14" PRId64 " %3" PRId64 " %6" PRIu64 " %9.3f %9.3f\n",
                   nsys_coll_name(x->kind), x->message_bytes, x->collective_size, x->rows,
                   x->busbw_mean, x->busbw_max);
    }
}

static void text_variability(buf *b, const nsys_comm_result *r)
{
    buf_printf(b,
               "\nvariability: %" PRIu64 " of %" PRIu64
               " (program id, thunk) compute groups have std/mean > 10%%; the slowest:\n",
               r->var_over, r->var_groups);
    for (size_t k = 0; k < r->ntop; k++) {
        const nsys_var_row *x = &r->top[k];
        buf_printf(b, "  %10.3f ms ±%-9.3f rel %.3f n=%-5" PRIu64 " ", x->mean_ns / 1e6,
                   x->std_ns / 1e6, x->rel, x->n);
        text_fit(b, x->name, strlen(x->name), 60, 0);
        buf_printf(b, " (%" PRId64 ")\n", x->program_id);
    }
}

static void text_bias(buf *b, const nsys_comm_result *r)
{
    buf_puts(b, "\nper-device bias of compute thunk starts/ends from the device mean (top "
                "modules)\n");
    for (size_t k = 0; k < r->nbias; k++) {
        const nsys_bias_module *m = &r->bias[k];
        buf_printf(b, "  program %" PRId64 ": ", m->program_id);
        if (!m->consistent) {
            buf_puts(b, "devices ran different thunk sequences; not computed\n");
            continue;
        }
        buf_printf(b,
                   "%" PRIu64 " executions, %" PRIu64 " points, min %.4f ms, max %.4f ms, std "
                   "%.4f ms\n",
                   m->executions, m->points, m->min_ns / 1e6, m->max_ns / 1e6, m->std_ns / 1e6);
        for (uint32_t d = 0; d < m->ndevices && d < NSYS_BIAS_DEVICES; d++)
            buf_printf(b, "    device %u: score %.3f ms, largest |bias| %.4f ms\n",
                       m->devices[d].device, m->devices[d].score_ns / 1e6,
                       m->devices[d].max_abs_ns / 1e6);
    }
}

void nsys_comm_text(buf *b, const nsys_comm_result *r, unsigned sections)
{
    if (on(sections, PQ_NSYS_RUNTIME))
        text_runtime(b, r);
    if (on(sections, PQ_NSYS_OPCODES))
        text_opcodes(b, r);
    if (on(sections, PQ_NSYS_COLLECTIVES))
        text_collectives(b, r);
    if (on(sections, PQ_NSYS_VARIABILITY))
        text_variability(b, r);
    if (on(sections, PQ_NSYS_BIAS))
        text_bias(b, r);
}
