/* test_pbwire.c - the zero-copy protobuf cursor (src/formats/pbwire.h) on hand-assembled
 * byte vectors: varints of every length and every way a varint can be malformed, zigzag,
 * fixed32/64, doubles, length-delimited spans at and past the edge of the data, packed
 * and unpacked repeated fields, unknown fields, invalid wire types and tags. For every
 * error it checks the exact byte offset pb_error_offset() reports.
 *
 * Offsets: pbwire reports a malformed varint at the START of the varint (not at the byte
 * where it went wrong), a bad tag or wire type at the start of the tag, a length that
 * does not fit at the start of the length varint, and a truncated fixed32/64 at the first
 * byte of its missing payload. The expectations below follow that rule.
 */
#include "testutil.h"

#include "formats/pbwire.h"

#include <math.h>

/* Reads one varint from BYTES (N) with the cursor starting at START; base = BYTES. */
static int read_varint_at(const uint8_t *bytes, size_t n, size_t start, uint64_t *v, pb_cursor *c)
{
    pb_init(c, bytes + start, n - start, bytes);
    return pb_read_varint(c, v);
}

/*
 * The fast decoders (pb_fast_*) must accept exactly what the cursor accepts. They may
 * read up to PB_PADDING bytes past the end, so each vector is copied into a buffer with
 * padding; the padding is filled with 0x80/0xff/0x00 so that a decoder that trusted
 * bytes past END would decode something different (continuations, or a terminator).
 */
static const uint8_t PAD_FILL[] = {0x80, 0xff, 0x00};

static uint8_t *padded_copy(const uint8_t *bytes, size_t n, uint8_t fill)
{
    uint8_t *p = malloc(n + PB_PADDING);
    assert_non_null(p);
    if (n)
        memcpy(p, bytes, n);
    memset(p + n, fill, PB_PADDING);
    return p;
}

/* pb_fast_varint agrees with pb_read_varint on BYTES[START..N). */
static void check_fast_varint(const uint8_t *bytes, size_t n, size_t start)
{
    for (size_t k = 0; k < sizeof PAD_FILL; k++) {
        uint8_t *p = padded_copy(bytes, n, PAD_FILL[k]);
        pb_cursor c;
        uint64_t slow = 0, fast = 0;
        int ok = read_varint_at(p, n, start, &slow, &c);
        const uint8_t *q = pb_fast_varint(p + start, p + n, &fast);
        assert_int_equal(q != NULL, ok);
        if (ok) {
            assert_true(fast == slow);
            assert_ptr_equal(q, c.p);
        }
        free(p);
    }
}

/* Walking BYTES with pb_fast_tag + pb_fast_skip ends where pb_next ends, or fails where
 * pb_next fails (the fast path has no error details: it only has to fail). */
static void check_fast_walk(const uint8_t *bytes, size_t n)
{
    for (size_t k = 0; k < sizeof PAD_FILL; k++) {
        uint8_t *p = padded_copy(bytes, n, PAD_FILL[k]);
        pb_cursor c;
        pb_field f = {0};
        int r;
        pb_init(&c, p, n, NULL);
        const uint8_t *q = p, *end = p + n;
        while ((r = pb_next(&c, &f)) == PB_FIELD) {
            uint32_t tag = 0;
            q = pb_fast_tag(q, end, &tag);
            assert_non_null(q);
            assert_int_equal(tag >> 3, f.num);
            assert_int_equal(tag & 7, f.wire);
            q = pb_fast_skip(q, end, tag & 7);
            assert_non_null(q);
            assert_ptr_equal(q, c.p);
        }
        if (r == PB_END) {
            assert_ptr_equal(q, end);
            assert_int_equal(pb_fast_validate_flat(p, end), 1);
        } else {
            uint32_t tag = 0;
            q = pb_fast_tag(q, end, &tag);
            if (q)
                q = pb_fast_skip(q, end, tag & 7);
            assert_null(q);
            assert_int_equal(pb_fast_validate_flat(p, end), 0);
        }
        free(p);
    }
}

#define ASSERT_VARINT(expected_value, expected_len, ...)                                           \
    do {                                                                                           \
        const uint8_t bytes_[] = {__VA_ARGS__};                                                    \
        pb_cursor c_;                                                                              \
        uint64_t v_ = 12345;                                                                       \
        assert_int_equal(read_varint_at(bytes_, sizeof bytes_, 0, &v_, &c_), 1);                   \
        assert_true(v_ == (uint64_t)(expected_value));                                             \
        assert_int_equal(c_.p - bytes_, (expected_len));                                           \
        assert_null(c_.err);                                                                       \
        check_fast_varint(bytes_, sizeof bytes_, 0);                                               \
    } while (0)

static void test_varint_lengths(void **state)
{
    (void)state;
    /* Smallest and largest value of every length 1..10, written out by hand. */
    ASSERT_VARINT(0, 1, 0x00);
    ASSERT_VARINT(1, 1, 0x01);
    ASSERT_VARINT(127, 1, 0x7f);
    ASSERT_VARINT(128, 2, 0x80, 0x01);
    ASSERT_VARINT(300, 2, 0xac, 0x02);
    ASSERT_VARINT(16383, 2, 0xff, 0x7f);
    ASSERT_VARINT(16384, 3, 0x80, 0x80, 0x01);
    ASSERT_VARINT((1u << 21) - 1, 3, 0xff, 0xff, 0x7f);
    ASSERT_VARINT(1u << 21, 4, 0x80, 0x80, 0x80, 0x01);
    ASSERT_VARINT((1u << 28) - 1, 4, 0xff, 0xff, 0xff, 0x7f);
    ASSERT_VARINT(1u << 28, 5, 0x80, 0x80, 0x80, 0x80, 0x01);
    ASSERT_VARINT(UINT32_MAX, 5, 0xff, 0xff, 0xff, 0xff, 0x0f);
    ASSERT_VARINT((1ull << 35) - 1, 5, 0xff, 0xff, 0xff, 0xff, 0x7f);
    ASSERT_VARINT(1ull << 35, 6, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01);
    ASSERT_VARINT(1ull << 42, 7, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01);
    ASSERT_VARINT(1ull << 49, 8, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01);
    ASSERT_VARINT(1ull << 56, 9, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01);
    ASSERT_VARINT((1ull << 63) - 1, 9, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f);
    ASSERT_VARINT(1ull << 63, 10, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01);
    ASSERT_VARINT(UINT64_MAX, 10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
    /* -1 as int64 is written as UINT64_MAX (10 bytes). */
    ASSERT_VARINT((uint64_t)(int64_t)-1, 10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                  0x01);
    /* Non-canonical (padded) encodings are accepted, up to 10 bytes. */
    ASSERT_VARINT(0, 2, 0x80, 0x00);
    ASSERT_VARINT(1, 10, 0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00);
    /* Trailing bytes are left for the next read. */
    ASSERT_VARINT(5, 1, 0x05, 0xff, 0xff);
}

/* The writer in testutil.h must produce exactly these encodings too (other tests rely on
 * it), and every value it writes must read back with the length it wrote. */
static void test_varint_writer_roundtrip(void **state)
{
    (void)state;
    static const uint8_t v300[] = {0xac, 0x02};
    static const uint8_t vmax[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    tbuf b;
    tb_init(&b);
    put_varint(&b, 300);
    assert_int_equal(b.n, 2);
    assert_memory_equal(b.p, v300, 2);
    b.n = 0;
    put_varint(&b, UINT64_MAX);
    assert_int_equal(b.n, 10);
    assert_memory_equal(b.p, vmax, 10);
    for (unsigned bits = 0; bits <= 64; bits++) {
        uint64_t vals[3];
        vals[0] = bits == 64 ? UINT64_MAX : (bits ? (1ull << bits) - 1 : 0);
        vals[1] = bits < 64 ? 1ull << bits : UINT64_MAX - 1;
        vals[2] = vals[0] ^ 0x5555555555555555ull;
        for (int k = 0; k < 3; k++) {
            b.n = 0;
            put_varint(&b, vals[k]);
            /* Canonical length: ceil(significant bits / 7), at least 1. */
            unsigned sig = 0;
            for (uint64_t x = vals[k]; x; x >>= 1)
                sig++;
            size_t want = sig ? (sig + 6) / 7 : 1;
            assert_int_equal(b.n, want);
            pb_cursor c;
            uint64_t v;
            assert_int_equal(read_varint_at(b.p, b.n, 0, &v, &c), 1);
            assert_true(v == vals[k]);
            assert_int_equal(c.p - b.p, want);
            check_fast_varint(b.p, b.n, 0);
        }
    }
    tb_free(&b);
}

#define ASSERT_VARINT_ERROR(start, err_offset, msg, ...)                                           \
    do {                                                                                           \
        const uint8_t bytes_[] = {__VA_ARGS__};                                                    \
        pb_cursor c_;                                                                              \
        uint64_t v_ = 777;                                                                         \
        assert_int_equal(read_varint_at(bytes_, sizeof bytes_, (start), &v_, &c_), 0);             \
        assert_non_null(c_.err);                                                                   \
        assert_string_equal(c_.err, (msg));                                                        \
        assert_int_equal(pb_error_offset(&c_), (err_offset));                                      \
        assert_true(v_ == 777);                   /* output untouched on error */                  \
        assert_int_equal(c_.p - bytes_, (start)); /* cursor not advanced */                        \
        check_fast_varint(bytes_, sizeof bytes_, (start));                                         \
    } while (0)

static void test_varint_errors(void **state)
{
    (void)state;
    const char *trunc = "a varint, found the end of the data";
    const char *big = "a varint of at most 64 bits";
    /* The 10th byte may only be 0 or 1 (bit 63); 2 overflows 64 bits. */
    ASSERT_VARINT_ERROR(0, 0, big, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02);
    ASSERT_VARINT_ERROR(0, 0, big, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f);
    /* The same two after three bytes of padding: the offset is where the varint starts. */
    ASSERT_VARINT_ERROR(3, 3, big, 0x01, 0x02, 0x03, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                        0xff, 0x02);
    /* 11 bytes: the 10th byte still has its continuation bit. Rejected at the 10th byte
     * (0x80 > 1), so the "at most 10 bytes" case never needs an 11th byte. */
    ASSERT_VARINT_ERROR(0, 0, big, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                        0x00);
    ASSERT_VARINT_ERROR(2, 2, big, 0x00, 0x00, 0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                        0x81, 0x01);
    /* Truncated: continuation bit set on the last byte of the data. */
    ASSERT_VARINT_ERROR(0, 0, trunc, 0x80);
    ASSERT_VARINT_ERROR(0, 0, trunc, 0xff, 0xff, 0xff);
    ASSERT_VARINT_ERROR(0, 0, trunc, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff);
    ASSERT_VARINT_ERROR(4, 4, trunc, 0x08, 0x01, 0x08, 0x02, 0x96);
    /* No bytes at all. */
    {
        const uint8_t one[] = {0x01};
        pb_cursor c;
        uint64_t v;
        pb_init(&c, one + 1, 0, one);
        assert_int_equal(pb_read_varint(&c, &v), 0);
        assert_string_equal(c.err, trunc);
        assert_int_equal(pb_error_offset(&c), 1);
    }
}

static void test_zigzag(void **state)
{
    (void)state;
    assert_int_equal(pb_zigzag32(0), 0);
    assert_int_equal(pb_zigzag32(1), -1);
    assert_int_equal(pb_zigzag32(2), 1);
    assert_int_equal(pb_zigzag32(3), -2);
    assert_int_equal(pb_zigzag32(4294967294u), INT32_MAX);
    assert_int_equal(pb_zigzag32(4294967295u), INT32_MIN);
    assert_true(pb_zigzag64(0) == 0);
    assert_true(pb_zigzag64(1) == -1);
    assert_true(pb_zigzag64(2) == 1);
    assert_true(pb_zigzag64(3) == -2);
    assert_true(pb_zigzag64(UINT64_MAX - 1) == INT64_MAX);
    assert_true(pb_zigzag64(UINT64_MAX) == INT64_MIN);
    assert_true(pb_zigzag64(0xFFFFFFFEull) == INT32_MAX); /* sint32 range via 64 bits */
    /* A sint64 field on the wire: field 1, value -64 -> zigzag 127 (one byte). */
    const uint8_t msg[] = {0x08, 0x7f};
    pb_cursor c;
    pb_field f = {0};
    pb_init(&c, msg, sizeof msg, NULL);
    assert_int_equal(pb_next(&c, &f), PB_FIELD);
    assert_true(pb_zigzag64(f.u) == -64);
}

static void test_fixed_and_double(void **state)
{
    (void)state;
    /* field 1 fixed32 0x12345678, field 2 fixed64 0x0102030405060708, field 3 double 1.5,
     * field 4 float 1.5f (fixed32), field 5 double -0.0 */
    const uint8_t msg[] = {0x0d, 0x78, 0x56, 0x34, 0x12,                         /* 0 */
                           0x11, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, /* 5 */
                           0x19, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf8, 0x3f, /* 14 */
                           0x25, 0x00, 0x00, 0xc0, 0x3f,                         /* 23 */
                           0x29, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80};
    pb_cursor c;
    pb_field f = {0};
    pb_init(&c, msg, sizeof msg, NULL);
    assert_int_equal(pb_next(&c, &f), PB_FIELD);
    assert_int_equal(f.num, 1);
    assert_int_equal(f.wire, PB_FIXED32);
    assert_true(f.u == 0x12345678u);
    assert_int_equal(c.p - msg, 5);
    assert_int_equal(pb_next(&c, &f), PB_FIELD);
    assert_int_equal(f.num, 2);
    assert_int_equal(f.wire, PB_FIXED64);
    assert_true(f.u == 0x0102030405060708ull);
    assert_int_equal(c.p - msg, 14);
    assert_int_equal(pb_next(&c, &f), PB_FIELD);
    assert_int_equal(f.num, 3);
    assert_true(pb_double(f.u) == 1.5);
    assert_int_equal(pb_next(&c, &f), PB_FIELD);
    assert_int_equal(f.num, 4);
    assert_true(pb_float((uint32_t)f.u) == 1.5f);
    assert_int_equal(pb_next(&c, &f), PB_FIELD);
    assert_int_equal(f.num, 5);
    assert_true(pb_double(f.u) == 0.0 && signbit(pb_double(f.u)));
    assert_int_equal(pb_next(&c, &f), PB_END);
    assert_int_equal(pb_next(&c, &f), PB_END); /* stays at the end */
    check_fast_walk(msg, sizeof msg);

    /* The writer's put_double matches the hand-assembled bytes of field 3. */
    tbuf b;
    tb_init(&b);
    put_double_field(&b, 3, 1.5);
    assert_int_equal(b.n, 9);
    assert_memory_equal(b.p, msg + 14, 9);
    tb_free(&b);

    /* Doubles that must survive bit for bit: NaN payloads, infinities, denormals. */
    const double specials[] = {INFINITY, -INFINITY, 5e-324, 1.7976931348623157e308, 0.1};
    for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++) {
        tb_init(&b);
        put_double_field(&b, 1, specials[i]);
        pb_init(&c, b.p, b.n, NULL);
        assert_int_equal(pb_next(&c, &f), PB_FIELD);
        assert_true(pb_double(f.u) == specials[i]);
        tb_free(&b);
    }
    const uint8_t nan_msg[] = {0x09, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf8, 0x7f};
    pb_init(&c, nan_msg, sizeof nan_msg, NULL);
    assert_int_equal(pb_next(&c, &f), PB_FIELD);
    assert_true(isnan(pb_double(f.u)));
    assert_true(f.u == 0x7ff8000000000001ull);
}

#define ASSERT_NEXT_ERROR(err_offset, msg, ...)                                                    \
    do {                                                                                           \
        const uint8_t bytes_[] = {__VA_ARGS__};                                                    \
        pb_cursor c_;                                                                              \
        pb_field f_ = {0};                                                                         \
        int k_;                                                                                    \
        pb_init(&c_, bytes_, sizeof bytes_, NULL);                                                 \
        while ((k_ = pb_next(&c_, &f_)) == PB_FIELD) {                                             \
        }                                                                                          \
        assert_int_equal(k_, PB_ERROR);                                                            \
        assert_non_null(c_.err);                                                                   \
        if (msg)                                                                                   \
            assert_string_equal(c_.err, (const char *)(msg));                                      \
        assert_int_equal(pb_error_offset(&c_), (err_offset));                                      \
        assert_int_equal(pb_next(&c_, &f_), PB_ERROR); /* sticky */                                \
        assert_int_equal(pb_error_offset(&c_), (err_offset));                                      \
        pb_init(&c_, bytes_, sizeof bytes_, NULL);                                                 \
        assert_int_equal(pb_validate_flat(&c_), 0);                                                \
        assert_int_equal(pb_error_offset(&c_), (err_offset));                                      \
        check_fast_walk(bytes_, sizeof bytes_);                                                    \
    } while (0)

static const char *const FIT = "a length-delimited field that fits in the bytes left";
static const char *const TRUNC = "a varint, found the end of the data";
static const char *const BIG = "a varint of at most 64 bits";

static void test_fixed_truncated(void **state)
{
    (void)state;
    /* fixed32 with 3 of 4 bytes, after a 2-byte field: missing payload starts at 3. */
    ASSERT_NEXT_ERROR(3, "4 bytes of a fixed32 field, found the end of the data", 0x08, 0x01, 0x0d,
                      0x01, 0x02, 0x03);
    /* fixed32 with nothing after the tag. */
    ASSERT_NEXT_ERROR(1, "4 bytes of a fixed32 field, found the end of the data", 0x0d);
    /* fixed64 with 7 of 8 bytes. */
    ASSERT_NEXT_ERROR(1, "8 bytes of a fixed64 field, found the end of the data", 0x09, 0x01, 0x02,
                      0x03, 0x04, 0x05, 0x06, 0x07);
    /* A double field whose tag is the last byte. */
    ASSERT_NEXT_ERROR(6, "8 bytes of a fixed64 field, found the end of the data", 0x08, 0x96, 0x01,
                      0x10, 0x00, 0x11);
}

static void test_len_spans(void **state)
{
    (void)state;
    pb_cursor c;
    pb_field f = {0};
    /* Zero length, then a 3-byte span that ends exactly at the end of the data. */
    const uint8_t ok[] = {0x0a, 0x00, 0x12, 0x03, 'a', 'b', 'c'};
    pb_init(&c, ok, sizeof ok, NULL);
    assert_int_equal(pb_next(&c, &f), PB_FIELD);
    assert_int_equal(f.num, 1);
    assert_int_equal(f.wire, PB_LEN);
    assert_int_equal(f.len, 0);
    assert_ptr_equal(f.data, ok + 2);
    assert_int_equal(pb_next(&c, &f), PB_FIELD);
    assert_int_equal(f.num, 2);
    assert_int_equal(f.len, 3);
    assert_ptr_equal(f.data, ok + 4);
    assert_memory_equal(f.data, "abc", 3);
    assert_int_equal(pb_next(&c, &f), PB_END);
    pb_init(&c, ok, sizeof ok, NULL);
    assert_int_equal(pb_validate_flat(&c), 1);
    check_fast_walk(ok, sizeof ok);

    /* One byte more than what is left: the error points at the length varint. */
    ASSERT_NEXT_ERROR(1, FIT, 0x0a, 0x04, 'a', 'b', 'c');
    ASSERT_NEXT_ERROR(3, FIT, 0x08, 0x01, 0x0a, 0x02, 'x');
    /* A zero-length span with nothing after it is fine, a 1-byte one is not. */
    ASSERT_NEXT_ERROR(1, FIT, 0x0a, 0x01);
    /* Lengths 2^63 and 2^64-1: the check is len > end - p, so no pointer overflow. */
    ASSERT_NEXT_ERROR(1, FIT, 0x0a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01,
                      'a');
    ASSERT_NEXT_ERROR(1, FIT, 0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
                      'a');
    /* 2^32 + 3 must not wrap to 3 either (a 32-bit length would). */
    ASSERT_NEXT_ERROR(1, FIT, 0x0a, 0x83, 0x80, 0x80, 0x80, 0x10, 'a', 'b', 'c');
    /* A length that is itself malformed or truncated. */
    ASSERT_NEXT_ERROR(1, TRUNC, 0x0a);
    ASSERT_NEXT_ERROR(1, TRUNC, 0x0a, 0x80);
    ASSERT_NEXT_ERROR(1, BIG, 0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x03);
    /* Truncated varint value and truncated tag. */
    ASSERT_NEXT_ERROR(1, TRUNC, 0x08, 0xff);
    ASSERT_NEXT_ERROR(2, TRUNC, 0x08, 0x00, 0x80);
}

static void test_repeated_varint(void **state)
{
    (void)state;
    pb_cursor c;
    pb_field f = {0};
    pb_repeated r;
    uint64_t v;
    /* Packed field 4: [1, 150, 300, UINT64_MAX] = 1 + 2 + 2 + 10 bytes. */
    const uint8_t packed[] = {0x22, 0x0f, 0x01, 0x96, 0x01, 0xac, 0x02, 0xff, 0xff,
                              0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    pb_init(&c, packed, sizeof packed, NULL);
    assert_int_equal(pb_next(&c, &f), PB_FIELD);
    assert_int_equal(pb_repeated_count(&f, PB_VARINT, packed), 4);
    assert_int_equal(pb_repeated_init(&r, &c, &f, PB_VARINT), 1);
    const uint64_t want[] = {1, 150, 300, UINT64_MAX};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(pb_repeated_next(&r, &v), PB_FIELD);
        assert_true(v == want[i]);
    }
    assert_int_equal(pb_repeated_next(&r, &v), PB_END);
    assert_int_equal(pb_repeated_next(&r, &v), PB_END);
    assert_int_equal(pb_next(&c, &f), PB_END);

    /* The same values unpacked: one field per element, each an iterator of one. */
    const uint8_t unpacked[] = {0x20, 0x01, 0x20, 0x96, 0x01, 0x20, 0xac, 0x02, 0x20, 0xff,
                                0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    pb_init(&c, unpacked, sizeof unpacked, NULL);
    int i = 0;
    while (pb_next(&c, &f) == PB_FIELD) {
        assert_int_equal(f.num, 4);
        assert_int_equal(pb_repeated_count(&f, PB_VARINT, unpacked), 1);
        assert_int_equal(pb_repeated_init(&r, &c, &f, PB_VARINT), 1);
        assert_int_equal(pb_repeated_next(&r, &v), PB_FIELD);
        assert_true(v == want[i]);
        assert_int_equal(pb_repeated_next(&r, &v), PB_END);
        i++;
    }
    assert_int_equal(i, 4);
    assert_null(c.err);

    /* Empty packed payload: zero elements. */
    const uint8_t empty[] = {0x22, 0x00};
    pb_init(&c, empty, sizeof empty, NULL);
    assert_int_equal(pb_next(&c, &f), PB_FIELD);
    assert_int_equal(pb_repeated_count(&f, PB_VARINT, empty), 0);
    assert_int_equal(pb_repeated_init(&r, &c, &f, PB_VARINT), 1);
    assert_int_equal(pb_repeated_next(&r, &v), PB_END);

    /* A packed varint list whose last element is truncated: error at that element (3). */
    const uint8_t bad[] = {0x22, 0x02, 0x01, 0x80};
    pb_init(&c, bad, sizeof bad, NULL);
    assert_int_equal(pb_next(&c, &f), PB_FIELD);
    assert_int_equal(pb_repeated_count(&f, PB_VARINT, bad), -1);
    assert_int_equal(pb_repeated_init(&r, &c, &f, PB_VARINT), 1);
    assert_int_equal(pb_repeated_next(&r, &v), PB_FIELD);
    assert_true(v == 1);
    assert_int_equal(pb_repeated_next(&r, &v), PB_ERROR);
    assert_string_equal(r.c.err, TRUNC);
    assert_int_equal(pb_error_offset(&r.c), 3);
    assert_int_equal(pb_repeated_next(&r, &v), PB_ERROR); /* sticky */

    /* An element of more than 64 bits inside a packed list. */
    const uint8_t bad2[] = {0x22, 0x0b, 0xff, 0xff, 0xff, 0xff, 0xff,
                            0xff, 0xff, 0xff, 0xff, 0x02, 0x01};
    pb_init(&c, bad2, sizeof bad2, NULL);
    assert_int_equal(pb_next(&c, &f), PB_FIELD);
    assert_int_equal(pb_repeated_count(&f, PB_VARINT, bad2), -1);
    assert_int_equal(pb_repeated_init(&r, &c, &f, PB_VARINT), 1);
    assert_int_equal(pb_repeated_next(&r, &v), PB_ERROR);
    assert_string_equal(r.c.err, BIG);
    assert_int_equal(pb_error_offset(&r.c), 2);

    /* An unpacked element with the wrong wire type (fixed32 where varints are declared):
     * the parent cursor gets the error, at the end of the offending field (7). */
    const uint8_t wrong[] = {0x20, 0x01, 0x25, 0x01, 0x02, 0x03, 0x04};
    pb_init(&c, wrong, sizeof wrong, NULL);
    assert_int_equal(pb_next(&c, &f), PB_FIELD);
    assert_int_equal(pb_next(&c, &f), PB_FIELD);
    assert_int_equal(f.wire, PB_FIXED32);
    assert_int_equal(pb_repeated_count(&f, PB_VARINT, wrong), -1);
    assert_int_equal(pb_repeated_init(&r, &c, &f, PB_VARINT), 0);
    assert_string_equal(c.err, "a repeated scalar field with its declared wire type");
    assert_int_equal(pb_error_offset(&c), 7);
    assert_int_equal(pb_next(&c, &f), PB_ERROR);
}

static void test_repeated_fixed(void **state)
{
    (void)state;
    pb_cursor c;
    pb_field f = {0};
    pb_repeated r;
    uint64_t v;
    /* Packed fixed32 field 5: [1, 0xdeadbeef]; then unpacked fixed32 field 5: [7]. */
    const uint8_t f32[] = {0x2a, 0x08, 0x01, 0x00, 0x00, 0x00, 0xef, 0xbe,
                           0xad, 0xde, 0x2d, 0x07, 0x00, 0x00, 0x00};
    pb_init(&c, f32, sizeof f32, NULL);
    assert_int_equal(pb_next(&c, &f), PB_FIELD);
    assert_int_equal(pb_repeated_count(&f, PB_FIXED32, f32), 2);
    assert_int_equal(pb_repeated_init(&r, &c, &f, PB_FIXED32), 1);
    assert_int_equal(pb_repeated_next(&r, &v), PB_FIELD);
    assert_true(v == 1);
    assert_int_equal(pb_repeated_next(&r, &v), PB_FIELD);
    assert_true(v == 0xdeadbeefu);
    assert_int_equal(pb_repeated_next(&r, &v), PB_END);
    assert_int_equal(pb_next(&c, &f), PB_FIELD);
    assert_int_equal(f.wire, PB_FIXED32);
    assert_int_equal(pb_repeated_count(&f, PB_FIXED32, f32), 1);
    assert_int_equal(pb_repeated_init(&r, &c, &f, PB_FIXED32), 1);
    assert_int_equal(pb_repeated_next(&r, &v), PB_FIELD);
    assert_true(v == 7);
    assert_int_equal(pb_repeated_next(&r, &v), PB_END);
    assert_int_equal(pb_next(&c, &f), PB_END);

    /* Packed fixed64 field 6: [2, UINT64_MAX]; then unpacked fixed64 field 6: [9]. */
    const uint8_t f64[] = {0x32, 0x10, 0x02, 0,    0,    0,    0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
                           0xff, 0xff, 0xff, 0xff, 0x31, 0x09, 0, 0, 0, 0, 0,    0,    0};
    pb_init(&c, f64, sizeof f64, NULL);
    assert_int_equal(pb_next(&c, &f), PB_FIELD);
    assert_int_equal(pb_repeated_count(&f, PB_FIXED64, f64), 2);
    assert_int_equal(pb_repeated_init(&r, &c, &f, PB_FIXED64), 1);
    assert_int_equal(pb_repeated_next(&r, &v), PB_FIELD);
    assert_true(v == 2);
    assert_int_equal(pb_repeated_next(&r, &v), PB_FIELD);
    assert_true(v == UINT64_MAX);
    assert_int_equal(pb_repeated_next(&r, &v), PB_END);
    assert_int_equal(pb_next(&c, &f), PB_FIELD);
    assert_int_equal(pb_repeated_count(&f, PB_FIXED64, f64), 1);
    assert_int_equal(pb_repeated_init(&r, &c, &f, PB_FIXED64), 1);
    assert_int_equal(pb_repeated_next(&r, &v), PB_FIELD);
    assert_true(v == 9);
    assert_int_equal(pb_repeated_next(&r, &v), PB_END);

    /* Packed fixed32 of 7 bytes and fixed64 of 12: rejected at the payload start (2). */
    const uint8_t bad32[] = {0x2a, 0x07, 1, 2, 3, 4, 5, 6, 7};
    pb_init(&c, bad32, sizeof bad32, NULL);
    assert_int_equal(pb_next(&c, &f), PB_FIELD);
    assert_int_equal(pb_repeated_count(&f, PB_FIXED32, bad32), -1);
    assert_int_equal(pb_repeated_init(&r, &c, &f, PB_FIXED32), 0);
    assert_string_equal(c.err, "a packed fixed32 payload whose length is a multiple of 4");
    assert_int_equal(pb_error_offset(&c), 2);
    const uint8_t bad64[] = {0x32, 0x0c, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    pb_init(&c, bad64, sizeof bad64, NULL);
    assert_int_equal(pb_next(&c, &f), PB_FIELD);
    assert_int_equal(pb_repeated_count(&f, PB_FIXED64, bad64), -1);
    assert_int_equal(pb_repeated_init(&r, &c, &f, PB_FIXED64), 0);
    assert_string_equal(c.err, "a packed fixed64 payload whose length is a multiple of 8");
    assert_int_equal(pb_error_offset(&c), 2);
    /* 8 bytes are a multiple of 4 but 4 are not a multiple of 8. */
    assert_int_equal(pb_repeated_count(&f, PB_FIXED32, bad64), 3);
    const uint8_t four[] = {0x32, 0x04, 1, 2, 3, 4};
    pb_init(&c, four, sizeof four, NULL);
    assert_int_equal(pb_next(&c, &f), PB_FIELD);
    assert_int_equal(pb_repeated_count(&f, PB_FIXED64, four), -1);
    assert_int_equal(pb_repeated_count(&f, PB_FIXED32, four), 1);
    /* An unpacked varint where fixed64 is declared. */
    const uint8_t wrong[] = {0x30, 0x05};
    pb_init(&c, wrong, sizeof wrong, NULL);
    assert_int_equal(pb_next(&c, &f), PB_FIELD);
    assert_int_equal(pb_repeated_count(&f, PB_FIXED64, wrong), -1);
    assert_int_equal(pb_repeated_init(&r, &c, &f, PB_FIXED64), 0);
    assert_int_equal(pb_error_offset(&c), 2);
}

/* Every wire type as an unknown field, between two known ones: pb_next returns each with
 * its payload and the cursor lands exactly after it. */
static void test_unknown_fields_skipped(void **state)
{
    (void)state;
    tbuf b;
    tb_init(&b);
    put_varint_field(&b, 1, 42);                       /* known */
    put_varint_field(&b, 99, UINT64_MAX);              /* unknown varint, 10 bytes */
    put_fixed64_field(&b, 100, 0x1122334455667788ull); /* unknown fixed64 */
    put_len_field(&b, 1000, "\x08\xff\xff", 3);        /* unknown len (garbage inside) */
    put_fixed32_field(&b, 536870911, 0xcafef00du);     /* unknown fixed32, max field */
    put_len_field(&b, 16, "", 0);                      /* unknown empty len, 2-byte tag */
    put_varint_field(&b, 2, 7);                        /* known */
    /* tag bytes: fields 99, 100, 1000 and 16 take 2, field 2^29-1 takes 5 */
    const size_t ends[] = {2,          2 + 2 + 10, 14 + 2 + 8, 24 + 2 + 1 + 3,
                           30 + 5 + 4, 39 + 2 + 1, 42 + 2};
    const uint32_t nums[] = {1, 99, 100, 1000, 536870911, 16, 2};
    const uint32_t wires[] = {0, 0, 1, 2, 5, 2, 0};
    assert_int_equal(b.n, ends[6]);
    pb_cursor c;
    pb_field f = {0};
    pb_init(&c, b.p, b.n, NULL);
    uint64_t known1 = 0, known2 = 0;
    for (int i = 0; i < 7; i++) {
        assert_int_equal(pb_next(&c, &f), PB_FIELD);
        assert_int_equal(f.num, nums[i]);
        assert_int_equal(f.wire, wires[i]);
        assert_int_equal(c.p - b.p, ends[i]);
        if (f.num == 1)
            known1 = f.u;
        if (f.num == 2)
            known2 = f.u;
    }
    assert_int_equal(pb_next(&c, &f), PB_END);
    assert_true(known1 == 42 && known2 == 7);
    pb_init(&c, b.p, b.n, NULL);
    assert_int_equal(pb_validate_flat(&c), 1);
    assert_int_equal(pb_error_offset(&c), b.n); /* no error: the cursor position */
    check_fast_walk(b.p, b.n);
    tb_free(&b);
}

static void test_bad_wire_types_and_tags(void **state)
{
    (void)state;
    const char *wt = "a wire type of 0, 1, 2 or 5 (groups and types 6/7 are invalid)";
    const char *tagmsg = "a field tag with a field number in 1..2^29-1";
    /* Wire types 3 (start group), 4 (end group), 6, 7 on field 1, after a valid field. */
    ASSERT_NEXT_ERROR(2, wt, 0x08, 0x01, 0x0b);
    ASSERT_NEXT_ERROR(2, wt, 0x08, 0x01, 0x0c);
    ASSERT_NEXT_ERROR(2, wt, 0x08, 0x01, 0x0e, 0x00, 0x00);
    ASSERT_NEXT_ERROR(2, wt, 0x08, 0x01, 0x0f, 0x00);
    /* A group with a proper end tag is still rejected (proto3 has no groups). */
    ASSERT_NEXT_ERROR(0, wt, 0x0b, 0x08, 0x01, 0x0c);
    /* Wire type 7 on the largest field number (tag 0xffffffff), after a valid field. */
    ASSERT_NEXT_ERROR(2, wt, 0x08, 0x00, 0xff, 0xff, 0xff, 0xff, 0x0f);
    /* Field number 0 with each valid wire type. */
    ASSERT_NEXT_ERROR(0, tagmsg, 0x00, 0x00);
    ASSERT_NEXT_ERROR(0, tagmsg, 0x02, 0x00);
    ASSERT_NEXT_ERROR(2, tagmsg, 0x10, 0x05, 0x05, 0x00, 0x00, 0x00, 0x00);
    /* Field number 0 written in a padded 2-byte tag. */
    ASSERT_NEXT_ERROR(0, tagmsg, 0x80, 0x00, 0x00);
    /* Tags above 2^32-1: 2^32 (field 2^29, wire 0) and 2^32+8, then a 10-byte tag. */
    ASSERT_NEXT_ERROR(0, tagmsg, 0x80, 0x80, 0x80, 0x80, 0x10, 0x00);
    ASSERT_NEXT_ERROR(2, tagmsg, 0x08, 0x00, 0x88, 0x80, 0x80, 0x80, 0x10, 0x00);
    ASSERT_NEXT_ERROR(0, tagmsg, 0xf8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x00);
    /* A tag that is not even a valid varint. */
    ASSERT_NEXT_ERROR(0, BIG, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f);
    ASSERT_NEXT_ERROR(1, TRUNC, 0x08, 0x80);
    /* The largest valid tag, field 2^29-1 wire 0 (0xfffffff8), is accepted. */
    const uint8_t maxtag[] = {0xf8, 0xff, 0xff, 0xff, 0x0f, 0x2a};
    pb_cursor c;
    pb_field f = {0};
    pb_init(&c, maxtag, sizeof maxtag, NULL);
    assert_int_equal(pb_next(&c, &f), PB_FIELD);
    assert_int_equal(f.num, 536870911);
    assert_int_equal(f.wire, PB_VARINT);
    assert_true(f.u == 42);
    assert_int_equal(pb_next(&c, &f), PB_END);
    check_fast_walk(maxtag, sizeof maxtag);
}

/* A sub-message opened with the file's base reports offsets from the file start. */
static void test_nested_offsets(void **state)
{
    (void)state;
    /* field 1 varint; field 2 = message { field 1 = 5, field 3 = len 9 with 2 left } */
    const uint8_t msg[] = {0x08, 0x01, 0x12, 0x04, 0x08, 0x05, 0x1a, 0x09};
    pb_cursor c, sub;
    pb_field f = {0}, g = {0};
    pb_init(&c, msg, sizeof msg, NULL);
    assert_int_equal(pb_next(&c, &f), PB_FIELD);
    assert_int_equal(pb_next(&c, &f), PB_FIELD);
    assert_int_equal(f.num, 2);
    assert_int_equal(pb_next(&c, &f), PB_END);
    /* re-read field 2 to open it */
    pb_init(&c, msg, sizeof msg, NULL);
    pb_next(&c, &f);
    pb_next(&c, &f);
    pb_init(&sub, f.data, f.len, c.base);
    assert_int_equal(pb_next(&sub, &g), PB_FIELD);
    assert_true(g.u == 5);
    assert_int_equal(pb_next(&sub, &g), PB_ERROR);
    assert_string_equal(sub.err, FIT);
    assert_int_equal(pb_error_offset(&sub), 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_varint_lengths),
        cmocka_unit_test(test_varint_writer_roundtrip),
        cmocka_unit_test(test_varint_errors),
        cmocka_unit_test(test_zigzag),
        cmocka_unit_test(test_fixed_and_double),
        cmocka_unit_test(test_fixed_truncated),
        cmocka_unit_test(test_len_spans),
        cmocka_unit_test(test_repeated_varint),
        cmocka_unit_test(test_repeated_fixed),
        cmocka_unit_test(test_unknown_fields_skipped),
        cmocka_unit_test(test_bad_wire_types_and_tags),
        cmocka_unit_test(test_nested_offsets),
    };
    return tu_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
