/* summary_compare.c - compare's and track's documents from their result structs
 * (pq_summary_comparison, pq_track_assessment: include/profq.h), with the keys and value
 * types of the seed's tracking.py; NaN and NULL are written as null.
 * Not here: computing (analysis/summary_compare.c), writing bytes (core/jval.c), the text
 * for people (render/summary_text.c), history files (io/append.c). */
#include "render/summary_compare.h"
#include "render/summary_fields.h"

#include <stdio.h>

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
        const pq_sm_step_class *x = &cl[i];
        jval *o = jv_obj();
        jv_set(o, "name", jv_cstr(x->name));
        jv_set(o, "count", jv_int((int64_t)x->count));
        jv_set(o, "fraction_of_steady", jv_num(x->fraction_of_steady));
        jv_set(o, "median_duration", jv_num(x->duration_stats.median));
        jv_set(o, "p90_duration", jv_num(x->duration_stats.p90));
        jv_set(o, "representative_step", jv_int(x->representative_step));
        jv_set(o, "representative_duration", jv_num(x->representative_duration));
        jv_set(o, "periodicity", x->periodicity ? jv_int(x->periodicity) : jv_null());
        jv_push(out, o);
    }
    return out;
}

static jval *class_delta_tree(const pq_summary_comparison *c)
{
    jval *sc = jv_obj(), *delta = jv_arr();
    for (size_t i = 0; i < c->nclass_delta; i++) {
        const pq_sm_class_delta *x = &c->class_delta[i];
        jval *d = jv_obj();
        jv_set(d, "name", jv_cstr(x->name));
        jv_set(d, "before_count", jv_int((int64_t)x->before_count));
        jv_set(d, "after_count", jv_int((int64_t)x->after_count));
        jv_set(d, "before_fraction", jv_num(x->before_fraction));
        jv_set(d, "after_fraction", jv_num(x->after_fraction));
        jv_set(d, "median_before", jv_num(x->median_before));
        jv_set(d, "median_after", jv_num(x->median_after));
        jv_set(d, "median_delta", jv_num(x->median_delta));
        jv_set(d, "median_regression_pct", jv_num(x->median_regression_pct));
        jv_push(delta, d);
    }
    jv_set(sc, "before", classes_tree(c->classes_before, c->nclasses_before));
    jv_set(sc, "after", classes_tree(c->classes_after, c->nclasses_after));
    jv_set(sc, "delta", delta);
    return sc;
}

static jval *families_tree(const pq_summary_comparison *c)
{
    jval *fd = jv_arr();
    for (size_t i = 0; i < c->nfamilies; i++) {
        const pq_sm_family_delta *f = &c->families[i];
        jval *o = jv_obj();
        jv_set(o, "family", jv_cstr(f->family));
        jv_set(o, "before_exclusive_duration", jv_num(f->before_exclusive_duration));
        jv_set(o, "after_exclusive_duration", jv_num(f->after_exclusive_duration));
        jv_set(o, "exclusive_duration_delta", jv_num(f->exclusive_duration_delta));
        jv_set(o, "exclusive_regression_pct", jv_num(f->exclusive_regression_pct));
        jv_set(o, "before_flop_proxy_total", jv_num(f->before_flop_proxy_total));
        jv_set(o, "after_flop_proxy_total", jv_num(f->after_flop_proxy_total));
        jv_set(o, "flop_proxy_ratio", jv_num(f->flop_proxy_ratio));
        jv_set(o, "before_time_per_flop_proxy", jv_num(f->before_time_per_flop_proxy));
        jv_set(o, "after_time_per_flop_proxy", jv_num(f->after_time_per_flop_proxy));
        jv_set(o, "time_per_flop_regression_pct", jv_num(f->time_per_flop_regression_pct));
        jv_set(o, "time_ratio", jv_num(f->time_ratio));
        jv_set(o, "work_ratio", jv_num(f->work_ratio));
        jv_set(o, "efficiency_ratio", jv_num(f->efficiency_ratio));
        jv_set(o, "example_before", jv_cstr(f->example_before));
        jv_set(o, "example_after", jv_cstr(f->example_after));
        jv_set(o, "shape_signature_before", jv_cstr(f->shape_signature_before));
        jv_set(o, "shape_signature_after", jv_cstr(f->shape_signature_after));
        jv_push(fd, o);
    }
    return fd;
}

static jval *ops_tree(const pq_sm_op_delta *ops, size_t n)
{
    jval *a = jv_arr();
    for (size_t j = 0; j < n; j++) {
        jval *o = jv_obj();
        jv_set(o, "name", jv_cstr(ops[j].name));
        jv_set(o, "before", jv_num(ops[j].before));
        jv_set(o, "after", jv_num(ops[j].after));
        jv_set(o, "delta", jv_num(ops[j].delta));
        jv_push(a, o);
    }
    return a;
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
    bad |= jv_set(r, "semantic_family_delta", families_tree(c)) != 0;
    bad |= jv_set(r, "regressed_ops", ops_tree(c->regressed_ops, c->nregressed_ops)) != 0;
    bad |= jv_set(r, "improved_ops", ops_tree(c->improved_ops, c->nimproved_ops)) != 0;
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
