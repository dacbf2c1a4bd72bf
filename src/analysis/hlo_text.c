/* hlo_text.c - prints one HLO instruction in XLA's text format, as
 * HloInstruction::ToString(HloPrintOptions) does with the options XProf sets for its op
 * expressions (UncachedExpression in xprof/utils/hlo_module_utils.h: print_metadata,
 * print_backend_config and print_infeed_outfeed_config off, print_operand_shape on,
 * print_large_constants off; the rest XLA's defaults: "%" before names, result shape with
 * layout, called computations by name, control predecessors). Layout:
 *
 *   %name = <shape> opcode(<operand shape> %operand, ...), attr=..., attr=...
 *
 * The attributes each opcode's PrintExtraAttributesImpl writes come first, then the called
 * computations (calls= / to_apply= / condition=, body= / branch_computations= / ...), then
 * frontend_attributes and control-predecessors. The attributes are read again from the
 * instruction's serialized HloInstructionProto (hlo_instruction.raw); field numbers are
 * xla/service/hlo.proto's. docs/internals/hlo_text.md lists what is printed and what is not
 * (original values, statistics). Not here: decoding (formats/hlo.c), shapes
 * (formats/hlo_shape.c). */
#include "analysis/hlo_text.h"
#include "analysis/hlo_text_internal.h"

#include "formats/pbwire.h"
#include "model/model.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading fields of a serialized message ---- */

/* The last occurrence of field NUM of MSG in *OUT; 0 when absent. */
int ht_field(pq_str msg, uint32_t num, pb_field *out)
{
    pb_cursor c;
    pb_field f = {0};
    int found = 0;
    pb_init(&c, (const uint8_t *)msg.p, msg.n, NULL);
    while (pb_next(&c, &f) == PB_FIELD)
        if (f.num == num) {
            *out = f;
            found = 1;
        }
    return found;
}

pq_str ht_field_bytes(pq_str msg, uint32_t num)
{
    pb_field f;
    if (ht_field(msg, num, &f) && f.wire == PB_LEN)
        return pq_str_of((const char *)f.data, f.len);
    return pq_str_of("", 0);
}

int64_t ht_field_int(pq_str msg, uint32_t num, int64_t dflt)
{
    pb_field f;
    if (ht_field(msg, num, &f) && f.wire == PB_VARINT)
        return (int64_t)f.u;
    return dflt;
}

/* Every value of the repeated integer field NUM of MSG (packed or not), at most MAX_INTS. */
uint32_t ht_field_ints(pq_str msg, uint32_t num, int64_t *out)
{
    pb_cursor c;
    pb_field f = {0};
    uint32_t n = 0;
    pb_init(&c, (const uint8_t *)msg.p, msg.n, NULL);
    while (pb_next(&c, &f) == PB_FIELD) {
        if (f.num != num)
            continue;
        pb_repeated r;
        uint64_t v;
        if (!pb_repeated_init(&r, &c, &f, PB_VARINT))
            break;
        while (pb_repeated_next(&r, &v) == PB_FIELD && n < MAX_INTS)
            out[n++] = (int64_t)v;
    }
    return n;
}

/* ---- printing pieces ---- */

static void put_int_list(buf *b, const int64_t *v, uint32_t n)
{
    buf_putc(b, '{');
    for (uint32_t i = 0; i < n; i++)
        buf_printf(b, i ? ",%" PRId64 : "%" PRId64, v[i]);
    buf_putc(b, '}');
}

/* ", KEY={a,b}" from the repeated field NUM of MSG; when ALWAYS is 0, only if non-empty. */
static void put_ints_attr(buf *b, const char *key, pq_str msg, uint32_t num, int always)
{
    int64_t v[MAX_INTS];
    uint32_t n = ht_field_ints(msg, num, v);
    if (!n && !always)
        return;
    buf_printf(b, ", %s=", key);
    put_int_list(b, v, n);
}

static void put_name(buf *b, pq_str name)
{
    buf_putc(b, '%');
    buf_put(b, name.p, name.n);
}

static const hlo_computation *computation_by_id(const hlo_module *m, int64_t id)
{
    for (uint32_t i = 0; i < m->ncomputations; i++)
        if (m->computations[i].id == id)
            return &m->computations[i];
    return NULL;
}

static void put_computation(buf *b, const hlo_module *m, int64_t id)
{
    const hlo_computation *c = computation_by_id(m, id);
    if (c)
        put_name(b, c->name);
    else
        buf_puts(b, "%<unknown>");
}

/* A C-escaped string as absl::CEscape writes it. */
static void put_escaped(buf *b, pq_str s)
{
    static const char FROM[] = "\n\r\t\"'\\", TO[] = "nrt\"'\\";
    for (size_t i = 0; i < s.n; i++) {
        unsigned char ch = (unsigned char)s.p[i];
        const char *e = ch ? strchr(FROM, ch) : NULL;
        if (e) {
            buf_putc(b, '\\');
            buf_putc(b, TO[e - FROM]);
        } else if (ch < 0x20 || ch >= 0x7f) {
            buf_printf(b, "\\%03o", ch);
        } else {
            buf_putc(b, (char)ch);
        }
    }
}

/* ---- constants (Literal::PrintWithoutShapeOneline) ---- */

static float bf16_to_float(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static float f16_to_float(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    float v = e == 0    ? ldexpf((float)m, -24)
              : e == 31 ? (m ? NAN : INFINITY)
                        : ldexpf((float)(m | 1024), e - 25);
    return (h & 0x8000) ? -v : v;
}

/* XLA's RoundTripFpToString: "nan", "inf", "-inf"; f32 and f64 with %g of digits10 digits,
 * max_digits10 when that does not read back to the same value; bf16 and f16 with %g of their
 * max_digits10 (4 and 5) always. KIND: 64 f64, 32 f32, 16 f16, 8 bf16. */
static void put_float(buf *b, double v, int kind)
{
    if (isnan(v)) {
        buf_puts(b, signbit(v) ? "-nan" : "nan");
        return;
    }
    if (isinf(v)) {
        buf_puts(b, v < 0 ? "-inf" : "inf");
        return;
    }
    char t[64];
    if (kind == 16 || kind == 8) {
        snprintf(t, sizeof t, "%.*g", kind == 16 ? 5 : 4, v);
        buf_puts(b, t);
        return;
    }
    int is_f32 = kind == 32;
    snprintf(t, sizeof t, "%.*g", is_f32 ? 6 : 15, v);
    int same = is_f32 ? (float)strtod(t, NULL) == (float)v : strtod(t, NULL) == v;
    if (!same)
        snprintf(t, sizeof t, "%.*g", is_f32 ? 9 : 17, v);
    buf_puts(b, t);
}

/* Element I of the literal LIT of type TYPE; 0 when it has no such element. */
static int put_element(buf *b, pq_str lit, int32_t type, uint32_t i)
{
    static const uint32_t VARINT_FIELD[] = {[1] = 2, [4] = 4, [5] = 5, [8] = 6, [9] = 7};
    if (type == 1 || type == 4 || type == 5 || type == 8 || type == 9) {
        int64_t v[MAX_INTS];
        uint32_t n = ht_field_ints(lit, VARINT_FIELD[type], v);
        if (i >= n)
            return 0;
        if (type == 1)
            buf_puts(b, v[i] ? "true" : "false");
        else if (type == 4)
            buf_printf(b, "%" PRId32, (int32_t)v[i]);
        else if (type == 8)
            buf_printf(b, "%" PRIu32, (uint32_t)v[i]);
        else if (type == 9)
            buf_printf(b, "%" PRIu64, (uint64_t)v[i]);
        else
            buf_printf(b, "%" PRId64, v[i]);
        return 1;
    }
    if (type == 11 || type == 12) { /* f32s (8, fixed32), f64s (9, fixed64): packed */
        pq_str d = ht_field_bytes(lit, type == 11 ? 8 : 9);
        size_t w = type == 11 ? 4 : 8;
        if ((i + 1) * w > d.n)
            return 0;
        if (type == 11)
            put_float(b, pb_float(pb_load_le32((const uint8_t *)d.p + i * 4)), 32);
        else
            put_float(b, pb_double(pb_load_le64((const uint8_t *)d.p + i * 8)), 64);
        return 1;
    }
    /* byte-packed: s8s 15, u8s 3, f16s 11, bf16s 13, u16s 16, s16s 17 */
    uint32_t num = type == 2    ? 15
                   : type == 6  ? 3
                   : type == 10 ? 11
                   : type == 16 ? 13
                   : type == 7  ? 16
                   : type == 3  ? 17
                                : 0;
    if (!num)
        return 0;
    pq_str d = ht_field_bytes(lit, num);
    size_t w = type == 2 || type == 6 ? 1 : 2;
    if ((i + 1) * w > d.n)
        return 0;
    const uint8_t *p = (const uint8_t *)d.p + i * w;
    uint16_t h = w == 2 ? (uint16_t)(p[0] | p[1] << 8) : 0;
    if (type == 2)
        buf_printf(b, "%d", (int8_t)p[0]);
    else if (type == 6)
        buf_printf(b, "%u", p[0]);
    else if (type == 7)
        buf_printf(b, "%u", h);
    else if (type == 3)
        buf_printf(b, "%d", (int16_t)h);
    else
        put_float(b, type == 16 ? bf16_to_float(h) : f16_to_float(h), type == 16 ? 8 : 16);
    return 1;
}

/* constant(...): the value of a literal of at most 10 elements, else "{...}". */
static void put_constant(buf *b, const hlo_instruction *ins)
{
    const hlo_shape *s = &ins->shape;
    int64_t n = 1;
    for (uint32_t i = 0; i < s->ndims; i++)
        n *= s->dims[i];
    pq_str lit = ht_field_bytes(ins->raw, 8);
    int array = s->element_type != HLO_TUPLE && s->element_type != HLO_TOKEN;
    if (!array || n > 10 || s->ndims > 2 || !lit.n) {
        buf_puts(b, "{...}");
        return;
    }
    size_t at = b->n;
    int ok = 1;
    if (s->ndims == 0) {
        ok = put_element(b, lit, s->element_type, 0);
    } else if (s->ndims == 1) {
        buf_putc(b, '{');
        for (int64_t i = 0; i < n && ok; i++) {
            if (i)
                buf_puts(b, ", ");
            ok = put_element(b, lit, s->element_type, (uint32_t)i);
        }
        buf_putc(b, '}');
    } else {
        buf_puts(b, "{ ");
        for (int64_t r = 0; r < s->dims[0] && ok; r++) {
            buf_puts(b, r ? ", { " : "{ ");
            for (int64_t c = 0; c < s->dims[1] && ok; c++) {
                if (c)
                    buf_puts(b, ", ");
                ok = put_element(b, lit, s->element_type, (uint32_t)(r * s->dims[1] + c));
            }
            buf_puts(b, " }");
        }
        buf_puts(b, " }");
    }
    if (!ok) {
        b->n = at;
        buf_puts(b, "{...}");
    }
}

/* ---- attribute messages ---- */

/* window_util::ToString: size=AxB stride=.. pad=lo_hi.. lhs_dilate=.. rhs_dilate=..
 * rhs_reversal=.., each after size only when not all default. */
static void put_window(buf *b, pq_str w)
{
    enum { NDIM = 16 };
    int64_t v[7][NDIM] = {{0}};
    uint32_t n = 0;
    pb_cursor c;
    pb_field f = {0};
    pb_init(&c, (const uint8_t *)w.p, w.n, NULL);
    while (pb_next(&c, &f) == PB_FIELD && n < NDIM) {
        if (f.num != 1 || f.wire != PB_LEN)
            continue;
        pq_str d = pq_str_of((const char *)f.data, f.len);
        for (uint32_t k = 0; k < 7; k++)
            v[k][n] = ht_field_int(d, k + 1, k == 1 || k == 4 || k == 5 ? 1 : 0);
        n++;
    }
    static const char *const HEAD[] = {"size",       "stride",     "pad",
                                       "lhs_dilate", "rhs_dilate", "rhs_reversal"};
    static const int COL[] = {0, 1, 2, 5, 4, 6}; /* base_dilation is lhs_dilate */
    buf_puts(b, "window={");
    for (int h = 0; h < 6; h++) {
        int any = h == 0 ? n > 0 : 0;
        for (uint32_t i = 0; i < n && !any; i++)
            any = h == 2 ? v[2][i] != 0 || v[3][i] != 0
                         : v[COL[h]][i] != (h == 1 || h == 3 || h == 4 ? 1 : 0);
        if (!any)
            continue;
        buf_printf(b, h ? " %s=" : "%s=", HEAD[h]);
        for (uint32_t i = 0; i < n; i++) {
            if (i)
                buf_putc(b, 'x');
            if (h == 2)
                buf_printf(b, "%" PRId64 "_%" PRId64, v[2][i], v[3][i]);
            else
                buf_printf(b, "%" PRId64, v[COL[h]][i]);
        }
    }
    buf_putc(b, '}');
}

/* One side of ConvolutionDimensionNumbersToString: the letter of each logical dimension. */
static void put_dim_labels(buf *b, pq_str d, uint32_t first, uint32_t second, char c1, char c2,
                           uint32_t spatial)
{
    int64_t sp[MAX_INTS];
    uint32_t ns = ht_field_ints(d, spatial, sp);
    char lab[MAX_INTS + 2][12];
    uint32_t rank = ns + 2;
    for (uint32_t i = 0; i < rank; i++)
        strcpy(lab[i], "?");
    int64_t a = ht_field_int(d, first, 0), s = ht_field_int(d, second, 0);
    if (a >= 0 && a < rank)
        snprintf(lab[a], sizeof lab[a], "%c", c1);
    if (s >= 0 && s < rank)
        snprintf(lab[s], sizeof lab[s], "%c", c2);
    for (uint32_t i = 0; i < ns; i++)
        if (sp[i] >= 0 && sp[i] < rank)
            snprintf(lab[sp[i]], sizeof lab[sp[i]], "%u", i);
    for (uint32_t i = 0; i < rank; i++)
        buf_puts(b, lab[i]);
}

static void put_conv_dnums(buf *b, pq_str d)
{
    buf_puts(b, ", dim_labels=");
    put_dim_labels(b, d, 7, 8, 'b', 'f', 11);
    buf_putc(b, '_');
    put_dim_labels(b, d, 3, 4, 'i', 'o', 6);
    buf_puts(b, "->");
    put_dim_labels(b, d, 9, 10, 'b', 'f', 12);
}

/* ", operand_precision={default,highest}" unless every operand is DEFAULT. */
static void put_precision(buf *b, pq_str raw)
{
    static const char *const P[] = {"default", "high", "highest", "packed_nibble"};
    int64_t v[MAX_INTS];
    uint32_t n = ht_field_ints(ht_field_bytes(raw, 51), 1, v), any = 0;
    for (uint32_t i = 0; i < n; i++)
        any |= v[i] != 0;
    if (!any)
        return;
    buf_puts(b, ", operand_precision={");
    for (uint32_t i = 0; i < n; i++)
        buf_printf(b, "%s%s", i ? "," : "", v[i] >= 0 && v[i] < 4 ? P[v[i]] : "?");
    buf_putc(b, '}');
}

static void put_dot_dnums(buf *b, pq_str d)
{
    put_ints_attr(b, "lhs_batch_dims", d, 3, 0);
    put_ints_attr(b, "lhs_contracting_dims", d, 1, 1);
    put_ints_attr(b, "rhs_batch_dims", d, 4, 0);
    put_ints_attr(b, "rhs_contracting_dims", d, 2, 1);
}

/* Gather (GATHER=1) or scatter dimension numbers. */
static void put_gather_scatter_dnums(buf *b, pq_str d, int gather)
{
    static const char *const G[] = {"offset_dims", "collapsed_slice_dims", "start_index_map",
                                    "operand_batching_dims", "start_indices_batching_dims"};
    static const char *const S[] = {"update_window_dims", "inserted_window_dims",
                                    "scatter_dims_to_operand_dims", "input_batching_dims",
                                    "scatter_indices_batching_dims"};
    const char *const *k = gather ? G : S;
    for (uint32_t i = 0; i < 5; i++)
        put_ints_attr(b, k[i], d, i < 3 ? i + 1 : i + 2, i < 3);
    buf_printf(b, ", index_vector_dim=%" PRId64, ht_field_int(d, 4, 0));
}

enum { NDIM = 32 };

/* Fields 1..3 of each occurrence of the message field NUM of MSG, at most NDIM. */
static uint32_t triples(pq_str msg, uint32_t num, int64_t v[3][NDIM])
{
    uint32_t n = 0;
    pb_cursor c;
    pb_field f = {0};
    pb_init(&c, (const uint8_t *)msg.p, msg.n, NULL);
    while (pb_next(&c, &f) == PB_FIELD && n < NDIM)
        if (f.num == num && f.wire == PB_LEN) {
            pq_str d = pq_str_of((const char *)f.data, f.len);
            for (uint32_t k = 0; k < 3; k++)
                v[k][n] = ht_field_int(d, k + 1, 0);
            n++;
        }
    return n;
}

/* SLICE: ", slice={[0:2], [1:5:2]}" from the SliceDimensions (start, limit, stride) of RAW,
 * the strides only when one is not 1; else ", padding=0_1x2_3" from the PaddingConfig
 * dimensions (low, high, interior) of RAW's padding_config, the interior on every
 * dimension when one has it. */
static void put_slice_or_padding(buf *b, pq_str raw, int slice)
{
    int64_t v[3][NDIM];
    uint32_t n = slice ? triples(raw, 17, v) : triples(ht_field_bytes(raw, 21), 1, v);
    int third = 0;
    for (uint32_t i = 0; i < n; i++)
        third |= v[2][i] != (slice ? 1 : 0);
    buf_puts(b, slice ? ", slice={" : ", padding=");
    for (uint32_t i = 0; i < n; i++) {
        buf_printf(b, slice ? "%s[%" PRId64 ":%" PRId64 : "%s%" PRId64 "_%" PRId64,
                   i ? (slice ? ", " : "x") : "", v[0][i], v[1][i]);
        if (third)
            buf_printf(b, slice ? ":%" PRId64 : "_%" PRId64, v[2][i]);
        if (slice)
            buf_putc(b, ']');
    }
    if (slice)
        buf_putc(b, '}');
}

/* ", replica_groups=..." as XLA 2.24.2's FromProto reads it: the mesh axes list (93), else the
 * iota form "[G,N]<=[dims]T(perm)" (92: IotaReplicaGroupListProto), else the explicit groups
 * of collective_device_list (87, field 1) or of the deprecated replica_groups (49). An older
 * proto's iota list inside collective_device_list (87, field 2) is not read: XProf and XLA
 * print such groups as "{}" (tpu_inference_2's jit__psum). */
static void put_replica_groups(buf *b, pq_str raw)
{
    if (hlo_text_mesh_replica_groups(b, raw))
        return;
    pq_str list = ht_field_bytes(raw, 87), iota = ht_field_bytes(raw, 92);
    buf_puts(b, ", replica_groups=");
    if (iota.n) {
        int64_t dims[MAX_INTS], perm[MAX_INTS];
        uint32_t nd = ht_field_ints(iota, 3, dims), np = ht_field_ints(iota, 4, perm), ident = 1;
        buf_printf(b, "[%" PRId64 ",%" PRId64 "]<=[", ht_field_int(iota, 1, 0),
                   ht_field_int(iota, 2, 0));
        for (uint32_t i = 0; i < nd; i++)
            buf_printf(b, "%s%" PRId64, i ? "," : "", dims[i]);
        buf_putc(b, ']');
        for (uint32_t i = 0; i < np; i++)
            ident &= perm[i] == (int64_t)i;
        if (!ident) {
            buf_puts(b, "T(");
            for (uint32_t i = 0; i < np; i++)
                buf_printf(b, "%s%" PRId64, i ? "," : "", perm[i]);
            buf_putc(b, ')');
        }
        return;
    }
    pq_str src = list.n ? list : raw;
    uint32_t num = list.n ? 1 : 49, k = 0;
    pb_cursor c;
    pb_field f = {0};
    buf_putc(b, '{');
    pb_init(&c, (const uint8_t *)src.p, src.n, NULL);
    while (pb_next(&c, &f) == PB_FIELD)
        if (f.num == num && f.wire == PB_LEN) {
            int64_t ids[MAX_INTS];
            uint32_t n = ht_field_ints(pq_str_of((const char *)f.data, f.len), 1, ids);
            if (k++)
                buf_putc(b, ',');
            put_int_list(b, ids, n);
        }
    buf_putc(b, '}');
}

/* ", source_target_pairs={{0,1},{1,0}}" (SourceTarget: source 1, target 2). */
static void put_source_target_pairs(buf *b, pq_str raw)
{
    pb_cursor c;
    pb_field f = {0};
    uint32_t k = 0;
    buf_puts(b, ", source_target_pairs={");
    pb_init(&c, (const uint8_t *)raw.p, raw.n, NULL);
    while (pb_next(&c, &f) == PB_FIELD)
        if (f.num == 52 && f.wire == PB_LEN) {
            pq_str d = pq_str_of((const char *)f.data, f.len);
            buf_printf(b, "%s{%" PRId64 ",%" PRId64 "}", k++ ? "," : "", ht_field_int(d, 1, 0),
                       ht_field_int(d, 2, 0));
        }
    buf_putc(b, '}');
}

/* ---- per-opcode attributes (XLA's PrintExtraAttributesImpl) ---- */

static int is(pq_str op, const char *s)
{
    return pq_str_eq(op, s);
}

static int is_any(pq_str op, const char *const *list)
{
    for (; *list; list++)
        if (pq_str_eq(op, *list))
            return 1;
    return 0;
}

static void put_flag(buf *b, pq_str raw, uint32_t num, const char *text)
{
    if (ht_field_int(raw, num, 0))
        buf_printf(b, ", %s", text);
}

/* Comparison::DefaultComparisonType's name for element type T. */
static const char *default_compare_type(int32_t t)
{
    if (t == 10 || t == 11 || t == 12 || t == 16 || (t >= 19 && t <= 25) || t == 28 || t == 29 ||
        t == 32 || t == 33)
        return "FLOAT";
    if (t == 2 || t == 3 || t == 4 || t == 5 || t == 21 || t == 26 || t == 30)
        return "SIGNED";
    return "UNSIGNED";
}

static void put_collective(buf *b, const hlo_instruction *ins)
{
    pq_str op = ins->opcode, raw = ins->raw;
    int64_t ch = ht_field_int(raw, 26, 0);
    if (ch > 0)
        buf_printf(b, ", channel_id=%" PRId64, ch);
    if (is(op, "collective-permute") || is(op, "collective-permute-start")) {
        put_source_target_pairs(b, raw);
        return;
    }
    put_replica_groups(b, raw);
    put_flag(b, raw, 56, "constrain_layout=true");
    /* reduce-scatter prints its dimensions after the all-reduce attributes it shares */
    int rs = is(op, "reduce-scatter");
    if (rs)
        put_flag(b, raw, 71, "use_global_device_ids=true");
    static const char *const DIMS[] = {"all-gather", "all-gather-start", "reduce-scatter",
                                       "all-to-all", NULL};
    if (is_any(op, DIMS) && ins->ndimensions)
        put_ints_attr(b, "dimensions", raw, 14, 1);
    if (!is(op, "all-to-all") && !rs)
        put_flag(b, raw, 71, "use_global_device_ids=true");
}

/* What convolutions and custom calls share: the window (when set), dim_labels (always for a
 * CONVOLUTION, else when the dimension numbers are set), the group counts other than 1 and
 * the operand precisions. */
static void put_conv_attrs(buf *b, const hlo_instruction *ins, int convolution)
{
    if (ins->window.n) {
        buf_puts(b, ", ");
        put_window(b, ins->window);
    }
    if (convolution || ins->conv_dnums.n)
        put_conv_dnums(b, ins->conv_dnums);
    if (ins->feature_group_count > 1)
        buf_printf(b, ", feature_group_count=%" PRId64, ins->feature_group_count);
    if (ins->batch_group_count > 1)
        buf_printf(b, ", batch_group_count=%" PRId64, ins->batch_group_count);
    put_precision(b, ins->raw);
}

/* ", operand_layout_constraints={<shape>, ...}" from operand_shapes_with_layout (57) of a
 * custom call with constrain_layout (56). */
static void put_layout_constraints(buf *b, pq_str raw)
{
    if (!ht_field_int(raw, 56, 0))
        return;
    arena a;
    arena_init(&a);
    pb_cursor c;
    pb_field f = {0};
    uint32_t k = 0;
    buf_puts(b, ", operand_layout_constraints={");
    pb_init(&c, (const uint8_t *)raw.p, raw.n, NULL);
    while (pb_next(&c, &f) == PB_FIELD) {
        if (f.num != 57 || f.wire != PB_LEN)
            continue;
        hlo_shape *sh = NULL;
        int64_t off;
        const char *what;
        if (k++)
            buf_puts(b, ", ");
        if (hlo_decode_shape(pq_str_of((const char *)f.data, f.len), NULL, 0, &a, &sh, &off,
                             &what) == PQ_OK)
            hlo_shape_print(b, sh);
    }
    buf_putc(b, '}');
    arena_release(&a);
}

/* ", output_to_operand_aliasing={{out}: (operand, {index}), ...}" (OutputOperandAliasing:
 * output_shape_index 1, operand_index 2, operand_shape_index 3), of fusions and custom
 * calls. */
static void put_aliasing(buf *b, pq_str raw)
{
    pb_cursor c;
    pb_field f = {0};
    uint32_t k = 0;
    pb_init(&c, (const uint8_t *)raw.p, raw.n, NULL);
    while (pb_next(&c, &f) == PB_FIELD) {
        if (f.num != 74 || f.wire != PB_LEN)
            continue;
        pq_str d = pq_str_of((const char *)f.data, f.len);
        int64_t v[MAX_INTS];
        uint32_t n = ht_field_ints(d, 1, v);
        buf_puts(b, k++ ? ", " : ", output_to_operand_aliasing={");
        put_int_list(b, v, n);
        buf_printf(b, ": (%" PRId64 ", ", ht_field_int(d, 2, 0));
        n = ht_field_ints(d, 3, v);
        put_int_list(b, v, n);
        buf_putc(b, ')');
    }
    if (k)
        buf_putc(b, '}');
}

static void put_custom_call(buf *b, const hlo_instruction *ins)
{
    static const char *const SCHED[] = {"SCHEDULE_NONE", "SCHEDULE_LATEST", "SCHEDULE_EARLIEST"};
    static const char *const API[] = {
        "API_VERSION_UNSPECIFIED", "API_VERSION_ORIGINAL", "API_VERSION_STATUS_RETURNING",
        "API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI"};
    pq_str raw = ins->raw;
    put_conv_attrs(b, ins, 0);
    buf_puts(b, ", custom_call_target=\"");
    put_escaped(b, ins->custom_call_target);
    buf_putc(b, '"');
    put_layout_constraints(b, raw);
    put_flag(b, raw, 65, "custom_call_has_side_effect=true");
    put_aliasing(b, raw);
    int64_t s = ht_field_int(raw, 76, 0), api = ht_field_int(raw, 77, 1);
    if (s > 0 && s < 3)
        buf_printf(b, ", schedule=%s", SCHED[s]);
    if (api != 1 && api >= 0 && api < 5)
        buf_printf(b, ", api_version=%s", API[api]);
}

/* The attributes of INS's own instruction class, before the called computations. */
static void put_own_attributes(buf *b, const hlo_module *m, const hlo_instruction *ins)
{
    static const char *const DIMS[] = {
        "broadcast",          "reduce", "transpose", "reverse", "concatenate", "get-dimension-size",
        "set-dimension-size", NULL};
    static const char *const COLL[] = {"all-reduce",
                                       "all-reduce-start",
                                       "all-gather",
                                       "all-gather-start",
                                       "reduce-scatter",
                                       "all-to-all",
                                       "collective-permute",
                                       "collective-permute-start",
                                       "collective-broadcast",
                                       "ragged-all-to-all",
                                       NULL};
    static const char *const WINDOWED[] = {"reduce-window", "select-and-scatter", NULL};
    pq_str op = ins->opcode, raw = ins->raw;
    if (is_any(op, DIMS)) {
        put_ints_attr(b, "dimensions", raw, 14, 1);
    } else if (is(op, "sort")) {
        put_ints_attr(b, "dimensions", raw, 14, 1);
        put_flag(b, raw, 60, "is_stable=true");
    } else if (is(op, "iota")) {
        buf_printf(b, ", iota_dimension=%" PRId64, ins->ndimensions ? ins->dimensions[0] : 0);
    } else if (is(op, "get-tuple-element")) {
        buf_printf(b, ", index=%" PRId64, ins->tuple_index);
    } else if (is(op, "slice")) {
        put_slice_or_padding(b, raw, 1);
    } else if (is(op, "dynamic-slice")) {
        put_ints_attr(b, "dynamic_slice_sizes", raw, 20, 1);
    } else if (is(op, "pad")) {
        put_slice_or_padding(b, raw, 0);
    } else if (is(op, "compare")) {
        pq_str dir = ht_field_bytes(raw, 63), type = ht_field_bytes(raw, 72);
        buf_printf(b, ", direction=%.*s", (int)dir.n, dir.p);
        const hlo_instruction *a =
            ins->noperands ? hlo_instruction_by_id(m, ins->operand_ids[0]) : NULL;
        if (type.n && a && !pq_str_eq(type, default_compare_type(a->shape.element_type)))
            buf_printf(b, ", type=%.*s", (int)type.n, type.p);
    } else if (is(op, "dot")) {
        put_dot_dnums(b, ins->dot_dnums);
        put_precision(b, raw);
    } else if (is(op, "convolution")) {
        put_conv_attrs(b, ins, 1);
    } else if (is_any(op, WINDOWED)) {
        buf_puts(b, ", ");
        put_window(b, ins->window);
    } else if (is(op, "gather")) {
        put_gather_scatter_dnums(b, ht_field_bytes(raw, 33), 1);
        put_ints_attr(b, "slice_sizes", raw, 34, 1);
        put_flag(b, raw, 67, "indices_are_sorted=true");
    } else if (is(op, "scatter")) {
        put_gather_scatter_dnums(b, ht_field_bytes(raw, 48), 0);
        put_flag(b, raw, 67, "indices_are_sorted=true");
        put_flag(b, raw, 69, "unique_indices=true");
    } else if (is(op, "fusion")) {
        buf_printf(b, ", kind=%.*s", (int)ins->fusion_kind.n, ins->fusion_kind.p);
        put_aliasing(b, raw);
    } else if (is(op, "custom-call")) {
        put_custom_call(b, ins);
    } else if (is_any(op, COLL)) {
        put_collective(b, ins);
    } else if (is(op, "reduce-precision")) {
        buf_printf(b, ", exponent_bits=%" PRId64 ", mantissa_bits=%" PRId64,
                   ht_field_int(raw, 18, 0), ht_field_int(raw, 19, 0));
    } else if (is(op, "rng")) {
        static const char *const D[] = {"rng_invalid", "rng_uniform", "rng_normal"};
        int64_t d = ht_field_int(raw, 23, 0);
        buf_printf(b, ", distribution=%s", d >= 0 && d < 3 ? D[d] : "?");
    } else if (is(op, "rng-bit-generator")) {
        static const char *const A[] = {"rng_default", "rng_three_fry", "rng_philox"};
        int64_t a = ht_field_int(raw, 70, 0);
        buf_printf(b, ", algorithm=%s", a >= 0 && a < 3 ? A[a] : "?");
    } else if (is(op, "copy-start")) {
        pb_field f;
        if (ht_field(raw, 80, &f))
            buf_printf(b, ", cross_program_prefetch_index=%d", (int)(int32_t)f.u);
    } else if (is(op, "send") || is(op, "recv") || is(op, "send-done") || is(op, "recv-done")) {
        int64_t ch = ht_field_int(raw, 26, 0);
        if (ch > 0)
            buf_printf(b, ", channel_id=%" PRId64, ch);
        put_flag(b, raw, 47, "is_host_transfer=true");
    } else if (is(op, "topk")) {
        buf_printf(b, ", k=%" PRId64, ht_field_int(raw, 81, 0));
        put_flag(b, raw, 85, "largest=true");
    }
}

/* The called computations as HloInstruction::PrintExtraAttributes names them. */
static void put_called(buf *b, const hlo_module *m, const hlo_instruction *ins)
{
    static const char *const TO_APPLY[] = {"call",
                                           "map",
                                           "reduce-window",
                                           "reduce",
                                           "all-reduce",
                                           "reduce-scatter",
                                           "all-reduce-start",
                                           "scatter",
                                           "sort",
                                           "topk",
                                           NULL};
    pq_str op = ins->opcode;
    const int64_t *c = ins->called_computation_ids;
    uint32_t n = ins->ncalled;
    if (!n)
        return;
    if (is(op, "while") && n == 2) { /* called computations: body, then condition */
        buf_puts(b, ", condition=");
        put_computation(b, m, c[1]);
        buf_puts(b, ", body=");
        put_computation(b, m, c[0]);
    } else if (is(op, "select-and-scatter") && n == 2) {
        buf_puts(b, ", select=");
        put_computation(b, m, c[0]);
        buf_puts(b, ", scatter=");
        put_computation(b, m, c[1]);
    } else if (is(op, "conditional")) {
        const hlo_instruction *p =
            ins->noperands ? hlo_instruction_by_id(m, ins->operand_ids[0]) : NULL;
        if (p && p->shape.element_type == HLO_PRED && n == 2) {
            buf_puts(b, ", true_computation=");
            put_computation(b, m, c[0]);
            buf_puts(b, ", false_computation=");
            put_computation(b, m, c[1]);
        } else {
            buf_puts(b, ", branch_computations={");
            for (uint32_t i = 0; i < n; i++) {
                if (i)
                    buf_puts(b, ", ");
                put_computation(b, m, c[i]);
            }
            buf_putc(b, '}');
        }
    } else if (is_any(op, TO_APPLY)) {
        buf_puts(b, ", to_apply=");
        put_computation(b, m, c[0]);
    } else {
        buf_puts(b, is(op, "custom-call") ? ", called_computations={" : ", calls=");
        for (uint32_t i = 0; i < n; i++) {
            if (i)
                buf_puts(b, ", ");
            put_computation(b, m, c[i]);
        }
        if (is(op, "custom-call"))
            buf_putc(b, '}');
    }
}

/* ", frontend_attributes={k="v",...}", keys sorted; a value that is itself a {dict} bare. */
static void put_frontend_attributes(buf *b, pq_str raw)
{
    enum { MAX_ATTRS = 64 };
    pq_str keys[MAX_ATTRS], vals[MAX_ATTRS];
    uint32_t n = 0;
    pb_cursor c, d;
    pb_field f = {0}, g = {0};
    /* every occurrence of the message (protobuf merges them), every map entry of each */
    pb_init(&c, (const uint8_t *)raw.p, raw.n, NULL);
    while (pb_next(&c, &f) == PB_FIELD) {
        if (f.num != 68 || f.wire != PB_LEN)
            continue;
        pb_init(&d, f.data, f.len, NULL);
        while (pb_next(&d, &g) == PB_FIELD && n < MAX_ATTRS)
            if (g.num == 1 && g.wire == PB_LEN) {
                pq_str e = pq_str_of((const char *)g.data, g.len);
                keys[n] = ht_field_bytes(e, 1);
                vals[n] = ht_field_bytes(e, 2);
                n++;
            }
    }
    if (!n)
        return;
    for (uint32_t i = 1; i < n; i++) /* insertion sort by (key, value) */
        for (uint32_t j = i; j > 0; j--) {
            size_t k = keys[j - 1].n < keys[j].n ? keys[j - 1].n : keys[j].n;
            int cmp = memcmp(keys[j - 1].p, keys[j].p, k);
            if (cmp < 0 || (cmp == 0 && keys[j - 1].n <= keys[j].n))
                break;
            pq_str t = keys[j], u = vals[j];
            keys[j] = keys[j - 1];
            vals[j] = vals[j - 1];
            keys[j - 1] = t;
            vals[j - 1] = u;
        }
    buf_puts(b, ", frontend_attributes={");
    for (uint32_t i = 0; i < n; i++) {
        int dict = vals[i].n >= 2 && vals[i].p[0] == '{' && vals[i].p[vals[i].n - 1] == '}';
        buf_printf(b, "%s%.*s=%s%.*s%s", i ? "," : "", (int)keys[i].n, keys[i].p, dict ? "" : "\"",
                   (int)vals[i].n, vals[i].p, dict ? "" : "\"");
    }
    buf_putc(b, '}');
}

/* The instruction an async-start/-update/-done wraps when XLA prints it with its syntax
 * sugar ("reduce-scatter-start(...)" with the wrapped op's attributes instead of
 * "async-start(...), calls=%c"): the wrapped computation is one instruction over its
 * parameters in order (CanExpandIntoSingleInstruction). An -update or -done without called
 * computations follows its operand to the start. NULL otherwise. */
static const hlo_instruction *async_wrapped(const hlo_module *m, const hlo_instruction *ins)
{
    static const char *const ASYNC[] = {"async-start", "async-update", "async-done", NULL};
    for (int hop = 0; hop < 16 && ins && is_any(ins->opcode, ASYNC); hop++) {
        if (!ins->ncalled) {
            ins = ins->noperands ? hlo_instruction_by_id(m, ins->operand_ids[0]) : NULL;
            continue;
        }
        const hlo_computation *c = computation_by_id(m, ins->called_computation_ids[0]);
        const hlo_instruction *root = NULL;
        uint32_t nparams = 0;
        for (uint32_t i = 0; c && c->instructions && i < c->ninstructions; i++) {
            const hlo_instruction *x = &c->instructions[i];
            if (x->id == c->root_id)
                root = x;
            else if (is(x->opcode, "parameter"))
                nparams++;
            else
                return NULL;
        }
        if (!root || root->noperands != nparams || is(root->opcode, "parameter"))
            return NULL;
        for (uint32_t k = 0; k < nparams; k++) {
            const hlo_instruction *p = hlo_instruction_by_id(m, root->operand_ids[k]);
            if (!p || !is(p->opcode, "parameter") || p->parameter_number != (int64_t)k)
                return NULL;
        }
        return root;
    }
    return NULL;
}

void hlo_text_instruction(buf *b, const hlo_module *m, const hlo_instruction *ins)
{
    const hlo_instruction *wrapped = async_wrapped(m, ins);
    put_name(b, ins->name);
    buf_puts(b, " = ");
    hlo_shape_print(b, &ins->shape);
    buf_putc(b, ' ');
    if (wrapped) { /* async-start -> <op>-start, async-update -> <op>-update, ... */
        buf_put(b, wrapped->opcode.p, wrapped->opcode.n);
        buf_put(b, ins->opcode.p + 5, ins->opcode.n - 5);
    } else {
        buf_put(b, ins->opcode.p, ins->opcode.n);
    }
    buf_putc(b, '(');
    if (is(ins->opcode, "parameter")) {
        buf_printf(b, "%" PRId64, ins->parameter_number);
    } else if (is(ins->opcode, "constant")) {
        put_constant(b, ins);
    } else {
        for (uint32_t i = 0; i < ins->noperands; i++) {
            if (i) {
                buf_puts(b, ", ");
                if (i % 5 == 0) /* print_operand_index_annotation_interval */
                    buf_printf(b, "/*index=%u*/", i);
            }
            const hlo_instruction *o = hlo_instruction_by_id(m, ins->operand_ids[i]);
            if (!o) {
                buf_puts(b, "%<unknown>");
                continue;
            }
            hlo_shape_print(b, &o->shape);
            buf_putc(b, ' ');
            put_name(b, o->name);
        }
    }
    buf_putc(b, ')');
    if (!wrapped) {
        put_own_attributes(b, m, ins);
        put_called(b, m, ins);
    } else if (is(ins->opcode, "async-start")) { /* the wrapped op's attributes */
        put_own_attributes(b, m, wrapped);
        put_called(b, m, wrapped);
    }
    if (ht_field(ins->raw, 40, &(pb_field){0})) {
        buf_puts(b, ", sharding=");
        hlo_text_sharding(b, ht_field_bytes(ins->raw, 40), 0);
    }
    put_frontend_attributes(b, ins->raw);
    int64_t preds[MAX_INTS];
    uint32_t np = ht_field_ints(ins->raw, 37, preds);
    if (np) {
        buf_puts(b, ", control-predecessors={");
        for (uint32_t i = 0; i < np; i++) {
            const hlo_instruction *p = hlo_instruction_by_id(m, preds[i]);
            if (i)
                buf_puts(b, ", ");
            if (p)
                put_name(b, p->name);
            else
                buf_puts(b, "%<unknown>");
        }
        buf_putc(b, '}');
    }
}
