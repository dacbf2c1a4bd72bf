/* partial_summary.c - the partial of `profq summarize` over trace files (kind 7): per file
 * the profile_summary.v1 document pq_summarize writes for that file alone. A summary needs
 * its file's whole timeline (steps, gaps, regions), so nothing inside one merges; what
 * merges is the set: one process over a directory of several trace files prints each
 * file's document and the cross-source table (profq.summary_set.v1), which the render
 * rebuilds in path order: each document read back into its result structs
 * (api/summary_read.c), the set's rows computed from them (analysis/summary_set.c) and the
 * set written by render/summary_set.c's streaming writer, as the one process writes it.
 * Not the summary (api/summary.c); the format is in docs/internals/partial.md. */
#include "api/partial_int.h"
#include "api/summary_int.h"
#include "core/alloc.h"
#include "core/err.h"

#include <stdlib.h>
#include <string.h>

typedef struct sum_source {
    pq_str path, doc;
} sum_source;

typedef struct sum_body {
    arena a;
    sum_source *v;
    size_t n, cap;
} sum_body;

static void body_free(void *p)
{
    sum_body *b = p;
    if (!b)
        return;
    arena_release(&b->a);
    pq_free(b->v);
    pq_free(b);
}

static sum_source *body_push(sum_body *b, const char *path, size_t pn, const char *doc, size_t dn)
{
    void *v = b->v;
    if (!pt_reserve(&v, b->n, &b->cap, sizeof *b->v))
        return NULL;
    b->v = v;
    sum_source *s = &b->v[b->n];
    s->path = (pq_str){arena_strndup(&b->a, path, pn), pn};
    s->doc = (pq_str){arena_strndup(&b->a, doc, dn), dn};
    if (!s->path.p || !s->doc.p)
        return NULL;
    b->n++;
    return s;
}

pq_status pq_partial_summarize(const char *const *paths, size_t n, const pq_summary_options *opts,
                               pq_partial **out, pq_error *err)
{
    *out = NULL;
    sum_body *b = pq_calloc(1, sizeof *b);
    RETURN_ERROR_IF(!b, err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    arena_init(&b->a);
    pq_status st = PQ_OK;
    for (size_t i = 0; i < n && st == PQ_OK; i++) {
        int set = 0;
        pq_summary_result *r = NULL;
        st = summary_compute_path(paths[i], opts, &r, &set, err);
        if (st != PQ_OK && set)
            st = err_set(err, PQ_ERR_USAGE, paths[i], -1,
                         "several trace files: give each as a PATH of the partial");
        buf doc;
        buf_init(&doc, NULL);
        if (st == PQ_OK) {
            summary_doc_write(&doc, r); /* the document summarize writes for the file */
            pq_summary_result_free(r);
            if (doc.status != PQ_OK)
                st = err_set(err, PQ_ERR_NOMEM, paths[i], -1, "out of memory");
        }
        if (st == PQ_OK && !body_push(b, paths[i], strlen(paths[i]), doc.p, doc.n))
            st = err_set(err, PQ_ERR_NOMEM, paths[i], -1, "out of memory");
        buf_release(&doc);
    }
    if (st != PQ_OK) {
        body_free(b);
        return st;
    }
    return pt_new(&pt_kind_summarize, b, out, err);
}

static void part_write(const void *body, buf *b)
{
    const sum_body *s = body;
    pt_put_u64(b, s->n);
    for (size_t i = 0; i < s->n; i++) {
        pt_put_str(b, s->v[i].path);
        pt_put_str(b, s->v[i].doc);
    }
}

static void *part_read(pt_reader *r)
{
    sum_body *s = pq_calloc(1, sizeof *s);
    if (!s) {
        r->status = err_set(r->err, PQ_ERR_NOMEM, r->name, -1, "out of memory reading a partial");
        return NULL;
    }
    arena_init(&s->a);
    uint64_t n = pt_get_u64(r, "the source count");
    if (r->status == PQ_OK && n > (uint64_t)(r->end - r->p) / 16)
        pt_fail(r, "truncated partial", "the sources the count says");
    for (uint64_t i = 0; r->status == PQ_OK && i < n; i++) {
        pq_str path = pt_get_str(r, &s->a, "a source path");
        pq_str doc = pt_get_str(r, &s->a, "a summary");
        if (r->status == PQ_OK && !body_push(s, path.p, path.n, doc.p, doc.n))
            r->status = err_set(r->err, PQ_ERR_NOMEM, r->name, -1, "out of memory");
    }
    if (r->status != PQ_OK) {
        body_free(s);
        return NULL;
    }
    return s;
}

static pq_status part_merge(void *into, const void *from, pq_error *err)
{
    sum_body *a = into;
    const sum_body *b = from;
    size_t n = b->n; /* INTO may be FROM */
    for (size_t i = 0; i < n; i++) {
        sum_source src = b->v[i];
        RETURN_ERROR_IF(!body_push(a, src.path.p, src.path.n, src.doc.p, src.doc.n), err,
                        PQ_ERR_NOMEM, NULL, -1, "out of memory merging partials");
    }
    return PQ_OK;
}

static int source_cmp(const void *x, const void *y)
{
    const sum_source *a = *(const sum_source *const *)x, *b = *(const sum_source *const *)y;
    int c = pt_str_cmp(a->path, b->path);
    return c ? c : pt_str_cmp(a->doc, b->doc);
}

/* One source of the set: the document S read back into its structs, its row and its
 * document at depth 2 (summary_set_add). PQ_ERR_INPUT when the document does not read. */
static pq_status set_add(const sum_source *s, sm_source_row *row, buf *text, pq_error *err)
{
    arena mem;
    arena_init(&mem);
    pq_summary_result r;
    pq_error e;
    memset(&e, 0, sizeof e);
    pq_status st = summary_read(s->path.p, s->doc.p, s->doc.n, &mem, &r, &e);
    if (st == PQ_ERR_INPUT)
        st = err_set(err, st, s->path.p, e.offset,
                     "malformed partial: the summary does not parse (%s)", e.message);
    else if (st != PQ_OK)
        st = err_set(err, st, s->path.p, -1, "%s", e.message);
    else if (summary_set_add(s->path.p, &r, row, text) != 0)
        st = err_set(err, PQ_ERR_NOMEM, s->path.p, -1, "out of memory");
    arena_release(&mem);
    return st;
}

/* The set of the documents in ORDER (N >= 2) to SINK. */
static pq_status write_set(const sum_source *const *order, size_t n, pq_sink *sink, pq_error *err)
{
    sm_source_row *rows = pq_calloc(n, sizeof *rows);
    buf *texts = pq_calloc(n, sizeof *texts);
    const char **tp = pq_calloc(n, sizeof *tp);
    pq_status st =
        rows && texts && tp ? PQ_OK : err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    size_t done = 0;
    for (size_t i = 0; i < n && st == PQ_OK; i++, done++) {
        buf_init(&texts[i], NULL);
        st = set_add(order[i], &rows[i], &texts[i], err);
        tp[i] = texts[i].p;
    }
    if (st == PQ_OK)
        st = summary_set_emit(rows, tp, n, sink, err);
    for (size_t i = 0; texts && i < done; i++)
        buf_release(&texts[i]);
    pq_free(tp);
    pq_free(texts);
    pq_free(rows);
    return st;
}

static pq_status part_render(const void *body, const pq_ops_options *opts, pq_output fmt,
                             pq_sink *sink, pq_error *err)
{
    (void)opts;
    const sum_body *s = body;
    RETURN_ERROR_IF(fmt != PQ_OUT_JSON && fmt != PQ_OUT_TEXT, err, PQ_ERR_USAGE, "", -1,
                    "summarize prints JSON");
    RETURN_ERROR_IF(!s->n, err, PQ_ERR_INPUT, NULL, -1, "a summarize partial of no source");
    const sum_source **order = pq_malloc(s->n * sizeof *order);
    RETURN_ERROR_IF(!order, err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    for (size_t i = 0; i < s->n; i++)
        order[i] = &s->v[i];
    qsort(order, s->n, sizeof *order, source_cmp);
    pq_status st = PQ_OK;
    if (s->n == 1) { /* one file: its document, as summarize of that file */
        buf b;
        buf_init(&b, sink);
        buf_put(&b, order[0]->doc.p, order[0]->doc.n);
        st = buf_flush(&b);
        buf_release(&b);
        if (st != PQ_OK)
            st = err_set(err, PQ_ERR_OUTPUT, "", -1, "could not write the output");
    } else {
        st = write_set(order, s->n, sink, err);
    }
    pq_free(order);
    return st;
}

const pt_kind pt_kind_summarize = {PQ_PARTIAL_SUMMARIZE, "summarize", part_write, part_read,
                                   part_merge,           part_render, body_free};
