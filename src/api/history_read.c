/* history_read.c - the reader of track history files (JSONL: one track record a line, as
 * `profq track --history` appends them, io/append.c) into sm_history_record structs: the
 * assessment's status, failures and warnings, and the record as indented JSON for the
 * digest to show. Each line is parsed by core/jval.h and its tree dropped at once.
 * Not here: the digest (analysis/summary_history.c), its document
 * (render/summary_history.c), reading the file (api/summary_docs.c maps it). */
#include "api/history_read.h"

#include "core/alloc.h"
#include "core/buf.h"
#include "core/jval.h"

#include <string.h>

/* The strings of the array under KEY of ASSESSMENT (other values skipped); *N: how many. */
static const char *const *strings(arena *mem, const jval *assessment, const char *key, size_t *n)
{
    const jval *a = jv_get(assessment, key);
    *n = 0;
    if (!a || a->t != JV_ARR || !a->n)
        return NULL;
    const char **s = arena_alloc(mem, a->n * sizeof *s);
    for (size_t k = 0; s && k < a->n; k++)
        if (a->items[k]->t == JV_STR)
            s[(*n)++] = arena_strndup(mem, a->items[k]->s, strlen(a->items[k]->s));
    return s;
}

/* The record of the object V. */
static int record(arena *mem, const jval *v, sm_history_record *r)
{
    const jval *as = jv_get(v, "assessment");
    const char *st = jv_string(jv_get(as, "status"));
    r->status = st ? arena_strndup(mem, st, strlen(st)) : NULL;
    r->failures = strings(mem, as, "failures", &r->nfailures);
    r->warnings = strings(mem, as, "warnings", &r->nwarnings);
    buf t;
    buf_init(&t, NULL);
    jv_write(&t, v, 2);
    r->text = t.status == PQ_OK ? arena_strndup(mem, t.p ? t.p : "", t.n) : NULL;
    buf_release(&t);
    return r->text && !arena_failed(mem) ? 0 : -1;
}

int history_read(const char *text, size_t n, history_records *out)
{
    memset(out, 0, sizeof *out);
    arena_init(&out->mem);
    size_t cap = 0;
    const char *p = text, *end = text + n;
    while (p && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end, *s = p;
        p = nl ? nl + 1 : NULL;
        while (s < le && (*s == ' ' || *s == '\t' || *s == '\r'))
            s++;
        if (s == le)
            continue;
        size_t off;
        const char *what;
        jval *v = jv_parse(s, (size_t)(le - s), &off, &what);
        if (!v || v->t != JV_OBJ) { /* not an object, or a partial line: skipped */
            jv_free(v);
            continue;
        }
        if (out->n == cap) {
            cap = cap ? cap * 2 : 64;
            sm_history_record *g = pq_realloc_array(out->recs, cap, sizeof *g);
            if (!g) {
                jv_free(v);
                return -1;
            }
            out->recs = g;
        }
        int rc = record(&out->mem, v, &out->recs[out->n]);
        jv_free(v);
        if (rc != 0)
            return -1;
        out->n++;
    }
    return 0;
}

void history_records_release(history_records *h)
{
    pq_free(h->recs);
    arena_release(&h->mem);
    memset(h, 0, sizeof *h);
}
