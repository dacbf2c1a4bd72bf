/* summary_set.c - the profq.summary_set.v1 document of several trace files of one job: the
 * cross-source table (analysis/summary_set.c: step time and shares per source, the slowest
 * source) and each source's profile_summary.v1 (render/summary_tree.c), as a jval tree that
 * core/jval.c writes. Formatting only: no files, no computing. */
#include "render/summary_set.h"

#include "render/summary_fields.h"

static jval *row_tree(const sm_source_row *r)
{
    jval *o = jv_obj();
    jv_set(o, "path", jv_cstr(r->path));
    jv_set(o, "steady_steps", jv_int((int64_t)r->steady_steps));
    jv_set(o, "step_median_us", jv_num(r->step_median_us));
    jv_set(o, "step_p90_us", jv_num(r->step_p90_us));
    jv_set(o, "step_max_us", jv_num(r->step_max_us));
    jval *shares = jv_obj();
    for (int k = 0; k < PQ_SM_OTHER; k++)
        jv_set(shares, SM_CATEGORY_KEYS[k], jv_num(r->shares[k]));
    jv_set(o, "shares", shares);
    jv_set(o, "total_duration_us", jv_num(r->total_duration_us));
    return o;
}

jval *su_summary_set_tree(const sm_summary_set *set, jval *summaries)
{
    jval *rows = jv_arr();
    for (size_t k = 0; k < set->nsources; k++)
        jv_push(rows, row_tree(&set->sources[k]));
    jval *cross = jv_obj();
    jv_set(cross, "sources", rows);
    jv_set(cross, "slowest_source", jv_cstr(set->slowest_source));
    jv_set(cross, "basis",
           jv_cstr("steady-state median step time (step_time.steady_state_steps.median)"));
    jval *doc = jv_obj();
    int bad = jv_set(doc, "schema", jv_cstr("profq.summary_set.v1")) != 0;
    bad |= jv_set(doc, "cross_source", cross) != 0;
    bad |= jv_set(doc, "summaries", summaries) != 0;
    if (bad) {
        jv_free(doc);
        return NULL;
    }
    return doc;
}
