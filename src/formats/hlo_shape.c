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

/* The decimal text of V ending at END (24 bytes are enough); returns its start. */
static char *i64_text(char *end, int64_t v)
{
    char *p = end;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    return p;
}

static void put_i64(buf *b, int64_t v)
{
    char t[24], *p = i64_text(t + 24, v);
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

/* Shape strings straight from ShapeProto bytes (hlo_shape_print_bytes): the memory viewer
 * prints each distinct shape once and needs nothing else of it, so building an hlo_shape
 * first (arena arrays for dimensions, layouts and tuple elements) is wasted work. */

/* Text gathered in a local array and appended in large pieces. */
typedef struct shape_out {
    buf *b;
    size_t n;
    char t[256];
} shape_out;

static void out_flush(shape_out *o)
{
    buf_put(o->b, o->t, o->n);
    o->n = 0;
}

static inline void out_put(shape_out *o, const char *s, size_t n)
{
    if (o->n + n > sizeof o->t) {
        out_flush(o);
        if (n > sizeof o->t) {
            buf_put(o->b, s, n);
            return;
        }
    }
    memcpy(o->t + o->n, s, n);
    o->n += n;
}

static void out_i64(shape_out *o, int64_t v)
{
    char t[24], *p = i64_text(t + 24, v);
    out_put(o, p, (size_t)(t + 24 - p));
}

/* A varint as pb_read_varint reads one (at most 10 bytes, 64 bits); 0 when malformed. */
static inline int sb_varint(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
    const uint8_t *p = *pp;
    if (p < end && *p < 0x80) { /* one byte: most */
        *out = *p;
        *pp = p + 1;
        return 1;
    }
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
        if (p >= end)
            return 0;
        uint8_t c = *p++;
        if (shift == 63 && c > 1)
            return 0;
        v |= (uint64_t)(c & 0x7F) << shift;
        if (!(c & 0x80)) {
            *pp = p;
            *out = v;
            return 1;
        }
    }
    return 0;
}

/* A length-delimited field's body after its tag: [*Q, *QEND), and *PP past it. */
static int sb_len(const uint8_t **pp, const uint8_t *end, const uint8_t **q, const uint8_t **qend)
{
    uint64_t len;
    if (!sb_varint(pp, end, &len) || len > (uint64_t)(end - *pp))
        return 0;
    *q = *pp;
    *qend = *pp + len;
    *pp = *qend;
    return 1;
}

/* One or more varints: a varint field's value (WIRE 0) or a packed field's (WIRE 2), each
 * to FN; 0 when malformed or when FN refuses. */
typedef int (*sb_each)(void *ctx, uint64_t v);
static inline int sb_values(const uint8_t **pp, const uint8_t *end, unsigned wire, sb_each fn,
                            void *ctx)
{
    uint64_t v;
    if (wire == 0)
        return sb_varint(pp, end, &v) && fn(ctx, v);
    const uint8_t *q, *qend;
    if (wire != 2 || !sb_len(pp, end, &q, &qend))
        return 0;
    while (q < qend)
        if (!sb_varint(&q, qend, &v) || !fn(ctx, v))
            return 0;
    return 1;
}

typedef struct sb_dims {
    shape_out *o;
    const char *first; /* put before the first value ("" or "{") */
    uint32_t n;
    int sat; /* the element count overflowed: INT64_MAX bytes */
    int64_t count;
} sb_dims;

static inline int sb_dim(void *ctx, uint64_t u)
{
    sb_dims *d = ctx;
    int64_t v = (int64_t)u, dim = v < 0 ? 0 : v;
    shape_out *o = d->o;
    if (o->n + 25 > sizeof o->t) /* room for the separator and 20 digits and a sign */
        out_flush(o);
    char *w = o->t + o->n;
    if (d->n++)
        *w++ = ',';
    else if (*d->first)
        *w++ = *d->first;
    if (u < 10) { /* most dimensions: one or two digits */
        *w++ = (char)('0' + u);
    } else if (u < 100) {
        w[0] = (char)('0' + u / 10);
        w[1] = (char)('0' + u % 10);
        w += 2;
    } else {
        char t[24], *p = i64_text(t + 24, v);
        while (p < t + 24)
            *w++ = *p++;
    }
    o->n = (size_t)(w - o->t);
    if (!d->sat && dim && d->count > INT64_MAX / dim)
        d->sat = 1;
    else if (!d->sat)
        d->count *= dim;
    return 1;
}

static int sb_false(void *ctx, uint64_t v)
{
    (void)ctx;
    return v == 0; /* a dynamic dimension would change the dimensions already printed */
}

static int print_bytes(shape_out *o, const uint8_t *p, const uint8_t *end, int depth,
                       int64_t *unpadded);

/* A tuple's elements (fields 4 from P on) and its closing parenthesis. */
static int print_tuple(shape_out *o, const uint8_t *p, const uint8_t *end, int depth,
                       int64_t *unpadded)
{
    out_put(o, "(", 1);
    uint32_t i = 0;
    while (p < end) {
        const uint8_t *q, *qend;
        if (*p != (4 << 3 | 2))
            return 0;
        p++;
        if (!sb_len(&p, end, &q, &qend))
            return 0;
        if (i && i % 5 == 0) { /* PrintTupleShapes marks every fifth element */
            out_put(o, ", /*index=", 10);
            out_i64(o, i);
            out_put(o, "*/", 2);
        } else if (i) {
            out_put(o, ", ", 2);
        }
        int64_t ignored;
        if (!print_bytes(o, q, qend, depth + 1, &ignored))
            return 0;
        i++;
    }
    out_put(o, ")", 1);
    *unpadded = 8 * (int64_t)i;
    return 1;
}

static int print_bytes(shape_out *o, const uint8_t *p, const uint8_t *end, int depth,
                       int64_t *unpadded)
{
    uint64_t v;
    if (depth > HLO_MAX_SHAPE_DEPTH || p >= end || *p != (2 << 3 | 0))
        return 0;
    p++;
    if (!sb_varint(&p, end, &v))
        return 0;
    int32_t type = (int32_t)(uint32_t)v;
    if (type == HLO_TUPLE)
        return print_tuple(o, p, end, depth, unpadded);
    if (type <= 0 || type > 33 || type == HLO_TOKEN || type == HLO_OPAQUE)
        return 0; /* not an array: rare, decoded */
    const char *name = TYPE_NAMES[type];
    out_put(o, name, strlen(name));
    out_put(o, "[", 1);
    sb_dims dims = {o, "", 0, 0, 1};
    while (p < end && (*p == (3 << 3 | 0) || *p == (3 << 3 | 2))) {
        unsigned wire = *p++ & 7;
        if (!sb_values(&p, end, wire, sb_dim, &dims))
            return 0;
    }
    out_put(o, "]", 1);
    if (p < end && *p == (5 << 3 | 2)) { /* the layout: minor_to_major only */
        const uint8_t *q, *qend;
        p++;
        if (!sb_len(&p, end, &q, &qend))
            return 0;
        sb_dims m2m = {o, "{", 0, 0, 1}; /* its "{" with the first value */
        while (q < qend) {
            uint64_t tag;
            if (!sb_varint(&q, qend, &tag))
                return 0;
            if (tag == (16 << 3 | 0)) { /* tail_padding_alignment_in_elements: "L(n)" unless 1 */
                if (!sb_varint(&q, qend, &v) || v > 1)
                    return 0;
                continue;
            }
            if (tag != (1 << 3 | 0) && tag != (1 << 3 | 2))
                return 0;
            if (!sb_values(&q, qend, (unsigned)tag & 7, sb_dim, &m2m))
                return 0;
        }
        if (m2m.n)
            out_put(o, "}", 1);
        else if (dims.n)
            out_put(o, "{}", 2); /* a scalar's plain "{}" is not printed */
    }
    while (p < end && (*p == (6 << 3 | 0) || *p == (6 << 3 | 2))) {
        unsigned wire = *p++ & 7;
        if (!sb_values(&p, end, wire, sb_false, NULL))
            return 0;
    }
    if (p != end)
        return 0;
    int64_t bytes = TYPE_BYTES[type];
    if (dims.sat || (bytes && dims.count > INT64_MAX / bytes))
        *unpadded = INT64_MAX;
    else
        *unpadded = dims.count * bytes;
    return 1;
}

int hlo_shape_print_bytes(buf *b, pq_str bytes, int depth, int64_t *unpadded)
{
    shape_out o;
    o.b = b;
    o.n = 0;
    size_t start = b->n;
    const uint8_t *p = (const uint8_t *)(bytes.n ? bytes.p : "");
    if (!print_bytes(&o, p, p + bytes.n, depth, unpadded)) {
        b->n = start; /* nothing appended: the caller decodes */
        return 0;
    }
    out_flush(&o);
    return 1;
}
