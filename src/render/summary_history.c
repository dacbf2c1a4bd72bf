/* summary_history.c - the history digest (analysis/summary_history.c) as the document the
 * seed's tracking.py prints: json.dumps(indent=2, sort_keys=True) of history_path,
 * latest_record, num_records, recent_records, status_counts, top_failures, top_warnings.
 * The records are written as the reader kept them (indented JSON text), each line indented
 * to its depth. Formatting only: no files, no computing. */
#include "render/summary_history.h"

#include "core/jval.h"

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

/* The tree V (consumed) written at depth 1. */
static void tree(buf *b, jval *v)
{
    buf t;
    buf_init(&t, NULL);
    jv_write(&t, v, 2);
    buf_putc(&t, '\0');
    if (t.status != PQ_OK || !v)
        b->status = PQ_ERR_NOMEM;
    else
        nested(b, t.p, "  ");
    buf_release(&t);
    jv_free(v);
}

static jval *counts(const sm_history_count *c, size_t n)
{
    jval *a = jv_arr();
    for (size_t k = 0; k < n; k++) {
        jval *o = jv_obj();
        jv_set(o, "message", jv_cstr(c[k].key));
        jv_set(o, "count", jv_int((int64_t)c[k].count));
        jv_push(a, o);
    }
    return a;
}

void su_history_write(buf *b, const char *path, const sm_history_digest *d)
{
    buf_puts(b, "{\n  \"history_path\": ");
    tree(b, jv_cstr(path));
    buf_puts(b, ",\n  \"latest_record\": ");
    if (d->latest)
        nested(b, d->latest->text, "  ");
    else
        buf_puts(b, "null");
    buf_printf(b, ",\n  \"num_records\": %zu,\n  \"recent_records\": ", d->num_records);
    if (!d->nrecent)
        buf_puts(b, "[]");
    for (size_t k = 0; k < d->nrecent; k++) {
        buf_puts(b, k ? ",\n    " : "[\n    ");
        nested(b, d->recent[k].text, "    ");
        if (k + 1 == d->nrecent)
            buf_puts(b, "\n  ]");
    }
    buf_puts(b, ",\n  \"status_counts\": ");
    jval *sc = jv_obj();
    for (size_t k = 0; k < d->nstatus; k++)
        jv_set(sc, d->status_counts[k].key, jv_int((int64_t)d->status_counts[k].count));
    tree(b, sc);
    buf_puts(b, ",\n  \"top_failures\": ");
    tree(b, counts(d->top_failures, d->nfailures));
    buf_puts(b, ",\n  \"top_warnings\": ");
    tree(b, counts(d->top_warnings, d->nwarnings));
    buf_puts(b, "\n}");
}
