/* summary_set.c - the profq.summary_set.v1 document of several trace files of one job: the
 * cross-source table (analysis/summary_set.c: step time and shares per source, the slowest
 * source) and each source's profile_summary.v1 (render/summary_write.c's sm_write), streamed
 * by render/summary_json.c's writer (su_summary_set_write). Formatting only: no files, no
 * computing. */
#include "render/summary_set.h"

#include "render/summary_fields.h"
#include "render/summary_json.h"

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
