/* pbwire.c - the out-of-line parts of the protobuf cursor: repeated-field iteration.
 * The per-field hot path is inline in pbwire.h. */
#include "pbwire.h"

int pb_repeated_init(pb_repeated *r, pb_cursor *parent, const pb_field *f, uint32_t elem_wire)
{
    memset(r, 0, sizeof *r);
    r->elem_wire = elem_wire;
    if (f->wire == PB_LEN) {
        r->packed = 1;
        pb_init(&r->c, f->data, f->len, parent->base);
        if (elem_wire == PB_FIXED32 && f->len % 4 != 0)
            return pb_fail(parent, f->data,
                           "a packed fixed32 payload whose length is a multiple of 4"),
                   0;
        if (elem_wire == PB_FIXED64 && f->len % 8 != 0)
            return pb_fail(parent, f->data,
                           "a packed fixed64 payload whose length is a multiple of 8"),
                   0;
        return 1;
    }
    if (f->wire != elem_wire) {
        pb_fail(parent, parent->p, "a repeated scalar field with its declared wire type");
        return 0;
    }
    r->single = f->u;
    return 1;
}

int pb_repeated_next(pb_repeated *r, uint64_t *out)
{
    if (!r->packed) {
        if (r->single_done)
            return PB_END;
        r->single_done = 1;
        *out = r->single;
        return PB_FIELD;
    }
    pb_cursor *c = &r->c;
    if (c->err)
        return PB_ERROR;
    if (c->p >= c->end)
        return PB_END;
    switch (r->elem_wire) {
    case PB_VARINT:
        return pb_read_varint(c, out) ? PB_FIELD : PB_ERROR;
    case PB_FIXED32:
        *out = pb_load_le32(c->p);
        c->p += 4;
        return PB_FIELD;
    case PB_FIXED64:
        *out = pb_load_le64(c->p);
        c->p += 8;
        return PB_FIELD;
    default:
        return pb_fail(c, c->p, "a scalar element type");
    }
}

int64_t pb_repeated_count(const pb_field *f, uint32_t elem_wire, const uint8_t *base)
{
    if (f->wire != PB_LEN)
        return f->wire == elem_wire ? 1 : -1;
    if (elem_wire == PB_FIXED32)
        return f->len % 4 ? -1 : (int64_t)(f->len / 4);
    if (elem_wire == PB_FIXED64)
        return f->len % 8 ? -1 : (int64_t)(f->len / 8);
    pb_cursor c;
    pb_init(&c, f->data, f->len, base);
    int64_t n = 0;
    uint64_t v;
    while (c.p < c.end) {
        if (!pb_read_varint(&c, &v))
            return -1;
        n++;
    }
    return n;
}

int pb_validate_flat(pb_cursor *c)
{
    pb_field f = {0};
    int r;
    while ((r = pb_next(c, &f)) == PB_FIELD) {
    }
    return r == PB_END;
}
