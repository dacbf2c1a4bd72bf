/* summary_query.h - query's document (spec/seed-tools.md 1.20) written from its result
 * struct: as the seed's json.dumps bytes, and as text for people. */
#ifndef PQ_RENDER_SUMMARY_QUERY_H
#define PQ_RENDER_SUMMARY_QUERY_H
#include "core/buf.h"
#include "render/summary_json.h"
#include "profq.h"

/* The document as JSON. */
void su_query_json(sj_writer *w, const pq_summary_query_result *q);

/* The text for people (WIDE: names whole, else 120 columns). */
void su_query_text(buf *b, const pq_summary_query_result *q, int wide);

#endif
