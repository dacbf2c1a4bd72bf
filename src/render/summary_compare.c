/* summary_compare.c - compare's and track's documents written from their result structs
 * (pq_summary_comparison, pq_track_assessment: include/profq.h), with the keys and value
 * types of the seed's tracking.py: as JSON (NaN and NULL written as null, keys sorted, the
 * bytes of the seed's json.dumps: render/summary_json.c) and as text for people (laid out by
 * render/summary_outline.c). No document tree is built.
 * Not here: computing (analysis/summary_compare.c), history files (io/append.c). */
#include "render/summary_compare.h"
#include "render/summary_fields.h"
#include "render/summary_json.h"
#include "render/summary_outline.h"

#include <stddef.h>
#include <stdio.h>

/* The rows compare lists: its step classes, their deltas, the family deltas and the ops. */
static const sm_field CLASS_F[] = {
    SM_FIELD(pq_sm_step_class, "name", SM_F_STR, name),
    SM_FIELD(pq_sm_step_class, "count", SM_F_U64, count),
    SM_FIELD(pq_sm_step_class, "fraction_of_steady", SM_F_NUM, fraction_of_steady),
    SM_FIELD(pq_sm_step_class, "median_duration", SM_F_NUM, duration_stats.median),
    SM_FIELD(pq_sm_step_class, "p90_duration", SM_F_NUM, duration_stats.p90),
    SM_FIELD(pq_sm_step_class, "representative_step", SM_F_I64, representative_step),
    SM_FIELD(pq_sm_step_class, "representative_duration", SM_F_NUM, representative_duration)};
static const sm_row_desc CLASS_ROW = SM_ROW(pq_sm_step_class, CLASS_F); /* + periodicity */

static const sm_field CLASS_DELTA_F[] = {
    SM_FIELD(pq_sm_class_delta, "name", SM_F_STR, name),
    SM_FIELD(pq_sm_class_delta, "before_count", SM_F_U64, before_count),
    SM_FIELD(pq_sm_class_delta, "after_count", SM_F_U64, after_count),
    SM_FIELD(pq_sm_class_delta, "before_fraction", SM_F_NUM, before_fraction),
    SM_FIELD(pq_sm_class_delta, "after_fraction", SM_F_NUM, after_fraction),
    SM_FIELD(pq_sm_class_delta, "median_before", SM_F_NUM, median_before),
    SM_FIELD(pq_sm_class_delta, "median_after", SM_F_NUM, median_after),
    SM_FIELD(pq_sm_class_delta, "median_delta", SM_F_NUM, median_delta),
    SM_FIELD(pq_sm_class_delta, "median_regression_pct", SM_F_NUM, median_regression_pct)};
static const sm_row_desc CLASS_DELTA_ROW = SM_ROW(pq_sm_class_delta, CLASS_DELTA_F);

#define FAMILY_NUM(key) SM_FIELD(pq_sm_family_delta, #key, SM_F_NUM, key)
#define FAMILY_STR(key) SM_FIELD(pq_sm_family_delta, #key, SM_F_STR, key)
static const sm_field FAMILY_DELTA_F[] = {FAMILY_STR(family),
                                          FAMILY_NUM(before_exclusive_duration),
                                          FAMILY_NUM(after_exclusive_duration),
                                          FAMILY_NUM(exclusive_duration_delta),
                                          FAMILY_NUM(exclusive_regression_pct),
                                          FAMILY_NUM(before_flop_proxy_total),
                                          FAMILY_NUM(after_flop_proxy_total),
                                          FAMILY_NUM(flop_proxy_ratio),
                                          FAMILY_NUM(before_time_per_flop_proxy),
                                          FAMILY_NUM(after_time_per_flop_proxy),
                                          FAMILY_NUM(time_per_flop_regression_pct),
                                          FAMILY_NUM(time_ratio),
                                          FAMILY_NUM(work_ratio),
                                          FAMILY_NUM(efficiency_ratio),
                                          FAMILY_STR(example_before),
                                          FAMILY_STR(example_after),
                                          FAMILY_STR(shape_signature_before),
                                          FAMILY_STR(shape_signature_after)};
#undef FAMILY_NUM
#undef FAMILY_STR
static const sm_row_desc FAMILY_DELTA_ROW = SM_ROW(pq_sm_family_delta, FAMILY_DELTA_F);

static const sm_field OP_DELTA_F[] = {SM_FIELD(pq_sm_op_delta, "name", SM_F_STR, name),
                                      SM_FIELD(pq_sm_op_delta, "before", SM_F_NUM, before),
                                      SM_FIELD(pq_sm_op_delta, "after", SM_F_NUM, after),
                                      SM_FIELD(pq_sm_op_delta, "delta", SM_F_NUM, delta)};
static const sm_row_desc OP_DELTA_ROW = SM_ROW(pq_sm_op_delta, OP_DELTA_F);

/* The scalars of class X as compare lists them (CLASS_F's keys, then periodicity). */
static void class_vals(const pq_sm_step_class *x, su_val *v)
{
    for (size_t j = 0; j < CLASS_ROW.nfields; j++)
        v[j] = su_vfield(x, &CLASS_F[j]);
    v[CLASS_ROW.nfields] = x->periodicity ? su_vint(x->periodicity) : su_vstr(NULL);
}

static size_t class_keys(const char **keys)
{
    for (size_t j = 0; j < CLASS_ROW.nfields; j++)
        keys[j] = CLASS_F[j].key;
    keys[CLASS_ROW.nfields] = "periodicity";
    return CLASS_ROW.nfields + 1;
}

/* The step classes of one side as a JSON array. */
static void classes_json(sj_writer *w, const pq_sm_step_class *cl, size_t n)
{
    const char *keys[sizeof CLASS_F / sizeof *CLASS_F + 1];
    su_val v[sizeof CLASS_F / sizeof *CLASS_F + 1];
    size_t nk = class_keys(keys);
    sj_open(w, '[');
    for (size_t i = 0; i < n; i++) {
        class_vals(&cl[i], v);
        sj_item(w);
        sj_scalars(w, keys, v, nk);
    }
    sj_close(w, ']');
}

static const char *const QS[2] = {"median", "p90"}, *const SIDES[3] = {"before", "after", "delta"};

/* compare's step_time: its six keys and values (in the document's order). */
static void step_time_vals(const pq_summary_comparison *c, char keys[6][64], const char **kp,
                           su_val *v)
{
    for (int i = 0; i < 2; i++) {
        const double d[3] = {c->steady_before[i], c->steady_after[i], c->steady_delta[i]};
        for (int k = 0; k < 3; k++) {
            snprintf(keys[i * 3 + k], 64, "steady_state_%s_%s", QS[i], SIDES[k]);
            kp[i * 3 + k] = keys[i * 3 + k];
            v[i * 3 + k] = su_vnum(d[k]);
        }
    }
}

/* ---- JSON ---------------------------------------------------------------------------------- */

void su_compare_json(sj_writer *w, const pq_summary_comparison *c)
{
    sj_open(w, '{');
    sj_field(w, "after_source", su_vstr(c->after_source));
    sj_field(w, "before_source", su_vstr(c->before_source));
    sj_key(w, "improved_ops");
    sj_rows(w, c->improved_ops, c->nimproved_ops, &OP_DELTA_ROW);
    sj_key(w, "provenance_checks");
    sj_open(w, '{');
    sj_field(w, "after_run_id", su_vstr(c->after_run_id));
    sj_field(w, "after_trace_sha256", su_vstr(c->after_trace_sha256));
    sj_field(w, "before_run_id", su_vstr(c->before_run_id));
    sj_field(w, "before_trace_sha256", su_vstr(c->before_trace_sha256));
    sj_key(w, "messages");
    sj_strings(w, c->provenance_messages, c->nprovenance_messages);
    sj_field(w, "status", su_vstr(c->provenance_status));
    sj_close(w, '}');
    sj_key(w, "regressed_ops");
    sj_rows(w, c->regressed_ops, c->nregressed_ops, &OP_DELTA_ROW);
    sj_key(w, "semantic_family_delta");
    sj_rows(w, c->families, c->nfamilies, &FAMILY_DELTA_ROW);
    sj_key(w, "step_classes");
    sj_open(w, '{');
    sj_key(w, "after");
    classes_json(w, c->classes_after, c->nclasses_after);
    sj_key(w, "before");
    classes_json(w, c->classes_before, c->nclasses_before);
    sj_key(w, "delta");
    sj_rows(w, c->class_delta, c->nclass_delta, &CLASS_DELTA_ROW);
    sj_close(w, '}');
    char keys[6][64];
    const char *kp[PQ_SM_NCATEGORIES > 6 ? PQ_SM_NCATEGORIES : 6];
    su_val v[PQ_SM_NCATEGORIES > 6 ? PQ_SM_NCATEGORIES : 6];
    step_time_vals(c, keys, kp, v);
    sj_key(w, "step_time");
    sj_scalars(w, kp, v, 6);
    for (int i = 0; i < PQ_SM_NCATEGORIES; i++) {
        kp[i] = SM_CATEGORY_KEYS[i];
        v[i] = su_vnum(c->share_delta[i]);
    }
    sj_key(w, "time_breakdown_share_delta");
    sj_scalars(w, kp, v, PQ_SM_NCATEGORIES);
    sj_close(w, '}');
}

/* Which summary a track record compared. */
static void side_json(sj_writer *w, const char *key, const pq_summary_result *s)
{
    const char *const keys[4] = {"artifact_ref", "run_id", "run_path", "source_path"};
    const su_val v[4] = {su_vstr(s->run_metadata.artifact_ref), su_vstr(s->run_metadata.run_id),
                         su_vstr(s->run_metadata.run_path), su_vstr(s->source_path)};
    sj_key(w, key);
    sj_scalars(w, keys, v, 4);
}

static const char *const TRACK_STATUS[] = {"pass", "warn", "fail"};

void su_track_json(sj_writer *w, const pq_summary_result *before, const pq_summary_result *after,
                   const pq_track_assessment *as, const char *label, const char *recorded_at_utc)
{
    const char *const fails[2] = {as->failures[0], as->failures[1]};
    const char *const warns[2] = {as->warnings[0], as->warnings[1]};
    const char *const mkeys[4] = {"communication_share_delta", "stall_share_delta",
                                  "steady_state_median_regression_pct",
                                  "steady_state_p90_regression_pct"};
    const su_val m[4] = {su_vnum(as->communication_share_delta), su_vnum(as->stall_share_delta),
                         su_vnum(as->median_regression_pct), su_vnum(as->p90_regression_pct)};
    sj_open(w, '{');
    side_json(w, "after", after);
    sj_key(w, "assessment");
    sj_open(w, '{');
    sj_key(w, "comparison");
    su_compare_json(w, as->comparison);
    sj_key(w, "failures");
    sj_strings(w, fails, as->nfailures);
    sj_key(w, "metrics");
    sj_scalars(w, mkeys, m, 4);
    sj_field(w, "status", su_vstr(TRACK_STATUS[as->status]));
    sj_key(w, "warnings");
    sj_strings(w, warns, as->nwarnings);
    sj_close(w, '}');
    side_json(w, "before", before);
    sj_field(w, "label", su_vstr(label));
    sj_field(w, "recorded_at_utc", su_vstr(recorded_at_utc));
    sj_close(w, '}');
}

/* ---- text ---------------------------------------------------------------------------------- */

static void class_get(const void *ctx, size_t i, su_val *v)
{
    class_vals(&((const pq_sm_step_class *)ctx)[i], v);
}

/* The step classes of one side under KEY at DEPTH. */
static void classes_text(const su_outline *o, size_t depth, const char *key,
                         const pq_sm_step_class *cl, size_t n)
{
    const char *keys[sizeof CLASS_F / sizeof *CLASS_F + 1];
    su_rowset r = {keys, class_keys(keys), n, class_get, cl};
    su_rows(o, depth, key, &r);
}

/* Comparison C's members at DEPTH (INHERIT: the unit of the block holding them). */
static void compare_text(const su_outline *o, size_t depth, const pq_summary_comparison *c,
                         su_unit inherit)
{
    su_line(o, depth, "before_source", su_vstr(c->before_source), inherit);
    su_line(o, depth, "after_source", su_vstr(c->after_source), inherit);
    su_unit u = su_open(o, depth, "provenance_checks");
    su_line(o, depth + 1, "status", su_vstr(c->provenance_status), u);
    su_line(o, depth + 1, "before_trace_sha256", su_vstr(c->before_trace_sha256), u);
    su_line(o, depth + 1, "after_trace_sha256", su_vstr(c->after_trace_sha256), u);
    su_line(o, depth + 1, "before_run_id", su_vstr(c->before_run_id), u);
    su_line(o, depth + 1, "after_run_id", su_vstr(c->after_run_id), u);
    su_strings(o, depth + 1, "messages", c->provenance_messages, c->nprovenance_messages);
    char keys[6][64];
    const char *kp[6];
    su_val v[6];
    step_time_vals(c, keys, kp, v);
    u = su_open(o, depth, "step_time");
    for (int i = 0; i < 6; i++)
        su_line(o, depth + 1, kp[i], v[i], u);
    su_open(o, depth, "step_classes");
    classes_text(o, depth + 1, "before", c->classes_before, c->nclasses_before);
    classes_text(o, depth + 1, "after", c->classes_after, c->nclasses_after);
    su_rows_desc(o, depth + 1, "delta", c->class_delta, c->nclass_delta, &CLASS_DELTA_ROW);
    u = su_open(o, depth, "time_breakdown_share_delta");
    for (int i = 0; i < PQ_SM_NCATEGORIES; i++)
        su_line(o, depth + 1, SM_CATEGORY_KEYS[i], su_vnum(c->share_delta[i]), u);
    su_rows_desc(o, depth, "semantic_family_delta", c->families, c->nfamilies, &FAMILY_DELTA_ROW);
    su_rows_desc(o, depth, "regressed_ops", c->regressed_ops, c->nregressed_ops, &OP_DELTA_ROW);
    su_rows_desc(o, depth, "improved_ops", c->improved_ops, c->nimproved_ops, &OP_DELTA_ROW);
}

void su_compare_text(buf *b, const pq_summary_comparison *c, int wide)
{
    su_outline o;
    su_outline_init(&o, b, wide);
    compare_text(&o, 0, c, SU_PLAIN);
}

/* Which summary a track record compared, under KEY. */
static void side_text(const su_outline *o, const char *key, const pq_summary_result *s)
{
    su_unit u = su_open(o, 0, key);
    su_line(o, 1, "source_path", su_vstr(s->source_path), u);
    su_line(o, 1, "run_path", su_vstr(s->run_metadata.run_path), u);
    su_line(o, 1, "run_id", su_vstr(s->run_metadata.run_id), u);
    su_line(o, 1, "artifact_ref", su_vstr(s->run_metadata.artifact_ref), u);
}

void su_track_text(buf *b, const pq_summary_result *before, const pq_summary_result *after,
                   const pq_track_assessment *as, const char *label, const char *recorded_at_utc,
                   int wide)
{
    su_outline o;
    su_outline_init(&o, b, wide);
    su_line(&o, 0, "recorded_at_utc", su_vstr(recorded_at_utc), SU_PLAIN);
    su_line(&o, 0, "label", su_vstr(label), SU_PLAIN);
    side_text(&o, "before", before);
    side_text(&o, "after", after);
    su_unit u = su_open(&o, 0, "assessment");
    su_line(&o, 1, "status", su_vstr(TRACK_STATUS[as->status]), u);
    const char *const fails[2] = {as->failures[0], as->failures[1]};
    const char *const warns[2] = {as->warnings[0], as->warnings[1]};
    su_strings(&o, 1, "failures", fails, as->nfailures);
    su_strings(&o, 1, "warnings", warns, as->nwarnings);
    u = su_open(&o, 1, "metrics");
    su_line(&o, 2, "steady_state_median_regression_pct", su_vnum(as->median_regression_pct), u);
    su_line(&o, 2, "steady_state_p90_regression_pct", su_vnum(as->p90_regression_pct), u);
    su_line(&o, 2, "communication_share_delta", su_vnum(as->communication_share_delta), u);
    su_line(&o, 2, "stall_share_delta", su_vnum(as->stall_share_delta), u);
    u = su_open(&o, 1, "comparison");
    compare_text(&o, 2, as->comparison, u);
}
