/* ttlog_type.c - tensor types, shapes and output layouts of MLIR type strings (the seed's
 * mlir_parser): `tensor<AxBxDTYPE, ...>` occurrences, dtype sizes, tiled memref layouts with
 * their padded shapes and bytes, and the buffer type. Pure functions over string views.
 * Not here: splitting an op's text into fields (ttlog_optext.c). */
#define _GNU_SOURCE /* memmem */
#include "ttlog_parse.h"

#include <stdint.h>

uint64_t ttlog_dtype_bytes(pq_str d)
{
    static const struct {
        const char *name;
        uint64_t size;
    } T[] = {{"bf16", 2}, {"f16", 2}, {"f32", 4}, {"f64", 8}, {"i8", 1},  {"si8", 1},
             {"ui8", 1},  {"i16", 2}, {"i32", 4}, {"i64", 8}, {"bool", 1}};
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++)
        if (d.n == strlen(T[i].name) && memcmp(d.p, T[i].name, d.n) == 0)
            return T[i].size;
    return 4;
}

int ttlog_next_tensor(pq_str t, size_t *pos, pq_str *shape, pq_str *dtype)
{
    while (*pos < t.n) {
        const char *p = memmem(t.p + *pos, t.n - *pos, "tensor<", 7);
        if (!p)
            break;
        const char *end = t.p + t.n, *q = p + 7, *s = q;
        *pos = (size_t)(q - t.p);
        /* [\dx]+ then [a-zA-Z]\w*: the last 'x' before a letter ends the shape. */
        const char *last_x = NULL;
        while (q < end && (is_digit(*q) || *q == 'x')) {
            if (*q == 'x')
                last_x = q;
            q++;
        }
        const char *dt;
        if (q < end && ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z')) && q > s) {
            dt = q;
        } else if (last_x && last_x + 1 < end && !is_digit(last_x[1])) {
            dt = last_x + 1; /* "4x32xbf16": the letters start right after the last x */
        } else if (q > s && last_x == q - 1) {
            dt = q;
        } else {
            continue;
        }
        if (dt < end && (dt[0] < 'a' || dt[0] > 'z') && (dt[0] < 'A' || dt[0] > 'Z'))
            continue;
        const char *de = dt;
        while (de < end && is_word(*de))
            de++;
        size_t sn = (size_t)(dt - s);
        if (sn && s[sn - 1] == 'x')
            sn--;
        *shape = sv(s, sn);
        *dtype = sv(dt, (size_t)(de - dt));
        *pos = (size_t)(de - t.p);
        return 1;
    }
    *pos = t.n;
    return 0;
}

static int parse_dims(pq_str s, int64_t *dims, int max)
{
    int n = 0;
    size_t i = 0;
    while (i < s.n && n < max) {
        int64_t v = 0;
        size_t start = i;
        while (i < s.n && is_digit(s.p[i]) && v < ((int64_t)1 << 40))
            v = v * 10 + (s.p[i++] - '0');
        if (i == start)
            return n;
        dims[n++] = v;
        if (i < s.n && s.p[i] == 'x')
            i++;
        else
            break;
    }
    return n;
}

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
    if (a && b > UINT64_MAX / a)
        return UINT64_MAX;
    return a * b;
}

/* A padded dimension: tile count times tile size, saturated (parse_dims gives values below
 * 2^44, so a product of two can pass INT64_MAX; the byte count then saturates too). */
static int64_t dim_mul(int64_t a, int64_t b)
{
    uint64_t p = mul_sat((uint64_t)a, (uint64_t)b);
    return p > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)p;
}

void ttlog_layout_of(pq_str t, tt_layout *o)
{
    memset(o, 0, sizeof *o);
    size_t pos = 0;
    pq_str shape, dtype;
    if (!ttlog_next_tensor(t, &pos, &shape, &dtype))
        return;
    o->present = 1;
    o->dtype = dtype;
    o->ndims = parse_dims(shape, o->shape, TT_MAX_DIMS);
    uint64_t size = ttlog_dtype_bytes(dtype), unpadded = size;
    for (int i = 0; i < o->ndims; i++)
        unpadded = mul_sat(unpadded, (uint64_t)o->shape[i]);
    o->unpadded_bytes = unpadded;
    o->padded_bytes = unpadded;
    o->padded_ndims = o->ndims;
    memcpy(o->padded_shape, o->shape, sizeof o->shape);
    /* memref<AxBx!ttcore.tile<32x32, bf16>  (older dialect: !tt.tile) */
    const char *m = find(t, "memref<");
    if (m) {
        pq_str rest = sv(m + 7, (size_t)(t.p + t.n - (m + 7)));
        const char *tile = find(rest, "x!ttcore.tile<");
        size_t skip = 14;
        if (!tile)
            tile = find(rest, "x!tt.tile<"), skip = 10;
        int64_t md[TT_MAX_DIMS];
        if (tile) {
            pq_str dims = sv(rest.p, (size_t)(tile - rest.p));
            int nd = parse_dims(dims, md, TT_MAX_DIMS);
            int64_t th[2];
            pq_str ts = sv(tile + skip, (size_t)(t.p + t.n - (tile + skip)));
            int nt = parse_dims(ts, th, 2);
            if (nd >= 1 && nt == 2) {
                o->tiled = 1;
                o->tile_h = th[0];
                o->tile_w = th[1];
                o->memref_ndims = nd;
                memcpy(o->memref_shape, md, sizeof(int64_t) * (size_t)nd);
                if (nd == 1) {
                    o->padded_ndims = 2;
                    o->padded_shape[0] = th[0];
                    o->padded_shape[1] = dim_mul(md[0], th[1]);
                } else {
                    o->padded_ndims = nd;
                    for (int i = 0; i < nd - 2; i++)
                        o->padded_shape[i] = md[i];
                    o->padded_shape[nd - 2] = dim_mul(md[nd - 2], th[0]);
                    o->padded_shape[nd - 1] = dim_mul(md[nd - 1], th[1]);
                }
                uint64_t padded = size;
                for (int i = 0; i < o->padded_ndims; i++)
                    padded = mul_sat(padded, (uint64_t)o->padded_shape[i]);
                o->padded_bytes = padded;
            }
        } else {
            const char *q = rest.p, *e = rest.p + rest.n;
            while (q < e && (is_digit(*q) || *q == 'x'))
                q++;
            o->memref_ndims =
                parse_dims(sv(rest.p, (size_t)(q - rest.p)), o->memref_shape, TT_MAX_DIMS);
        }
    }
    const char *bt = find(t, "#ttnn.buffer_type<");
    if (bt) {
        const char *s = bt + 18, *e = s, *end = t.p + t.n;
        while (e < end && is_word(*e))
            e++;
        o->buffer_type = sv(s, (size_t)(e - s));
    }
}
