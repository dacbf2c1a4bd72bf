/* test_model_ops.c - the model's ops (model/ops.h) as the op analysis fills them
 * (ops_compute_model), against counts made here independently of analysis/ops_*.c, on the
 * shared files (skipped with a message when ../shared/data is absent):
 * - TPU (tpu_inference_2): one model op per distinct (program_id, symbol_id != 0) that the
 *   metadata of the events on the TensorCores' op lines state, read here by stat name,
 *   per program;
 * - GPU (MI300 attention): one model op per distinct (program_id, hlo_module, last part of
 *   hlo_op) of the kernels on the GPUs' stream lines; every op of a program whose HloProto names it
 *   has its category and provenance from that HloProto (decoded here with hlo_decode), and
 *   no other has.
 * and the peaks the op analysis takes from the first device's model capabilities.
 * The ops the XPlane reader states on the source at load (pq_source.ops): on TPU, one per
 * distinct (program_id, symbol_id != 0, name) of the TPU planes' event metadata entries,
 * each entry linked to its op, with the category of the first entry stating it; the
 * analysis's ops are the executed ones among them, as stated. On the GPU XSpaces here, one
 * per distinct (program, last part of hlo_op) of the kernels on the GPUs' raw lines (the
 * program: program_id, else the "(N)" of hlo_module, else the program of that name), each
 * kernel linked to its op through its XLA stats (xp_line.xla), no other event linked.
 * The ops the trace-JSON reader states on the source at load (a small fixture made here):
 * one per distinct (hlo_module, name) of the events with an hlo_op arg and per distinct
 * (stream, name) of the Kineto kernel / gpu_memcpy / gpu_memset events, counted here from the
 * fixture's own table; each slice linked to its op (the op column), none for other slices;
 * the analysis's ops are those, as stated.
 * Also the table itself: keys (program, symbol, name), symbol 0 keyed by name, the walk of
 * one program's ops. */
#include "testutil.h"

#include "analysis/ops.h"
#include "core/arena.h"
#include "formats/hlo.h"
#include "formats/xplane_walk.h"
#include "model/model.h"
#include "model/ops.h"

static pq_profile *open_path(const char *path)
{
    pq_profile *p = NULL;
    pq_error err;
    pq_open_options o = {0};
    o.skip_sha256 = 1;
    const char *paths[] = {path};
    pq_status st = pq_profile_open(paths, 1, &o, &p, &err);
    if (st != PQ_OK)
        fail_msg("open %s: %s", path, err.message);
    return p;
}

static void test_table(void **state)
{
    (void)state;
    model_ops t = {0};
    int fresh = 0;
    model_op *a = model_ops_get(&t, 7, 3, pq_str_of("fusion.1", 8), &fresh);
    assert_non_null(a);
    assert_true(fresh);
    a->category = pq_str_of("loop fusion", 11);
    assert_ptr_equal(model_ops_get(&t, 7, 3, pq_str_of("fusion.1", 8), &fresh), &t.v[0]);
    assert_false(fresh);
    /* symbol 0: keyed by name */
    assert_non_null(model_ops_get(&t, 7, 0, pq_str_of("dot.2", 5), &fresh));
    assert_true(fresh);
    assert_non_null(model_ops_get(&t, 8, 0, pq_str_of("dot.2", 5), &fresh));
    assert_true(fresh);
    assert_ptr_equal(model_ops_find(&t, 7, pq_str_of("dot.2", 5)), &t.v[1]);
    assert_null(model_ops_find(&t, 7, pq_str_of("dot.3", 5)));
    assert_ptr_equal(model_ops_lookup(&t, 7, 3, pq_str_of("fusion.1", 8)), &t.v[0]);
    assert_null(model_ops_lookup(&t, 7, 4, pq_str_of("fusion.1", 8)));
    assert_int_equal(t.n, 3);
    size_t in7 = 0;
    for (size_t i = model_ops_next(&t, 7, 0); i < t.n; i = model_ops_next(&t, 7, i + 1))
        in7++;
    assert_int_equal(in7, 2);
    assert_int_equal(model_ops_next(&t, 9, 0), t.n);
    assert_true(pq_str_eq(t.v[0].category, "loop fusion"));
    /* a reader's statement: the first wins, its index either way */
    model_op st = {0};
    st.program_id = 7;
    st.symbol_id = 3;
    st.name = pq_str_of("fusion.1", 8);
    st.category = pq_str_of("other", 5);
    assert_int_equal(model_ops_state(&t, &st), 0);
    assert_true(pq_str_eq(t.v[0].category, "loop fusion"));
    st.symbol_id = 5;
    assert_int_equal(model_ops_state(&t, &st), 3);
    assert_true(pq_str_eq(t.v[3].category, "other"));
    model_ops_free(&t);
}

/* The unsigned value of the stat NAME in a stats list (FIELD of BODY) of plane PL. */
static int stat_u64(const xp_plane *pl, const uint8_t *body, size_t len, uint32_t field,
                    const char *name, uint64_t *out)
{
    int has = 0;
    xp_stat_iter it;
    stat_value st;
    xp_stats_begin(&it, body, len, field);
    while (xp_stats_next(&it, &st)) {
        if (!pq_str_eq(xp_stat_name(pl, &st), name))
            continue;
        if (st.kind == STAT_UINT64)
            *out = st.v.u, has = 1;
        else if (st.kind == STAT_INT64)
            *out = (uint64_t)st.v.i, has = 1;
    }
    return has;
}

static pq_str stat_str(const xp_plane *pl, const uint8_t *body, size_t len, uint32_t field,
                       const char *name)
{
    pq_str s = {0};
    xp_stat_iter it;
    stat_value st;
    xp_stats_begin(&it, body, len, field);
    while (xp_stats_next(&it, &st))
        if (pq_str_eq(xp_stat_name(pl, &st), name))
            s = xp_stat_str(pl, &st);
    return s;
}

enum { MAXK = 4096 };

typedef struct key {
    uint64_t a, b;
    pq_str s, t;
} key;

static size_t add_key(key *keys, size_t n, key k)
{
    for (size_t i = 0; i < n; i++)
        if (keys[i].a == k.a && keys[i].b == k.b && keys[i].s.n == k.s.n &&
            (!k.s.n || !memcmp(keys[i].s.p, k.s.p, k.s.n)) && keys[i].t.n == k.t.n &&
            (!k.t.n || !memcmp(keys[i].t.p, k.t.p, k.t.n)))
            return n;
    assert_true(n < MAXK);
    keys[n] = k;
    return n + 1;
}

static void test_tpu_shared(void **state)
{
    (void)state;
    REQUIRE_SHARED();
    pq_profile *p = open_path(shared_path("xplane/tpu_inference_2.xplane.pb"));
    pq_ops_result r;
    model_ops ops = {0};
    pq_error err;
    assert_int_equal(ops_compute_model(p, NULL, &r, &ops, &err), PQ_OK);
    static key keys[MAXK];
    size_t n = 0;
    const pq_source *src = &p->sources[0];
    for (uint32_t pi = 0; pi < src->nplanes; pi++) {
        const xp_plane *pl = &src->planes[pi];
        if (!pq_str_starts(pl->name, "/device:TPU:") || pl->kind != DEV_TPU)
            continue;
        for (uint32_t li = 0; li < pl->nlines; li++) {
            const xp_line *line = &pl->lines[li];
            if (!pq_str_eq(line->name, "XLA Ops") && !pq_str_eq(line->name, "Framework Ops") &&
                !pq_str_eq(line->name, "Sparse Core Ops"))
                continue;
            xp_event_iter ei;
            xp_event ev;
            xp_events_begin(line, &ei);
            while (xp_events_next(&ei, &ev)) {
                const xp_event_meta *em = xp_event_meta_find(pl, ev.metadata_id);
                uint64_t pid, sid;
                if (em && stat_u64(pl, em->body, em->body_len, 5, "program_id", &pid) &&
                    stat_u64(pl, em->body, em->body_len, 5, "symbol_id", &sid) && sid)
                    n = add_key(keys, n, (key){pid, sid, {0}, {0}});
            }
        }
    }
    assert_true(n > 10);
    assert_int_equal(ops.n, n);
    for (size_t k = 0; k < n; k++) {
        size_t found = 0, in_program = 0;
        for (size_t i = model_ops_next(&ops, keys[k].a, 0); i < ops.n;
             i = model_ops_next(&ops, keys[k].a, i + 1)) {
            in_program++;
            found += ops.v[i].symbol_id == keys[k].b;
        }
        assert_int_equal(found, 1);
        size_t want = 0;
        for (size_t j = 0; j < n; j++)
            want += keys[j].a == keys[k].a;
        assert_int_equal(in_program, want);
    }
    /* every op with time is a row of the result (plus IDLE) */
    assert_int_equal(r.nops, ops.n + 1);
    /* the peaks and type are the first TensorCore's model device capabilities */
    const model_device *v = NULL;
    for (size_t k = 0; k < src->devices.dev.n && !v; k++)
        if (!strcmp(src->devices.dev.v[k].kind, "TPU"))
            v = &src->devices.dev.v[k];
    assert_non_null(v);
    assert_true(r.peaks.tflops == devices_cap_num(&src->devices, v, "peak_teraflops_per_second"));
    assert_true(r.peaks.tflops == 918);
    assert_true(r.peaks.bws[0] ==
                devices_cap_num(&src->devices, v, "peak_hbm_bw_gigabytes_per_second"));
    assert_string_equal(r.device_type, "TPU v6 Lite");
    ops_free(&r);
    model_ops_free(&ops);
    pq_profile_free(p);
}

/* The part of an hlo_op after its last "::". */
static pq_str last_part(pq_str s)
{
    for (size_t i = s.n; i >= 2; i--)
        if (s.p[i - 1] == ':' && s.p[i - 2] == ':')
            return pq_str_of(s.p + i, s.n - i);
    return s;
}

/* Line LI of PL when PL is a GPU plane and the line is not one of XProf's derived lines. */
static const xp_line *gpu_raw_line(const xp_plane *pl, uint32_t li)
{
    const xp_line *line = &pl->lines[li];
    if (pl->kind != DEV_GPU || (line->id >= 0xdeadbeefLL && line->id < 0xdeadbeefLL + 64))
        return NULL;
    return line;
}

/* A kernel's hlo_op and hlo_module, the event's else its metadata's; its metadata entry. */
static const xp_event_meta *kernel_stats(const xp_plane *pl, const xp_event *ev, pq_str *op,
                                         pq_str *mod)
{
    const xp_event_meta *em = xp_event_meta_find(pl, ev->metadata_id);
    *op = stat_str(pl, ev->stats, ev->body_len, 4, "hlo_op");
    *mod = stat_str(pl, ev->stats, ev->body_len, 4, "hlo_module");
    if (em && !op->n)
        *op = stat_str(pl, em->body, em->body_len, 5, "hlo_op");
    if (em && !mod->n)
        *mod = stat_str(pl, em->body, em->body_len, 5, "hlo_module");
    return em;
}

static int has_instruction(const hlo_module *m, pq_str name)
{
    for (uint32_t c = 0; c < m->ncomputations; c++)
        for (uint32_t i = 0; i < m->computations[c].ninstructions; i++) {
            pq_str x = m->computations[c].instructions[i].name;
            if (x.n == name.n && (!x.n || !memcmp(x.p, name.p, x.n)))
                return 1;
        }
    return 0;
}

static void test_gpu_shared(void **state)
{
    (void)state;
    REQUIRE_SHARED();
    pq_profile *p = open_path(shared_path("xplane/mi300_jax08_attention.xplane.pb"));
    pq_ops_result r;
    model_ops ops = {0};
    pq_error err;
    assert_int_equal(ops_compute_model(p, NULL, &r, &ops, &err), PQ_OK);
    static key keys[MAXK];
    size_t n = 0;
    const pq_source *src = &p->sources[0];
    for (uint32_t pi = 0; pi < src->nplanes; pi++) {
        const xp_plane *pl = &src->planes[pi];
        for (uint32_t li = 0; li < pl->nlines; li++) {
            const xp_line *line = gpu_raw_line(pl, li);
            if (!line)
                continue;
            xp_event_iter ei;
            xp_event ev;
            xp_events_begin(line, &ei);
            while (xp_events_next(&ei, &ev)) {
                pq_str op, mod;
                const xp_event_meta *em = kernel_stats(pl, &ev, &op, &mod);
                uint64_t pid = UINT64_MAX;
                if (!stat_u64(pl, ev.stats, ev.body_len, 4, "program_id", &pid) && em)
                    stat_u64(pl, em->body, em->body_len, 5, "program_id", &pid);
                if (op.n)
                    n = add_key(keys, n, (key){pid, 0, mod, last_part(op)});
            }
        }
    }
    assert_true(n > 0);
    assert_int_equal(ops.n, n);
    size_t annotated = 0;
    for (uint32_t g = 0; g < src->nprograms; g++) {
        const pq_program *pg = &src->programs[g];
        arena a;
        arena_init(&a);
        hlo_module *m = NULL;
        int64_t off;
        const char *what;
        assert_int_equal(hlo_decode(pg->hlo, pg->hlo_len, src->file.data, &a, &m, &off, &what),
                         PQ_OK);
        for (size_t i = model_ops_next(&ops, pg->program_id, 0); i < ops.n;
             i = model_ops_next(&ops, pg->program_id, i + 1)) {
            const model_op *o = &ops.v[i];
            int named = has_instruction(m, o->name);
            assert_int_equal(o->provenance_from_hlo, named);
            if (named)
                assert_true(o->category.n > 0);
            annotated += (size_t)named;
        }
        arena_release(&a);
    }
    assert_true(annotated > 0);
    /* HBM bandwidth from the GPU's memory_bandwidth capability (B/s), FLOP/s derived from
     * its cores x clock x gfx942's rate */
    assert_true(r.peaks.bws[0] == 2662.4);
    assert_true(r.peaks.derived_flops && r.peaks.cores == 304);
    assert_string_equal(r.gpu_model, "AMD GPU - gfx942");
    ops_free(&r);
    model_ops_free(&ops);
    pq_profile_free(p);
}

/* The source's ops as the reader stated them at load, against the metadata read here. */
static void test_tpu_source_ops(void **state)
{
    (void)state;
    REQUIRE_SHARED();
    pq_profile *p = open_path(shared_path("xplane/tpu_inference_2.xplane.pb"));
    const pq_source *src = &p->sources[0];
    static key keys[MAXK];
    size_t n = 0, linked = 0;
    for (uint32_t pi = 0; pi < src->nplanes; pi++) {
        const xp_plane *pl = &src->planes[pi];
        if (!xp_plane_is(src, pl, "TPU")) /* TensorCores and SparseCores, as the analysis */
            continue;
        for (uint32_t i = 0; i < pl->nemeta; i++) {
            const xp_event_meta *em = &pl->emeta[i];
            uint64_t pid, sid;
            if (!stat_u64(pl, em->body, em->body_len, 5, "program_id", &pid) ||
                !stat_u64(pl, em->body, em->body_len, 5, "symbol_id", &sid) || !sid) {
                assert_true(!pl->emeta_op || pl->emeta_op[i] == 0);
                continue;
            }
            size_t was = n;
            pq_str nm = em->display_name.n ? em->display_name : em->name;
            n = add_key(keys, n, (key){pid, sid, nm, {0}});
            assert_non_null(pl->emeta_op);
            assert_true(pl->emeta_op[i] >= 1 && pl->emeta_op[i] <= src->ops.n);
            const model_op *o = &src->ops.v[pl->emeta_op[i] - 1];
            assert_true(o->program_id == pid && o->symbol_id == sid);
            assert_true(o->name.n == nm.n && !memcmp(o->name.p, nm.p, nm.n));
            if (n > was) { /* the first entry stating the key states the op */
                pq_str cat = stat_str(pl, em->body, em->body_len, 5, "hlo_category");
                assert_true(o->category.n == cat.n && !memcmp(o->category.p, cat.p, cat.n));
            }
            linked++;
        }
    }
    assert_true(n > 10 && linked >= n);
    assert_int_equal(src->ops.n, n);
    /* the analysis's ops are executed ones among them, with what the reader stated */
    pq_ops_result r;
    model_ops ops = {0};
    pq_error err;
    assert_int_equal(ops_compute_model(p, NULL, &r, &ops, &err), PQ_OK);
    assert_true(ops.n > 0 && ops.n <= src->ops.n);
    for (size_t i = 0; i < ops.n; i++) {
        const model_op *s =
            model_ops_lookup(&src->ops, ops.v[i].program_id, ops.v[i].symbol_id, ops.v[i].name);
        assert_non_null(s);
        assert_true(s->name.p == ops.v[i].name.p && s->category.p == ops.v[i].category.p);
        assert_true(s->flops == ops.v[i].flops && s->bytes == ops.v[i].bytes);
    }
    ops_free(&r);
    model_ops_free(&ops);
    pq_profile_free(p);
}

/* The program id of a kernel as the test reads it: program_id (event, else metadata), else
 * the digits of a "(N)" ending hlo_module, else the program of that module name. */
static int kernel_program(const pq_source *src, const xp_plane *pl, const xp_event *ev,
                          const xp_event_meta *em, pq_str mod, uint64_t *pid)
{
    if (stat_u64(pl, ev->stats, ev->body_len, 4, "program_id", pid) ||
        (em && stat_u64(pl, em->body, em->body_len, 5, "program_id", pid)))
        return 1;
    size_t open = mod.n;
    while (open > 0 && mod.p[open - 1] != '(')
        open--;
    if (mod.n > 2 && mod.p[mod.n - 1] == ')' && open > 1 && open < mod.n - 1) {
        uint64_t v = 0;
        size_t i = open;
        for (; i < mod.n - 1 && mod.p[i] >= '0' && mod.p[i] <= '9'; i++)
            v = v * 10 + (uint64_t)(mod.p[i] - '0');
        if (i == mod.n - 1) {
            *pid = v;
            return 1;
        }
    }
    for (uint32_t g = 0; g < src->nprograms; g++)
        if (src->programs[g].name.n == mod.n && !memcmp(src->programs[g].name.p, mod.p, mod.n)) {
            *pid = src->programs[g].program_id;
            return 1;
        }
    *pid = 0;
    return 0;
}

/* The ops the XPlane reader states at load for an XSpace's GPU kernels, against the distinct
 * (program, last part of hlo_op) of the kernels on the GPU planes' raw lines read here by stat
 * name; each kernel's column entry names its op, every other event's is 0; the analysis's ops
 * are those, as stated. */
static void test_gpu_source_ops(void **state)
{
    (void)state;
    REQUIRE_SHARED();
    static const char *const files[] = {"xplane/mi300_jax08_attention.xplane.pb",
                                        "xplane/mi300_jax08_elementwise.xplane.pb",
                                        "xplane/mi300x8_jax_conv.xplane.pb",
                                        "xplane/mi300x8_jax_conv_legacy/chi-mi300x-013.xplane.pb"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        pq_profile *p = open_path(shared_path(files[f]));
        const pq_source *src = &p->sources[0];
        static key keys[MAXK];
        size_t n = 0, kernels = 0;
        for (uint32_t pi = 0; pi < src->nplanes; pi++) {
            const xp_plane *pl = &src->planes[pi];
            for (uint32_t li = 0; li < pl->nlines; li++) {
                const xp_line *line = gpu_raw_line(pl, li);
                if (!line)
                    continue;
                xp_event_iter ei;
                xp_event ev;
                size_t k = 0;
                xp_events_begin(line, &ei);
                while (xp_events_next(&ei, &ev)) {
                    pq_str op, mod;
                    const xp_event_meta *em = kernel_stats(pl, &ev, &op, &mod);
                    uint32_t at = line->xla ? line->xla[k] : 0;
                    k++;
                    if (!op.n) {
                        assert_int_equal(at, 0);
                        continue;
                    }
                    uint64_t pid;
                    kernel_program(src, pl, &ev, em, mod, &pid);
                    pq_str name = last_part(op);
                    n = add_key(keys, n, (key){pid, 0, name, {0}});
                    kernels++;
                    assert_true(at >= 1 && at <= pl->nxla);
                    const xp_xla_class *c = &pl->xla[at - 1];
                    assert_true(c->op >= 1 && c->op <= src->ops.n);
                    const model_op *o = &src->ops.v[c->op - 1];
                    assert_true(o->program_id == pid && o->symbol_id == 0);
                    assert_true(o->name.n == name.n && !memcmp(o->name.p, name.p, name.n));
                    assert_true(c->module.n == mod.n && !memcmp(c->module.p, mod.p, mod.n));
                }
                assert_int_equal(k, line->events);
            }
        }
        assert_true(n > 0 && kernels >= n);
        assert_int_equal(src->ops.n, n);
        for (size_t i = 0; i < n; i++)
            assert_non_null(model_ops_find(&src->ops, keys[i].a, keys[i].s));
        /* the analysis's ops are the source's, as stated (categories come later from the
         * HloProto, so only the keys and the per-event summing are compared) */
        pq_ops_result r;
        model_ops ops = {0};
        pq_error err;
        assert_int_equal(ops_compute_model(p, NULL, &r, &ops, &err), PQ_OK);
        assert_true(ops.n > 0 && ops.n <= src->ops.n);
        for (size_t i = 0; i < ops.n; i++) {
            const model_op *s2 = model_ops_find(&src->ops, ops.v[i].program_id, ops.v[i].name);
            assert_non_null(s2);
            assert_true(s2->name.p == ops.v[i].name.p && ops.v[i].custom_call);
        }
        ops_free(&r);
        model_ops_free(&ops);
        pq_profile_free(p);
    }
}

/* One event of the trace fixture: an X event on (pid, tid) of category CAT; HLO: with an
 * hlo_op arg (and hlo_module MODULE unless NULL). */
typedef struct fx_event {
    int pid, tid;
    const char *cat, *name, *module;
    int hlo;
} fx_event;

static const fx_event fx[] = {
    {1, 1, "", "fusion.1", "jit_f(1)", 1},   {1, 1, "", "fusion.1", "jit_f(1)", 1},
    {1, 1, "", "fusion.1", "jit_g(2)", 1},   {1, 1, "", "dot.3", "jit_f(1)", 1},
    {1, 2, "", "copy.4", NULL, 1},           {2, 7, "kernel", "k_a", NULL, 0},
    {2, 7, "kernel", "k_a", NULL, 0},        {2, 7, "gpu_memcpy", "Memcpy HtoD", NULL, 0},
    {2, 7, "gpu_memset", "Memset", NULL, 0}, {2, 7, "gpu_user_annotation", "ann", NULL, 0},
    {2, 8, "kernel", "k_a", NULL, 0},        {2, 8, "kernel", "k_b", NULL, 0},
    {3, 1, "cpu_op", "aten::mm", NULL, 0},
};
enum { NFX = sizeof fx / sizeof fx[0] };

/* Whether fixture event I states an op, and whether I and J state the same one. */
static int fx_is_op(size_t i)
{
    return fx[i].hlo || !strcmp(fx[i].cat, "kernel") || !strcmp(fx[i].cat, "gpu_memcpy") ||
           !strcmp(fx[i].cat, "gpu_memset");
}

static int fx_same_op(size_t i, size_t j)
{
    if (fx[i].hlo != fx[j].hlo || strcmp(fx[i].name, fx[j].name))
        return 0;
    if (fx[i].hlo)
        return !strcmp(fx[i].module ? fx[i].module : "", fx[j].module ? fx[j].module : "");
    return fx[i].pid == fx[j].pid && fx[i].tid == fx[j].tid;
}

static void test_trace_source_ops(void **state)
{
    (void)state;
    char json[4096];
    size_t n = (size_t)snprintf(json, sizeof json, "{\"traceEvents\": [");
    for (size_t i = 0; i < NFX; i++) {
        n += (size_t)snprintf(json + n, sizeof json - n,
                              "%s{\"ph\": \"X\", \"pid\": %d, \"tid\": %d, \"cat\": \"%s\", "
                              "\"name\": \"%s\", \"ts\": %zu, \"dur\": 5, \"args\": {",
                              i ? ", " : "", fx[i].pid, fx[i].tid, fx[i].cat, fx[i].name, 10 * i);
        if (fx[i].hlo)
            n += (size_t)snprintf(json + n, sizeof json - n, "\"hlo_op\": \"%s\"%s%s%s", fx[i].name,
                                  fx[i].module ? ", \"hlo_module\": \"" : "",
                                  fx[i].module ? fx[i].module : "", fx[i].module ? "\"" : "");
        n += (size_t)snprintf(json + n, sizeof json - n, "}}");
    }
    n += (size_t)snprintf(json + n, sizeof json - n, "]}");
    assert_true(n < sizeof json);
    size_t want = 0; /* distinct ops, counted from the table */
    for (size_t i = 0; i < NFX; i++) {
        size_t j = 0;
        while (j < i && !(fx_is_op(j) && fx_same_op(i, j)))
            j++;
        want += fx_is_op(i) && j == i;
    }
    assert_int_equal(want, 9);
    pq_profile *p = NULL;
    pq_error err;
    assert_int_equal(pq_profile_open_memory(json, n, "fixture.json", NULL, &p, &err), PQ_OK);
    const pq_source *src = &p->sources[0];
    const model_slices *m = src->slices;
    assert_int_equal(m->n, NFX);
    assert_non_null(m->op);
    assert_int_equal(src->ops.n, want);
    for (size_t i = 0; i < NFX; i++) {
        assert_true(!strcmp(intern_str(&m->names, m->name[i]), fx[i].name));
        if (!fx_is_op(i)) {
            assert_int_equal(m->op[i], 0);
            continue;
        }
        assert_true(m->op[i] >= 1 && m->op[i] <= src->ops.n);
        const model_op *o = &src->ops.v[m->op[i] - 1];
        assert_true(pq_str_eq(o->name, fx[i].name));
        assert_true(o->custom_call && o->symbol_id == 0);
        const char *cat = fx[i].hlo                          ? ""
                          : !strcmp(fx[i].cat, "gpu_memcpy") ? "memcpy"
                          : !strcmp(fx[i].cat, "gpu_memset") ? "memset"
                                                             : "kernel";
        assert_true(pq_str_eq(o->category, cat));
        for (size_t j = 0; j < i; j++)
            if (fx_is_op(j))
                assert_int_equal(m->op[j] == m->op[i], fx_same_op(i, j));
    }
    /* the analysis's ops (the XLA ops: the trace holds some) are those the reader stated */
    pq_ops_result r;
    model_ops ops = {0};
    assert_int_equal(ops_compute_model(p, NULL, &r, &ops, &err), PQ_OK);
    assert_int_equal(ops.n, 4);
    for (size_t i = 0; i < ops.n; i++) {
        const model_op *s = model_ops_find(&src->ops, ops.v[i].program_id, ops.v[i].name);
        assert_non_null(s);
        assert_true(s->name.p == ops.v[i].name.p && s->category.p == ops.v[i].category.p);
    }
    ops_free(&r);
    model_ops_free(&ops);
    pq_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),          cmocka_unit_test(test_tpu_shared),
        cmocka_unit_test(test_tpu_source_ops), cmocka_unit_test(test_gpu_shared),
        cmocka_unit_test(test_gpu_source_ops), cmocka_unit_test(test_trace_source_ops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
