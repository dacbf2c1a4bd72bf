/* summary_history.h - the history digest of track records (the seed's tracking.py,
 * spec/seed-tools.md 1.22): the records as structs (api/history_read.c reads a JSONL history
 * file into them), the digest computed over them, its renderer (render/summary_history.c). */
#ifndef PQ_ANALYSIS_SUMMARY_HISTORY_H
#define PQ_ANALYSIS_SUMMARY_HISTORY_H
#include <stddef.h>

/* One track record (a JSON object line of a history file): what the digest counts, and the
 * record as json.dumps(indent=2, sort_keys=True) writes it (the digest shows the latest and
 * recent records whole). */
typedef struct sm_history_record {
    const char *status; /* assessment.status; NULL: absent or not a string */
    const char *const *failures, *const *warnings; /* assessment's strings, in order */
    size_t nfailures, nwarnings;
    const char *text; /* the record as indented JSON (no trailing newline) */
} sm_history_record;

/* A message or status and how many records (or list items) hold it. */
typedef struct sm_history_count {
    const char *key;
    size_t count;
} sm_history_count;

enum { SM_HISTORY_TOP = 10 };

typedef struct sm_history_digest {
    size_t num_records;
    sm_history_count *status_counts; /* first-seen order ("unknown": no status) */
    size_t nstatus;
    sm_history_count top_failures[SM_HISTORY_TOP], top_warnings[SM_HISTORY_TOP];
    size_t nfailures, nwarnings;     /* most common first, then first seen */
    const sm_history_record *latest; /* NULL: no records */
    const sm_history_record *recent; /* the last TAIL records */
    size_t nrecent;
} sm_history_digest;

/* The digest of the N records RECS (which it points into), the last TAIL (<= 0: none) as
 * recent. Returns 0, or -1 when memory ran out. Free with sm_history_release. */
int sm_history_digest_of(const sm_history_record *recs, size_t n, int tail, sm_history_digest *out);
void sm_history_release(sm_history_digest *d);

#endif
