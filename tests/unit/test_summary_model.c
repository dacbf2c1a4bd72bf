/* test_summary_model.c - the trace summary reads the profile's own timeline and leaves it
 * as it is (issue 11): sm_compute on a source's pq_source.slices changes no column, no
 * track and no name of them, computing it twice on one profile gives the same document,
 * and the html page, which runs the summary beside its other analyses on one profile,
 * reads its input once (it renders the same page after the file is gone). The trace is
 * the shared Kineto one with gpu_user_annotation ranges, which the summary leaves out of
 * its time and op sections (analysis/summary_view.c): the case that used to trim the
 * columns in place. */
#include "testutil.h"

#include "analysis/summary.h"
#include "core/buf.h"
#include "api/summary_int.h"
#include "model/model.h"

#define TRACE "trace-json/hta__with_gpu_user_annotation__step_based_trace_2543932.json.gz"

static int grow_write(void *ctx, const void *data, size_t n)
{
    buf *b = ctx;
    buf_put(b, data, n);
    return b->status != PQ_OK;
}

/* A copy of everything the summary could change in M: the columns, the tracks, the names. */
typedef struct snapshot {
    size_t n;
    uint32_t ntracks, nnames;
    size_t nchars;
    void *cols[11];
    size_t size[11];
    slice_track *tracks;
    char *chars;
} snapshot;

static void columns(const model_slices *m, const void *col[11], size_t size[11])
{
    const void *c[11] = {m->track,    m->name,   m->tf_op, m->source, m->long_name, m->run_id,
                         m->start_ps, m->dur_ps, m->step,  m->flags,  m->module};
    size_t s[11] = {sizeof *m->track,     sizeof *m->name,   sizeof *m->tf_op,    sizeof *m->source,
                    sizeof *m->long_name, sizeof *m->run_id, sizeof *m->start_ps, sizeof *m->dur_ps,
                    sizeof *m->step,      sizeof *m->flags,  sizeof *m->module};
    for (int k = 0; k < 11; k++) {
        col[k] = c[k];
        size[k] = s[k];
    }
}

static void *dup_bytes(const void *p, size_t n)
{
    if (!p)
        return NULL;
    void *q = malloc(n ? n : 1);
    assert_non_null(q);
    memcpy(q, p, n);
    return q;
}

static void snap_take(const model_slices *m, snapshot *s)
{
    memset(s, 0, sizeof *s);
    s->n = m->n;
    s->ntracks = m->ntracks;
    s->nnames = m->names.n;
    s->nchars = m->names.nchars;
    const void *col[11];
    columns(m, col, s->size);
    for (int k = 0; k < 11; k++)
        s->cols[k] = dup_bytes(col[k], m->n * s->size[k]);
    s->tracks = dup_bytes(m->tracks, m->ntracks * sizeof *m->tracks);
    s->chars = dup_bytes(m->names.chars, m->names.nchars);
}

static void snap_check(const model_slices *m, const snapshot *s)
{
    assert_int_equal(m->n, s->n);
    assert_int_equal(m->ntracks, s->ntracks);
    assert_int_equal(m->names.n, s->nnames);
    assert_int_equal(m->names.nchars, s->nchars);
    const void *col[11];
    size_t size[11];
    columns(m, col, size);
    for (int k = 0; k < 11; k++) {
        assert_int_equal(col[k] == NULL, s->cols[k] == NULL);
        if (col[k])
            assert_memory_equal(col[k], s->cols[k], m->n * size[k]);
    }
    assert_memory_equal(m->tracks, s->tracks, m->ntracks * sizeof *m->tracks);
    assert_memory_equal(m->names.chars, s->chars, m->names.nchars);
}

static void snap_free(snapshot *s)
{
    for (int k = 0; k < 11; k++)
        free(s->cols[k]);
    free(s->tracks);
    free(s->chars);
}

/* The document of the summary of M, as JSON text (malloc'd, NUL-terminated). */
static char *summary_text(const model_slices *m, uint64_t nevents)
{
    sm_options o = {5, 25, 0, NULL, NULL, NULL, NULL};
    sm_source src = {"perfetto_trace_json", "t.json", "0", NULL, nevents, "", NULL};
    buf b;
    buf_init(&b, NULL);
    assert_int_equal(summary_doc_of(m, &o, &src, &b), 0);
    buf_putc(&b, '\0');
    assert_int_equal(b.status, PQ_OK);
    char *text = dup_bytes(b.p, b.n);
    buf_release(&b);
    return text;
}

static pq_profile *open_one(const char *path)
{
    pq_profile *prof = NULL;
    pq_error err;
    if (pq_profile_open(&path, 1, NULL, &prof, &err) != PQ_OK)
        fail_msg("%s: %s", err.path, err.message);
    assert_int_equal(prof->nsources, 1);
    assert_non_null(prof->sources[0].slices);
    return prof;
}

/* Twice on one profile: the same document, and the slices as they were read. */
static void test_summary_reads_only(void **state)
{
    (void)state;
    REQUIRE_SHARED();
    pq_profile *prof = open_one(shared_path(TRACE));
    const model_slices *m = prof->sources[0].slices;
    size_t nann = 0;
    for (size_t e = 0; e < m->n; e++)
        nann += (m->flags[e] & SLICE_GPU_ANNOTATION) != 0;
    assert_true(nann > 0); /* what the summary leaves out is there */
    snapshot s;
    snap_take(m, &s);
    char *first = summary_text(m, prof->sources[0].trace_events);
    snap_check(m, &s);
    char *second = summary_text(m, prof->sources[0].trace_events);
    snap_check(m, &s);
    assert_string_equal(first, second);
    /* The annotations were left out of the op sections, not counted as device ops. */
    sm_options o = {5, 25, 0, NULL, NULL, NULL, NULL};
    sm_source src = {"perfetto_trace_json", "t.json", "0", NULL, 0, "", NULL};
    sm_result res;
    assert_int_equal(sm_compute(m, &o, &src, &res), 0);
    snap_check(m, &s);
    assert_true(res.r.nhot_ops > 0);
    for (size_t k = 0; k < res.r.nhot_ops; k++)
        assert_null(strstr(res.r.hot_ops[k].name, "Optimizer."));
    sm_result_free(&res);
    free(first);
    free(second);
    snap_free(&s);
    pq_profile_free(prof);
}

static char *render_page(const pq_profile *prof, size_t *n)
{
    buf b;
    buf_init(&b, NULL);
    pq_sink sink = {grow_write, &b};
    pq_error err;
    assert_int_equal(pq_render_html(prof, NULL, &sink, &err), PQ_OK);
    char *page = dup_bytes(b.p, b.n);
    *n = b.n;
    buf_release(&b);
    return page;
}

/* The page of a profile whose file was removed after it was opened is the page of the
 * profile with its file there: nothing on it (the summary included) reads the file again. */
static void test_html_reads_once(void **state)
{
    (void)state;
    REQUIRE_SHARED();
    size_t nbytes = 0;
    uint8_t *bytes = tu_read_file(shared_path(TRACE), &nbytes);
    assert_non_null(bytes);
    char *path = tu_write_temp(bytes, nbytes, "rank-0.pt.trace.json.gz");
    free(bytes);
    pq_profile *prof = open_one(path);
    snapshot s;
    snap_take(prof->sources[0].slices, &s);
    size_t n1 = 0, n2 = 0;
    char *before = render_page(prof, &n1);
    assert_int_equal(unlink(path), 0);
    char *after = render_page(prof, &n2);
    snap_check(prof->sources[0].slices, &s);
    assert_non_null(strstr(before, "profile_summary.v1 of "));
    assert_non_null(strstr(before, "Hot ops ("));
    assert_int_equal(n1, n2);
    assert_memory_equal(before, after, n1);
    free(before);
    free(after);
    snap_free(&s);
    pq_profile_free(prof);
    tu_unlink_temp(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary_reads_only),
        cmocka_unit_test(test_html_reads_once),
    };
    return tu_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
