/* test_hlo_cost.c - XLA's GPU cost rules (src/analysis/hlo_cost.c) on small hand-made HLO
 * modules whose FLOPs and bytes can be worked out by hand: a dot is 2MKN FLOPs, elementwise
 * ops cost the default GPU profile's cycles per element (3, sine f32 662), a fusion reads
 * each parameter once times its utilization and writes its output, a reduce applies its
 * reducer (in - out) times, a convolution counts only valid window positions. HloProto
 * field numbers: spec/xprof-tools.md section 2. */
#include "testutil.h"

#include "analysis/hlo_cost.h"
#include "formats/hlo.h"
#include "model/model.h"

#include <string.h>

enum { F32 = 11, F64 = 12, S8 = 2, U8 = 6 };

typedef struct spec {
    int64_t id;
    const char *name, *op;
    int type, nd;
    int64_t dims[4];
    int nops;
    int64_t ops[3];
    int64_t calls;      /* called computation id, 0 for none */
    const char *kind;   /* fusion kind */
    const char *target; /* custom-call target */
    int tuple_u8;       /* output is (array, u8[N]) with N = tuple_u8 */
    int ncontract;      /* dot: lhs contracting dimensions */
    int64_t contract[2];
    int has_dim; /* `dimensions` (reduce, concatenate) */
    int64_t dim;
    int64_t param;
    int conv; /* 2-D NCHW/OIHW convolution, 3x3 window, stride 1, padding 1 */
} spec;

static void put_shape(tbuf *b, uint64_t field, int type, const int64_t *dims, int nd)
{
    size_t s = msg_begin(b, field);
    put_varint_field(b, 2, (uint64_t)type);
    for (int i = 0; i < nd; i++)
        put_varint_field(b, 3, (uint64_t)dims[i]);
    size_t l = msg_begin(b, 5);
    for (int i = nd - 1; i >= 0; i--)
        put_varint_field(b, 1, (uint64_t)i);
    msg_end(b, l);
    msg_end(b, s);
}

static void put_ins(tbuf *b, const spec *x)
{
    size_t m = msg_begin(b, 2);
    put_str_field(b, 1, x->name);
    put_str_field(b, 2, x->op);
    if (x->tuple_u8) {
        size_t s = msg_begin(b, 3);
        put_varint_field(b, 2, 13);
        put_shape(b, 4, x->type, x->dims, x->nd);
        int64_t n = x->tuple_u8;
        put_shape(b, 4, U8, &n, 1);
        msg_end(b, s);
    } else {
        put_shape(b, 3, x->type, x->dims, x->nd);
    }
    put_varint_field(b, 9, (uint64_t)x->param);
    if (x->kind)
        put_str_field(b, 11, x->kind);
    if (x->has_dim)
        put_varint_field(b, 14, (uint64_t)x->dim);
    if (x->target)
        put_str_field(b, 28, x->target);
    put_varint_field(b, 35, (uint64_t)x->id);
    for (int i = 0; i < x->nops; i++)
        put_varint_field(b, 36, (uint64_t)x->ops[i]);
    if (x->calls)
        put_varint_field(b, 38, (uint64_t)x->calls);
    if (x->ncontract) {
        size_t d = msg_begin(b, 30);
        for (int i = 0; i < x->ncontract; i++)
            put_varint_field(b, 1, (uint64_t)x->contract[i]);
        msg_end(b, d);
    }
    if (x->conv) {
        size_t w = msg_begin(b, 15);
        for (int i = 0; i < 2; i++) {
            size_t wd = msg_begin(b, 1);
            put_varint_field(b, 1, 3); /* size */
            put_varint_field(b, 2, 1); /* stride */
            put_varint_field(b, 3, 1); /* padding low */
            put_varint_field(b, 4, 1); /* padding high */
            put_varint_field(b, 5, 1);
            put_varint_field(b, 6, 1);
            msg_end(b, wd);
        }
        msg_end(b, w);
        size_t d = msg_begin(b, 16);
        put_varint_field(b, 7, 0);  /* input batch */
        put_varint_field(b, 8, 1);  /* input feature */
        put_varint_field(b, 11, 2); /* input spatial */
        put_varint_field(b, 11, 3);
        put_varint_field(b, 3, 1); /* kernel input feature */
        put_varint_field(b, 4, 0); /* kernel output feature */
        put_varint_field(b, 6, 2); /* kernel spatial */
        put_varint_field(b, 6, 3);
        put_varint_field(b, 9, 0);  /* output batch */
        put_varint_field(b, 10, 1); /* output feature */
        put_varint_field(b, 12, 2); /* output spatial */
        put_varint_field(b, 12, 3);
        msg_end(b, d);
        put_varint_field(b, 50, 1);
        put_varint_field(b, 58, 1);
    }
    msg_end(b, m);
}

/* A computation with id ID, root ROOT and the N instructions of V. */
static void put_comp(tbuf *b, int64_t id, const char *name, int64_t root, const spec *v, int n,
                     int fusion)
{
    size_t c = msg_begin(b, 3);
    put_str_field(b, 1, name);
    for (int i = 0; i < n; i++)
        put_ins(b, &v[i]);
    put_varint_field(b, 5, (uint64_t)id);
    put_varint_field(b, 6, (uint64_t)root);
    if (fusion)
        put_varint_field(b, 7, 1);
    msg_end(b, c);
}

typedef struct fixture {
    tbuf b;
    size_t mod;
    arena a;
    hlo_module *m;
    hlo_cost_model *cm;
} fixture;

static void begin(fixture *f)
{
    memset(f, 0, sizeof *f);
    tb_init(&f->b);
    f->mod = msg_begin(&f->b, 1);
    put_str_field(&f->b, 1, "m");
}

static void finish(fixture *f, int64_t entry)
{
    put_varint_field(&f->b, 6, (uint64_t)entry);
    msg_end(&f->b, f->mod);
    arena_init(&f->a);
    int64_t off;
    const char *what;
    assert_int_equal(hlo_decode(f->b.p, f->b.n, f->b.p, &f->a, &f->m, &off, &what), PQ_OK);
    assert_int_equal(hlo_cost_analyze(f->m, &f->a, &f->cm), PQ_OK);
}

static hlo_cost cost_of(const fixture *f, int64_t id)
{
    hlo_cost c;
    const hlo_instruction *ins = hlo_instruction_by_id(f->m, id);
    assert_non_null(ins);
    assert_int_equal(hlo_cost_get(f->cm, ins, &c), 1);
    return c;
}

static void done(fixture *f)
{
    arena_release(&f->a);
    tb_free(&f->b);
}

#define P(id_, nm, t, n0, n1, num)                                                                 \
    {                                                                                              \
        .id = id_, .name = nm, .op = "parameter", .type = t, .nd = 2, .dims = {n0, n1},            \
        .param = num                                                                               \
    }

/* dot f32[4,8] x f32[8,16] -> f32[4,16]: 2 x 4 x 16 x 8 = 1024 FLOPs; bytes = every operand
 * and the output, (32 + 128 + 64) x 4 = 896, read 640, written 256. */
static void dot(void **state)
{
    (void)state;
    fixture f;
    begin(&f);
    spec v[] = {P(1, "a", F32, 4, 8, 0),
                P(2, "b", F32, 8, 16, 1),
                {.id = 3,
                 .name = "dot",
                 .op = "dot",
                 .type = F32,
                 .nd = 2,
                 .dims = {4, 16},
                 .nops = 2,
                 .ops = {1, 2},
                 .ncontract = 1,
                 .contract = {1}}};
    put_comp(&f.b, 10, "main", 3, v, 3, 0);
    finish(&f, 10);
    hlo_cost c = cost_of(&f, 3);
    assert_true(c.flops == 1024 && c.device_flops == 1024);
    assert_true(c.bytes == 896 && c.hbm_read == 640 && c.hbm_written == 256);
    hlo_cost p = cost_of(&f, 1);
    assert_true(p.flops == 0 && p.bytes == 0); /* parameters touch no memory */
    done(&f);
}

/* Elementwise ops cost the profile's cycles per output element: add f32 is not listed (3),
 * sine f32 662, divide f64 2016; an 8-bit multiply counts half on the device. */
static void elementwise(void **state)
{
    (void)state;
    fixture f;
    begin(&f);
    spec v[] = {
        P(1, "x", F32, 10, 100, 0),
        P(2, "y", F32, 10, 100, 1),
        {.id = 3,
         .name = "add",
         .op = "add",
         .type = F32,
         .nd = 2,
         .dims = {10, 100},
         .nops = 2,
         .ops = {1, 2}},
        {.id = 4,
         .name = "sin",
         .op = "sine",
         .type = F32,
         .nd = 2,
         .dims = {10, 100},
         .nops = 1,
         .ops = {3}},
        P(5, "d", F64, 10, 10, 2),
        {.id = 6,
         .name = "div",
         .op = "divide",
         .type = F64,
         .nd = 2,
         .dims = {10, 10},
         .nops = 2,
         .ops = {5, 5}},
        P(7, "q", S8, 10, 10, 3),
        {.id = 8,
         .name = "mul",
         .op = "multiply",
         .type = S8,
         .nd = 2,
         .dims = {10, 10},
         .nops = 2,
         .ops = {7, 7}},
    };
    put_comp(&f.b, 10, "main", 4, v, 8, 0);
    finish(&f, 10);
    assert_true(cost_of(&f, 3).flops == 3000);
    assert_true(cost_of(&f, 3).bytes == 12000);
    assert_true(cost_of(&f, 4).flops == 662000);
    assert_true(cost_of(&f, 6).flops == 201600);
    hlo_cost m = cost_of(&f, 8);
    assert_true(m.flops == 300 && m.device_flops == 150);
    done(&f);
}

/* A loop fusion of add and sine over f32[256]: FLOPs are the fused instructions' at
 * utilization 1 (256 x 3 + 256 x 662 = 170240); bytes only the two parameters read once and
 * the output written (3 x 1024), not the intermediate. */
static void loop_fusion(void **state)
{
    (void)state;
    fixture f;
    begin(&f);
    spec body[] = {
        {.id = 1, .name = "p0", .op = "parameter", .type = F32, .nd = 1, .dims = {256}},
        {.id = 2, .name = "p1", .op = "parameter", .type = F32, .nd = 1, .dims = {256}, .param = 1},
        {.id = 3,
         .name = "a",
         .op = "add",
         .type = F32,
         .nd = 1,
         .dims = {256},
         .nops = 2,
         .ops = {1, 2}},
        {.id = 4,
         .name = "s",
         .op = "sine",
         .type = F32,
         .nd = 1,
         .dims = {256},
         .nops = 1,
         .ops = {3}},
    };
    put_comp(&f.b, 20, "fused", 4, body, 4, 1);
    spec main[] = {
        {.id = 11, .name = "x", .op = "parameter", .type = F32, .nd = 1, .dims = {256}},
        {.id = 12, .name = "y", .op = "parameter", .type = F32, .nd = 1, .dims = {256}, .param = 1},
        {.id = 13,
         .name = "fusion",
         .op = "fusion",
         .type = F32,
         .nd = 1,
         .dims = {256},
         .nops = 2,
         .ops = {11, 12},
         .calls = 20,
         .kind = "kLoop"},
    };
    put_comp(&f.b, 10, "main", 13, main, 3, 0);
    finish(&f, 10);
    hlo_cost c = cost_of(&f, 13);
    assert_true(c.flops == 170240);
    assert_true(c.bytes == 3072 && c.hbm_read == 2048 && c.hbm_written == 1024);
    done(&f);
}

/* A fusion that reads a quarter of its parameter through a slice: the parameter's
 * utilization is 0.25, so it reads 4096 x 0.25 = 1024 bytes; negate costs 3 x 256. */
static void slice_fusion(void **state)
{
    (void)state;
    fixture f;
    begin(&f);
    spec body[] = {
        {.id = 1, .name = "p0", .op = "parameter", .type = F32, .nd = 1, .dims = {1024}},
        {.id = 2,
         .name = "sl",
         .op = "slice",
         .type = F32,
         .nd = 1,
         .dims = {256},
         .nops = 1,
         .ops = {1}},
        {.id = 3,
         .name = "neg",
         .op = "negate",
         .type = F32,
         .nd = 1,
         .dims = {256},
         .nops = 1,
         .ops = {2}},
    };
    put_comp(&f.b, 20, "fused", 3, body, 3, 1);
    spec main[] = {
        {.id = 11, .name = "x", .op = "parameter", .type = F32, .nd = 1, .dims = {1024}},
        {.id = 12,
         .name = "fusion",
         .op = "fusion",
         .type = F32,
         .nd = 1,
         .dims = {256},
         .nops = 1,
         .ops = {11},
         .calls = 20,
         .kind = "kLoop"},
    };
    put_comp(&f.b, 10, "main", 12, main, 2, 0);
    finish(&f, 10);
    hlo_cost c = cost_of(&f, 12);
    assert_true(c.flops == 768);
    assert_true(c.bytes == 2048 && c.hbm_read == 1024);
    done(&f);
}

/* An input fusion reducing f32[8,128] over dimension 1 with an add reducer: the reducer
 * (3 FLOPs) runs 1024 - 8 times; bytes are the input read and the f32[8] output (the scalar
 * init constant is an immediate, not a memory read). */
static void reduce_fusion(void **state)
{
    (void)state;
    fixture f;
    begin(&f);
    spec red[] = {
        {.id = 1, .name = "l", .op = "parameter", .type = F32},
        {.id = 2, .name = "r", .op = "parameter", .type = F32, .param = 1},
        {.id = 3, .name = "sum", .op = "add", .type = F32, .nops = 2, .ops = {1, 2}},
    };
    put_comp(&f.b, 30, "add", 3, red, 3, 0);
    spec body[] = {
        P(4, "p0", F32, 8, 128, 0),
        {.id = 5, .name = "zero", .op = "constant", .type = F32},
        {.id = 6,
         .name = "reduce",
         .op = "reduce",
         .type = F32,
         .nd = 1,
         .dims = {8},
         .nops = 2,
         .ops = {4, 5},
         .calls = 30,
         .has_dim = 1,
         .dim = 1},
    };
    put_comp(&f.b, 20, "fused", 6, body, 3, 1);
    spec main[] = {
        P(11, "x", F32, 8, 128, 0),
        {.id = 12,
         .name = "fusion",
         .op = "fusion",
         .type = F32,
         .nd = 1,
         .dims = {8},
         .nops = 1,
         .ops = {11},
         .calls = 20,
         .kind = "kInput"},
    };
    put_comp(&f.b, 10, "main", 12, main, 2, 0);
    finish(&f, 10);
    hlo_cost c = cost_of(&f, 12);
    assert_true(c.flops == 3048);
    assert_true(c.bytes == 4096 + 32);
    done(&f);
}

/* A cuDNN forward convolution custom call, input f32[1,4,8,8] (NCHW), kernel f32[6,4,3,3]
 * (OIHW), 3x3 window, padding 1: per spatial dimension 3 x 8 - 2 = 22 valid (kernel, output)
 * positions, so 2 x 4 x 6 x 1 x 22 x 22 = 23232 FLOPs. Bytes: both operands and the real
 * output (not the u8 scratch): 1888 + 1536. As in XLA, the written bytes of a tuple-shaped
 * custom call are not attributed (0) and only the reads are HBM bytes. A gemm custom call
 * has no cost (XProf reports none). */
static void custom_calls(void **state)
{
    (void)state;
    fixture f;
    begin(&f);
    spec main[] = {
        {.id = 1, .name = "in", .op = "parameter", .type = F32, .nd = 4, .dims = {1, 4, 8, 8}},
        {.id = 2,
         .name = "k",
         .op = "parameter",
         .type = F32,
         .nd = 4,
         .dims = {6, 4, 3, 3},
         .param = 1},
        {.id = 3,
         .name = "conv",
         .op = "custom-call",
         .type = F32,
         .nd = 4,
         .dims = {1, 6, 8, 8},
         .nops = 2,
         .ops = {1, 2},
         .target = "__cudnn$convForward",
         .tuple_u8 = 16,
         .conv = 1},
        P(4, "a", F32, 4, 8, 2),
        {.id = 5,
         .name = "gemm",
         .op = "custom-call",
         .type = F32,
         .nd = 2,
         .dims = {4, 4},
         .nops = 2,
         .ops = {4, 4},
         .target = "__cublas$gemm"},
    };
    put_comp(&f.b, 10, "main", 3, main, 5, 0);
    finish(&f, 10);
    hlo_cost c = cost_of(&f, 3);
    assert_true(c.flops == 23232);
    assert_true(c.bytes == 1888 + 1536 && c.hbm_read == 1888 && c.hbm_written == 0);
    hlo_cost g = cost_of(&f, 5);
    assert_true(g.unknown && g.flops == 0 && g.bytes == 0);
    done(&f);
}

/* Malformed modules get no cost, never a crash or a hang: a fusion whose body calls itself
 * (a cycle), an operand id that names nothing, and a convolution with absurd sizes. */
static void malformed(void **state)
{
    (void)state;
    fixture f;
    begin(&f);
    spec body[] = {
        {.id = 1, .name = "p0", .op = "parameter", .type = F32, .nd = 1, .dims = {4}},
        {.id = 2,
         .name = "self",
         .op = "fusion",
         .type = F32,
         .nd = 1,
         .dims = {4},
         .nops = 1,
         .ops = {1},
         .calls = 20,
         .kind = "kLoop"},
    };
    put_comp(&f.b, 20, "fused", 2, body, 2, 1);
    spec main[] = {
        {.id = 11, .name = "x", .op = "parameter", .type = F32, .nd = 1, .dims = {4}},
        {.id = 12,
         .name = "fusion",
         .op = "fusion",
         .type = F32,
         .nd = 1,
         .dims = {4},
         .nops = 1,
         .ops = {11},
         .calls = 20,
         .kind = "kLoop"},
        {.id = 13,
         .name = "dangling",
         .op = "add",
         .type = F32,
         .nd = 1,
         .dims = {4},
         .nops = 2,
         .ops = {11, 999}},
        {.id = 14,
         .name = "conv",
         .op = "convolution",
         .type = F32,
         .nd = 4,
         .dims = {1, 6, 4000000000, 8},
         .nops = 2,
         .ops = {15, 16},
         .conv = 1},
        {.id = 15,
         .name = "in",
         .op = "parameter",
         .type = F32,
         .nd = 4,
         .dims = {1, 4, 4000000000, 8},
         .param = 1},
        {.id = 16,
         .name = "k",
         .op = "parameter",
         .type = F32,
         .nd = 4,
         .dims = {6, 4, 4000000000, 3},
         .param = 2},
    };
    put_comp(&f.b, 10, "main", 12, main, 6, 0);
    finish(&f, 10);
    hlo_cost c = cost_of(&f, 12);
    /* writes its 16 bytes; the cycle leaves the inner call unanalysed, so x counts unread */
    assert_true(c.flops == 0 && c.bytes == 16);
    assert_true(cost_of(&f, 13).flops == 12); /* 3 per element; the missing operand reads 0 */
    assert_true(cost_of(&f, 14).flops == 0);  /* sizes past 2^31: no cost */
    done(&f);
}

/* The elementwise profile lookup itself. */
static void profile(void **state)
{
    (void)state;
    assert_int_equal(hlo_cost_elementwise_flops(pq_str_of("sine", 4), F32), 662);
    assert_int_equal(hlo_cost_elementwise_flops(pq_str_of("exponential", 11), F32), 86);
    assert_int_equal(hlo_cost_elementwise_flops(pq_str_of("add", 3), F32), 3);
    assert_int_equal(hlo_cost_elementwise_flops(pq_str_of("add", 3), F64), 97);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dot),           cmocka_unit_test(elementwise),
        cmocka_unit_test(loop_fusion),   cmocka_unit_test(slice_fusion),
        cmocka_unit_test(reduce_fusion), cmocka_unit_test(custom_calls),
        cmocka_unit_test(malformed),     cmocka_unit_test(profile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
