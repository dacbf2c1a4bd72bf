/* summary_compare.c - compare's and track's documents from their result structs
 * (pq_summary_comparison, pq_track_assessment: include/profq.h), with the keys and value
 * types of the seed's tracking.py; NaN and NULL are written as null: as the jval tree the
 * JSON is written from (core/jval.c) and as the text for people, written from the structs
 * directly (laid out by render/summary_outline.c; one row table a list).
 * Not here: computing (analysis/summary_compare.c), writing bytes (core/jval.c), history
 * files (io/append.c). */
#include "render/summary_compare.h"
#include "render/summary_fields.h"
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

static jval *strings(const char *const *s, size_t n)
{
    jval *a = jv_arr();
    for (size_t k = 0; k < n; k++)
        jv_push(a, jv_cstr(s[k]));
    return a;
}

static jval *provenance_tree(const pq_summary_comparison *c)
{
    jval *pv = jv_obj();
    jv_set(pv, "status", jv_cstr(c->provenance_status));
    jv_set(pv, "messages", strings(c->provenance_messages, c->nprovenance_messages));
    jv_set(pv, "before_trace_sha256", jv_cstr(c->before_trace_sha256));
    jv_set(pv, "after_trace_sha256", jv_cstr(c->after_trace_sha256));
    jv_set(pv, "before_run_id", jv_cstr(c->before_run_id));
    jv_set(pv, "after_run_id", jv_cstr(c->after_run_id));
    return pv;
}

static jval *step_time_tree(const pq_summary_comparison *c)
{
    static const char *const qs[2] = {"median", "p90"};
    jval *o = jv_obj();
    for (int i = 0; i < 2; i++) {
        char key[64];
        snprintf(key, sizeof key, "steady_state_%s_before", qs[i]);
        jv_set(o, key, jv_num(c->steady_before[i]));
        snprintf(key, sizeof key, "steady_state_%s_after", qs[i]);
        jv_set(o, key, jv_num(c->steady_after[i]));
        snprintf(key, sizeof key, "steady_state_%s_delta", qs[i]);
        jv_set(o, key, jv_num(c->steady_delta[i]));
    }
    return o;
}

/* The step classes of one side as compare lists them. */
static jval *classes_tree(const pq_sm_step_class *cl, size_t n)
{
    jval *out = jv_arr();
    for (size_t i = 0; i < n; i++) {
        jval *o = sm_row_tree(&cl[i], &CLASS_ROW);
        jv_set(o, "periodicity", cl[i].periodicity ? jv_int(cl[i].periodicity) : jv_null());
        jv_push(out, o);
    }
    return out;
}

static jval *class_delta_tree(const pq_summary_comparison *c)
{
    jval *sc = jv_obj();
    jv_set(sc, "before", classes_tree(c->classes_before, c->nclasses_before));
    jv_set(sc, "after", classes_tree(c->classes_after, c->nclasses_after));
    jv_set(sc, "delta", sm_rows_tree(c->class_delta, c->nclass_delta, &CLASS_DELTA_ROW));
    return sc;
}

jval *su_compare_tree(const pq_summary_comparison *c)
{
    jval *r = jv_obj();
    if (!r)
        return NULL;
    int bad = jv_set(r, "before_source", jv_cstr(c->before_source)) != 0;
    bad |= jv_set(r, "after_source", jv_cstr(c->after_source)) != 0;
    bad |= jv_set(r, "provenance_checks", provenance_tree(c)) != 0;
    bad |= jv_set(r, "step_time", step_time_tree(c)) != 0;
    bad |= jv_set(r, "step_classes", class_delta_tree(c)) != 0;
    jval *bd = jv_obj();
    for (int i = 0; i < PQ_SM_NCATEGORIES; i++)
        jv_set(bd, SM_CATEGORY_KEYS[i], jv_num(c->share_delta[i]));
    bad |= jv_set(r, "time_breakdown_share_delta", bd) != 0;
    bad |= jv_set(r, "semantic_family_delta",
                  sm_rows_tree(c->families, c->nfamilies, &FAMILY_DELTA_ROW)) != 0;
    bad |= jv_set(r, "regressed_ops",
                  sm_rows_tree(c->regressed_ops, c->nregressed_ops, &OP_DELTA_ROW)) != 0;
    bad |= jv_set(r, "improved_ops",
                  sm_rows_tree(c->improved_ops, c->nimproved_ops, &OP_DELTA_ROW)) != 0;
    if (bad) {
        jv_free(r);
        return NULL;
    }
    return r;
}

static jval *assessment_tree(const pq_track_assessment *as)
{
    static const char *const status[] = {"pass", "warn", "fail"};
    jval *r = jv_obj(), *fails = jv_arr(), *warns = jv_arr(), *m = jv_obj();
    for (size_t k = 0; k < as->nfailures; k++)
        jv_push(fails, jv_cstr(as->failures[k]));
    for (size_t k = 0; k < as->nwarnings; k++)
        jv_push(warns, jv_cstr(as->warnings[k]));
    jv_set(m, "steady_state_median_regression_pct", jv_num(as->median_regression_pct));
    jv_set(m, "steady_state_p90_regression_pct", jv_num(as->p90_regression_pct));
    jv_set(m, "communication_share_delta", jv_num(as->communication_share_delta));
    jv_set(m, "stall_share_delta", jv_num(as->stall_share_delta));
    jv_set(r, "status", jv_cstr(status[as->status]));
    jv_set(r, "failures", fails);
    jv_set(r, "warnings", warns);
    jv_set(r, "metrics", m);
    jv_set(r, "comparison", su_compare_tree(as->comparison));
    return r;
}

/* Which summary a track record compared. */
static jval *side_tree(const pq_summary_result *s)
{
    jval *o = jv_obj();
    jv_set(o, "source_path", jv_cstr(s->source_path));
    jv_set(o, "run_path", jv_cstr(s->run_metadata.run_path));
    jv_set(o, "run_id", jv_cstr(s->run_metadata.run_id));
    jv_set(o, "artifact_ref", jv_cstr(s->run_metadata.artifact_ref));
    return o;
}

jval *su_track_tree(const pq_summary_result *before, const pq_summary_result *after,
                    const pq_track_assessment *as, const char *label, const char *recorded_at_utc)
{
    jval *r = jv_obj();
    if (!r)
        return NULL;
    int bad = jv_set(r, "recorded_at_utc", jv_cstr(recorded_at_utc)) != 0;
    bad |= jv_set(r, "label", jv_cstr(label)) != 0;
    bad |= jv_set(r, "before", side_tree(before)) != 0;
    bad |= jv_set(r, "after", side_tree(after)) != 0;
    bad |= jv_set(r, "assessment", assessment_tree(as)) != 0;
    if (bad) {
        jv_free(r);
        return NULL;
    }
    return r;
}

/* ---- text ---------------------------------------------------------------------------------- */

typedef struct class_rows {
    const pq_sm_step_class *cl;
} class_rows;

static void class_get(const void *ctx, size_t i, su_val *v)
{
    const pq_sm_step_class *x = &((const class_rows *)ctx)->cl[i];
    for (size_t j = 0; j < CLASS_ROW.nfields; j++)
        v[j] = su_vfield(x, &CLASS_F[j]);
    v[CLASS_ROW.nfields] = x->periodicity ? su_vint(x->periodicity) : su_vstr(NULL);
}

/* The step classes of one side under KEY at DEPTH. */
static void classes_text(const su_outline *o, size_t depth, const char *key,
                         const pq_sm_step_class *cl, size_t n)
{
    const char *keys[sizeof CLASS_F / sizeof *CLASS_F + 1];
    for (size_t j = 0; j < CLASS_ROW.nfields; j++)
        keys[j] = CLASS_F[j].key;
    keys[CLASS_ROW.nfields] = "periodicity";
    class_rows ctx = {cl};
    su_rowset r = {keys, CLASS_ROW.nfields + 1, n, class_get, &ctx};
    su_rows(o, depth, key, &r);
}

/* Comparison C's members at DEPTH (INHERIT: the unit of the block holding them). */
static void compare_text(const su_outline *o, size_t depth, const pq_summary_comparison *c,
                         su_unit inherit)
{
    static const char *const qs[2] = {"median", "p90"}, *const sides[3] = {"before", "after",
                                                                           "delta"};
    su_line(o, depth, "before_source", su_vstr(c->before_source), inherit);
    su_line(o, depth, "after_source", su_vstr(c->after_source), inherit);
    su_unit u = su_open(o, depth, "provenance_checks");
    su_line(o, depth + 1, "status", su_vstr(c->provenance_status), u);
    su_line(o, depth + 1, "before_trace_sha256", su_vstr(c->before_trace_sha256), u);
    su_line(o, depth + 1, "after_trace_sha256", su_vstr(c->after_trace_sha256), u);
    su_line(o, depth + 1, "before_run_id", su_vstr(c->before_run_id), u);
    su_line(o, depth + 1, "after_run_id", su_vstr(c->after_run_id), u);
    su_strings(o, depth + 1, "messages", c->provenance_messages, c->nprovenance_messages);
    u = su_open(o, depth, "step_time");
    for (int i = 0; i < 2; i++) {
        const double v[3] = {c->steady_before[i], c->steady_after[i], c->steady_delta[i]};
        for (int k = 0; k < 3; k++) {
            char key[64];
            snprintf(key, sizeof key, "steady_state_%s_%s", qs[i], sides[k]);
            su_line(o, depth + 1, key, su_vnum(v[k]), u);
        }
    }
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
    static const char *const status[] = {"pass", "warn", "fail"};
    su_outline o;
    su_outline_init(&o, b, wide);
    su_line(&o, 0, "recorded_at_utc", su_vstr(recorded_at_utc), SU_PLAIN);
    su_line(&o, 0, "label", su_vstr(label), SU_PLAIN);
    side_text(&o, "before", before);
    side_text(&o, "after", after);
    su_unit u = su_open(&o, 0, "assessment");
    su_line(&o, 1, "status", su_vstr(status[as->status]), u);
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
