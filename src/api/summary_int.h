/* summary_int.h - what the summary entry points of api/ share: the reader of saved
 * profile_summary.v1 documents (summary_read.c), the in-process computation that the
 * document loader keeps as structs (summary.c), the writers of a document and of a
 * summary set from result structs (summary.c, for summarize and its partials), and the
 * pq_summary handle (either one). */
#ifndef PQ_API_SUMMARY_INT_H
#define PQ_API_SUMMARY_INT_H
#include "analysis/summary.h"
#include "analysis/summary_set.h"
#include "core/arena.h"
#include "core/buf.h"
#include "profq.h"

#include <stddef.h>

/* Reads the profile_summary.v1 JSON TEXT[0..N) (from PATH, for errors) into OUT, whose
 * strings and rows are allocated from MEM. PQ_ERR_INPUT when it is not JSON (with the
 * offset) or not a profile_summary.v1 object; PQ_ERR_NOMEM. */
pq_status summary_read(const char *path, const char *text, size_t n, arena *mem,
                       pq_summary_result *out, pq_error *err);

/* pq_summary_compute; *SET is set to 1 when PATH holds several trace files (a summary set,
 * which has no result struct: the status is then PQ_ERR_UNSUPPORTED). */
pq_status summary_compute_path(const char *path, const pq_summary_options *opts,
                               pq_summary_result **out, int *set, pq_error *err);

/* The profile_summary.v1 document of R into B, as summarize writes it (indent 2, '\n'). */
void summary_doc_write(buf *b, const pq_summary_result *r);

/* A summary set (profq.summary_set.v1), one source at a time: summary_set_add gives the
 * cross-source row of the summary R of PATH (pointing at PATH) and appends its document,
 * written at depth 2 and NUL-terminated, to TEXT (0, or -1 when memory ran out);
 * summary_set_emit writes the set of the N sources, ROWS and TEXTS in the set's order, to
 * SINK. */
int summary_set_add(const char *path, const pq_summary_result *r, sm_source_row *row, buf *text);
pq_status summary_set_emit(const sm_source_row *rows, const char *const *texts, size_t n,
                           pq_sink *sink, pq_error *err);

/* The document of the summary of the slices M (sm_compute, then summary_doc_write) into B,
 * for the tests and the fuzz target: 0, or -1 when memory ran out. */
int summary_doc_of(const model_slices *m, const sm_options *opts, const sm_source *src, buf *b);

#endif
