/* test_partial.c - partial results (api/partial*.c) through the public API: every prefix
 * of a real ops partial and of a scan partial is refused with PQ_ERR_INPUT and an offset
 * inside it (never a crash: run under the sanitizers), a wrong magic or version is named,
 * a partial written, read back and written again is the same bytes, merging in either
 * order renders the same bytes, and partials of two kinds do not merge. The section kinds
 * (info, memory-profile): a one-source partial renders what the command renders, a merge
 * with itself and merges in either order agree, XProf's JSON needs exactly one source. The
 * memory kind: merges in either order render what pq_render_memory renders over all the
 * sources, in every format; partials of two --module do not merge. XProf's tables
 * (pq_partial_ops_xprof): every prefix of the TPU partial (fused instructions) is refused,
 * and the two MI300X conv hosts' partials merged in either order render hlo_stats,
 * op_profile and roofline_model as pq_render_ops over both; profq's formats refuse them. */
#include "testutil.h"

typedef struct membuf {
    uint8_t *p;
    size_t n;
} membuf;

static int mem_write(void *ctx, const void *data, size_t n)
{
    membuf *m = ctx;
    uint8_t *p = realloc(m->p, m->n + n + 1);
    if (!p)
        return -1;
    memcpy(p + m->n, data, n);
    m->p = p;
    m->n += n;
    return 0;
}

static membuf write_partial(const pq_partial *p)
{
    membuf m = {NULL, 0};
    pq_sink sink = {mem_write, &m};
    pq_error err;
    assert_int_equal(pq_partial_write(p, &sink, &err), PQ_OK);
    return m;
}

static membuf render(const pq_partial *p, pq_output fmt)
{
    membuf m = {NULL, 0};
    pq_sink sink = {mem_write, &m};
    pq_error err;
    assert_int_equal(pq_partial_render(p, NULL, fmt, &sink, &err), PQ_OK);
    return m;
}

static pq_partial *ops_partial_of(const char *rel)
{
    const char *path = shared_path(rel);
    pq_profile *prof = NULL;
    pq_error err;
    assert_int_equal(pq_profile_open(&path, 1, NULL, &prof, &err), PQ_OK);
    pq_partial *p = NULL;
    assert_int_equal(pq_partial_ops(prof, &p, &err), PQ_OK);
    pq_profile_free(prof); /* the partial owns its strings */
    return p;
}

/* Every proper prefix of M: PQ_ERR_INPUT at an offset within the prefix, both as it is
 * (the header's body length says more) and with the header's length forged to the cut, so
 * that the body's own reader meets the end in every field. */
static void every_prefix_refused(const membuf *m)
{
    uint8_t *copy = malloc(m->n);
    assert_non_null(copy);
    for (size_t n = 0; n < m->n; n++) {
        for (int forged = 0; forged < 2; forged++) {
            memcpy(copy, m->p, n);
            if (forged && n < 24)
                continue;
            for (int i = 0; forged && i < 8; i++)
                copy[16 + i] = (uint8_t)((uint64_t)(n - 24) >> (8 * i));
            pq_partial *p = NULL;
            pq_error err;
            pq_status st = pq_partial_read(copy, n, "cut.part", &p, &err);
            assert_int_equal(st, PQ_ERR_INPUT);
            assert_null(p);
            assert_true(err.offset >= 0 && (size_t)err.offset <= n);
            assert_string_equal(err.path, "cut.part");
            assert_true(err.message[0] != 0);
        }
    }
    free(copy);
}

static void test_ops_truncations_and_roundtrip(void **state)
{
    (void)state;
    REQUIRE_SHARED();
    pq_partial *p = ops_partial_of("xplane/tpu_inference_2.xplane.pb");
    membuf m = write_partial(p);
    every_prefix_refused(&m);
    pq_partial *q = NULL;
    pq_error err;
    assert_int_equal(pq_partial_read(m.p, m.n, "whole.part", &q, &err), PQ_OK);
    assert_int_equal(pq_partial_kind_of(q), PQ_PARTIAL_OPS);
    membuf again = write_partial(q);
    assert_int_equal(again.n, m.n);
    assert_memory_equal(again.p, m.p, m.n);
    /* the header: a wrong magic at 0, a wrong version at 8, an unknown kind at 12 */
    const struct {
        size_t at;
        uint8_t byte;
        int64_t offset;
        const char *says;
    } bad[] = {{0, 'X', 0, "not a profq partial"},
               {8, 99, 8, "partial version 99: expected version 4"},
               {12, 77, 12, "unknown partial kind 77"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint8_t saved = m.p[bad[i].at];
        m.p[bad[i].at] = bad[i].byte;
        pq_partial *r = NULL;
        assert_int_equal(pq_partial_read(m.p, m.n, "bad.part", &r, &err), PQ_ERR_INPUT);
        assert_int_equal(err.offset, bad[i].offset);
        assert_non_null(strstr(err.message, bad[i].says));
        m.p[bad[i].at] = saved;
    }
    free(again.p);
    pq_partial_free(q);
    pq_partial_free(p);
    free(m.p);
}

static void test_merge_order_and_kinds(void **state)
{
    (void)state;
    REQUIRE_SHARED();
    pq_partial *a = ops_partial_of("xplane/mi300x8_jax_conv.xplane.pb");
    pq_partial *b = ops_partial_of("xplane/mi300x8_jax_conv_legacy/chi-mi300x-013.xplane.pb");
    membuf ma = write_partial(a), mb = write_partial(b);
    pq_partial *a2 = NULL, *b2 = NULL;
    pq_error err;
    assert_int_equal(pq_partial_read(ma.p, ma.n, "a", &a2, &err), PQ_OK);
    assert_int_equal(pq_partial_read(mb.p, mb.n, "b", &b2, &err), PQ_OK);
    assert_int_equal(pq_partial_merge(a, b, &err), PQ_OK);   /* a + b */
    assert_int_equal(pq_partial_merge(b2, a2, &err), PQ_OK); /* b + a */
    membuf ra = render(a, PQ_OUT_JSON), rb = render(b2, PQ_OUT_JSON);
    assert_int_equal(ra.n, rb.n);
    assert_memory_equal(ra.p, rb.p, ra.n);
    /* a scan partial does not merge into an ops partial */
    const char *path = shared_path("xplane/mi300x8_jax_conv.xplane.pb");
    pq_profile *prof = NULL;
    pq_scan_totals t;
    pq_open_options o = {0};
    o.scan = &t;
    assert_int_equal(pq_profile_open(&path, 1, &o, &prof, &err), PQ_OK);
    pq_partial *s = NULL;
    assert_int_equal(pq_partial_scan(prof, &t, &s, &err), PQ_OK);
    assert_int_equal(pq_partial_merge(a, s, &err), PQ_ERR_INPUT);
    membuf ms = write_partial(s);
    every_prefix_refused(&ms);
    pq_profile_free(prof);
    pq_partial_free(s);
    free(ms.p);
    free(ra.p);
    free(rb.p);
    free(ma.p);
    free(mb.p);
    pq_partial_free(a);
    pq_partial_free(b);
    pq_partial_free(a2);
    pq_partial_free(b2);
}

static membuf render_profile(const pq_profile *prof, int memory_profile, pq_output fmt)
{
    membuf m = {NULL, 0};
    pq_sink sink = {mem_write, &m};
    pq_error err;
    assert_int_equal(memory_profile ? pq_render_memory_profile(prof, fmt, &sink, &err)
                                    : pq_render_info(prof, fmt, &sink, &err),
                     PQ_OK);
    return m;
}

static void assert_same(membuf x, membuf y)
{
    assert_int_equal(x.n, y.n);
    assert_memory_equal(x.p, y.p, x.n);
    free(x.p);
    free(y.p);
}

static void open_three(const char *paths[2], pq_profile *p[3])
{
    pq_error err;
    assert_int_equal(pq_profile_open(paths, 2, NULL, &p[0], &err), PQ_OK);
    assert_int_equal(pq_profile_open(paths, 1, NULL, &p[1], &err), PQ_OK);
    assert_int_equal(pq_profile_open(paths + 1, 1, NULL, &p[2], &err), PQ_OK);
}

static void test_sections(void **state)
{
    (void)state;
    REQUIRE_SHARED();
    const char *paths[2] = {
        shared_path("trace-json/hta__cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"),
        shared_path("xplane/tpu_inference_2.xplane.pb")};
    pq_profile *p[3]; /* both paths, the first, the second */
    open_three(paths, p);
    pq_profile *both = p[0], *one = p[1], *two = p[2];
    pq_error err;
    for (int mp = 0; mp < 2; mp++) {
        pq_status (*make)(const pq_profile *, pq_partial **, pq_error *) =
            mp ? pq_partial_memory_profile : pq_partial_info;
        pq_partial *a = NULL, *b = NULL, *b2 = NULL, *a2 = NULL;
        assert_int_equal(make(one, &a, &err), PQ_OK);
        assert_int_equal(make(two, &b, &err), PQ_OK);
        assert_int_equal(pq_partial_kind_of(a), mp ? PQ_PARTIAL_MEMORY_PROFILE : PQ_PARTIAL_INFO);
        membuf ma = write_partial(a), mb = write_partial(b);
        if (!mp)
            every_prefix_refused(&ma);
        assert_same(render(a, PQ_OUT_TEXT), render_profile(one, mp, PQ_OUT_TEXT));
        assert_int_equal(pq_partial_read(ma.p, ma.n, "a", &a2, &err), PQ_OK);
        assert_int_equal(pq_partial_read(mb.p, mb.n, "b", &b2, &err), PQ_OK);
        if (mp) /* XProf's memory_profile of one XSpace */
            assert_same(render(b2, PQ_OUT_XPROF), render_profile(two, 1, PQ_OUT_XPROF));
        else
            assert_int_equal(pq_partial_render(b2, NULL, PQ_OUT_XPROF, NULL, &err), PQ_ERR_USAGE);
        assert_int_equal(pq_partial_merge(a, b, &err), PQ_OK);   /* a + b */
        assert_int_equal(pq_partial_merge(b2, a2, &err), PQ_OK); /* b + a */
        for (pq_output f = PQ_OUT_TEXT; f <= PQ_OUT_JSON; f++) {
            assert_same(render(a, f), render_profile(both, mp, f));
            assert_same(render(b2, f), render_profile(both, mp, f));
        }
        assert_int_equal(pq_partial_render(a, NULL, PQ_OUT_XPROF, NULL, &err), PQ_ERR_USAGE);
        assert_int_equal(pq_partial_merge(a, a, &err), PQ_OK); /* into itself: each twice */
        assert_int_equal(pq_partial_merge(b2, b2, &err), PQ_OK);
        assert_same(render(a, PQ_OUT_JSON), render(b2, PQ_OUT_JSON));
        free(ma.p);
        free(mb.p);
        pq_partial_free(a);
        pq_partial_free(b);
        pq_partial_free(a2);
        pq_partial_free(b2);
    }
    pq_profile_free(both);
    pq_profile_free(one);
    pq_profile_free(two);
}

static membuf render_memory(const pq_profile *prof, pq_output fmt)
{
    membuf m = {NULL, 0};
    pq_sink sink = {mem_write, &m};
    pq_error err;
    pq_memory_options o = {0};
    assert_int_equal(pq_render_memory(prof, &o, fmt, &sink, &err), PQ_OK);
    return m;
}

static void test_memory(void **state)
{
    (void)state;
    REQUIRE_SHARED();
    const char *paths[2] = {shared_path("xplane/mi300_jax08_attention.xplane.pb"),
                            shared_path("xplane/tpu_inference_2.xplane.pb")};
    pq_profile *p[3]; /* both paths, the first, the second */
    open_three(paths, p);
    pq_profile *both = p[0], *one = p[1], *two = p[2];
    pq_error err;
    pq_memory_options o = {0};
    pq_partial *a = NULL, *b = NULL, *a2 = NULL, *b2 = NULL, *other = NULL;
    assert_int_equal(pq_partial_memory(one, &o, &a, &err), PQ_OK);
    assert_int_equal(pq_partial_memory(two, &o, &b, &err), PQ_OK);
    membuf ma = write_partial(a), mb = write_partial(b);
    every_prefix_refused(&mb);
    assert_int_equal(pq_partial_read(ma.p, ma.n, "a", &a2, &err), PQ_OK);
    assert_int_equal(pq_partial_read(mb.p, mb.n, "b", &b2, &err), PQ_OK);
    assert_int_equal(pq_partial_merge(a, b, &err), PQ_OK);   /* a + b */
    assert_int_equal(pq_partial_merge(b2, a2, &err), PQ_OK); /* b + a */
    const pq_output fmts[] = {PQ_OUT_TEXT, PQ_OUT_JSON, PQ_OUT_TSV, PQ_OUT_MD};
    for (size_t f = 0; f < sizeof fmts / sizeof fmts[0]; f++) {
        assert_same(render(a, fmts[f]), render_memory(both, fmts[f]));
        assert_same(render(b2, fmts[f]), render_memory(both, fmts[f]));
    }
    o.module_prefix = "jit_f";
    assert_int_equal(pq_partial_memory(two, &o, &other, &err), PQ_OK);
    assert_int_equal(pq_partial_merge(a, other, &err), PQ_ERR_INPUT);
    free(ma.p);
    free(mb.p);
    pq_partial_free(a);
    pq_partial_free(b);
    pq_partial_free(a2);
    pq_partial_free(b2);
    pq_partial_free(other);
    pq_profile_free(both);
    pq_profile_free(one);
    pq_profile_free(two);
}

/* XProf's view O of the merge of the partials of P[1] and P[2] (in ORDER) equals one
 * profile P[0]'s. */
static void assert_xprof_merge(pq_profile *p[3], int roofline, const pq_ops_options *o, int order)
{
    pq_error err;
    pq_partial *a = NULL, *b = NULL;
    assert_int_equal(pq_partial_ops_xprof(p[1 + order], roofline, &a, &err), PQ_OK);
    assert_int_equal(pq_partial_ops_xprof(p[2 - order], roofline, &b, &err), PQ_OK);
    assert_int_equal(pq_partial_merge(a, b, &err), PQ_OK);
    membuf one = {NULL, 0}, merged = {NULL, 0};
    pq_sink s1 = {mem_write, &one}, s2 = {mem_write, &merged};
    assert_int_equal(roofline ? pq_render_roofline(p[0], o, PQ_OUT_TEXT, &s1, &err)
                              : pq_render_ops(p[0], o, PQ_OUT_TEXT, &s1, &err),
                     PQ_OK);
    assert_int_equal(pq_partial_render(a, o, PQ_OUT_TEXT, &s2, &err), PQ_OK);
    assert_true(one.n > 100);
    assert_same(one, merged);
    /* profq's own formats are not rendered from XProf's partial */
    membuf none = {NULL, 0};
    pq_sink s3 = {mem_write, &none};
    assert_int_equal(pq_partial_render(a, NULL, PQ_OUT_JSON, &s3, &err), PQ_ERR_USAGE);
    free(none.p);
    pq_partial_free(a);
    pq_partial_free(b);
}

static void test_ops_xprof(void **state)
{
    (void)state;
    REQUIRE_SHARED();
    const char *tpu = shared_path("xplane/tpu_inference_2.xplane.pb");
    pq_profile *prof = NULL;
    pq_error err;
    assert_int_equal(pq_profile_open(&tpu, 1, NULL, &prof, &err), PQ_OK);
    pq_partial *t = NULL;
    assert_int_equal(pq_partial_ops_xprof(prof, 0, &t, &err), PQ_OK);
    pq_profile_free(prof);
    membuf m = write_partial(t);
    every_prefix_refused(&m);
    free(m.p);
    pq_partial_free(t);
    char *a = strdup(shared_path("xplane/mi300x8_jax_conv.xplane.pb"));
    char *b = strdup(shared_path("xplane/mi300x8_jax_conv_legacy/chi-mi300x-013.xplane.pb"));
    const char *paths[2] = {a, b};
    pq_profile *p[3];
    open_three(paths, p);
    const pq_ops_options views[] = {{.xprof = PQ_OPS_HLO_STATS},
                                    {.xprof = PQ_OPS_OP_PROFILE, .by = PQ_OPS_BY_PROGRAM},
                                    {.xprof = PQ_OPS_OP_PROFILE, .by = PQ_OPS_BY_PROVENANCE}};
    for (int order = 0; order < 2; order++) {
        for (size_t i = 0; i < sizeof views / sizeof views[0]; i++)
            assert_xprof_merge(p, 0, &views[i], order);
        const pq_ops_options roof = {.xprof = PQ_OPS_ROOFLINE_MODEL};
        assert_xprof_merge(p, 1, &roof, order);
    }
    for (int i = 0; i < 3; i++)
        pq_profile_free(p[i]);
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ops_truncations_and_roundtrip),
        cmocka_unit_test(test_merge_order_and_kinds),
        cmocka_unit_test(test_sections),
        cmocka_unit_test(test_memory),
        cmocka_unit_test(test_ops_xprof),
    };
    return tu_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
