/* trace_json_lex.h - the tokenizer of the trace-event JSON reader: whitespace, strings,
 * keys, numbers and times, skipping values. Its functions are static (most inline) and this
 * header is included by trace_json.c only, so that the event loop and the helpers it calls
 * per byte form one translation unit and inline as before the split (the reader is
 * speed-critical). Not here: the event fields (trace_json.c), the input (trace_json_input.c). */
#ifndef PQ_FORMATS_TRACE_JSON_LEX_H
#define PQ_FORMATS_TRACE_JSON_LEX_H
#include "trace_json_reader.h"

#include "core/jtext.h"
#include "formats/pbwire.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static rres fail(reader *r, const char *at, const char *what)
{
    r->err_at = at;
    r->what = what;
    return TJR_ERR;
}

static rres need(reader *r, const char *at, const char *what)
{
    return r->more ? TJR_MORE : fail(r, at, what);
}

/* JSON's four whitespace bytes. */
static const unsigned char WS[256] = {[' '] = 1, ['\n'] = 1, ['\r'] = 1, ['\t'] = 1};

/* Skips whitespace. Most runs are empty or one space; indentation runs (a newline and
 * spaces) go 16 bytes at a time with SSE2. */
static inline void ws(reader *r)
{
    const char *p = r->p, *end = r->end;
    if (p >= end || !WS[(unsigned char)*p])
        return;
    p++;
    if (p >= end || !WS[(unsigned char)*p]) {
        r->p = p;
        return;
    }
#if defined(__SSE2__)
    const __m128i sp = _mm_set1_epi8(' '), nl = _mm_set1_epi8('\n');
    const __m128i cr = _mm_set1_epi8('\r'), tab = _mm_set1_epi8('\t');
    while (end - p >= 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i w = _mm_or_si128(_mm_cmpeq_epi8(x, sp), _mm_cmpeq_epi8(x, nl));
        w = _mm_or_si128(w, _mm_or_si128(_mm_cmpeq_epi8(x, cr), _mm_cmpeq_epi8(x, tab)));
        unsigned other = ~(unsigned)_mm_movemask_epi8(w) & 0xFFFFu;
        if (other) {
            r->p = p + __builtin_ctz(other);
            return;
        }
        p += 16;
    }
#endif
    while (p < end && WS[(unsigned char)*p])
        p++;
    r->p = p;
}

/* Bytes that stop the string scanner: the quote, the backslash, control characters. */
static const unsigned char STR_STOP[256] = {1, 1, 1, 1, 1, 1, 1, 1, 1,         1,         1, 1,
                                            1, 1, 1, 1, 1, 1, 1, 1, 1,         1,         1, 1,
                                            1, 1, 1, 1, 1, 1, 1, 1, ['"'] = 1, ['\\'] = 1};

/* The first byte in [q, end) that stops a string (quote, backslash, control), or end. 16
 * bytes at a time with SSE2 (every x86-64 has it), the table for the tail. */
static inline const unsigned char *string_stop(const unsigned char *q, const unsigned char *end)
{
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
    const __m128i ctl = _mm_set1_epi8(0x1f);
    while (end - q >= 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)q);
        __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, bslash));
        hit = _mm_or_si128(hit, _mm_cmpeq_epi8(_mm_min_epu8(x, ctl), x)); /* x <= 0x1f */
        unsigned bits = (unsigned)_mm_movemask_epi8(hit);
        if (bits)
            return q + __builtin_ctz(bits);
        q += 16;
    }
#endif
    while (q < end && !STR_STOP[*q])
        q++;
    return q;
}

/* Scans a string starting at the quote; sets *s and *e to the raw content, *esc if it has
 * escapes. One pass. */
#if defined(__GNUC__)
#define TJ_INLINE static inline __attribute__((always_inline))
#else
#define TJ_INLINE static inline
#endif

TJ_INLINE rres scan_string(reader *r, const char **s, const char **e, int *esc)
{
    const unsigned char *q = (const unsigned char *)r->p + 1, *end = (const unsigned char *)r->end;
    *esc = 0;
    for (;;) {
        q = string_stop(q, end);
        if (q >= end)
            return need(r, r->p, "expected the closing quote of a string");
        if (*q == '"')
            break;
        if (*q == '\\') {
            *esc = 1;
            if (end - q < 2)
                return need(r, r->p, "expected the closing quote of a string");
            q += 2;
            continue;
        }
        return fail(r, (const char *)q, "expected no control character inside a string");
    }
    *s = r->p + 1;
    *e = (const char *)q;
    r->p = (const char *)q + 1;
    return TJR_OK;
}

/* Little-endian loads of the window's bytes (pbwire.h's helpers). */
static inline uint32_t load4(const char *p)
{
    return pb_load_le32((const uint8_t *)p);
}

/* At a key: the key string, ':' and the space before the value. */
TJ_INLINE rres read_key(reader *r, const char **ks, const char **ke)
{
    if (*r->p != '"')
        return fail(r, r->p, "expected a key string");
    int esc;
    rres rr = scan_string(r, ks, ke, &esc);
    if (rr != TJR_OK)
        return rr;
    const char *p = r->p;
    if (r->end - p >= 4) {
        uint32_t w = load4(p);
        if ((w & 0xFFFF) == (':' | ' ' << 8) && (w >> 16 & 0xFF) > ' ') {
            r->p = p + 2; /* the common "key": value */
            return TJR_OK;
        }
    }
    if (p < r->end && *p == ':') {
        r->p++;
        ws(r);
        return TJR_OK;
    }
    ws(r);
    if (r->p >= r->end)
        return need(r, r->p, "expected ':'");
    if (*r->p != ':')
        return fail(r, r->p, "expected ':' after a key");
    r->p++;
    ws(r);
    return TJR_OK;
}

/* At '{': consumes it and the space after; *empty = 1 when '}' follows (consumed too).
 * NEED_WHAT when the window ends first. */
TJ_INLINE rres open_object(reader *r, const char *need_what, int *empty)
{
    r->p++;
    ws(r);
    if (r->p >= r->end)
        return need(r, r->p, need_what);
    *empty = *r->p == '}';
    r->p += *empty;
    return TJR_OK;
}

/* After a member or element: ',' (*more = 1) or CLOSE (*more = 0), consumed. NEED_WHAT
 * when the window ends first, FAIL_WHAT for any other byte. */
TJ_INLINE rres next_or_close(reader *r, char close, const char *need_what, const char *fail_what,
                             int *more)
{
    ws(r);
    if (r->p >= r->end)
        return need(r, r->p, need_what);
    if (*r->p != ',' && *r->p != close)
        return fail(r, r->p, fail_what);
    *more = *r->p++ == ',';
    return TJR_OK;
}

/* After a member: ", " and the next key's quote, the separator written traces use most,
 * consumed up to the quote (1); else nothing consumed (0) and the general path follows. */
TJ_INLINE int comma_key(reader *r)
{
    const char *p = r->p;
    if (r->end - p >= 4 && (load4(p) & 0xFFFFFF) == (',' | ' ' << 8 | '"' << 16)) {
        r->p = p + 2;
        return 1;
    }
    return 0;
}

/* Unescapes [s,e) into OUT (room for e-s bytes: escapes never grow). Returns the length or
 * -1 on a bad escape (*bad set). */
static long unescape(const char *s, const char *e, char *out, const char **bad)
{
    char *o = out;
    while (s < e) {
        if (*s != '\\') {
            *o++ = *s++;
            continue;
        }
        if (e - s < 2) {
            *bad = s;
            return -1;
        }
        char c = s[1];
        s += 2;
        if (c == 'u') {
            size_t n;
            int used = json_unicode_escape(s, e, o, &n);
            if (used < 0) {
                *bad = s - 2;
                return -1;
            }
            s += used;
            o += n;
            continue;
        }
        int c1 = json_simple_escape(c);
        if (c1 < 0) {
            *bad = s - 2;
            return -1;
        }
        *o++ = (char)c1;
    }
    return (long)(o - out);
}

/* A string value as a view: the raw bytes when there is no escape, else unescaped into
 * the per-unit scratch buffer. */
TJ_INLINE rres read_string(reader *r, pq_str *out)
{
    const char *s, *e;
    int esc;
    rres rr = scan_string(r, &s, &e, &esc);
    if (rr != TJR_OK)
        return rr;
    if (!esc) {
        out->p = s;
        out->n = (size_t)(e - s);
        return TJR_OK;
    }
    size_t n = (size_t)(e - s);
    if (r->scratch_used + n > r->scratch_cap) {
        /* Views handed out earlier in this unit point into the scratch: never move it
         * within a unit; size it for the unit up front (see parse_event). */
        return fail(r, s, "expected a smaller escaped string");
    }
    const char *bad = NULL;
    long len = unescape(s, e, r->scratch + r->scratch_used, &bad);
    if (len < 0)
        return fail(r, bad, "expected a valid escape sequence");
    out->p = r->scratch + r->scratch_used;
    out->n = (size_t)len;
    r->scratch_used += (size_t)len;
    return TJR_OK;
}

/* SWAR over the 8 bytes of a number's text loaded little-endian (the first byte lowest). */
#define TJ_ONES(b) (0x0101010101010101ull * (uint64_t)(b))

/* How many of the 8 bytes of X, from the first, are ASCII digits (0 to 8). A byte is a digit
 * when its high nibble is 3 and stays 3 after adding 6; a carry out of a non-digit byte can
 * only disturb the bytes after it, which are not counted. */
static inline unsigned digit_run8(uint64_t x)
{
    uint64_t y = (x & TJ_ONES(0xF0)) | (((x + TJ_ONES(0x06)) & TJ_ONES(0xF0)) >> 4);
    uint64_t d = y ^ TJ_ONES(0x33);
    return d ? (unsigned)__builtin_ctzll(d) >> 3 : 8;
}

/* The value of the first N (1 to 8) digits of X: they are moved to the top bytes, below
 * them zeros, and combined pairwise, then by quads, then by halves (one multiply each). */
static inline uint64_t digits_value8(uint64_t x, unsigned n)
{
    uint64_t le = (x - TJ_ONES('0')) << (8 * (8 - n));
    le = (le * 10 + (le >> 8)) & 0x00FF00FF00FF00FFull;
    le = (le * 100 + (le >> 16)) & 0x0000FFFF0000FFFFull;
    return (le * 10000 + (le >> 32)) & 0x00000000FFFFFFFFull;
}

static inline uint64_t load8(const char *q)
{
    return pb_load_le64((const uint8_t *)q);
}

/* Bytes a number's text is made of. */
static const unsigned char NUM_CHAR[256] = {
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
    ['8'] = 1, ['9'] = 1, ['-'] = 1, ['+'] = 1, ['.'] = 1, ['e'] = 1, ['E'] = 1};

static inline int is_num_char(char c)
{
    return NUM_CHAR[(unsigned char)c];
}

TJ_INLINE rres scan_number(reader *r, const char **s, const char **e)
{
    const char *q = r->p;
    if (q < r->end && *q == '-')
        q++;
    if (q >= r->end)
        return need(r, r->p, "expected a number");
    if (*q < '0' || *q > '9')
        return fail(r, r->p, "expected a value");
    while (q < r->end && is_num_char(*q))
        q++;
    if (q >= r->end && r->more)
        return TJR_MORE;
    *s = r->p;
    *e = q;
    r->p = q;
    return TJR_OK;
}

/* Skips one JSON value without building it. Nesting is bounded; no recursion. */
static rres skip_value(reader *r)
{
    int depth = 0;
    for (;;) {
        ws(r);
        if (r->p >= r->end)
            return need(r, r->p, "expected a value");
        char c = *r->p;
        if (c == '{' || c == '[') {
            if (++depth > TJ_MAX_DEPTH)
                return fail(r, r->p, "expected nesting of at most 512 levels");
            r->p++;
            ws(r);
            if (r->p >= r->end)
                return need(r, r->p, "expected a value");
            if ((c == '{' && *r->p == '}') || (c == '[' && *r->p == ']')) {
                r->p++;
                depth--;
                goto after_value;
            }
            if (c == '{') {
                const char *s, *e;
                rres rr = read_key(r, &s, &e);
                if (rr != TJR_OK)
                    return rr;
            }
            continue;
        }
        if (c == '"') {
            const char *s, *e;
            int esc;
            rres rr = scan_string(r, &s, &e, &esc);
            if (rr != TJR_OK)
                return rr;
        } else if (c == 't' || c == 'f' || c == 'n') {
            const char *w = c == 't' ? "true" : c == 'f' ? "false" : "null";
            size_t wl = strlen(w);
            if ((size_t)(r->end - r->p) < wl)
                return need(r, r->p, "expected true, false or null");
            if (memcmp(r->p, w, wl) != 0)
                return fail(r, r->p, "expected a value");
            r->p += wl;
        } else {
            const char *s, *e;
            rres rr = scan_number(r, &s, &e);
            if (rr != TJR_OK)
                return rr;
        }
    after_value:
        /* Close containers / separators until another value is due or depth is 0. */
        for (;;) {
            if (depth == 0)
                return TJR_OK;
            ws(r);
            if (r->p >= r->end)
                return need(r, r->p, "expected ',' or a closing bracket");
            char d = *r->p;
            if (d == ',') {
                r->p++;
                /* Inside an object the next item is a key. We do not track the container
                 * kind per level; a key is recognised by the following ':'. */
                ws(r);
                if (r->p >= r->end)
                    return need(r, r->p, "expected a value");
                if (*r->p == '"') {
                    const char *save = r->p, *s, *e;
                    int esc;
                    rres rr = scan_string(r, &s, &e, &esc);
                    if (rr != TJR_OK)
                        return rr;
                    ws(r);
                    if (r->p >= r->end)
                        return need(r, r->p, "expected ':' or ','");
                    if (*r->p == ':') {
                        r->p++;
                        break; /* a value follows */
                    }
                    r->p = save; /* it was a string element of an array */
                }
                break;
            }
            if (d == '}' || d == ']') {
                r->p++;
                depth--;
                continue;
            }
            return fail(r, r->p, "expected ',' or a closing bracket");
        }
    }
}

/* Brings frac_ps into 0..999999. */
static inline void normalize_time(tj_time *t)
{
    while (t->frac_ps < 0) {
        t->frac_ps += 1000000;
        t->us--;
    }
    while (t->frac_ps >= 1000000) {
        t->frac_ps -= 1000000;
        t->us++;
    }
}

/* The time of [-]WHOLE.FRAC, FRAC given by its first min(FD, 6) digits (ROUND_UP: the
 * seventh was >= 5). */
static inline void make_time(int neg, int64_t whole, int64_t frac, int fd, int round_up, tj_time *t)
{
    static const int64_t scale[7] = {1000000, 100000, 10000, 1000, 100, 10, 1};
    frac = frac * scale[fd < 6 ? fd : 6] + round_up;
    t->us = neg ? -whole : whole;
    t->frac_ps = neg ? -frac : frac;
    normalize_time(t);
}

/* The digits after a decimal point, from Q: the first six into *FRAC, the seventh rounds;
 * *FD counts them all. Returns the first byte after them. */
static inline const char *frac_digits(const char *q, const char *end, int64_t *frac, int *fd,
                                      int *round_up)
{
    for (; q < end && (unsigned)(*q - '0') <= 9; q++, ++*fd) {
        if (*fd < 6)
            *frac = *frac * 10 + (*q - '0');
        else if (*fd == 6)
            *round_up = *q >= '5';
    }
    return q;
}

/* Parses a number into whole µs and sub-µs picoseconds. Returns TJ_INT when it fits, or
 * TJ_OTHER (e.g. exponents beyond range). */

static int parse_time(const char *s, const char *e, tj_time *t)
{
    int neg = 0;
    const char *q = s;
    if (q < e && *q == '-') {
        neg = 1;
        q++;
    }
    int64_t whole = 0;
    int digits = 0;
    while (q < e && *q >= '0' && *q <= '9') {
        if (whole > (INT64_MAX - 9) / 10)
            return TJ_OTHER;
        whole = whole * 10 + (*q++ - '0');
        digits++;
    }
    if (!digits)
        return TJ_OTHER;
    int64_t frac = 0;
    int fd = 0;
    int round_up = 0;
    if (q < e && *q == '.')
        q = frac_digits(q + 1, e, &frac, &fd, &round_up);
    if (q < e) {
        /* An exponent: go through double (rare in traces). */
        char tmp[64];
        size_t n = (size_t)(e - s);
        if (n >= sizeof tmp)
            return TJ_OTHER;
        memcpy(tmp, s, n);
        tmp[n] = '\0';
        char *endp;
        double d = strtod(tmp, &endp);
        if (*endp || !(d > -9e15 && d < 9e15))
            return TJ_OTHER;
        double w = d < 0 ? -(double)(int64_t)(-d) : (double)(int64_t)d;
        t->us = (int64_t)w;
        t->frac_ps = (int64_t)((d - w) * 1e6 + (d >= w ? 0.5 : -0.5));
        normalize_time(t);
        return TJ_INT;
    }
    make_time(neg, whole, frac, fd, round_up, t);
    return TJ_INT;
}

static const int64_t POW10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};

/* The common number of a trace, [-]digits[.digits] with at most 16 whole digits, followed
 * by a byte that is not part of a number, parsed into *T: the whole part 8 digits at a
 * time, the first 6 fraction digits at once (the seventh rounds). Within 32 bytes of the
 * window's end it leaves the number to the general path, so its 8-byte loads stay inside
 * the window. Returns 0 (nothing consumed) for anything else, which the general path then
 * handles. */
TJ_INLINE int fast_time(reader *r, tj_time *t)
{
    const char *q = r->p, *end = r->end;
    if (end - q < 32)
        return 0; /* near the window's end: the general path (which asks for more) */
    int neg = *q == '-';
    q += neg;
    uint64_t x = load8(q);
    unsigned n = digit_run8(x);
    if (n == 0)
        return 0;
    uint64_t whole = digits_value8(x, n);
    q += n;
    if (n == 8) {
        x = load8(q);
        unsigned m = digit_run8(x);
        if (m == 8)
            return 0; /* 16 or more digits: the general path */
        if (m) {
            whole = whole * (uint64_t)POW10[m] + digits_value8(x, m);
            q += m;
        }
    }
    int64_t frac = 0;
    int round_up = 0;
    if (*q == '.') {
        q++;
        x = load8(q);
        unsigned f = digit_run8(x);
        if (f) {
            unsigned k = f < 6 ? f : 6;
            frac = (int64_t)digits_value8(x, k) * POW10[6 - k];
            round_up = f > 6 && (unsigned char)q[6] >= '5';
            q += f;
            while (f == 8 && q < end && (unsigned)(*q - '0') <= 9) /* beyond the eighth */
                q++;
        }
    }
    if (q >= end || NUM_CHAR[(unsigned char)*q])
        return 0; /* an exponent, a bad number, or the window's end: the general path */
    t->us = neg ? -(int64_t)whole : (int64_t)whole;
    frac += round_up;
    t->frac_ps = neg ? -frac : frac;
    normalize_time(t);
    r->p = q;
    return 1;
}

static int key_is(const char *s, const char *e, const char *lit)
{
    size_t n = strlen(lit);
    return (size_t)(e - s) == n && memcmp(s, lit, n) == 0;
}

/* Parses an id field (pid/tid): integer, or a string/float kept raw. */
TJ_INLINE rres parse_id(reader *r, int *kind, int64_t *v, pq_str *raw)
{
    if (r->p >= r->end)
        return need(r, r->p, "expected a value");
    if (*r->p == '"') {
        rres rr = read_string(r, raw);
        *kind = TJ_STRING;
        return rr;
    }
    const char *s = r->p;
    tj_time ft;
    if (fast_time(r, &ft)) {
        if (ft.frac_ps == 0) {
            *kind = TJ_INT;
            *v = ft.us;
        } else {
            *kind = TJ_OTHER;
            raw->p = s;
            raw->n = (size_t)(r->p - s);
        }
        return TJR_OK;
    }
    if (*r->p == '-' || (*r->p >= '0' && *r->p <= '9')) {
        const char *ns, *ne;
        rres rr = scan_number(r, &ns, &ne);
        if (rr != TJR_OK)
            return rr;
        tj_time t;
        int k = parse_time(ns, ne, &t);
        if (k == TJ_INT && t.frac_ps == 0) {
            *kind = TJ_INT;
            *v = t.us;
        } else {
            *kind = TJ_OTHER;
            raw->p = ns;
            raw->n = (size_t)(ne - ns);
        }
        return TJR_OK;
    }
    rres rr = skip_value(r);
    raw->p = s;
    raw->n = (size_t)(r->p - s);
    *kind = TJ_OTHER;
    return rr;
}

TJ_INLINE rres parse_tval(reader *r, int *kind, tj_time *t)
{
    if (r->p >= r->end)
        return need(r, r->p, "expected a value");
    if (fast_time(r, t)) {
        *kind = TJ_INT;
        return TJR_OK;
    }
    if (*r->p == '-' || (*r->p >= '0' && *r->p <= '9')) {
        const char *s, *e;
        rres rr = scan_number(r, &s, &e);
        if (rr != TJR_OK)
            return rr;
        *kind = parse_time(s, e, t);
        return TJR_OK;
    }
    *kind = TJ_OTHER;
    return skip_value(r);
}

#endif
