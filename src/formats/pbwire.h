/* pbwire.h - zero-copy protobuf wire-format cursor (in the manner of Perfetto's protozero).
 *
 * A cursor walks the fields of one message held in a byte span; it never
 * allocates and never recurses. Sub-messages come back as spans the caller
 * opens with another cursor. Every length is checked as `len > end - p`
 * before use. Unknown fields are the caller's to ignore: pb_next() returns
 * every field, already bounds-checked and skipped past. Groups (wire types 3
 * and 4, proto2 only) and wire types 6/7 are errors. Errors carry the byte
 * offset from `base` (the start of the file) and a static description.
 */
#ifndef PQ_FORMATS_PBWIRE_H
#define PQ_FORMATS_PBWIRE_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum { PB_VARINT = 0, PB_FIXED64 = 1, PB_LEN = 2, PB_FIXED32 = 5 };

/* Readable bytes the fast path may touch past the end of a span (see pb_fast_varint). */
enum { PB_PADDING = 16 };

/* Callers that descend into sub-messages keep their depth at or below this. */
enum { PB_MAX_DEPTH = 100 };

typedef struct pb_cursor {
    const uint8_t *p, *end;
    const uint8_t *base;   /* start of the file, for error offsets */
    const uint8_t *err_at; /* where the error was found; NULL while fine */
    const char *err;       /* static: what was expected */
} pb_cursor;

typedef struct pb_field {
    uint32_t num;
    uint32_t wire;
    uint64_t u;          /* value for VARINT, FIXED64 and FIXED32 */
    const uint8_t *data; /* payload for LEN */
    size_t len;
} pb_field;

typedef enum { PB_END = 0, PB_FIELD = 1, PB_ERROR = -1 } pb_next_result;

static inline void pb_init(pb_cursor *c, const uint8_t *p, size_t n, const uint8_t *base)
{
    c->p = p;
    c->end = p + n;
    c->base = base ? base : p;
    c->err_at = NULL;
    c->err = NULL;
}

/* Byte offset of the error (or of the cursor) from base. */
static inline int64_t pb_error_offset(const pb_cursor *c)
{
    return (int64_t)((c->err_at ? c->err_at : c->p) - c->base);
}

static inline int pb_fail(pb_cursor *c, const uint8_t *at, const char *what)
{
    c->err_at = at;
    c->err = what;
    return PB_ERROR;
}

/* Reads a base-128 varint of at most 10 bytes. Returns 0 and sets the error on failure. */
static inline int pb_read_varint(pb_cursor *c, uint64_t *out)
{
    const uint8_t *p = c->p, *end = c->end;
    if (p < end && !(*p & 0x80)) { /* fast path: one byte */
        *out = *p;
        c->p = p + 1;
        return 1;
    }
    if (end - p >= 2 && !(p[1] & 0x80)) { /* two bytes: field numbers 16+, lengths < 2^14 */
        *out = (uint64_t)(p[0] & 0x7F) | (uint64_t)p[1] << 7;
        c->p = p + 2;
        return 1;
    }
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
        if (p >= end) {
            pb_fail(c, c->p, "a varint, found the end of the data");
            return 0;
        }
        uint8_t b = *p++;
        if (shift == 63 && b > 1) {
            pb_fail(c, c->p, "a varint of at most 64 bits");
            return 0;
        }
        v |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80)) {
            *out = v;
            c->p = p;
            return 1;
        }
    }
    pb_fail(c, c->p, "a varint of at most 10 bytes");
    return 0;
}

static inline uint64_t pb_load_le64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static inline uint32_t pb_load_le32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    return v;
}

/* Reads the next field. PB_END at the end of the span, PB_ERROR with c->err set. */
static inline int pb_next(pb_cursor *c, pb_field *f)
{
    if (c->err)
        return PB_ERROR;
    if (c->p >= c->end)
        return PB_END;
    const uint8_t *tag_at = c->p;
    uint64_t tag;
    if (!pb_read_varint(c, &tag))
        return PB_ERROR;
    if (tag > 0xFFFFFFFFu || (tag >> 3) == 0)
        return pb_fail(c, tag_at, "a field tag with a field number in 1..2^29-1");
    f->num = (uint32_t)(tag >> 3);
    f->wire = (uint32_t)(tag & 7);
    switch (f->wire) {
    case PB_VARINT:
        if (!pb_read_varint(c, &f->u))
            return PB_ERROR;
        return PB_FIELD;
    case PB_FIXED64:
        if (c->end - c->p < 8)
            return pb_fail(c, c->p, "8 bytes of a fixed64 field, found the end of the data");
        f->u = pb_load_le64(c->p);
        c->p += 8;
        return PB_FIELD;
    case PB_FIXED32:
        if (c->end - c->p < 4)
            return pb_fail(c, c->p, "4 bytes of a fixed32 field, found the end of the data");
        f->u = pb_load_le32(c->p);
        c->p += 4;
        return PB_FIELD;
    case PB_LEN: {
        const uint8_t *len_at = c->p;
        uint64_t len;
        if (!pb_read_varint(c, &len))
            return PB_ERROR;
        if (len > (uint64_t)(c->end - c->p))
            return pb_fail(c, len_at, "a length-delimited field that fits in the bytes left");
        f->data = c->p;
        f->len = (size_t)len;
        c->p += len;
        return PB_FIELD;
    }
    default:
        return pb_fail(c, tag_at, "a wire type of 0, 1, 2 or 5 (groups and types 6/7 are invalid)");
    }
}

/*
 * The fast path. PRECONDITION: at least PB_PADDING readable bytes follow every buffer the
 * fast functions see (io/mapfile.h pads every input; tests must pad their vectors too).
 * These decode without error details: they return the advanced pointer, or
 * NULL when the bytes are malformed. Hot loops (events, stats) run on them and, on NULL,
 * re-run the same span through pb_next() to report where and what was expected. Both
 * accept exactly the same grammar (the fuzz target checks that they agree).
 */
#if defined(__GNUC__)
#define PB_LIKELY(x)   __builtin_expect(!!(x), 1)
#define PB_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define PB_LIKELY(x)   (x)
#define PB_UNLIKELY(x) (x)
#endif

static inline const uint8_t *pb_fast_varint(const uint8_t *p, const uint8_t *end, uint64_t *out)
{
    if (PB_LIKELY(p < end && *p < 0x80)) {
        *out = *p;
        return p + 1;
    }
    uint64_t v = 0;
    if (PB_LIKELY(p < end)) {
        /* Buffers are padded (PB_PADDING), so eight bytes are readable here even near the
         * end. Find the terminating byte with one load and squeeze the 7-bit groups with
         * three mask-and-shift steps: no loop, no branch per byte. A terminator at or past
         * END means the varint is truncated. Varints of 9 or 10 bytes take the loop below. */
        if (!(p[1] & 0x80)) { /* two bytes, the most common multi-byte case */
            if (PB_UNLIKELY(end - p < 2))
                return NULL;
            *out = (uint64_t)(p[0] & 0x7F) | ((uint64_t)p[1] << 7);
            return p + 2;
        }
        uint64_t x = pb_load_le64(p);
        uint64_t stop = ~x & UINT64_C(0x8080808080808080);
        if (PB_LIKELY(stop != 0)) {
            unsigned nbytes = (unsigned)__builtin_ctzll(stop) / 8 + 1;
            if (PB_UNLIKELY((ptrdiff_t)nbytes > end - p))
                return NULL;
#if defined(PB_USE_PEXT)
            x = __builtin_ia32_pext_di(x, (stop ^ (stop - 1)) & UINT64_C(0x7f7f7f7f7f7f7f7f));
#else
            if (nbytes < 8)
                x &= (UINT64_C(1) << (8 * nbytes)) - 1;
            x = ((x & UINT64_C(0x7f007f007f007f00)) >> 1) | (x & UINT64_C(0x007f007f007f007f));
            x = ((x & UINT64_C(0x3fff00003fff0000)) >> 2) | (x & UINT64_C(0x00003fff00003fff));
            x = ((x & UINT64_C(0x0fffffff00000000)) >> 4) | (x & UINT64_C(0x000000000fffffff));
#endif
            *out = x;
            return p + nbytes;
        }
    }
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (PB_UNLIKELY(p >= end))
            return NULL;
        uint8_t b = *p++;
        if (PB_UNLIKELY(shift == 63 && b > 1))
            return NULL;
        v |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return p;
        }
    }
    return NULL;
}

/* Skips the payload of a field of wire type WIRE that starts at P. */
static inline const uint8_t *pb_fast_skip(const uint8_t *p, const uint8_t *end, uint32_t wire)
{
    uint64_t v;
    switch (wire) {
    case PB_VARINT:
        return pb_fast_varint(p, end, &v);
    case PB_FIXED64:
        return end - p >= 8 ? p + 8 : NULL;
    case PB_FIXED32:
        return end - p >= 4 ? p + 4 : NULL;
    case PB_LEN:
        p = pb_fast_varint(p, end, &v);
        if (!p || v > (uint64_t)(end - p))
            return NULL;
        return p + v;
    default:
        return NULL;
    }
}

/* Reads a tag; NULL when malformed (including field number 0 or a tag above 2^32). */
static inline const uint8_t *pb_fast_tag(const uint8_t *p, const uint8_t *end, uint32_t *tag)
{
    if (PB_LIKELY(p < end && *p < 0x80 && *p >= 8)) {
        *tag = *p;
        return p + 1;
    }
    uint64_t t;
    p = pb_fast_varint(p, end, &t);
    if (!p || t > 0xFFFFFFFFu || (t >> 3) == 0)
        return NULL;
    *tag = (uint32_t)t;
    return p;
}

/* Validates a message with no sub-messages to descend into: every field well-formed. */
static inline int pb_fast_validate_flat(const uint8_t *p, const uint8_t *end)
{
    while (p < end) {
        uint32_t tag;
        p = pb_fast_tag(p, end, &tag);
        if (!p)
            return 0;
        p = pb_fast_skip(p, end, tag & 7);
        if (!p)
            return 0;
    }
    return 1;
}

/* Zigzag decoding of sint32/sint64. */
static inline int64_t pb_zigzag64(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}
static inline int32_t pb_zigzag32(uint32_t v)
{
    return (int32_t)(v >> 1) ^ -(int32_t)(v & 1);
}

static inline double pb_double(uint64_t bits)
{
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static inline float pb_float(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/*
 * Repeated scalar fields arrive packed (one LEN field) or unpacked (one field per
 * element); pb_repeated iterates both the same way. Initialise with the field
 * just read; call pb_repeated_next until it returns PB_END (or PB_ERROR).
 */
typedef struct pb_repeated {
    pb_cursor c; /* over the packed payload */
    int packed;
    uint32_t elem_wire; /* PB_VARINT, PB_FIXED32 or PB_FIXED64 */
    int single_done;
    uint64_t single;
} pb_repeated;

/* Returns 0 (and sets parent->err) when a non-packed field has the wrong wire type. */
int pb_repeated_init(pb_repeated *r, pb_cursor *parent, const pb_field *f, uint32_t elem_wire);
int pb_repeated_next(pb_repeated *r, uint64_t *out);

/* Counts the elements of a packed-or-unpacked repeated field occurrence (-1 on error). */
int64_t pb_repeated_count(const pb_field *f, uint32_t elem_wire, const uint8_t *base);

/* Checks that a span is a well-formed message (all fields bounds-checked), descending
 * into nothing. Returns 1 or 0 with c->err set. */
int pb_validate_flat(pb_cursor *c);

#endif
