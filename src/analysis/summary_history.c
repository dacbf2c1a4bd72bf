/* summary_history.c - the history digest of track records (the seed's tracking.py,
 * spec/seed-tools.md 1.22): records per assessment status, the most common failure and
 * warning messages, the latest and the last TAIL records. Over the records as structs
 * (api/history_read.c reads them); no I/O, no JSON. */
#include "analysis/summary_history.h"

#include "core/alloc.h"
#include "core/sort.h"

#include <string.h>

/* A message's count and where it was first seen. */
typedef struct seen {
    const char *msg;
    size_t count, first;
} seen;

static int by_count(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const seen *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* The index of KEY in the N counts of C, or N. */
static size_t find(const seen *c, size_t n, const char *key)
{
    size_t k = 0;
    while (k < n && strcmp(c[k].msg, key) != 0)
        k++;
    return k;
}

/* The SM_HISTORY_TOP most common messages of the records' failures (WARNINGS: warnings)
 * into TOP; returns how many, or -1 when memory ran out. */
static int top_messages(const sm_history_record *recs, size_t n, int warnings,
                        sm_history_count *top, size_t *ntop)
{
    size_t nm = 0, cap = 0;
    seen *m = NULL;
    for (size_t i = 0; i < n; i++) {
        const char *const *list = warnings ? recs[i].warnings : recs[i].failures;
        size_t nl = warnings ? recs[i].nwarnings : recs[i].nfailures;
        for (size_t j = 0; j < nl; j++) {
            size_t k = find(m, nm, list[j]);
            if (k == nm) {
                if (nm == cap) {
                    cap = cap ? cap * 2 : 64;
                    seen *g = pq_realloc_array(m, cap, sizeof *m);
                    if (!g) {
                        pq_free(m);
                        return -1;
                    }
                    m = g;
                }
                m[nm++] = (seen){list[j], 0, k};
            }
            m[k].count++;
        }
    }
    int rc = nm && pq_sort(m, nm, sizeof *m, by_count, NULL) != 0 ? -1 : 0;
    *ntop = 0;
    for (size_t k = 0; rc == 0 && k < nm && k < SM_HISTORY_TOP; k++)
        top[(*ntop)++] = (sm_history_count){m[k].msg, m[k].count};
    pq_free(m);
    return rc;
}

int sm_history_digest_of(const sm_history_record *recs, size_t n, int tail, sm_history_digest *out)
{
    memset(out, 0, sizeof *out);
    out->num_records = n;
    out->status_counts = n ? pq_calloc(n, sizeof *out->status_counts) : NULL;
    if (n && !out->status_counts)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const char *st = recs[i].status ? recs[i].status : "unknown";
        size_t k = 0;
        while (k < out->nstatus && strcmp(out->status_counts[k].key, st) != 0)
            k++;
        if (k == out->nstatus)
            out->status_counts[out->nstatus++].key = st;
        out->status_counts[k].count++;
    }
    if (top_messages(recs, n, 0, out->top_failures, &out->nfailures) != 0 ||
        top_messages(recs, n, 1, out->top_warnings, &out->nwarnings) != 0) {
        sm_history_release(out);
        return -1;
    }
    out->latest = n ? &recs[n - 1] : NULL;
    size_t from = tail <= 0 ? n : (n > (size_t)tail ? n - (size_t)tail : 0);
    out->recent = recs + from;
    out->nrecent = n - from;
    return 0;
}

void sm_history_release(sm_history_digest *d)
{
    pq_free(d->status_counts);
    memset(d, 0, sizeof *d);
}
