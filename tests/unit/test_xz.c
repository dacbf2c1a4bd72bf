/* test_xz.c - profq's own xz/LZMA2 decoder (io/xzdec.c) against liblzma, on data compressed
 * here by liblzma's encoder: presets 0-9 and extreme, literal/position bits other than the
 * defaults, sizes 0 and 1 up to a few hundred KB of text, random bytes (LZMA2 uncompressed
 * chunks) and zeros, several blocks, flushed chunks, concatenated streams with padding, each
 * check type (SHA-256: liblzma decodes). Corrupt inputs (flipped bits, truncations) are
 * refused by xzdec or decoded to liblzma's bytes, and xz_decompress gives the error of the
 * liblzma path (an oracle here repeats its message rule). The output buffer is exactly as
 * large as the output, so that the sanitizer build sees any write past it; the streaming
 * decoder (xz_stream_*) is checked too. fuzz/fuzz_xz.c does the same on fuzzed inputs. */
#include "testutil.h"

#include "io/xz.h"
#include "io/xzdec.h"

#include <lzma.h>

typedef struct enc {
    uint32_t preset;
    lzma_check check;
    int lc, lp, pb; /* -1: the preset's */
    int parts;      /* the input in this many pieces, ACTION between them */
    lzma_action action;
} enc;

/* DATA[0..SIZE) compressed by liblzma as E says (the dictionary at most 1 MiB, so that
 * presets 7-9 keep the test small); a malloc'd buffer of *N bytes. */
static uint8_t *encode(const uint8_t *data, size_t size, enc e, size_t *n)
{
    lzma_options_lzma opt;
    assert_false(lzma_lzma_preset(&opt, e.preset));
    if (opt.dict_size > (1u << 20))
        opt.dict_size = 1u << 20;
    if (e.lc >= 0) {
        opt.lc = (uint32_t)e.lc;
        opt.lp = (uint32_t)e.lp;
        opt.pb = (uint32_t)e.pb;
    }
    lzma_filter filters[2] = {{LZMA_FILTER_LZMA2, &opt}, {LZMA_VLI_UNKNOWN, NULL}};
    lzma_stream s = LZMA_STREAM_INIT;
    assert_int_equal(lzma_stream_encoder(&s, filters, e.check), LZMA_OK);
    size_t cap = size + size / 2 + 4096, parts = e.parts > 0 ? (size_t)e.parts : 1;
    uint8_t *out = malloc(cap);
    s.next_out = out;
    s.avail_out = cap;
    for (size_t k = 0; k < parts; k++) {
        size_t from = size * k / parts, to = size * (k + 1) / parts;
        s.next_in = data + from;
        s.avail_in = to - from;
        lzma_action a = k + 1 == parts ? LZMA_FINISH : e.action;
        lzma_ret r;
        do
            r = lzma_code(&s, a);
        while (r == LZMA_OK && (s.avail_in || a != LZMA_RUN));
        assert_int_equal(r, a == LZMA_RUN ? LZMA_OK : LZMA_STREAM_END);
    }
    *n = cap - s.avail_out;
    lzma_end(&s);
    return out;
}

static uint32_t rnd(uint64_t *st)
{
    *st = *st * 6364136223846793005u + 1442695040888963407u;
    return (uint32_t)(*st >> 33);
}

enum { TEXT, RANDOM, ZEROS, MIXED };

/* SIZE bytes of csv-like text, random bytes, zeros, or text with random runs. */
static uint8_t *make(int kind, size_t size)
{
    uint8_t *d = malloc(size + 1);
    uint64_t st = 12345 + size;
    size_t i = 0;
    while (i < size) {
        if (kind == RANDOM || (kind == MIXED && rnd(&st) % 8 == 0)) {
            for (size_t k = 0, m = kind == RANDOM ? size : 300; k < m && i < size; k++)
                d[i++] = (uint8_t)rnd(&st);
        } else if (kind == ZEROS) {
            d[i++] = 0;
        } else {
            char line[160];
            int l = snprintf(line, sizeof line, "%u,%u,TSL:XlaModule:#hlo_module=jit_%u#,%u,%u\n",
                             rnd(&st) % 100000000, rnd(&st) % 1000, rnd(&st) % 40, rnd(&st) % 7883,
                             rnd(&st) % 3);
            for (int k = 0; k < l && i < size; k++)
                d[i++] = (uint8_t)line[k];
        }
    }
    return d;
}

/* liblzma's whole-buffer decode: 1 and the bytes when it succeeds. */
static int lzma_decode_all(const uint8_t *in, size_t n, uint8_t **out, size_t *len)
{
    size_t cap = 16u << 20, ip = 0, op = 0;
    uint64_t mem = UINT64_MAX;
    *out = malloc(cap);
    lzma_ret r =
        lzma_stream_buffer_decode(&mem, LZMA_CONCATENATED, NULL, in, &ip, n, *out, &op, cap);
    *len = op;
    return r == LZMA_OK;
}

/* xzdec on IN, into a buffer of exactly the index's size: 1 and the bytes in *OUT. */
static int xzdec_all(const uint8_t *in, size_t n, uint8_t **out, size_t *len)
{
    uint64_t size = 0;
    *out = NULL;
    if (!xzdec_size(in, n, &size) || size > (64u << 20))
        return 0;
    *out = malloc(size ? size : 1);
    int ok = xzdec_decode(in, n, *out, (size_t)size, len, NULL, NULL);
    if (ok)
        assert_int_equal(*len, size);
    return ok;
}

/* The round trip of DATA through E: xzdec (WANT_FAST: it must decode it) and xz_decompress
 * give the bytes back. */
static void round_trip(const uint8_t *data, size_t size, enc e, int want_fast)
{
    size_t n, len;
    uint8_t *xz = encode(data, size, e, &n), *out;
    int ok = xzdec_all(xz, n, &out, &len);
    assert_int_equal(ok, want_fast);
    if (ok && size)
        assert_memory_equal(out, data, size);
    free(out);
    mapped_file mf;
    pq_error err;
    assert_int_equal(xz_decompress(xz, n, "t.xz", &mf, &err), PQ_OK);
    assert_int_equal(mf.size, size);
    if (size)
        assert_memory_equal(mf.data, data, size);
    mapfile_close(&mf);
    free(xz);
}

static const enc PLAIN = {6, LZMA_CHECK_CRC64, -1, -1, -1, 1, LZMA_RUN};

static void test_presets(void **state)
{
    (void)state;
    uint8_t *d = make(MIXED, 150000);
    for (uint32_t p = 0; p <= 9; p++)
        for (int x = 0; x < 2; x++) {
            enc e = PLAIN;
            e.preset = p | (x ? LZMA_PRESET_EXTREME : 0);
            round_trip(d, 150000, e, 1);
        }
    free(d);
}

static void test_sizes_and_kinds(void **state)
{
    (void)state;
    static const size_t sizes[] = {0, 1, 2, 5, 100, 4096, 70000, 300000};
    for (int kind = TEXT; kind <= MIXED; kind++)
        for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
            uint8_t *d = make(kind, sizes[k]);
            round_trip(d, sizes[k], PLAIN, 1);
            enc fast = PLAIN;
            fast.preset = 0;
            round_trip(d, sizes[k], fast, 1);
            free(d);
        }
}

/* Literal context/position bits and position bits other than 3/0/2. */
static void test_lclppb(void **state)
{
    (void)state;
    static const int v[][3] = {{0, 0, 0}, {4, 0, 4}, {0, 4, 0}, {1, 3, 1}, {3, 1, 2}, {2, 2, 3}};
    uint8_t *d = make(MIXED, 120000);
    for (size_t k = 0; k < sizeof v / sizeof *v; k++) {
        enc e = PLAIN;
        e.lc = v[k][0];
        e.lp = v[k][1];
        e.pb = v[k][2];
        round_trip(d, 120000, e, 1);
    }
    free(d);
}

static void test_checks(void **state)
{
    (void)state;
    uint8_t *d = make(TEXT, 50000);
    static const lzma_check checks[] = {LZMA_CHECK_NONE, LZMA_CHECK_CRC32, LZMA_CHECK_CRC64,
                                        LZMA_CHECK_SHA256};
    for (size_t k = 0; k < 4; k++) {
        enc e = PLAIN;
        e.check = checks[k];
        round_trip(d, 50000, e, checks[k] != LZMA_CHECK_SHA256); /* SHA-256: liblzma */
    }
    free(d);
}

/* Several blocks (full flushes: each a dictionary reset), flushed chunks (sync flushes),
 * and concatenated streams with stream padding. */
static void test_blocks_and_streams(void **state)
{
    (void)state;
    size_t size = 200000, n1, n2, len;
    uint8_t *d = make(MIXED, size);
    enc e = PLAIN;
    e.parts = 7;
    e.action = LZMA_FULL_FLUSH;
    round_trip(d, size, e, 1);
    e.action = LZMA_SYNC_FLUSH;
    round_trip(d, size, e, 1);
    e.parts = 1;
    uint8_t *a = encode(d, 120000, PLAIN, &n1), *b = encode(d + 120000, size - 120000, e, &n2);
    static const size_t pads[][2] = {{0, 0}, {4, 0}, {8, 4}, {0, 12}, {3, 0}, {0, 2}};
    for (size_t k = 0; k < sizeof pads / sizeof *pads; k++) {
        size_t n = n1 + pads[k][0] + n2 + pads[k][1];
        uint8_t *cat = calloc(1, n), *out, *ref;
        memcpy(cat, a, n1);
        memcpy(cat + n1 + pads[k][0], b, n2);
        int good = pads[k][0] % 4 == 0 && pads[k][1] % 4 == 0, ok = xzdec_all(cat, n, &out, &len);
        assert_int_equal(ok, good);
        assert_int_equal(lzma_decode_all(cat, n, &ref, &len), good);
        if (ok)
            assert_memory_equal(out, d, size);
        free(out);
        free(ref);
        free(cat);
    }
    free(a);
    free(b);
    free(d);
}

/* What the liblzma path of xz_decompress says of IN (its message rule, repeated). */
static void oracle(const uint8_t *in, size_t n, pq_status *st, int64_t *offset, char *msg, size_t m)
{
    lzma_stream s = LZMA_STREAM_INIT;
    assert_int_equal(lzma_stream_decoder(&s, UINT64_MAX, LZMA_CONCATENATED), LZMA_OK);
    size_t cap = 64u << 20;
    uint8_t *out = malloc(cap);
    s.next_in = in;
    s.avail_in = n;
    s.next_out = out;
    s.avail_out = cap;
    lzma_ret r = lzma_code(&s, LZMA_FINISH);
    *st = r == LZMA_STREAM_END ? PQ_OK : PQ_ERR_INPUT;
    *offset = s.avail_in == 0 ? (int64_t)n : (int64_t)(n - s.avail_in);
    if (r == LZMA_STREAM_END)
        msg[0] = 0;
    else if (s.avail_in == 0)
        snprintf(msg, m, "expected the rest of the xz stream, found the end of the file");
    else
        snprintf(msg, m, "expected a valid xz stream (liblzma error %d)", (int)r);
    lzma_end(&s);
    free(out);
}

/* A damaged IN: xzdec refuses it or gives liblzma's bytes; xz_decompress says what the
 * liblzma path says. */
static void check_damaged(const uint8_t *in, size_t n)
{
    uint8_t *copy = malloc(n ? n : 1), *out, *ref;
    memcpy(copy, in, n); /* exactly N bytes: the sanitizer sees a read past them */
    size_t len, rlen;
    int ok = xzdec_all(copy, n, &out, &len), rok = lzma_decode_all(copy, n, &ref, &rlen);
    if (ok) {
        assert_true(rok);
        assert_int_equal(len, rlen);
        assert_memory_equal(out, ref, len);
    }
    pq_status want;
    int64_t off;
    char msg[256];
    oracle(copy, n, &want, &off, msg, sizeof msg);
    mapped_file mf;
    pq_error err;
    pq_status st = xz_decompress(copy, n, "t.xz", &mf, &err);
    assert_int_equal(st, want);
    if (st == PQ_OK) {
        mapfile_close(&mf);
    } else {
        assert_string_equal(err.message, msg);
        assert_int_equal(err.offset, off);
    }
    free(out);
    free(ref);
    free(copy);
}

static void test_corrupt(void **state)
{
    (void)state;
    uint8_t *d = make(MIXED, 40000);
    for (int c = 0; c < 3; c++) {
        enc e = PLAIN;
        e.check = c == 0 ? LZMA_CHECK_CRC64 : c == 1 ? LZMA_CHECK_CRC32 : LZMA_CHECK_NONE;
        e.parts = 2;
        e.action = LZMA_FULL_FLUSH;
        size_t n;
        uint8_t *xz = encode(d, 40000, e, &n), *orig = malloc(n);
        memcpy(orig, xz, n);
        uint64_t st = 99;
        for (size_t k = 0; k < 300; k++) { /* every header/index byte, then random ones */
            size_t at = k < 40 ? k : k < 80 ? n - (k - 39) : rnd(&st) % n;
            xz[at] ^= (uint8_t)(1u << (rnd(&st) % 8));
            check_damaged(xz, n);
            xz[at] ^= (uint8_t)(1u << (rnd(&st) % 8)); /* a second bit, or the first undone */
            check_damaged(xz, n);
            memcpy(xz, orig, n);
        }
        free(orig);
        for (size_t cut = 0; cut < n; cut += cut < 64 ? 1 : cut < n - 64 ? 997 : 1)
            check_damaged(xz, cut);
        free(xz);
    }
    free(d);
}

/* The threaded decoder: the bytes as they come, then the whole; a damaged stream gives the
 * error of xz_decompress. */
static void test_stream(void **state)
{
    (void)state;
    size_t size = 3u << 20, n;
    uint8_t *d = make(TEXT, size), *xz = encode(d, size, PLAIN, &n);
    for (int damaged = 0; damaged < 2; damaged++) {
        if (damaged)
            xz[n / 2] ^= 0x10;
        xz_stream x;
        assert_true(xz_stream_start(&x, xz, n, "t.xz", 1u << 20));
        size_t seen = 0;
        int state_ = XZS_RUNNING;
        while (state_ == XZS_RUNNING) {
            size_t done = xz_stream_wait(&x, seen, &state_);
            assert_true(done >= seen);
            if (!damaged)
                assert_memory_equal(x.buf + seen, d + seen, done - seen);
            seen = done;
        }
        mapped_file mf, want;
        pq_error err, werr;
        int over;
        pq_status st = xz_stream_finish(&x, &mf, &over, &err);
        if (!damaged) {
            assert_int_equal(st, PQ_OK);
            assert_false(over);
            assert_int_equal(mf.size, size);
            assert_memory_equal(mf.data, d, size);
            mapfile_close(&mf);
        } else {
            assert_int_equal(st, xz_decompress(xz, n, "t.xz", &want, &werr));
            assert_int_not_equal(st, PQ_OK);
            assert_string_equal(err.message, werr.message);
            assert_int_equal(err.offset, werr.offset);
        }
    }
    free(xz);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_presets),
        cmocka_unit_test(test_sizes_and_kinds),
        cmocka_unit_test(test_lclppb),
        cmocka_unit_test(test_checks),
        cmocka_unit_test(test_blocks_and_streams),
        cmocka_unit_test(test_corrupt),
        cmocka_unit_test(test_stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
