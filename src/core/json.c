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
    buf_putc(w->b, '\n');
    for (int i = 0; i < w->depth; i++)
        buf_put(w->b, "  ", 2);
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
        unsigned char c = p[i];
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
            i++;
            run++;
            continue;
        }
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

/* Decimal digits of V into the END of out[24]; returns the start. No printf: renderers
 * write millions of numbers (memory viewer timelines), and vfprintf dominated them. */
static char *format_i64(char out[24], int64_t v)
{
    char *p = out + 24;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    return p;
}

void json_int(json_writer *w, int64_t v)
{
    before_item(w);
    char t[24];
    char *p = format_i64(t, v);
    buf_put(w->b, p, (size_t)(t + 24 - p));
}

void json_uint(json_writer *w, uint64_t v)
{
    before_item(w);
    buf_printf(w->b, "%llu", (unsigned long long)v);
}

int json_format_double(char *out, size_t cap, double v)
{
    /* Integral values below 1e15 print as their digits, exactly what "%.15g" gives. */
    if (v == v && v > -1e15 && v < 1e15 && v == (double)(int64_t)v && !(v == 0 && signbit(v)) &&
        cap >= 24) {
        char t[24];
        char *p = format_i64(t, (int64_t)v);
        size_t n = (size_t)(t + 24 - p);
        memcpy(out, p, n);
        out[n] = 0;
        return (int)n;
    }
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
