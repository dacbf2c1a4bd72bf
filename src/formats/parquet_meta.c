/* parquet_meta.c - the thrift compact protocol cursor, the RLE/bit-packed hybrid decoder,
 * and the parquet footer (FileMetaData: schema, row groups, column chunk metadata).
 *
 * Only the fields profq uses are kept; every other field is skipped by type. Lengths are
 * checked as `len > end - p`. Not here: pages and values (parquet.c).
 */
#include "core/alloc.h"
#include "core/err.h"
#include "parquet_internal.h"

#include <string.h>

enum { THRIFT_MAX_DEPTH = 32, SCHEMA_MAX_DEPTH = 64 };

void thrift_init(thrift_reader *r, const uint8_t *base, const uint8_t *p, const uint8_t *end)
{
    r->base = base;
    r->p = p;
    r->end = end;
    r->failed = 0;
    r->bad_at = -1;
    r->what = NULL;
}

int thrift_fail(thrift_reader *r, const char *what)
{
    if (!r->failed) {
        r->failed = 1;
        r->bad_at = (int64_t)(r->p - r->base);
        r->what = what;
    }
    return -1;
}

int thrift_varint(thrift_reader *r, uint64_t *v)
{
    if (r->failed)
        return -1;
    uint64_t x = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (r->p >= r->end)
            return thrift_fail(r, "a thrift varint, found the end of the data");
        uint8_t b = *r->p++;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return 0;
        }
    }
    return thrift_fail(r, "a thrift varint of at most 10 bytes");
}

int64_t thrift_zigzag(thrift_reader *r)
{
    uint64_t v = 0;
    if (thrift_varint(r, &v) < 0)
        return 0;
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

int thrift_field(thrift_reader *r, int16_t *last_id, int *type, int16_t *id)
{
    if (r->failed)
        return -1;
    if (r->p >= r->end)
        return thrift_fail(r, "a thrift field header or stop byte, found the end of the data");
    uint8_t b = *r->p++;
    if (b == 0)
        return 0;
    *type = b & 0x0f;
    int delta = b >> 4;
    if (delta)
        *id = (int16_t)(*last_id + delta);
    else {
        int64_t v = thrift_zigzag(r);
        if (r->failed)
            return -1;
        if (v < -32768 || v > 32767)
            return thrift_fail(r, "a 16-bit thrift field id");
        *id = (int16_t)v;
    }
    *last_id = *id;
    if (*type > TC_STRUCT)
        return thrift_fail(r, "a thrift compact type 1..12");
    return 1;
}

int thrift_list(thrift_reader *r, int *elem_type, uint32_t *count)
{
    if (r->failed)
        return -1;
    if (r->p >= r->end)
        return thrift_fail(r, "a thrift list header, found the end of the data");
    uint8_t b = *r->p++;
    *elem_type = b & 0x0f;
    uint64_t n = b >> 4;
    if (n == 15 && thrift_varint(r, &n) < 0)
        return -1;
    /* Every element takes at least one byte. */
    if (n > (uint64_t)(r->end - r->p))
        return thrift_fail(r, "a thrift list no longer than the bytes left");
    *count = (uint32_t)n;
    return 0;
}

int thrift_binary(thrift_reader *r, const uint8_t **s, size_t *n)
{
    uint64_t len = 0;
    if (thrift_varint(r, &len) < 0)
        return -1;
    if (len > (uint64_t)(r->end - r->p))
        return thrift_fail(r, "a thrift string no longer than the bytes left");
    *s = r->p;
    *n = (size_t)len;
    r->p += len;
    return 0;
}

static int skip_depth(thrift_reader *r, int type, int depth)
{
    if (depth > THRIFT_MAX_DEPTH)
        return thrift_fail(r, "thrift structures nested at most 32 deep");
    uint64_t v;
    const uint8_t *s;
    size_t n;
    switch (type) {
    case TC_TRUE:
    case TC_FALSE:
        return 0;
    case TC_BYTE:
        if (r->p >= r->end)
            return thrift_fail(r, "a thrift byte, found the end of the data");
        r->p++;
        return 0;
    case TC_I16:
    case TC_I32:
    case TC_I64:
        return thrift_varint(r, &v);
    case TC_DOUBLE:
        if (r->end - r->p < 8)
            return thrift_fail(r, "an 8-byte thrift double");
        r->p += 8;
        return 0;
    case TC_BINARY:
        return thrift_binary(r, &s, &n);
    case TC_LIST:
    case TC_SET: {
        int et;
        uint32_t cnt;
        if (thrift_list(r, &et, &cnt) < 0)
            return -1;
        for (uint32_t i = 0; i < cnt; i++) {
            /* Booleans in a list are one byte each. */
            if ((et == TC_TRUE || et == TC_FALSE) ? skip_depth(r, TC_BYTE, depth + 1)
                                                  : skip_depth(r, et, depth + 1))
                return -1;
        }
        return 0;
    }
    case TC_MAP: {
        uint64_t cnt;
        if (thrift_varint(r, &cnt) < 0)
            return -1;
        if (cnt == 0)
            return 0;
        if (cnt > (uint64_t)(r->end - r->p))
            return thrift_fail(r, "a thrift map no longer than the bytes left");
        if (r->p >= r->end)
            return thrift_fail(r, "a thrift map's key and value types");
        uint8_t kv = *r->p++;
        int kt = kv >> 4, vt = kv & 0x0f;
        kt = (kt == TC_TRUE || kt == TC_FALSE) ? TC_BYTE : kt;
        vt = (vt == TC_TRUE || vt == TC_FALSE) ? TC_BYTE : vt;
        for (uint64_t i = 0; i < cnt; i++)
            if (skip_depth(r, kt, depth + 1) || skip_depth(r, vt, depth + 1))
                return -1;
        return 0;
    }
    case TC_STRUCT: {
        int16_t last = 0, id;
        int t, rc;
        while ((rc = thrift_field(r, &last, &t, &id)) == 1)
            if (skip_depth(r, t, depth + 1))
                return -1;
        return rc;
    }
    default:
        return thrift_fail(r, "a known thrift compact type");
    }
}

int thrift_skip(thrift_reader *r, int type)
{
    return skip_depth(r, type, 0);
}

/* Reads BIT_WIDTH bits at bit offset BIT of P (the caller checked the bytes exist). */
static uint32_t get_bits(const uint8_t *p, size_t bit, int bit_width)
{
    uint64_t acc = 0;
    size_t byte = bit >> 3;
    int nbytes = (int)(((bit & 7) + (size_t)bit_width + 7) >> 3);
    for (int k = 0; k < nbytes; k++)
        acc |= (uint64_t)p[byte + (size_t)k] << (8 * k);
    acc >>= bit & 7;
    return bit_width == 32 ? (uint32_t)acc : (uint32_t)(acc & ((1ull << bit_width) - 1));
}

int parquet_rle_decode(const uint8_t *p, const uint8_t *end, int bit_width, uint32_t *out,
                       size_t count, size_t *bad, const char **what)
{
    const uint8_t *start = p;
    size_t got = 0;
    if (bit_width < 0 || bit_width > 32) {
        *bad = 0;
        *what = "a bit width of 0..32";
        return -1;
    }
    while (got < count) {
        uint64_t h = 0;
        int shift = 0;
        for (;;) {
            if (p >= end || shift > 35) {
                *bad = (size_t)(p - start);
                *what = "an RLE/bit-packed run header";
                return -1;
            }
            uint8_t b = *p++;
            h |= (uint64_t)(b & 0x7f) << shift;
            shift += 7;
            if (!(b & 0x80))
                break;
        }
        if (h & 1) {
            uint64_t groups = h >> 1;
            size_t avail = (size_t)(end - p);
            if (groups == 0 || groups > (avail + 1) * 8) {
                *bad = (size_t)(p - start);
                *what = "a bit-packed run of 1 or more groups within the data";
                return -1;
            }
            size_t nvals = (size_t)groups * 8, take = nvals < count - got ? nvals : count - got;
            size_t need_bytes = (take * (size_t)bit_width + 7) / 8;
            if (need_bytes > avail) {
                *bad = (size_t)(p - start);
                *what = "the bytes of a bit-packed run";
                return -1;
            }
            for (size_t i = 0; i < take; i++)
                out[got + i] = bit_width ? get_bits(p, i * (size_t)bit_width, bit_width) : 0;
            got += take;
            size_t run_bytes = (size_t)groups * (size_t)bit_width;
            p += run_bytes < avail ? run_bytes : avail;
        } else {
            uint64_t run = h >> 1;
            size_t vbytes = ((size_t)bit_width + 7) / 8;
            if (run == 0 || vbytes > (size_t)(end - p)) {
                *bad = (size_t)(p - start);
                *what = run ? "the value of an RLE run" : "an RLE run of 1 or more values";
                return -1;
            }
            uint32_t v = 0;
            for (size_t k = 0; k < vbytes; k++)
                v |= (uint32_t)p[k] << (8 * k);
            p += vbytes;
            size_t take = run < count - got ? (size_t)run : count - got;
            for (size_t i = 0; i < take; i++)
                out[got + i] = v;
            got += take;
        }
    }
    return 0;
}

/* ---- the footer ---- */

typedef struct schema_elem {
    int type, repetition, converted, logical;
    int64_t num_children; /* -1 when absent */
    const uint8_t *name;
    size_t name_n;
} schema_elem;

static int read_logical(thrift_reader *r, int *logical)
{
    int16_t last = 0, id;
    int t, rc;
    while ((rc = thrift_field(r, &last, &t, &id)) == 1) {
        if (t == TC_STRUCT)
            *logical = id;
        if (thrift_skip(r, t))
            return -1;
    }
    return rc;
}

static int read_schema_elem(thrift_reader *r, schema_elem *e)
{
    memset(e, 0, sizeof *e);
    e->type = e->repetition = e->converted = -1;
    e->num_children = -1;
    int16_t last = 0, id;
    int t, rc;
    while ((rc = thrift_field(r, &last, &t, &id)) == 1) {
        if (id == 1 && t == TC_I32)
            e->type = (int)thrift_zigzag(r);
        else if (id == 3 && t == TC_I32)
            e->repetition = (int)thrift_zigzag(r);
        else if (id == 4 && t == TC_BINARY)
            thrift_binary(r, &e->name, &e->name_n);
        else if (id == 5 && t == TC_I32)
            e->num_children = thrift_zigzag(r);
        else if (id == 6 && t == TC_I32)
            e->converted = (int)thrift_zigzag(r);
        else if (id == 10 && t == TC_STRUCT)
            read_logical(r, &e->logical);
        else
            thrift_skip(r, t);
        if (r->failed)
            return -1;
    }
    return rc;
}

static int read_column_meta(thrift_reader *r, parquet_chunk *c)
{
    int16_t last = 0, id;
    int t, rc;
    c->has_meta = 1;
    while ((rc = thrift_field(r, &last, &t, &id)) == 1) {
        if (id == 1 && t == TC_I32)
            c->type = (int)thrift_zigzag(r);
        else if (id == 4 && t == TC_I32)
            c->codec = (int)thrift_zigzag(r);
        else if (id == 5 && t == TC_I64)
            c->num_values = thrift_zigzag(r);
        else if (id == 7 && t == TC_I64)
            c->total_compressed = thrift_zigzag(r);
        else if (id == 9 && t == TC_I64)
            c->data_page_offset = thrift_zigzag(r);
        else if (id == 11 && t == TC_I64)
            c->dict_page_offset = thrift_zigzag(r);
        else
            thrift_skip(r, t);
        if (r->failed)
            return -1;
    }
    return rc;
}

static int read_column_chunk(thrift_reader *r, parquet_chunk *c)
{
    int16_t last = 0, id;
    int t, rc;
    memset(c, 0, sizeof *c);
    c->dict_page_offset = -1;
    while ((rc = thrift_field(r, &last, &t, &id)) == 1) {
        if (id == 3 && t == TC_STRUCT)
            read_column_meta(r, c);
        else
            thrift_skip(r, t);
        if (r->failed)
            return -1;
    }
    return rc;
}

/* A RowGroup: its columns into CHUNKS[0..ncols) (exactly NCOLS of them) and its rows. */
static int read_row_group(thrift_reader *r, parquet_chunk *chunks, size_t ncols, int64_t *rows)
{
    int16_t last = 0, id;
    int t, rc, seen = 0;
    *rows = -1;
    while ((rc = thrift_field(r, &last, &t, &id)) == 1) {
        if (id == 1 && t == TC_LIST) {
            int et;
            uint32_t cnt;
            if (thrift_list(r, &et, &cnt) < 0)
                return -1;
            if (et != TC_STRUCT || cnt != ncols)
                return thrift_fail(r, "a row group with one column chunk per schema leaf");
            for (uint32_t i = 0; i < cnt; i++)
                if (read_column_chunk(r, &chunks[i]) < 0)
                    return -1;
            seen = 1;
        } else if (id == 3 && t == TC_I64)
            *rows = thrift_zigzag(r);
        else
            thrift_skip(r, t);
        if (r->failed)
            return -1;
    }
    if (rc == 0 && (!seen || *rows < 0))
        return thrift_fail(r, "a row group with its columns and num_rows");
    return rc;
}

/* Walks the schema tree from element *I (a child of a node with DEF/REP levels and the
 * path PREFIX), filling the leaves. */
static int walk_schema(parquet_file *f, thrift_reader *r, const schema_elem *el, size_t nel,
                       size_t *i, int depth, const char *prefix, int top, size_t *leaf)
{
    if (*i >= nel)
        return thrift_fail(r, "as many schema elements as the groups' num_children");
    const schema_elem *e = &el[*i];
    (*i)++;
    if (depth > SCHEMA_MAX_DEPTH)
        return thrift_fail(r, "a schema nested at most 64 deep");
    size_t plen = prefix ? strlen(prefix) : 0;
    char *name = arena_alloc(&f->a, plen + e->name_n + 2);
    if (!name)
        return thrift_fail(r, "memory for the schema (out of memory)");
    if (plen) {
        memcpy(name, prefix, plen);
        name[plen++] = '.';
    }
    if (e->name_n)
        memcpy(name + plen, e->name, e->name_n);
    name[plen + e->name_n] = 0;
    if (e->num_children > 0) {
        if ((uint64_t)e->num_children > nel - *i)
            return thrift_fail(r, "a schema group with no more children than elements left");
        for (int64_t k = 0; k < e->num_children; k++)
            if (walk_schema(f, r, el, nel, i, depth + 1, name, 0, leaf) < 0)
                return -1;
        return 0;
    }
    if (*leaf >= f->ncols)
        return thrift_fail(r, "no more schema leaves than counted");
    parquet_column_info *c = &f->cols[(*leaf)++];
    c->name = name;
    c->physical = e->type;
    c->logical = e->logical;
    c->converted = e->converted;
    c->optional = e->repetition == 1;
    c->flat = top && (e->repetition == 0 || e->repetition == 1 || e->repetition == -1);
    return 0;
}

static pq_status footer_error(parquet_file *f, const thrift_reader *r, pq_error *err)
{
    RETURN_ERROR_IF(f->a.failed, err, PQ_ERR_NOMEM, f->path, -1,
                    "out of memory reading the footer");
    return err_set(err, PQ_ERR_INPUT, f->path, r->bad_at, "parquet footer: expected %s",
                   r->what ? r->what : "valid FileMetaData");
}

/* Counts the leaves and allocates the column table. */
static int count_leaves(parquet_file *f, thrift_reader *r, const schema_elem *el, size_t nel)
{
    if (nel == 0 || el[0].num_children < 0)
        return thrift_fail(r, "a schema whose first element is the root group");
    size_t leaves = 0;
    for (size_t i = 1; i < nel; i++)
        leaves += el[i].num_children <= 0;
    f->ncols = leaves;
    f->cols = arena_alloc(&f->a, (leaves ? leaves : 1) * sizeof *f->cols);
    if (!f->cols)
        return thrift_fail(r, "memory for the schema");
    size_t i = 1, leaf = 0;
    for (int64_t k = 0; k < el[0].num_children; k++) {
        if (i >= nel)
            return thrift_fail(r, "as many schema elements as the root's num_children");
        if (walk_schema(f, r, el, nel, &i, 1, NULL, 1, &leaf) < 0)
            return -1;
    }
    if (i != nel || leaf != leaves)
        return thrift_fail(r, "a schema tree covering every element");
    return 0;
}

static int read_schema(parquet_file *f, thrift_reader *r)
{
    int et;
    uint32_t cnt;
    if (thrift_list(r, &et, &cnt) < 0)
        return -1;
    if (et != TC_STRUCT)
        return thrift_fail(r, "a list of SchemaElement structs");
    schema_elem *el = pq_calloc(cnt ? cnt : 1, sizeof *el);
    if (!el) {
        f->a.failed = 1;
        return thrift_fail(r, "memory for the schema");
    }
    int rc = 0;
    for (uint32_t i = 0; i < cnt && rc == 0; i++)
        rc = read_schema_elem(r, &el[i]) < 0 ? -1 : 0;
    if (rc == 0)
        rc = count_leaves(f, r, el, cnt);
    pq_free(el);
    return rc;
}

static int read_row_groups(parquet_file *f, thrift_reader *r)
{
    int et;
    uint32_t cnt;
    if (thrift_list(r, &et, &cnt) < 0)
        return -1;
    if (et != TC_STRUCT)
        return thrift_fail(r, "a list of RowGroup structs");
    if (!f->cols)
        return thrift_fail(r, "the schema before the row groups");
    f->nrg = cnt;
    f->rg_rows = arena_alloc(&f->a, (cnt ? cnt : 1) * sizeof *f->rg_rows);
    f->chunks =
        arena_alloc(&f->a, (cnt ? cnt : 1) * (f->ncols ? f->ncols : 1) * sizeof(parquet_chunk));
    if (!f->rg_rows || !f->chunks)
        return thrift_fail(r, "memory for the row groups");
    for (uint32_t g = 0; g < cnt; g++)
        if (read_row_group(r, &f->chunks[g * f->ncols], f->ncols, &f->rg_rows[g]) < 0)
            return -1;
    return 0;
}

pq_status parquet_parse_footer(parquet_file *f, pq_error *err)
{
    RETURN_ERROR_IF(f->n < 12 || memcmp(f->data, "PAR1", 4) ||
                        memcmp(f->data + f->n - 4, "PAR1", 4),
                    err, PQ_ERR_INPUT, f->path, f->n < 4 ? 0 : (int64_t)f->n - 4,
                    "expected a parquet file (PAR1 at its start and end)");
    const uint8_t *lenp = f->data + f->n - 8;
    uint32_t flen = (uint32_t)lenp[0] | (uint32_t)lenp[1] << 8 | (uint32_t)lenp[2] << 16 |
                    (uint32_t)lenp[3] << 24;
    RETURN_ERROR_IF(flen > f->n - 12, err, PQ_ERR_INPUT, f->path, (int64_t)f->n - 8,
                    "expected a footer length of at most %zu bytes, found %u", f->n - 12, flen);
    const uint8_t *fstart = lenp - flen;
    thrift_reader r;
    thrift_init(&r, f->data, fstart, lenp);
    int16_t last = 0, id;
    int t, rc;
    int have_rows = 0;
    f->num_rows = -1;
    while ((rc = thrift_field(&r, &last, &t, &id)) == 1) {
        if (id == 2 && t == TC_LIST)
            read_schema(f, &r);
        else if (id == 3 && t == TC_I64) {
            f->num_rows = thrift_zigzag(&r);
            have_rows = 1;
        } else if (id == 4 && t == TC_LIST)
            read_row_groups(f, &r);
        else
            thrift_skip(&r, t);
        if (r.failed)
            return footer_error(f, &r, err);
    }
    if (rc < 0)
        return footer_error(f, &r, err);
    RETURN_ERROR_IF(!f->cols || !have_rows || f->num_rows < 0 || !f->rg_rows, err, PQ_ERR_INPUT,
                    f->path, (int64_t)(fstart - f->data),
                    "parquet footer: expected FileMetaData with a schema, num_rows and row "
                    "groups");
    int64_t sum = 0;
    for (size_t g = 0; g < f->nrg; g++) {
        RETURN_ERROR_IF(f->rg_rows[g] > INT64_MAX - sum, err, PQ_ERR_INPUT, f->path,
                        (int64_t)(fstart - f->data),
                        "parquet footer: row group row counts overflow");
        sum += f->rg_rows[g];
    }
    RETURN_ERROR_IF(sum != f->num_rows, err, PQ_ERR_INPUT, f->path, (int64_t)(fstart - f->data),
                    "parquet footer: expected num_rows %lld to equal the row groups' sum %lld",
                    (long long)f->num_rows, (long long)sum);
    return PQ_OK;
}
