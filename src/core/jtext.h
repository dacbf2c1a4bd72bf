/* jtext.h - pieces of JSON text shared by profq's JSON readers (core/jval.c,
 * formats/trace_json.c): the one-letter escapes, the four hex digits of a
 * \u escape (with surrogate pairs) and the UTF-8 of a code point; and by its writers
 * (core/jval.c's jv_write of a parsed tree, render/summary_json.c's streaming writer): a
 * string and a float as Python's json.dumps writes them. */
#ifndef PQ_CORE_JTEXT_H
#define PQ_CORE_JTEXT_H
#include "buf.h"

#include <stddef.h>

/* Python repr of a float ("135.0", "1e+16", "1.5e-05") into out; returns the length
 * (core/jval.c). */
int py_float_repr(char *out, size_t cap, double v);
/* S[0..N) as a JSON string as json.dumps writes it (ASCII, quotes included; core/jval.c). */
void jv_write_str(buf *b, const char *s, size_t n);

/* The value of the four hex digits at P into *OUT: 0, or -1 when one is not a hex digit. */
static inline int json_hex4(const char *p, unsigned *out)
{
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        char c = p[k];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

/* Writes the UTF-8 of code point CP (at most 0x10FFFF) at O; returns its length (1..4). */
static inline size_t json_put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* The byte a one-letter escape \E stands for (", \\, /, b, f, n, r, t), or -1. */
static inline int json_simple_escape(char e)
{
    switch (e) {
    case '"':
    case '\\':
    case '/':
        return e;
    case 'b':
        return '\b';
    case 'f':
        return '\f';
    case 'n':
        return '\n';
    case 'r':
        return '\r';
    case 't':
        return '\t';
    default:
        return -1;
    }
}

/* Decodes the \u escape whose four hex digits start at S (input ends at END): a high
 * surrogate followed by a \u low surrogate is one code point, a lone surrogate is U+FFFD.
 * Writes its UTF-8 at O (at most 4 bytes, never more than the input it consumes) and its
 * length in *N; returns the input bytes consumed after "\u" (4 or 10), -1 when the four hex
 * digits are not there. */
static inline int json_unicode_escape(const char *s, const char *end, char *o, size_t *n)
{
    unsigned cp, lo;
    if (end - s < 4 || json_hex4(s, &cp) != 0)
        return -1;
    int used = 4;
    if (cp >= 0xD800 && cp < 0xDC00 && end - s >= 10 && s[4] == '\\' && s[5] == 'u' &&
        json_hex4(s + 6, &lo) == 0 && lo >= 0xDC00 && lo < 0xE000) {
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        used = 10;
    } else if (cp >= 0xD800 && cp < 0xE000) {
        cp = 0xFFFD;
    }
    *n = json_put_utf8(o, cp);
    return used;
}

#endif
