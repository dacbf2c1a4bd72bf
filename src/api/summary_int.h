/* summary_int.h - what the summary entry points of api/ share: the reader of saved
 * profile_summary.v1 documents (summary_read.c), the in-process computation that the
 * document loader keeps as structs (summary.c), and the pq_summary handle (either one). */
#ifndef PQ_API_SUMMARY_INT_H
#define PQ_API_SUMMARY_INT_H
#include "core/arena.h"
#include "core/jval.h"
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

#endif
