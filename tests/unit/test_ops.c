/* test_ops.c - op metrics (src/analysis/ops.c) on XSpaces synthesized with testutil.h:
 * TPU nesting and self time, the (program_id, symbol_id) key and dropped events, FLOPs and
 * breakdown bytes times occurrences, IDLE and total time, bound-by against plane peaks, and
 * GPU kernels keyed by hlo_module/hlo_op, XLA:CPU thunks nested on a host thread. Field numbers:
 * spec/xprof-tools.md section 1. */
#include "testutil.h"

#include "analysis/ops.h"
#include "model/model.h"

#include <math.h>

enum { ST_PID = 1, ST_SID, ST_CAT, ST_FLOPS, ST_BYTES, ST_PEAKF, ST_PEAKB, ST_HLO_OP, ST_MODULE };

/* TPU event metadata: id, name, program 7, symbol SYM, category, flops, bytes. */
static void tpu_meta(tbuf *b, int64_t id, const char *name, uint64_t sym, const char *cat,
                     double flops, double bytes)
{
    emeta_marks m = emeta_begin(b, id, name);
    put_stat_u(b, 5, ST_PID, 7);
    if (sym)
        put_stat_u(b, 5, ST_SID, sym);
    put_stat_s(b, 5, ST_CAT, cat);
    put_stat_d(b, 5, ST_FLOPS, flops);
    put_stat_d(b, 5, ST_BYTES, bytes);
    emeta_end(b, m);
}

/* Opens a TPU plane with the stats the tests use and peaks of 100 TFLOP/s (1e5 GFLOP/s) and
 * 1000 GB/s; returns its mark. */
static size_t tpu_plane_begin(tbuf *b)
{
    size_t pl = plane_begin(b, 2, "/device:TPU:0");
    put_stat_metas(b, ST_PID, "program_id", "symbol_id", "hlo_category", "flops", "bytes_accessed",
                   "peak_teraflops_per_second", "peak_hbm_bw_gigabytes_per_second", NULL);
    put_stat_d(b, 6, ST_PEAKF, 100.0);
    put_stat_d(b, 6, ST_PEAKB, 1000.0);
    return pl;
}

/* Closes the line LN and the plane PL of B, loads the XSpace and computes its ops into R
 * (which must succeed). */
static pq_profile *load_ops(tbuf *b, size_t ln, size_t pl, pq_ops_result *r)
{
    msg_end(b, ln);
    msg_end(b, pl);
    pq_profile *p = NULL;
    pq_error err;
    assert_int_equal(pq_profile_open_memory(b->p, b->n, "t.xplane.pb", NULL, &p, &err), PQ_OK);
    assert_int_equal(ops_compute(p, NULL, r, &err), PQ_OK);
    return p;
}

static const pq_op_row *find(const pq_ops_result *r, const char *name)
{
    for (size_t i = 0; i < r->nops; i++)
        if (pq_str_eq(r->ops[i].name, name))
            return &r->ops[i];
    return NULL;
}

static void test_tpu_nesting_and_totals(void **state)
{
    (void)state;
    tbuf b;
    tb_init(&b);
    size_t pl = tpu_plane_begin(&b);
    tpu_meta(&b, 1, "fusion.1", 11, "loop fusion", 1e3, 1e3);
    tpu_meta(&b, 2, "convolution.2", 12, "convolution", 4e9, 1e6);
    tpu_meta(&b, 3, "no-symbol", 0, "copy", 0, 0);
    put_emeta(&b, 9, "jit_f(7)"); /* a module: program id from the "(7)" suffix */
    size_t ml = line_begin(&b, 2, "XLA Modules");
    put_varint_field(&b, 3, 1);
    put_event(&b, 9, 0, 1000);
    put_event(&b, 9, 2000, 600);
    msg_end(&b, ml);
    size_t ln = line_begin(&b, 3, "XLA Ops");
    put_varint_field(&b, 3, 1); /* timestamp 1 ns */
    /* fusion [0,1000) contains convolution [100,400); then fusion again [2000,2500);
     * a dropped event [3000,9000) with symbol 0 still extends the span. */
    put_event(&b, 1, 0, 1000);
    put_event(&b, 2, 100, 300);
    put_event(&b, 1, 2000, 500);
    put_event(&b, 3, 3000, 6000);
    pq_ops_result r;
    pq_profile *p = load_ops(&b, ln, pl, &r);
    assert_int_equal(r.hw, PQ_OPS_HW_TPU);
    assert_int_equal(r.nops, 3); /* fusion, convolution, IDLE */
    const pq_op_row *f = find(&r, "fusion.1"), *c = find(&r, "convolution.2");
    assert_non_null(f);
    assert_non_null(c);
    assert_int_equal(f->occurrences, 2);
    assert_int_equal(f->time_ps, 1500);
    assert_int_equal(f->self_time_ps, 1200);
    assert_int_equal(c->self_time_ps, 300);
    assert_true(f->flops == 2e3 && f->bytes_accessed == 2e3); /* times occurrences */
    assert_true(c->flops == 4e9);
    assert_int_equal(r.total_op_time_ps, 1500);
    assert_int_equal(r.total_time_ps, 9000);
    assert_int_equal(r.idle_ps, 7500);
    assert_true(r.ops[r.nops - 1].is_idle);
    /* two executions of jit_f on one device: the first is warm-up */
    assert_int_equal(r.module_ps, 1600);
    assert_true(r.has_dominant && r.dominant_program == 7);
    assert_int_equal(r.programs[0].executions, 2);
    assert_int_equal(r.programs[0].steady_executions, 1);
    assert_int_equal(r.steady_window_ps, 600);
    assert_true(pq_str_eq(r.programs[0].name, "jit_f"));
    /* rows by self time: fusion (1200) before convolution (300) */
    assert_true(pq_str_eq(r.ops[0].name, "fusion.1"));
    /* program rates over module time (1600 ps) and the window (9000 ps), in the result */
    const pq_ops_program *pg = &r.programs[0];
    assert_true(pg->flops > 4e9);
    assert_true(fabs(pg->active_gflops - pg->flops / 1.6) < 1e-3);
    assert_true(fabs(pg->whole_gflops - pg->flops / 9.0) < 1e-3);
    /* steady state: one of two executions kept, over its 600 ps */
    assert_true(fabs(r.steady_gflops - pg->flops * 0.5 / 0.6) < 1e-3);
    pq_op_rates o;
    ops_rates(&r, c, &o); /* 4e9 FLOP in 0.3 ns: far above 1e5 GFLOP/s */
    assert_string_equal(o.bound_by, "Compute");
    ops_rates(&r, f, &o); /* 2e3/1.5 GFLOP/s = 1.3% of peak; 2e3 B/1.5 ns = 133% of HBM */
    assert_string_equal(o.bound_by, "HBM");
    /* the result carries the same rates on every row */
    assert_string_equal(f->rates.bound_by, "HBM");
    assert_true(f->rates.hbm_bw_gibps == o.hbm_bw_gibps);
    ops_free(&r);
    /* --peak-flops overrides the plane, through the public API */
    pq_ops_options po = {.peak_tflops = 1e9, .by = PQ_OPS_BY_CATEGORY};
    pq_error err;
    pq_ops_result pr;
    assert_int_equal(pq_ops_compute(p, &po, &pr, &err), PQ_OK);
    assert_true(pr.peaks.tflops == 1e9 && pr.peaks.user_flops);
    /* --by category: one group per category, IDLE left out, sorted by self time */
    assert_int_equal(pr.by, PQ_OPS_BY_CATEGORY);
    assert_true(pr.ngroups >= 2);
    int64_t grouped = 0;
    for (size_t i = 0; i < pr.ngroups; i++) {
        assert_false(pr.groups[i].is_idle);
        if (i > 0)
            assert_true(pr.groups[i - 1].self_time_ps >= pr.groups[i].self_time_ps);
        grouped += pr.groups[i].self_time_ps;
    }
    assert_true(grouped == pr.total_op_time_ps);
    /* rendering for another grouping is refused, not silently regrouped */
    po.by = PQ_OPS_BY_PROGRAM;
    pq_sink null_sink = {0};
    assert_int_equal(pq_ops_render(&pr, &po, PQ_OPS_VIEW_OPS, PQ_OUT_TEXT, &null_sink, &err),
                     PQ_ERR_USAGE);
    pq_ops_result_free(&pr);
    pq_profile_free(p);
    tb_free(&b);
}

static void test_gpu_kernels(void **state)
{
    (void)state;
    tbuf b;
    tb_init(&b);
    size_t pl = plane_begin(&b, 0, "/device:GPU:0");
    put_stat_metas(&b, ST_HLO_OP, "hlo_op", "hlo_module", NULL);
    for (int k = 1; k <= 2; k++)
        put_emeta(&b, k, k == 1 ? "kernel_a" : "memcpy");
    size_t ln = line_begin(&b, 16, "Stream #16(Kernel)");
    for (int i = 0; i < 3; i++) {
        size_t e = event_begin(&b, 1, i * 1000, 100);
        put_stat_s(&b, 4, ST_HLO_OP, "fusion.3");
        put_stat_s(&b, 4, ST_MODULE, "jit_f(42)");
        msg_end(&b, e);
    }
    put_event(&b, 2, 5000, 50); /* no hlo_op: not an XLA op */
    pq_ops_result r;
    pq_profile *p = load_ops(&b, ln, pl, &r);
    assert_int_equal(r.hw, PQ_OPS_HW_GPU);
    assert_int_equal(r.nops, 2);
    const pq_op_row *f = find(&r, "fusion.3");
    assert_non_null(f);
    assert_true(f->program_id == 42);
    assert_int_equal(f->occurrences, 3);
    assert_int_equal(f->self_time_ps, 300);
    assert_int_equal(r.total_time_ps, 5050);
    assert_true(r.peaks.tflops == 0); /* not stated: unknown, never guessed */
    assert_int_equal(r.nprograms, 1);
    assert_true(pq_str_eq(r.programs[0].name, "jit_f"));
    ops_free(&r);
    pq_profile_free(p);
    tb_free(&b);
}

/* GPU peaks the plane does not state come from its core count x clock x the architecture's
 * per-core rates (XProf's tables): an MI300X (gfx942, compute capability 9.4) with 304 CUs
 * at 2.1 GHz does 2048 FLOP and 128 LDS bytes per CU per cycle. Without a core count the
 * peak stays unknown. */
static void test_gpu_peaks(void **state)
{
    (void)state;
    for (int with_cores = 1; with_cores >= 0; with_cores--) {
        tbuf b;
        tb_init(&b);
        size_t pl = plane_begin(&b, 0, "/device:GPU:0");
        put_stat_metas(&b, 20, "core_count", "clock_rate", "device_vendor", "compute_cap_major",
                       "compute_cap_minor", "memory_bandwidth", NULL);
        if (with_cores)
            put_stat_u(&b, 6, 20, 304);
        put_stat_u(&b, 6, 21, 2100000);
        put_stat_s(&b, 6, 22, "AMD");
        put_stat_u(&b, 6, 23, 9);
        put_stat_u(&b, 6, 24, 4);
        put_stat_u(&b, 6, 25, 2662400000000ull);
        put_stat_meta(&b, ST_HLO_OP, "hlo_op");
        size_t ln = line_begin(&b, 16, "Stream #16(Kernel)");
        size_t e = event_begin(&b, 1, 0, 100);
        put_stat_s(&b, 4, ST_HLO_OP, "fusion.3");
        msg_end(&b, e);
        pq_ops_result r;
        pq_profile *p = load_ops(&b, ln, pl, &r);
        assert_true(fabs(r.peaks.bws[0] - 2662.4) < 1e-9);
        if (with_cores) {
            assert_true(fabs(r.peaks.tflops - 304 * 2.1 * 2048 / 1000) < 1e-9);
            assert_true(fabs(r.peaks.bws[2] - 304 * 128 * 2.1) < 1e-9);
            assert_true(r.peaks.derived_flops && r.peaks.derived_sram);
        } else {
            assert_true(r.peaks.tflops == 0 && r.peaks.bws[2] == 0);
        }
        assert_string_equal(r.gpu_model, "AMD GPU - gfx942");
        ops_free(&r);
        pq_profile_free(p);
        tb_free(&b);
    }
}

/* XLA:CPU thunks on a host thread: a while thunk around two body thunks, keyed by
 * (program_id, hlo_op); self time of the while excludes its body. */
static void test_cpu_thunks(void **state)
{
    (void)state;
    tbuf b;
    tb_init(&b);
    size_t pl = plane_begin(&b, 0, "/host:CPU");
    put_stat_metas(&b, ST_HLO_OP, "hlo_op", "hlo_module", NULL);
    put_stat_meta(&b, ST_PID, "program_id");
    put_emeta(&b, 1, "thunk");
    size_t ln = line_begin(&b, 99, "tf_XLAPjRtCpuClient/99");
    static const struct {
        int64_t off, dur;
        const char *op;
    } evs[] = {
        {0, 1000, "while.1"}, {100, 200, "dot.2"}, {400, 300, "dot.2"}, {5000, 100, "add.3"}};
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++) {
        size_t x = event_begin(&b, 1, evs[i].off, evs[i].dur);
        put_stat_s(&b, 4, ST_HLO_OP, evs[i].op);
        put_stat_s(&b, 4, ST_MODULE, "jit_step");
        put_stat_u(&b, 4, ST_PID, 5);
        msg_end(&b, x);
    }
    pq_ops_result r;
    pq_profile *p = load_ops(&b, ln, pl, &r);
    assert_int_equal(r.hw, PQ_OPS_HW_CPU);
    const pq_op_row *w = find(&r, "while.1"), *d = find(&r, "dot.2");
    assert_non_null(w);
    assert_non_null(d);
    assert_int_equal(w->self_time_ps, 500);
    assert_int_equal(d->occurrences, 2);
    assert_int_equal(d->self_time_ps, 500);
    assert_true(d->program_id == 5);
    assert_int_equal(r.total_op_time_ps, 1100);
    assert_int_equal(r.total_time_ps, 5100);
    assert_int_equal(r.busy_ps, 1100);
    assert_true(pq_str_eq(r.programs[0].name, "jit_step"));
    ops_free(&r);
    pq_profile_free(p);
    tb_free(&b);
}

static int tb_sink_write(void *ctx, const void *data, size_t n)
{
    put_bytes(ctx, data, n);
    return 0;
}

/* Renders R as VIEW and FMT into a NUL-terminated buffer OUT (freed by the caller). */
static void render_to(const pq_ops_result *r, const pq_ops_options *o, pq_ops_view view,
                      pq_output fmt, tbuf *out)
{
    tb_init(out);
    pq_sink sink = {tb_sink_write, out};
    pq_error err;
    assert_int_equal(pq_ops_render(r, o, view, fmt, &sink, &err), PQ_OK);
    put_byte(out, 0);
}

/* Issue 16 item 7: the bytes of an async copy over the start op's tiny self time gave
 * 8.3e+08 GiB/s; profq's reports print n/a with the reason instead (XProf's numbers stay in
 * the rates for --format xprof). */
static void test_async_copy_rates(void **state)
{
    (void)state;
    tbuf b;
    tb_init(&b);
    size_t pl = tpu_plane_begin(&b);
    tpu_meta(&b, 1, "fusion.1", 11, "loop fusion", 1e3, 1e3);
    tpu_meta(&b, 2, "copy-start.1", 12, "copy-start", 0, 4e9);
    tpu_meta(&b, 3, "copy-done.1", 13, "copy-done", 0, 4e9);
    size_t ln = line_begin(&b, 3, "XLA Ops");
    put_varint_field(&b, 3, 1);
    put_event(&b, 1, 0, 1000);
    put_event(&b, 2, 1000, 1); /* 4 GB in 1 ps */
    put_event(&b, 3, 5000, 2);
    pq_ops_result r;
    pq_profile *p = load_ops(&b, ln, pl, &r);
    const pq_op_row *f = find(&r, "fusion.1"), *cs = find(&r, "copy-start.1"),
                    *cd = find(&r, "copy-done.1");
    assert_non_null(f);
    assert_non_null(cs);
    assert_non_null(cd);
    assert_null(f->rates.not_meaningful);
    assert_non_null(cs->rates.not_meaningful);
    assert_non_null(cd->rates.not_meaningful);
    assert_true(cs->rates.hbm_bw_gibps > 1e9); /* XProf's figure, kept for its tables */
    pq_ops_options o = {0};
    tbuf t;
    render_to(&r, &o, PQ_OPS_VIEW_OPS, PQ_OUT_TEXT, &t);
    const char *line = strstr((const char *)t.p, "copy-start.1");
    assert_non_null(line);
    const char *end = strchr(line, '\n');
    assert_non_null(end);
    assert_null(memchr(line, '+', (size_t)(end - line))); /* no 1e+09 */
    assert_non_null(strstr(line, "n/a (async)"));
    assert_non_null(strstr((const char *)t.p, "n/a (async): the start or done half"));
    tb_free(&t);
    render_to(&r, &o, PQ_OPS_VIEW_ROOFLINE, PQ_OUT_JSON, &t);
    assert_non_null(strstr((const char *)t.p, "\"rates_not_meaningful\""));
    assert_null(strstr((const char *)t.p, "e+09"));
    tb_free(&t);
    ops_free(&r);
    pq_profile_free(p);
    tb_free(&b);
}

/* Counts the lines of TEXT that start with a rank ("%4d "). */
static int ranked_lines(const char *text)
{
    int n = 0;
    for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
        int k = 0;
        while (k < 4 && (l[k] == ' ' || (l[k] >= '0' && l[k] <= '9')))
            k++;
        if (k == 4 && l[3] >= '0' && l[3] <= '9' && l[4] == ' ')
            n++;
    }
    return n;
}

/* Issue 16 item 12: GPU programs (no module events) printed execs 0 beside non-zero module
 * time and "in modules 0.000 ms"; --top N printed N + 1 rows (IDLE ranked, its cum% stuck);
 * two programs of one name gave identical op rows; --top did not limit the programs. */
static void test_gpu_programs_and_top(void **state)
{
    (void)state;
    tbuf b;
    tb_init(&b);
    size_t pl = plane_begin(&b, 0, "/device:GPU:0");
    put_stat_metas(&b, ST_HLO_OP, "hlo_op", "hlo_module", NULL);
    put_emeta(&b, 1, "kernel");
    size_t ln = line_begin(&b, 16, "Stream #16(Kernel)");
    /* custom-call.1 in jit_matmul(19) and jit_matmul(73); fusion.2 in jit_add(5) */
    static const char *const module[] = {"jit_matmul(19)", "jit_matmul(73)", "jit_add(5)"};
    static const char *const op[] = {"custom-call.1", "custom-call.1", "fusion.2"};
    for (int i = 0; i < 3; i++) {
        size_t e = event_begin(&b, 1, i * 1000, 300 - i * 50);
        put_stat_s(&b, 4, ST_HLO_OP, op[i]);
        put_stat_s(&b, 4, ST_MODULE, module[i]);
        msg_end(&b, e);
    }
    pq_ops_result r;
    pq_profile *p = load_ops(&b, ln, pl, &r);
    assert_int_equal(r.nprograms, 3);
    assert_false(r.has_modules);
    for (size_t i = 0; i < r.nprograms; i++) {
        assert_int_equal(r.programs[i].executions, 0);
        assert_int_equal(r.programs[i].module_ps, 0); /* not op time passed off as modules */
        assert_int_equal(r.programs[i].name_shared, pq_str_eq(r.programs[i].name, "jit_matmul"));
    }
    pq_ops_options o = {.top = 2};
    tbuf t;
    render_to(&r, &o, PQ_OPS_VIEW_OPS, PQ_OUT_TEXT, &t);
    const char *text = (const char *)t.p;
    assert_int_equal(ranked_lines(text), 2); /* --top 2: two ranked rows, IDLE not ranked */
    assert_non_null(strstr(text, "IDLE (no op running; not ranked)"));
    assert_non_null(strstr(text, "custom-call.1 (jit_matmul(19))"));
    assert_non_null(strstr(text, "custom-call.1 (jit_matmul(73))"));
    assert_non_null(strstr(text, "in modules n/a (no module events)"));
    assert_null(strstr(text, "in modules 0.000 ms"));
    assert_non_null(strstr(text, "... 1 more program (all without --top)"));
    assert_null(strstr(text, "jit_add(5)  ")); /* the third program is not listed */
    tb_free(&t);
    render_to(&r, &o, PQ_OPS_VIEW_ROOFLINE, PQ_OUT_JSON, &t);
    assert_non_null(strstr((const char *)t.p, "\"executions\": null"));
    assert_non_null(strstr((const char *)t.p, "\"in_modules_ps\": null"));
    tb_free(&t);
    ops_free(&r);
    pq_profile_free(p);
    tb_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tpu_nesting_and_totals),
        cmocka_unit_test(test_gpu_kernels),
        cmocka_unit_test(test_gpu_peaks),
        cmocka_unit_test(test_cpu_thunks),
        cmocka_unit_test(test_async_copy_rates),
        cmocka_unit_test(test_gpu_programs_and_top),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
