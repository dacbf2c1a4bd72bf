/* history_read.h - the reader of track history files (JSONL, one track record a line) into
 * the records the history digest reads (analysis/summary_history.h). */
#ifndef PQ_API_HISTORY_READ_H
#define PQ_API_HISTORY_READ_H
#include "analysis/summary_history.h"
#include "core/arena.h"

typedef struct history_records {
    sm_history_record *recs; /* in file order */
    size_t n;
    arena mem; /* the records' strings */
} history_records;

/* The records of TEXT[0..N): each line holding a JSON object (blank lines, other values and
 * a partial last line skipped, as the seed skips them). 0, or -1 when memory ran out (OUT
 * then holds the records read so far). Free with history_records_release. */
int history_read(const char *text, size_t n, history_records *out);
void history_records_release(history_records *h);

#endif
