/* summary_query.h - query's document (spec/seed-tools.md 1.20) made from its result struct;
 * core/jval.c writes it as the seed's json.dumps, render/summary_text.c as text. */
#ifndef PQ_RENDER_SUMMARY_QUERY_H
#define PQ_RENDER_SUMMARY_QUERY_H
#include "core/jval.h"
#include "profq.h"

/* NULL when memory ran out. */
jval *su_query_tree(const pq_summary_query_result *q);

#endif
