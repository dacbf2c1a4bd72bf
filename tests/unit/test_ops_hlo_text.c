/* test_ops_hlo_text.c - the HLO instruction printer (src/analysis/hlo_text.c) on an HloProto
 * synthesized here: each instruction's expected text follows XLA's HloInstruction::ToString
 * with XProf's options (docs/internals/hlo_text.md says which rule each part comes from).
 * Field numbers: xla/service/hlo.proto, xla/xla_data.proto. */
#include "testutil.h"

#include "analysis/hlo_text.h"
#include "core/buf.h"
#include "formats/hlo.h"
#include "model/model.h"

#include <stdarg.h>
#include <string.h>

enum { S32 = 4, F32 = 11 };

/* ShapeProto (field FIELD) of TYPE[dim] with layout {0}; DIM 0: a scalar. */
static void shape1(tbuf *b, uint64_t field, int type, int64_t dim)
{
    size_t s = msg_begin(b, field);
    put_varint_field(b, 2, (uint64_t)type);
    if (dim)
        put_varint_field(b, 3, (uint64_t)dim);
    size_t l = msg_begin(b, 5);
    if (dim)
        put_varint_field(b, 1, 0);
    msg_end(b, l);
    msg_end(b, s);
}

/* Opens instruction NAME = OPCODE (id ID) of shape f32[4]{0} (or TYPE[DIM]); returns its mark. */
static size_t ins_begin(tbuf *b, const char *name, const char *opcode, int64_t id, int type,
                        int64_t dim)
{
    size_t i = msg_begin(b, 2);
    put_str_field(b, 1, name);
    put_str_field(b, 2, opcode);
    if (type)
        shape1(b, 3, type, dim);
    put_varint_field(b, 35, (uint64_t)id);
    return i;
}

static void operands(tbuf *b, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        put_varint_field(b, 36, (uint64_t)va_arg(ap, int));
    va_end(ap);
}

/* One message field NUM holding the varints (field, value) pairs given. */
static void put_sub(tbuf *b, uint64_t num, int npairs, ...)
{
    size_t m = msg_begin(b, num);
    va_list ap;
    va_start(ap, npairs);
    for (int i = 0; i < npairs; i++) {
        int f = va_arg(ap, int), v = va_arg(ap, int);
        put_varint_field(b, (uint64_t)f, (uint64_t)v);
    }
    va_end(ap);
    msg_end(b, m);
}

static void attr(tbuf *b, const char *k, const char *v)
{
    size_t fa = msg_begin(b, 68);
    size_t e = msg_begin(b, 1);
    put_str_field(b, 1, k);
    put_str_field(b, 2, v);
    msg_end(b, e);
    msg_end(b, fa);
}

static void computation(tbuf *b, const char *name, int64_t id, const tbuf *ins)
{
    size_t c = msg_begin(b, 3);
    put_str_field(b, 1, name);
    put_bytes(b, ins->p, ins->n);
    put_varint_field(b, 5, (uint64_t)id);
    msg_end(b, c);
}

static void check(const hlo_module *m, const char *name, const char *want)
{
    for (uint32_t c = 0; c < m->ncomputations; c++)
        for (uint32_t i = 0; i < m->computations[c].ninstructions; i++) {
            const hlo_instruction *ins = &m->computations[c].instructions[i];
            if (!pq_str_eq(ins->name, name))
                continue;
            buf b;
            buf_init(&b, NULL);
            hlo_text_instruction(&b, m, ins);
            buf_putc(&b, 0);
            assert_int_equal(b.status, PQ_OK);
            assert_string_equal(b.p, want);
            buf_release(&b);
            return;
        }
    fail_msg("no instruction %s", name);
}

/* Decodes the HloProto in HLO into an arena A (released by the caller). */
static hlo_module *decode(const tbuf *hlo, arena *a)
{
    hlo_module *m = NULL;
    int64_t off;
    const char *what;
    arena_init(a);
    assert_int_equal(hlo_decode(hlo->p, hlo->n, hlo->p, a, &m, &off, &what), PQ_OK);
    return m;
}

static void test_printer(void **state)
{
    (void)state;
    tbuf e, cond, hlo;
    tb_init(&e);
    tb_init(&cond);
    tb_init(&hlo);
    size_t i;
    i = ins_begin(&e, "p0", "parameter", 1, F32, 4);
    put_varint_field(&e, 9, 0);
    msg_end(&e, i);
    i = ins_begin(&e, "p1", "parameter", 2, S32, 0);
    put_varint_field(&e, 9, 1);
    msg_end(&e, i);
    /* slice: strides only when one is not 1 */
    i = ins_begin(&e, "slice.1", "slice", 3, F32, 2);
    operands(&e, 1, 1);
    put_sub(&e, 17, 3, 1, 0, 2, 4, 3, 2);
    msg_end(&e, i);
    i = ins_begin(&e, "slice.2", "slice", 4, F32, 2);
    operands(&e, 1, 1);
    put_sub(&e, 17, 3, 1, 1, 2, 3, 3, 1);
    msg_end(&e, i);
    /* pad: padding_config (21) dimensions {low 1, high 2} */
    i = ins_begin(&e, "pad.3", "pad", 5, F32, 7);
    operands(&e, 2, 1, 13);
    {
        size_t pc = msg_begin(&e, 21);
        put_sub(&e, 1, 2, 1, 1, 2, 2);
        msg_end(&e, pc);
    }
    msg_end(&e, i);
    /* compare: TOTALORDER is not f32's default type (FLOAT), FLOAT is */
    i = ins_begin(&e, "compare.4", "compare", 6, 1, 4);
    operands(&e, 2, 1, 1);
    put_str_field(&e, 63, "LT");
    put_str_field(&e, 72, "TOTALORDER");
    msg_end(&e, i);
    i = ins_begin(&e, "compare.5", "compare", 7, 1, 4);
    operands(&e, 2, 1, 1);
    put_str_field(&e, 63, "GE");
    put_str_field(&e, 72, "FLOAT");
    msg_end(&e, i);
    /* dot: contracting dims printed even when empty, batch dims only when set */
    i = ins_begin(&e, "dot.6", "dot", 8, F32, 0);
    operands(&e, 2, 1, 1);
    put_sub(&e, 30, 2, 1, 0, 2, 0);
    msg_end(&e, i);
    /* custom-call: target, then api_version (not ORIGINAL), then frontend attributes sorted */
    i = ins_begin(&e, "custom-call.7", "custom-call", 9, F32, 4);
    operands(&e, 1, 1);
    put_str_field(&e, 28, "__cublas$gemm");
    put_varint_field(&e, 77, 2);
    attr(&e, "b", "2");
    attr(&e, "a", "{x=1}");
    msg_end(&e, i);
    /* get-tuple-element, iota */
    i = ins_begin(&e, "iota.8", "iota", 10, F32, 4);
    put_varint_field(&e, 14, 0);
    msg_end(&e, i);
    /* a tuple of 6: the index=5 annotation before the sixth operand and the sixth element */
    {
        i = msg_begin(&e, 2);
        put_str_field(&e, 1, "tuple.9");
        put_str_field(&e, 2, "tuple");
        size_t s = msg_begin(&e, 3);
        put_varint_field(&e, 2, 13);
        for (int k = 0; k < 6; k++)
            shape1(&e, 4, F32, 4);
        msg_end(&e, s);
        put_varint_field(&e, 35, 11);
        operands(&e, 6, 1, 1, 1, 1, 1, 10);
        msg_end(&e, i);
    }
    i = ins_begin(&e, "get-tuple-element.10", "get-tuple-element", 12, F32, 4);
    operands(&e, 1, 11);
    put_varint_field(&e, 13, 5);
    put_varint_field(&e, 37, 10); /* control predecessor iota.8 */
    msg_end(&e, i);
    /* constants: s32 scalar, f32 vector with 0.1 (6 digits read back), more than 10 elements */
    i = ins_begin(&e, "constant.11", "constant", 13, F32, 0);
    {
        size_t lit = msg_begin(&e, 8);
        const uint8_t zero[4] = {0, 0, 0, 0};
        put_len_field(&e, 8, zero, 4);
        msg_end(&e, lit);
    }
    msg_end(&e, i);
    i = ins_begin(&e, "constant.12", "constant", 14, F32, 2);
    {
        size_t lit = msg_begin(&e, 8);
        const uint8_t v[8] = {0xcd, 0xcc, 0xcc, 0x3d, 0x00, 0x00, 0x80, 0xff}; /* 0.1f, -inf */
        put_len_field(&e, 8, v, 8);
        msg_end(&e, lit);
    }
    msg_end(&e, i);
    i = ins_begin(&e, "constant.13", "constant", 15, S32, 11);
    {
        size_t lit = msg_begin(&e, 8);
        put_len_field(&e, 4, "\1\2\3\4\5\6\7\10\11\12\13", 11);
        msg_end(&e, lit);
    }
    msg_end(&e, i);
    i = ins_begin(&e, "while.14", "while", 16, F32, 4);
    operands(&e, 1, 1);
    put_varint_field(&e, 38, 3); /* body first, then condition (XLA's while) */
    put_varint_field(&e, 38, 2);
    msg_end(&e, i);
    i = ins_begin(&e, "cond_p", "parameter", 20, F32, 4);
    msg_end(&e, i);

    size_t mod = msg_begin(&hlo, 1);
    put_str_field(&hlo, 1, "m");
    computation(&hlo, "main", 1, &e);
    computation(&hlo, "cond", 2, &cond);
    computation(&hlo, "body", 3, &cond);
    msg_end(&hlo, mod);

    arena a;
    hlo_module *m = decode(&hlo, &a);
    check(m, "p1", "%p1 = s32[] parameter(1)");
    check(m, "slice.1", "%slice.1 = f32[2]{0} slice(f32[4]{0} %p0), slice={[0:4:2]}");
    check(m, "slice.2", "%slice.2 = f32[2]{0} slice(f32[4]{0} %p0), slice={[1:3]}");
    check(m, "pad.3", "%pad.3 = f32[7]{0} pad(f32[4]{0} %p0, f32[] %constant.11), padding=1_2");
    check(m, "compare.4",
          "%compare.4 = pred[4]{0} compare(f32[4]{0} %p0, f32[4]{0} %p0), direction=LT, "
          "type=TOTALORDER");
    check(m, "compare.5",
          "%compare.5 = pred[4]{0} compare(f32[4]{0} %p0, f32[4]{0} %p0), direction=GE");
    check(m, "dot.6",
          "%dot.6 = f32[] dot(f32[4]{0} %p0, f32[4]{0} %p0), lhs_contracting_dims={0}, "
          "rhs_contracting_dims={0}");
    check(m, "custom-call.7",
          "%custom-call.7 = f32[4]{0} custom-call(f32[4]{0} %p0), "
          "custom_call_target=\"__cublas$gemm\", "
          "api_version=API_VERSION_STATUS_RETURNING, frontend_attributes={a={x=1},b=\"2\"}");
    check(m, "iota.8", "%iota.8 = f32[4]{0} iota(), iota_dimension=0");
    check(
        m, "tuple.9",
        "%tuple.9 = (f32[4]{0}, f32[4]{0}, f32[4]{0}, f32[4]{0}, f32[4]{0}, /*index=5*/f32[4]{0}) "
        "tuple(f32[4]{0} %p0, f32[4]{0} %p0, f32[4]{0} %p0, f32[4]{0} %p0, f32[4]{0} %p0, "
        "/*index=5*/f32[4]{0} %iota.8)");
    check(m, "get-tuple-element.10",
          "%get-tuple-element.10 = f32[4]{0} get-tuple-element((f32[4]{0}, f32[4]{0}, f32[4]{0}, "
          "f32[4]{0}, f32[4]{0}, /*index=5*/f32[4]{0}) %tuple.9), index=5, "
          "control-predecessors={%iota.8}");
    check(m, "constant.11", "%constant.11 = f32[] constant(0)");
    check(m, "constant.12", "%constant.12 = f32[2]{0} constant({0.1, -inf})");
    check(m, "constant.13", "%constant.13 = s32[11]{0} constant({...})");
    check(m, "while.14", "%while.14 = f32[4]{0} while(f32[4]{0} %p0), condition=%cond, body=%body");
    arena_release(&a);
    tb_free(&e);
    tb_free(&cond);
    tb_free(&hlo);
}

/* Repeated varint field NUM of B: the N values given (not packed: the printer reads both). */
static void ints(tbuf *b, uint64_t num, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        put_varint_field(b, num, (uint64_t)va_arg(ap, int));
    va_end(ap);
}

/* An OpSharding (field 40 of an instruction) of type OTHER tiled [2,4] over the iota
 * reshape dims and transpose given; XLA's FromProto canonicalizes them (dims of size 1
 * dropped, dims adjacent in the transpose merged) before printing. */
static void iota_sharding(tbuf *b, int nd, const int *dims, const int *perm)
{
    size_t s = msg_begin(b, 40);
    put_varint_field(b, 1, 3);
    ints(b, 3, 2, 2, 4);
    for (int k = 0; k < nd; k++)
        put_varint_field(b, 9, (uint64_t)dims[k]);
    for (int k = 0; k < nd; k++)
        put_varint_field(b, 10, (uint64_t)perm[k]);
    msg_end(b, s);
}

/* Expected texts: jaxlib 0.10.2's XLA printing the same shardings parsed from HLO text
 * (tests/conformance/hlo_text_xla.py SHARDINGS); XProf 2.24.2's graph_viewer prints
 * shardings and mesh replica groups the same way. */
static void test_sharding(void **state)
{
    (void)state;
    tbuf e, hlo;
    tb_init(&e);
    tb_init(&hlo);
    size_t i, s, t;
    i = ins_begin(&e, "p0", "parameter", 1, F32, 8);
    put_varint_field(&e, 9, 0);
    iota_sharding(&e, 3, (const int[]){2, 1, 4}, (const int[]){2, 1, 0});
    msg_end(&e, i);
    i = ins_begin(&e, "n1", "negate", 2, F32, 8);
    operands(&e, 1, 1);
    iota_sharding(&e, 3, (const int[]){2, 2, 2}, (const int[]){2, 0, 1});
    msg_end(&e, i);
    i = ins_begin(&e, "n2", "negate", 3, F32, 8);
    operands(&e, 1, 2);
    iota_sharding(&e, 2, (const int[]){4, 2}, (const int[]){0, 1});
    msg_end(&e, i);
    /* explicit devices, last_tile_dim_replicate, last_tile_dims, a shard group (like) */
    i = ins_begin(&e, "n3", "negate", 4, F32, 8);
    operands(&e, 1, 3);
    s = msg_begin(&e, 40);
    put_varint_field(&e, 1, 3);
    ints(&e, 3, 3, 2, 2, 2);
    ints(&e, 4, 8, 0, 2, 1, 3, 4, 6, 5, 7);
    ints(&e, 8, 1, 4);
    put_varint_field(&e, 11, 1);
    put_varint_field(&e, 12, 7);
    put_varint_field(&e, 13, 1);
    msg_end(&e, s);
    msg_end(&e, i);
    /* a tuple of replicated (type 0, no field) and maximal device 5 */
    i = ins_begin(&e, "n4", "negate", 5, F32, 8);
    operands(&e, 1, 4);
    s = msg_begin(&e, 40);
    put_varint_field(&e, 1, 2);
    t = msg_begin(&e, 5);
    msg_end(&e, t);
    t = msg_begin(&e, 5);
    put_varint_field(&e, 1, 1);
    ints(&e, 4, 3, 5, 6, 7); /* damaged: a maximal sharding has one device; the first shown */
    msg_end(&e, t);
    msg_end(&e, s);
    msg_end(&e, i);
    /* a damaged transpose (not a permutation) counts as none */
    i = ins_begin(&e, "n5", "negate", 7, F32, 8);
    operands(&e, 1, 5);
    iota_sharding(&e, 2, (const int[]){2, 4}, (const int[]){0, 0});
    msg_end(&e, i);
    /* iota replica groups: read from field 92; an older proto's iota list inside
     * collective_device_list (87, field 2) is not read by XLA and XProf 2.24.2 ("{}") */
    for (int k = 0; k < 2; k++) {
        i = ins_begin(&e, k ? "ar92" : "ar87", "all-reduce", 8 + k, F32, 8);
        operands(&e, 1, 1);
        size_t l = k ? 0 : msg_begin(&e, 87);
        t = msg_begin(&e, k ? 92 : 2);
        put_varint_field(&e, 1, 4);
        put_varint_field(&e, 2, 2);
        ints(&e, 3, 2, 2, 4);
        ints(&e, 4, 2, 1, 0);
        msg_end(&e, t);
        if (!k)
            msg_end(&e, l);
        msg_end(&e, i);
    }
    /* mesh axes replica groups: mesh ['a'=2,'b'=4] with device ids, axes 'b':(2)2 and 'a' */
    i = ins_begin(&e, "ag", "all-gather", 6, F32, 8);
    operands(&e, 1, 5);
    put_varint_field(&e, 26, 2);
    s = msg_begin(&e, 93);
    t = msg_begin(&e, 1);
    {
        size_t ax = msg_begin(&e, 1);
        put_str_field(&e, 1, "a");
        put_varint_field(&e, 2, 2);
        msg_end(&e, ax);
        ax = msg_begin(&e, 1);
        put_str_field(&e, 1, "b");
        put_varint_field(&e, 2, 4);
        msg_end(&e, ax);
        ints(&e, 2, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    }
    msg_end(&e, t);
    t = msg_begin(&e, 2);
    put_varint_field(&e, 1, 1);
    put_sub(&e, 2, 2, 1, 2, 2, 2);
    msg_end(&e, t);
    t = msg_begin(&e, 2);
    msg_end(&e, t);
    msg_end(&e, s);
    msg_end(&e, i);

    size_t mod = msg_begin(&hlo, 1);
    put_str_field(&hlo, 1, "m");
    computation(&hlo, "main", 1, &e);
    msg_end(&hlo, mod);
    arena a;
    hlo_module *m = decode(&hlo, &a);
    check(m, "p0", "%p0 = f32[8]{0} parameter(0), sharding={devices=[2,4]<=[2,4]T(1,0)}");
    check(m, "n1", "%n1 = f32[8]{0} negate(f32[8]{0} %p0), sharding={devices=[2,4]<=[4,2]T(1,0)}");
    check(m, "n2", "%n2 = f32[8]{0} negate(f32[8]{0} %n1), sharding={devices=[2,4]<=[8]}");
    check(m, "n3",
          "%n3 = f32[8]{0} negate(f32[8]{0} %n2), sharding={devices=[2,2,2]0,2,1,3,4,6,5,7 "
          "last_tile_dims={manual} shard_like 7}");
    check(m, "n4",
          "%n4 = f32[8]{0} negate(f32[8]{0} %n3), sharding={{replicated}, {maximal device=5}}");
    check(m, "n5", "%n5 = f32[8]{0} negate(f32[8]{0} %n4), sharding={devices=[2,4]<=[8]}");
    check(m, "ar87", "%ar87 = f32[8]{0} all-reduce(f32[8]{0} %p0), replica_groups={}");
    check(m, "ar92",
          "%ar92 = f32[8]{0} all-reduce(f32[8]{0} %p0), replica_groups=[4,2]<=[2,4]T(1,0)");
    check(m, "ag",
          "%ag = f32[8]{0} all-gather(f32[8]{0} %n4), channel_id=2, "
          "replica_groups=mesh['a'=2,'b'=4], device_ids=(7,6,5,4,3,2,1,0) {'b':(2)2,'a'}");
    arena_release(&a);
    tb_free(&e);
    tb_free(&hlo);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_printer),
        cmocka_unit_test(test_sharding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
