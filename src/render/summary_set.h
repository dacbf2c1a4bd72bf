/* summary_set.h - a summary set (analysis/summary_set.h) as its profq.summary_set.v1 document. */
#ifndef PQ_RENDER_SUMMARY_SET_H
#define PQ_RENDER_SUMMARY_SET_H
#include "analysis/summary_set.h"
#include "render/summary_json.h"

/* The document of SET: SUMMARIES[0..N) are the sources' profile_summary.v1 texts,
 * each written by sm_write with a writer opened at depth 2 (sj_init_at). */
void su_summary_set_write(sj_writer *w, const sm_summary_set *set, const char *const *summaries,
                          size_t n);

#endif
