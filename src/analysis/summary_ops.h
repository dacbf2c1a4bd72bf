/* summary_ops.h - what the seed does with profile_summary.v1 documents once written
 * (spec/seed-tools.md 1.20-1.22): the history digest and publish's metadata (query, compare and
 * track: summary_query.h, summary_compare.h, over result structs). Pure functions over jval trees;
 * no I/O. */
#ifndef PQ_ANALYSIS_SUMMARY_OPS_H
#define PQ_ANALYSIS_SUMMARY_OPS_H
#include "core/jval.h"

/* Digest of history records (already parsed; non-objects are skipped by the caller). */
jval *summary_history(const char *history_path, jval *const *records, size_t n, int tail);

/* The metadata the seed's publish attaches to a profile_summary artifact. */
jval *summary_publish_metadata(const jval *summary);

#endif
