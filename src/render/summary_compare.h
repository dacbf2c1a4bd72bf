/* summary_compare.h - the documents of compare and track (spec/seed-tools.md 1.21-1.22)
 * written from their result structs: as the seed's json.dumps bytes, and as text for
 * people. */
#ifndef PQ_RENDER_SUMMARY_COMPARE_H
#define PQ_RENDER_SUMMARY_COMPARE_H
#include "core/buf.h"
#include "render/summary_json.h"
#include "profq.h"

/* compare's document as JSON. */
void su_compare_json(sj_writer *w, const pq_summary_comparison *c);
/* track's record {recorded_at_utc, label, before, after, assessment} of AS (BEFORE and AFTER
 * the summaries compared) as JSON. */
void su_track_json(sj_writer *w, const pq_summary_result *before, const pq_summary_result *after,
                   const pq_track_assessment *as, const char *label, const char *recorded_at_utc);
/* compare's text for people (WIDE: names whole, else 120 columns). */
void su_compare_text(buf *b, const pq_summary_comparison *c, int wide);
/* track's record as text for people (the arguments of su_track_json). */
void su_track_text(buf *b, const pq_summary_result *before, const pq_summary_result *after,
                   const pq_track_assessment *as, const char *label, const char *recorded_at_utc,
                   int wide);

#endif
