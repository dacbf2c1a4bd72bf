/* test_ops_steps_tpu.c - TPU steps from device "Steps" lines (src/analysis/ops_steps_tpu.c)
 * on XSpaces synthesized with testutil.h: two TensorCore planes whose "XLA Ops" events and
 * "Steps" events carry group_ids; a plane keeps the groups it has both for, a core's step
 * total is max(its ops' self time, the step time), a step's Program record sums its own
 * ops, the Average sums every step's; without step lines nothing changes. The counts a
 * partial carries make the same records over a table of the rows in another order. Several
 * XSpaces: the hosts' steps merged in path order and intersected as XProf's StepIntersection
 * (step i: the sum of each host's aligned step, numbered 0..n-1). */
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
    assert_int_equal(ops_steps_tpu_records(&c, &st, 1), 1);
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

/* Host PATH's steps: N steps of GROUP0 + i at BEGIN + 10000 i lasting LEN ps, each with
 * one count of fusion.1 (I + 1 occurrences, time 1000 (i + 1)) and total 100 (i + 1). */
static ops_tpu_steps host_steps(const char *path, int64_t group0, int64_t begin, size_t n,
                                int64_t len)
{
    ops_tpu_steps h = {0};
    h.hosts = test_calloc(1, sizeof *h.hosts);
    h.steps = test_calloc(n, sizeof *h.steps);
    h.counts = test_calloc(n, sizeof *h.counts);
    h.hosts[0] = (ops_tpu_host){pq_str_of(path, strlen(path)), n};
    h.nhosts = 1;
    for (size_t i = 0; i < n; i++) {
        int64_t k = (int64_t)i + 1;
        h.steps[i] = (ops_tpu_step){group0 + (int64_t)i, begin + 10000 * (int64_t)i,
                                    begin + 10000 * (int64_t)i + len, 100 * k, 1};
        h.counts[i] = (ops_tpu_count){7, 3, pq_str_of("fusion.1", 8), k, 1000 * k, 1000 * k};
    }
    h.nsteps = h.ncounts = n;
    return h;
}

static void host_free(ops_tpu_steps *h)
{
    test_free(h->hosts);
    test_free(h->steps);
    test_free(h->counts);
}

static void test_tpu_hosts_intersect(void **state)
{
    (void)state;
    pq_ops_result r;
    tbuf b;
    pq_profile *p = compute(0, &b, &r); /* the rows of fusion.1, no steps */
    /* "b" (3 steps, groups 5..7) starts 10000 ps after "a" (groups 0..2): a's steps 1 and 2
     * overlap b's 0 and 1, so the intersection is 2 steps whatever the group ids */
    ops_tpu_steps a = host_steps("a", 0, 0, 3, 5000), hb = host_steps("b", 5, 10000, 3, 5000);
    ops_tpu_steps m = {0};
    arena ar;
    arena_init(&ar);
    assert_int_equal(ops_tpu_steps_merge(&m, &hb, &ar), 1);
    assert_int_equal(ops_tpu_steps_merge(&m, &a, &ar), 1);
    assert_int_equal(m.nhosts, 2);
    assert_true(pq_str_eq(m.hosts[0].path, "a")); /* path order */
    assert_int_equal(m.steps[0].group, 0);
    assert_int_equal(m.steps[3].group, 5);
    assert_int_equal(ops_steps_tpu_records(&r, &m, 2), 1);
    assert_int_equal(r.nsteps, 2);
    assert_int_equal(r.steps_empty_intersect, 0);
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(r.steps[i], (int64_t)i);
        /* a's step i + 1 (total 100 (i + 2)) and b's step i (100 (i + 1)) */
        assert_int_equal(r.step_rows[2 * i + 1].time_ps, 100 * (int64_t)(2 * i + 3));
    }
    assert_int_equal(r.step_rows[5].time_ps, 300 + 500);
    /* a host with host step markers leaves no TPU steps at all, whatever the others have */
    ops_tpu_steps un = {0}, keep = {0};
    un.unsupported = 1;
    assert_int_equal(ops_tpu_steps_merge(&keep, &a, &ar), 1);
    assert_int_equal(ops_tpu_steps_merge(&keep, &un, &ar), 1);
    assert_int_equal(keep.nhosts, 0);
    assert_int_equal(keep.unsupported, 1);
    assert_int_equal(ops_tpu_steps_merge(&keep, &hb, &ar), 1);
    assert_int_equal(keep.nhosts + keep.nsteps, 0);
    /* one XSpace: its own steps by group */
    pq_free(r.steps);
    pq_free(r.step_rows);
    r.steps = NULL;
    r.step_rows = NULL;
    assert_int_equal(ops_steps_tpu_records(&r, &hb, 1), 1);
    assert_int_equal(r.nsteps, 3);
    assert_int_equal(r.steps[2], 7);
    ops_tpu_steps_free(&m);
    arena_release(&ar);
    host_free(&a);
    host_free(&hb);
    ops_free(&r);
    pq_profile_free(p);
    tb_free(&b);
}

/* Hosts that each align with the chief's steps, at windows that do not meet: no steps,
 * the empty-intersection diagnostic (XProf's EmptyIntersect). */
static void test_tpu_hosts_empty(void **state)
{
    (void)state;
    pq_ops_result r;
    tbuf b;
    pq_profile *p = compute(0, &b, &r);
    /* the chief "c": 4 steps of 10000 ps, spanning 40000; "a" one step over all of them
     * (41000: equal overlaps, the first offset wins: c's step 0); "b" one step from 29000
     * (its best overlap: c's step 3) */
    ops_tpu_steps c = host_steps("c", 0, 0, 4, 10000), ha = host_steps("a", 0, 0, 1, 41000);
    ops_tpu_steps hb = host_steps("b", 0, 29000, 1, 41000), m = {0};
    arena ar;
    arena_init(&ar);
    assert_int_equal(ops_tpu_steps_merge(&m, &c, &ar), 1);
    assert_int_equal(ops_tpu_steps_merge(&m, &hb, &ar), 1);
    assert_int_equal(ops_tpu_steps_merge(&m, &ha, &ar), 1);
    assert_int_equal(ops_steps_tpu_records(&r, &m, 3), 1);
    assert_int_equal(r.nsteps, 0);
    assert_null(r.step_rows);
    assert_int_equal(r.steps_empty_intersect, 1);
    ops_tpu_steps_free(&m);
    arena_release(&ar);
    host_free(&c);
    host_free(&ha);
    host_free(&hb);
    ops_free(&r);
    pq_profile_free(p);
    tb_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tpu_steps),          cmocka_unit_test(test_tpu_no_step_lines),
        cmocka_unit_test(test_tpu_counts_records), cmocka_unit_test(test_tpu_hosts_intersect),
        cmocka_unit_test(test_tpu_hosts_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
