/* summary_set.c - the profq.summary_set.v1 document of several trace files of one job: the
 * cross-source table (analysis/summary_set.c: step time and shares per source, the slowest
 * source) and each source's profile_summary.v1 (render/summary_tree.c), as a jval tree that
 * core/jval.c writes, or streamed by render/summary_json.c's writer (su_summary_set_write).
 * Formatting only: no files, no computing. */
#include "render/summary_set.h"

#include "render/summary_fields.h"
#include "render/summary_json.h"

#include <string.h>

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

void su_summary_set_write(sj_writer *w, const sm_summary_set *set, const char *const *summaries,
                          size_t n)
{
    sj_open(w, '{');
    sj_key(w, "cross_source");
    sj_open(w, '{');
    sj_field(w, "basis",
             su_vstr("steady-state median step time (step_time.steady_state_steps.median)"));
    sj_field(w, "slowest_source", su_vstr(set->slowest_source));
    sj_key(w, "sources");
    sj_open(w, '[');
    for (size_t k = 0; k < set->nsources; k++) {
        const sm_source_row *r = &set->sources[k];
        su_val shares[PQ_SM_OTHER];
        for (int c = 0; c < PQ_SM_OTHER; c++)
            shares[c] = su_vnum(r->shares[c]);
        sj_item(w);
        sj_open(w, '{');
        sj_field(w, "path", su_vstr(r->path));
        sj_key(w, "shares");
        sj_scalars(w, SM_CATEGORY_KEYS, shares, PQ_SM_OTHER);
        sj_field(w, "steady_steps", su_vint((int64_t)r->steady_steps));
        sj_field(w, "step_max_us", su_vnum(r->step_max_us));
        sj_field(w, "step_median_us", su_vnum(r->step_median_us));
        sj_field(w, "step_p90_us", su_vnum(r->step_p90_us));
        sj_field(w, "total_duration_us", su_vnum(r->total_duration_us));
        sj_close(w, '}');
    }
    sj_close(w, ']');
    sj_close(w, '}');
    sj_field(w, "schema", su_vstr("profq.summary_set.v1"));
    sj_key(w, "summaries");
    sj_open(w, '[');
    for (size_t k = 0; k < n; k++) {
        sj_item(w);
        buf_puts(w->b, summaries[k]);
    }
    sj_close(w, ']');
    sj_close(w, '}');
}
