/* summary_set.h - a summary set (analysis/summary_set.h) as its profq.summary_set.v1 tree. */
#ifndef PQ_RENDER_SUMMARY_SET_H
#define PQ_RENDER_SUMMARY_SET_H
#include "analysis/summary_set.h"
#include "core/jval.h"
#include "render/summary_json.h"

/* The document of SET with SUMMARIES (an array of profile_summary.v1 trees, one per source,
 * consumed), or NULL when memory ran out. */
jval *su_summary_set_tree(const sm_summary_set *set, jval *summaries);
/* The same document streamed: SUMMARIES[0..N) are the sources' profile_summary.v1 texts,
 * each written by sm_write with a writer opened at depth 2 (sj_init_at). */
void su_summary_set_write(sj_writer *w, const sm_summary_set *set, const char *const *summaries,
                          size_t n);

#endif
