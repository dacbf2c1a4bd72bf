/* test_summary_docs.c - a summary computed in process and the same summary saved as a
 * profile_summary.v1 document and read back (api/summary_read.c) are the same result structs:
 * the saved document read back writes the same bytes; report, query, compare and track give
 * the same bytes on either; compare's result struct says what its document says. Inputs:
 * the two sampled-rank Kineto traces and two XPlanes of ../shared/data (skipped with a
 * message when absent, a failure under CI=true). Also the reader's refusals: not JSON (with
 * the offset) and not a profile_summary.v1.
 */
#include "testutil.h"

#include <math.h>

typedef struct mem {
    char *p;
    size_t n;
} mem;

static int mem_write(void *ctx, const void *d, size_t n)
{
    mem *m = ctx;
    char *np = realloc(m->p, m->n + n + 1);
    if (!np)
        return -1;
    memcpy(np + m->n, d, n);
    m->p = np;
    m->n += n;
    m->p[m->n] = 0;
    return 0;
}

static const pq_summary_options OPTS = {5, 25, 0, "2024-01-01T00:00:00Z", NULL, NULL, NULL, NULL};

static pq_summary *load(const char *path)
{
    pq_summary *s = NULL;
    pq_error e;
    memset(&e, 0, sizeof e);
    pq_status st = pq_summary_load(path, &OPTS, &s, &e);
    if (st != PQ_OK)
        fail_msg("load %s: %s", path, e.message);
    return s;
}

/* S written as its document, saved under DIR as NAME and loaded back. */
static pq_summary *saved(const pq_summary *s, const char *dir, const char *name, mem *doc)
{
    pq_sink sink = {mem_write, doc};
    assert_int_equal(pq_summary_write(s, &sink, NULL), PQ_OK);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    tu_write_file(path, doc->p, doc->n);
    pq_summary *back = load(path);
    mem again = {0};
    pq_sink s2 = {mem_write, &again};
    assert_int_equal(pq_summary_write(back, &s2, NULL), PQ_OK);
    assert_int_equal(again.n, doc->n);
    assert_memory_equal(again.p, doc->p, doc->n); /* read back, written again: same bytes */
    free(again.p);
    return back;
}

typedef enum { DO_COMPARE, DO_COMPARE_TEXT, DO_TRACK, DO_QUERY, DO_REPORT } what;

/* Questions routed to each of the nine answers. */
static const char *const QUESTIONS[] = {"top ops",
                                        "is communication dominating compute",
                                        "collective breakdown",
                                        "gap before all-reduce",
                                        "context for gap of copy.1",
                                        "context of gaps",
                                        "hierarchical regions",
                                        "memory-bound ops",
                                        "did it regress",
                                        "what is the step time"};
#define NQUESTIONS (sizeof QUESTIONS / sizeof *QUESTIONS)

static mem run(what w, size_t question, const pq_summary *b, const pq_summary *a)
{
    mem m = {0};
    pq_sink sink = {mem_write, &m};
    pq_summary_view text = {PQ_OUT_TEXT, 0};
    pq_status st = PQ_OK;
    switch (w) {
    case DO_COMPARE:
        st = pq_summary_compare(b, a, 10, 0, &sink, NULL);
        break;
    case DO_COMPARE_TEXT:
        st = pq_summary_compare_view(b, a, 3, 0, &text, &sink, NULL);
        break;
    case DO_TRACK: {
        pq_track_options o;
        pq_track_defaults(&o);
        o.label = "unit";
        o.recorded_at_utc = "2024-01-01T00:00:00Z";
        pq_track_status ts;
        st = pq_summary_track(b, a, &o, &sink, &ts, NULL);
        break;
    }
    case DO_QUERY:
        st = pq_summary_query(a, QUESTIONS[question], 5, &sink, NULL);
        break;
    case DO_REPORT:
        st = pq_summary_report(b, 5, &sink, NULL);
        break;
    }
    assert_int_equal(st, PQ_OK);
    assert_true(m.n > 0);
    return m;
}

/* BEFORE and AFTER: paths under ../shared/data. */
static void same_answers(const char *before_rel, const char *after_rel)
{
    char before[PATH_MAX + 64], after[PATH_MAX + 64];
    snprintf(before, sizeof before, "%s", shared_path(before_rel));
    snprintf(after, sizeof after, "%s", shared_path(after_rel));
    char *dir = tu_mkdtemp();
    pq_summary *b = load(before), *a = load(after);
    mem db = {0}, da = {0};
    pq_summary *sb = saved(b, dir, "before.json", &db), *sa = saved(a, dir, "after.json", &da);
    for (what w = DO_COMPARE; w <= DO_REPORT; w++)
        for (size_t q = 0; q < (w == DO_QUERY ? NQUESTIONS : 1); q++) {
            mem x = run(w, q, b, a), y = run(w, q, sb, sa);
            if (x.n != y.n || memcmp(x.p, y.p, x.n) != 0)
                fail_msg("answer %d (question %zu) differs between the in-process summaries and "
                         "the saved ones",
                         w, q);
            free(x.p);
            free(y.p);
        }
    /* query's struct: the rows it answers with are the summary's own. */
    pq_summary_query_result *qr = NULL;
    assert_int_equal(pq_summary_query_compute(sa, "top ops", 5, &qr, NULL), PQ_OK);
    const pq_summary_result *rsa = pq_summary_result_of(sa);
    assert_int_equal(qr->type, PQ_QUERY_TOP_OPS);
    assert_int_equal(qr->nhot_ops, rsa->nhot_ops < 5 ? rsa->nhot_ops : 5);
    assert_ptr_equal(qr->hot_ops, rsa->hot_ops);
    pq_summary_query_result_free(qr);
    assert_int_equal(pq_summary_query_compute(sa, "why so slow", 5, &qr, NULL), PQ_OK);
    assert_int_equal(qr->type, PQ_QUERY_OPTIMIZATION_CANDIDATES);
    assert_int_equal(qr->ncandidates, rsa->noptimization_candidates);
    pq_summary_query_result_free(qr);
    /* The comparison's struct is what its document says, and says it of these summaries. */
    pq_summary_comparison *c = NULL;
    assert_int_equal(pq_summary_compare_compute(sb, sa, 10, &c, NULL), PQ_OK);
    const pq_summary_result *rb = pq_summary_result_of(b), *ra = pq_summary_result_of(a);
    double mb = rb->step_time.steady_state_steps.median;
    assert_true(isnan(mb) ? isnan(c->steady_before[0]) : c->steady_before[0] == mb);
    assert_string_equal(c->provenance_status, "pass"); /* two files, two hashes */
    size_t moved = 0;
    for (size_t k = 0; k < rb->nhot_ops; k++)
        for (size_t j = 0; j < ra->nhot_ops; j++)
            if (strcmp(rb->hot_ops[k].name, ra->hot_ops[j].name) == 0 &&
                rb->hot_ops[k].exclusive_duration != ra->hot_ops[j].exclusive_duration)
                moved++;
    assert_true(c->nregressed_ops + c->nimproved_ops >= (moved < 10 ? moved : 10));
    pq_summary_comparison_free(c);
    pq_summary_free(b);
    pq_summary_free(a);
    pq_summary_free(sb);
    pq_summary_free(sa);
    free(db.p);
    free(da.p);
    tu_rm_rf(dir);
    free(dir);
}

static void test_ranks(void **state)
{
    (void)state;
    REQUIRE_SHARED();
    same_answers(("trace-json/hta__trace_filter__sampled_rank-0.json.gz"),
                 ("trace-json/hta__trace_filter__sampled_rank-1.json.gz"));
}

static void test_xplanes(void **state)
{
    (void)state;
    REQUIRE_SHARED();
    same_answers(("xplane/mi300_jax08_elementwise.xplane.pb"),
                 ("xplane/mi300_jax08_attention.xplane.pb"));
}

static void test_refusals(void **state)
{
    (void)state;
    static const char bad[] = "{\"schema_version\": \"profile_summary.v1\", \"hot_ops\": [1,}";
    char *p = tu_write_temp(bad, sizeof bad - 1, "bad.json");
    pq_summary *s = NULL;
    pq_error e;
    memset(&e, 0, sizeof e);
    pq_status st = pq_summary_load(p, &OPTS, &s, &e);
    assert_int_not_equal(st, PQ_OK);
    assert_null(s);
    tu_unlink_temp(p);
    static const char other[] = "{\"schema_version\": \"profile_summary.v2\", \"hot_ops\": []}";
    p = tu_write_temp(other, sizeof other - 1, "other.json");
    st = pq_summary_load(p, &OPTS, &s, &e);
    assert_int_not_equal(st, PQ_OK);
    assert_null(s);
    tu_unlink_temp(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ranks),
        cmocka_unit_test(test_xplanes),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
