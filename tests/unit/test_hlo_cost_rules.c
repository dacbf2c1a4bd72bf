/* test_hlo_cost_rules.c - one case per opcode family profq's GPU cost analysis prices
 * (src/analysis/hlo_cost*.c), each a tiny HloProto built here and the FLOPs and bytes XLA's
 * GPU HloCostAnalysis gives it, the XLA function named in the case's comment
 * (HloCostAnalysis:: is xla/service/hlo_cost_analysis.cc, GpuHloCostAnalysis:: is
 * xla/service/gpu/model/gpu_hlo_cost_analysis.cc, XProfGpuCostAnalysis:: is xprof/utils/
 * xprof_gpu_cost_analysis.cc). The numbers were worked out by those rules and checked
 * against XProf 2.24.2 itself: with PQ_HLO_COST_DUMP=DIR the test writes every case's
 * HloProto to DIR/<case>.hlo.pb, and tests/conformance/gpu_cost.sh prices them with XProf
 * and compares every instruction with profq.
 *
 * Instructions are written in a small notation (see ins()): an id, an opcode, a shape such
 * as "f32[4,8]" or "(f32[8],s32[8])" (layouts major-to-minor, memory space 0), operand ids,
 * called computation ids, and extra HloInstructionProto fields: "14=1,2" a repeated varint,
 * "63:LT" a string ("43'...'" one with spaces), "15{1{1=3 2=1}}" a nested message; a
 * shape's "{0,1}" after its dimensions is its minor-to-major order. */
#include "testutil.h"

#include "analysis/hlo_cost.h"
#include "formats/hlo.h"
#include "model/model.h"

#include <ctype.h>
#include <string.h>

/* ---- the notation ---- */

typedef struct ins_spec {
    int64_t id;
    const char *op, *shape;
    int64_t ops[10];
    int64_t calls[3];
    const char *extra;
} ins_spec;

static int type_of(const char *t, size_t n)
{
    static const struct {
        const char *name;
        int type;
    } T[] = {{"pred", 1}, {"s8", 2},   {"s16", 3},   {"s32", 4},   {"s64", 5},
             {"u8", 6},   {"u16", 7},  {"u32", 8},   {"u64", 9},   {"f16", 10},
             {"f32", 11}, {"f64", 12}, {"bf16", 16}, {"token", 17}};
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++)
        if (strlen(T[i].name) == n && !memcmp(T[i].name, t, n))
            return T[i].type;
    fail_msg("unknown element type %.*s", (int)n, t);
    return 0;
}

/* Writes the ShapeProto of *S (advancing it) as field FIELD. */
static void put_shape_str(tbuf *b, uint64_t field, const char **s)
{
    size_t m = msg_begin(b, field);
    if (**s == '(') {
        put_varint_field(b, 2, 13);
        (*s)++;
        while (**s && **s != ')') {
            put_shape_str(b, 4, s);
            if (**s == ',')
                (*s)++;
        }
        (*s)++;
        msg_end(b, m);
        return;
    }
    const char *t = *s;
    while (isalnum((unsigned char)**s))
        (*s)++;
    put_varint_field(b, 2, (uint64_t)type_of(t, (size_t)(*s - t)));
    int nd = 0;
    if (**s == '[') {
        (*s)++;
        while (**s && **s != ']') {
            put_varint_field(b, 3, strtoull(*s, (char **)s, 10));
            nd++;
            if (**s == ',')
                (*s)++;
        }
        (*s)++;
    }
    size_t l = msg_begin(b, 5);
    if (**s == '{') { /* an explicit minor-to-major order */
        do {
            (*s)++;
            if (**s != '}')
                put_varint_field(b, 1, strtoull(*s, (char **)s, 10));
        } while (**s == ',');
        (*s)++;
    } else {
        for (int i = nd - 1; i >= 0; i--)
            put_varint_field(b, 1, (uint64_t)i);
    }
    msg_end(b, l);
    msg_end(b, m);
}

/* String field NUM: the N bytes at V. */
static void put_str_n(tbuf *b, uint64_t num, const char *v, size_t n)
{
    char tmp[512];
    n = n < sizeof tmp - 1 ? n : sizeof tmp - 1;
    memcpy(tmp, v, n);
    tmp[n] = 0;
    put_str_field(b, num, tmp);
}

/* Writes the extra fields of notation *S until '}' or the end (advancing *S). */
static void put_extra(tbuf *b, const char **s)
{
    while (**s && **s != '}') {
        if (**s == ' ') {
            (*s)++;
            continue;
        }
        uint64_t num = strtoull(*s, (char **)s, 10);
        if (**s == '=') {
            do {
                (*s)++;
                put_varint_field(b, num, (uint64_t)strtoll(*s, (char **)s, 10));
            } while (**s == ',');
        } else if (**s == ':') {
            const char *v = ++*s;
            while (**s && **s != ' ' && **s != '}')
                (*s)++;
            put_str_n(b, num, v, (size_t)(*s - v));
        } else if (**s == '\'') { /* a quoted string, spaces and braces included */
            const char *v = ++*s;
            while (**s && **s != '\'')
                (*s)++;
            put_str_n(b, num, v, (size_t)(*s - v));
            if (**s)
                (*s)++;
        } else if (**s == '{') {
            (*s)++;
            size_t m = msg_begin(b, num);
            put_extra(b, s);
            msg_end(b, m);
            if (**s == '}')
                (*s)++;
        } else {
            fail_msg("bad notation at %s", *s);
        }
    }
}

static void put_ins_spec(tbuf *b, const ins_spec *x, int64_t param)
{
    char name[32];
    snprintf(name, sizeof name, "i%lld", (long long)x->id);
    size_t m = msg_begin(b, 2);
    put_str_field(b, 1, name);
    put_str_field(b, 2, x->op);
    const char *s = x->shape;
    put_shape_str(b, 3, &s);
    if (param >= 0)
        put_varint_field(b, 9, (uint64_t)param);
    put_varint_field(b, 35, (uint64_t)x->id);
    for (int i = 0; i < 10 && x->ops[i]; i++)
        put_varint_field(b, 36, (uint64_t)x->ops[i]);
    for (int i = 0; i < 3 && x->calls[i]; i++)
        put_varint_field(b, 38, (uint64_t)x->calls[i]);
    if (x->extra) {
        const char *e = x->extra;
        put_extra(b, &e);
    }
    msg_end(b, m);
}

/* The ProgramShape (parameters in order, the last instruction's shape) as field FIELD. */
static void put_program_shape(tbuf *b, uint64_t field, const ins_spec *v, size_t n)
{
    size_t ps = msg_begin(b, field);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i].op, "parameter")) {
            const char *s = v[i].shape;
            put_shape_str(b, 1, &s);
        }
    const char *r = v[n - 1].shape;
    put_shape_str(b, 2, &r);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i].op, "parameter")) {
            char pn[32];
            snprintf(pn, sizeof pn, "i%lld", (long long)v[i].id);
            put_str_field(b, 3, pn);
        }
    msg_end(b, ps);
}

/* A computation: its instructions (parameters numbered in order), its program shape. */
static void put_comp_spec(tbuf *b, int64_t id, const ins_spec *v, size_t n)
{
    char name[32];
    snprintf(name, sizeof name, "c%lld", (long long)id);
    size_t c = msg_begin(b, 3);
    put_str_field(b, 1, name);
    int64_t param = 0;
    for (size_t i = 0; i < n; i++)
        put_ins_spec(b, &v[i], strcmp(v[i].op, "parameter") ? -1 : param++);
    put_program_shape(b, 4, v, n);
    put_varint_field(b, 5, (uint64_t)id);
    put_varint_field(b, 6, (uint64_t)v[n - 1].id); /* the last instruction is the root */
    msg_end(b, c);
}

/* ---- a module: computations added one by one, the entry last ---- */

typedef struct mod {
    tbuf b;
    size_t at;
    const char *name;
    const ins_spec *entry; /* the last computation added, the entry */
    size_t nentry;
    arena a;
    hlo_module *m;
    hlo_cost_model *cm;
} mod;

static void mod_begin(mod *md, const char *name)
{
    memset(md, 0, sizeof *md);
    tb_init(&md->b);
    md->name = name;
    md->at = msg_begin(&md->b, 1);
    put_str_field(&md->b, 1, name);
}

#define COMP(md, id, ...)                                                                          \
    do {                                                                                           \
        static const ins_spec v_[] = {__VA_ARGS__};                                                \
        put_comp_spec(&(md)->b, id, v_, sizeof v_ / sizeof v_[0]);                                 \
        (md)->entry = v_;                                                                          \
        (md)->nentry = sizeof v_ / sizeof v_[0];                                                   \
    } while (0)

/* Ends the module with entry computation ENTRY (whose program shape is the host's), writes
 * it to $PQ_HLO_COST_DUMP when set, decodes and analyses it. */
static void mod_end(mod *md, int64_t entry)
{
    char en[32];
    snprintf(en, sizeof en, "c%lld", (long long)entry);
    put_str_field(&md->b, 2, en);
    put_program_shape(&md->b, 4, md->entry, md->nentry);
    put_varint_field(&md->b, 5, 1);
    put_varint_field(&md->b, 6, (uint64_t)entry);
    msg_end(&md->b, md->at);
    const char *dir = getenv("PQ_HLO_COST_DUMP");
    if (dir && *dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.hlo.pb", dir, md->name);
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(md->b.p, 1, md->b.n, f), md->b.n);
        fclose(f);
    }
    arena_init(&md->a);
    int64_t off;
    const char *what;
    assert_int_equal(hlo_decode(md->b.p, md->b.n, md->b.p, &md->a, &md->m, &off, &what), PQ_OK);
    assert_int_equal(hlo_cost_analyze(md->m, &md->a, &md->cm), PQ_OK);
}

static void mod_free(mod *md)
{
    arena_release(&md->a);
    tb_free(&md->b);
}

/* Asserts instruction ID's FLOPs, bytes accessed, HBM bytes read and written. */
static void expect(const mod *md, int64_t id, double flops, double bytes, double rd, double wr)
{
    hlo_cost c;
    const hlo_instruction *ins = hlo_instruction_by_id(md->m, id);
    assert_non_null(ins);
    assert_int_equal(hlo_cost_get(md->cm, ins, &c), 1);
    if (c.flops != flops || c.bytes != bytes || c.hbm_read != rd || c.hbm_written != wr)
        fail_msg("%s i%lld: flops %.0f bytes %.0f read %.0f written %.0f, expected %.0f %.0f "
                 "%.0f %.0f",
                 md->name, (long long)id, c.flops, c.bytes, c.hbm_read, c.hbm_written, flops, bytes,
                 rd, wr);
}

#define PARAM(id_, shape_)                                                                         \
    {                                                                                              \
        .id = id_, .op = "parameter", .shape = shape_                                              \
    }
/* An f32 add reducer / scatter combiner, computation ID (ids ID+1..ID+3). */
#define ADDER(md, id_)                                                                             \
    COMP(md, id_, PARAM(id_ + 1, "f32[]"), PARAM(id_ + 2, "f32[]"),                                \
         {.id = id_ + 3, .op = "add", .shape = "f32[]", .ops = {id_ + 1, id_ + 2}})

/* ---- the cases ---- */

/* GpuHloCostAnalysis::HandleElementwiseOp (FlopsPerElement, the sm_86 profile): add f32 is not
 * listed, 3 per element; sine f32 662; divide f64 2016. HloCostAnalysis::Preprocess: bytes are
 * the operands and the output. XProfGpuCostAnalysis::DefaultPostprocess halves 8-bit FLOPs on
 * the device only. */
static void elementwise(void **state)
{
    (void)state;
    mod md;
    mod_begin(&md, "elementwise");
    COMP(&md, 10, PARAM(1, "f32[1000]"), PARAM(2, "f64[100]"),
         {.id = 3, .op = "add", .shape = "f32[1000]", .ops = {1, 1}},
         {.id = 4, .op = "sine", .shape = "f32[1000]", .ops = {3}},
         {.id = 5, .op = "divide", .shape = "f64[100]", .ops = {2, 2}},
         {.id = 6, .op = "tuple", .shape = "(f32[1000],f64[100])", .ops = {4, 5}});
    mod_end(&md, 10);
    expect(&md, 3, 3000, 12000, 8000, 4000);
    expect(&md, 4, 662000, 8000, 4000, 4000);
    expect(&md, 5, 201600, 2400, 1600, 800);
    mod_free(&md);
}

/* HloCostAnalysis::HandleDot / GetDotFlops: 2 x output elements x contracted size,
 * 2 x 4 x 16 x 8. */
static void dot(void **state)
{
    (void)state;
    mod md;
    mod_begin(&md, "dot");
    COMP(&md, 10, PARAM(1, "f32[4,8]"), PARAM(2, "f32[8,16]"),
         {.id = 3, .op = "dot", .shape = "f32[4,16]", .ops = {1, 2}, .extra = "30{1=1 2=0}"});
    mod_end(&md, 10);
    expect(&md, 3, 1024, 896, 640, 256);
    mod_free(&md);
}

/* HloCostAnalysis::GetConvolutionFlops: 2 x input features x output features x batch x the
 * valid (kernel, output) position pairs, a 3-wide kernel with padding 1 over 4 giving
 * 3 + 4 + 3 = 10 per spatial dimension: 2 x 2 x 4 x 1 x 100 = 1600. Bytes: input 128,
 * kernel 288, output 256. */
static void convolution(void **state)
{
    (void)state;
    mod md;
    mod_begin(&md, "convolution");
    COMP(&md, 10, PARAM(1, "f32[1,2,4,4]"), PARAM(2, "f32[4,2,3,3]"),
         {.id = 3,
          .op = "convolution",
          .shape = "f32[1,4,4,4]",
          .ops = {1, 2},
          .extra = "15{1{1=3 2=1 3=1 4=1 5=1 6=1} 1{1=3 2=1 3=1 4=1 5=1 6=1}} "
                   "16{7=0 8=1 11=2,3 3=1 4=0 6=2,3 9=0 10=1 12=2,3} 50=1 58=1"});
    mod_end(&md, 10);
    expect(&md, 3, 1600, 672, 416, 256);
    mod_free(&md);
}

/* GpuHloCostAnalysis::HandleReduce over HloCostAnalysis::HandleReduce: the reducer (add, 3)
 * runs (in - out) times, 3 x (1024 - 8); bytes: the input, the output, and the init value
 * read once per output element (4 x 8). */
static void reduce(void **state)
{
    (void)state;
    mod md;
    mod_begin(&md, "reduce");
    ADDER(&md, 20);
    COMP(&md, 10, PARAM(1, "f32[8,128]"), PARAM(2, "f32[]"),
         {.id = 3,
          .op = "reduce",
          .shape = "f32[8]",
          .ops = {1, 2},
          .calls = {20},
          .extra = "14=1"});
    mod_end(&md, 10);
    expect(&md, 3, 3048, 4096 + 32 + 32, 4096 + 32, 32);
    mod_free(&md);
}

/* GpuHloCostAnalysis::HandleConcatenate: 6 FLOPs per element along the major dimension; 400
 * when the dimension is not 0 and operand 0's size in it is not a multiple of 32; no operand
 * utilization (so a fusion's parameters are read once). */
static void concatenate(void **state)
{
    (void)state;
    mod md;
    mod_begin(&md, "concatenate");
    COMP(&md, 20, PARAM(21, "s32[2]"),
         {.id = 22, .op = "constant", .shape = "s32[1]", .extra = "8{1{2=4 3=1 5{1=0}} 4=7}"},
         {.id = 23, .op = "concatenate", .shape = "s32[3]", .ops = {21, 22}, .extra = "14=0"});
    COMP(&md, 10, PARAM(1, "f32[4,3]"), PARAM(2, "f32[4,5]"), PARAM(4, "s32[2]"),
         {.id = 3, .op = "concatenate", .shape = "f32[4,8]", .ops = {1, 2}, .extra = "14=1"},
         {.id = 5, .op = "concatenate", .shape = "f32[8,3]", .ops = {1, 1}, .extra = "14=0"},
         {.id = 6,
          .op = "fusion",
          .shape = "s32[3]",
          .ops = {4},
          .calls = {20},
          .extra = "11:kInput"},
         {.id = 7, .op = "tuple", .shape = "(f32[4,8],f32[8,3],s32[3])", .ops = {3, 5, 6}});
    mod_end(&md, 10);
    expect(&md, 3, 400 * 32, 256, 128, 128);
    expect(&md, 5, 6 * 24, 192, 96, 96);
    expect(&md, 6, 18, 20, 8, 12);
    mod_free(&md);
}

/* HloCostAnalysis::HandleSlice, HandleDynamicSlice, HandleDynamicUpdateSlice: a slice reads
 * what it writes; a dynamic slice also its indices; a dynamic-update-slice writes and reads
 * only the update (operand 0 aliases the output). HandlePad, HandleCopy, HandleReverse,
 * HandleIota, HandleBroadcast, HandleTranspose (not a bitcast): Preprocess's bytes, no FLOPs. */
static void data_movement(void **state)
{
    (void)state;
    mod md;
    mod_begin(&md, "data_movement");
    COMP(&md, 10, PARAM(1, "f32[64]"), PARAM(2, "s32[]"), PARAM(3, "f32[8]"), PARAM(11, "f32[4,8]"),
         PARAM(15, "f32[]"),
         {.id = 4, .op = "slice", .shape = "f32[16]", .ops = {1}, .extra = "17{1=0 2=16 3=1}"},
         {.id = 5, .op = "dynamic-slice", .shape = "f32[8]", .ops = {1, 2}, .extra = "20=8"},
         {.id = 6, .op = "dynamic-update-slice", .shape = "f32[64]", .ops = {1, 3, 2}},
         {.id = 7, .op = "pad", .shape = "f32[66]", .ops = {1, 15}, .extra = "21{1{1=1 2=1 3=0}}"},
         {.id = 8, .op = "copy", .shape = "f32[64]", .ops = {1}},
         {.id = 9, .op = "reverse", .shape = "f32[64]", .ops = {1}, .extra = "14=0"},
         {.id = 10, .op = "iota", .shape = "s32[32]", .extra = "14=0"},
         {.id = 12, .op = "broadcast", .shape = "f32[4,8,2]", .ops = {11}, .extra = "14=0,1"},
         {.id = 13, .op = "transpose", .shape = "f32[8,4]", .ops = {11}, .extra = "14=1,0"},
         {.id = 14,
          .op = "tuple",
          .shape = "(f32[16],f32[8],f32[64],f32[66],f32[64],f32[64],s32[32],f32[4,8,2],f32[8,4])",
          .ops = {4, 5, 6, 7, 8, 9, 10, 12, 13}});
    mod_end(&md, 10);
    expect(&md, 4, 0, 128, 64, 64);
    expect(&md, 5, 0, 68, 36, 32);
    expect(&md, 6, 0, 68, 36, 32);
    expect(&md, 8, 0, 512, 256, 256);
    expect(&md, 9, 0, 512, 256, 256);
    expect(&md, 10, 0, 128, 0, 128);
    expect(&md, 12, 0, 384, 128, 256);
    expect(&md, 13, 0, 256, 128, 128);
    mod_free(&md);
}

/* HloCostAnalysis::HandleBitcast, HandleGetTupleElement, HandleTuple, HandleParameter,
 * HandleConstant: a bitcast and a get-tuple-element touch no memory, a tuple writes its
 * index table (8 bytes a pointer), parameters and constants cost nothing. HandleTranspose:
 * a transpose whose layouts make it a bitcast (ShapeUtil::TransposeIsBitcast) is one. */
static void structural(void **state)
{
    (void)state;
    mod md;
    mod_begin(&md, "structural");
    COMP(&md, 10, PARAM(1, "f32[4,8]"), {.id = 2, .op = "bitcast", .shape = "f32[32]", .ops = {1}},
         {.id = 3, .op = "tuple", .shape = "(f32[32],f32[4,8])", .ops = {2, 1}},
         {.id = 4, .op = "get-tuple-element", .shape = "f32[32]", .ops = {3}, .extra = "13=0"},
         {.id = 5, .op = "transpose", .shape = "f32[8,4]{0,1}", .ops = {1}, .extra = "14=1,0"},
         {.id = 6, .op = "tuple", .shape = "(f32[32],f32[8,4]{0,1})", .ops = {4, 5}});
    mod_end(&md, 10);
    expect(&md, 5, 0, 0, 0, 0);
    expect(&md, 1, 0, 0, 0, 0);
    expect(&md, 2, 0, 0, 0, 0);
    expect(&md, 3, 0, 16, 0, 0);
    expect(&md, 4, 0, 0, 0, 0);
    mod_free(&md);
}

/* HloCostAnalysis::HandleGather: the output copied from the input plus the indices, no
 * FLOPs. HandleScatter: 3 x the updates plus the indices, the combiner (3) per update
 * element. */
static void gather_scatter(void **state)
{
    (void)state;
    mod md;
    mod_begin(&md, "gather_scatter");
    ADDER(&md, 20);
    COMP(&md, 10, PARAM(1, "f32[64,8]"), PARAM(2, "s32[4,1]"), PARAM(3, "f32[4,8]"),
         {.id = 4,
          .op = "gather",
          .shape = "f32[4,8]",
          .ops = {1, 2},
          .extra = "33{1=1 2=0 3=0 4=1} 34=1,8"},
         {.id = 5,
          .op = "scatter",
          .shape = "f32[64,8]",
          .ops = {1, 2, 3},
          .calls = {20},
          .extra = "48{1=1 2=0 3=0 4=1}"},
         {.id = 6, .op = "tuple", .shape = "(f32[4,8],f32[64,8])", .ops = {4, 5}});
    mod_end(&md, 10);
    expect(&md, 4, 0, 128 * 2 + 16, 128 + 16, 128);
    expect(&md, 5, 96, 128 * 3 + 16, 128 + 16 + 128, 128);
    mod_free(&md);
}

/* HloCostAnalysis::HandleSort: n x ceil(log2 n) FLOPs; a tuple result's bytes are its arrays'
 * (Preprocess), its HBM writes the per-element keys nothing sets (0). HandleReduceWindow: the
 * reducer per window element but one, per output element, 3 x (4 - 1) x 16; HandleSelect-
 * AndScatter: the select per source element and window element but one plus the scatter per
 * source element, 3 x 16 x 3 + 3 x 16. */
static void sort_and_windows(void **state)
{
    (void)state;
    mod md;
    mod_begin(&md, "sort_and_windows");
    ADDER(&md, 20);
    COMP(&md, 30, PARAM(31, "f32[]"), PARAM(32, "f32[]"), PARAM(33, "s32[]"), PARAM(34, "s32[]"),
         {.id = 35, .op = "compare", .shape = "pred[]", .ops = {31, 32}, .extra = "63:LT"});
    COMP(&md, 40, PARAM(41, "f32[]"), PARAM(42, "f32[]"),
         {.id = 43, .op = "compare", .shape = "pred[]", .ops = {41, 42}, .extra = "63:GE"});
    COMP(
        &md, 10, PARAM(1, "f32[8]"), PARAM(2, "s32[8]"), PARAM(3, "f32[8,8]"), PARAM(4, "f32[]"),
        PARAM(5, "f32[4,4]"),
        {.id = 6,
         .op = "sort",
         .shape = "(f32[8],s32[8])",
         .ops = {1, 2},
         .calls = {30},
         .extra = "14=0"},
        {.id = 7,
         .op = "reduce-window",
         .shape = "f32[4,4]",
         .ops = {3, 4},
         .calls = {20},
         .extra = "15{1{1=2 2=2 5=1 6=1} 1{1=2 2=2 5=1 6=1}}"},
        {.id = 8,
         .op = "select-and-scatter",
         .shape = "f32[8,8]",
         .ops = {3, 5, 4},
         .calls = {40, 20},
         .extra = "15{1{1=2 2=2 5=1 6=1} 1{1=2 2=2 5=1 6=1}}"},
        {.id = 9, .op = "tuple", .shape = "((f32[8],s32[8]),f32[4,4],f32[8,8])", .ops = {6, 7, 8}});
    mod_end(&md, 10);
    expect(&md, 6, 24, 128, 64, 0);
    expect(&md, 7, 144, 256 + 4 + 64, 260, 64);
    expect(&md, 8, 192, 256 + 64 + 4 + 256, 324, 256);
    mod_free(&md);
}

/* HloCostAnalysis::HandleFusion with GpuHloCostAnalysis::FusionCalculateUtilizations and
 * FusionParameterReadBytes: FLOPs are the fused instructions' times their utilization (a
 * broadcast makes the scalar's 32); bytes the output and each parameter once, here the
 * slice's quarter of p0 (llround(256 x 0.25)); a nested fusion counts its own FLOPs. */
static void fusions(void **state)
{
    (void)state;
    mod md;
    mod_begin(&md, "fusions");
    COMP(&md, 40, PARAM(41, "f32[16]"),
         {.id = 42, .op = "exponential", .shape = "f32[16]", .ops = {41}});
    COMP(&md, 30, PARAM(31, "f32[64]"), PARAM(32, "f32[]"),
         {.id = 33, .op = "slice", .shape = "f32[16]", .ops = {31}, .extra = "17{1=0 2=16 3=1}"},
         {.id = 34, .op = "broadcast", .shape = "f32[16]", .ops = {32}},
         {.id = 35, .op = "multiply", .shape = "f32[16]", .ops = {33, 34}},
         {.id = 36,
          .op = "fusion",
          .shape = "f32[16]",
          .ops = {35},
          .calls = {40},
          .extra = "11:kLoop"});
    COMP(&md, 10, PARAM(1, "f32[64]"), PARAM(2, "f32[]"),
         {.id = 3,
          .op = "fusion",
          .shape = "f32[16]",
          .ops = {1, 2},
          .calls = {30},
          .extra = "11:kLoop"});
    mod_end(&md, 10);
    /* multiply 3 x 16, the nested fusion's exponential 86 x 16 */
    expect(&md, 3, 48 + 1376, 64 + 64 + 4, 68, 64);
    mod_free(&md);
}

/* GpuHloCostAnalysis::HandleCustomCall: a cuDNN convolution counts GetConvolutionFlops and
 * only its result (not the scratch buffer) as output; any other target (a legacy cuBLAS
 * gemm among them) is unknown: XLA's -1, no cost in XProf. */
static void custom_calls(void **state)
{
    (void)state;
    mod md;
    mod_begin(&md, "custom_calls");
    COMP(&md, 10, PARAM(1, "f32[1,2,4,4]"), PARAM(2, "f32[4,2,3,3]"), PARAM(4, "f32[4,8]"),
         {.id = 3,
          .op = "custom-call",
          .shape = "(f32[1,4,4,4],u8[100])",
          .ops = {1, 2},
          .extra = "28:__cudnn$convForward 15{1{1=3 2=1 3=1 4=1 5=1 6=1} "
                   "1{1=3 2=1 3=1 4=1 5=1 6=1}} 16{7=0 8=1 11=2,3 3=1 4=0 6=2,3 9=0 10=1 "
                   "12=2,3} 50=1 58=1"},
         {.id = 5,
          .op = "custom-call",
          .shape = "f32[4,8]",
          .ops = {4, 4},
          .extra = "28:__cublas$gemm"},
         PARAM(7, "f32[8,16]"),
         {.id = 8,
          .op = "custom-call",
          .shape = "(f32[4,16],s8[1024])",
          .ops = {4, 7},
          .extra = "28:__cublas$lt$matmul 43'{\"gemm_backend_config\":{\"alpha_real\":1,"
                   "\"beta\":0,\"dot_dimension_numbers\":{\"lhs_contracting_dimensions\":"
                   "[\"1\"],\"rhs_contracting_dimensions\":[\"0\"],"
                   "\"lhs_batch_dimensions\":[],\"rhs_batch_dimensions\":[]},"
                   "\"alpha_imag\":0,\"epilogue\":\"DEFAULT\"}}'"},
         {.id = 6,
          .op = "tuple",
          .shape = "((f32[1,4,4,4],u8[100]),f32[4,8],(f32[4,16],s8[1024]))",
          .ops = {3, 5, 8}});
    mod_end(&md, 10);
    expect(&md, 3, 1600, 416 + 256, 416, 0);
    expect(&md, 5, 0, 0, 0, 0);
    /* a cuBLASLt matmul: GetDotFlops from the backend config, 2 x 4 x 16 x 8; the
     * workspace is not written */
    expect(&md, 8, 1024, 640 + 256, 640, 0);
    mod_free(&md);
}

/* GpuHloCostAnalysis::HandleAllReduce: the reducer's elementwise FLOPs per element, outputs
 * and inputs; HandleAllReduceStart: the bytes transferred only; HandleAllGather: ring traffic
 * of the gathered bytes over 4 ranks, rank bytes x (2n-1) written plus x n read;
 * HandleReduceScatter: the operands' bytes, x n written, x (2n-1) read, plus the reducer's
 * FLOPs; HloCostAnalysis::HandleCollectivePermute, HandleAllToAll: Preprocess's bytes. */
static void collectives(void **state)
{
    (void)state;
    mod md;
    mod_begin(&md, "collectives");
    ADDER(&md, 20);
    COMP(&md, 10, PARAM(1, "f32[16]"), PARAM(2, "f32[4]"),
         {.id = 3,
          .op = "all-reduce",
          .shape = "f32[16]",
          .ops = {1},
          .calls = {20},
          .extra = "26=1 71=1 49{1=0,1,2,3}"},
         {.id = 4,
          .op = "all-reduce-start",
          .shape = "f32[16]",
          .ops = {1},
          .calls = {20},
          .extra = "26=2 71=1 49{1=0,1,2,3}"},
         {.id = 5,
          .op = "all-gather",
          .shape = "f32[16]",
          .ops = {2},
          .extra = "26=3 71=1 14=0 49{1=0,1,2,3}"},
         {.id = 6,
          .op = "reduce-scatter",
          .shape = "f32[4]",
          .ops = {1},
          .calls = {20},
          .extra = "26=4 71=1 14=0 49{1=0,1,2,3}"},
         {.id = 7,
          .op = "collective-permute",
          .shape = "f32[4]",
          .ops = {2},
          .extra = "26=5 39{1=0 2=1} 39{1=1 2=0}"},
         {.id = 8,
          .op = "tuple",
          .shape = "(f32[16],f32[16],f32[16],f32[4],f32[4])",
          .ops = {3, 4, 5, 6}});
    mod_end(&md, 10);
    expect(&md, 3, 48, 128, 64, 64);
    expect(&md, 4, 48, 64, 64, 64);
    expect(&md, 5, 0, 16 * 7 + 16 * 4, 16, 64);
    expect(&md, 6, 12, 16 * 4 + 16 * 7, 64, 16);
    expect(&md, 7, 0, 32, 16, 16);
    mod_free(&md);
}

/* GpuHloCostAnalysis's NumRanks fails for an all-reduce with global device ids and no
 * replica groups; InitializeHloCostAnalysis then returns the error and XProf prices no
 * instruction of the module. */
static void failing_module(void **state)
{
    (void)state;
    mod md;
    mod_begin(&md, "failing_module");
    ADDER(&md, 20);
    COMP(&md, 10, PARAM(1, "f32[16]"), {.id = 2, .op = "negate", .shape = "f32[16]", .ops = {1}},
         {.id = 3,
          .op = "all-reduce",
          .shape = "f32[16]",
          .ops = {2},
          .calls = {20},
          .extra = "26=1 71=1"});
    mod_end(&md, 10);
    hlo_cost c;
    assert_int_equal(hlo_cost_get(md.cm, hlo_instruction_by_id(md.m, 2), &c), 0);
    assert_int_equal(hlo_cost_get(md.cm, hlo_instruction_by_id(md.m, 3), &c), 0);
    mod_free(&md);
}

/* HloCostAnalysis::HandleWhile: one iteration of the body plus the condition, every
 * property summed, the operand and output bytes too (the body's operand-0 bytes are the
 * loop's); HandleConditional: each property's largest over the branches; HandleCall: the
 * computation's; HandleMap: the computation's FLOPs per element. */
static void control_flow(void **state)
{
    (void)state;
    mod md;
    mod_begin(&md, "control_flow");
    COMP(&md, 20, PARAM(21, "(s32[],f32[8])"),
         {.id = 22, .op = "get-tuple-element", .shape = "s32[]", .ops = {21}, .extra = "13=0"},
         {.id = 23, .op = "get-tuple-element", .shape = "f32[8]", .ops = {21}, .extra = "13=1"},
         {.id = 24, .op = "add", .shape = "s32[]", .ops = {22, 22}},
         {.id = 25, .op = "sine", .shape = "f32[8]", .ops = {23}},
         {.id = 26, .op = "tuple", .shape = "(s32[],f32[8])", .ops = {24, 25}});
    COMP(&md, 30, PARAM(31, "(s32[],f32[8])"),
         {.id = 32, .op = "get-tuple-element", .shape = "s32[]", .ops = {31}, .extra = "13=0"},
         {.id = 33, .op = "compare", .shape = "pred[]", .ops = {32, 32}, .extra = "63:LT"});
    COMP(&md, 40, PARAM(41, "f32[8]"), {.id = 42, .op = "negate", .shape = "f32[8]", .ops = {41}});
    COMP(&md, 50, PARAM(51, "f32[8]"),
         {.id = 52, .op = "exponential", .shape = "f32[8]", .ops = {51}});
    COMP(&md, 60, PARAM(61, "f32[]"), {.id = 62, .op = "sine", .shape = "f32[]", .ops = {61}});
    COMP(&md, 10, PARAM(1, "(s32[],f32[8])"), PARAM(2, "s32[]"), PARAM(3, "f32[8]"),
         {.id = 4,
          .op = "while",
          .shape = "(s32[],f32[8])",
          .ops = {1},
          .calls = {30, 20},
          .extra = ""},
         {.id = 5, .op = "conditional", .shape = "f32[8]", .ops = {2, 3, 3}, .calls = {40, 50}},
         {.id = 6, .op = "call", .shape = "f32[8]", .ops = {3}, .calls = {50}},
         {.id = 7, .op = "map", .shape = "f32[8]", .ops = {3}, .calls = {60}, .extra = "14=0"},
         {.id = 8,
          .op = "tuple",
          .shape = "((s32[],f32[8]),f32[8],f32[8],f32[8])",
          .ops = {4, 5, 6, 7}});
    mod_end(&md, 10);
    /* body: add 3 + sine 662 x 8, bytes 12 + 64 + 16; condition: compare 3, bytes 9 */
    expect(&md, 4, 3 + 5296 + 3, 12 + 64 + 16 + 9, 0, 0);
    /* the exponential branch: 86 x 8 FLOPs; operand 0 bytes (32) of the branch's ops */
    expect(&md, 5, 688, 64, 32, 32);
    expect(&md, 6, 688, 64, 32, 32);
    expect(&md, 7, 5296, 64, 32, 32);
    mod_free(&md);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(elementwise),      cmocka_unit_test(dot),
        cmocka_unit_test(convolution),      cmocka_unit_test(reduce),
        cmocka_unit_test(concatenate),      cmocka_unit_test(data_movement),
        cmocka_unit_test(structural),       cmocka_unit_test(gather_scatter),
        cmocka_unit_test(sort_and_windows), cmocka_unit_test(fusions),
        cmocka_unit_test(custom_calls),     cmocka_unit_test(collectives),
        cmocka_unit_test(failing_module),   cmocka_unit_test(control_flow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
