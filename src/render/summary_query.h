/* summary_query.h - query's document (spec/seed-tools.md 1.20) from its result struct: as a
 * jval tree that core/jval.c writes as the seed's json.dumps, and as text for people. */
#ifndef PQ_RENDER_SUMMARY_QUERY_H
#define PQ_RENDER_SUMMARY_QUERY_H
#include "core/jval.h"
#include "profq.h"

/* NULL when memory ran out. */
jval *su_query_tree(const pq_summary_query_result *q);

/* The text for people (WIDE: names whole, else 120 columns). */
void su_query_text(buf *b, const pq_summary_query_result *q, int wide);

#endif
