/* summary_docs.c - the public summary API: load (a summary file, or summarise any input),
 * write, report (markdown), query, compare, track (+ history append, io/append.c) and
 * history. Query, compare and track compute their result struct and hand it to its renderer
 * (render/summary_query.c, render/summary_compare.c: JSON or text, no document tree). */
#define _GNU_SOURCE
#include "analysis/summary.h"
#include "analysis/summary_compare.h"
#include "analysis/summary_query.h"
#include "api/history_read.h"
#include "api/summary_int.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "formats/trace_json.h"
#include "io/mapfile.h"
#include "profq.h"
#include "io/append.h"
#include "render/summary_compare.h"
#include "render/summary_doc.h"
#include "render/summary_fields.h"
#include "render/summary_history.h"
#include "render/summary_json.h"
#include "render/summary_query.h"
#include "render/summary_text.h" /* su_track_gate */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The saved document TEXT[0..N) read into structs. */
static pq_status adopt(const char *path, const char *text, size_t n, pq_summary **out,
                       pq_error *err)
{
    pq_summary *s = pq_calloc(1, sizeof *s);
    RETURN_ERROR_IF(!s, err, PQ_ERR_NOMEM, path, -1, "out of memory");
    arena_init(&s->mem);
    pq_status st = summary_read(path, text, n, &s->mem, &s->read, err);
    if (st != PQ_OK) {
        pq_summary_free(s);
        return st;
    }
    s->r = &s->read;
    *out = s;
    return PQ_OK;
}

/* A summary computed in process, kept as its structs. */
static pq_status compute(const char *path, const pq_summary_options *o, pq_summary **out,
                         pq_error *err)
{
    int set = 0;
    pq_summary_result *res = NULL;
    pq_status st = summary_compute_path(path, o, &res, &set, err);
    if (st != PQ_OK && set) /* a summary set is not one summary */
        return err_set(err, PQ_ERR_INPUT, path, 0,
                       "expected a profile_summary.v1 document (schema_version)");
    FORWARD_IF_ERROR(st);
    pq_summary *s = pq_calloc(1, sizeof *s);
    if (!s) {
        pq_summary_result_free(res);
        return err_set(err, PQ_ERR_NOMEM, path, -1, "out of memory");
    }
    arena_init(&s->mem);
    s->computed = res;
    s->r = res;
    *out = s;
    return PQ_OK;
}

/* A summary file is a JSON object with schema_version, no traceEvents, and small. */
static int looks_like_summary(const char *path)
{
    mapped_file m;
    pq_error e;
    struct stat st;
    if (stat(path, &st) != 0 || S_ISDIR(st.st_mode) || st.st_size > (64 << 20))
        return 0;
    if (mapfile_open(path, &m, &e) != PQ_OK)
        return 0;
    /* Decided by the document's top-level keys (a structural walk that skips values), not
     * by a byte search: sorted keys put schema_version near the end of a large summary. */
    int yes = 0;
    if (m.size && m.data[0] != 0x1f) {
        static const char *const keys[] = {"schema_version", "traceEvents"};
        pq_str v[2];
        pq_str doc = {(const char *)m.data, m.size};
        tj_args_scan(doc, keys, 2, v);
        yes = v[0].n == 20 && memcmp(v[0].p, "\"profile_summary.v1\"", 20) == 0 && !v[1].n;
    }
    mapfile_close(&m);
    return yes;
}

pq_status pq_summary_load(const char *path, const pq_summary_options *opts, pq_summary **out,
                          pq_error *err)
{
    *out = NULL;
    if (looks_like_summary(path)) {
        mapped_file m;
        pq_status st = mapfile_open(path, &m, err);
        FORWARD_IF_ERROR(st);
        st = adopt(path, (const char *)m.data, m.size, out, err);
        mapfile_close(&m);
        return st;
    }
    pq_summary_options o = {5, 25, 0, "", NULL, NULL, NULL, NULL};
    pq_status st = compute(path, opts ? opts : &o, out, err);
    const char *found = err && err->offset == 0 ? strstr(err->message, ", found ") : NULL;
    if ((st == PQ_ERR_INPUT || st == PQ_ERR_UNSUPPORTED) && found && !strstr(found, ".nsys-rep")) {
        /* Name what these commands take: a summary, or a profile to summarise first. */
        char what[256];
        snprintf(what, sizeof what, "%s", found + 8);
        st = err_set(err, st, path, 0,
                     "expected a profile_summary.v1 JSON, or a trace JSON, XPlane or profile "
                     "directory to summarize, found %s",
                     what);
    }
    return st;
}

void pq_summary_free(pq_summary *s)
{
    if (!s)
        return;
    pq_summary_result_free(s->computed);
    arena_release(&s->mem);
    pq_free(s);
}

/* Does VIEW ask for text for people (not JSON)? */
static int text_view(const pq_summary_view *view)
{
    return view && view->fmt == PQ_OUT_TEXT;
}

/* The text B holds flushed to its sink, and released. */
static pq_status flush_text(buf *b, pq_error *err)
{
    pq_status st = buf_flush(b);
    buf_release(b);
    RETURN_ERROR_IF(st != PQ_OK, err, st, "", -1,
                    st == PQ_ERR_OUTPUT ? "write failed" : "out of memory");
    return PQ_OK;
}

pq_status pq_summary_write(const pq_summary *s, pq_sink *sink, pq_error *err)
{
    buf b;
    buf_init(&b, sink);
    summary_doc_write(&b, s->r);
    return flush_text(&b, err);
}

pq_status pq_summary_query_view(const pq_summary *s, const char *question, int top_k,
                                const pq_summary_view *view, pq_sink *sink, pq_error *err)
{
    sm_query q;
    RETURN_ERROR_IF(sm_query_run(s->r, question, top_k, &q) != 0, err, PQ_ERR_NOMEM, "", -1,
                    "out of memory");
    pq_status st;
    if (text_view(view)) {
        buf b;
        buf_init(&b, sink);
        su_query_text(&b, &q.r, view->wide);
        st = flush_text(&b, err);
    } else {
        buf b;
        buf_init(&b, sink);
        sj_writer w;
        sj_init(&w, &b, 2);
        su_query_json(&w, &q.r);
        buf_putc(&b, '\n');
        st = flush_text(&b, err);
    }
    sm_query_release(&q);
    return st;
}

pq_status pq_summary_query(const pq_summary *s, const char *question, int top_k, pq_sink *sink,
                           pq_error *err)
{
    return pq_summary_query_view(s, question, top_k, NULL, sink, err);
}

pq_status pq_summary_query_compute(const pq_summary *s, const char *question, int top_k,
                                   pq_summary_query_result **out, pq_error *err)
{
    sm_query *q = pq_calloc(1, sizeof *q);
    if (!q || sm_query_run(s->r, question, top_k, q) != 0) {
        pq_free(q);
        *out = NULL;
        return err_set(err, PQ_ERR_NOMEM, "", -1, "out of memory");
    }
    *out = &q->r;
    return PQ_OK;
}

void pq_summary_query_result_free(pq_summary_query_result *result)
{
    if (!result)
        return;
    sm_query *q = (sm_query *)(void *)result; /* r is the first member of sm_query */
    sm_query_release(q);
    pq_free(q);
}

static pq_status strict_check(const pq_summary_comparison *c, pq_error *err)
{
    if (strcmp(c->provenance_status, "fail") != 0)
        return PQ_OK;
    char msg[480] = "Provenance checks failed.";
    for (size_t i = 0; i < c->nprovenance_messages; i++) {
        const char *t = c->provenance_messages[i];
        if (strlen(msg) + strlen(t) + 2 < sizeof msg) {
            strcat(msg, " ");
            strcat(msg, t);
        }
    }
    return err_set(err, PQ_ERR_INPUT, "", -1, "%s", msg);
}

const pq_summary_result *pq_summary_result_of(const pq_summary *s)
{
    return s->r;
}

pq_status pq_summary_compare_compute(const pq_summary *b, const pq_summary *a, int top_k,
                                     pq_summary_comparison **out, pq_error *err)
{
    *out = pq_calloc(1, sizeof **out);
    if (!*out || sm_compare(b->r, a->r, top_k, *out) != 0) {
        pq_free(*out);
        *out = NULL;
        return err_set(err, PQ_ERR_NOMEM, "", -1, "out of memory");
    }
    return PQ_OK;
}

void pq_summary_comparison_free(pq_summary_comparison *c)
{
    if (!c)
        return;
    sm_compare_release(c);
    pq_free(c);
}

pq_status pq_summary_compare(const pq_summary *b, const pq_summary *a, int top_k, int strict,
                             pq_sink *sink, pq_error *err)
{
    return pq_summary_compare_view(b, a, top_k, strict, NULL, sink, err);
}

pq_status pq_summary_compare_view(const pq_summary *b, const pq_summary *a, int top_k, int strict,
                                  const pq_summary_view *view, pq_sink *sink, pq_error *err)
{
    pq_summary_comparison c;
    RETURN_ERROR_IF(sm_compare(b->r, a->r, top_k, &c) != 0, err, PQ_ERR_NOMEM, "", -1,
                    "out of memory");
    pq_status st = strict ? strict_check(&c, err) : PQ_OK;
    if (st == PQ_OK && text_view(view)) {
        buf t;
        buf_init(&t, sink);
        su_compare_text(&t, &c, view->wide);
        st = flush_text(&t, err);
    } else if (st == PQ_OK) {
        buf t;
        buf_init(&t, sink);
        sj_writer w;
        sj_init(&w, &t, 2);
        su_compare_json(&w, &c);
        buf_putc(&t, '\n');
        st = flush_text(&t, err);
    }
    sm_compare_release(&c);
    return st;
}

void pq_track_defaults(pq_track_options *o)
{
    memset(o, 0, sizeof *o);
    o->max_step_median_regression_pct = 5.0;
    o->max_step_p90_regression_pct = 10.0;
    o->max_communication_share_regression_abs = 0.05;
    o->max_stall_share_regression_abs = 0.05;
    o->top_k = 10;
    o->view.fmt = PQ_OUT_JSON;
}

/* track's record as JSON: one line (INDENT < 0, the history's) or indented. */
static void track_json(buf *b, const pq_summary *before, const pq_summary *after,
                       const pq_track_assessment *as, const pq_track_options *o, int indent)
{
    sj_writer w;
    sj_init(&w, b, indent);
    su_track_json(&w, before->r, after->r, as, o->label,
                  o->recorded_at_utc ? o->recorded_at_utc : "");
    buf_putc(b, '\n');
}

/* Appends track's record to the history file PATH as one JSONL line (io/append.c). */
static pq_status append_record(const char *path, const pq_summary *before, const pq_summary *after,
                               const pq_track_assessment *as, const pq_track_options *o,
                               pq_error *err)
{
    buf line;
    buf_init(&line, NULL);
    track_json(&line, before, after, as, o, -1);
    pq_status st = line.status != PQ_OK ? err_set(err, PQ_ERR_NOMEM, "", -1, "out of memory")
                                        : io_append_line(path, line.p, line.n, err);
    buf_release(&line);
    return st;
}

pq_status pq_summary_track(const pq_summary *b, const pq_summary *a, const pq_track_options *o,
                           pq_sink *sink, pq_track_status *status, pq_error *err)
{
    pq_summary_comparison cmp;
    RETURN_ERROR_IF(sm_compare(b->r, a->r, o->top_k, &cmp) != 0, err, PQ_ERR_NOMEM, "", -1,
                    "out of memory");
    pq_status st = o->strict_provenance ? strict_check(&cmp, err) : PQ_OK;
    pq_track_assessment as;
    if (st == PQ_OK) {
        track_thresholds t = {o->max_step_median_regression_pct, o->max_step_p90_regression_pct,
                              o->max_communication_share_regression_abs,
                              o->max_stall_share_regression_abs};
        sm_assess(&cmp, &t, &as);
        *status = as.status;
    }
    if (st == PQ_OK && o->history_path)
        st = append_record(o->history_path, b, a, &as, o, err);
    if (st == PQ_OK) {
        buf t;
        buf_init(&t, sink);
        if (text_view(&o->view))
            su_track_text(&t, b->r, a->r, &as, o->label,
                          o->recorded_at_utc ? o->recorded_at_utc : "", o->view.wide);
        else
            track_json(&t, b, a, &as, o, 2);
        st = flush_text(&t, err);
    }
    if (st == PQ_OK && o->gate && *status == PQ_TRACK_FAIL) {
        buf g;
        buf_init(&g, o->gate);
        su_track_gate(&g, &as, o->max_step_median_regression_pct, o->max_step_p90_regression_pct);
        st = flush_text(&g, err);
    }
    sm_compare_release(&cmp);
    return st;
}

pq_status pq_history_render(const char *path, int tail, pq_sink *sink, pq_error *err)
{
    mapped_file m;
    pq_status st = mapfile_open(path, &m, err);
    FORWARD_IF_ERROR(st);
    history_records h;
    sm_history_digest d;
    int bad = history_read((const char *)m.data, m.size, &h) != 0;
    mapfile_close(&m);
    bad = bad || sm_history_digest_of(h.recs, h.n, tail, &d) != 0;
    if (bad) {
        history_records_release(&h);
        return err_set(err, PQ_ERR_NOMEM, path, -1, "out of memory");
    }
    buf b;
    buf_init(&b, sink);
    su_history_write(&b, path, &d);
    buf_putc(&b, '\n');
    st = buf_flush(&b);
    buf_release(&b);
    sm_history_release(&d);
    history_records_release(&h);
    RETURN_ERROR_IF(st != PQ_OK, err, st, "", -1,
                    st == PQ_ERR_OUTPUT ? "write failed" : "out of memory");
    return PQ_OK;
}

pq_status pq_summary_publish_plan(const pq_summary *s, const char *status, const char *entity,
                                  const char *project, const char *name, const char *stamp,
                                  const char *const *aliases, size_t naliases,
                                  const char *summary_path, const char *report_path, char *name_out,
                                  size_t cap, pq_sink *sink, pq_error *err)
{
    const char *run_id = s->r->run_metadata.run_id;
    if (name)
        snprintf(name_out, cap, "%s", name);
    else if (run_id)
        snprintf(name_out, cap, "profile-summary-%s", run_id);
    else
        snprintf(name_out, cap, "profile-summary-%s", stamp ? stamp : "");
    sm_publish_plan p = {status,  entity,   project,      name_out,
                         aliases, naliases, summary_path, report_path};
    buf b;
    buf_init(&b, sink);
    sj_writer w;
    sj_init(&w, &b, 2);
    sm_publish_plan_write(&w, s->r, &p);
    buf_putc(&b, '\n');
    return flush_text(&b, err);
}
