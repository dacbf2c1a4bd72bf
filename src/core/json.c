/* json.c - deterministic JSON writer; see json.h. */
#include "json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    buf_put(w->b, SPACES, n);
}

/* Called before every value or key: writes the separating comma and indentation. */
static void before_item(json_writer *w)
{
    if (w->after_key) {
        w->after_key = 0;
        return;
    }
    if (w->depth > 0) {
        if (w->has_items[w->depth - 1])
            buf_putc(w->b, ',');
        w->has_items[w->depth - 1] = 1;
        newline_indent(w);
    }
}

static void open_container(json_writer *w, char c)
{
    before_item(w);
    buf_putc(w->b, c);
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
    buf_putc(w->b, c);
    if (w->depth == 0 && w->pretty)
        buf_putc(w->b, '\n');
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

void json_key(json_writer *w, const char *key)
{
    before_item(w);
    buf_putc(w->b, '"');
    json_escape_into(w->b, key, strlen(key));
    buf_put(w->b, w->pretty ? "\": " : "\":", w->pretty ? 3 : 2);
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

void json_escape_into(buf *b, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, run = 0;
    while (i < n) {
        /* the common case: a stretch of printable ASCII other than '"' and '\\' */
        size_t j = i;
        while (j < n && (unsigned char)(p[j] - 0x20) < 0x60 && p[j] != '"' && p[j] != '\\')
            j++;
        run += j - i;
        i = j;
        if (i >= n)
            break;
        unsigned char c = p[i];
        if (run)
            buf_put(b, p + i - run, run);
        run = 0;
        if (c == '"' || c == '\\') {
            char esc[2] = {'\\', (char)c};
            buf_put(b, esc, 2);
            i++;
        } else if (c < 0x20) {
            switch (c) {
            case '\n':
                buf_put(b, "\\n", 2);
                break;
            case '\t':
                buf_put(b, "\\t", 2);
                break;
            case '\r':
                buf_put(b, "\\r", 2);
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
                buf_put(b, p + i, len);
                i += len;
            }
        }
    }
    if (run)
        buf_put(b, p + n - run, run);
}

void json_str(json_writer *w, const char *p, size_t n)
{
    before_item(w);
    buf_putc(w->b, '"');
    json_escape_into(w->b, p, n);
    buf_putc(w->b, '"');
}

void json_cstr(json_writer *w, const char *s)
{
    json_str(w, s, strlen(s));
}

/* Decimal digits of V without printf (these are the hot values of large documents). */
static void put_u64(buf *b, uint64_t v, int neg)
{
    char tmp[24];
    int i = sizeof tmp;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    if (neg)
        tmp[--i] = '-';
    buf_put(b, tmp + i, sizeof tmp - (size_t)i);
}

void json_int(json_writer *w, int64_t v)
{
    before_item(w);
    put_u64(w->b, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, v < 0);
}

void json_uint(json_writer *w, uint64_t v)
{
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

int json_format_double(char *out, size_t cap, double v)
{
    int fast = format_decimal_fast(out, cap, v);
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
    buf_put(w->b, tmp, (size_t)k);
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
