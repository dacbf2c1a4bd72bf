/* test_nsys_hlo.c - the thunk -> HLO link of nsys-jax archives (analysis/nsys_hlo.c) on the
 * shared h100 archive: dumps found by program id and decoded on first use, the loader's
 * communication classification, message size and collective size (spec/nsys-jax.md
 * sections 4 and 6: all-gather-start.4 moves 187,777,024 B over 4 devices), the
 * bandwidth factors, and what a missing dump or instruction gives; results classified
 * ahead on another thread (nsys_hlo_comm_ahead) equal those classified on lookup. */
#include "testutil.h"

#include "analysis/nsys_hlo.h"
#include "analysis/nsys_modules.h"

#include <pthread.h>
#include <string.h>

static nsys_hlo *open_archive(uint8_t **data, pq_source *src)
{
    size_t n = 0;
    const char *path = shared_path("nsys/nsys-jax_h100_maxtext_fsdp4.zip");
    *data = tu_read_file(path, &n);
    assert_non_null(*data);
    memset(src, 0, sizeof *src);
    src->path = (char *)path;
    src->file.data = *data;
    src->file.size = n;
    nsys_hlo *h = NULL;
    pq_error err;
    assert_int_equal(nsys_hlo_open(src, &h, &err), PQ_OK);
    return h;
}

static void comm(nsys_hlo *h, int64_t prog, const char *name, nsys_hlo_comm *c)
{
    pq_error err;
    assert_int_equal(nsys_hlo_comm_of(h, prog, name, strlen(name), c, &err), PQ_OK);
}

static void test_collectives(void **state)
{
    (void)state;
    REQUIRE_SHARED();
    uint8_t *d;
    pq_source src;
    nsys_hlo *h = open_archive(&d, &src);
    nsys_hlo_comm c;
    comm(h, 16, "all-gather-start.4", &c);
    assert_true(c.known);
    assert_int_equal(c.kind, NSYS_COLL_ALL_GATHER);
    assert_string_equal(nsys_coll_name(c.kind), "all-gather");
    assert_int_equal(c.collective_size, 4);
    assert_int_equal(c.message_bytes, 187777024);
    assert_true(c.bw_corr == 4 && c.bus_corr == 0.75);
    assert_true(c.inst->channel_id != 0);
    /* spec section 6: algbw 347.23, busbw 260.42 GB/s over 857,058 + 1,306,101 ns */
    double alg = c.bw_corr * (double)c.message_bytes / (857058.0 + 1306101.0);
    assert_true(alg > 347.22 && alg < 347.24);
    assert_true(alg * c.bus_corr > 260.41 && alg * c.bus_corr < 260.43);

    comm(h, 16, "input_scatter_fusion", &c);
    assert_true(c.known);
    assert_int_equal(c.kind, NSYS_COLL_NONE);
    assert_string_equal(nsys_coll_name(c.kind), "");
    comm(h, 16, "no-such-instruction", &c);
    assert_false(c.known);
    comm(h, 99999, "all-gather-start.4", &c);
    assert_false(c.known);

    /* Every collective start of the training step: its kind, 4 devices, a message size,
     * and (the archive-era loader's rule) a channel id. */
    const hlo_module *m;
    pq_error err;
    assert_int_equal(nsys_hlo_module(h, 16, &m, &err), PQ_OK);
    assert_non_null(m);
    size_t seen = 0;
    for (uint32_t k = 0; k < m->ncomputations; k++) {
        const nsys_hlo_inst *v;
        uint32_t n;
        assert_int_equal(nsys_hlo_computation(h, 16, k, &v, &n, &err), PQ_OK);
        assert_int_equal(n, m->computations[k].ninstructions);
        for (uint32_t i = 0; i < n; i++) {
            if (v[i].opcode.n < 6 || memcmp(v[i].opcode.p + v[i].opcode.n - 6, "-start", 6))
                continue;
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)v[i].name.n, v[i].name.p);
            comm(h, 16, name, &c);
            if (c.kind == NSYS_COLL_NONE)
                continue;
            seen++;
            assert_int_equal(c.collective_size, 4);
            assert_true(c.message_bytes > 0);
            assert_true(c.comm->channel_id != 0);
            const nsys_hlo_inst *by_id;
            assert_int_equal(nsys_hlo_by_id(h, 16, v[i].id, &by_id, &err), PQ_OK);
            assert_ptr_equal(by_id, &v[i]);
        }
    }
    assert_true(seen > 0);
    nsys_hlo_close(h);
    free(d);
}

/* The names of the instructions of the first NC computations of program 16 (at most MAX). */
static size_t inst_names(nsys_hlo *h, char (*names)[256], size_t max)
{
    const hlo_module *m;
    pq_error err;
    assert_int_equal(nsys_hlo_module(h, 16, &m, &err), PQ_OK);
    size_t n = 0;
    for (uint32_t k = 0; k < m->ncomputations && n < max; k++) {
        const nsys_hlo_inst *v;
        uint32_t ni;
        assert_int_equal(nsys_hlo_computation(h, 16, k, &v, &ni, &err), PQ_OK);
        for (uint32_t i = 0; i < ni && n < max; i++)
            snprintf(names[n++], 256, "%.*s", (int)v[i].name.n, v[i].name.p);
    }
    return n;
}

typedef struct ahead_arg {
    nsys_hlo *h;
    char (*names)[256];
    size_t n;
} ahead_arg;

static void *ahead_run(void *p)
{
    ahead_arg *a = p;
    for (size_t i = a->n; i-- > 0;) /* from the last, as nsys_comm_ahead */
        nsys_hlo_comm_ahead(a->h, 16, a->names[i], strlen(a->names[i]));
    nsys_hlo_comm_ahead(a->h, 99999, "all-gather-start.4", 18); /* no such program */
    return NULL;
}

static void test_comm_ahead(void **state)
{
    (void)state;
    REQUIRE_SHARED();
    uint8_t *d1, *d2;
    pq_source s1, s2;
    nsys_hlo *h1 = open_archive(&d1, &s1), *h2 = open_archive(&d2, &s2);
    enum { MAX = 4000 };
    char(*names)[256] = malloc(MAX * sizeof *names);
    assert_non_null(names);
    size_t n = inst_names(h1, names, MAX);
    assert_true(n > 1000);
    ahead_arg a = {h2, names, n};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, ahead_run, &a), 0);
    size_t colls = 0;
    for (size_t i = 0; i < n; i++) { /* from the first, as the communication tables */
        nsys_hlo_comm c1, c2, again;
        comm(h1, 16, names[i], &c1);
        comm(h2, 16, names[i], &c2);
        comm(h2, 16, names[i], &again);
        assert_int_equal(c1.known, c2.known);
        assert_int_equal(c1.kind, c2.kind);
        assert_true(c1.message_bytes == c2.message_bytes);
        assert_true(c1.collective_size == c2.collective_size);
        assert_true(c1.bw_corr == c2.bw_corr && c1.bus_corr == c2.bus_corr);
        assert_true(c2.inst == again.inst && c2.comm == again.comm && c2.kind == again.kind);
        colls += c1.kind != NSYS_COLL_NONE;
    }
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_true(colls > 0);
    nsys_hlo_comm c;
    comm(h2, 99999, "all-gather-start.4", &c);
    assert_false(c.known);
    free(names);
    nsys_hlo_close(h1);
    nsys_hlo_close(h2);
    free(d1);
    free(d2);
}

static void test_type_bits(void **state)
{
    (void)state;
    assert_int_equal(nsys_hlo_type_bits(1), 8);    /* pred */
    assert_int_equal(nsys_hlo_type_bits(11), 32);  /* f32 */
    assert_int_equal(nsys_hlo_type_bits(16), 16);  /* bf16 */
    assert_int_equal(nsys_hlo_type_bits(18), 128); /* c128 */
    assert_int_equal(nsys_hlo_type_bits(13), 0);   /* tuple */
}

/* The two warm-up rules (spec section 4): archive-era for a program compiled in the profile
 * 0 init, 1 neither, 2+ steady, else all steady; HEAD threshold = compiled + has
 * communication, below it init; the HEAD fallback makes everything steady. */
static void test_warmup_rules(void **state)
{
    (void)state;
    for (int64_t e = 0; e < 4; e++) {
        assert_int_equal(nsys_warmup_frame(NULL, 1, e, 0), e == 0   ? NSYS_INIT
                                                           : e == 1 ? -1
                                                                    : NSYS_STEADY);
        assert_int_equal(nsys_warmup_frame(NULL, 0, e, 1), NSYS_STEADY);
        for (int comp = 0; comp < 2; comp++)
            for (int comm = 0; comm < 2; comm++) {
                nsys_warmup w = {.head = 1, .has_communication = comm};
                assert_int_equal(nsys_warmup_frame(&w, comp, e, 1),
                                 e < comp + comm ? NSYS_INIT : NSYS_STEADY);
                w.all_steady_thunks = 1;
                assert_int_equal(nsys_warmup_frame(&w, comp, e, 1), NSYS_STEADY);
                assert_int_equal(nsys_warmup_frame(&w, comp, e, 0),
                                 e < comp + comm ? NSYS_INIT : NSYS_STEADY);
            }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_collectives),
        cmocka_unit_test(test_comm_ahead),
        cmocka_unit_test(test_type_bits),
        cmocka_unit_test(test_warmup_rules),
    };
    return tu_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
