/* test_ops_steps.c - step grouping of GPU XSpaces (src/analysis/ops_steps.c) on XSpaces
 * synthesized with testutil.h: "train" roots with `_r` on a /host:CPU line, kernel launches
 * nested in them and, through a producer/consumer pair, on another line; device kernels
 * joined by correlation id; XProf's well-formed steps (a device compute kernel, a marker of
 * positive length; first and last dropped past 5), the merge of consecutive same-op
 * same-group kernels under the first one's program, roofline_model's step rows, and the
 * rules profq does not cover leaving everything as without markers. */
#include "testutil.h"

#include "analysis/ops.h"
#include "model/model.h"

#include <string.h>

enum { S_R = 1, S_STEPNUM, S_CORR, S_PT, S_P, S_CT, S_C };      /* host stats */
enum { G_HLO_OP = 1, G_MODULE, G_CORR };                        /* device stats */
enum { E_TRAIN = 1, E_LAUNCH, E_PRODUCER, E_CONSUMER, E_EXEC }; /* host events */
enum { K_FUSION = 1, K_MEMCPY };                                /* device events */

enum { NSTEPS = 8 };

/* The XSpace: NSTEPS "train" roots (root stat _r when ROOTS) 10000 ps apart on host line 1,
 * each holding the launches of correlation ids 2i and 2i+1, except that root 0's second
 * launch is on line 2 under a consumer of a producer inside root 0. The device stream runs
 * kernel 2i (jit_a(1)) then 2i+1 (jit_b(2)), both hlo_op fusion.1; the last step's kernels
 * are named MemcpyHToD (no device compute). EXECUTOR adds an ExecutorState::Process event
 * (a TF executor's event: XProf 2.24.2 groups by the roots as without it). STRAY adds a fusion.1
 * kernel (jit_c(3)) without a launch between kernels 4 and 5. */
static void build(tbuf *b, int roots, int executor, int stray)
{
    tb_init(b);
    size_t pl = plane_begin(b, 1, "/host:CPU");
    put_stat_metas(b, S_R, "_r", "step_num", "correlation_id", "_pt", "_p", "_ct", "_c", NULL);
    put_emeta(b, E_TRAIN, "train");
    put_emeta(b, E_LAUNCH, "hipLaunchKernel");
    put_emeta(b, E_PRODUCER, "produce");
    put_emeta(b, E_CONSUMER, "consume");
    if (executor)
        put_emeta(b, E_EXEC, "ExecutorState::Process");
    size_t ln = line_begin(b, 1, "main");
    for (int i = 0; i < NSTEPS; i++) {
        int64_t t = (int64_t)i * 10000;
        size_t e = event_begin(b, E_TRAIN, t, 9000);
        if (roots)
            put_stat_i(b, 4, S_R, 1);
        put_stat_i(b, 4, S_STEPNUM, i);
        msg_end(b, e);
        e = event_begin(b, E_LAUNCH, t + 100, 100);
        put_stat_i(b, 4, S_CORR, 2 * i);
        msg_end(b, e);
        if (i == 0) {
            e = event_begin(b, E_PRODUCER, t + 300, 100);
            put_stat_i(b, 4, S_PT, 3);
            put_stat_i(b, 4, S_P, 77);
            msg_end(b, e);
        } else {
            e = event_begin(b, E_LAUNCH, t + 300, 100);
            put_stat_i(b, 4, S_CORR, 2 * i + 1);
            msg_end(b, e);
        }
    }
    if (executor)
        put_event(b, E_EXEC, 200000, 10);
    msg_end(b, ln);
    ln = line_begin(b, 2, "worker");
    size_t e = event_begin(b, E_CONSUMER, 500, 1000);
    put_stat_i(b, 4, S_CT, 3);
    put_stat_i(b, 4, S_C, 77);
    msg_end(b, e);
    e = event_begin(b, E_LAUNCH, 600, 100);
    put_stat_i(b, 4, S_CORR, 1);
    msg_end(b, e);
    msg_end(b, ln);
    msg_end(b, pl);

    pl = plane_begin(b, 2, "/device:GPU:0");
    put_stat_metas(b, G_HLO_OP, "hlo_op", "hlo_module", "correlation_id", NULL);
    put_emeta(b, K_FUSION, "fusion_kernel");
    put_emeta(b, K_MEMCPY, "MemcpyHToD");
    ln = line_begin(b, 16, "Stream #16(Kernel)");
    for (int k = 0; k < 2 * NSTEPS; k++) {
        e = event_begin(b, k / 2 == NSTEPS - 1 ? K_MEMCPY : K_FUSION, 2000 + (int64_t)k * 5000,
                        100 + k);
        put_stat_s(b, 4, G_HLO_OP, "fusion.1");
        put_stat_s(b, 4, G_MODULE, k % 2 ? "jit_b(2)" : "jit_a(1)");
        put_stat_i(b, 4, G_CORR, k);
        msg_end(b, e);
        if (stray && k == 4) { /* a kernel whose launch is not in the trace */
            e = event_begin(b, K_FUSION, 2000 + (int64_t)k * 5000 + 2000, 50);
            put_stat_s(b, 4, G_HLO_OP, "fusion.1");
            put_stat_s(b, 4, G_MODULE, "jit_c(3)");
            put_stat_i(b, 4, G_CORR, 999);
            msg_end(b, e);
        }
    }
    msg_end(b, ln);
    msg_end(b, pl);
}

/* The ops of B for XProf's tables (XPROF: device planes only, step grouping) or profq's
 * own reports. */
static pq_profile *compute(tbuf *b, int xprof, pq_ops_result *r)
{
    pq_profile *p = NULL;
    pq_error err;
    ops_options o = {0};
    o.device_only = xprof;
    assert_int_equal(pq_profile_open_memory(b->p, b->n, "t.xplane.pb", NULL, &p, &err), PQ_OK);
    assert_int_equal(ops_compute(p, &o, r, &err), PQ_OK);
    return p;
}

static const pq_op_row *find(const pq_ops_result *r, uint64_t pid)
{
    for (size_t i = 0; i < r->nops; i++)
        if (pq_str_eq(r->ops[i].name, "fusion.1") && r->ops[i].program_id == pid)
            return &r->ops[i];
    return NULL;
}

static int sink_write(void *ctx, const void *data, size_t n)
{
    put_bytes(ctx, data, n);
    return 0;
}

/* roofline_model as XProf's JSON into OUT (NUL-terminated). */
static void roofline(const pq_ops_result *r, tbuf *out)
{
    tb_init(out);
    pq_sink sink = {sink_write, out};
    pq_ops_options o = {0};
    o.xprof = PQ_OPS_ROOFLINE_MODEL;
    pq_error err;
    assert_int_equal(pq_ops_render(r, &o, PQ_OPS_VIEW_ROOFLINE, PQ_OUT_JSON, &sink, &err), PQ_OK);
    put_byte(out, 0);
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *s = hay; (s = strstr(s, needle)) != NULL; s++)
        n++;
    return n;
}

/* Groups 0..7 (root order); group 0 reaches its second kernel through the context pair;
 * group 7 has only memcpys: 7 well-formed steps, 0 and 6 dropped. Each step's two
 * fusion.1 kernels are one record under the first's program (jit_a, 1). The same with a TF
 * executor event (*STATE non-NULL). */
static void test_steps_and_merge(void **state)
{
    tbuf b;
    build(&b, 1, *state != NULL, 0);
    pq_ops_result r;
    pq_profile *p = compute(&b, 1, &r);
    assert_int_equal(r.nsteps, 5);
    for (size_t i = 0; i < r.nsteps; i++)
        assert_int_equal(r.steps[i], (int64_t)i + 1);
    const pq_op_row *a = find(&r, 1);
    assert_non_null(a);
    assert_null(find(&r, 2));
    assert_int_equal(a->occurrences, 2 * NSTEPS);
    int64_t t = 0;
    for (int k = 0; k < 2 * NSTEPS; k++)
        t += 100 + k;
    assert_int_equal(a->time_ps, t);
    tbuf out;
    roofline(&r, &out);
    const char *j = (const char *)out.p;
    assert_int_equal(count(j, "{\"v\":\"3\"},{\"v\":0.0},{\"v\":\"Program\"}"), 2);
    assert_int_equal(count(j, "{\"v\":\"0\"},{\"v\":0.0},{\"v\":\"Program\"}"), 0);
    assert_int_equal(count(j, "No step marker"), 0);
    tb_free(&out);
    ops_free(&r);
    pq_profile_free(p);
    tb_free(&b);
}

/* Without roots profq does not group, and in profq's own reports (not XProf's tables) it
 * does not either: no steps, one record per kernel program (nothing merged), the "no step
 * marker" diagnostic. */
static void test_no_groups(void **state)
{
    (void)state;
    for (int variant = 0; variant < 3; variant += 2) {
        tbuf b;
        build(&b, variant != 0, 0, 0);
        pq_ops_result r;
        pq_profile *p = compute(&b, variant != 2, &r);
        assert_int_equal(r.nsteps, 0);
        const pq_op_row *a = find(&r, 1), *c = find(&r, 2);
        assert_non_null(a);
        assert_non_null(c);
        assert_int_equal(a->occurrences, NSTEPS);
        assert_int_equal(c->occurrences, NSTEPS);
        tbuf out;
        roofline(&r, &out);
        assert_int_equal(count((const char *)out.p, "No step marker"), 1);
        tb_free(&out);
        ops_free(&r);
        pq_profile_free(p);
        tb_free(&b);
    }
}

/* XProf's ProcessUngroupedEvents: a kernel without a group takes the group of the kernel
 * before it (step 2's), so it joins that run of fusion.1 under jit_a(1); the steps stay. */
static void test_ungrouped_kernel(void **state)
{
    (void)state;
    tbuf b;
    build(&b, 1, 0, 1);
    pq_ops_result r;
    pq_profile *p = compute(&b, 1, &r);
    assert_int_equal(r.nsteps, 5);
    const pq_op_row *a = find(&r, 1);
    assert_non_null(a);
    assert_null(find(&r, 3));
    assert_int_equal(a->occurrences, 2 * NSTEPS + 1);
    ops_free(&r);
    pq_profile_free(p);
    /* profq's own reports keep it under its program */
    p = compute(&b, 0, &r);
    assert_non_null(find(&r, 3));
    ops_free(&r);
    pq_profile_free(p);
    tb_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_steps_and_merge),
        cmocka_unit_test_prestate(test_steps_and_merge, (void *)"executor"),
        cmocka_unit_test(test_no_groups),
        cmocka_unit_test(test_ungrouped_kernel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
