/* test_op_profile.c - XProf's op_profile tree (src/analysis/op_profile.c) on XSpaces
 * synthesized with testutil.h, each carrying its program's HloProto in /host:metadata: the
 * grouping of duplicate ops (OpMetadata.deduplicated_name, field 12, on GPU: XProf's
 * HloInstructionWrapper::DeduplicatedName) and the fused instructions XProf lists under a TPU
 * fusion leaf (op_utils.cc AddFusionChildrenToOpMetricsFromHloInstruction). Field numbers:
 * xla/service/hlo.proto and spec/xprof-tools.md section 1. */
#include "testutil.h"

#include "analysis/op_profile.h"
#include "analysis/ops.h"
#include "model/model.h"

#include <string.h>

enum { ST_HLO = 1, ST_PID, ST_HLO_OP, ST_MODULE, ST_SID, ST_CAT };

enum { F32 = 11 };

static void assert_str(pq_str s, const char *want)
{
    if (s.n != strlen(want) || (s.n && memcmp(s.p, want, s.n) != 0))
        fail_msg("got '%.*s', want '%s'", (int)s.n, s.p ? s.p : "", want);
}

/* An f32[DIM] ShapeProto with its {0} layout as field FIELD; DIM 0: the scalar f32[] (its
 * layout "{}", which XLA does not print). */
static void put_shape(tbuf *b, uint64_t field, int64_t dim)
{
    size_t s = msg_begin(b, field);
    put_varint_field(b, 2, F32);
    if (dim)
        put_varint_field(b, 3, (uint64_t)dim);
    size_t l = msg_begin(b, 5); /* ShapeProto.layout */
    if (dim)
        put_varint_field(b, 1, 0);
    msg_end(b, l);
    msg_end(b, s);
}

typedef struct ins_spec {
    const char *name, *opcode, *op_name, *dedup, *kind;
    int64_t id;
    int64_t operands[2];
    int64_t called; /* computation id, 0: none */
} ins_spec;

static void put_instruction(tbuf *b, const ins_spec *in)
{
    size_t i = msg_begin(b, 2);
    put_str_field(b, 1, in->name);
    put_str_field(b, 2, in->opcode);
    put_shape(b, 3, pq_str_eq(pq_str_of(in->opcode, strlen(in->opcode)), "constant") ? 0 : 4);
    if (pq_str_eq(pq_str_of(in->opcode, strlen(in->opcode)), "constant")) {
        size_t lit = msg_begin(b, 8); /* LiteralProto f32s (8), packed: 1.0f */
        const uint8_t one[4] = {0x00, 0x00, 0x80, 0x3f};
        put_len_field(b, 8, one, 4);
        msg_end(b, lit);
    }
    if (pq_str_eq(pq_str_of(in->opcode, strlen(in->opcode)), "broadcast"))
        put_len_field(b, 14, "", 0); /* dimensions={} */
    if (in->op_name || in->dedup) {
        size_t md = msg_begin(b, 7);
        if (in->op_name)
            put_str_field(b, 2, in->op_name);
        if (in->dedup)
            put_str_field(b, 12, in->dedup);
        msg_end(b, md);
    }
    if (in->kind)
        put_str_field(b, 11, in->kind);
    put_varint_field(b, 35, (uint64_t)in->id);
    for (int k = 0; k < 2; k++)
        if (in->operands[k])
            put_varint_field(b, 36, (uint64_t)in->operands[k]);
    if (in->called)
        put_varint_field(b, 38, (uint64_t)in->called);
    msg_end(b, i);
}

static void put_computation(tbuf *b, const char *name, int64_t id, const ins_spec *ins, int n,
                            int fusion)
{
    size_t c = msg_begin(b, 3);
    put_str_field(b, 1, name);
    for (int k = 0; k < n; k++)
        put_instruction(b, &ins[k]);
    put_varint_field(b, 5, (uint64_t)id);
    put_varint_field(b, 6, (uint64_t)ins[n - 1].id);
    if (fusion)
        put_varint_field(b, 7, 1);
    msg_end(b, c);
}

/* The /host:metadata plane with program 42 "jit_f" whose HloProto is HLO. */
static void put_metadata_plane(tbuf *b, const tbuf *hlo)
{
    size_t pl = plane_begin(b, -1, "/host:metadata");
    put_stat_meta(b, ST_HLO, "Hlo Proto");
    put_stat_meta(b, ST_PID, "program_id");
    emeta_marks m = emeta_begin(b, 10, "jit_f(42)");
    put_stat_bytes(b, 5, ST_HLO, hlo->p, hlo->n);
    put_stat_u(b, 5, ST_PID, 42);
    emeta_end(b, m);
    msg_end(b, pl);
}

static pq_profile *load(tbuf *b, pq_ops_result *r)
{
    pq_profile *p = NULL;
    pq_error err;
    assert_int_equal(pq_profile_open_memory(b->p, b->n, "t.xplane.pb", NULL, &p, &err), PQ_OK);
    assert_int_equal(ops_compute(p, NULL, r, &err), PQ_OK);
    return p;
}

/* The node named NAME below ID (depth first), or -1. */
static int64_t find_node(const op_profile_tree *t, uint32_t id, const char *name)
{
    if (pq_str_eq(op_profile_node_name(t, &t->n[id]), name))
        return id;
    for (uint32_t i = 0; i < t->n[id].nkids; i++) {
        int64_t k = find_node(t, t->n[id].kids[i], name);
        if (k >= 0)
            return k;
    }
    return -1;
}

/* GPU: gemm_fusion_dot (2 x 100 ps) and gemm_fusion_dot.3 (300 ps) both state
 * deduplicated_name "gemm_fusion_dot" in their OpMetadata, so XProf keys them to one node
 * under their category ("custom fusion": kCustom); it is named after its top child by
 * rawTime (.3, 300 > 200) "gemm_fusion_dot.3 and its duplicate(s)", holds both (500 ps,
 * 3 occurrences) and copies .3's xla fields. copy.1 has no deduplicated_name: its own
 * one-op group is replaced by its leaf. convert.2 states deduplicated_name "copy.1" but sits
 * in another category ("non-fusion elementwise"), so it is not grouped with copy.1. */
static void test_gpu_duplicates(void **state)
{
    (void)state;
    tbuf hlo, b;
    tb_init(&hlo);
    tb_init(&b);
    size_t mod = msg_begin(&hlo, 1);
    put_str_field(&hlo, 1, "jit_f");
    put_str_field(&hlo, 2, "main");
    const ins_spec entry[] = {
        {"p0", "parameter", NULL, NULL, NULL, 1, {0, 0}, 0},
        {"gemm_fusion_dot", "fusion", "jit(f)/dot", "gemm_fusion_dot", "kCustom", 2, {1, 0}, 0},
        {"gemm_fusion_dot.3", "fusion", "jit(f)/dot", "gemm_fusion_dot", "kCustom", 3, {2, 0}, 0},
        {"copy.1", "copy", "jit(f)/copy", NULL, NULL, 4, {3, 0}, 0},
        {"convert.2", "convert", NULL, "copy.1", NULL, 5, {4, 0}, 0},
    };
    put_computation(&hlo, "main", 1, entry, 5, 0);
    put_varint_field(&hlo, 5, 42);
    put_varint_field(&hlo, 6, 1);
    msg_end(&hlo, mod);
    put_metadata_plane(&b, &hlo);

    size_t pl = plane_begin(&b, 0, "/device:GPU:0");
    put_stat_metas(&b, ST_HLO_OP, "hlo_op", "hlo_module", NULL);
    put_emeta(&b, 1, "kernel");
    size_t ln = line_begin(&b, 16, "Stream #16(Kernel)");
    const struct {
        const char *op;
        int64_t dur;
    } evs[] = {{"gemm_fusion_dot", 100},
               {"gemm_fusion_dot.3", 300},
               {"gemm_fusion_dot", 100},
               {"copy.1", 50},
               {"convert.2", 40}};
    for (int i = 0; i < 5; i++) {
        size_t e = event_begin(&b, 1, i * 1000, evs[i].dur);
        put_stat_s(&b, 4, ST_HLO_OP, evs[i].op);
        put_stat_s(&b, 4, ST_MODULE, "jit_f(42)");
        msg_end(&b, e);
    }
    msg_end(&b, ln);
    msg_end(&b, pl);

    pq_ops_result r;
    pq_profile *p = load(&b, &r);
    op_profile_tree t;
    assert_int_equal(op_profile_build(&r, OP_PROFILE_BY_PROGRAM, 1, &t), 0);
    int64_t cat = find_node(&t, 0, "custom fusion");
    assert_true(cat >= 0);
    assert_int_equal(t.n[cat].nkids, 1);
    const op_profile_node *d = &t.n[t.n[cat].kids[0]];
    assert_str(op_profile_node_name(&t, d), "gemm_fusion_dot.3 and its duplicate(s)");
    assert_int_equal(d->nkids, 2);
    assert_int_equal(d->m.time_ps, 500);
    assert_int_equal(d->m.occurrences, 3);
    assert_non_null(d->sym);
    assert_str(d->sym->name, "gemm_fusion_dot.3");
    assert_int_equal(d->dedup_of_fusion, 2);
    assert_str(op_profile_node_name(&t, &t.n[d->kids[0]]), "gemm_fusion_dot.3");
    assert_str(op_profile_node_name(&t, &t.n[d->kids[1]]), "gemm_fusion_dot");
    /* copy.1: a leaf straight under its category */
    int64_t fmt = find_node(&t, 0, "data formatting");
    assert_true(fmt >= 0);
    assert_int_equal(t.n[fmt].nkids, 1);
    assert_str(op_profile_node_name(&t, &t.n[t.n[fmt].kids[0]]), "copy.1");
    assert_non_null(t.n[t.n[fmt].kids[0]].sym);
    /* convert.2 keyed "copy.1" in its own category: a one-op group, replaced by its leaf */
    int64_t ew = find_node(&t, 0, "non-fusion elementwise");
    assert_true(ew >= 0);
    assert_int_equal(t.n[ew].nkids, 1);
    assert_str(op_profile_node_name(&t, &t.n[t.n[ew].kids[0]]), "convert.2");
    op_profile_free(&t);
    ops_free(&r);
    pq_profile_free(p);
    tb_free(&b);
    tb_free(&hlo);
}

/* TPU: the op broadcast_add_fusion (a kLoop fusion calling fused_computation) gets as
 * op_profile children the instructions of fused_computation but its parameter and tuple, in
 * the computation's order, each with 1 occurrence and no time (XProf's
 * InsertFusedInstructions): constant.8, broadcast.7, add.3 and the nested fusion
 * inner_fusion, which has its own child negate.5. Their HLO text is XLA's (a scalar's "{}"
 * layout not printed, operand shapes before the names, broadcast's dimensions={} always),
 * their category XLA's ToCategory (a constant is elementwise), their provenance
 * "<op_name>:<op_type>" (":" without metadata). */
static void test_tpu_fused_children(void **state)
{
    (void)state;
    tbuf hlo, b;
    tb_init(&hlo);
    tb_init(&b);
    size_t mod = msg_begin(&hlo, 1);
    put_str_field(&hlo, 1, "jit_f");
    put_str_field(&hlo, 2, "main");
    const ins_spec inner[] = {
        {"param_1", "parameter", NULL, NULL, NULL, 20, {0, 0}, 0},
        {"negate.5", "negate", NULL, NULL, NULL, 21, {20, 0}, 0},
    };
    put_computation(&hlo, "inner_computation", 3, inner, 2, 1);
    const ins_spec fused[] = {
        {"param_0", "parameter", NULL, NULL, NULL, 10, {0, 0}, 0},
        {"constant.8", "constant", NULL, NULL, NULL, 11, {0, 0}, 0},
        {"broadcast.7", "broadcast", NULL, NULL, NULL, 12, {11, 0}, 0},
        {"add.3", "add", "jit(f)/add", NULL, NULL, 13, {10, 12}, 0},
        {"inner_fusion", "fusion", NULL, NULL, "kLoop", 14, {13, 0}, 3},
        {"tuple.1", "tuple", NULL, NULL, NULL, 15, {14, 0}, 0},
    };
    put_computation(&hlo, "fused_computation", 2, fused, 6, 1);
    const ins_spec entry[] = {
        {"p0", "parameter", NULL, NULL, NULL, 1, {0, 0}, 0},
        {"broadcast_add_fusion", "fusion", "jit(f)/add", NULL, "kLoop", 2, {1, 0}, 2},
    };
    put_computation(&hlo, "main", 1, entry, 2, 0);
    put_varint_field(&hlo, 5, 42);
    put_varint_field(&hlo, 6, 1);
    msg_end(&hlo, mod);
    put_metadata_plane(&b, &hlo);

    size_t pl = plane_begin(&b, 2, "/device:TPU:0");
    put_stat_metas(&b, ST_PID, "program_id", "symbol_id", "hlo_category", NULL);
    emeta_marks m = emeta_begin(&b, 1, "broadcast_add_fusion");
    put_stat_u(&b, 5, ST_PID, 42);
    put_stat_u(&b, 5, ST_PID + 1, 5);
    put_stat_s(&b, 5, ST_PID + 2, "loop fusion");
    emeta_end(&b, m);
    size_t ln = line_begin(&b, 3, "XLA Ops");
    put_event(&b, 1, 0, 1000);
    put_event(&b, 1, 2000, 1000);
    msg_end(&b, ln);
    msg_end(&b, pl);

    pq_ops_result r;
    pq_profile *p = load(&b, &r);
    assert_int_equal(r.hw, PQ_OPS_HW_TPU);
    op_profile_tree t;
    assert_int_equal(op_profile_build(&r, OP_PROFILE_BY_PROGRAM, 1, &t), 0);
    int64_t leaf = find_node(&t, 0, "broadcast_add_fusion");
    assert_true(leaf >= 0);
    const op_profile_node *x = &t.n[leaf];
    assert_non_null(x->sym);
    assert_int_equal(x->m.occurrences, 2);
    assert_int_equal(x->nkids, 4);
    static const char *const names[] = {"constant.8", "broadcast.7", "add.3", "inner_fusion"};
    static const char *const texts[] = {
        "%constant.8 = f32[] constant(1)",
        "%broadcast.7 = f32[4]{0} broadcast(f32[] %constant.8), dimensions={}",
        "%add.3 = f32[4]{0} add(f32[4]{0} %param_0, f32[4]{0} %broadcast.7)",
        "%inner_fusion = f32[4]{0} fusion(f32[4]{0} %add.3), kind=kLoop, "
        "calls=%inner_computation"};
    static const char *const cats[] = {"non-fusion elementwise", "broadcast",
                                       "non-fusion elementwise", "loop fusion"};
    static const char *const provs[] = {":", ":", "jit(f)/add:", ":"};
    for (int i = 0; i < 4; i++) {
        const op_profile_node *k = &t.n[x->kids[i]];
        assert_str(op_profile_node_name(&t, k), names[i]);
        assert_non_null(k->fused);
        assert_null(k->sym);
        assert_str(k->fused->expression, texts[i]);
        assert_str(k->fused->category, cats[i]);
        assert_str(k->fused->provenance, provs[i]);
        assert_int_equal(k->m.occurrences, 1);
        assert_int_equal(k->m.time_ps, 0);
        assert_int_equal(k->nkids, i == 3 ? 1 : 0);
    }
    const op_profile_node *neg = &t.n[t.n[x->kids[3]].kids[0]];
    assert_str(neg->fused->expression, "%negate.5 = f32[4]{0} negate(f32[4]{0} %param_1)");
    op_profile_free(&t);
    ops_free(&r);
    pq_profile_free(p);
    tb_free(&b);
    tb_free(&hlo);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_duplicates),
        cmocka_unit_test(test_tpu_fused_children),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
