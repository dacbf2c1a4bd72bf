/* summary_set.h - the cross-source table of several trace files of one job (ranks, hosts):
 * step time and shares per source, and the slowest source. */
#ifndef PQ_ANALYSIS_SUMMARY_SET_H
#define PQ_ANALYSIS_SUMMARY_SET_H
#include "profq.h"

#include <stddef.h>
#include <stdint.h>

/* One source's row: its summary's steady-state step time and shares (NaN: null). */
typedef struct sm_source_row {
    const char *path; /* the caller's */
    uint64_t steady_steps;
    double step_median_us, step_p90_us, step_max_us;
    double shares[PQ_SM_OTHER]; /* compute, communication, host, stall */
    double total_duration_us;
} sm_source_row;

typedef struct sm_summary_set {
    const sm_source_row *sources; /* in the order of the files */
    size_t nsources;
    const char *slowest_source; /* the largest steady-state median (the first of equals);
                                   NULL: no source has one */
} sm_summary_set;

/* The row of the summary R of the file PATH. */
void sm_source_row_of(const char *path, const pq_summary_result *r, sm_source_row *row);
/* The set of the N rows ROWS (pointed into), with its slowest source. */
void sm_summary_set_of(const sm_source_row *rows, size_t n, sm_summary_set *out);

#endif
