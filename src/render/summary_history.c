/* summary_history.c - the history digest (analysis/summary_history.c) as the document the
 * seed's tracking.py prints: json.dumps(indent=2, sort_keys=True) of history_path,
 * latest_record, num_records, recent_records, status_counts, top_failures, top_warnings.
 * The records are written as the reader kept them (indented JSON text), each line indented
 * to its depth; the rest by the streaming json.dumps writer (render/summary_json.h), no
 * document tree. Formatting only: no files, no computing. */
#include "render/summary_history.h"

#include "core/alloc.h"
#include "render/summary_json.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* TEXT (indented JSON at depth 0) at a depth of INDENT: every line after the first opens
 * with INDENT (JSON strings hold no raw newline, so every newline is the layout's). */
static void nested(buf *b, const char *text, const char *indent)
{
    for (const char *p = text; *p; p++) {
        buf_putc(b, *p);
        if (*p == '\n')
            buf_puts(b, indent);
    }
}

static int by_key(const void *a, const void *b)
{
    return strcmp((*(const sm_history_count *const *)a)->key,
                  (*(const sm_history_count *const *)b)->key);
}

/* The status counts C[0..N) as an object, its keys sorted (C holds them as first seen). */
static void status_counts(sj_writer *w, const sm_history_count *c, size_t n)
{
    const sm_history_count **order = n ? pq_malloc_array(n, sizeof *order) : NULL;
    if (n && !order) {
        w->b->status = PQ_ERR_NOMEM;
        return;
    }
    for (size_t k = 0; k < n; k++)
        order[k] = &c[k];
    if (n)
        qsort(order, n, sizeof *order, by_key);
    sj_open(w, '{');
    for (size_t k = 0; k < n; k++)
        sj_field(w, order[k]->key, su_vint((int64_t)order[k]->count));
    sj_close(w, '}');
    pq_free(order);
}

/* The messages C[0..N) and their counts, as an array of {count, message} objects. */
static void counts(sj_writer *w, const sm_history_count *c, size_t n)
{
    sj_open(w, '[');
    for (size_t k = 0; k < n; k++) {
        sj_item(w);
        sj_open(w, '{');
        sj_field(w, "count", su_vint((int64_t)c[k].count));
        sj_field(w, "message", su_vstr(c[k].key));
        sj_close(w, '}');
    }
    sj_close(w, ']');
}

void su_history_write(buf *b, const char *path, const sm_history_digest *d)
{
    sj_writer w;
    sj_init(&w, b, 2);
    sj_open(&w, '{');
    sj_field(&w, "history_path", su_vstr(path));
    sj_key(&w, "latest_record");
    if (d->latest)
        nested(b, d->latest->text, "  ");
    else
        sj_val(&w, su_vstr(NULL));
    sj_field(&w, "num_records", su_vint((int64_t)d->num_records));
    sj_key(&w, "recent_records");
    sj_open(&w, '[');
    for (size_t k = 0; k < d->nrecent; k++) {
        sj_item(&w);
        nested(b, d->recent[k].text, "    ");
    }
    sj_close(&w, ']');
    sj_key(&w, "status_counts");
    status_counts(&w, d->status_counts, d->nstatus);
    sj_key(&w, "top_failures");
    counts(&w, d->top_failures, d->nfailures);
    sj_key(&w, "top_warnings");
    counts(&w, d->top_warnings, d->nwarnings);
    sj_close(&w, '}');
}
