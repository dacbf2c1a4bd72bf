/* hlo_dec.h - the decoder state and the small allocation and field helpers shared by the
 * files of the HloProto decoder (internal to src/formats/hlo*.c): hlo.c (modules,
 * computations, instructions, shapes, indexes) and hlo_buffers.c (the buffer assignment).
 * The helpers are static, so that each file compiles them as before the split. */
#ifndef PQ_FORMATS_HLO_DEC_H
#define PQ_FORMATS_HLO_DEC_H
#include "hlo.h"
#include "pbwire.h"

#include <stdlib.h>
#include <string.h>

/* Plain static, as when they were in one file (inline would change the compiler's inlining
 * choices in the hot decoder); "unused" because each file uses only some of them. */
#if defined(__GNUC__)
#define HLO_DEC_FN static __attribute__((unused))
#else
#define HLO_DEC_FN static inline
#endif

typedef struct dec {
    arena *a;
    const uint8_t *base;
    const uint8_t *err_at;
    const char *err;
    int nomem;
    int lazy_shapes; /* hlo_decode_lazy: shapes kept serialized, operands not read */
    /* hlo_decode_lazy: one computation's instruction refs, gathered in one pass over its
     * fields before they are copied to the arena (reused; freed at the end of the decode) */
    hlo_instruction_ref *scratch;
    size_t scratch_cap;
} dec;

HLO_DEC_FN int dfail(dec *d, const pb_cursor *c)
{
    if (!d->err) {
        d->err_at = c->err_at ? c->err_at : c->p;
        d->err = c->err ? c->err : "a well-formed message";
    }
    return 0;
}

HLO_DEC_FN int dfail_at(dec *d, const uint8_t *at, const char *what)
{
    if (!d->err) {
        d->err_at = at;
        d->err = what;
    }
    return 0;
}

static void *dalloc(dec *d, size_t n)
{
    void *p = arena_alloc(d->a, n ? n : 1);
    if (!p)
        d->nomem = 1;
    return p;
}

HLO_DEC_FN pq_str sv(const pb_field *f)
{
    return (pq_str){(const char *)f->data, f->len};
}

/* Counts the occurrences of each length-delimited field NUMS[i] (K of them) in a message, in
 * one pass, into OUT[i]. */
HLO_DEC_FN int count_lens(dec *d, const uint8_t *p, size_t n, const uint32_t *nums, uint32_t *out,
                          int k)
{
    pb_cursor c;
    pb_field f = {0};
    int r;
    for (int i = 0; i < k; i++)
        out[i] = 0;
    pb_init(&c, p, n, d->base);
    while ((r = pb_next(&c, &f)) == PB_FIELD)
        if (f.wire == PB_LEN)
            for (int i = 0; i < k; i++)
                out[i] += f.num == nums[i];
    if (r == PB_ERROR)
        return dfail(d, &c);
    return 1;
}

/* Counts occurrences of length-delimited field NUM in a message. */
HLO_DEC_FN int count_len(dec *d, const uint8_t *p, size_t n, uint32_t num, uint32_t *out)
{
    return count_lens(d, p, n, &num, out, 1);
}

/* An array for the occurrences of length-delimited field NUM in a message (counted first),
 * of SIZE-byte items, NULL when there are none; *OK is 0 on an error. */
static void *alloc_counted(dec *d, const uint8_t *p, size_t n, uint32_t num, size_t size, int *ok)
{
    uint32_t cnt;
    void *v = NULL;
    *ok = count_len(d, p, n, num, &cnt) && (!cnt || (v = dalloc(d, cnt * size)) != NULL);
    return v;
}

/* Appends the elements of one occurrence of a repeated varint field (packed or not). A
 * packed one has as many elements as bytes under 0x80 (each ends a varint): counted so,
 * then read in one pass. */
HLO_DEC_FN int append_varints(dec *d, const pb_field *f, int64_t **arr, uint32_t *n)
{
    if (f->wire != PB_VARINT && f->wire != PB_LEN)
        return 1; /* another wire type: skipped as unknown, as the protobuf runtimes do */
    size_t cnt = 1;
    if (f->wire == PB_LEN) {
        cnt = 0;
        for (size_t i = 0; i < f->len; i++)
            cnt += f->data[i] < 0x80;
        if (f->len && f->data[f->len - 1] >= 0x80)
            return dfail_at(d, f->data, "a packed repeated varint field");
        if (cnt == 0)
            return 1;
    }
    if ((uint64_t)*n + (uint64_t)cnt > UINT32_MAX)
        return dfail_at(d, f->data, "fewer than 2^32 repeated elements");
    int64_t *na = dalloc(d, ((size_t)*n + cnt) * sizeof *na);
    if (!na)
        return 0;
    if (*n)
        memcpy(na, *arr, *n * sizeof *na);
    uint32_t i = *n;
    if (f->wire == PB_VARINT) {
        na[i++] = (int64_t)f->u;
    } else {
        pb_cursor c;
        uint64_t v;
        pb_init(&c, f->data, f->len, d->base);
        while (c.p < c.end) {
            if (!pb_read_varint(&c, &v)) /* over 10 bytes or 64 bits */
                return dfail_at(d, f->data, "a packed repeated varint field");
            na[i++] = (int64_t)v;
        }
    }
    *arr = na;
    *n = i;
    return 1;
}

HLO_DEC_FN int append_varints32(dec *d, const pb_field *f, int32_t **arr, uint32_t *n)
{
    int64_t *tmp = NULL;
    uint32_t m = 0;
    if (!append_varints(d, f, &tmp, &m))
        return 0;
    int32_t *na = dalloc(d, ((size_t)*n + m) * sizeof *na);
    if (!na)
        return 0;
    if (*n)
        memcpy(na, *arr, *n * sizeof *na);
    for (uint32_t i = 0; i < m; i++)
        na[*n + i] = (int32_t)(uint32_t)(uint64_t)tmp[i];
    *arr = na;
    *n += m;
    return 1;
}

HLO_DEC_FN int append_bools(dec *d, const pb_field *f, uint8_t **arr, uint32_t *n)
{
    int64_t *tmp = NULL;
    uint32_t m = 0;
    if (!append_varints(d, f, &tmp, &m))
        return 0;
    uint8_t *na = dalloc(d, (size_t)*n + m);
    if (!na)
        return 0;
    if (*n)
        memcpy(na, *arr, *n);
    for (uint32_t i = 0; i < m; i++)
        na[*n + i] = tmp[i] != 0;
    *arr = na;
    *n += m;
    return 1;
}

/* Decodes a BufferAssignmentProto into m's logical buffers, allocations and heap traces
 * (hlo_buffers.c). Returns 1, or 0 with d->err set. */
int hlo_dec_buffer_assignment(dec *d, const uint8_t *p, size_t n, hlo_module *m);

#endif
