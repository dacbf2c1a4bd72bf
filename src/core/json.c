/* json.c - deterministic JSON writer; see json.h. */
#include "json.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdlib.h>
#include <string.h>

/* buf_put and buf_putc with their common case inline: room in the buffer and no flush due
 * (the same bytes and the same flushes as the calls). */
static inline void jput(buf *b, const void *p, size_t n)
{
    if (n && n <= b->cap - b->n && b->status == PQ_OK && (!b->sink || b->n + n < BUF_FLUSH_BYTES)) {
        char *d = b->p + b->n;
        const char *q = p;
        /* most pieces are short (keys, numbers, punctuation): copied by two fixed-size,
         * overlapping moves the compiler inlines, not a call */
        if (n >= 8 && n <= 16) {
            memcpy(d, q, 8);
            memcpy(d + n - 8, q + n - 8, 8);
        } else if (n >= 4 && n < 8) {
            memcpy(d, q, 4);
            memcpy(d + n - 4, q + n - 4, 4);
        } else if (n < 4) {
            d[0] = q[0];
            d[n / 2] = q[n / 2];
            d[n - 1] = q[n - 1];
        } else {
            memcpy(d, q, n);
        }
        b->n += n;
        return;
    }
    buf_put(b, p, n);
}

static inline void jputc(buf *b, char c)
{
    jput(b, &c, 1);
}

void json_init(json_writer *w, buf *b, int pretty)
{
    memset(w, 0, sizeof *w);
    w->b = b;
    w->pretty = pretty;
}

static void newline_indent(json_writer *w)
{
    if (!w->pretty)
        return;
    /* newline and indentation in one append */
    static const char SPACES[] = "\n                                                          "
                                 "                                                            "
                                 "       ";
    size_t n = 1 + 2 * (size_t)w->depth;
    if (n > sizeof SPACES - 1)
        n = sizeof SPACES - 1;
    jput(w->b, SPACES, n);
}

/* Called before every value or key: writes the separating comma and indentation. */
static inline void before_item(json_writer *w)
{
    if (w->after_key) {
        w->after_key = 0;
        return;
    }
    if (w->depth > 0) {
        if (w->has_items[w->depth - 1])
            jputc(w->b, ',');
        w->has_items[w->depth - 1] = 1;
        newline_indent(w);
    }
}

/* The compact writer's fast path: with room for a separator and N more bytes and no flush
 * due, writes the separator (a comma when the container has items; nothing after a key)
 * and returns where the value's bytes go (the caller adds their count to b->n). NULL when
 * the general path must be taken (pretty output, the top level, no room): the same bytes. */
static inline char *compact_item(json_writer *w, size_t n)
{
    buf *b = w->b;
    if (w->pretty || w->depth <= 0 || n + 1 > b->cap - b->n || b->status != PQ_OK ||
        (b->sink && b->n + n + 1 >= BUF_FLUSH_BYTES))
        return NULL;
    char *d = b->p + b->n;
    if (w->after_key) {
        w->after_key = 0;
        return d;
    }
    unsigned char *has = &w->has_items[w->depth - 1];
    size_t c = *has;
    d[0] = ',';
    b->n += c;
    *has = 1;
    return d + c;
}

static void open_container(json_writer *w, char c)
{
    before_item(w);
    jputc(w->b, c);
    if (w->depth < JSON_MAX_DEPTH) {
        w->has_items[w->depth] = 0;
        w->depth++;
    } else {
        w->b->status = PQ_ERR_INTERNAL;
    }
}

static void close_container(json_writer *w, char c)
{
    if (w->depth <= 0) {
        w->b->status = PQ_ERR_INTERNAL;
        return;
    }
    w->depth--;
    if (w->has_items[w->depth])
        newline_indent(w);
    jputc(w->b, c);
    if (w->depth == 0 && w->pretty)
        jputc(w->b, '\n');
}

void json_obj_begin(json_writer *w)
{
    open_container(w, '{');
}
void json_obj_end(json_writer *w)
{
    close_container(w, '}');
}
void json_arr_begin(json_writer *w)
{
    open_container(w, '[');
}
void json_arr_end(json_writer *w)
{
    close_container(w, ']');
}

/* Bytes a key writes as they are: 0x20..0x7F but '"' and '\\' (not NUL: it ends the key). */
static const unsigned char KEY_PLAIN[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

void json_key(json_writer *w, const char *key)
{
    before_item(w);
    /* keys are short names that need no escaping: written in one append when so */
    char t[64];
    size_t n = 0;
    t[n++] = '"';
    unsigned char ch;
    while (n < sizeof t - 4 && KEY_PLAIN[ch = (unsigned char)key[n - 1]]) {
        t[n] = (char)ch;
        n++;
    }
    if (key[n - 1]) { /* long, or a byte to escape */
        jputc(w->b, '"');
        json_escape_into(w->b, key, strlen(key));
        n = 0;
    }
    t[n++] = '"';
    t[n++] = ':';
    if (w->pretty)
        t[n++] = ' ';
    jput(w->b, t, n);
    w->after_key = 1;
}

/* Moves N bytes by two overlapping fixed-size copies when N <= 32 (most pieces are short:
 * keys, numbers, names), else memcpy. */
static inline void move_short(char *d, const char *q, size_t n)
{
    if (n > 32) {
        memcpy(d, q, n);
    } else if (n >= 16) {
        memcpy(d, q, 16);
        memcpy(d + n - 16, q + n - 16, 16);
    } else if (n >= 8) {
        memcpy(d, q, 8);
        memcpy(d + n - 8, q + n - 8, 8);
    } else if (n >= 4) {
        memcpy(d, q, 4);
        memcpy(d + n - 4, q + n - 4, 4);
    } else if (n) {
        d[0] = q[0];
        d[n / 2] = q[n / 2];
        d[n - 1] = q[n - 1];
    }
}

/* The compact writer's fast path for a key (json_key_text's TEXT, N bytes) with room for
 * N + 1 + MORE bytes and no flush due: writes the comma (when the object has items) and the
 * key, and returns where the value goes (after_key stays clear: the value follows at once).
 * NULL when the general path must be taken: the same bytes. */
static inline char *compact_key(json_writer *w, const char *text, size_t n, size_t more)
{
    buf *b = w->b;
    if (w->pretty || w->after_key || w->depth <= 0 || n > 32 || n + 1 + more > b->cap - b->n ||
        b->status != PQ_OK || (b->sink && b->n + n + 1 + more >= BUF_FLUSH_BYTES))
        return NULL;
    unsigned char *has = &w->has_items[w->depth - 1];
    char *d = b->p + b->n;
    size_t c = *has; /* 0 or 1: a comma before the key */
    d[0] = ',';
    d += c;
    move_short(d, text, n);
    b->n += c + n;
    *has = 1;
    return d + n;
}

void json_key_text(json_writer *w, const char *text, size_t n)
{
    /* compact output with room: the comma and the key in one step (16,800 keys on the
     * H100 memory viewer) */
    if (compact_key(w, text, n, 0)) {
        w->after_key = 1;
        return;
    }
    before_item(w);
    jput(w->b, text, n);
    if (w->pretty)
        jputc(w->b, ' ');
    w->after_key = 1;
}

/* Length of a valid UTF-8 sequence starting at p (at most n bytes), or 0 if invalid. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
    unsigned c = p[0];
    size_t len;
    unsigned min;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    unsigned cp = c & (0x7F >> len);
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

/* Nonzero when a byte of the word X is below 0x20, at or above 0x80, '"' or '\\' (exact
 * for "any": a borrow only follows a byte that is itself special). */
static uint64_t special_bytes(uint64_t x)
{
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    uint64_t q = x ^ (ones * '"'), s = x ^ (ones * '\\');
    return (x | ((x - ones * 0x20) & ~x) | ((q - ones) & ~q) | ((s - ones) & ~s)) & high;
}

#ifdef __SSE2__
/* The offset of the first special byte (as special_bytes) of the 16 at P, or 16 if none: a
 * signed compare with 0x20 finds the control bytes and those >= 0x80 at once. */
static inline __m128i special16(const unsigned char *p)
{
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
    return _mm_or_si128(_mm_cmplt_epi8(x, _mm_set1_epi8(0x20)),
                        _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')),
                                     _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))));
}

static inline unsigned first_special16(const unsigned char *p)
{
    unsigned m = (unsigned)_mm_movemask_epi8(special16(p));
    return m ? (unsigned)__builtin_ctz(m) : 16;
}
#endif

/* The number of bytes from I on (I < N) that are printable ASCII other than '"' and '\\':
 * written as they are. */
static inline size_t plain_run(const unsigned char *p, size_t i, size_t n)
{
    /* 16 bytes at a time (SSE2; the H100 memory viewer's op names: 1.65 M instructions at
     * 8) or eight while no byte of the word is special */
    size_t j = i;
#ifdef __SSE2__
    /* 32 bytes a step while none is special (the long op names), then 16 */
    while (j + 32 <= n && !_mm_movemask_epi8(_mm_or_si128(special16(p + j), special16(p + j + 16))))
        j += 32;
    unsigned k = 16;
    while (j + 16 <= n && (k = first_special16(p + j)) == 16)
        j += 16;
    if (k < 16) {
        j += k;
    } else if (j < n && n >= 16 && first_special16(p + n - 16) == 16) {
        j = n; /* the last 16 bytes, over bytes already checked */
    }
#endif
    while (j + 8 <= n) {
        uint64_t x;
        memcpy(&x, p + j, 8);
        if (special_bytes(x))
            break;
        j += 8;
    }
    if (j < n && j >= 8 && n - j < 8) { /* the last word, over bytes already checked */
        uint64_t x;
        memcpy(&x, p + n - 8, 8);
        if (!special_bytes(x))
            j = n;
    }
    while (j < n && (unsigned char)(p[j] - 0x20) < 0x60 && p[j] != '"' && p[j] != '\\')
        j++;
    return j - i;
}

/* Whether all N bytes at P (N <= 32) are plain (as plain_run): two overlapping checks of
 * 16 or of 8 bytes (two 4-byte loads making one word under 8), no loop (the memory
 * viewer's instruction names). */
static inline int short_plain(const unsigned char *p, size_t n)
{
#ifdef __SSE2__
    if (n >= 16)
        return !_mm_movemask_epi8(_mm_or_si128(special16(p), special16(p + n - 16)));
#else
    if (n > 16)
        return plain_run(p, 0, n) == n;
#endif
    uint64_t x, y;
    if (n >= 8) {
        memcpy(&x, p, 8);
        memcpy(&y, p + n - 8, 8);
        return !(special_bytes(x) | special_bytes(y));
    }
    if (n >= 4) {
        uint32_t lo, hi;
        memcpy(&lo, p, 4);
        memcpy(&hi, p + n - 4, 4);
        return !special_bytes(lo | (uint64_t)hi << 32);
    }
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)(p[i] - 0x20) >= 0x60 || p[i] == '"' || p[i] == '\\')
            return 0;
    return 1;
}

void json_escape_into(buf *b, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, run = 0;
    while (i < n) {
        size_t j = i + plain_run(p, i, n);
        run += j - i;
        i = j;
        if (i >= n)
            break;
        unsigned char c = p[i];
        if (run)
            jput(b, p + i - run, run);
        run = 0;
        if (c == '"' || c == '\\') {
            char esc[2] = {'\\', (char)c};
            jput(b, esc, 2);
            i++;
        } else if (c < 0x20) {
            switch (c) {
            case '\n':
                jput(b, "\\n", 2);
                break;
            case '\t':
                jput(b, "\\t", 2);
                break;
            case '\r':
                jput(b, "\\r", 2);
                break;
            default:
                buf_printf(b, "\\u%04x", c);
            }
            i++;
        } else {
            size_t len = utf8_len(p + i, n - i);
            if (len == 0) {
                buf_puts(b, "\\ufffd");
                i++;
            } else {
                jput(b, p + i, len);
                i += len;
            }
        }
    }
    if (run)
        jput(b, p + n - run, run);
}

/* The N bytes at P in quotes at D (room known), counted in B. */
static inline void put_quoted(buf *b, char *d, const char *p, size_t n)
{
    d[0] = '"';
    move_short(d + 1, p, n);
    d[n + 1] = '"';
    b->n += n + 2;
}

void json_str(json_writer *w, const char *p, size_t n)
{
    /* compact output with room: the separator, then the plain bytes from the start (most
     * strings are all plain: then the whole string) in one step; the rest escaped */
    char *d = compact_item(w, n + 2);
    if (d) {
        const unsigned char *u = (const unsigned char *)p;
        size_t k = n <= 32 && short_plain(u, n) ? n : n ? plain_run(u, 0, n) : 0;
        d[0] = '"';
        move_short(d + 1, p, k);
        if (k == n) {
            d[n + 1] = '"';
            w->b->n += n + 2;
            return;
        }
        w->b->n += k + 1;
        json_escape_into(w->b, p + k, n - k);
        jputc(w->b, '"');
        return;
    }
    before_item(w);
    jputc(w->b, '"');
    json_escape_into(w->b, p, n);
    jputc(w->b, '"');
}

void json_str_escaped(json_writer *w, const char *p, size_t n)
{
    char *d = compact_item(w, n + 2);
    if (d) {
        put_quoted(w->b, d, p, n);
        return;
    }
    before_item(w);
    jputc(w->b, '"');
    jput(w->b, p, n);
    jputc(w->b, '"');
}

void json_cstr(json_writer *w, const char *s)
{
    json_str(w, s, strlen(s));
}

/* Decimal digits of V without printf (these are the hot values of large documents). */
/* "00" to "99": decimal digits two at a time. */
static const char PAIRS[201] = "00010203040506070809101112131415161718192021222324"
                               "25262728293031323334353637383940414243444546474849"
                               "50515253545556575859606162636465666768697071727374"
                               "75767778798081828384858687888990919293949596979899";

/* The number of decimal digits of V (1 for 0). */
static inline int u64_digits(uint64_t v)
{
    static const uint64_t P[20] = {1ull,
                                   10ull,
                                   100ull,
                                   1000ull,
                                   10000ull,
                                   100000ull,
                                   1000000ull,
                                   10000000ull,
                                   100000000ull,
                                   1000000000ull,
                                   10000000000ull,
                                   100000000000ull,
                                   1000000000000ull,
                                   10000000000000ull,
                                   100000000000000ull,
                                   1000000000000000ull,
                                   10000000000000000ull,
                                   100000000000000000ull,
                                   1000000000000000000ull,
                                   10000000000000000000ull};
    v |= 1; /* 0 has one digit; an odd V has the count of V - 1 (10^k is even) */
    int t = ((64 - __builtin_clzll(v)) * 1233) >> 12; /* t or t + 1 digits */
    return t + (v >= P[t]);
}

/* The eight digits of V (< 10^8) by fixed point, not divisions: F = V * ceil(2^48 / 10^6)
 * is V / 10^6 with 48 fraction bits, high by under V * 0.29 < 2^25 units, so its integer
 * part is the first two digits; each fraction times 100 gives the next two, the error
 * times 100 staying under the margin (2^48 * 10^-6 at the first step, then 100 times
 * larger with it). Checked on all 10^8 values by the unit tests. */
static inline void put8(char *d, uint32_t v)
{
    const uint64_t mask = (1ull << 48) - 1;
    uint64_t f = (uint64_t)v * 281474977u;
    memcpy(d, PAIRS + 2 * (f >> 48), 2);
    f = (f & mask) * 100;
    memcpy(d + 2, PAIRS + 2 * (f >> 48), 2);
    f = (f & mask) * 100;
    memcpy(d + 4, PAIRS + 2 * (f >> 48), 2);
    f = (f & mask) * 100;
    memcpy(d + 6, PAIRS + 2 * (f >> 48), 2);
}

/* Writes the decimal digits of V (with '-' first when NEG) at D; returns their count. The
 * count known first (no staging copy), then from the end eight digits a step while over
 * 32 bits, then two. */
#if defined(__GNUC__)
__attribute__((always_inline)) /* into json_key_int and json_int: a call costs a fifth */
#endif
static inline size_t
write_u64(char *d, uint64_t v, int neg)
{
    d[0] = '-';
    d += neg;
    size_t nd = (size_t)u64_digits(v);
    char *e = d + nd;
    while (v >= 100000000) {
        e -= 8;
        put8(e, (uint32_t)(v % 100000000));
        v /= 100000000;
    }
    uint32_t u = (uint32_t)v;
    while (u >= 100) {
        e -= 2;
        memcpy(e, PAIRS + 2 * (u % 100), 2);
        u /= 100;
    }
    if (u >= 10)
        memcpy(e - 2, PAIRS + 2 * u, 2);
    else
        e[-1] = (char)('0' + u);
    return nd + (size_t)neg;
}

static void put_u64(buf *b, uint64_t v, int neg)
{
    char tmp[24];
    jput(b, tmp, write_u64(tmp, v, neg));
}

void json_put_i64(buf *b, int64_t v)
{
    put_u64(b, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, v < 0);
}

void json_int(json_writer *w, int64_t v)
{
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    char *d = compact_item(w, 21);
    if (d) {
        w->b->n += write_u64(d, u, v < 0);
        return;
    }
    before_item(w);
    put_u64(w->b, u, v < 0);
}

void json_uint(json_writer *w, uint64_t v)
{
    char *d = compact_item(w, 21);
    if (d) {
        w->b->n += write_u64(d, v, 0);
        return;
    }
    before_item(w);
    put_u64(w->b, v, 0);
}

/* Fast path for the common case of a value with at most 6 decimals (log values like
 * 1021.169, MB of whole bytes): prints exactly what %.15g prints for it, without printf.
 * (double)k / scale == v means the decimal k/scale reads back as v (both operands exact,
 * division correctly rounded), and with under 15 significant digits %.15g prints that same
 * decimal; the range excludes %g's exponent forms. */
static int format_decimal_fast(char *out, size_t cap, double v)
{
    static const double SCALES[] = {1, 1e3, 1e6, 1e9};
    static const int DIGITS[] = {0, 3, 6, 9};
    double a = fabs(v);
    if (cap < 32 || !(a < 1e9) || (a != 0 && a < 1e-4) || (v == 0 && signbit(v)))
        return -1;
    for (int s = 0; s < 4; s++) {
        if (s == 3 && !(a < 1e5)) /* keep k below 1e14: fewer than 15 significant digits */
            break;
        double x = a * SCALES[s];
        long long k = llround(x);
        if ((double)k / SCALES[s] != a)
            continue;
        char tmp[32];
        int n = 0;
        int d = DIGITS[s];
        long long ip = k, fp = 0, p10 = 1;
        for (int i = 0; i < d; i++)
            p10 *= 10;
        ip = k / p10;
        fp = k % p10;
        /* integer part, reversed */
        do {
            tmp[n++] = (char)('0' + ip % 10);
            ip /= 10;
        } while (ip);
        int o = 0;
        if (v < 0)
            out[o++] = '-';
        while (n)
            out[o++] = tmp[--n];
        if (fp) {
            char fr[12];
            for (int i = d - 1; i >= 0; i--) {
                fr[i] = (char)('0' + fp % 10);
                fp /= 10;
            }
            int last = d;
            while (last > 0 && fr[last - 1] == '0')
                last--;
            out[o++] = '.';
            for (int i = 0; i < last; i++)
                out[o++] = fr[i];
        }
        out[o] = '\0';
        return o;
    }
    return -1;
}

/* Exact %.15g / %.17g of a dyadic value, without printf (json_format_double's rule: the
 * 15-digit form when it reads back exactly, else 17 digits). A finite double is M * 2^E
 * (M < 2^53); without its trailing zero bits it is m * 2^e. When e is in [-27, 64], its
 * exact decimal expansion is the integer N = m * 5^-e (e < 0) or m * 2^e (e >= 0) over
 * 10^k, k = max(0, -e), which fits in 128 bits. The first P digits of N are rounded half
 * to even (glibc's printf rounds the exact value so), and the 15-digit form reads back as
 * v exactly when its distance from N is under half the gap to the neighbouring double, or
 * equal to it with M even (strtod's tie rule). Sizes over 2^20 (MiB) and byte counts as
 * doubles are all such values. Returns -1 for others. */
#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 json_u128;

enum { DYADIC_MAX_K = 27 };

/* 10^0 .. 10^38 (10^38 < 2^128). */
static const json_u128 P10[39] = {
    (json_u128)1ull,
    (json_u128)10ull,
    (json_u128)100ull,
    (json_u128)1000ull,
    (json_u128)10000ull,
    (json_u128)100000ull,
    (json_u128)1000000ull,
    (json_u128)10000000ull,
    (json_u128)100000000ull,
    (json_u128)1000000000ull,
    (json_u128)10000000000ull,
    (json_u128)100000000000ull,
    (json_u128)1000000000000ull,
    (json_u128)10000000000000ull,
    (json_u128)100000000000000ull,
    (json_u128)1000000000000000ull,
    (json_u128)10000000000000000ull,
    (json_u128)100000000000000000ull,
    (json_u128)1000000000000000000ull,
    (json_u128)10000000000000000000ull,
    (json_u128)10000000000000000000ull * 10ull,
    (json_u128)10000000000000000000ull * 100ull,
    (json_u128)10000000000000000000ull * 1000ull,
    (json_u128)10000000000000000000ull * 10000ull,
    (json_u128)10000000000000000000ull * 100000ull,
    (json_u128)10000000000000000000ull * 1000000ull,
    (json_u128)10000000000000000000ull * 10000000ull,
    (json_u128)10000000000000000000ull * 100000000ull,
    (json_u128)10000000000000000000ull * 1000000000ull,
    (json_u128)10000000000000000000ull * 10000000000ull,
    (json_u128)10000000000000000000ull * 100000000000ull,
    (json_u128)10000000000000000000ull * 1000000000000ull,
    (json_u128)10000000000000000000ull * 10000000000000ull,
    (json_u128)10000000000000000000ull * 100000000000000ull,
    (json_u128)10000000000000000000ull * 1000000000000000ull,
    (json_u128)10000000000000000000ull * 10000000000000000ull,
    (json_u128)10000000000000000000ull * 100000000000000000ull,
    (json_u128)10000000000000000000ull * 1000000000000000000ull,
    (json_u128)10000000000000000000ull * 10000000000000000000ull,
};

static int u128_bits(json_u128 x)
{
    uint64_t hi = (uint64_t)(x >> 64), lo = (uint64_t)x;
    return hi ? 128 - __builtin_clzll(hi) : lo ? 64 - __builtin_clzll(lo) : 0;
}

/* The P decimal digits of Q (Q < 10^P) into D: eight at a time, then two. */
static inline void put_digits(uint64_t q, int p, char *d)
{
    int i = p;
    for (; i >= 8; i -= 8, q /= 100000000)
        put8(d + i - 8, (uint32_t)(q % 100000000));
    uint32_t u = (uint32_t)q;
    for (; i >= 2; i -= 2, u /= 100)
        memcpy(d + i - 2, PAIRS + 2 * (u % 100), 2);
    if (i)
        d[0] = (char)('0' + u);
}

/* Q (P digits, truncated) rounded half to even by REST of UNIT (a power of ten >= 10) below
 * its last digit, into *QOUT; *X (the decimal exponent of the first digit) is incremented on
 * a carry out. Returns |rounded - exact| in the units of REST. */
static json_u128 round_rest(uint64_t q, json_u128 rest, json_u128 unit, int p, uint64_t *qout,
                            int *x, int *up)
{
    json_u128 diff = rest;
    *up = 0;
    if (rest > unit / 2 || (rest == unit / 2 && (q & 1))) {
        *up = 1;
        q++;
        diff = unit - rest;
        if (q == (uint64_t)P10[p]) {
            q = (uint64_t)P10[p - 1];
            ++*x;
        }
    }
    *qout = q;
    return diff;
}

/* N (nonzero, ND digits) rounded half to even to P significant digits, as the integer *Q of
 * P digits; *X (the decimal exponent of the first digit) is incremented on a carry out.
 * Returns |rounded - N| in units of N's last digit. */
static json_u128 round_to(json_u128 n, int nd, int p, uint64_t *qout, int *x, int *up)
{
    if (nd <= p) {
        *up = 0;
        *qout = (uint64_t)n * (uint64_t)P10[p - nd]; /* exact: the digits, zero padded */
        return 0;
    }
    json_u128 unit = P10[nd - p], qq = n / unit;
    return round_rest((uint64_t)qq, n - qq * unit, unit, p, qout, x, up);
}

/* Writes the P-digit %g form of digits D (ND of them, ND <= P) with decimal exponent X
 * (the pieces moved inline: no memcpy call). */
static int put_g(char *out, int neg, const char *d, int nd, int x, int p)
{
    while (nd > 1 && d[nd - 1] == '0')
        nd--;
    int o = 0;
    if (neg)
        out[o++] = '-';
    if (x < -4 || x >= p) {
        out[o++] = d[0];
        if (nd > 1) {
            out[o++] = '.';
            move_short(out + o, d + 1, (size_t)nd - 1);
            o += nd - 1;
        }
        out[o++] = 'e';
        out[o++] = x < 0 ? '-' : '+';
        int ax = x < 0 ? -x : x;
        if (ax >= 100)
            out[o++] = (char)('0' + ax / 100);
        out[o++] = (char)('0' + ax / 10 % 10);
        out[o++] = (char)('0' + ax % 10);
    } else if (x >= 0) {
        if (x < nd) { /* the integer part is all digits: one copy */
            move_short(out + o, d, (size_t)x + 1);
            o += x + 1;
        } else {
            for (int i = 0; i <= x; i++)
                out[o++] = i < nd ? d[i] : '0';
        }
        if (nd > x + 1) {
            out[o++] = '.';
            move_short(out + o, d + x + 1, (size_t)(nd - x - 1));
            o += nd - x - 1;
        }
    } else {
        out[o++] = '0';
        out[o++] = '.';
        for (int i = 0; i < -x - 1; i++)
            out[o++] = '0';
        move_short(out + o, d, (size_t)nd);
        o += nd;
    }
    out[o] = '\0';
    return o;
}

static int format_dyadic(char *out, size_t cap, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int bexp = (int)(bits >> 52 & 0x7ff);
    if (cap < 32 || bexp == 0 || bexp == 0x7ff)
        return -1; /* zero, subnormal, infinite, NaN */
    uint64_t mant = (bits & ((1ull << 52) - 1)) | (1ull << 52);
    int e2 = bexp - 1075; /* v = mant * 2^e2 */
    int tz = __builtin_ctzll(mant);
    uint64_t m = mant >> tz;
    int e = e2 + tz, k = e < 0 ? -e : 0;
    if (e < -DYADIC_MAX_K || e > 64)
        return -1;
    static const uint64_t POW5[DYADIC_MAX_K + 1] = {
        1ull,
        5ull,
        25ull,
        125ull,
        625ull,
        3125ull,
        15625ull,
        78125ull,
        390625ull,
        1953125ull,
        9765625ull,
        48828125ull,
        244140625ull,
        1220703125ull,
        6103515625ull,
        30517578125ull,
        152587890625ull,
        762939453125ull,
        3814697265625ull,
        19073486328125ull,
        95367431640625ull,
        476837158203125ull,
        2384185791015625ull,
        11920928955078125ull,
        59604644775390625ull,
        298023223876953125ull,
        1490116119384765625ull,
        7450580596923828125ull,
    };
    json_u128 n = m, g = POW5[k]; /* g = 5^k */
    if (e >= 0)
        n <<= e;
    else
        n *= g;
    int t = (u128_bits(n) * 1233) >> 12; /* digits: t or t + 1 */
    int nd = t + (n >= P10[t]);
    char d[20];
    if (nd <= 15) { /* exact in 15 digits (most MiB values): no rounding, 64-bit digits */
        put_digits((uint64_t)n, nd, d);
        return put_g(out, v < 0, d, nd, nd - 1 - k, 15);
    }
    int x15 = nd - 1 - k, up;
    uint64_t q, q17 = 0;
    json_u128 r17 = 0, unit17 = 0, diff;
    if (nd > 17) {
        /* one 128-bit division serves both roundings: N's 17 leading digits and the rest
         * (most MiB values need the 17-digit form: the H100 viewer's 3,569 of 3,786) */
        int j = nd - 17;
        unit17 = P10[j];
        /* N = m * 5^k over 10^j = 2^j * 5^j: with j <= k the quotient is m * 5^(k-j) shifted
         * right by j (no 128-bit division: the H100's MiB values have k = 20, j <= 5) */
        json_u128 qq = e < 0 && j <= k ? ((json_u128)m * POW5[k - j]) >> j : n / unit17;
        q17 = (uint64_t)qq;
        r17 = n - qq * unit17;
        diff = round_rest(q17 / 100, (json_u128)(q17 % 100) * unit17 + r17, unit17 * 100, 15, &q,
                          &x15, &up);
    } else {
        diff = round_to(n, nd, 15, &q, &x15, &up);
    }
    int ok = diff == 0;
    if (!ok) {
        /* Half the gap above v is 2^(e2-1) = g * 2^(e2+k-1) units of 10^-k; below v it is
         * half that when mant is 2^52 (the next binade down is finer). */
        int h = e2 + k - 1 - (!up && mant == (1ull << 52) && bexp > 1);
        int c; /* sign of diff - g * 2^h */
        if (h >= 0) {
            json_u128 rhs = g << h;
            c = diff < rhs ? -1 : diff > rhs;
        } else if (u128_bits(diff) - h > 120) { /* diff * 2^-h >= 2^120 > g */
            c = 1;
        } else {
            json_u128 lhs = diff << -h;
            c = lhs < g ? -1 : lhs > g;
        }
        ok = c < 0 || (c == 0 && !(mant & 1));
    }
    if (ok) {
        put_digits(q, 15, d);
        return put_g(out, v < 0, d, 15, x15, 15);
    }
    int x17 = nd - 1 - k;
    if (nd > 17)
        round_rest(q17, r17, unit17, 17, &q, &x17, &up);
    else
        round_to(n, nd, 17, &q, &x17, &up);
    put_digits(q, 17, d);
    return put_g(out, v < 0, d, 17, x17, 17);
}

#if defined(__GNUC__) && LDBL_MANT_DIG >= 64
/*
 * Any other double whose %.15g / %.17g needs no more than one long double (64-bit
 * significand) product: v * 10^s with |s| <= 27 (10^27 = 2^27 * 5^27 is exact in 64 bits),
 * so values from about 1e-12 to 1e42. The product's error is under 2^-64 of it: under
 * 0.0055 of a unit at 17 digits, 0.000055 at 15. Rounding half to even then needs only
 * the fraction's side of one half; a fraction within twice that error of one half (about
 * 1 value in 100 at 17 digits) is left to printf. Whether the 15 digits read back is
 * answered as strtod answers it when the decimal's exponent allows one exact IEEE product
 * or quotient (digits < 2^53 times or over 10^j, j <= 22: correctly rounded, Clinger's
 * fast path). XProf's times and rates (hlo_stats, op_profile) take this path; printf +
 * strtod cost ~9,000 instructions a value. Returns -1 when it cannot answer.
 */
static const long double LP10[28] = {
    1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,
    1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L,
    1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L,
};

/* A (positive, normal) rounded half to even to P (15 or 17) significant digits: *Q (P digits)
 * and *X (the decimal exponent of the first digit). 0 when the product cannot decide it. */
static int round_ldbl(double a, int e2, int p, uint64_t *q, int *x)
{
    /* floor(e2 * log10(2)), possibly one too low or high: corrected below */
    int xe = e2 >= 0 ? (e2 * 1233) >> 12 : -((-e2 * 1233 + 4095) >> 12);
    long double err = p == 17 ? 0.011L : 0.00011L;
    for (int tries = 0; tries < 3; tries++) {
        int s = p - 1 - xe;
        if (s > 27 || s < -27)
            return 0;
        long double y = s >= 0 ? (long double)a * LP10[s] : (long double)a / LP10[-s];
        if (y < LP10[p - 1]) {
            xe--;
            continue;
        }
        if (y >= LP10[p]) {
            xe++;
            continue;
        }
        uint64_t f = (uint64_t)y;
        long double frac = y - (long double)f; /* exact: f <= y < 2 f */
        if (frac > 0.5L - err && frac < 0.5L + err)
            return 0;
        if (frac > 0.5L)
            f++;
        if (f == (uint64_t)P10[p]) {
            f = (uint64_t)P10[p - 1];
            xe++;
        }
        *q = f;
        *x = xe;
        return 1;
    }
    return 0;
}

static int format_ldbl(char *out, size_t cap, double v)
{
    static const double D10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int bexp = (int)(bits >> 52 & 0x7ff);
    if (cap < 32 || bexp == 0 || bexp == 0x7ff)
        return -1;
    double a = fabs(v);
    uint64_t q;
    int x;
    char d[20];
    if (!round_ldbl(a, bexp - 1023, 15, &q, &x))
        return -1;
    int j = x - 14;
    if (j > 22 || j < -22)
        return -1;
    double back = j >= 0 ? (double)q * D10[j] : (double)q / D10[-j];
    if (back == a) {
        put_digits(q, 15, d);
        return put_g(out, v < 0, d, 15, x, 15);
    }
    if (!round_ldbl(a, bexp - 1023, 17, &q, &x))
        return -1;
    put_digits(q, 17, d);
    return put_g(out, v < 0, d, 17, x, 17);
}
#else
static int format_ldbl(char *out, size_t cap, double v)
{
    (void)out, (void)cap, (void)v;
    return -1;
}
#endif
#else
static int format_dyadic(char *out, size_t cap, double v)
{
    (void)out, (void)cap, (void)v;
    return -1;
}

static int format_ldbl(char *out, size_t cap, double v)
{
    (void)out, (void)cap, (void)v;
    return -1;
}
#endif

int json_format_double(char *out, size_t cap, double v)
{
    int fast = format_dyadic(out, cap, v);
    if (fast >= 0)
        return fast;
    fast = format_decimal_fast(out, cap, v);
    if (fast >= 0)
        return fast;
    fast = format_ldbl(out, cap, v);
    if (fast >= 0)
        return fast;
    int k = snprintf(out, cap, "%.15g", v);
    if (strtod(out, NULL) != v)
        k = snprintf(out, cap, "%.17g", v);
    return k;
}

void json_double(json_writer *w, double v)
{
    if (!isfinite(v)) {
        json_null(w);
        return;
    }
    char tmp[40];
    int k = json_format_double(tmp, sizeof tmp, v);
    before_item(w);
    jput(w->b, tmp, (size_t)k);
}

void json_raw(json_writer *w, const char *p, size_t n)
{
    /* compact output with room: the separator and the value in one step (the memory
     * viewer's 17-digit MiB values and its objects' texts) */
    char *d = compact_item(w, n);
    if (d) {
        move_short(d, p, n);
        w->b->n += n;
        return;
    }
    before_item(w);
    jput(w->b, p, n);
}

void json_key_int(json_writer *w, const char *key, size_t kn, int64_t v)
{
    char *d = compact_key(w, key, kn, 21);
    if (d) {
        w->b->n += write_u64(d, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, v < 0);
        return;
    }
    json_key_text(w, key, kn);
    json_int(w, v);
}

void json_key_str(json_writer *w, const char *key, size_t kn, const char *p, size_t n)
{
    if (compact_key(w, key, kn, n + 2)) {
        w->after_key = 1;
        json_str(w, p, n); /* its fast path: room was checked */
        return;
    }
    json_key_text(w, key, kn);
    json_str(w, p, n);
}

void json_key_str_escaped(json_writer *w, const char *key, size_t kn, const char *p, size_t n)
{
    char *d = compact_key(w, key, kn, n + 2);
    if (d) {
        put_quoted(w->b, d, p, n);
        return;
    }
    json_key_text(w, key, kn);
    json_str_escaped(w, p, n);
}

void json_bool(json_writer *w, int v)
{
    before_item(w);
    buf_puts(w->b, v ? "true" : "false");
}

void json_null(json_writer *w)
{
    before_item(w);
    buf_puts(w->b, "null");
}
