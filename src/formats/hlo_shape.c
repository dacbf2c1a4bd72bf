/* hlo_shape.c - XLA's primitive type names and byte sizes, and shape strings as XLA prints
 * them (f32[8,128]{1,0}, tuples, tiles) with their unpadded byte sizes. Not here: decoding
 * shapes from the wire (hlo.c). */
#include "hlo.h"
#include "core/buf.h"

#include <stdlib.h>
#include <string.h>

static const char *const TYPE_NAMES[] = {
    "invalid",    "pred",       "s8",    "s16",    "s32",      "s64",    "u8",     "u16",
    "u32",        "u64",        "f16",   "f32",    "f64",      "tuple",  "opaque", "c64",
    "bf16",       "token",      "c128",  "f8e5m2", "f8e4m3fn", "s4",     "u4",     "f8e4m3b11fnuz",
    "f8e5m2fnuz", "f8e4m3fnuz", "s2",    "u2",     "f8e4m3",   "f8e3m4", "s1",     "u1",
    "f4e2m1fn",   "f8e8m0fnu",  "buffer"};
static const int8_t TYPE_BYTES[] = {0,  1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 8, 0, 8, 8, 2, 0,
                                    16, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0};

const char *hlo_type_name(int32_t type)
{
    if (type < 0 || (size_t)type >= sizeof TYPE_NAMES / sizeof TYPE_NAMES[0])
        return "";
    return TYPE_NAMES[type];
}

int64_t hlo_type_bytes(int32_t type)
{
    if (type < 0 || (size_t)type >= sizeof TYPE_BYTES)
        return 0;
    return TYPE_BYTES[type];
}

static void put_i64(buf *b, int64_t v)
{
    char t[24], *p = t + 24;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    buf_put(b, p, (size_t)(t + 24 - p));
}

static void print_layout(buf *b, const hlo_layout *l)
{
    buf_putc(b, '{');
    for (uint32_t i = 0; i < l->nminor_to_major; i++) {
        if (i)
            buf_putc(b, ',');
        put_i64(b, l->minor_to_major[i]);
    }
    int colon = 0;
#define COLON()                                                                                    \
    do {                                                                                           \
        if (!colon) {                                                                              \
            buf_putc(b, ':');                                                                      \
            colon = 1;                                                                             \
        }                                                                                          \
    } while (0)
    if (l->ndim_level_types) {
        /* Layout::Print: "D(" then per dimension its level letter, "+" when not unique and
         * "~" when not ordered, joined by ","; then ")". */
        static const char *const LVL[] = {"D", "C", "S", "H"};
        COLON();
        buf_puts(b, "D(");
        for (uint32_t i = 0; i < l->ndim_level_types; i++) {
            if (i)
                buf_putc(b, ',');
            int32_t t = l->dim_level_types[i];
            buf_puts(b, t >= 0 && t < 4 ? LVL[t] : "?");
            if (i < l->ndim_unique && !l->dim_unique[i])
                buf_putc(b, '+');
            if (i < l->ndim_ordered && !l->dim_ordered[i])
                buf_putc(b, '~');
        }
        buf_putc(b, ')');
    }
    if (l->ntiles) {
        COLON();
        buf_putc(b, 'T');
        for (uint32_t t = 0; t < l->ntiles; t++) {
            buf_putc(b, '(');
            for (uint32_t i = 0; i < l->tiles[t].ndims; i++) {
                if (i)
                    buf_putc(b, ',');
                if (l->tiles[t].dims[i] == INT64_MIN) /* Tile::kCombineDimension */
                    buf_putc(b, '*');
                else
                    put_i64(b, l->tiles[t].dims[i]);
            }
            buf_putc(b, ')');
        }
    }
    int64_t tail =
        l->tail_padding_alignment_in_elements ? l->tail_padding_alignment_in_elements : 1;
    if (tail != 1) {
        COLON();
        buf_printf(b, "L(%lld)", (long long)tail);
    }
    if (l->index_primitive_type) {
        COLON();
        buf_printf(b, "#(%s)", hlo_type_name(l->index_primitive_type));
    }
    if (l->pointer_primitive_type) {
        COLON();
        buf_printf(b, "*(%s)", hlo_type_name(l->pointer_primitive_type));
    }
    if (l->element_size_in_bits) {
        COLON();
        buf_printf(b, "E(%lld)", (long long)l->element_size_in_bits);
    }
    if (l->memory_space) {
        COLON();
        buf_printf(b, "S(%lld)", (long long)l->memory_space);
    }
    if (l->nsplit_configs) {
        COLON();
        buf_puts(b, "SC");
        for (uint32_t s = 0; s < l->nsplit_configs; s++) {
            buf_printf(b, "(%lld:", (long long)l->split_configs[s].dimension);
            for (uint32_t i = 0; i < l->split_configs[s].nsplit_indices; i++) {
                if (i)
                    buf_putc(b, ',');
                put_i64(b, l->split_configs[s].split_indices[i]);
            }
            buf_putc(b, ')');
        }
    }
    if (l->physical_shape) {
        COLON();
        buf_puts(b, "P(");
        hlo_shape_print(b, l->physical_shape);
        buf_putc(b, ')');
    }
    if (l->dynamic_shape_metadata_prefix_bytes > 0) {
        COLON();
        buf_printf(b, "M(%lld)", (long long)l->dynamic_shape_metadata_prefix_bytes);
    }
#undef COLON
    buf_putc(b, '}');
}

void hlo_shape_print(buf *b, const hlo_shape *s)
{
    if (s->element_type == HLO_TUPLE) {
        buf_putc(b, '(');
        for (uint32_t i = 0; i < s->ntuple; i++) {
            if (i && i % 5 == 0) /* PrintTupleShapes marks every fifth element */
                buf_printf(b, ", /*index=%u*/", i);
            else if (i)
                buf_puts(b, ", ");
            hlo_shape_print(b, &s->tuple[i]);
        }
        buf_putc(b, ')');
        return;
    }
    buf_puts(b, hlo_type_name(s->element_type));
    buf_putc(b, '[');
    for (uint32_t i = 0; i < s->ndims; i++) {
        if (i)
            buf_putc(b, ',');
        int dyn = i < s->ndynamic && s->dynamic[i];
        if (dyn && s->dims[i] == INT64_MIN) /* Shape::kUnboundedSize */
            buf_putc(b, '?');
        else {
            if (dyn)
                buf_puts(b, "<=");
            put_i64(b, s->dims[i]);
        }
    }
    buf_putc(b, ']');
    int is_array = s->element_type != HLO_TOKEN && s->element_type != HLO_OPAQUE &&
                   s->element_type != 0 && s->element_type != 34;
    if (!is_array || !s->has_layout)
        return;
    if (s->ndims == 0) {
        /* A scalar's layout is printed only when it is not plain "{}". */
        size_t at = b->n;
        print_layout(b, &s->layout);
        if (b->n == at + 2 && b->p && memcmp(b->p + at, "{}", 2) == 0)
            b->n = at;
        return;
    }
    print_layout(b, &s->layout);
}

int64_t hlo_shape_unpadded_bytes(const hlo_shape *s)
{
    switch (s->element_type) {
    case HLO_TUPLE:
        return 8 * (int64_t)s->ntuple;
    case HLO_TOKEN:
        return 0;
    case HLO_OPAQUE:
        return 8;
    default:
        break;
    }
    int64_t n = 1;
    for (uint32_t i = 0; i < s->ndims; i++) {
        int64_t dim = s->dims[i] < 0 ? 0 : s->dims[i];
        if (dim && n > INT64_MAX / dim)
            return INT64_MAX;
        n *= dim;
    }
    int64_t bytes = hlo_type_bytes(s->element_type);
    if (bytes && n > INT64_MAX / bytes)
        return INT64_MAX;
    return n * bytes;
}
