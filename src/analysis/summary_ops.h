/* summary_ops.h - what the seed does with profile_summary.v1 documents once written
 * (spec/seed-tools.md 1.20-1.22): query routing, compare, track (pass/warn/fail) and the
 * history digest. Pure functions over jval trees; no I/O. */
#ifndef PQ_ANALYSIS_SUMMARY_OPS_H
#define PQ_ANALYSIS_SUMMARY_OPS_H
#include "core/jval.h"

typedef struct track_thresholds {
    double max_step_median_regression_pct;     /* 5.0 */
    double max_step_p90_regression_pct;        /* 10.0 */
    double max_communication_share_regression; /* 0.05 (absolute share) */
    double max_stall_share_regression;         /* 0.05 */
} track_thresholds;

jval *summary_query(const jval *summary, const char *question, int top_k);
jval *summary_compare(const jval *before, const jval *after, int top_k);
/* The assessment {status, failures, warnings, metrics, comparison}. */
jval *summary_assess(const jval *comparison, const track_thresholds *t);
/* The record {recorded_at_utc, label, before, after, assessment}. */
jval *summary_track_record(const jval *before, const jval *after, jval *assessment,
                           const char *label, const char *recorded_at_utc);
/* Digest of history records (already parsed; non-objects are skipped by the caller). */
jval *summary_history(const char *history_path, jval *const *records, size_t n, int tail);

/* The metadata the seed's publish attaches to a profile_summary artifact. */
jval *summary_publish_metadata(const jval *summary);

#endif
