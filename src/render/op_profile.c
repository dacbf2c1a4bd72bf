/* op_profile.c - writes XProf's op_profile JSON (spec/xprof-tools.md 5.9): the Profile
 * message as protobuf's JSON printer does (fields in number order, fields without presence
 * always printed), from the trees analysis/op_profile.c builds, each node with its metrics
 * (rawTime, rawFlops, bf16Flops, occurrences, avgTimePs, normalizedTimePs, flops,
 * uncappedFlops, bandwidthUtils, rawBytesAccessedArray) and the `xla` fields of its op.
 * The instructions fused into a TPU fusion leaf are its children, with their own xla.
 * Formats only: the tree and its figures are the analysis's. layout (but for the empty one
 * of a non-fusion dedup node) and xprofKernelMetadata are written empty. */
#include "op_profile.h"

#include "core/json.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put_num(json_writer *w, const char *key, double v)
{
    json_key(w, key);
    json_double(w, v);
}

static void put_metrics(json_writer *w, const op_profile_node *x)
{
    const pq_op_row *m = &x->m;
    const op_profile_figures *f = &x->f;
    json_key(w, "metrics");
    json_obj_begin(w);
    put_num(w, "flops", f->flops);
    json_key(w, "bandwidthUtils");
    json_arr_begin(w);
    for (int i = 0; i < 3; i++)
        json_double(w, f->bandwidth_utils[i]);
    json_arr_end(w);
    put_num(w, "rawTime", (double)m->time_ps);
    put_num(w, "rawFlops", m->model_flops);
    json_key(w, "rawBytesAccessedArray");
    json_arr_begin(w);
    for (int i = 0; i < 3; i++)
        json_double(w, f->raw_bytes[i]);
    json_arr_end(w);
    json_key(w, "occurrences");
    json_int(w, m->occurrences);
    put_num(w, "avgTimePs", f->avg_time_ps);
    put_num(w, "bf16Flops", m->flops);
    put_num(w, "uncappedFlops", f->uncapped_flops);
    put_num(w, "normalizedTimePs", f->normalized_time_ps);
    json_obj_end(w);
}

static void put_pstr(json_writer *w, const char *key, pq_str s)
{
    json_key(w, key);
    json_str(w, s.p ? s.p : "", s.n);
}

static void put_xla(json_writer *w, const op_profile_node *x)
{
    const pq_op_row *m = x->sym;
    json_key(w, "xla");
    json_obj_begin(w);
    put_pstr(w, "op", pq_str_of("", 0));
    put_pstr(w, "expression", m->long_name);
    json_key(w, "provenance");
    if (x->dedup_of_fusion == 2) {
        json_cstr(w, "");
    } else if (m->provenance_from_hlo && m->provenance.n) {
        char pv[2048];
        int n = snprintf(pv, sizeof pv, "%.*s:%.*s", (int)m->provenance.n, m->provenance.p,
                         (int)m->op_type.n, m->op_type.p);
        json_str(w, pv, n < (int)sizeof pv ? (size_t)n : sizeof pv - 1);
    } else {
        json_str(w, m->provenance.p ? m->provenance.p : "", m->provenance.n);
    }
    put_pstr(w, "category", m->category);
    if (x->dedup_of_fusion == 1) {
        /* A non-fusion dedup node copies its top op's layout, set even when empty. */
        json_key(w, "layout");
        json_obj_begin(w);
        json_key(w, "dimensions");
        json_arr_begin(w);
        json_arr_end(w);
        json_obj_end(w);
    }
    json_key(w, "computationPrimitiveSize");
    json_int(w, 0);
    json_key(w, "fingerprint");
    json_cstr(w, "0");
    char id[24];
    snprintf(id, sizeof id, "%" PRIu64, m->is_idle ? 0 : m->program_id);
    json_key(w, "programId");
    json_cstr(w, id);
    /* sourceInfo: "file:line" split at its last ':', the stack as stackFrame. */
    pq_str file = m->source, line = pq_str_of("", 0);
    size_t k = file.n;
    while (k > 0 && file.p[k - 1] != ':')
        k--;
    if (k > 1 && k < file.n) {
        line = pq_str_of(file.p + k, file.n - k);
        file.n = k - 1;
    } else {
        file.n = 0;
    }
    json_key(w, "sourceInfo");
    json_obj_begin(w);
    put_pstr(w, "fileName", file);
    json_key(w, "lineNumber");
    /* no source: XProf's OpSourceInfo default (-1) for ops described by the HloProto (GPU),
     * 0 for TPU op metadata without a source stat */
    json_int(w, line.n ? strtoll(line.p, NULL, 10) : m->provenance_from_hlo ? -1 : 0);
    put_pstr(w, "stackFrame", file.n ? m->source_stack : pq_str_of("", 0));
    json_obj_end(w);
    put_pstr(w, "xprofKernelMetadata", pq_str_of("", 0));
    json_obj_end(w);
}

/* A fused instruction's xla: its text, provenance and category; XProf sets nothing else
 * (program id 0, empty source info). */
static void put_fused_xla(json_writer *w, const pq_fused_op *f)
{
    json_key(w, "xla");
    json_obj_begin(w);
    put_pstr(w, "op", pq_str_of("", 0));
    put_pstr(w, "expression", f->expression);
    put_pstr(w, "provenance", f->provenance);
    put_pstr(w, "category", f->category);
    json_key(w, "computationPrimitiveSize");
    json_int(w, 0);
    json_key(w, "fingerprint");
    json_cstr(w, "0");
    json_key(w, "programId");
    json_cstr(w, "0");
    json_key(w, "sourceInfo");
    json_obj_begin(w);
    put_pstr(w, "fileName", pq_str_of("", 0));
    json_key(w, "lineNumber");
    json_int(w, 0);
    put_pstr(w, "stackFrame", pq_str_of("", 0));
    json_obj_end(w);
    put_pstr(w, "xprofKernelMetadata", pq_str_of("", 0));
    json_obj_end(w);
}

static void put_node(json_writer *w, const op_profile_tree *t, uint32_t id)
{
    const op_profile_node *x = &t->n[id];
    json_obj_begin(w);
    put_pstr(w, "name", op_profile_node_name(t, x));
    put_metrics(w, x);
    json_key(w, "children");
    json_arr_begin(w);
    for (uint32_t i = 0; i < x->nkids; i++)
        put_node(w, t, x->kids[i]);
    json_arr_end(w);
    if (x->sym)
        put_xla(w, x);
    else if (x->fused)
        put_fused_xla(w, x->fused);
    json_key(w, "numChildren");
    json_int(w, x->nkids);
    json_obj_end(w);
}

void op_profile_json(buf *b, const pq_ops_result *r, int group, const op_profile_tree *with_idle,
                     const op_profile_tree *without_idle)
{
    static const char *const keys[][2] = {{"byProgram", "byProgramExcludeIdle"},
                                          {"byCategory", "byCategoryExcludeIdle"},
                                          {"byProvenance", "byProvenanceExcludeIdle"}};
    json_writer w;
    json_init(&w, b, 0);
    json_obj_begin(&w);
    /* Field-number order, as protobuf's JSON printer writes them. */
    if (group == OP_PROFILE_BY_CATEGORY || group == OP_PROFILE_BY_PROGRAM) {
        json_key(&w, keys[group][0]);
        put_node(&w, with_idle, 0);
    }
    json_key(&w, "deviceType");
    json_cstr(&w, r->hw == PQ_OPS_HW_TPU   ? "TPU"
                  : r->hw == PQ_OPS_HW_GPU ? "GPU"
                                           : "CPU_ONLY"); /* XProf: no device planes */
    if (group == OP_PROFILE_BY_PROVENANCE) {
        json_key(&w, keys[group][0]);
        put_node(&w, with_idle, 0);
    }
    json_key(&w, keys[group][1]);
    put_node(&w, without_idle, 0);
    json_key(&w, "aggDvfsTimeScaleMultiplier");
    double tsm = 0;
    if (r->hw == PQ_OPS_HW_TPU && r->total_op_time_ps != 0)
        tsm = r->normalized_total_op_time_ps / (double)r->total_op_time_ps;
    json_double(&w, tsm);
    json_obj_end(&w);
    buf_putc(b, '\n');
}
