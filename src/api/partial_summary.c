/* partial_summary.c - the partial of `profq summarize` over trace files (kind 7): per file
 * the profile_summary.v1 document pq_summarize writes for that file alone. A summary needs
 * its file's whole timeline (steps, gaps, regions), so nothing inside one merges; what
 * merges is the set: one process over a directory of several trace files prints each
 * file's document and the cross-source table (profq.summary_set.v1), which the render
 * rebuilds from the documents in path order. Not the summary (api/summary.c); the format
 * is in docs/internals/partial.md. */
#include "api/partial_int.h"
#include "core/alloc.h"
#include "core/err.h"
#include "core/jval.h"

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

static int is_set(const char *doc, size_t n)
{
    size_t off;
    const char *what;
    jval *d = jv_parse(doc, n, &off, &what);
    const char *schema = d ? jv_string(jv_get(d, "schema")) : NULL;
    int set = schema && strcmp(schema, "profq.summary_set.v1") == 0;
    jv_free(d);
    return set;
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
        buf doc;
        buf_init(&doc, NULL);
        pq_sink sink = {pt_buf_write, &doc};
        st = pq_summarize(paths[i], opts, &sink, err);
        if (st == PQ_OK && doc.status != PQ_OK)
            st = err_set(err, PQ_ERR_NOMEM, paths[i], -1, "out of memory");
        if (st == PQ_OK && is_set(doc.p, doc.n))
            st = err_set(err, PQ_ERR_USAGE, paths[i], -1,
                         "several trace files: give each as a PATH of the partial");
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

static void summary_write(const void *body, buf *b)
{
    const sum_body *s = body;
    pt_put_u64(b, s->n);
    for (size_t i = 0; i < s->n; i++) {
        pt_put_str(b, s->v[i].path);
        pt_put_str(b, s->v[i].doc);
    }
}

static void *summary_read(pt_reader *r)
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

static pq_status summary_merge(void *into, const void *from, pq_error *err)
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

/* The cross-source row of one document: its steady-state step statistics, the shares of
 * its time breakdown and its total, as profq.summary_set.v1 lists them. */
static jval *cross_row(const char *path, const jval *doc)
{
    static const char *const stat[4][2] = {{"count", "steady_steps"},
                                           {"median", "step_median_us"},
                                           {"p90", "step_p90_us"},
                                           {"max", "step_max_us"}};
    static const char *const cat[4] = {"compute", "communication", "host", "stall"};
    const jval *steady = jv_get(jv_get(doc, "step_time"), "steady_state_steps");
    const jval *tb = jv_get(doc, "time_breakdown");
    jval *row = jv_obj(), *shares = jv_obj();
    jv_set(row, "path", jv_cstr(path));
    for (int k = 0; k < 4; k++) {
        const jval *v = jv_get(steady, stat[k][0]);
        jv_set(row, stat[k][1], v ? jv_copy(v) : jv_null());
        const jval *s = jv_get(jv_get(tb, cat[k]), "share_of_total");
        jv_set(shares, cat[k], s ? jv_copy(s) : jv_null());
    }
    jv_set(row, "shares", shares);
    const jval *total = jv_get(tb, "total_duration");
    jv_set(row, "total_duration_us", total ? jv_copy(total) : jv_null());
    return row;
}

/* The set of the documents in ORDER (N >= 2) into B; 0 when a document does not parse. */
static int write_set(const sum_source *const *order, size_t n, buf *b, pq_error *err)
{
    jval *set = jv_obj(), *docs = jv_arr(), *rows = jv_arr(), *cross = jv_obj();
    const char *slowest = NULL;
    double worst = 0;
    int ok = 1;
    for (size_t i = 0; i < n && ok; i++) {
        size_t off = 0;
        const char *what = "";
        jval *doc = jv_parse(order[i]->doc.p, order[i]->doc.n, &off, &what);
        if (!doc) {
            err_set(err, PQ_ERR_INPUT, order[i]->path.p, (int64_t)off,
                    "malformed partial: the summary does not parse (%s)", what);
            ok = 0;
            break;
        }
        jval *row = cross_row(order[i]->path.p, doc);
        int num = 0;
        double med = jv_number(jv_get(row, "step_median_us"), &num);
        if (num && (!slowest || med > worst)) { /* the first of the slowest, as one process */
            worst = med;
            slowest = order[i]->path.p;
        }
        jv_push(rows, row);
        jv_push(docs, doc);
    }
    if (ok) {
        jv_set(cross, "sources", rows);
        jv_set(cross, "slowest_source", jv_cstr(slowest));
        jv_set(cross, "basis",
               jv_cstr("steady-state median step time (step_time.steady_state_steps.median)"));
        jv_set(set, "schema", jv_cstr("profq.summary_set.v1"));
        jv_set(set, "cross_source", cross);
        jv_set(set, "summaries", docs);
        jv_write(b, set, 2);
        buf_putc(b, '\n');
        jv_free(set);
    } else {
        jv_free(set);
        jv_free(docs);
        jv_free(rows);
        jv_free(cross);
    }
    return ok;
}

static pq_status summary_render(const void *body, const pq_ops_options *opts, pq_output fmt,
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
    buf b;
    buf_init(&b, sink);
    int ok = 1;
    if (s->n == 1) /* one file: its document, as summarize of that file */
        buf_put(&b, order[0]->doc.p, order[0]->doc.n);
    else
        ok = write_set(order, s->n, &b, err);
    pq_free(order);
    pq_status st = buf_flush(&b);
    buf_release(&b);
    if (!ok)
        return PQ_ERR_INPUT;
    if (st != PQ_OK)
        st = err_set(err, PQ_ERR_OUTPUT, "", -1, "could not write the output");
    return st;
}

const pt_kind pt_kind_summarize = {
    PQ_PARTIAL_SUMMARIZE, "summarize",    summary_write, summary_read,
    summary_merge,        summary_render, body_free};
