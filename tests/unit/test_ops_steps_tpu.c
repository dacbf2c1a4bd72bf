/* test_ops_steps_tpu.c - TPU steps from device "Steps" lines (src/analysis/ops_steps_tpu.c)
 * on XSpaces synthesized with testutil.h: two TensorCore planes whose "XLA Ops" events and
 * "Steps" events carry group_ids; a plane keeps the groups it has both for, a core's step
 * total is max(its ops' self time, the step time), a step's Program record sums its own
 * ops, the Average sums every step's; without step lines nothing changes. The counts a
 * partial carries make the same records over a table of the rows in another order. */
#include "testutil.h"

#include "analysis/ops.h"
#include "analysis/ops_steps.h"
#include "model/model.h"

#include <string.h>

enum { ST_PID = 1, ST_SID, ST_CAT, ST_FLOPS, ST_GROUP };
enum { E_FUSION = 1, E_STEP };

enum { NSTEPS = 3 };

/* Plane CORE: per step g, a fusion (1000 FLOPs) at 10000 g + 100 lasting 1000 ps (core 1,
 * step 1: 7000 ps, longer than the step), in group g; its "Steps" line (when STEPS) has a
 * 5000 ps marker per step, but core 1's lacks step 2's. */
static void core_plane(tbuf *b, int core, int steps)
{
    size_t pl = plane_begin(b, 2 + core, core ? "/device:TPU:1" : "/device:TPU:0");
    put_stat_metas(b, ST_PID, "program_id", "symbol_id", "hlo_category", "flops", "group_id", NULL);
    emeta_marks m = emeta_begin(b, E_FUSION, "fusion.1");
    put_stat_u(b, 5, ST_PID, 7);
    put_stat_u(b, 5, ST_SID, 3);
    put_stat_s(b, 5, ST_CAT, "loop fusion");
    put_stat_d(b, 5, ST_FLOPS, 1000.0);
    emeta_end(b, m);
    put_emeta(b, E_STEP, "step");
    size_t ln = line_begin(b, 1, "XLA Ops");
    for (int g = 0; g < NSTEPS; g++) {
        size_t e =
            event_begin(b, E_FUSION, (int64_t)g * 10000 + 100, core == 1 && g == 1 ? 7000 : 1000);
        put_stat_i(b, 4, ST_GROUP, g);
        msg_end(b, e);
    }
    msg_end(b, ln);
    if (steps) {
        ln = line_begin(b, 2, "Steps");
        for (int g = 0; g < NSTEPS - core; g++) {
            size_t e = event_begin(b, E_STEP, (int64_t)g * 10000, 5000);
            put_stat_i(b, 4, ST_GROUP, g);
            msg_end(b, e);
        }
        msg_end(b, ln);
    }
    msg_end(b, pl);
}

/* The ops of the two planes for XProf's tables; B holds the bytes the profile reads. */
static pq_profile *compute(int steps, tbuf *b, pq_ops_result *r)
{
    tb_init(b);
    core_plane(b, 0, steps);
    core_plane(b, 1, steps);
    pq_profile *p = NULL;
    pq_error err;
    ops_options o = {0};
    o.device_only = 1;
    assert_int_equal(pq_profile_open_memory(b->p, b->n, "t.xplane.pb", NULL, &p, &err), PQ_OK);
    assert_int_equal(ops_compute(p, &o, r, &err), PQ_OK);
    return p;
}

static void test_tpu_steps(void **state)
{
    (void)state;
    pq_ops_result r;
    tbuf b;
    pq_profile *p = compute(1, &b, &r);
    assert_int_equal(r.hw, PQ_OPS_HW_TPU);
    assert_int_equal(r.nsteps, NSTEPS);
    assert_non_null(r.step_rows);
    /* step 0: both cores, 5000 each; step 1: core 1's op self time 7000 wins; step 2: core 0 */
    static const int64_t total[NSTEPS] = {10000, 12000, 5000};
    static const double flops[NSTEPS] = {2000, 2000, 1000};
    int64_t all = 0;
    for (size_t i = 0; i < NSTEPS; i++) {
        assert_int_equal(r.steps[i], (int64_t)i);
        for (int incl = 0; incl <= 1; incl++) {
            const pq_op_row *m = &r.step_rows[2 * i + (size_t)incl];
            assert_int_equal(m->time_ps, total[i]);
            assert_true(m->flops == flops[i]);
        }
        all += total[i];
    }
    assert_int_equal(r.step_rows[2 * NSTEPS + 1].time_ps, all);
    assert_true(r.step_rows[2 * NSTEPS + 1].flops == 5000);
    ops_free(&r);
    pq_profile_free(p);
    tb_free(&b);
}

static void test_tpu_no_step_lines(void **state)
{
    (void)state;
    pq_ops_result r;
    tbuf b;
    pq_profile *p = compute(0, &b, &r);
    assert_int_equal(r.nsteps, 0);
    assert_null(r.step_rows);
    ops_free(&r);
    pq_profile_free(p);
    tb_free(&b);
}

static void test_tpu_counts_records(void **state)
{
    (void)state;
    pq_ops_result r;
    tbuf b;
    pq_profile *p = compute(1, &b, &r);
    ops_tpu_steps st;
    assert_int_equal(ops_steps_tpu_counts(p, &r, &st), 1);
    assert_int_equal(st.nsteps, NSTEPS);
    assert_int_equal(st.steps[1].group, 1);
    assert_int_equal(st.steps[1].total_ps, 12000);
    assert_int_equal(st.steps[1].ncounts, 1); /* fusion.1, on both cores */
    assert_int_equal(st.counts[1].occurrences, 2);
    assert_int_equal(st.counts[1].time_ps, 8000);
    assert_int_equal(st.counts[2].occurrences, 1); /* step 2: core 1 has no marker */
    /* the rows in reverse order (IDLE first): found by key */
    pq_ops_result c = r;
    c.ops = test_malloc(r.nops * sizeof *c.ops);
    for (size_t i = 0; i < r.nops; i++)
        c.ops[i] = r.ops[r.nops - 1 - i];
    c.steps = NULL;
    c.step_rows = NULL;
    c.nsteps = 0;
    assert_int_equal(ops_steps_tpu_records(&c, &st), 1);
    assert_int_equal(c.nsteps, NSTEPS);
    for (size_t k = 0; k < 2 * NSTEPS + 2; k++) {
        assert_int_equal(c.step_rows[k].time_ps, r.step_rows[k].time_ps);
        assert_true(c.step_rows[k].flops == r.step_rows[k].flops);
        assert_true(c.step_rows[k].rates.flop_rate_gflops == r.step_rows[k].rates.flop_rate_gflops);
    }
    for (size_t i = 0; i < NSTEPS; i++)
        assert_int_equal(c.steps[i], r.steps[i]);
    pq_free(c.steps);
    pq_free(c.step_rows);
    test_free(c.ops);
    ops_tpu_steps_free(&st);
    ops_free(&r);
    pq_profile_free(p);
    tb_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tpu_steps),
        cmocka_unit_test(test_tpu_no_step_lines),
        cmocka_unit_test(test_tpu_counts_records),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
