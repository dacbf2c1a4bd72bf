/* trace_json.c - streaming Chrome trace-event JSON reader; see trace_json.h.
 *
 * The input is a window of bytes: a buffer refilled by read() for plain JSON files, by
 * zlib for gzip (from memory or from read()), or the whole buffer for plain JSON in memory. The
 * document is parsed as a sequence of small units (a top-level key with its value, or one element
 * of traceEvents). A unit that runs past the end of the window while more input is coming returns
 * TJR_MORE; the driver then slides the unit's first byte to the front of the window, inflates more
 * and parses the unit again from its start. So memory is bounded by the largest single event (hard
 * maximum TJ_MAX_UNIT), never by the trace. Callbacks run only after a unit parsed completely, so a
 * retried unit is never delivered twice.
 *
 * Not here: what events mean (analysis/summary.c), B/E pairing (the consumer pairs). */
#include "trace_json.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/jtext.h"
#include "formats/pbwire.h"
#include "io/mapfile.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define TJ_MAX_UNIT ((size_t)256 << 20)
enum { TJ_CHUNK = 1 << 20, TJ_MAX_DEPTH = 512, AK_MANY = 0xFF };

/* Bytes inflated per refill: TJ_CHUNK, or tiny in tests so every unit crosses a refill. */
static size_t g_chunk = TJ_CHUNK;
static int g_stream_plain;

void tj_debug_set_chunk(size_t n)
{
    g_chunk = n ? n : TJ_CHUNK;
}

void tj_debug_stream_plain(int on)
{
    g_stream_plain = on;
}

typedef enum { TJR_OK, TJR_MORE, TJR_ERR } rres;

typedef struct reader {
    const char *path;
    /* window */
    const char *p, *end; /* cursor and end of valid bytes */
    const char *base;    /* first byte of the window */
    int64_t base_off;    /* stream offset of base */
    int more;            /* more bytes may come (gzip not finished) */
    int gz_ended;        /* the last gzip member reached its end-of-stream marker */
    /* the source of a refilled window: gzip and/or raw bytes from memory or a file */
    int stream; /* the window is refilled (else it is the whole input) */
    int gz;
    z_stream z;
    char *wbuf;
    size_t wcap;
    const uint8_t *in; /* raw input not consumed yet */
    size_t in_n;
    int fd;         /* >= 0: raw input comes from read(fd) into inbuf */
    uint8_t *inbuf; /* TJ_CHUNK bytes */
    int io_errno;   /* read() failed */
    /* the args keys the caller wants */
    const char *const *akeys;
    size_t nakeys;
    size_t aklen[8];
    uint64_t aklen_mask; /* bit N: some wanted key is N bytes long (N < 64) */
    /* [length][first byte & 31] of a key shorter than 16 bytes: 0 no wanted key, k + 1 the
     * only candidate, AK_MANY several (then the list is searched) */
    uint8_t aktab[16][32];
    /* error */
    const char *what;
    const char *err_at;
    /* scratch for unescaped strings */
    char *scratch;
    size_t scratch_cap, scratch_used;
    pq_error *err;
} reader;

static int64_t off_of(const reader *r, const char *at)
{
    return r->base_off + (at - r->base);
}

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

enum { K_OTHER, K_PH, K_NAME, K_CAT, K_PID, K_TID, K_TS, K_DUR, K_ARGS, K_ID };

/* Which event field the key K (N bytes, raw) is. */
static inline int event_key(const char *k, size_t n)
{
    switch (n) {
    case 2:
        if (k[0] == 'p' && k[1] == 'h')
            return K_PH;
        if (k[0] == 't' && k[1] == 's')
            return K_TS;
        if (k[0] == 'i' && k[1] == 'd')
            return K_ID;
        break;
    case 3:
        if (k[1] == 'i' && k[2] == 'd')
            return k[0] == 'p' ? K_PID : k[0] == 't' ? K_TID : K_OTHER;
        if (memcmp(k, "cat", 3) == 0)
            return K_CAT;
        if (memcmp(k, "dur", 3) == 0)
            return K_DUR;
        break;
    case 4:
        if (memcmp(k, "name", 4) == 0)
            return K_NAME;
        if (memcmp(k, "args", 4) == 0)
            return K_ARGS;
        break;
    }
    return K_OTHER;
}

/* The args object of an event: each value skipped, the wanted keys' values noted. */
static rres parse_args(reader *r, tj_event *ev)
{
    int empty;
    rres r0 = open_object(r, "expected a value", &empty);
    if (r0 != TJR_OK || empty)
        return r0;
    for (;;) {
        const char *ks, *ke;
        rres rr = read_key(r, &ks, &ke);
        if (rr != TJR_OK)
            return rr;
        const char *vs = r->p, *x, *y;
        int esc;
        /* Scalars inline, as skip_value would read them; containers through it. */
        if (r->p < r->end && *r->p == '"')
            rr = scan_string(r, &x, &y, &esc);
        else if (r->p < r->end && (*r->p == '-' || (unsigned)(*r->p - '0') <= 9))
            rr = scan_number(r, &x, &y);
        else
            rr = skip_value(r);
        if (rr != TJR_OK)
            return rr;
        size_t kl = (size_t)(ke - ks);
        unsigned cand = kl < 16 ? r->aktab[kl][(unsigned char)ks[0] & 31]
                        : kl < 64 && !(r->aklen_mask >> kl & 1) ? 0
                                                                : AK_MANY;
        if (cand && cand != AK_MANY && memcmp(r->akeys[cand - 1], ks, kl) == 0) {
            ev->argv[cand - 1].p = vs;
            ev->argv[cand - 1].n = (size_t)(r->p - vs);
        }
        for (size_t k = 0; cand == AK_MANY && k < r->nakeys; k++) {
            if (r->aklen[k] == kl && memcmp(r->akeys[k], ks, kl) == 0) {
                ev->argv[k].p = vs;
                ev->argv[k].n = (size_t)(r->p - vs);
                break;
            }
        }
        if (comma_key(r))
            continue;
        int more;
        rr = next_or_close(r, '}', "expected ',' or a closing bracket",
                           "expected ',' or a closing bracket", &more);
        if (rr != TJR_OK || !more)
            return rr;
        ws(r);
        if (r->p >= r->end)
            return need(r, r->p, "expected a value");
    }
}

/* One element of traceEvents. Non-object elements are an error. */
static rres parse_event(reader *r, tj_event *ev)
{
    memset(ev, 0, offsetof(tj_event, argv));
    memset(ev->argv, 0, r->nakeys * sizeof ev->argv[0]);
    ev->offset = off_of(r, r->p);
    if (r->p >= r->end)
        return need(r, r->p, "expected an event object");
    if (*r->p != '{')
        return fail(r, r->p, "expected an event object '{'");
    r->scratch_used = 0;
    int empty;
    rres r0 = open_object(r, "expected a key or '}'", &empty);
    if (r0 != TJR_OK || empty)
        return r0;
    for (int at_key = 0;;) {
        if (!at_key) {
            ws(r);
            if (r->p >= r->end)
                return need(r, r->p, "expected a key");
        }
        at_key = 0;
        const char *ks, *ke;
        rres rr = read_key(r, &ks, &ke);
        if (rr != TJR_OK)
            return rr;
        if (r->p >= r->end)
            return need(r, r->p, "expected a value");
        switch (event_key(ks, (size_t)(ke - ks))) {
        case K_PH:
            if (*r->p == '"') {
                pq_str ph;
                rr = read_string(r, &ph);
                if (rr == TJR_OK)
                    ev->ph = ph.n ? ph.p[0] : '\0';
            } else {
                rr = skip_value(r);
            }
            break;
        case K_NAME:
            rr = *r->p == '"' ? read_string(r, &ev->name) : skip_value(r);
            break;
        case K_CAT:
            rr = *r->p == '"' ? read_string(r, &ev->cat) : skip_value(r);
            break;
        case K_PID:
            rr = parse_id(r, &ev->pid_kind, &ev->pid, &ev->pid_str);
            break;
        case K_TID:
            rr = parse_id(r, &ev->tid_kind, &ev->tid, &ev->tid_str);
            break;
        case K_TS:
            rr = parse_tval(r, &ev->ts_kind, &ev->ts);
            break;
        case K_DUR:
            rr = parse_tval(r, &ev->dur_kind, &ev->dur);
            break;
        case K_ARGS: {
            const char *s = r->p;
            rr = r->nakeys && *r->p == '{' ? parse_args(r, ev) : skip_value(r);
            ev->args = (pq_str){s, (size_t)(r->p - s)};
            break;
        }
        case K_ID: {
            const char *s = r->p;
            rr = skip_value(r);
            ev->id = (pq_str){s, (size_t)(r->p - s)};
            break;
        }
        default:
            rr = skip_value(r);
        }
        if (rr == TJR_OK && comma_key(r)) {
            at_key = 1;
            continue;
        }
        int more;
        if (rr == TJR_OK)
            rr = next_or_close(r, '}', "expected ',' or '}'", "expected ',' or '}' in an event",
                               &more);
        if (rr != TJR_OK || !more)
            return rr;
    }
}

/* Makes raw input available in r->in: 1, or 0 at the end of the input (or on a read
 * error, r->io_errno set). */
static int pull_input(reader *r)
{
    if (r->in_n)
        return 1;
    if (r->fd < 0 || r->io_errno)
        return 0;
    for (;;) {
        ssize_t k = read(r->fd, r->inbuf, TJ_CHUNK);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            r->io_errno = errno ? errno : EIO;
        if (k <= 0)
            return 0;
        r->in = r->inbuf;
        r->in_n = (size_t)k;
        return 1;
    }
}

/* Sets r->what for a failed fill at AT. */
static long fill_failed(reader *r, char *at, const char *what)
{
    r->what = what;
    r->err_at = at;
    r->end = at;
    return -1;
}

/* Copies (or reads) up to ROOT bytes of plain JSON into FILL; returns how many. */
static long fill_plain(reader *r, char *fill, size_t room)
{
    size_t got = 0;
    while (got < room && r->more) {
        if (!r->in_n && r->fd >= 0 && !r->io_errno) {
            ssize_t k = read(r->fd, fill + got, room - got); /* straight into the window */
            if (k < 0 && errno == EINTR)
                continue;
            if (k < 0)
                r->io_errno = errno ? errno : EIO;
            if (k <= 0)
                r->more = 0;
            else
                got += (size_t)k;
            continue;
        }
        if (!pull_input(r)) {
            r->more = 0;
            break;
        }
        size_t take = r->in_n < room - got ? r->in_n : room - got;
        memcpy(fill + got, r->in, take);
        r->in += take;
        r->in_n -= take;
        got += take;
    }
    if (r->io_errno)
        return fill_failed(r, fill + got, "expected the rest of the file (read error)");
    return (long)got;
}

/* Inflates up to ROOM bytes into FILL; returns how many. */
static long fill_gzip(reader *r, char *fill, size_t room)
{
    r->z.next_out = (Bytef *)fill;
    r->z.avail_out = (uInt)(room > 0x40000000 ? 0x40000000 : room);
    while (r->z.avail_out > 0 && r->more) {
        char *at = fill + (room - r->z.avail_out);
        if (r->z.avail_in == 0) {
            if (!pull_input(r)) {
                r->more = 0;
                if (r->io_errno)
                    return fill_failed(r, at, "expected the rest of the file (read error)");
                /* Input ran out inside a member: a truncated file, never a success. */
                if (!r->gz_ended)
                    return fill_failed(r, at,
                                       "expected the rest of the gzip stream (truncated file)");
                break;
            }
            size_t take = r->in_n > 0x40000000 ? 0x40000000 : r->in_n;
            r->z.next_in = (Bytef *)(uintptr_t)r->in;
            r->z.avail_in = (uInt)take;
            r->in += take;
            r->in_n -= take;
        }
        int zr = inflate(&r->z, Z_NO_FLUSH);
        r->gz_ended = zr == Z_STREAM_END;
        at = fill + (room - r->z.avail_out);
        if (zr == Z_STREAM_END) {
            /* Concatenated gzip members continue; trailing zeros end the stream. */
            if (r->z.avail_in == 0 && !pull_input(r)) {
                if (r->io_errno)
                    return fill_failed(r, at, "expected the rest of the file (read error)");
                r->more = 0;
                break;
            }
            const uint8_t *next = r->z.avail_in ? r->z.next_in : r->in;
            if (next[0] != 0x1f) {
                r->more = 0;
                break;
            }
            inflateReset(&r->z);
        } else if (zr != Z_OK && zr != Z_BUF_ERROR) {
            return fill_failed(r, at, "expected valid gzip data");
        } else if (zr == Z_BUF_ERROR && r->z.avail_in == 0 && !pull_input(r)) {
            return fill_failed(r, at, "expected the rest of the gzip stream (truncated file)");
        }
    }
    return (long)(room - r->z.avail_out);
}

/* Fills more bytes into the window, keeping [keep, end). Returns 0, or -1 with r->what
 * set. */
static int refill(reader *r, const char *keep)
{
    size_t kept = keep ? (size_t)(r->end - keep) : 0;
    size_t pos = keep ? (size_t)(r->p - keep) : 0;
    if (kept + g_chunk > r->wcap) {
        if (kept >= TJ_MAX_UNIT) {
            r->what = "expected an event of at most 256 MiB";
            r->err_at = keep;
            return -1;
        }
        size_t ncap = r->wcap ? r->wcap : g_chunk * 2;
        while (kept + g_chunk > ncap)
            ncap *= 2;
        char *nb = pq_malloc(ncap + MAPFILE_PADDING);
        if (!nb) {
            r->what = "out of memory";
            r->err_at = keep;
            return -1;
        }
        if (kept)
            memcpy(nb, keep, kept);
        pq_free(r->wbuf);
        r->wbuf = nb;
        r->wcap = ncap;
        /* Scratch must hold any unit's unescaped strings: never larger than the window. */
        pq_free(r->scratch);
        r->scratch = pq_malloc(ncap);
        r->scratch_cap = r->scratch ? ncap : 0;
    } else if (kept && keep != r->wbuf) {
        memmove(r->wbuf, keep, kept);
    }
    if (keep)
        r->base_off += keep - r->base;
    r->base = r->wbuf;
    char *fill = r->wbuf + kept;
    size_t room = r->wcap - kept;
    if (room > g_chunk)
        room = g_chunk; /* never more than a chunk per refill */
    long got = r->gz ? fill_gzip(r, fill, room) : fill_plain(r, fill, room);
    if (got < 0)
        return -1;
    r->end = fill + got;
    r->p = r->wbuf + pos;
    /* Zero padding after the data keeps the scanners' memchr inside the buffer. */
    memset((char *)r->end, 0, MAPFILE_PADDING);
    return 0;
}

typedef enum {
    S_START,
    S_KEY,
    S_VALUE,
    S_OBJ_SEP,
    S_EVENTS_OPEN,
    S_EVENT_FIRST,
    S_EVENT,
    S_EVENT_SEP,
    S_END,
    S_DONE
} state;

static pq_status run(reader *r, tj_event_fn fn, void *ctx, tj_info *info)
{
    state st = S_START;
    char key[32] = "";
    int saw_events = 0, saw_nodes = 0, saw_schema = 0;
    tj_event ev;
    for (;;) {
        const char *mark = r->p;
        rres rr = TJR_OK;
        switch (st) {
        case S_START:
            ws(r);
            if (r->p >= r->end) {
                rr = need(r, r->p, "expected a JSON object with traceEvents");
                break;
            }
            if (*r->p == '{') {
                r->p++;
                st = S_KEY;
            } else if (*r->p == '[') {
                r->p++;
                ws(r);
                if (r->p >= r->end) {
                    rr = need(r, r->p, "expected an event object");
                    r->p = mark;
                    break;
                }
                if (*r->p == '[') {
                    r->err_at = mark;
                    r->what = "a bare JSON array of rows (like PyTorch's memory timeline "
                              "export)";
                    return PQ_ERR_UNSUPPORTED;
                }
                info->array_format = 1;
                saw_events = 1;
                st = S_EVENT_FIRST;
            } else {
                rr = fail(r, r->p, "expected a JSON object with traceEvents");
            }
            break;
        case S_KEY: {
            ws(r);
            if (r->p >= r->end) {
                rr = need(r, r->p, "expected a key or '}'");
                break;
            }
            if (*r->p == '}') {
                r->p++;
                st = S_END;
                break;
            }
            const char *s, *e;
            rr = read_key(r, &s, &e);
            if (rr != TJR_OK)
                break;
            size_t kl = (size_t)(e - s);
            if (kl >= sizeof key)
                kl = sizeof key - 1;
            memcpy(key, s, kl);
            key[kl] = '\0';
            if (strcmp(key, "nodes") == 0)
                saw_nodes = 1;
            if (strcmp(key, "schema") == 0)
                saw_schema = 1;
            st = strcmp(key, "traceEvents") == 0 ? S_EVENTS_OPEN : S_VALUE;
            break;
        }
        case S_VALUE:
            ws(r);
            if (strcmp(key, "displayTimeUnit") == 0 && r->p < r->end && *r->p == '"') {
                pq_str v;
                r->scratch_used = 0;
                rr = read_string(r, &v);
                if (rr == TJR_OK) {
                    size_t n = v.n < sizeof info->display_time_unit - 1
                                   ? v.n
                                   : sizeof info->display_time_unit - 1;
                    memcpy(info->display_time_unit, v.p, n);
                    info->display_time_unit[n] = '\0';
                }
            } else {
                rr = skip_value(r);
            }
            if (rr == TJR_OK)
                st = S_OBJ_SEP;
            break;
        case S_OBJ_SEP: {
            int more;
            rr = next_or_close(r, '}', "expected ',' or '}'",
                               "expected ',' or '}' after a top-level value", &more);
            if (rr == TJR_OK)
                st = more ? S_KEY : S_END;
            break;
        }
        case S_EVENTS_OPEN:
            ws(r);
            if (r->p >= r->end) {
                rr = need(r, r->p, "expected '[' (traceEvents must be a list)");
                break;
            }
            if (*r->p != '[') {
                rr = fail(r, r->p, "expected '[' (traceEvents must be a list)");
                break;
            }
            r->p++;
            saw_events = 1;
            st = S_EVENT_FIRST;
            break;
        case S_EVENT_FIRST:
            ws(r);
            if (r->p >= r->end) {
                if (info->array_format && !r->more) {
                    st = S_DONE; /* the closing ']' of the array format is optional */
                    break;
                }
                rr = need(r, r->p, "expected an event or ']'");
                break;
            }
            if (*r->p == ']') {
                r->p++;
                st = info->array_format ? S_END : S_OBJ_SEP;
            } else {
                st = S_EVENT;
            }
            break;
        case S_EVENT:
            ws(r);
            mark = r->p;
            if (r->p >= r->end && info->array_format && !r->more) {
                st = S_DONE;
                break;
            }
            rr = parse_event(r, &ev);
            if (rr == TJR_OK) {
                info->num_events++;
                if (fn && fn(ctx, &ev, r->err) != 0) {
                    if (r->err && r->err->status != PQ_OK)
                        return r->err->status;
                    r->err_at = mark;
                    r->what = "the consumer stopped the read";
                    return PQ_ERR_INTERNAL;
                }
                st = S_EVENT_SEP;
            }
            break;
        case S_EVENT_SEP: {
            ws(r);
            if (r->p >= r->end) {
                if (info->array_format && !r->more) {
                    st = S_DONE;
                    break;
                }
            }
            int more;
            rr = next_or_close(r, ']', "expected ',' or ']' after an event",
                               "expected ',' or ']' after an event", &more);
            if (rr == TJR_OK)
                st = more ? S_EVENT : info->array_format ? S_END : S_OBJ_SEP;
            break;
        }
        case S_END:
            ws(r);
            if (r->p < r->end) {
                rr = fail(r, r->p, "expected the end of the document");
                break;
            }
            if (r->more) {
                rr = TJR_MORE;
                break;
            }
            st = S_DONE;
            break;
        case S_DONE:
            break;
        }
        if (st == S_DONE)
            break;
        if (rr == TJR_ERR)
            return PQ_ERR_INPUT;
        if (rr == TJR_MORE) {
            r->p = mark;
            if (!r->stream || refill(r, mark) != 0) {
                if (!r->what) {
                    r->err_at = mark;
                    r->what = "expected more input";
                }
                return PQ_ERR_INPUT;
            }
            /* refill put the unit's first byte at the front; the cursor follows it. */
            r->p = r->base;
        }
    }
    if (!saw_events) {
        r->err_at = r->base;
        r->base_off = 0;
        if (saw_nodes && saw_schema)
            r->what = "a PyTorch execution trace (an ET graph of schema/nodes); record a "
                      "Kineto trace (torch.profiler) for this tool";
        else
            r->what = "a JSON object without a traceEvents list";
        return PQ_ERR_UNSUPPORTED;
    }
    info->uncompressed_bytes = (uint64_t)off_of(r, r->p);
    return PQ_OK;
}

static void reader_init(reader *r, const char *name, const tj_want *want, pq_error *err)
{
    memset(r, 0, sizeof *r);
    r->path = name;
    r->err = err;
    r->fd = -1;
    if (want && want->arg_keys) {
        r->nakeys = want->n_arg_keys < 8 ? want->n_arg_keys : 8;
        r->akeys = want->arg_keys;
        for (size_t k = 0; k < r->nakeys; k++) {
            r->aklen[k] = strlen(r->akeys[k]);
            r->aklen_mask |= r->aklen[k] < 64 ? (uint64_t)1 << r->aklen[k] : 0;
            if (r->aklen[k] && r->aklen[k] < 16) {
                uint8_t *t = &r->aktab[r->aklen[k]][(unsigned char)r->akeys[k][0] & 31];
                *t = *t ? AK_MANY : (uint8_t)(k + 1);
            }
        }
    }
}

/* Reads the document from the reader's source: r->in/in_n (memory) or r->fd. */
static pq_status read_source(reader *r, tj_event_fn fn, void *ctx, tj_info *info)
{
    const char *name = r->path;
    pq_error *err = r->err;
    pq_status st;
    memset(info, 0, sizeof *info);
    if (r->fd >= 0 && pull_input(r)) {
        /* The gzip magic needs two bytes; a short first read() gets more. */
        while (r->in_n < 2) {
            ssize_t k = read(r->fd, r->inbuf + r->in_n, TJ_CHUNK - r->in_n);
            if (k < 0 && errno == EINTR)
                continue;
            if (k < 0)
                r->io_errno = errno ? errno : EIO;
            if (k <= 0)
                break;
            r->in_n += (size_t)k;
        }
    }
    if (r->io_errno)
        return err_set(err, PQ_ERR_IO, name, -1, "cannot read: %s", strerror(r->io_errno));
    r->gz = r->in_n >= 2 && r->in[0] == 0x1f && r->in[1] == 0x8b;
    r->stream = r->gz || r->fd >= 0 || g_stream_plain;
    if (r->gz && inflateInit2(&r->z, 16 + MAX_WBITS) != Z_OK)
        return err_set(err, PQ_ERR_NOMEM, name, -1, "out of memory (zlib)");
    if (r->stream) {
        r->more = 1;
        if (refill(r, NULL) != 0) {
            st = err_set(err, PQ_ERR_INPUT, name, off_of(r, r->err_at), "%s", r->what);
            goto out;
        }
    } else {
        /* Plain JSON in memory: the bytes are the window. Scratch holds one event's
         * strings. */
        size_t n = r->in_n;
        r->base = r->p = (const char *)r->in;
        r->end = r->base + n;
        size_t cap = n < TJ_MAX_UNIT ? n + 1 : TJ_MAX_UNIT;
        r->scratch = pq_malloc(cap);
        r->scratch_cap = r->scratch ? cap : 0;
        if (!r->scratch)
            return err_set(err, PQ_ERR_NOMEM, name, -1, "out of memory");
    }
    if (r->gz && r->end == r->p && !r->more) {
        st = err_set(err, PQ_ERR_INPUT, name, 0, "expected a JSON object with traceEvents");
        goto out;
    }
    st = run(r, fn, ctx, info);
    if (st != PQ_OK && r->io_errno) {
        st = err_set(err, PQ_ERR_IO, name, -1, "cannot read: %s", strerror(r->io_errno));
    } else if (st != PQ_OK && r->what) {
        int64_t off = r->err_at ? off_of(r, r->err_at) : 0;
        if (st == PQ_ERR_UNSUPPORTED)
            st = err_set(err, st, name, 0, "expected Chrome trace events; this is %s", r->what);
        else
            st = err_set(err, st, name, off, "%s", r->what);
    }
out:
    if (r->gz)
        inflateEnd(&r->z);
    pq_free(r->wbuf);
    pq_free(r->scratch);
    return st;
}

pq_status tj_read_memory_want(const uint8_t *data, size_t n, const char *name, const tj_want *want,
                              tj_event_fn fn, void *ctx, tj_info *info, pq_error *err)
{
    reader r;
    reader_init(&r, name, want, err);
    r.in = data;
    r.in_n = n;
    return read_source(&r, fn, ctx, info);
}

pq_status tj_read_memory(const uint8_t *data, size_t n, const char *name, tj_event_fn fn, void *ctx,
                         tj_info *info, pq_error *err)
{
    return tj_read_memory_want(data, n, name, NULL, fn, ctx, info, err);
}

pq_status tj_read_file(const char *path, const tj_want *want, tj_event_fn fn, void *ctx,
                       tj_info *info, pq_error *err)
{
    reader r;
    reader_init(&r, path, want, err);
    r.fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO must not block the open */
    if (r.fd < 0)
        return err_set(err, PQ_ERR_IO, path, -1, "cannot open: %s", strerror(errno));
    struct stat fst;
    if (fstat(r.fd, &fst) != 0 || !S_ISREG(fst.st_mode)) {
        /* A pipe or device may never end; the CLI copies such input to a file first. */
        close(r.fd);
        return err_set(err, PQ_ERR_IO, path, -1,
                       "not a regular file (a pipe, FIFO or device): give the trace as a file");
    }
    fcntl(r.fd, F_SETFL, fcntl(r.fd, F_GETFL) & ~O_NONBLOCK);
#ifdef POSIX_FADV_SEQUENTIAL
    posix_fadvise(r.fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    r.inbuf = pq_malloc(TJ_CHUNK);
    pq_status st = r.inbuf ? read_source(&r, fn, ctx, info)
                           : err_set(err, PQ_ERR_NOMEM, path, -1, "out of memory");
    pq_free(r.inbuf);
    close(r.fd);
    return st;
}

/* ---------------------------------------------------------------------------------------
 * Helpers over raw spans (args). The span was validated by the reader. */

int tj_args_scan(pq_str args, const char *const *keys, size_t nkeys, pq_str *out)
{
    for (size_t k = 0; k < nkeys; k++)
        out[k].p = NULL, out[k].n = 0;
    reader r;
    memset(&r, 0, sizeof r);
    r.base = r.p = args.p;
    r.end = args.p + args.n;
    ws(&r);
    if (r.p >= r.end || *r.p != '{')
        return 0;
    r.p++;
    int found = 0;
    for (;;) {
        ws(&r);
        if (r.p >= r.end || *r.p != '"')
            return found;
        const char *s, *e;
        if (read_key(&r, &s, &e) != TJR_OK)
            return found;
        const char *vs = r.p;
        if (skip_value(&r) != TJR_OK)
            return found;
        for (size_t k = 0; k < nkeys; k++) {
            if (key_is(s, e, keys[k])) {
                out[k].p = vs;
                out[k].n = (size_t)(r.p - vs);
                found++;
            }
        }
        ws(&r);
        if (r.p >= r.end || *r.p != ',')
            return found;
        r.p++;
    }
}

int tj_args_get(pq_str args, const char *key, pq_str *out)
{
    return tj_args_scan(args, &key, 1, out) > 0;
}

long tj_string_value(pq_str raw, char *out, size_t cap)
{
    if (raw.n < 2 || raw.p[0] != '"' || raw.p[raw.n - 1] != '"' || cap == 0)
        return -1;
    const char *s = raw.p + 1, *e = raw.p + raw.n - 1;
    size_t n = (size_t)(e - s);
    if (!memchr(s, '\\', n)) {
        size_t c = n < cap - 1 ? n : cap - 1;
        memcpy(out, s, c);
        out[c] = '\0';
        return (long)c;
    }
    char *tmp = pq_malloc(n + 1);
    if (!tmp)
        return -1;
    const char *bad;
    long len = unescape(s, e, tmp, &bad);
    if (len >= 0) {
        size_t c = (size_t)len < cap - 1 ? (size_t)len : cap - 1;
        memcpy(out, tmp, c);
        out[c] = '\0';
        len = (long)c;
    }
    pq_free(tmp);
    return len;
}

int tj_number_value(pq_str raw, double *out)
{
    char tmp[64];
    if (raw.n == 0 || raw.n >= sizeof tmp)
        return 0;
    memcpy(tmp, raw.p, raw.n);
    tmp[raw.n] = '\0';
    char *endp;
    *out = strtod(tmp, &endp);
    return *endp == '\0';
}
