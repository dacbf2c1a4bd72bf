/* json.c - deterministic JSON writer; see json.h. */
#include "json.h"
#include "json_digits.h"

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

void json_put(buf *b, const void *p, size_t n)
{
    jput(b, p, n);
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
