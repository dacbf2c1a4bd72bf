/* parquet.c - reading columns of a parquet file: page headers, decompression (libsnappy,
 * dlopened on first use by io/lazylib.c, and libzstd), definition levels and PLAIN / dictionary
 * values, into one array per column.
 *
 * Flat schemas only (every column a top-level REQUIRED or OPTIONAL leaf): that is what
 * nsys-jax and pandas write. Anything this file does not decode is PQ_ERR_INPUT naming the
 * column, the byte offset and what was expected. Not here: the footer (parquet_meta.c).
 */
#include "core/alloc.h"
#include "core/err.h"
#include "io/lazylib.h"
#include "parquet_internal.h"

#include <stdio.h>
#include <string.h>
#include <zstd.h>

enum { PAGE_DATA = 0, PAGE_INDEX = 1, PAGE_DICT = 2, PAGE_DATA_V2 = 3 };
enum { ENC_PLAIN = 0, ENC_PLAIN_DICT = 2, ENC_RLE = 3, ENC_RLE_DICT = 8 };
enum { CODEC_NONE = 0, CODEC_SNAPPY = 1, CODEC_ZSTD = 6 };
/* Rows a file may hold per byte of its size (plus 2^20): see parquet_read_column. */
#define PARQUET_MAX_ROWS_PER_BYTE 256u
/* A page decompresses to at most this (parquet-cpp's default page is 1 MiB). */
#define PAGE_MAX_BYTES ((size_t)1 << 30)

pq_status parquet_open(const uint8_t *data, size_t n, const char *path, parquet_file **out,
                       pq_error *err)
{
    *out = NULL;
    parquet_file *f = pq_calloc(1, sizeof *f);
    RETURN_ERROR_IF(!f, err, PQ_ERR_NOMEM, path, -1, "out of memory");
    f->data = data;
    f->n = n;
    f->path = path ? path : "";
    arena_init(&f->a);
    pq_status st = parquet_parse_footer(f, err);
    if (st != PQ_OK) {
        parquet_close(f);
        return st;
    }
    *out = f;
    return PQ_OK;
}

void parquet_close(parquet_file *f)
{
    if (!f)
        return;
    arena_release(&f->a);
    pq_free(f);
}

int64_t parquet_num_rows(const parquet_file *f)
{
    return f->num_rows;
}
size_t parquet_num_columns(const parquet_file *f)
{
    return f->ncols;
}
size_t parquet_num_row_groups(const parquet_file *f)
{
    return f->nrg;
}
const parquet_column_info *parquet_column(const parquet_file *f, size_t i)
{
    return i < f->ncols ? &f->cols[i] : NULL;
}

long parquet_find_column(const parquet_file *f, const char *name)
{
    for (size_t i = 0; i < f->ncols; i++)
        if (!strcmp(f->cols[i].name, name))
            return (long)i;
    return -1;
}

const char *parquet_type_name(int physical)
{
    static const char *const names[] = {"BOOLEAN", "INT32",  "INT64",      "INT96",
                                        "FLOAT",   "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
    return physical >= 0 && physical <= 7 ? names[physical] : "?";
}

void parquet_values_free(parquet_values *v)
{
    if (!v)
        return;
    pq_free(v->i32);
    pq_free(v->i64);
    pq_free(v->f32);
    pq_free(v->f64);
    pq_free(v->b);
    pq_free(v->str);
    pq_free(v->valid);
    arena_release(&v->strings);
    memset(v, 0, sizeof *v);
}

/* ---- one column chunk ---- */

typedef struct page_header {
    int type, codec_v2_compressed;
    int64_t uncompressed, compressed;
    int64_t num_values, num_nulls;
    int encoding;
    int64_t def_len, rep_len; /* v2 */
} page_header;

/* The state of reading one column: where the values go, and the dictionary. */
typedef struct col_reader {
    const parquet_file *f;
    const parquet_column_info *c;
    parquet_values *v;
    size_t row;       /* next output row */
    size_t elem_size; /* bytes per value in the arrays (0 for strings) */
    uint8_t *dict;    /* dictionary values, elem_size each (or pq_str for strings) */
    size_t ndict;
    uint8_t *scratch; /* decompressed page */
    size_t scratch_cap;
    uint8_t *levels;
    uint32_t *idx;
    size_t levels_cap;
    pq_error *err;
} col_reader;

static pq_status col_err(col_reader *cr, int64_t off, const char *fmt, const char *what)
{
    return err_set(cr->err, PQ_ERR_INPUT, cr->f->path, off, "column '%s': expected %s%s",
                   cr->c->name, fmt, what ? what : "");
}

static void *out_array(parquet_values *v)
{
    switch (v->physical) {
    case PARQUET_INT32:
        return v->i32;
    case PARQUET_INT64:
        return v->i64;
    case PARQUET_FLOAT:
        return v->f32;
    case PARQUET_DOUBLE:
        return v->f64;
    case PARQUET_BOOLEAN:
        return v->b;
    default:
        return v->str;
    }
}

static int read_data_header(thrift_reader *r, page_header *h, int v2)
{
    int16_t last = 0, id;
    int t, rc;
    while ((rc = thrift_field(r, &last, &t, &id)) == 1) {
        if (id == 1 && t == TC_I32)
            h->num_values = thrift_zigzag(r);
        else if (v2 && id == 2 && t == TC_I32)
            h->num_nulls = thrift_zigzag(r);
        else if ((v2 ? id == 4 : id == 2) && t == TC_I32)
            h->encoding = (int)thrift_zigzag(r);
        else if (v2 && id == 5 && t == TC_I32)
            h->def_len = thrift_zigzag(r);
        else if (v2 && id == 6 && t == TC_I32)
            h->rep_len = thrift_zigzag(r);
        else if (v2 && id == 7 && (t == TC_TRUE || t == TC_FALSE))
            h->codec_v2_compressed = t == TC_TRUE;
        else
            thrift_skip(r, t);
        if (r->failed)
            return -1;
    }
    return rc;
}

static int read_page_header(thrift_reader *r, page_header *h)
{
    memset(h, 0, sizeof *h);
    h->type = -1;
    h->codec_v2_compressed = 1;
    h->encoding = -1;
    int16_t last = 0, id;
    int t, rc;
    while ((rc = thrift_field(r, &last, &t, &id)) == 1) {
        if (id == 1 && t == TC_I32)
            h->type = (int)thrift_zigzag(r);
        else if (id == 2 && t == TC_I32)
            h->uncompressed = thrift_zigzag(r);
        else if (id == 3 && t == TC_I32)
            h->compressed = thrift_zigzag(r);
        else if ((id == 5 || id == 7) && t == TC_STRUCT)
            read_data_header(r, h, 0);
        else if (id == 8 && t == TC_STRUCT)
            read_data_header(r, h, 1);
        else
            thrift_skip(r, t);
        if (r->failed)
            return -1;
    }
    if (rc == 0 && (h->type < 0 || h->compressed < 0 || h->uncompressed < 0))
        return thrift_fail(r, "a page header with its type and sizes");
    return rc;
}

/* Decompresses SRC[0..N) (file offset OFF) into the scratch buffer, exactly WANT bytes. */
static pq_status decompress(col_reader *cr, int codec, const uint8_t *src, size_t n, size_t want,
                            int64_t off, const uint8_t **outp)
{
    if (codec == CODEC_NONE) {
        if (want != n)
            return col_err(cr, off, "an uncompressed page of its stated size", NULL);
        *outp = src;
        return PQ_OK;
    }
    if (want > PAGE_MAX_BYTES)
        return col_err(cr, off, "a page of at most 1 GiB", NULL);
    if (want + 1 > cr->scratch_cap) {
        uint8_t *nb = pq_realloc(cr->scratch, want + 1);
        RETURN_ERROR_IF(!nb, cr->err, PQ_ERR_NOMEM, cr->f->path, -1, "out of memory");
        cr->scratch = nb;
        cr->scratch_cap = want + 1;
    }
    if (codec == CODEC_SNAPPY) {
        const lazy_snappy *sn;
        pq_status st = lazylib_snappy(&sn, cr->f->path, cr->err);
        FORWARD_IF_ERROR(st);
        size_t len = 0;
        if (sn->snappy_uncompressed_length((const char *)src, n, &len) != SNAPPY_OK || len != want)
            return col_err(cr, off, "a snappy page of its stated uncompressed size", NULL);
        if (sn->snappy_uncompress((const char *)src, n, (char *)cr->scratch, &len) != SNAPPY_OK ||
            len != want)
            return col_err(cr, off, "valid snappy data", NULL);
    } else if (codec == CODEC_ZSTD) {
        size_t got = ZSTD_decompress(cr->scratch, want, src, n);
        if (ZSTD_isError(got) || got != want)
            return col_err(cr, off, "valid zstd data of the page's stated size", NULL);
    } else {
        return err_set(cr->err, PQ_ERR_INPUT, cr->f->path, off,
                       "column '%s': expected codec UNCOMPRESSED, SNAPPY or ZSTD, found codec %d",
                       cr->c->name, codec);
    }
    *outp = cr->scratch;
    return PQ_OK;
}

/* Decodes N PLAIN values of the column's type from [P, END) into DST (N slots of the
 * arrays' element type); strings are copied into the values' arena. */
static pq_status decode_plain(col_reader *cr, const uint8_t *p, const uint8_t *end, size_t n,
                              void *dst, int64_t off)
{
    int phys = cr->c->physical;
    if (phys == PARQUET_BOOLEAN) {
        if ((n + 7) / 8 > (size_t)(end - p))
            return col_err(cr, off, "PLAIN booleans within the page", NULL);
        uint8_t *d = dst;
        for (size_t i = 0; i < n; i++)
            d[i] = (p[i >> 3] >> (i & 7)) & 1;
        return PQ_OK;
    }
    if (phys != PARQUET_BYTE_ARRAY) {
        if (n > (size_t)(end - p) / cr->elem_size)
            return col_err(cr, off, "PLAIN values within the page", NULL);
        memcpy(dst, p, n * cr->elem_size);
        return PQ_OK;
    }
    /* One arena copy of the page's value bytes; the strings view it. */
    size_t left = (size_t)(end - p);
    uint8_t *copy = left ? arena_alloc(&cr->v->strings, left) : NULL;
    RETURN_ERROR_IF(left && !copy, cr->err, PQ_ERR_NOMEM, cr->f->path, -1, "out of memory");
    if (left)
        memcpy(copy, p, left);
    pq_str *s = dst;
    const uint8_t *q = copy, *qend = copy + left;
    for (size_t i = 0; i < n; i++) {
        if (qend - q < 4)
            return col_err(cr, off + (q - copy), "a 4-byte string length within the page", NULL);
        uint32_t len =
            (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
        q += 4;
        if (len > (size_t)(qend - q))
            return col_err(cr, off + (q - copy), "a string within the page", NULL);
        s[i].p = (const char *)q;
        s[i].n = len;
        q += len;
    }
    return PQ_OK;
}

static pq_status read_dict_page(col_reader *cr, const page_header *h, const uint8_t *p, size_t n,
                                int64_t off)
{
    if (cr->dict)
        return col_err(cr, off, "at most one dictionary page per column chunk", NULL);
    if (h->encoding != ENC_PLAIN && h->encoding != ENC_PLAIN_DICT)
        return col_err(cr, off, "a PLAIN-encoded dictionary page", NULL);
    if (h->num_values < 0 || (uint64_t)h->num_values > n + 1)
        return col_err(cr, off, "a dictionary no longer than its page", NULL);
    size_t sz = cr->elem_size ? cr->elem_size : sizeof(pq_str);
    cr->ndict = (size_t)h->num_values;
    cr->dict = pq_malloc(cr->ndict ? cr->ndict * sz : 1);
    RETURN_ERROR_IF(!cr->dict, cr->err, PQ_ERR_NOMEM, cr->f->path, -1, "out of memory");
    return decode_plain(cr, p, p + n, cr->ndict, cr->dict, off);
}

static int ensure_levels(col_reader *cr, size_t n)
{
    if (n <= cr->levels_cap)
        return 0;
    uint8_t *l = pq_realloc(cr->levels, n);
    if (!l)
        return -1;
    cr->levels = l;
    uint32_t *ix = pq_realloc_array(cr->idx, n, sizeof *ix);
    if (!ix)
        return -1;
    cr->idx = ix;
    cr->levels_cap = n;
    return 0;
}

/* Decodes the definition levels (0/1) of N values into cr->levels; returns the non-null
 * count in *NONNULL. */
static pq_status read_def_levels(col_reader *cr, const uint8_t *p, const uint8_t *end, size_t n,
                                 int64_t off, size_t *nonnull)
{
    size_t bad;
    const char *what;
    if (parquet_rle_decode(p, end, 1, cr->idx, n, &bad, &what) < 0)
        return col_err(cr, off + (int64_t)bad, "definition levels: ", what);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (cr->idx[i] > 1)
            return col_err(cr, off, "definition levels 0 or 1", NULL);
        cr->levels[i] = (uint8_t)cr->idx[i];
        k += cr->idx[i];
    }
    *nonnull = k;
    return PQ_OK;
}

/* Spreads K packed values (at DST's row) over the N rows of the page by the levels. */
static void spread_nulls(col_reader *cr, uint8_t *base, size_t n, size_t k)
{
    size_t sz = cr->elem_size ? cr->elem_size : sizeof(pq_str);
    size_t src = k;
    for (size_t i = n; i-- > 0;) {
        uint8_t *slot = base + i * sz;
        if (cr->levels[i]) {
            src--;
            if (src != i)
                memcpy(slot, base + src * sz, sz);
        } else {
            memset(slot, 0, sz);
            cr->v->valid[cr->row + i] = 0;
            cr->v->null_count++;
        }
    }
}

/* The values of one data page (levels already removed): ENCODING over [P, END). */
static pq_status read_values(col_reader *cr, const page_header *h, const uint8_t *p,
                             const uint8_t *end, size_t n, size_t k, int64_t off)
{
    size_t sz = cr->elem_size ? cr->elem_size : sizeof(pq_str);
    uint8_t *dst = (uint8_t *)out_array(cr->v) + cr->row * sz;
    pq_status st;
    if (h->encoding == ENC_PLAIN) {
        st = decode_plain(cr, p, end, k, dst, off);
    } else if (h->encoding == ENC_RLE_DICT || h->encoding == ENC_PLAIN_DICT) {
        if (!cr->dict)
            return col_err(cr, off, "a dictionary page before dictionary-encoded data", NULL);
        if (p >= end && k)
            return col_err(cr, off, "the bit width of dictionary indices", NULL);
        size_t bad;
        const char *what;
        int bw = k ? *p : 0;
        if (k && parquet_rle_decode(p + 1, end, bw, cr->idx, k, &bad, &what) < 0)
            return col_err(cr, off + 1 + (int64_t)bad, "dictionary indices: ", what);
        for (size_t i = 0; i < k; i++) {
            if (cr->idx[i] >= cr->ndict)
                return col_err(cr, off, "dictionary indices below the dictionary's size", NULL);
            memcpy(dst + i * sz, cr->dict + (size_t)cr->idx[i] * sz, sz);
        }
        st = PQ_OK;
    } else if (h->encoding == ENC_RLE && cr->c->physical == PARQUET_BOOLEAN) {
        /* Booleans in v2 pages: a 4-byte length, then the hybrid with bit width 1. */
        size_t bad;
        const char *what;
        if (end - p < 4)
            return col_err(cr, off, "the 4-byte length of RLE booleans", NULL);
        if (parquet_rle_decode(p + 4, end, 1, cr->idx, k, &bad, &what) < 0)
            return col_err(cr, off + 4 + (int64_t)bad, "RLE booleans: ", what);
        for (size_t i = 0; i < k; i++)
            dst[i] = (uint8_t)(cr->idx[i] & 1);
        st = PQ_OK;
    } else {
        char what[64];
        snprintf(what, sizeof what, "found encoding %d", h->encoding);
        return col_err(cr, off, "PLAIN, RLE_DICTIONARY or PLAIN_DICTIONARY values; ", what);
    }
    if (st == PQ_OK && k < n)
        spread_nulls(cr, dst, n, k);
    return st;
}

static pq_status read_data_page(col_reader *cr, const page_header *h, int codec, const uint8_t *p,
                                size_t n, int64_t off, size_t rows_left)
{
    if (h->num_values < 0 || (uint64_t)h->num_values > rows_left)
        return col_err(cr, off, "a data page with no more values than the row group's rows", NULL);
    size_t nv = (size_t)h->num_values;
    RETURN_ERROR_IF(ensure_levels(cr, nv ? nv : 1) < 0, cr->err, PQ_ERR_NOMEM, cr->f->path, -1,
                    "out of memory");
    const uint8_t *body;
    size_t k = nv;
    pq_status st;
    if (h->type == PAGE_DATA) {
        FORWARD_IF_ERROR(decompress(cr, codec, p, n, (size_t)h->uncompressed, off, &body));
        const uint8_t *q = body, *end = body + h->uncompressed;
        int64_t qoff = codec == CODEC_NONE ? off : -1;
        if (cr->c->optional) {
            if (end - q < 4)
                return col_err(cr, off, "the 4-byte length of the definition levels", NULL);
            uint32_t len =
                (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
            q += 4;
            if (len > (size_t)(end - q))
                return col_err(cr, off, "definition levels within the page", NULL);
            FORWARD_IF_ERROR(read_def_levels(cr, q, q + len, nv, off, &k));
            q += len;
        }
        st = read_values(cr, h, q, end, nv, k, qoff >= 0 ? qoff + (q - body) : off);
    } else {
        if (h->rep_len != 0 || h->def_len < 0 || (uint64_t)h->def_len > n)
            return col_err(cr, off, "v2 page levels within the page (no repetition levels)", NULL);
        if (cr->c->optional)
            FORWARD_IF_ERROR(read_def_levels(cr, p, p + h->def_len, nv, off, &k));
        else if (h->def_len)
            return col_err(cr, off, "no definition levels in a required column", NULL);
        size_t vlen = n - (size_t)h->def_len;
        int64_t want = h->uncompressed - h->def_len;
        if (want < 0)
            return col_err(cr, off, "a v2 page's uncompressed size covering its levels", NULL);
        FORWARD_IF_ERROR(decompress(cr, h->codec_v2_compressed ? codec : CODEC_NONE, p + h->def_len,
                                    vlen, (size_t)want, off, &body));
        st = read_values(cr, h, body, body + want, nv, k, off);
    }
    if (st == PQ_OK)
        cr->row += nv;
    return st;
}

/* Reads the pages of one column chunk: the values of row group G. */
static pq_status read_chunk(col_reader *cr, size_t g, size_t col)
{
    const parquet_file *f = cr->f;
    const parquet_chunk *ch = &f->chunks[g * f->ncols + col];
    if (f->rg_rows[g] == 0)
        return PQ_OK;
    if (!ch->has_meta)
        return col_err(cr, -1, "column metadata in every row group", NULL);
    if (ch->type != cr->c->physical)
        return col_err(cr, -1, "the chunk's type to match the schema's", NULL);
    int64_t start = ch->data_page_offset;
    if (ch->dict_page_offset > 0 && ch->dict_page_offset < start)
        start = ch->dict_page_offset;
    int64_t limit = (int64_t)f->n - 8;
    if (start < 4 || start > limit || ch->total_compressed < 0 ||
        ch->total_compressed > limit - start)
        return col_err(cr, start, "a column chunk inside the file (before the footer)", NULL);
    const uint8_t *p = f->data + start, *end = p + ch->total_compressed;
    size_t rows = (size_t)f->rg_rows[g], stop = cr->row + rows;
    pq_status st = PQ_OK;
    pq_free(cr->dict);
    cr->dict = NULL;
    cr->ndict = 0;
    while (cr->row < stop) {
        int64_t off = (int64_t)(p - f->data);
        if (p >= end)
            return col_err(cr, off, "another page: the column chunk ended early", NULL);
        thrift_reader r;
        thrift_init(&r, f->data, p, end);
        page_header h;
        if (read_page_header(&r, &h) < 0)
            return col_err(cr, r.bad_at, "a page header: ", r.what);
        int64_t body_off = (int64_t)(r.p - f->data);
        if (h.compressed > end - r.p)
            return col_err(cr, body_off, "a page that ends inside its column chunk", NULL);
        if (h.type == PAGE_DICT) {
            const uint8_t *body;
            st = decompress(cr, ch->codec, r.p, (size_t)h.compressed, (size_t)h.uncompressed,
                            body_off, &body);
            if (st == PQ_OK)
                st = read_dict_page(cr, &h, body, (size_t)h.uncompressed, body_off);
        } else if (h.type == PAGE_DATA || h.type == PAGE_DATA_V2) {
            st = read_data_page(cr, &h, ch->codec, r.p, (size_t)h.compressed, body_off,
                                stop - cr->row);
        } else if (h.type != PAGE_INDEX) {
            return col_err(cr, off, "a data, dictionary or index page", NULL);
        }
        FORWARD_IF_ERROR(st);
        p = r.p + h.compressed;
    }
    return PQ_OK;
}

pq_status parquet_read_column(const parquet_file *f, size_t col, parquet_values *out, pq_error *err)
{
    memset(out, 0, sizeof *out);
    arena_init(&out->strings);
    RETURN_ERROR_IF(col >= f->ncols, err, PQ_ERR_USAGE, f->path, -1, "no column %zu", col);
    const parquet_column_info *c = &f->cols[col];
    col_reader cr = {.f = f, .c = c, .v = out, .err = err};
    static const size_t sizes[] = {1, 4, 8, 0, 4, 8, 0, 0};
    RETURN_ERROR_IF(!c->flat || c->physical < 0 || c->physical > PARQUET_BYTE_ARRAY ||
                        c->physical == PARQUET_INT96,
                    err, PQ_ERR_INPUT, f->path, -1,
                    "column '%s': expected a flat column of type BOOLEAN, INT32, INT64, FLOAT, "
                    "DOUBLE or BYTE_ARRAY, found %s%s",
                    c->name, c->flat ? "type " : "a nested or repeated column",
                    c->flat ? parquet_type_name(c->physical) : "");
    cr.elem_size = sizes[c->physical];
    size_t n = (size_t)f->num_rows, sz = cr.elem_size ? cr.elem_size : sizeof(pq_str);
    /* Runs can encode many rows in few bytes, but a footer claiming billions of rows in a
     * small file is corrupt: refuse it before allocating the arrays. */
    RETURN_ERROR_IF((uint64_t)n > (uint64_t)f->n * PARQUET_MAX_ROWS_PER_BYTE + ((uint64_t)1 << 20),
                    err, PQ_ERR_INPUT, f->path, -1,
                    "column '%s': expected at most %u rows per byte of a %zu-byte file, "
                    "found %zu rows",
                    c->name, PARQUET_MAX_ROWS_PER_BYTE, f->n, n);
    out->n = n;
    out->physical = c->physical;
    void *arr = pq_calloc(n ? n : 1, sz);
    RETURN_ERROR_IF(!arr, err, PQ_ERR_NOMEM, f->path, -1, "out of memory");
    switch (c->physical) {
    case PARQUET_BOOLEAN:
        out->b = arr;
        break;
    case PARQUET_INT32:
        out->i32 = arr;
        break;
    case PARQUET_INT64:
        out->i64 = arr;
        break;
    case PARQUET_FLOAT:
        out->f32 = arr;
        break;
    case PARQUET_DOUBLE:
        out->f64 = arr;
        break;
    default:
        out->str = arr;
        break;
    }
    if (c->optional) {
        out->valid = pq_malloc(n ? n : 1);
        RETURN_ERROR_IF(!out->valid, err, PQ_ERR_NOMEM, f->path, -1, "out of memory");
        memset(out->valid, 1, n ? n : 1);
    }
    pq_status st = PQ_OK;
    for (size_t g = 0; g < f->nrg && st == PQ_OK; g++)
        st = read_chunk(&cr, g, col);
    if (st == PQ_OK && arena_failed(&out->strings))
        st = err_set(err, PQ_ERR_NOMEM, f->path, -1, "out of memory");
    pq_free(cr.dict);
    pq_free(cr.scratch);
    pq_free(cr.levels);
    pq_free(cr.idx);
    if (st == PQ_OK && out->null_count == 0) {
        pq_free(out->valid);
        out->valid = NULL;
    }
    return st;
}
