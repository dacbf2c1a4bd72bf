/* test_parquet.c - unit tests of the parquet reader's decoders on hand-built bytes: the
 * thrift compact protocol cursor, the RLE/bit-packed hybrid, a minimal parquet file written
 * byte by byte (values, an optional column with nulls, a dictionary page), and bad files: a
 * corrupt footer, an unknown codec, a page that overruns its chunk, a bad dictionary index.
 * Whole pyarrow-written files are checked by tests/nsys/parquet_pyarrow.sh.
 */
#include "testutil.h"

#include "formats/parquet.h"
#include "formats/parquet_internal.h"

/* ---- a thrift compact writer ---- */

static void tw_field(tbuf *b, int16_t *last, int type, int16_t id)
{
    int d = id - *last;
    if (d > 0 && d <= 15)
        put_byte(b, (uint8_t)(d << 4 | type));
    else {
        put_byte(b, (uint8_t)type);
        put_varint(b, (uint64_t)(((int64_t)id << 1) ^ ((int64_t)id >> 63)));
    }
    *last = id;
}

static void tw_zz(tbuf *b, int64_t v)
{
    put_varint(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static void tw_i(tbuf *b, int16_t *last, int16_t id, int type, int64_t v)
{
    tw_field(b, last, type, id);
    tw_zz(b, v);
}

static void tw_str(tbuf *b, int16_t *last, int16_t id, const char *s)
{
    tw_field(b, last, TC_BINARY, id);
    put_varint(b, strlen(s));
    put_bytes(b, s, strlen(s));
}

static void tw_list(tbuf *b, int type, uint32_t n)
{
    if (n < 15)
        put_byte(b, (uint8_t)(n << 4 | (uint32_t)type));
    else {
        put_byte(b, (uint8_t)(0xf0 | type));
        put_varint(b, n);
    }
}

/* ---- thrift ---- */

static void test_thrift_fields(void **state)
{
    (void)state;
    tbuf b;
    tb_init(&b);
    int16_t last = 0;
    tw_i(&b, &last, 1, TC_I32, -5);
    tw_i(&b, &last, 300, TC_I64, 1234567890123LL); /* long form: delta > 15 */
    tw_field(&b, &last, TC_TRUE, 301);
    tw_str(&b, &last, 302, "abc");
    put_byte(&b, 0);
    thrift_reader r;
    thrift_init(&r, b.p, b.p, b.p + b.n);
    int16_t l = 0, id;
    int t;
    assert_int_equal(thrift_field(&r, &l, &t, &id), 1);
    assert_int_equal(id, 1);
    assert_int_equal(t, TC_I32);
    assert_int_equal(thrift_zigzag(&r), -5);
    assert_int_equal(thrift_field(&r, &l, &t, &id), 1);
    assert_int_equal(id, 300);
    assert_int_equal(thrift_zigzag(&r), 1234567890123LL);
    assert_int_equal(thrift_field(&r, &l, &t, &id), 1);
    assert_int_equal(t, TC_TRUE);
    assert_int_equal(id, 301);
    assert_int_equal(thrift_field(&r, &l, &t, &id), 1);
    const uint8_t *s;
    size_t n;
    assert_int_equal(thrift_binary(&r, &s, &n), 0);
    assert_int_equal(n, 3);
    assert_memory_equal(s, "abc", 3);
    assert_int_equal(thrift_field(&r, &l, &t, &id), 0);
    assert_false(r.failed);
    tb_free(&b);
}

static void test_thrift_skip(void **state)
{
    (void)state;
    tbuf b;
    tb_init(&b);
    /* struct { 1: list<struct{1: i32}> [2 items], 2: map<binary,i64>{"k":7}, 3: double,
     * 4: list<bool>[t,f], 5: byte } then a marker i32. */
    int16_t last = 0, l2;
    tw_field(&b, &last, TC_LIST, 1);
    tw_list(&b, TC_STRUCT, 2);
    for (int k = 0; k < 2; k++) {
        l2 = 0;
        tw_i(&b, &l2, 1, TC_I32, k);
        put_byte(&b, 0);
    }
    tw_field(&b, &last, TC_MAP, 2);
    put_varint(&b, 1);
    put_byte(&b, (uint8_t)(TC_BINARY << 4 | TC_I64));
    put_varint(&b, 1);
    put_byte(&b, 'k');
    tw_zz(&b, 7);
    tw_field(&b, &last, TC_DOUBLE, 3);
    put_double(&b, 1.5);
    tw_field(&b, &last, TC_LIST, 4);
    tw_list(&b, TC_TRUE, 2);
    put_byte(&b, 1);
    put_byte(&b, 2);
    tw_field(&b, &last, TC_BYTE, 5);
    put_byte(&b, 9);
    put_byte(&b, 0);
    size_t struct_end = b.n;
    put_byte(&b, 0x15); /* the marker: field 1, i32 */
    thrift_reader r;
    thrift_init(&r, b.p, b.p, b.p + b.n);
    assert_int_equal(thrift_skip(&r, TC_STRUCT), 0);
    assert_int_equal(r.p - b.p, (long)struct_end);
    /* Cut short anywhere, the skip fails with an offset inside the bytes. */
    for (size_t cut = 0; cut < struct_end; cut++) {
        thrift_init(&r, b.p, b.p, b.p + cut);
        assert_int_equal(thrift_skip(&r, TC_STRUCT), -1);
        assert_true(r.failed);
        assert_true(r.bad_at >= 0 && r.bad_at <= (int64_t)cut);
        assert_non_null(r.what);
    }
    tb_free(&b);
}

static void test_thrift_bad(void **state)
{
    (void)state;
    /* A string longer than the bytes left; a list count larger than the bytes; type 13. */
    const uint8_t s[] = {0x05, 'a', 'b'};
    thrift_reader r;
    const uint8_t *p;
    size_t n;
    thrift_init(&r, s, s, s + sizeof s);
    assert_int_equal(thrift_binary(&r, &p, &n), -1);
    assert_int_equal(r.bad_at, 1);
    const uint8_t l[] = {0xf5, 0xff, 0x0f, 1, 2};
    int et;
    uint32_t cnt;
    thrift_init(&r, l, l, l + sizeof l);
    assert_int_equal(thrift_list(&r, &et, &cnt), -1);
    const uint8_t f[] = {0x1d};
    int16_t last = 0, id;
    int t;
    thrift_init(&r, f, f, f + 1);
    assert_int_equal(thrift_field(&r, &last, &t, &id), -1);
    /* Deep nesting is refused, not recursed into. */
    uint8_t deep[80];
    memset(deep, 0x1c, sizeof deep); /* field 1, struct, 80 times */
    thrift_init(&r, deep, deep, deep + sizeof deep);
    assert_int_equal(thrift_skip(&r, TC_STRUCT), -1);
    assert_non_null(strstr(r.what, "nested"));
}

/* ---- RLE / bit-packed hybrid ---- */

static void test_rle_runs(void **state)
{
    (void)state;
    uint32_t out[40];
    size_t bad;
    const char *what;
    /* RLE run of 5 x 3 (bit width 2: 1 value byte), then bit-packed 1 group of width 3:
     * values 0..7 packed LSB first = 0x88 0xC6 0xFA. */
    const uint8_t a[] = {5 << 1, 3, (1 << 1) | 1, 0x88, 0xc6, 0xfa};
    assert_int_equal(parquet_rle_decode(a, a + sizeof a, 3, out, 13, &bad, &what), 0);
    for (int i = 0; i < 5; i++)
        assert_int_equal(out[i], 3);
    for (int i = 0; i < 8; i++)
        assert_int_equal(out[5 + i], i);
    /* Width 0: a run gives zeros without value bytes. */
    const uint8_t z[] = {10 << 1};
    assert_int_equal(parquet_rle_decode(z, z + 1, 0, out, 10, &bad, &what), 0);
    assert_int_equal(out[9], 0);
    /* A 16-bit RLE value (2 bytes, little endian). */
    const uint8_t w[] = {2 << 1, 0x34, 0x12};
    assert_int_equal(parquet_rle_decode(w, w + 3, 16, out, 2, &bad, &what), 0);
    assert_int_equal(out[1], 0x1234);
    /* Width 1, bit-packed: 0b10110001 -> 1,0,0,0,1,1,0,1; only 6 wanted. */
    const uint8_t bp[] = {3, 0xb1};
    assert_int_equal(parquet_rle_decode(bp, bp + 2, 1, out, 6, &bad, &what), 0);
    const uint32_t want[] = {1, 0, 0, 0, 1, 1};
    assert_memory_equal(out, want, sizeof want);
}

static void test_rle_errors(void **state)
{
    (void)state;
    uint32_t out[64];
    size_t bad;
    const char *what;
    /* Not enough values: the data ends after the run. */
    const uint8_t a[] = {2 << 1, 1};
    assert_int_equal(parquet_rle_decode(a, a + 2, 1, out, 3, &bad, &what), -1);
    assert_int_equal(bad, 2);
    assert_non_null(strstr(what, "header"));
    /* A bit-packed run whose bytes are missing. */
    const uint8_t b[] = {(2 << 1) | 1, 0xff};
    assert_int_equal(parquet_rle_decode(b, b + 2, 4, out, 16, &bad, &what), -1);
    assert_non_null(strstr(what, "bit-packed"));
    /* A zero-length RLE run would loop forever: refused. */
    const uint8_t c[] = {0, 0};
    assert_int_equal(parquet_rle_decode(c, c + 2, 1, out, 1, &bad, &what), -1);
    /* Bit width 33. */
    assert_int_equal(parquet_rle_decode(c, c + 2, 33, out, 1, &bad, &what), -1);
    /* A run header varint that never ends. */
    const uint8_t d[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    assert_int_equal(parquet_rle_decode(d, d + sizeof d, 1, out, 1, &bad, &what), -1);
}

/* ---- whole files, byte by byte ---- */

typedef struct colspec {
    const char *name;
    int type, optional, codec, encoding;
    const tbuf *dict; /* dictionary page body (PLAIN), or NULL */
    int ndict;
    const tbuf *data; /* data page body (levels + values) */
    int nvalues;
    int32_t bad_compressed; /* when set, the data page header's compressed size */
} colspec;

static void put_page_header(tbuf *b, int type, size_t len, int32_t comp, int nvalues, int enc)
{
    int16_t last = 0, l2 = 0;
    tw_i(b, &last, 1, TC_I32, type);
    tw_i(b, &last, 2, TC_I32, (int64_t)len);
    tw_i(b, &last, 3, TC_I32, comp ? comp : (int64_t)len);
    tw_field(b, &last, TC_STRUCT, type == 2 ? 7 : 5);
    tw_i(b, &l2, 1, TC_I32, nvalues);
    tw_i(b, &l2, 2, TC_I32, enc);
    if (type == 0) {
        tw_i(b, &l2, 3, TC_I32, 3);
        tw_i(b, &l2, 4, TC_I32, 3);
    }
    put_byte(b, 0);
    put_byte(b, 0);
}

/* A one-row-group file of the given columns, all with NROWS rows. */
static void build_file(tbuf *f, const colspec *cols, int ncols, int nrows)
{
    f->n = 0;
    put_bytes(f, "PAR1", 4);
    int64_t start[8], size[8], data_at[8];
    for (int c = 0; c < ncols; c++) {
        start[c] = (int64_t)f->n;
        if (cols[c].dict) {
            put_page_header(f, 2, cols[c].dict->n, 0, cols[c].ndict, 0);
            put_bytes(f, cols[c].dict->p, cols[c].dict->n);
        }
        data_at[c] = (int64_t)f->n;
        put_page_header(f, 0, cols[c].data->n, cols[c].bad_compressed, cols[c].nvalues,
                        cols[c].encoding);
        put_bytes(f, cols[c].data->p, cols[c].data->n);
        size[c] = (int64_t)f->n - start[c];
    }
    size_t footer = f->n;
    int16_t last = 0, l2, l3, l4;
    tw_i(f, &last, 1, TC_I32, 1);
    tw_field(f, &last, TC_LIST, 2);
    tw_list(f, TC_STRUCT, (uint32_t)ncols + 1);
    l2 = 0;
    tw_str(f, &l2, 4, "schema");
    tw_i(f, &l2, 5, TC_I32, ncols);
    put_byte(f, 0);
    for (int c = 0; c < ncols; c++) {
        l2 = 0;
        tw_i(f, &l2, 1, TC_I32, cols[c].type);
        tw_i(f, &l2, 3, TC_I32, cols[c].optional);
        tw_str(f, &l2, 4, cols[c].name);
        put_byte(f, 0);
    }
    tw_i(f, &last, 3, TC_I64, nrows);
    tw_field(f, &last, TC_LIST, 4);
    tw_list(f, TC_STRUCT, 1);
    l2 = 0;
    tw_field(f, &l2, TC_LIST, 1);
    tw_list(f, TC_STRUCT, (uint32_t)ncols);
    for (int c = 0; c < ncols; c++) {
        l3 = 0;
        tw_i(f, &l3, 2, TC_I64, start[c]);
        tw_field(f, &l3, TC_STRUCT, 3);
        l4 = 0;
        tw_i(f, &l4, 1, TC_I32, cols[c].type);
        tw_field(f, &l4, TC_LIST, 2);
        tw_list(f, TC_I32, 1);
        tw_zz(f, 0);
        tw_field(f, &l4, TC_LIST, 3);
        tw_list(f, TC_BINARY, 1);
        put_varint(f, strlen(cols[c].name));
        put_bytes(f, cols[c].name, strlen(cols[c].name));
        tw_i(f, &l4, 4, TC_I32, cols[c].codec);
        tw_i(f, &l4, 5, TC_I64, nrows);
        tw_i(f, &l4, 6, TC_I64, size[c]);
        tw_i(f, &l4, 7, TC_I64, size[c]);
        tw_i(f, &l4, 9, TC_I64, data_at[c]);
        if (cols[c].dict)
            tw_i(f, &l4, 11, TC_I64, start[c]);
        put_byte(f, 0);
        put_byte(f, 0);
    }
    tw_i(f, &l2, 3, TC_I64, nrows);
    put_byte(f, 0);
    put_byte(f, 0);
    uint32_t flen = (uint32_t)(f->n - footer);
    put_fixed32(f, flen);
    put_bytes(f, "PAR1", 4);
}

/* Column "x": INT64 required PLAIN 10, -20, 30. */
static void plain_i64(tbuf *d)
{
    tb_init(d);
    put_fixed64(d, 10);
    put_fixed64(d, (uint64_t)-20);
    put_fixed64(d, 30);
}

static void test_file_values(void **state)
{
    (void)state;
    tbuf x, y, dict, s, f;
    tb_init(&f);
    plain_i64(&x);
    /* Column "y": DOUBLE optional, rows 1.5, null, 2.5: def levels RLE (len 4 + bit-packed
     * 1 group: 1,0,1) then two PLAIN doubles. */
    tb_init(&y);
    put_fixed32(&y, 2);
    put_byte(&y, 3);
    put_byte(&y, 0x05);
    put_double(&y, 1.5);
    put_double(&y, 2.5);
    /* Column "s": strings through a dictionary {"ab", ""}: indices 1,0,0 (bit width 1). */
    tb_init(&dict);
    put_fixed32(&dict, 2);
    put_bytes(&dict, "ab", 2);
    put_fixed32(&dict, 0);
    tb_init(&s);
    put_byte(&s, 1);
    put_byte(&s, 3);
    put_byte(&s, 0x01);
    colspec cols[] = {
        {"x", PARQUET_INT64, 0, 0, 0, NULL, 0, &x, 3, 0},
        {"y", PARQUET_DOUBLE, 1, 0, 0, NULL, 0, &y, 3, 0},
        {"s", PARQUET_BYTE_ARRAY, 0, 0, 8, &dict, 2, &s, 3, 0},
    };
    build_file(&f, cols, 3, 3);
    parquet_file *pf;
    pq_error err;
    assert_int_equal(parquet_open(f.p, f.n, "t.parquet", &pf, &err), PQ_OK);
    assert_int_equal(parquet_num_rows(pf), 3);
    assert_int_equal(parquet_num_columns(pf), 3);
    assert_int_equal(parquet_find_column(pf, "s"), 2);
    assert_int_equal(parquet_find_column(pf, "nope"), -1);
    assert_int_equal(parquet_column(pf, 1)->optional, 1);
    parquet_values v;
    assert_int_equal(parquet_read_column(pf, 0, &v, &err), PQ_OK);
    assert_int_equal(v.i64[0], 10);
    assert_int_equal(v.i64[1], -20);
    assert_int_equal(v.i64[2], 30);
    assert_null(v.valid);
    parquet_values_free(&v);
    assert_int_equal(parquet_read_column(pf, 1, &v, &err), PQ_OK);
    assert_int_equal(v.null_count, 1);
    assert_true(v.f64[0] == 1.5 && v.f64[2] == 2.5 && v.f64[1] == 0);
    assert_true(v.valid[0] && !v.valid[1] && v.valid[2]);
    parquet_values_free(&v);
    assert_int_equal(parquet_read_column(pf, 2, &v, &err), PQ_OK);
    assert_int_equal(v.str[0].n, 0);
    assert_int_equal(v.str[1].n, 2);
    assert_memory_equal(v.str[1].p, "ab", 2);
    assert_int_equal(v.str[2].n, 2);
    parquet_values_free(&v);
    parquet_close(pf);
    /* A dictionary index beyond the dictionary: refused, naming the column. */
    s.p[0] = 2;    /* bit width 2 */
    s.p[2] = 0x3f; /* indices 3, 3, 3 */
    build_file(&f, cols, 3, 3);
    assert_int_equal(parquet_open(f.p, f.n, "t.parquet", &pf, &err), PQ_OK);
    assert_int_equal(parquet_read_column(pf, 2, &v, &err), PQ_ERR_INPUT);
    assert_non_null(strstr(err.message, "column 's'"));
    assert_non_null(strstr(err.message, "dictionary"));
    parquet_values_free(&v);
    parquet_close(pf);
    tb_free(&x);
    tb_free(&y);
    tb_free(&dict);
    tb_free(&s);
    tb_free(&f);
}

static void test_corrupt_footer(void **state)
{
    (void)state;
    tbuf x, f;
    tb_init(&f);
    plain_i64(&x);
    colspec cols[] = {{"x", PARQUET_INT64, 0, 0, 0, NULL, 0, &x, 3, 0}};
    build_file(&f, cols, 1, 3);
    parquet_file *pf;
    pq_error err;
    /* The footer length pointing before the file start. */
    tbuf g;
    tb_init(&g);
    put_bytes(&g, f.p, f.n);
    g.p[g.n - 8] = 0xff;
    g.p[g.n - 7] = 0xff;
    assert_int_equal(parquet_open(g.p, g.n, "bad.parquet", &pf, &err), PQ_ERR_INPUT);
    assert_string_equal(err.path, "bad.parquet");
    assert_int_equal(err.offset, (int64_t)g.n - 8);
    assert_non_null(strstr(err.message, "footer length"));
    /* The footer's bytes overwritten with a field of type 13. */
    memcpy(g.p, f.p, f.n);
    uint32_t flen = (uint32_t)g.p[g.n - 8] | (uint32_t)g.p[g.n - 7] << 8;
    size_t fstart = g.n - 8 - flen;
    g.p[fstart] = 0x1d;
    assert_int_equal(parquet_open(g.p, g.n, "bad.parquet", &pf, &err), PQ_ERR_INPUT);
    assert_int_equal(err.offset, (int64_t)fstart + 1);
    assert_non_null(strstr(err.message, "parquet footer: expected"));
    /* Every truncation of the footer is refused (never a crash or a wrong row count). */
    for (size_t cut = 1; cut < flen; cut++) {
        memcpy(g.p, f.p, f.n);
        uint32_t nl = flen - (uint32_t)cut;
        memmove(g.p + fstart + nl, g.p + g.n - 8, 8);
        size_t n = fstart + nl + 8;
        g.p[n - 8] = (uint8_t)nl;
        g.p[n - 7] = (uint8_t)(nl >> 8);
        assert_int_equal(parquet_open(g.p, n, "cut.parquet", &pf, &err), PQ_ERR_INPUT);
    }
    /* No magic. */
    assert_int_equal(parquet_open(f.p, 3, "short.parquet", &pf, &err), PQ_ERR_INPUT);
    assert_non_null(strstr(err.message, "PAR1"));
    tb_free(&g);
    tb_free(&x);
    tb_free(&f);
}

static void test_unknown_codec(void **state)
{
    (void)state;
    tbuf x, f;
    tb_init(&f);
    plain_i64(&x);
    colspec cols[] = {{"x", PARQUET_INT64, 0, 4 /* BROTLI */, 0, NULL, 0, &x, 3, 0}};
    build_file(&f, cols, 1, 3);
    parquet_file *pf;
    pq_error err;
    parquet_values v;
    assert_int_equal(parquet_open(f.p, f.n, "c.parquet", &pf, &err), PQ_OK);
    assert_int_equal(parquet_read_column(pf, 0, &v, &err), PQ_ERR_INPUT);
    assert_string_equal(err.path, "c.parquet");
    assert_true(err.offset > 4 && err.offset < (int64_t)f.n);
    assert_non_null(strstr(err.message, "column 'x'"));
    assert_non_null(strstr(err.message, "codec 4"));
    assert_non_null(strstr(err.message, "expected codec UNCOMPRESSED, SNAPPY or ZSTD"));
    parquet_values_free(&v);
    parquet_close(pf);
    tb_free(&x);
    tb_free(&f);
}

static void test_page_overruns_chunk(void **state)
{
    (void)state;
    tbuf x, f;
    tb_init(&f);
    plain_i64(&x);
    colspec cols[] = {{"x", PARQUET_INT64, 0, 0, 0, NULL, 0, &x, 3, 1000}};
    build_file(&f, cols, 1, 3);
    parquet_file *pf;
    pq_error err;
    parquet_values v;
    assert_int_equal(parquet_open(f.p, f.n, "o.parquet", &pf, &err), PQ_OK);
    assert_int_equal(parquet_read_column(pf, 0, &v, &err), PQ_ERR_INPUT);
    assert_non_null(strstr(err.message, "column 'x'"));
    assert_non_null(strstr(err.message, "ends inside its column chunk"));
    assert_true(err.offset > 4 && err.offset < 40);
    parquet_values_free(&v);
    parquet_close(pf);
    /* A page claiming more values than the row group's rows. */
    colspec more[] = {{"x", PARQUET_INT64, 0, 0, 0, NULL, 0, &x, 5, 0}};
    build_file(&f, more, 1, 3);
    assert_int_equal(parquet_open(f.p, f.n, "o.parquet", &pf, &err), PQ_OK);
    assert_int_equal(parquet_read_column(pf, 0, &v, &err), PQ_ERR_INPUT);
    assert_non_null(strstr(err.message, "no more values"));
    parquet_values_free(&v);
    parquet_close(pf);
    /* PLAIN values shorter than the page's count. */
    x.n = 16;
    colspec shortv[] = {{"x", PARQUET_INT64, 0, 0, 0, NULL, 0, &x, 3, 0}};
    build_file(&f, shortv, 1, 3);
    assert_int_equal(parquet_open(f.p, f.n, "o.parquet", &pf, &err), PQ_OK);
    assert_int_equal(parquet_read_column(pf, 0, &v, &err), PQ_ERR_INPUT);
    assert_non_null(strstr(err.message, "PLAIN values within the page"));
    parquet_values_free(&v);
    parquet_close(pf);
    tb_free(&x);
    tb_free(&f);
}

/* A schema element: name, number of children (-1: a leaf of INT64). */
static void put_schema_elem(tbuf *f, const char *name, int children)
{
    int16_t l = 0;
    if (children < 0)
        tw_i(f, &l, 1, TC_I32, PARQUET_INT64);
    tw_str(f, &l, 4, name);
    if (children >= 0)
        tw_i(f, &l, 5, TC_I32, children);
    put_byte(f, 0);
}

static void test_schema_children_overrun(void **state)
{
    (void)state;
    /* The root claims 2 children, its first child is a group of 1: only 3 elements. */
    tbuf f;
    tb_init(&f);
    put_bytes(&f, "PAR1", 4);
    size_t footer = f.n;
    int16_t last = 0;
    tw_field(&f, &last, TC_LIST, 2);
    tw_list(&f, TC_STRUCT, 3);
    put_schema_elem(&f, "schema", 2);
    put_schema_elem(&f, "g", 1);
    put_schema_elem(&f, "x", -1);
    tw_i(&f, &last, 3, TC_I64, 0);
    put_byte(&f, 0);
    put_fixed32(&f, (uint32_t)(f.n - footer));
    put_bytes(&f, "PAR1", 4);
    parquet_file *pf;
    pq_error err;
    assert_int_equal(parquet_open(f.p, f.n, "s.parquet", &pf, &err), PQ_ERR_INPUT);
    assert_non_null(strstr(err.message, "num_children"));
    tb_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_thrift_fields),       cmocka_unit_test(test_thrift_skip),
        cmocka_unit_test(test_thrift_bad),          cmocka_unit_test(test_rle_runs),
        cmocka_unit_test(test_rle_errors),          cmocka_unit_test(test_file_values),
        cmocka_unit_test(test_corrupt_footer),      cmocka_unit_test(test_unknown_codec),
        cmocka_unit_test(test_page_overruns_chunk), cmocka_unit_test(test_schema_children_overrun),
    };
    return tu_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
