/* test_nsys_api.c - the public nsys result (pq_nsys_compute -> pq_nsys_result ->
 * pq_nsys_render -> pq_nsys_free, include/profq.h) on the shared h100 nsys-jax archive:
 * every figure the struct states (frames, the steady module table, runtime definitions,
 * alignment corrections, collectives per kind, compile passes) equals what the JSON
 * renderer prints from the same result, so a program reads them without JSON; the struct
 * agrees with spec/nsys-jax.md section 6 where the spec states a figure; sections not asked
 * for are not computed; an XPlane profile asked only for sections it cannot give (or the
 * flame SVG) is refused before computing. */
#include "testutil.h"

#include "core/buf.h"
#include "core/jval.h"

#include <math.h>
#include <string.h>

static const char ARCHIVE[] = "nsys/nsys-jax_h100_maxtext_fsdp4.zip";

static int grow_write(void *ctx, const void *data, size_t n)
{
    buf *b = ctx;
    buf_put(b, data, n);
    return b->status != PQ_OK;
}

static pq_profile *open_archive(void)
{
    const char *path = shared_path(ARCHIVE);
    pq_profile *prof = NULL;
    pq_error err;
    pq_status st = pq_profile_open(&path, 1, NULL, &prof, &err);
    if (st != PQ_OK)
        fail_msg("%s: %s", err.path, err.message);
    return prof;
}

/* The result rendered as JSON, parsed. */
static jval *render_json(const pq_nsys_result *r)
{
    buf b;
    buf_init(&b, NULL);
    pq_sink sink = {grow_write, &b};
    pq_error err;
    assert_int_equal(pq_nsys_render(r, PQ_OUT_JSON, &sink, &err), PQ_OK);
    size_t off = 0;
    const char *what = NULL;
    jval *doc = jv_parse(b.p, b.n, &off, &what);
    buf_release(&b);
    assert_non_null(doc);
    return doc;
}

static double num(const jval *obj, const char *key)
{
    int ok = 0;
    const jval *v = jv_get(obj, key);
    assert_non_null(v);
    if (v->t == JV_NULL)
        return NAN;
    double d = jv_number(v, &ok);
    assert_true(ok);
    return d;
}

/* A and B equal: the JSON writer prints doubles so that they read back exactly; NaN is
 * written as null. */
static void same(double a, double b)
{
    if (isnan(a) || isnan(b)) {
        assert_true(isnan(a) && isnan(b));
        return;
    }
    if (a != b)
        fail_msg("%.17g != %.17g", a, b);
}

static void check_frames(const pq_nsys_result *r, const jval *doc)
{
    static const char *const names[PQ_NSYS_NFRAMES] = {"all", "steady", "init"};
    const jval *frames = jv_get(doc, "frames");
    for (int f = 0; f < PQ_NSYS_NFRAMES; f++) {
        const jval *fr = jv_get(frames, names[f]);
        same((double)r->frames[f].module_rows, num(fr, "module_rows"));
        same((double)r->frames[f].thunk_rows, num(fr, "thunk_rows"));
        same((double)r->frames[f].communication_rows, num(fr, "communication_rows"));
        same((double)r->frames[f].compile_rows, num(fr, "compile_rows"));
    }
}

static void check_modules(const pq_nsys_result *r, const jval *doc)
{
    const jval *mods = jv_get(doc, "modules");
    assert_int_equal(mods->n, r->nmodules);
    double share = 0;
    for (size_t k = 0; k < r->nmodules; k++) {
        const pq_nsys_module *m = &r->modules[k];
        const jval *j = mods->items[k];
        char id[24];
        snprintf(id, sizeof id, "%lld", (long long)m->program_id);
        assert_string_equal(jv_string(jv_get(j, "program_id")), id);
        assert_string_equal(jv_string(jv_get(j, "name")), m->name);
        same((double)m->rows, num(j, "rows"));
        same(m->total_ms, num(j, "total_ms"));
        same(m->share, num(j, "share"));
        same(m->thunks_mean, num(j, "thunks_mean"));
        same(m->thunks_std, num(j, "thunks_std"));
        same(m->wait_share, num(j, "wait_share"));
        assert_true(k == 0 || m->total_ns <= r->modules[k - 1].total_ns);
        share += m->share;
    }
    assert_true(fabs(share - 1) < 1e-9);
    const jval *top = jv_get(doc, "top_module_ids");
    assert_int_equal(top->n, r->ntop);
}

static void check_runtime(const pq_nsys_result *r, const jval *doc)
{
    const jval *rt = jv_get(doc, "runtime");
    assert_non_null(rt);
    same(r->thunks_ms, num(rt, "thunks_ms"));
    same(r->modules_ms, num(rt, "modules_ms"));
    same(r->wall_ms, num(rt, "wall_ms"));
    same(r->idle_in_modules_ms, num(rt, "idle_in_modules_ms"));
    same(r->idle_between_modules_ms, num(rt, "idle_between_modules_ms"));
    same(r->comm_hidden_ms, num(rt, "comm_hidden_ms"));
    same(r->comm_exposed_ms, num(rt, "comm_exposed_ms"));
    const jval *corr = jv_get(jv_get(doc, "alignment"), "corrections_ns");
    assert_non_null(corr);
    assert_int_equal(corr->n, r->ndevices);
    for (uint32_t d = 0; d < r->ndevices; d++) {
        int ok = 0;
        same(r->corrections_ns[d], jv_number(corr->items[d], &ok));
    }
}

static void check_collectives(const pq_nsys_result *r, const jval *doc)
{
    const jval *kinds = jv_get(doc, "collectives");
    assert_int_equal(kinds->n, r->ncollectives);
    for (size_t k = 0; k < r->ncollectives; k++) {
        const pq_nsys_collective *c = &r->collectives[k];
        const jval *j = kinds->items[k];
        assert_string_equal(jv_string(jv_get(j, "collective")), c->collective);
        same((double)c->instances, num(j, "instances"));
        same((double)c->rows, num(j, "rows"));
        same(c->busbw_mean_gbps, num(j, "busbw_mean_gbps"));
        same(c->busbw_median_gbps, num(j, "busbw_median_gbps"));
        same(c->busbw_max_gbps, num(j, "busbw_max_gbps"));
        same(c->wait_mean_ms, num(j, "wait_mean_ms"));
        same(c->wait_median_ms, num(j, "wait_median_ms"));
        same(c->wait_max_ms, num(j, "wait_max_ms"));
    }
}

static void check_compile(const pq_nsys_result *r, const jval *doc)
{
    const jval *c = jv_get(doc, "compile");
    assert_non_null(c);
    same(r->compile_total_s, num(c, "total_s"));
    same((double)r->npasses, num(c, "names"));
    const jval *passes = jv_get(c, "passes");
    assert_int_equal(passes->n, r->ntop_passes);
    assert_true(r->ntop_passes <= r->npasses);
    for (size_t k = 0; k < r->ntop_passes; k++) {
        const pq_nsys_compile_pass *p = &r->passes[k];
        assert_string_equal(jv_string(jv_get(passes->items[k], "name")), p->name);
        same(p->non_child_s, num(passes->items[k], "non_child_s"));
        same(p->child_s, num(passes->items[k], "child_s"));
        same(p->share, num(passes->items[k], "share"));
    }
}

/* Every section: the struct against the JSON document and against spec section 6. */
static void test_struct_equals_json(void **state)
{
    (void)state;
    REQUIRE_SHARED();
    pq_profile *prof = open_archive();
    pq_nsys_result *r = NULL;
    pq_error err;
    assert_int_equal(pq_nsys_compute(prof, NULL, &r, &err), PQ_OK);
    assert_false(r->xplane);
    assert_true(r->has_runtime && r->has_compile);
    jval *doc = render_json(r);
    same((double)r->sources, num(doc, "sources"));
    same((double)r->devices, num(doc, "devices"));
    same((double)r->compiled_programs, num(doc, "compiled_programs"));
    check_frames(r, doc);
    check_modules(r, doc);
    check_runtime(r, doc);
    check_collectives(r, doc);
    check_compile(r, doc);
    jv_free(doc);

    /* spec/nsys-jax.md section 6 (the archive-era loader on this archive) */
    assert_int_equal(r->devices, 4);
    assert_int_equal(r->frames[PQ_NSYS_STEADY].module_rows, 55);
    assert_int_equal(r->frames[PQ_NSYS_ALL].thunk_rows, 20449);
    assert_int_equal(r->frames[PQ_NSYS_STEADY].communication_rows, 384);
    assert_int_equal(r->frames[PQ_NSYS_INIT].compile_rows, 4032);
    assert_int_equal(r->modules[0].program_id, 16);
    assert_string_equal(r->modules[0].name, "jit_train_step");
    assert_int_equal(r->modules[0].rows, 12);
    assert_true(fabs(r->modules[0].total_ms - 1501.74) < 0.005);
    assert_int_equal(r->ntop, 1);
    assert_true(fabs(r->thunks_ms - 1482.068) < 0.0005);
    assert_true(fabs(r->modules_ms - 1501.741) < 0.0005);
    assert_true(fabs(r->wall_ms - 1502.161) < 0.0005);
    assert_true(fabs(r->comm_hidden_ms - 103.868) < 0.0005);
    assert_int_equal(r->ndevices, 4);
    assert_true(fabs(r->corrections_ns[1] - -2079.375) < 1e-6);
    pq_nsys_free(r);
    pq_profile_free(prof);
}

/* Sections not asked for are not computed (compile), and the text rendering of a result
 * is the same bytes every time. */
static void test_sections_and_rerender(void **state)
{
    (void)state;
    REQUIRE_SHARED();
    pq_profile *prof = open_archive();
    pq_nsys_options o = {PQ_NSYS_MODULES, PQ_OUT_TEXT};
    pq_nsys_result *r = NULL;
    pq_error err;
    assert_int_equal(pq_nsys_compute(prof, &o, &r, &err), PQ_OK);
    assert_false(r->has_compile);
    assert_int_equal(r->npasses, 0);
    assert_int_equal(r->frames[PQ_NSYS_INIT].compile_rows, 0);
    assert_true(r->nmodules > 0 && r->has_runtime);
    buf a, b;
    buf_init(&a, NULL);
    buf_init(&b, NULL);
    pq_sink sa = {grow_write, &a}, sb = {grow_write, &b};
    assert_int_equal(pq_nsys_render(r, PQ_OUT_TEXT, &sa, &err), PQ_OK);
    assert_int_equal(pq_nsys_render(r, PQ_OUT_TEXT, &sb, &err), PQ_OK);
    assert_true(a.n > 0 && a.n == b.n && memcmp(a.p, b.p, a.n) == 0);
    buf_release(&a);
    buf_release(&b);
    pq_nsys_free(r);
    pq_nsys_free(NULL);
    pq_profile_free(prof);
}

/* An XPlane profile: the module table and the communication side; compile (and the flame
 * SVG) refused up front. */
static void test_xplane(void **state)
{
    (void)state;
    REQUIRE_SHARED();
    const char *path = shared_path("xplane/mi300_jax08_attention.xplane.pb");
    pq_profile *prof = NULL;
    pq_error err;
    assert_int_equal(pq_profile_open(&path, 1, NULL, &prof, &err), PQ_OK);
    pq_nsys_result *r = NULL;
    assert_int_equal(pq_nsys_compute(prof, NULL, &r, &err), PQ_OK);
    assert_true(r->xplane);
    assert_true(r->has_runtime);
    assert_false(r->has_compile);
    assert_true(r->nmodules > 0);
    jval *doc = render_json(r);
    assert_string_equal(jv_string(jv_get(doc, "input")), "xplane");
    check_modules(r, doc);
    jv_free(doc);
    pq_nsys_free(r);
    pq_nsys_options svg = {PQ_NSYS_FLAME, PQ_OUT_SVG}, compile = {PQ_NSYS_COMPILE, PQ_OUT_TEXT};
    assert_int_equal(pq_nsys_compute(prof, &svg, &r, &err), PQ_ERR_INPUT);
    assert_null(r);
    assert_non_null(strstr(err.message, "nsys-jax archive"));
    assert_int_equal(pq_nsys_compute(prof, &compile, &r, &err), PQ_ERR_INPUT);
    assert_null(r);
    pq_profile_free(prof);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_struct_equals_json),
        cmocka_unit_test(test_sections_and_rerender),
        cmocka_unit_test(test_xplane),
    };
    return tu_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
