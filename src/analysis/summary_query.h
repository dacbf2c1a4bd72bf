/* summary_query.h - query over a summary's result structs (the seed's query.py routing,
 * spec/seed-tools.md 1.20): a pure function from pq_summary_result and a question to
 * pq_summary_query_result (include/profq.h). No I/O, no JSON. */
#ifndef PQ_ANALYSIS_SUMMARY_QUERY_H
#define PQ_ANALYSIS_SUMMARY_QUERY_H
#include "profq.h"

/* A query's result and what it owns (the target's text, the rows it picked). */
typedef struct sm_query {
    pq_summary_query_result r;
    char target[1024];
    const pq_sm_gap_context **contexts;
    double *shares; /* inclusive then exclusive, of each region listed */
} sm_query;

/* The answer to QUESTION from S (TOP_K rows per list) into OUT. 0, or -1 when memory ran
 * out. Release with sm_query_release. */
int sm_query_run(const pq_summary_result *s, const char *question, int top_k, sm_query *out);
void sm_query_release(sm_query *q);

#endif
