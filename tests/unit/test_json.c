/* test_json.c - the JSON writer (src/core/json.h) and the output buffer under it
 * (src/core/buf.h): string escaping, UTF-8 validation, number formatting, commas and
 * indentation in pretty and compact modes, and sinks that refuse bytes.
 *
 * UTF-8 policy under test (json.h): a byte that does not start a complete, shortest-form
 * sequence of a scalar value (U+0000..U+10FFFF minus surrogates) becomes one \ufffd and
 * decoding resumes at the next byte; so "E2 82" (a truncated euro sign) is two \ufffd.
 */
#include "testutil.h"

#include "core/buf.h"
#include "core/json.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>

/* Escapes N bytes of S with json_escape_into and compares with WANT (a C string). */
static void check_escape(const char *s, size_t n, const char *want)
{
    buf b;
    buf_init(&b, NULL);
    json_escape_into(&b, s, n);
    assert_int_equal(b.status, PQ_OK);
    buf_putc(&b, 0);
    assert_string_equal(b.p, want);
    buf_release(&b);
}

#define ESC(lit, want) check_escape((lit), sizeof(lit) - 1, (want))

static void test_escape_ascii(void **state)
{
    (void)state;
    ESC("", "");
    ESC("plain text 123 ~", "plain text 123 ~");
    ESC("a\"b", "a\\\"b");
    ESC("back\\slash", "back\\\\slash");
    ESC("\"\\\"", "\\\"\\\\\\\"");
    ESC("/", "/"); /* solidus needs no escape */
    ESC("line\nnext\ttab\rcr", "line\\nnext\\ttab\\rcr");
    /* Other control characters as \u00XX (lowercase hex), including NUL and 0x1f. */
    ESC("\x01", "\\u0001");
    ESC("\b\f", "\\u0008\\u000c");
    ESC("\x1f", "\\u001f");
    ESC("a\0b", "a\\u0000b");
    ESC("\x7f", "\x7f"); /* DEL is not a control character for JSON */
    /* Runs of plain bytes around escapes are copied whole. */
    ESC("ab\ncd\"ef", "ab\\ncd\\\"ef");
}

/* A special byte (or UTF-8 sequence) at every position of plain strings of every length
 * to 80: the word-at-a-time scans (16 bytes with SSE2, then 8, then the overlapping last
 * block) find each one, and none past the end. */
static void test_escape_every_position(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } SPECIAL[] = {{"\"", "\\\""},      {"\\", "\\\\"},      {"\n", "\\n"},
                   {"\x01", "\\u0001"}, {"\x80", "\\ufffd"}, {"\xc3\xa9", "\xc3\xa9"},
                   {"\x7f", "\x7f"},    {" ", " "}};
    char in[96], want[128];
    for (size_t k = 0; k < sizeof SPECIAL / sizeof SPECIAL[0]; k++) {
        size_t sn = strlen(SPECIAL[k].in), on = strlen(SPECIAL[k].out);
        for (size_t n = 0; n <= 80; n++) {
            for (size_t at = 0; at <= n; at++) {
                /* N plain bytes with the special one inserted at AT */
                for (size_t i = 0; i < n; i++)
                    in[i < at ? i : i + sn] = (char)('a' + i % 26);
                memcpy(in + at, SPECIAL[k].in, sn);
                for (size_t i = 0; i < n; i++)
                    want[i < at ? i : i + on] = (char)('a' + i % 26);
                memcpy(want + at, SPECIAL[k].out, on);
                want[n + on] = 0;
                check_escape(in, n + sn, want);
            }
        }
    }
}

static void test_escape_utf8_valid(void **state)
{
    (void)state;
    /* Kept byte for byte: 2-, 3- and 4-byte sequences at the edges of their ranges. */
    ESC("\xc2\x80", "\xc2\x80");                 /* U+0080 */
    ESC("\xc3\xa9", "\xc3\xa9");                 /* U+00E9 */
    ESC("\xdf\xbf", "\xdf\xbf");                 /* U+07FF */
    ESC("\xe0\xa0\x80", "\xe0\xa0\x80");         /* U+0800 */
    ESC("\xe2\x82\xac", "\xe2\x82\xac");         /* U+20AC euro */
    ESC("\xed\x9f\xbf", "\xed\x9f\xbf");         /* U+D7FF, last before surrogates */
    ESC("\xee\x80\x80", "\xee\x80\x80");         /* U+E000, first after surrogates */
    ESC("\xef\xbf\xbd", "\xef\xbf\xbd");         /* U+FFFD itself */
    ESC("\xef\xbf\xbf", "\xef\xbf\xbf");         /* U+FFFF */
    ESC("\xf0\x90\x80\x80", "\xf0\x90\x80\x80"); /* U+10000 */
    ESC("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80"); /* U+1F600 */
    ESC("\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf"); /* U+10FFFF */
    ESC("caf\xc3\xa9 \"\xe2\x82\xac\"", "caf\xc3\xa9 \\\"\xe2\x82\xac\\\"");
}

static void test_escape_utf8_invalid(void **state)
{
    (void)state;
    const char *R = "\\ufffd";
    char want[256];
    /* Overlong encodings: C0/C1 never start a sequence; E0/F0 with too-small values. */
    ESC("\xc0\x80", "\\ufffd\\ufffd");
    ESC("\xc1\xbf", "\\ufffd\\ufffd");
    ESC("\xe0\x80\x80", "\\ufffd\\ufffd\\ufffd");
    ESC("\xe0\x9f\xbf", "\\ufffd\\ufffd\\ufffd"); /* U+07FF in 3 bytes */
    ESC("\xf0\x80\x80\x80", "\\ufffd\\ufffd\\ufffd\\ufffd");
    ESC("\xf0\x8f\xbf\xbf", "\\ufffd\\ufffd\\ufffd\\ufffd"); /* U+FFFF in 4 bytes */
    /* Surrogates U+D800 and U+DFFF, and a CESU-8 pair. */
    ESC("\xed\xa0\x80", "\\ufffd\\ufffd\\ufffd");
    ESC("\xed\xbf\xbf", "\\ufffd\\ufffd\\ufffd");
    snprintf(want, sizeof want, "%s%s%s%s%s%s", R, R, R, R, R, R);
    ESC("\xed\xa0\xbd\xed\xb8\x80", want);
    /* Above U+10FFFF, and bytes that never occur in UTF-8. */
    ESC("\xf4\x90\x80\x80", "\\ufffd\\ufffd\\ufffd\\ufffd");
    ESC("\xf5\x80\x80\x80", "\\ufffd\\ufffd\\ufffd\\ufffd");
    ESC("\xff", "\\ufffd");
    ESC("\xfe\xff", "\\ufffd\\ufffd");
    ESC("a\xffz", "a\\ufffdz");
    /* A lone continuation byte. */
    ESC("\x80", "\\ufffd");
    ESC("x\xbfy", "x\\ufffdy");
    /* Truncated sequences: at the end of the data, and followed by ASCII or a valid one. */
    ESC("\xe2\x82", "\\ufffd\\ufffd");
    ESC("\xf0\x9f\x98", "\\ufffd\\ufffd\\ufffd");
    ESC("\xc3", "\\ufffd");
    ESC("\xe2\x82"
        "A",
        "\\ufffd\\ufffdA");
    ESC("\xe2\xc3\xa9", "\\ufffd\xc3\xa9");
    /* A sequence split by the length given (valid bytes beyond N are not read). */
    check_escape("\xe2\x82\xac", 2, "\\ufffd\\ufffd");
    check_escape("\xc3\xa9", 1, "\\ufffd");
    /* Mixed: a valid sequence survives between replacements. */
    ESC("\xff\xc3\xa9\xff", "\\ufffd\xc3\xa9\\ufffd");
}

/* Formats V with json_format_double and checks the text and that it reads back exactly. */
static void check_double(double v, const char *want)
{
    char out[64];
    int k = json_format_double(out, sizeof out, v);
    assert_int_equal(k, (int)strlen(out));
    if (want)
        assert_string_equal(out, want);
    double back = strtod(out, NULL);
    assert_memory_equal(&back, &v, sizeof v); /* bit-exact, so -0 keeps its sign */
}

static void test_doubles(void **state)
{
    (void)state;
    check_double(0.1, "0.1");
    check_double(1e300, "1e+300");
    check_double(-0.0, "-0");
    check_double(0.0, "0");
    check_double(918, "918");
    check_double(1637.993152512, "1637.993152512");
    check_double(-2.5, "-2.5");
    /* Values that need 17 significant digits to read back. */
    check_double(1.0 / 3.0, "0.33333333333333331");
    check_double(0.1 + 0.2, "0.30000000000000004");
    check_double(DBL_MAX, "1.7976931348623157e+308");
    check_double(123456789012345678.0, "1.2345678901234568e+17");
    /* Extremes that only need to round-trip. */
    check_double(5e-324, NULL);
    check_double(DBL_MIN, NULL);
    check_double(-DBL_MAX, NULL);
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 2000; i++) {
        uint64_t bits = tu_rand(&seed);
        double d;
        memcpy(&d, &bits, sizeof d);
        if (isfinite(d))
            check_double(d, NULL);
    }
}

/* json_format_double gives what printf's %.15g gives when it reads back, else %.17g. */
static void check_like_printf(double v)
{
    char got[64], want[64];
    json_format_double(got, sizeof got, v);
    snprintf(want, sizeof want, "%.15g", v);
    if (strtod(want, NULL) != v)
        snprintf(want, sizeof want, "%.17g", v);
    if (strcmp(got, want) != 0)
        fail_msg("%.17g: json_format_double %s, printf %s", v, got, want);
}

/* The fast paths of json_format_double (values with up to 9 decimals, as log values and MB
 * of whole bytes are; dyadic values, as MiB of whole bytes are) print exactly what %.15g /
 * %.17g print. */
static void test_doubles_fast_path_matches_printf(void **state)
{
    (void)state;
    uint64_t seed = 42;
    for (int i = 0; i < 300000; i++) {
        uint64_t r = tu_rand(&seed);
        double v;
        switch (r % 5) {
        case 0:
            v = (double)(int64_t)(r >> 34) / 1000.0;
            break;
        case 1:
            v = (double)(r >> 30) / 1048576.0;
            break;
        case 2:
            v = -(double)(r >> 34) / 1e6;
            break;
        case 3:
            v = (double)(r >> 44) / 1e9;
            break;
        default:
            v = (double)(r >> 11) / 9007199254740992.0 * 1e5;
        }
        if (i % 3 == 1) /* dyadic values m * 2^e, e in [-40, 70]: the exact path and beyond */
            v = ldexp((double)((r >> 11) >> (r % 50)), (int)((r >> 3) % 111) - 40);
        if (i % 7 == 2) /* next to a power of two, where the gap below is half the gap above */
            v = nextafter(ldexp(1.0, (int)(r % 120) - 50), (r >> 8) & 1 ? 0.0 : 1e300);
        if (i % 11 == 4) /* any 53-bit significand, 1e-30 to 1e30: the long double path */
            v = ldexp((double)(r >> 11), (int)(r % 200) - 150);
        if (i % 13 == 5) /* times and rates: a random fraction times a power of ten */
            v = (double)(r >> 11) / 9007199254740992.0 * pow(10.0, (double)((int)(r % 44) - 14));
        check_like_printf(v);
    }
}

/* Renders a few values through a compact writer; returns the text (malloc'd). */
static char *finish(buf *b)
{
    buf_putc(b, 0);
    assert_int_equal(b->status, PQ_OK);
    char *s = strdup(b->p);
    buf_release(b);
    return s;
}

static void test_numbers_and_non_finite(void **state)
{
    (void)state;
    buf b;
    json_writer w;
    buf_init(&b, NULL);
    json_init(&w, &b, 0);
    json_arr_begin(&w);
    json_double(&w, 0.1);
    json_double(&w, 1e300);
    json_double(&w, -0.0);
    json_double(&w, 918);
    json_double(&w, 1637.993152512);
    json_double(&w, NAN);
    json_double(&w, INFINITY);
    json_double(&w, -INFINITY);
    json_int(&w, INT64_MIN);
    json_int(&w, INT64_MAX);
    json_uint(&w, UINT64_MAX);
    json_int(&w, 0);
    json_bool(&w, 1);
    json_bool(&w, 0);
    json_null(&w);
    json_arr_end(&w);
    char *s = finish(&b);
    assert_string_equal(s, "[0.1,1e+300,-0,918,1637.993152512,null,null,null,"
                           "-9223372036854775808,9223372036854775807,18446744073709551615,"
                           "0,true,false,null]");
    free(s);
}

/* One nested document, written the same way in both modes. */
static void write_doc(json_writer *w)
{
    json_obj_begin(w);
    json_key(w, "a");
    json_int(w, 1);
    json_key(w, "b");
    json_arr_begin(w);
    json_int(w, 1);
    json_cstr(w, "x");
    json_obj_begin(w);
    json_obj_end(w);
    json_arr_begin(w);
    json_arr_end(w);
    json_arr_end(w);
    json_key(w, "c\"q");
    json_obj_begin(w);
    json_key(w, "d");
    json_null(w);
    json_key(w, "e");
    json_str(w, "y\n", 2);
    json_obj_end(w);
    json_obj_end(w);
}

static void test_nesting_pretty_and_compact(void **state)
{
    (void)state;
    buf b;
    json_writer w;
    buf_init(&b, NULL);
    json_init(&w, &b, 1);
    write_doc(&w);
    char *s = finish(&b);
    assert_string_equal(s, "{\n"
                           "  \"a\": 1,\n"
                           "  \"b\": [\n"
                           "    1,\n"
                           "    \"x\",\n"
                           "    {},\n"
                           "    []\n"
                           "  ],\n"
                           "  \"c\\\"q\": {\n"
                           "    \"d\": null,\n"
                           "    \"e\": \"y\\n\"\n"
                           "  }\n"
                           "}\n");
    free(s);

    buf_init(&b, NULL);
    json_init(&w, &b, 0);
    write_doc(&w);
    s = finish(&b);
    assert_string_equal(s,
                        "{\"a\":1,\"b\":[1,\"x\",{},[]],\"c\\\"q\":{\"d\":null,\"e\":\"y\\n\"}}");
    free(s);

    /* Empty top-level containers. */
    buf_init(&b, NULL);
    json_init(&w, &b, 1);
    json_arr_begin(&w);
    json_arr_end(&w);
    s = finish(&b);
    assert_string_equal(s, "[]\n");
    free(s);
}

static void test_writer_misuse(void **state)
{
    (void)state;
    buf b;
    json_writer w;
    /* Closing more than was opened is a programmer error, reported as INTERNAL. */
    buf_init(&b, NULL);
    json_init(&w, &b, 0);
    json_arr_end(&w);
    assert_int_equal(b.status, PQ_ERR_INTERNAL);
    buf_release(&b);
    /* JSON_MAX_DEPTH levels are fine, one more is not. */
    buf_init(&b, NULL);
    json_init(&w, &b, 0);
    for (int i = 0; i < JSON_MAX_DEPTH; i++)
        json_arr_begin(&w);
    assert_int_equal(b.status, PQ_OK);
    for (int i = 0; i < JSON_MAX_DEPTH; i++)
        json_arr_end(&w);
    assert_int_equal(b.status, PQ_OK);
    assert_int_equal(b.n, 2 * JSON_MAX_DEPTH);
    json_arr_begin(&w); /* depth restarts at 0 */
    for (int i = 0; i < JSON_MAX_DEPTH; i++)
        json_arr_begin(&w);
    assert_int_equal(b.status, PQ_ERR_INTERNAL);
    buf_release(&b);
}

/* Sinks. */
typedef struct sink_state {
    size_t calls, bytes;
    size_t fail_after_calls; /* 0 = never fail; else fail call number N */
    tbuf got;
} sink_state;

static int test_sink_write(void *ctx, const void *data, size_t n)
{
    sink_state *s = ctx;
    s->calls++;
    if (s->fail_after_calls && s->calls >= s->fail_after_calls)
        return -1;
    s->bytes += n;
    put_bytes(&s->got, data, n);
    return 0;
}

static void test_buf_streaming_and_failure(void **state)
{
    (void)state;
    /* A working sink receives everything, in more than one write past BUF_FLUSH_BYTES. */
    sink_state ok = {0};
    pq_sink sink = {test_sink_write, &ok};
    buf b;
    buf_init(&b, &sink);
    char line[100];
    memset(line, 'x', sizeof line);
    line[99] = '\n';
    for (int i = 0; i < 2000; i++)
        buf_put(&b, line, sizeof line);
    assert_int_equal(buf_flush(&b), PQ_OK);
    assert_int_equal(ok.bytes, 200000);
    assert_true(ok.calls >= 3); /* 200000 bytes at 65536 per flush */
    assert_int_equal(ok.got.n, 200000);
    assert_int_equal(ok.got.p[99], '\n');
    assert_int_equal(ok.got.p[199999], '\n');
    buf_release(&b);
    tb_free(&ok.got);

    /* A sink that refuses the first write: PQ_ERR_OUTPUT, sticky, no further writes. */
    sink_state bad = {0};
    bad.fail_after_calls = 1;
    pq_sink badsink = {test_sink_write, &bad};
    buf_init(&b, &badsink);
    for (int i = 0; i < 2000; i++)
        buf_put(&b, line, sizeof line);
    assert_int_equal(b.status, PQ_ERR_OUTPUT);
    assert_int_equal(buf_flush(&b), PQ_ERR_OUTPUT);
    assert_int_equal(bad.calls, 1);
    buf_release(&b);

    /* A sink refusing only the final flush. */
    sink_state late = {0};
    late.fail_after_calls = 2;
    pq_sink latesink = {test_sink_write, &late};
    buf_init(&b, &latesink);
    for (int i = 0; i < 1000; i++)
        buf_put(&b, line, sizeof line); /* 100000: one automatic flush */
    assert_int_equal(b.status, PQ_OK);
    assert_int_equal(late.calls, 1);
    assert_int_equal(buf_flush(&b), PQ_ERR_OUTPUT);
    assert_int_equal(late.calls, 2);
    buf_release(&b);
    tb_free(&late.got);

    /* buf_printf longer than its 512-byte stack buffer. */
    char big[2000];
    memset(big, 'q', sizeof big - 1);
    big[sizeof big - 1] = 0;
    buf_init(&b, NULL);
    buf_printf(&b, "<%s|%d>", big, 42);
    assert_int_equal(b.n, 1999 + 5);
    assert_memory_equal(b.p + 1 + 1999, "|42>", 4);
    buf_release(&b);
}

/* printf into a tbuf. */
static void tpr(tbuf *t, const char *fmt, ...)
{
    char s[256];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(s, sizeof s, fmt, ap);
    va_end(ap);
    put_bytes(t, s, (size_t)k);
}

/* The reference escape of ASCII text and whole UTF-8 sequences (json.h's policy), byte by
 * byte, for the writer tests below. */
static void ref_escape(tbuf *t, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        char u[8];
        if (c == '"' || c == '\\')
            tpr(t, "\\%c", c);
        else if (c == '\n')
            tpr(t, "\\n");
        else if (c == '\t')
            tpr(t, "\\t");
        else if (c == '\r')
            tpr(t, "\\r");
        else if (c < 0x20)
            tpr(t, "\\u%04x", c);
        else {
            u[0] = (char)c;
            u[1] = 0;
            tpr(t, "%s", u);
        }
    }
}

/* Random strings: plain letters mostly, with quotes, backslashes, control bytes and é. */
static size_t rand_text(uint64_t *seed, char *s, size_t cap)
{
    static const char *const PIECES[] = {
        "a", "Zq", "/", " ", "\"", "\\", "\n", "\x01", "\xc3\xa9", "0123456789abcdef", "x.y_z-w"};
    size_t want = tu_rand(seed) % 90, n = 0;
    while (n < want) {
        uint64_t r = tu_rand(seed);
        const char *pc = PIECES[r % 16 < 11 ? r % 16 : 0];
        if (r % 16 >= 11 || (r >> 8) % 4) /* plain text most of the time */
            pc = (r >> 12) % 2 ? "abcdefgh" : "k";
        size_t k = strlen(pc);
        if (n + k >= cap)
            break;
        memcpy(s + n, pc, k);
        n += k;
    }
    return n;
}

/* Integers at the digit-count edges (powers of ten and one less), the extremes, random. */
static int64_t rand_int(uint64_t *seed)
{
    uint64_t r = tu_rand(seed);
    int64_t p = 1;
    for (unsigned k = (unsigned)(r >> 8) % 19; k; k--)
        p *= 10;
    switch (r % 6) {
    case 0:
        return p;
    case 1:
        return p - 1;
    case 2:
        return -p + (int64_t)((r >> 20) % 2);
    case 3:
        return (r >> 20) % 2 ? INT64_MIN : INT64_MAX;
    case 4:
        return (int64_t)(r >> (r >> 58));
    default:
        return (int64_t)((r >> 30) % 1000);
    }
}

/* The compact writer's one-step paths (json_key_int, json_key_str, json_key_str_escaped,
 * json_int, json_uint, json_str, json_str_escaped, json_raw) give the bytes of a reference
 * built by hand (snprintf digits, a byte-by-byte escape), with and without a sink (flushes
 * every 64 KiB: values at the flush boundary take the general path); the pretty writer
 * (always the general path) gives them too, its whitespace aside. */
static void test_compact_fast_paths(void **state)
{
    (void)state;
    for (int round = 0; round < 40; round++) {
        uint64_t seed = 0x51ed2701u + (uint64_t)round;
        sink_state ss = {0};
        pq_sink sink = {test_sink_write, &ss};
        buf b1, b2, b3;
        buf_init(&b1, NULL);
        buf_init(&b2, &sink);
        buf_init(&b3, NULL);
        json_writer w1, w2, w3;
        json_init(&w1, &b1, 0);
        json_init(&w2, &b2, 0);
        json_init(&w3, &b3, 1);
        json_writer *ws[3] = {&w1, &w2, &w3};
        tbuf want;
        tb_init(&want);
        for (int k = 0; k < 3; k++)
            json_obj_begin(ws[k]);
        tpr(&want, "{");
        int items = round < 4 ? 6000 : 200; /* the long ones pass flush points */
        for (int i = 0; i < items; i++) {
            uint64_t r = tu_rand(&seed);
            char s[128], num[32];
            size_t n = rand_text(&seed, s, sizeof s);
            int64_t v = rand_int(&seed);
            if (i)
                tpr(&want, ",");
            switch (r % 6) {
            case 0:
                for (int k = 0; k < 3; k++)
                    json_key_int(ws[k], JSON_KEY("someKey"), v);
                tpr(&want, "\"someKey\":%" PRId64, v);
                break;
            case 1:
                for (int k = 0; k < 3; k++)
                    json_key_str(ws[k], JSON_KEY("k"), s, n);
                tpr(&want, "\"k\":\"");
                ref_escape(&want, s, n);
                tpr(&want, "\"");
                break;
            case 2:
                for (int k = 0; k < 3; k++)
                    json_key_str_escaped(ws[k], JSON_KEY("aLongerKeyOfTwentyNine_"), "a\\nb", 4);
                tpr(&want, "\"aLongerKeyOfTwentyNine_\":\"a\\nb\"");
                break;
            default:
                /* an array of values after a key */
                for (int k = 0; k < 3; k++) {
                    json_key_text(ws[k], JSON_KEY("arr"));
                    json_arr_begin(ws[k]);
                    json_int(ws[k], v);
                    json_uint(ws[k], (uint64_t)v * 3u);
                    json_str(ws[k], s, n);
                    json_str_escaped(ws[k], "x\\ty", 4);
                    json_raw(ws[k], "1914.7171363830566", 18);
                    json_str(ws[k], "", 0);
                    json_arr_end(ws[k]);
                }
                snprintf(num, sizeof num, "%" PRIu64, (uint64_t)v * 3u);
                tpr(&want, "\"arr\":[%" PRId64 ",%s,\"", v, num);
                ref_escape(&want, s, n);
                tpr(&want, "\",\"x\\ty\",1914.7171363830566,\"\"]");
            }
        }
        for (int k = 0; k < 3; k++)
            json_obj_end(ws[k]);
        tpr(&want, "}");
        put_byte(&want, 0);
        want.n--;
        assert_int_equal(buf_flush(&b2), PQ_OK);
        buf_putc(&b1, 0);
        assert_int_equal(b1.status, PQ_OK);
        assert_string_equal(b1.p, want.p);
        assert_int_equal(ss.got.n, want.n);
        assert_memory_equal(ss.got.p, want.p, want.n);
        /* pretty: drop the newlines with their indentation and the space after each key
         * (the random texts have no colon, and a raw newline is never in a string) */
        size_t o = 0;
        for (size_t i = 0; i < b3.n; i++) {
            if (b3.p[i] == '\n') {
                while (i + 1 < b3.n && b3.p[i + 1] == ' ')
                    i++;
                continue;
            }
            if (b3.p[i] == ' ' && i >= 2 && b3.p[i - 1] == ':' && b3.p[i - 2] == '"')
                continue;
            b3.p[o++] = b3.p[i];
        }
        b3.n = o;
        buf_putc(&b3, 0);
        assert_string_equal(b3.p, want.p);
        buf_release(&b1);
        buf_release(&b2);
        buf_release(&b3);
        tb_free(&want);
        tb_free(&ss.got);
    }
}

/* json_str in compact output (its whole-string check for up to 32 bytes, then the scan):
 * a special byte at every position of plain strings of every length to 48. */
static void test_str_special_every_position(void **state)
{
    (void)state;
    static const char *const SPECIAL[] = {"\"", "\\", "\n", "\x1f", "\x80", "\xc3\xa9", "\x7f"};
    for (size_t k = 0; k < sizeof SPECIAL / sizeof SPECIAL[0]; k++) {
        size_t sn = strlen(SPECIAL[k]);
        for (size_t n = 0; n <= 48; n++) {
            for (size_t at = 0; at <= n; at++) {
                char in[64];
                for (size_t i = 0; i < n; i++)
                    in[i < at ? i : i + sn] = (char)('a' + i % 26);
                memcpy(in + at, SPECIAL[k], sn);
                buf b, e;
                buf_init(&b, NULL);
                buf_init(&e, NULL);
                json_writer w;
                json_init(&w, &b, 0);
                json_arr_begin(&w);
                json_str(&w, in, n + sn);
                json_str(&w, in, at); /* the plain part alone */
                json_arr_end(&w);
                buf_puts(&e, "[\"");
                json_escape_into(&e, in, n + sn);
                buf_puts(&e, "\",\"");
                json_escape_into(&e, in, at);
                buf_puts(&e, "\"]");
                assert_int_equal(b.n, e.n);
                assert_memory_equal(b.p, e.p, e.n);
                buf_release(&b);
                buf_release(&e);
            }
        }
    }
}

/* Integers of nine digits and more are written eight digits at a time by fixed point: all
 * 10^8 eight-digit groups (1xxxxxxxx) against a decimal odometer, and 2^64 - 1. */
static void test_integer_digit_groups(void **state)
{
    (void)state;
    buf b;
    buf_init(&b, NULL);
    char ref[9] = "00000000";
    for (int64_t v = 0; v < 100000000; v++) {
        b.n = 0;
        json_put_i64(&b, 100000000 + v);
        if (b.n != 9 || memcmp(b.p + 1, ref, 8) != 0)
            fail_msg("%" PRId64 ": %.*s", 100000000 + v, (int)b.n, b.p);
        for (int i = 7; i >= 0 && ++ref[i] > '9'; i--)
            ref[i] = '0';
    }
    json_writer w;
    b.n = 0;
    json_init(&w, &b, 0);
    json_arr_begin(&w);
    json_uint(&w, UINT64_MAX);
    json_int(&w, INT64_MIN);
    json_arr_end(&w);
    buf_putc(&b, 0);
    assert_string_equal(b.p, "[18446744073709551615,-9223372036854775808]");
    buf_release(&b);
}

/* json_put gives buf_put's bytes and flushes: pieces of every length to 40 (and a long
 * one) into a growing buffer and into one with a sink, past several flush points. */
static void test_json_put_like_buf_put(void **state)
{
    (void)state;
    sink_state s1 = {0}, s2 = {0};
    pq_sink k1 = {test_sink_write, &s1}, k2 = {test_sink_write, &s2};
    buf a, b, c, d;
    buf_init(&a, NULL);
    buf_init(&b, NULL);
    buf_init(&c, &k1);
    buf_init(&d, &k2);
    char piece[2000];
    for (size_t i = 0; i < sizeof piece; i++)
        piece[i] = (char)('A' + i % 53);
    uint64_t seed = 7;
    for (int i = 0; i < 20000; i++) {
        uint64_t r = tu_rand(&seed);
        size_t n = r % 97 == 0 ? 1500 : r % 41, at = (r >> 20) % 300;
        buf_put(&a, piece + at, n);
        json_put(&b, piece + at, n);
        buf_put(&c, piece + at, n);
        json_put(&d, piece + at, n);
        assert_int_equal(s1.calls, s2.calls); /* the same flushes */
    }
    assert_int_equal(a.n, b.n);
    assert_memory_equal(a.p, b.p, a.n);
    assert_int_equal(buf_flush(&c), PQ_OK);
    assert_int_equal(buf_flush(&d), PQ_OK);
    assert_int_equal(s1.got.n, s2.got.n);
    assert_memory_equal(s1.got.p, s2.got.p, s1.got.n);
    assert_true(s1.calls >= 3);
    buf_release(&a);
    buf_release(&b);
    buf_release(&c);
    buf_release(&d);
    tb_free(&s1.got);
    tb_free(&s2.got);
}

/* MiB of whole bytes plus an offset, as the memory viewer's heap sizes are (the dyadic path
 * with 17 digits, its digit and %g writing): the bytes printf gives, on a million values. */
static void test_doubles_mib_match_printf(void **state)
{
    (void)state;
    uint64_t seed = 1914;
    for (int i = 0; i < 1000000; i++) {
        uint64_t r = tu_rand(&seed), a = tu_rand(&seed);
        double v = (double)(r >> (r % 40 + 20)) / 1048576.0;
        if (i % 2)
            v += (double)(a >> (a % 40 + 20)) / 1048576.0;
        if (i % 5 == 3)
            v = -v;
        check_like_printf(v);
    }
}

/* A tiny XSpace (one TPU plane, one line, one event) to render through a failing sink. */
static void tiny_xspace(tbuf *b)
{
    tb_init(b);
    size_t pl = msg_begin(b, 1);
    put_varint_field(b, 1, 3);
    put_str_field(b, 2, "/device:TPU:0");
    size_t ln = msg_begin(b, 3);
    put_varint_field(b, 1, 1);
    put_str_field(b, 2, "XLA Ops");
    size_t ev = msg_begin(b, 4);
    put_varint_field(b, 1, 1);
    put_varint_field(b, 2, 10);
    put_varint_field(b, 3, 5);
    msg_end(b, ev);
    msg_end(b, ln);
    msg_end(b, pl);
    put_str_field(b, 4, "tinyhost");
}

static void test_render_to_failing_sink(void **state)
{
    (void)state;
    tbuf x;
    tiny_xspace(&x);
    pq_profile *prof = NULL;
    pq_error err;
    assert_int_equal(pq_profile_open_memory(x.p, x.n, "tiny.xplane.pb", NULL, &prof, &err), PQ_OK);
    pq_scan_totals t;
    assert_int_equal(pq_profile_scan(prof, &t, &err), PQ_OK);
    for (int fmt = 0; fmt < 2; fmt++) {
        for (int what = 0; what < 3; what++) {
            sink_state s = {0};
            s.fail_after_calls = 1;
            pq_sink sink = {test_sink_write, &s};
            memset(&err, 0, sizeof err);
            pq_status st = what == 0   ? pq_render_info(prof, (pq_output)fmt, &sink, &err)
                           : what == 1 ? pq_render_tools(prof, (pq_output)fmt, &sink, &err)
                                       : pq_render_scan(prof, &t, (pq_output)fmt, &sink, &err);
            assert_int_equal(st, PQ_ERR_OUTPUT);
            assert_int_equal(err.status, PQ_ERR_OUTPUT);
            assert_string_equal(err.message, "cannot write the output");
            assert_int_equal(s.calls, 1);
            /* The same render into a working sink succeeds and writes something. */
            sink_state good = {0};
            pq_sink gsink = {test_sink_write, &good};
            st = what == 0   ? pq_render_info(prof, (pq_output)fmt, &gsink, &err)
                 : what == 1 ? pq_render_tools(prof, (pq_output)fmt, &gsink, &err)
                             : pq_render_scan(prof, &t, (pq_output)fmt, &gsink, &err);
            assert_int_equal(st, PQ_OK);
            assert_true(good.bytes > 0);
            if (fmt == PQ_OUT_JSON) {
                assert_int_equal(good.got.p[0], '{');
                assert_int_equal(good.got.p[good.got.n - 1], '\n');
            }
            tb_free(&good.got);
        }
    }
    /* Status names are stable. */
    assert_string_equal(pq_status_name(PQ_ERR_OUTPUT), "output");
    assert_string_equal(pq_status_name(PQ_ERR_INPUT), "input");
    pq_profile_free(prof);
    tb_free(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escape_ascii),
        cmocka_unit_test(test_escape_every_position),
        cmocka_unit_test(test_escape_utf8_valid),
        cmocka_unit_test(test_escape_utf8_invalid),
        cmocka_unit_test(test_doubles),
        cmocka_unit_test(test_doubles_fast_path_matches_printf),
        cmocka_unit_test(test_doubles_mib_match_printf),
        cmocka_unit_test(test_compact_fast_paths),
        cmocka_unit_test(test_str_special_every_position),
        cmocka_unit_test(test_integer_digit_groups),
        cmocka_unit_test(test_json_put_like_buf_put),
        cmocka_unit_test(test_numbers_and_non_finite),
        cmocka_unit_test(test_nesting_pretty_and_compact),
        cmocka_unit_test(test_writer_misuse),
        cmocka_unit_test(test_buf_streaming_and_failure),
        cmocka_unit_test(test_render_to_failing_sink),
    };
    return tu_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
