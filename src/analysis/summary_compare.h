/* summary_compare.h - compare and track over two summaries' result structs (the seed's
 * compare_profile_summaries and assessment, spec/seed-tools.md 1.21-1.22): pure functions
 * from pq_summary_result to pq_summary_comparison and pq_track_assessment (include/profq.h).
 * No I/O, no JSON. */
#ifndef PQ_ANALYSIS_SUMMARY_COMPARE_H
#define PQ_ANALYSIS_SUMMARY_COMPARE_H
#include "profq.h"

typedef struct track_thresholds {
    double max_step_median_regression_pct;     /* 5.0 */
    double max_step_p90_regression_pct;        /* 10.0 */
    double max_communication_share_regression; /* 0.05 (absolute share) */
    double max_stall_share_regression;         /* 0.05 */
} track_thresholds;

/* AFTER against BEFORE into OUT (its families and ops allocated here, its strings and
 * classes pointing into the summaries). 0, or -1 when memory ran out (OUT is then empty).
 * Release with sm_compare_release. */
int sm_compare(const pq_summary_result *before, const pq_summary_result *after, int top_k,
               pq_summary_comparison *out);
void sm_compare_release(pq_summary_comparison *c);

/* The assessment of comparison C with thresholds T (OUT->comparison is C). */
void sm_assess(const pq_summary_comparison *c, const track_thresholds *t, pq_track_assessment *out);

#endif
