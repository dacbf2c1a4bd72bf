/* summary_set.h - a summary set (analysis/summary_set.h) as its profq.summary_set.v1 tree. */
#ifndef PQ_RENDER_SUMMARY_SET_H
#define PQ_RENDER_SUMMARY_SET_H
#include "analysis/summary_set.h"
#include "core/jval.h"

/* The document of SET with SUMMARIES (an array of profile_summary.v1 trees, one per source,
 * consumed), or NULL when memory ran out. */
jval *su_summary_set_tree(const sm_summary_set *set, jval *summaries);

#endif
