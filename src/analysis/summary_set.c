/* summary_set.c - the cross-source table of a summary set (profq.summary_set.v1: several
 * trace files of one job, one profile_summary.v1 each): per source its steady-state step
 * time and category shares, and the slowest source by steady-state median step time.
 * Over the summaries' result structs; the document is render/summary_set.c's. */
#include "analysis/summary_set.h"

#include <math.h>

void sm_source_row_of(const char *path, const pq_summary_result *r, sm_source_row *row)
{
    const pq_sm_duration_stats *st = &r->step_time.steady_state_steps;
    row->path = path;
    row->steady_steps = st->count;
    row->step_median_us = st->median;
    row->step_p90_us = st->p90;
    row->step_max_us = st->max;
    for (int k = 0; k < PQ_SM_OTHER; k++)
        row->shares[k] = r->time_breakdown.category_share[k];
    row->total_duration_us = r->time_breakdown.total_duration;
}

void sm_summary_set_of(const sm_source_row *rows, size_t n, sm_summary_set *out)
{
    out->sources = rows;
    out->nsources = n;
    out->slowest_source = NULL;
    double worst = 0;
    for (size_t k = 0; k < n; k++) {
        double med = rows[k].step_median_us;
        if (isfinite(med) && (!out->slowest_source || med > worst)) {
            worst = med;
            out->slowest_source = rows[k].path;
        }
    }
}
