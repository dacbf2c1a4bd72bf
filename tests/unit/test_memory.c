/* test_memory.c - the public compute -> render -> free API of the memory analyses
 * (include/profq.h, "Memory analyses") on the repository's JAX CPU fixture: the result
 * structs hold the figures the renderers print, rendering a result twice gives the same
 * bytes, a module that matches nothing is PQ_ERR_NOT_FOUND with no result, and every
 * compute survives failing its Nth allocation (NOMEM, no result, no leak under ASan). */
#include "testutil.h"

static const char FIXTURE[] = "tests/fixtures/jax_cpu/inference/jit_run_scan.hlo.pb";

static pq_profile *open_fixture(void)
{
    const char *paths[1] = {FIXTURE};
    pq_profile *prof = NULL;
    pq_error err;
    pq_status st = pq_profile_open(paths, 1, NULL, &prof, &err);
    if (st != PQ_OK)
        fail_msg("%s: %s", FIXTURE, err.message);
    return prof;
}

typedef struct mem_sink {
    char *p;
    size_t n;
} mem_sink;

static int mem_write(void *ctx, const void *data, size_t n)
{
    mem_sink *m = ctx;
    char *p = realloc(m->p, m->n + n + 1);
    if (!p)
        return 1;
    memcpy(p + m->n, data, n);
    m->p = p;
    m->n += n;
    p[m->n] = 0;
    return 0;
}

static void viewer_list(void **state)
{
    (void)state;
    pq_profile *prof = open_fixture();
    pq_memviewer_options o = {NULL, NULL, 0, 0};
    pq_memory_viewer_result *r = NULL;
    pq_error err;
    assert_int_equal(pq_memory_viewer_compute(prof, &o, &r, &err), PQ_OK);
    assert_true(r->is_list);
    assert_int_equal(r->nmodules, 1);
    assert_string_equal(r->modules[0].key, "jit_run_scan(16)");
    assert_int_equal(r->modules[0].program_id, 16);
    assert_string_equal(r->modules[0].source, FIXTURE);
    assert_int_equal(r->modules[0].nmemory_spaces, 1);
    assert_int_equal(r->modules[0].memory_spaces[0], 0);
    assert_null(r->detail);
    pq_memory_viewer_free(r);
    pq_profile_free(prof);
}

static void viewer_module(void **state)
{
    (void)state;
    pq_profile *prof = open_fixture();
    pq_memviewer_options o = {"jit_run_scan", NULL, 0, 0};
    pq_memory_viewer_result *r = NULL;
    pq_error err;
    assert_int_equal(pq_memory_viewer_compute(prof, &o, &r, &err), PQ_OK);
    assert_false(r->is_list);
    assert_string_equal(r->module.key, "jit_run_scan(16)");
    assert_non_null(r->detail);
    assert_true(r->ntimeline > 1);
    int64_t mx = 0;
    for (uint32_t i = 0; i < r->ntimeline; i++)
        if (r->heap_bytes[i] > mx)
            mx = r->heap_bytes[i];
    assert_int_equal(mx, r->peak_heap_bytes);
    assert_true(r->entry_params_bytes > 0);
    assert_true(r->indefinite_bytes >= r->entry_params_bytes);
    mem_sink a = {NULL, 0}, b = {NULL, 0};
    pq_sink sa = {mem_write, &a}, sb = {mem_write, &b};
    assert_int_equal(pq_memory_viewer_render(r, PQ_OUT_XPROF, &sa, &err), PQ_OK);
    assert_int_equal(pq_memory_viewer_render(r, PQ_OUT_XPROF, &sb, &err), PQ_OK);
    assert_true(a.n > 100 && a.n == b.n && memcmp(a.p, b.p, a.n) == 0);
    assert_non_null(strstr(a.p, "\"moduleName\":\"jit_run_scan\""));
    free(a.p);
    free(b.p);
    pq_memory_viewer_free(r);
    pq_profile_free(prof);
}

static void no_module(void **state)
{
    (void)state;
    pq_profile *prof = open_fixture();
    pq_memviewer_options o = {"nosuch", NULL, 0, 0};
    pq_memory_viewer_result *r = (void *)1;
    pq_error err;
    assert_int_equal(pq_memory_viewer_compute(prof, &o, &r, &err), PQ_ERR_NOT_FOUND);
    assert_null(r);
    assert_non_null(strstr(err.message, "no module matches 'nosuch'"));
    pq_heap_result *h = (void *)1;
    assert_int_equal(pq_heap_compute(prof, "nosuch", &h, &err), PQ_ERR_NOT_FOUND);
    assert_null(h);
    pq_memory_viewer_free(NULL);
    pq_heap_free(NULL);
    pq_memory_free(NULL);
    pq_memory_profile_free(NULL);
    pq_profile_free(prof);
}

static void heap_and_attribution(void **state)
{
    (void)state;
    pq_profile *prof = open_fixture();
    pq_error err;
    pq_heap_result *h = NULL;
    assert_int_equal(pq_heap_compute(prof, NULL, &h, &err), PQ_OK);
    assert_int_equal(h->nmodules, 1);
    const pq_heap_module *hm = &h->modules[0];
    assert_string_equal(hm->module.key, "jit_run_scan(16)");
    assert_true(hm->ntraces >= 1);
    const pq_heap_trace *t = &hm->traces[0];
    int64_t mx = 0;
    for (uint32_t i = 0; i <= t->nevents; i++)
        if (t->usage[i] > mx)
            mx = t->usage[i];
    assert_int_equal(mx, t->peak_bytes);
    assert_true(hm->peak_bytes >= t->peak_bytes);

    pq_memory_options mo = {NULL, 0, NULL, NULL, 0};
    pq_memory_result *m = NULL;
    assert_int_equal(pq_memory_compute(prof, &mo, &m, &err), PQ_OK);
    assert_int_equal(m->nrows, 1);
    assert_int_equal(m->nfigures, m->nbuckets + 3);
    assert_string_equal(m->figure_names[0], "peak_bytes");
    assert_string_equal(m->figure_names[m->nfigures - 1], "gradient_hits");
    assert_int_equal(m->aggregate[0].min, m->rows[0].peak_bytes);
    assert_int_equal(m->aggregate[0].max, m->rows[0].peak_bytes);
    int64_t groups = 0;
    for (int g = 0; g < m->rows[0].ngroups; g++)
        groups += m->rows[0].group_bytes[g];
    assert_int_equal(groups, m->rows[0].peak_bytes);
    for (int c = 0; c < 3; c++) {
        assert_non_null(pq_memory_check_name(c));
        assert_true(m->rows[0].check_ok[c]);
    }
    assert_null(pq_memory_check_name(3));
    pq_memory_free(m);

    pq_memory_profile_result *p = NULL;
    assert_int_equal(pq_memory_profile_compute(prof, &p, &err), PQ_OK);
    assert_int_equal(p->nsources, 1);
    assert_string_equal(p->sources[0].path, FIXTURE);
    assert_false(p->sources[0].has_cpu_plane);
    pq_memory_profile_free(p);
    pq_heap_free(h);
    pq_profile_free(prof);
}

/* --module of heap and memory is a prefix of "<name>(<program id>)", id and parentheses
 * included. */
static void module_prefix(void **state)
{
    (void)state;
    pq_profile *prof = open_fixture();
    static const struct {
        const char *prefix;
        pq_status want;
    } CASES[] = {{"jit_run", PQ_OK},
                 {"jit_run_scan", PQ_OK},
                 {"jit_run_scan(1", PQ_OK},
                 {"jit_run_scan(16)", PQ_OK},
                 {"jit_run_scan(17", PQ_ERR_NOT_FOUND},
                 {"jit_run_scan(16))", PQ_ERR_NOT_FOUND},
                 {"jit_runx", PQ_ERR_NOT_FOUND}};
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        pq_error err;
        pq_heap_result *h = NULL;
        assert_int_equal(pq_heap_compute(prof, CASES[i].prefix, &h, &err), CASES[i].want);
        pq_heap_free(h);
        pq_memory_options mo = {CASES[i].prefix, 0, NULL, NULL, 0};
        pq_memory_result *m = NULL;
        assert_int_equal(pq_memory_compute(prof, &mo, &m, &err), CASES[i].want);
        if (m)
            assert_int_equal(m->nrows, 1);
        pq_memory_free(m);
    }
    pq_profile_free(prof);
}

/* Fails the Nth allocation of COMPUTE for N = 1, 2, ... until it succeeds. */
static void torture(const char *label,
                    pq_status (*compute)(const pq_profile *, void **, pq_error *),
                    void (*release)(void *))
{
    pq_profile *prof = open_fixture();
    int done = 0;
    for (long n = 1; n < 100000 && !done; n++) {
        void *r = (void *)1;
        pq_error err;
        pq_debug_fail_alloc_after(n);
        pq_status st = compute(prof, &r, &err);
        pq_debug_fail_alloc_after(0);
        if (st == PQ_OK) {
            assert_non_null(r);
            release(r);
            done = 1;
        } else {
            if (st != PQ_ERR_NOMEM)
                fail_msg("%s: fail after %ld: %s: %s", label, n, pq_status_name(st), err.message);
            assert_null(r);
        }
    }
    assert_true(done);
    pq_profile_free(prof);
}

static pq_status c_viewer(const pq_profile *p, void **out, pq_error *err)
{
    pq_memviewer_options o = {"jit_run_scan(16)", NULL, 0, 0};
    return pq_memory_viewer_compute(p, &o, (pq_memory_viewer_result **)out, err);
}
static pq_status c_list(const pq_profile *p, void **out, pq_error *err)
{
    pq_memviewer_options o = {NULL, NULL, 0, 0};
    return pq_memory_viewer_compute(p, &o, (pq_memory_viewer_result **)out, err);
}
static pq_status c_memory(const pq_profile *p, void **out, pq_error *err)
{
    pq_memory_options o = {NULL, 0, NULL, NULL, 0};
    return pq_memory_compute(p, &o, (pq_memory_result **)out, err);
}
static pq_status c_heap(const pq_profile *p, void **out, pq_error *err)
{
    return pq_heap_compute(p, NULL, (pq_heap_result **)out, err);
}
static pq_status c_profile(const pq_profile *p, void **out, pq_error *err)
{
    return pq_memory_profile_compute(p, (pq_memory_profile_result **)out, err);
}
static void f_viewer(void *r)
{
    pq_memory_viewer_free(r);
}
static void f_memory(void *r)
{
    pq_memory_free(r);
}
static void f_heap(void *r)
{
    pq_heap_free(r);
}
static void f_profile(void *r)
{
    pq_memory_profile_free(r);
}

static void alloc_torture(void **state)
{
    (void)state;
    torture("viewer", c_viewer, f_viewer);
    torture("list", c_list, f_viewer);
    torture("memory", c_memory, f_memory);
    torture("heap", c_heap, f_heap);
    torture("memory-profile", c_profile, f_profile);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(viewer_list),   cmocka_unit_test(viewer_module),
        cmocka_unit_test(no_module),     cmocka_unit_test(heap_and_attribution),
        cmocka_unit_test(module_prefix), cmocka_unit_test(alloc_torture),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
