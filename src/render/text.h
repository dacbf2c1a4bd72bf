/* text.h - what the text renderers share to fit a terminal (issue 16 items 10, 11): the
 * width of UTF-8 text in columns, names shortened in the middle with "…", and figures with
 * the unit a person reads them in (µs/ms/s, B/KiB/MiB/GiB). Formatting only. */
#ifndef PQ_RENDER_TEXT_H
#define PQ_RENDER_TEXT_H
#include "core/buf.h"
#include "core/err.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Lines of the default text output fit this many columns (without --wide). */
#define TEXT_COLS 120

/* Columns of the UTF-8 text S[0..N): one per code point. */
static inline size_t text_cols(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

/* Byte offset of code point K of S[0..N) (N when past the end). */
static inline size_t text_at(const char *s, size_t n, size_t k)
{
    size_t i = 0;
    for (size_t c = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80 && c++ == k)
            return i;
    return n;
}

/* S[0..N) in at most W columns, the middle replaced by "…" when longer (whole when W is 0),
 * then padded with spaces to W columns when PAD. */
static inline void text_fit(buf *b, const char *s, size_t n, size_t w, int pad)
{
    size_t c = text_cols(s, n);
    if (w && c > w && w >= 3) {
        size_t head = w / 2, tail = w - 1 - head;
        buf_put(b, s, text_at(s, n, head));
        buf_puts(b, "\xE2\x80\xA6"); /* … */
        size_t from = text_at(s, n, c - tail);
        buf_put(b, s + from, n - from);
        c = w;
    } else {
        buf_put(b, s, n);
    }
    for (; pad && c < w; c++)
        buf_putc(b, ' ');
}

/* S[0..N) shortened as text_fit does (no padding) into OUT (CAP bytes, NUL-terminated). */
static inline size_t text_fit_str(char *out, size_t cap, const char *s, size_t n, size_t w)
{
    size_t c = text_cols(s, n), k = 0;
    if (w && c > w && w >= 3) {
        size_t h = text_at(s, n, w / 2), from = text_at(s, n, c - (w - 1 - w / 2));
        k = (size_t)snprintf(out, cap, "%.*s\xE2\x80\xA6%.*s", (int)h, s, (int)(n - from),
                             s + from);
    } else {
        k = (size_t)snprintf(out, cap, "%.*s", (int)n, s);
    }
    return k < cap ? k : cap - 1;
}

/* S (NUL-terminated) as lines of at most W columns, broken at spaces (a word longer than a
 * line stays whole), each line after the first opening with PREFIX. */
static inline void text_wrap(buf *b, const char *s, size_t w, const char *prefix)
{
    size_t col = 0, pc = text_cols(prefix, strlen(prefix));
    while (*s) {
        const char *e = strchr(s, ' ');
        size_t n = e ? (size_t)(e - s) : strlen(s), c = text_cols(s, n);
        if (col && col + 1 + c > w) {
            buf_putc(b, '\n');
            buf_puts(b, prefix);
            col = pc;
        } else if (col) {
            buf_putc(b, ' ');
            col++;
        }
        buf_put(b, s, n);
        col += c;
        s += n;
        while (*s == ' ')
            s++;
    }
}

/* PS picoseconds as "12.345 ms": ns below 1 µs, µs below 1 ms, ms below 1 s, else s. */
static inline const char *text_time(char t[32], double ps)
{
    double a = ps < 0 ? -ps : ps;
    if (a < 1e6)
        snprintf(t, 32, a < 1e3 ? "%.0f ps" : "%.3f ns", a < 1e3 ? ps : ps / 1e3);
    else if (a < 1e9)
        snprintf(t, 32, "%.3f \xC2\xB5s", ps / 1e6);
    else if (a < 1e12)
        snprintf(t, 32, "%.3f ms", ps / 1e9);
    else
        snprintf(t, 32, "%.3f s", ps / 1e12);
    return t;
}

/* BYTES as "1.500 GiB": B below 1 KiB, then KiB, MiB, GiB, TiB by size. */
static inline const char *text_bytes(char t[32], double bytes)
{
    static const char *const unit[] = {"KiB", "MiB", "GiB", "TiB"};
    double a = bytes < 0 ? -bytes : bytes;
    if (a < 1024) {
        snprintf(t, 32, "%.0f B", bytes);
        return t;
    }
    int u = 0;
    for (bytes /= 1024, a /= 1024; a >= 1024 && u < 3; u++, a /= 1024)
        bytes /= 1024;
    snprintf(t, 32, "%.3f %s", bytes, unit[u]);
    return t;
}

#endif
