/* summary.c - pq_summarize: find the trace, open it as a profile (formats/load.c)
 * and compute profile_summary.v1 from its source's timeline (pq_source.slices, read only),
 * write it from the result structs as the seed's Python would (render/summary_write.c's
 * sm_write), one document or a summary set of several trace files; and
 * pq_summary_compute, the same summary as result structs (kept with what they point into). */
#include "analysis/summary.h"
#include "analysis/summary_set.h"
#include "api/summary_int.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "formats/detect.h"
#include "io/discover.h"
#include "io/mapfile.h"
#include "model/model.h"
#include "formats/load.h"
#include "render/summary_json.h"
#include "render/summary_set.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static sm_options opts_of(const pq_summary_options *o)
{
    sm_options so = {5, 25, 0, NULL, NULL, NULL, NULL};
    if (o) {
        so.warmup_steps = o->warmup_steps;
        so.hot_op_limit = o->hot_op_limit;
        so.global_breakdown = o->global_breakdown;
        so.run_path = o->run_path;
        so.run_id = o->run_id;
        so.artifact_ref = o->artifact_ref;
        so.artifact_name = o->artifact_name;
    }
    return so;
}

/* One computed summary (its rows and strings are its arena's) and what the computation
 * read (the profile, dropped once the summary is computed; the warnings, the hash). res
 * comes first: the pq_summary_result that pq_summary_compute returns is the handle. */
typedef struct sm_handle {
    sm_result res;
    pq_profile *prof; /* the profile whose source's timeline the summary is computed on */
    char sha[65];
    char *owned[64];
    size_t nowned;
} sm_handle;

static void handle_free(sm_handle *h)
{
    if (!h)
        return;
    sm_result_free(&h->res);
    for (size_t k = 0; k < h->nowned; k++)
        pq_free(h->owned[k]);
    pq_profile_free(h->prof);
    pq_free(h);
}

/* The trace file is opened as a profile of one source (formats/load.c), read in chunks
 * (pq_open_options.stream_traces): nothing is mapped, memory is the timeline's columns, and
 * the sha256 is computed by a thread that reads the file beside the parse. The summary is
 * computed on that source's timeline, pq_source.slices, which sm_compute reads and leaves
 * as they are (what is not GPU work is left out through a view: analysis/summary_view.c);
 * the profile is freed once it is computed (the result's strings are its own). *OUT gets
 * the computed summary (NULL on error). */
static pq_status compute_trace(const char *path, const pq_summary_options *o, sm_handle **out,
                               pq_error *err)
{
    *out = NULL;
    pq_open_options oo;
    memset(&oo, 0, sizeof oo);
    oo.stream_traces = 1;
    pq_profile *prof = NULL;
    FORWARD_IF_ERROR(pq_profile_open(&path, 1, &oo, &prof, err));
    sm_handle *h = pq_calloc(1, sizeof *h);
    if (!h) {
        pq_profile_free(prof);
        return err_set(err, PQ_ERR_NOMEM, path, -1, "out of memory");
    }
    h->prof = prof;
    pq_source *s = &prof->sources[0];
    sm_options so = opts_of(o);
    memcpy(h->sha, s->info.sha256, sizeof h->sha);
    sm_source src = {"perfetto_trace_json",
                     path,
                     h->sha,
                     s->display_time_unit[0] ? s->display_time_unit : NULL,
                     s->trace_events,
                     o && o->generated_at_utc ? o->generated_at_utc : "",
                     NULL};
    if (prof->nsources != 1 || !s->slices || sm_compute(s->slices, &so, &src, &h->res) != 0) {
        handle_free(h);
        return err_set(err, PQ_ERR_NOMEM, path, -1, "out of memory while summarizing");
    }
    pq_profile_free(h->prof);
    h->prof = NULL;
    *out = h;
    return PQ_OK;
}

void summary_doc_write(buf *b, const pq_summary_result *r)
{
    sj_writer w;
    sj_init(&w, b, 2);
    sm_write(&w, r);
    buf_putc(b, '\n');
}

/* The document of the computed summary H written to SINK (H freed here either way). */
static pq_status write_of(sm_handle *h, pq_status st, pq_sink *sink, pq_error *err)
{
    if (st == PQ_OK) {
        buf b;
        buf_init(&b, sink);
        summary_doc_write(&b, &h->res.r);
        st = buf_flush(&b);
        buf_release(&b);
        if (st != PQ_OK)
            st = err_set(err, st, "", -1,
                         st == PQ_ERR_OUTPUT ? "write failed" : "out of memory while writing");
    }
    handle_free(h);
    return st;
}

static pq_status summarize_trace(const char *path, const pq_summary_options *o, pq_sink *sink,
                                 pq_error *err)
{
    sm_handle *h;
    pq_status st = compute_trace(path, o, &h, err);
    return write_of(h, st, sink, err);
}

int summary_set_add(const char *path, const pq_summary_result *r, sm_source_row *row, buf *text)
{
    sm_source_row_of(path, r, row);
    sj_writer w;
    sj_init_at(&w, text, 2, 2);
    sm_write(&w, r);
    buf_putc(text, '\0');
    return text->status == PQ_OK ? 0 : -1;
}

pq_status summary_set_emit(const sm_source_row *rows, const char *const *texts, size_t n,
                           pq_sink *sink, pq_error *err)
{
    sm_summary_set set;
    sm_summary_set_of(rows, n, &set);
    buf b;
    buf_init(&b, sink);
    sj_writer w;
    sj_init(&w, &b, 2);
    su_summary_set_write(&w, &set, texts, n);
    buf_putc(&b, '\n');
    pq_status st = buf_flush(&b);
    buf_release(&b);
    RETURN_ERROR_IF(st != PQ_OK, err, st, "", -1,
                    st == PQ_ERR_OUTPUT ? "write failed" : "out of memory while writing");
    return PQ_OK;
}

/* Several trace files of one job (ranks, hosts): one profile_summary.v1 per source, each
 * the document the file alone gives, and the cross-source table (analysis/summary_set.c).
 * Schema profq.summary_set.v1. Each source's summary is written at depth 2 and its structs
 * dropped before the next is computed. */
static pq_status summarize_set(const pathlist *paths, const pq_summary_options *o, pq_sink *sink,
                               pq_error *err)
{
    sm_source_row *rows = pq_calloc(paths->n ? paths->n : 1, sizeof *rows);
    buf *texts = pq_calloc(paths->n ? paths->n : 1, sizeof *texts);
    const char **tp = pq_calloc(paths->n ? paths->n : 1, sizeof *tp);
    pq_status st =
        rows && texts && tp ? PQ_OK : err_set(err, PQ_ERR_NOMEM, "", -1, "out of memory");
    size_t done = 0;
    for (size_t k = 0; k < paths->n && st == PQ_OK; k++, done++) {
        sm_handle *h;
        buf_init(&texts[k], NULL);
        st = compute_trace(paths->items[k], o, &h, err);
        if (st == PQ_OK) {
            if (summary_set_add(paths->items[k], &h->res.r, &rows[k], &texts[k]) != 0)
                st = err_set(err, PQ_ERR_NOMEM, paths->items[k], -1, "out of memory");
            tp[k] = texts[k].p;
            handle_free(h);
        }
    }
    if (st == PQ_OK)
        st = summary_set_emit(rows, tp, paths->n, sink, err);
    for (size_t k = 0; texts && k < done; k++)
        buf_release(&texts[k]);
    pq_free(tp);
    pq_free(texts);
    pq_free(rows);
    return st;
}

static pq_status compute_xplane(const char *const *paths, size_t n, const pq_summary_options *o,
                                sm_handle **out, pq_error *err)
{
    *out = NULL;
    pq_open_options oo;
    memset(&oo, 0, sizeof oo);
    pq_profile *prof = NULL;
    pq_status st = pq_profile_open(paths, n, &oo, &prof, err);
    FORWARD_IF_ERROR(st);
    sm_handle *h = pq_calloc(1, sizeof *h);
    if (!h) {
        pq_profile_free(prof);
        return err_set(err, PQ_ERR_NOMEM, paths[0], -1, "out of memory");
    }
    h->prof = prof;
    const char *warn[64];
    size_t nw = 0;
    uint64_t nev = 0;
    /* The profile's timeline, kept on its first source (formats/load.c); the summary
     * reads it (sm_compute). */
    st = load_xplane_timeline(prof, &nev, err);
    if (st != PQ_OK) {
        handle_free(h);
        return st;
    }
    model_slices *sl = prof->sources[0].slices;
    /* XSpace errors and warnings recorded by the profiler become quality warnings. */
    for (size_t s = 0; s < prof->nsources && nw + 2 < 64; s++) {
        const pq_source *src = &prof->sources[s];
        for (uint32_t k = 0; k < src->nwarnings + src->nerrors && nw + 2 < 64; k++) {
            pq_str t = k < src->nwarnings ? src->warnings[k] : src->errors[k - src->nwarnings];
            char *c = pq_malloc(t.n + 1);
            if (!c)
                break;
            memcpy(c, t.p, t.n);
            c[t.n] = '\0';
            h->owned[h->nowned++] = c;
            warn[nw++] = c;
        }
    }
    if (sl->n == 0)
        warn[nw++] = "XPlane protobuf contained no direct timeline events with offset/duration "
                     "data.";
    warn[nw] = NULL;
    sm_options so = opts_of(o);
    const pq_source_info *si = pq_profile_source(prof, 0);
    if (si)
        memcpy(h->sha, si->sha256, sizeof h->sha);
    sm_source src = {"xplane_pb", paths[0], h->sha[0] ? h->sha : NULL,
                     "us",        nev,      o && o->generated_at_utc ? o->generated_at_utc : "",
                     warn};
    if (sm_compute(sl, &so, &src, &h->res) != 0) {
        handle_free(h);
        return err_set(err, PQ_ERR_NOMEM, paths[0], -1, "out of memory while summarizing");
    }
    pq_profile_free(h->prof); /* (the result's strings are its own) */
    h->prof = NULL;
    *out = h;
    return PQ_OK;
}

static pq_status summarize_xplane(const char *const *paths, size_t n, const pq_summary_options *o,
                                  pq_sink *sink, pq_error *err)
{
    sm_handle *h;
    pq_status st = compute_xplane(paths, n, o, &h, err);
    return write_of(h, st, sink, err);
}

/* 1 trace JSON, 0 an XSpace (or an .nsys-rep, which the loader explains), -1 when the file
 * cannot be opened (the loader reports it), 2 anything else (*WHAT says what). */
static int is_trace_file(const char *path, const char **what)
{
    mapped_file m;
    pq_error e;
    if (mapfile_open(path, &m, &e) != PQ_OK)
        return -1;
    detected d = detect_format(path, m.data, m.size);
    mapfile_close(&m);
    *what = detected_name(d);
    if (d == DETECT_GZIP || d == DETECT_JSON)
        return 1;
    return d == DETECT_XSPACE || d == DETECT_NSYS_REP ? 0 : 2;
}

/* The leaves of summarize_path: write the document to SINK, or (KEEP not NULL) keep the
 * computed summary in *KEEP. A summary set has no result struct: PQ_ERR_UNSUPPORTED. */
static pq_status leaf_trace(const char *path, const pq_summary_options *o, pq_sink *sink,
                            sm_handle **keep, pq_error *err)
{
    return keep ? compute_trace(path, o, keep, err) : summarize_trace(path, o, sink, err);
}

static pq_status leaf_xplane(const char *const *paths, size_t n, const pq_summary_options *o,
                             pq_sink *sink, sm_handle **keep, pq_error *err)
{
    return keep ? compute_xplane(paths, n, o, keep, err) : summarize_xplane(paths, n, o, sink, err);
}

static pq_status leaf_set(const pathlist *paths, const char *dir, const pq_summary_options *o,
                          pq_sink *sink, sm_handle **keep, int *set, pq_error *err)
{
    *set = 1;
    RETURN_ERROR_IF(keep, err, PQ_ERR_UNSUPPORTED, dir, -1,
                    "%zu trace files: a summary set (profq.summary_set.v1) has no result "
                    "struct; compute each file's summary",
                    paths->n);
    return summarize_set(paths, o, sink, err);
}

static pq_status summarize_path(const char *path, const pq_summary_options *o, pq_sink *sink,
                                sm_handle **keep, int *set, pq_error *err)
{
    struct stat st;
    RETURN_ERROR_IF(stat(path, &st) != 0, err, PQ_ERR_IO, path, -1,
                    "cannot open: No such file or directory");
    if (!S_ISDIR(st.st_mode)) {
        const char *what = "";
        int t = is_trace_file(path, &what);
        RETURN_ERROR_IF(t == 2, err, PQ_ERR_INPUT, path, 0,
                        "expected a trace-event JSON (.json, .json.gz), an XSpace "
                        "(*.xplane.pb) or a profile directory to summarize, found %s",
                        what);
        if (t == 1)
            return leaf_trace(path, o, sink, keep, err);
        return leaf_xplane(&path, 1, o, sink, keep, err); /* or reports the open error */
    }
    /* An artifact directory (spec 1.2, newest ingest): one XPlane first, else trace JSON. */
    pathlist xp = {0}, tr = {0};
    pq_status rs;
    if (!discover_files(path, ".xplane.pb", 0, &xp)) {
        pathlist_free(&xp);
        return err_set(err, PQ_ERR_NOMEM, path, -1, "out of memory");
    }
    if (xp.n == 1) {
        pq_error local;
        memset(&local, 0, sizeof local);
        const char *one = xp.items[0];
        rs = leaf_xplane(&one, 1, o, sink, keep, &local);
        if (rs != PQ_ERR_INPUT) { /* a malformed XPlane falls back to the trace JSON */
            if (err && rs != PQ_OK)
                *err = local;
            pathlist_free(&xp);
            return rs;
        }
    }
    /* The seed's patterns, then (profq) any *.json.gz or *.json: a folder of ranks. Every
     * file of the first pattern that matches is read: one summary, or one per source with
     * the cross-source table; none is dropped. */
    int found = discover_traces(path, xp.n != 0, &tr);
    if (found < 0) {
        pathlist_free(&xp);
        return err_set(err, PQ_ERR_NOMEM, path, -1, "out of memory");
    }
    if (found) {
        rs = tr.n == 1 ? leaf_trace(tr.items[0], o, sink, keep, err)
                       : leaf_set(&tr, path, o, sink, keep, set, err);
        pathlist_free(&tr);
        pathlist_free(&xp);
        return rs;
    }
    if (xp.n > 1) {
        /* Several hosts and no trace JSON: one multi-host XPlane run (newest folder). */
        pathlist run = {0};
        rs = discover_profiles(path, &run, err);
        if (rs == PQ_OK)
            rs = leaf_xplane((const char *const *)run.items, run.n, o, sink, keep, err);
        pathlist_free(&run);
        pathlist_free(&xp);
        return rs;
    }
    pathlist_free(&xp);
    return err_set(err, PQ_ERR_NOT_FOUND, path, -1,
                   "No profile trace JSON found under '%s'. Expected perfetto_trace.json.gz or "
                   "*.trace.json(.gz).",
                   path);
}

pq_status pq_summarize(const char *path, const pq_summary_options *o, pq_sink *sink, pq_error *err)
{
    int set = 0;
    return summarize_path(path, o, sink, NULL, &set, err);
}

pq_status pq_summary_compute(const char *path, const pq_summary_options *opts,
                             pq_summary_result **out, pq_error *err)
{
    int set = 0;
    return summary_compute_path(path, opts, out, &set, err);
}

pq_status summary_compute_path(const char *path, const pq_summary_options *opts,
                               pq_summary_result **out, int *set, pq_error *err)
{
    sm_handle *h = NULL;
    *set = 0;
    pq_status st = summarize_path(path, opts, NULL, &h, set, err);
    *out = st == PQ_OK && h ? &h->res.r : NULL;
    if (st != PQ_OK)
        handle_free(h);
    return st;
}

void pq_summary_result_free(pq_summary_result *result)
{
    /* result is the first member of sm_result, which is the first member of sm_handle */
    handle_free((sm_handle *)(void *)result);
}

int summary_doc_of(const model_slices *m, const sm_options *opts, const sm_source *src, buf *b)
{
    sm_result res;
    if (sm_compute(m, opts, src, &res) != 0)
        return -1;
    summary_doc_write(b, &res.r);
    sm_result_free(&res);
    return b->status == PQ_OK ? 0 : -1;
}
