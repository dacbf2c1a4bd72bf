/* pushpop.c - reading the nvtx_pushpop_trace report (csv, csv.xz or parquet) into the
 * columns of pushpop.h. Not here: what the ranges mean (compile passes, parallel regions):
 * that is the nsys model's job.
 *
 * The csv is RFC 4180 as pandas/nsys write it: a header line naming the columns, fields
 * separated by ',', double-quoted when they hold ',' '"' or a newline, '""' inside quotes.
 */
#include "pushpop.h"
#include "core/alloc.h"
#include "core/err.h"
#include "io/xz.h"
#include "parquet.h"

#include <math.h>
#include <pthread.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

enum {
    C_START,
    C_END,
    C_DUR,
    C_DURCHILD,
    C_DURNONCHILD,
    C_NAME,
    C_TID,
    C_NUMCHILD,
    C_RANGEID,
    C_PARENTID,
    C_RANGESTACK,
    C_PID,
    C_LVL,
    NCOLS,
    NREQUIRED = C_PID
};
/* The columns pushpop_read_fed parses (what formats/nsysjax.c feeds). */
#define FED_COLS ((1u << C_START) | (1u << C_DUR) | (1u << C_NAME) | (1u << C_TID) | (1u << C_PID))
#define ALL_COLS ((1u << NCOLS) - 1)
static const char *const col_names[NCOLS] = {
    "Start (ns)", "End (ns)", "Duration (ns)", "DurChild (ns)", "DurNonChild (ns)", "Name",
    "TID",        "NumChild", "RangeId",       "ParentId",      "RangeStack",       "PID",
    "Lvl"};

void pushpop_free(pushpop *p)
{
    if (!p)
        return;
    arena_release(&p->a);
    mapfile_close(&p->text);
    memset(p, 0, sizeof *p);
}

/* The int64 array of column C (NULL for string columns). */
static int64_t **int_col(pushpop *p, int c)
{
    switch (c) {
    case C_START:
        return &p->start_ns;
    case C_END:
        return &p->end_ns;
    case C_DUR:
        return &p->dur_ns;
    case C_DURCHILD:
        return &p->dur_child_ns;
    case C_DURNONCHILD:
        return &p->dur_nonchild_ns;
    case C_TID:
        return &p->tid;
    case C_NUMCHILD:
        return &p->num_child;
    case C_RANGEID:
        return &p->range_id;
    case C_PARENTID:
        return &p->parent_id;
    case C_PID:
        return &p->pid;
    case C_LVL:
        return &p->lvl;
    default:
        return NULL;
    }
}

/* Allocates the arrays for ROWS rows; HAVE[c] says which optional columns exist, WANT
 * (bits by column) which are parsed. */
static int alloc_cols(pushpop *p, size_t rows, const int *have, unsigned want)
{
    size_t r = rows ? rows : 1;
    for (int c = 0; c < NCOLS; c++) {
        int64_t **a = int_col(p, c);
        if (a && have[c] && (want >> c & 1) && !(*a = arena_alloc(&p->a, r * sizeof **a)))
            return -1;
    }
    p->name = arena_alloc(&p->a, r * sizeof *p->name);
    if (want >> C_RANGESTACK & 1)
        p->range_stack = arena_alloc(&p->a, r * sizeof *p->range_stack);
    if (want >> C_PARENTID & 1)
        p->parent_valid = arena_alloc(&p->a, r);
    return arena_failed(&p->a) ? -1 : 0;
}

/* ---- csv ---- */

/* The text is the pushpop's own padded buffer (p->text), parsed in place: a field's string
 * points into it, quoted fields are unescaped in place, and every kept field is
 * NUL-terminated in place (over its terminator or closing quote, already passed). Nothing
 * is copied, so the 9.7 MB report of the shared archive costs one buffer. */
typedef pushpop_csv csv; /* *end and after: MAPFILE_PADDING zero bytes */
_Static_assert(NCOLS <= sizeof((pushpop_stream *)0)->have / sizeof(int), "pushpop_stream.have");

/* The first ',', '\n' or '\r' at or after P, or END. Sixteen bytes at a time with SSE2
 * (every x86-64 has it: three byte compares, one mask, its lowest bit), then eight at a time
 * (a byte equal to C makes (x ^ C*ones) hold a zero byte, which the classic
 * (v - ones) & ~v & highs test flags; a borrow can flag bytes above a true zero byte but
 * never below it, so the lowest flagged byte is the first separator: read little-endian,
 * its position is the count of trailing zero bits / 8), then byte by byte for the last bytes
 * before END. Nothing at or after END is read: while the report streams, the decoder
 * writes there. */
static uint8_t *field_end(uint8_t *p, const uint8_t *end)
{
#if defined(__SSE2__) && defined(__GNUC__)
    const __m128i comma = _mm_set1_epi8(','), nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
    while (end - p >= 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, comma), _mm_cmpeq_epi8(x, nl)),
                                   _mm_cmpeq_epi8(x, cr));
        unsigned m = (unsigned)_mm_movemask_epi8(hit);
        if (m)
            return p + __builtin_ctz(m);
        p += 16;
    }
#endif
    const uint64_t ones = UINT64_C(0x0101010101010101), highs = ones << 7;
    while (end - p >= 8) {
        uint64_t x, a, b, c, hit;
        memcpy(&x, p, 8);
        a = x ^ (ones * ',');
        b = x ^ (ones * '\n');
        c = x ^ (ones * '\r');
        hit = (((a - ones) & ~a) | ((b - ones) & ~b) | ((c - ones) & ~c)) & highs;
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        if (hit)
            return p + (__builtin_ctzll(hit) >> 3);
#else
        if (hit)
            break;
#endif
        p += 8;
    }
    while (p < end && *p != ',' && *p != '\n' && *p != '\r')
        p++;
    return p;
}

/* The next field into *S; *LAST is set when the field ended its line. KEEP 0: the field's
 * text is not wanted (a quoted one is skipped without unescaping); KEEP 1: unquoted in place
 * and NUL-terminated; KEEP 2: the text is left alone and *S is the field's raw span (inside
 * its quotes; finish_strings unquotes it later). -1 on an unterminated quote or a quoted
 * field followed by something else than a separator. */
#if defined(__GNUC__)
__attribute__((always_inline)) /* into parse_row: 441,700 calls on the shared archive */
#endif
static inline int
csv_field(csv *c, pq_str *s, int *last, int keep)
{
    uint8_t *p = c->p, *end = c->end, *start, *w, *stop;
    if (p < end && *p == '"') {
        start = w = ++p;
        for (;;) {
            uint8_t *q = memchr(p, '"', (size_t)(end - p));
            if (!q)
                return -1;
            if (keep == 1 && w != p)
                memmove(w, p, (size_t)(q - p));
            w += q - p;
            p = q + 1;
            if (p < end && *p == '"') { /* "" inside quotes */
                if (keep == 1)
                    *w = '"';
                w++;
                p++;
                continue;
            }
            break;
        }
        stop = p - 1; /* the closing quote */
    } else {
        start = p;
        p = field_end(p, end);
        w = stop = p;
    }
    if (p < end && *p == ',') {
        *last = 0;
        p++;
    } else {
        if (p < end && *p != '\r' && *p != '\n')
            return -1;
        if (p < end && *p == '\r')
            p++;
        if (p < end && *p == '\n')
            p++;
        *last = 1;
    }
    s->p = (const char *)start;
    s->n = (size_t)((keep == 2 ? stop : w) - start);
    if (keep == 1)
        *w = 0; /* the terminator or closing quote, both behind p now */
    c->p = p;
    return 0;
}

static int parse_i64(const pq_str *s, int64_t *v)
{
    size_t i = 0;
    int neg = 0;
    if (s->n && s->p[0] == '-') {
        neg = 1;
        i = 1;
    }
    if (i >= s->n || s->n - i > 19)
        return -1;
    uint64_t x = 0;
    for (; i < s->n; i++) {
        if (s->p[i] < '0' || s->p[i] > '9')
            return -1;
        x = x * 10 + (uint64_t)(s->p[i] - '0');
    }
    if (x > (uint64_t)INT64_MAX)
        return -1;
    *v = neg ? -(int64_t)x : (int64_t)x;
    return 0;
}

/* Reads the header line into IDX (field position -> column, -1 ignored: not a column, or
 * not in WANT). */
static pq_status csv_header(csv *c, const char *path, unsigned want, int *idx, size_t *nfields,
                            int *have, pq_error *err)
{
    int last = 0;
    size_t k = 0;
    while (!last) {
        pq_str s;
        int rc = csv_field(c, &s, &last, 1);
        RETURN_ERROR_IF(rc < 0 || k >= 64, err, PQ_ERR_INPUT, path, (int64_t)(c->p - c->base),
                        "expected a csv header line of at most 64 fields");
        idx[k] = -1;
        for (int j = 0; j < NCOLS; j++)
            if (strlen(col_names[j]) == s.n && !memcmp(col_names[j], s.p, s.n)) {
                idx[k] = have[j] || !(want >> j & 1) ? -1 : j;
                have[j] = 1;
            }
        k++;
    }
    *nfields = k;
    for (int j = 0; j < NREQUIRED; j++)
        RETURN_ERROR_IF(!have[j], err, PQ_ERR_INPUT, path, 0,
                        "expected a nvtx_pushpop_trace csv header with a '%s' column",
                        col_names[j]);
    return PQ_OK;
}

static pq_status csv_cell(pushpop *p, int col, size_t row, const pq_str *s, const char *path,
                          int64_t off, pq_error *err)
{
    if (col == C_NAME) {
        p->name[row] = *s;
        return PQ_OK;
    }
    if (col == C_RANGESTACK) {
        p->range_stack[row] = *s;
        return PQ_OK;
    }
    int64_t v = 0;
    if (col == C_PARENTID && s->n == 0) {
        p->parent_id[row] = 0;
        p->parent_valid[row] = 0;
        return PQ_OK;
    }
    RETURN_ERROR_IF(parse_i64(s, &v) < 0, err, PQ_ERR_INPUT, path, off,
                    "column '%s' row %zu: expected an integer, found '%.*s'", col_names[col],
                    row + 1, (int)(s->n > 40 ? 40 : s->n), s->p);
    (*int_col(p, col))[row] = v;
    if (col == C_PARENTID)
        p->parent_valid[row] = 1;
    return PQ_OK;
}

/* One row of C at C->p (a blank line is skipped without one), numbered *ROW (advanced when
 * read); KEEP: csv_field's mode for kept fields. */
static pq_status parse_row(pushpop *out, const char *path, csv *c, const int *idx, size_t nfields,
                           int keep, size_t *row, pq_error *err)
{
    int64_t line_off = (int64_t)(c->p - c->base);
    if (*c->p == '\n' || *c->p == '\r') { /* blank line */
        c->p++;
        return PQ_OK;
    }
    int last = 0;
    size_t k = 0;
    while (!last) {
        int64_t off = (int64_t)(c->p - c->base);
        pq_str s;
        int kept = k < nfields && idx[k] >= 0;
        RETURN_ERROR_IF(csv_field(c, &s, &last, kept ? keep : 0) < 0 || k >= nfields, err,
                        PQ_ERR_INPUT, path, off,
                        "row %zu: expected %zu csv fields, a closing quote or a line end", *row + 1,
                        nfields);
        if (kept)
            FORWARD_IF_ERROR(csv_cell(out, idx[k], *row, &s, path, off, err));
        k++;
    }
    RETURN_ERROR_IF(k != nfields, err, PQ_ERR_INPUT, path, line_off,
                    "row %zu: expected %zu csv fields, found %zu", *row + 1, nfields, k);
    ++*row;
    return PQ_OK;
}

/* The rows of C from C->p while C->p < STOP (a row that starts before STOP is read whole),
 * numbered from *ROW on; KEEP: csv_field's mode for kept fields. */
static pq_status parse_rows(pushpop *out, const char *path, csv *c, const uint8_t *stop,
                            const int *idx, size_t nfields, int keep, size_t *row, pq_error *err)
{
    while (c->p < stop)
        FORWARD_IF_ERROR(parse_row(out, path, c, idx, nfields, keep, row, err));
    return PQ_OK;
}

/* The second half of a split parse (parse_text), on a thread of its own: rows from ROW0 on,
 * the text left alone (csv_field mode 2). */
typedef struct half {
    pushpop *out;
    const char *path;
    csv c;
    const int *idx;
    size_t nfields, row0, row;
    pq_status st;
    pq_error err;
} half;

static void *half_run(void *arg)
{
    half *h = arg;
    h->row = h->row0;
    h->st = parse_rows(h->out, h->path, &h->c, h->c.end, h->idx, h->nfields, 2, &h->row, &h->err);
    return NULL;
}

/* Unquotes and NUL-terminates the string cells of rows [FROM, TO) that a mode-2 parse left
 * as raw spans in the text [LO, HI): a quoted field (its byte before is the opening quote)
 * holds only doubled quotes, collapsed here; the byte after a span is its terminator or
 * closing quote. A cell outside the text is finished already (stream_aside's copy). */
static void finish_strings(pushpop *out, size_t from, size_t to, const void *lo, const void *hi)
{
    pq_str *cols[2] = {out->name, out->range_stack};
    for (int k = 0; k < 2; k++)
        for (size_t r = from; cols[k] && r < to; r++) {
            pq_str *s = &cols[k][r];
            char *p = (char *)s->p, *w = p;
            if ((const void *)p < lo || (const void *)p >= hi)
                continue;
            if (p[-1] == '"' && memchr(p, '"', s->n)) {
                for (size_t i = 0; i < s->n; i++) {
                    *w++ = p[i];
                    i += p[i] == '"'; /* the second quote of a pair */
                }
                s->n = (size_t)(w - p);
            }
            p[s->n] = 0;
        }
}

/* The string cells of rows [FROM, TO), read whole while the stream decodes, made final
 * without writing the text (the decoder reads its matches from it, io/xzdec.c): a quoted
 * cell holding doubled quotes is unquoted into a NUL-terminated copy in the arena, the
 * others stay raw spans (exactly their text; finish_strings NUL-terminates them after the
 * decoder's end). -1 when out of memory. */
static int stream_aside(pushpop *out, size_t from, size_t to)
{
    pq_str *cols[2] = {out->name, out->range_stack};
    for (int k = 0; k < 2; k++)
        for (size_t r = from; cols[k] && r < to; r++) {
            pq_str *s = &cols[k][r];
            const char *p = s->p;
            if (p[-1] != '"' || !memchr(p, '"', s->n))
                continue;
            char *w = arena_alloc(&out->a, s->n + 1), *w0 = w;
            if (!w)
                return -1;
            for (size_t i = 0; i < s->n; i++) {
                *w++ = p[i];
                i += p[i] == '"'; /* the second quote of a pair */
            }
            *w = 0;
            s->p = w0;
            s->n = (size_t)(w - w0);
        }
    return 0;
}

/* Moves the rows [FROM, FROM+N) of every array of OUT to [TO, TO+N) (TO <= FROM). */
static void move_rows(pushpop *out, size_t to, size_t from, size_t n)
{
    for (int c = 0; c < NCOLS; c++) {
        int64_t **a = int_col(out, c);
        if (a && *a)
            memmove(*a + to, *a + from, n * sizeof **a);
    }
    memmove(out->name + to, out->name + from, n * sizeof *out->name);
    if (out->range_stack)
        memmove(out->range_stack + to, out->range_stack + from, n * sizeof *out->range_stack);
    if (out->parent_valid)
        memmove(out->parent_valid + to, out->parent_valid + from, n);
}

/* Texts this long are parsed in two halves at once (the push/pop report of the shared
 * archive: 9.7 MB, 31,550 rows), each half on a core. */
enum { SPLIT_MIN = 1 << 20 };

/* Parses OUT->text (arena initialised) in place, the columns in WANT. A long text is cut at
 * a line end near its middle, and the second half is parsed on another thread meanwhile
 * (rows numbered from the line ends before the cut, text left alone); it is kept when the
 * first half ends exactly at the cut (so the cut was a row start) and both went well,
 * else the rest is parsed again after the first half, as without a cut. Both halves leave
 * the text alone until the join (mode 2; ThreadSanitizer saw the first half's last row
 * write past the cut while the other half read there). */
static pq_status parse_text(pushpop *out, const char *path, unsigned want, pq_error *err)
{
    uint8_t *text = (uint8_t *)out->text.data; /* our own heap buffer (xz or a copy) */
    csv c = {text, text, text + out->text.size};
    int idx[64], have[NCOLS] = {0};
    size_t nfields = 0;
    FORWARD_IF_ERROR(csv_header(&c, path, want, idx, &nfields, have, err));
    uint8_t *cut = NULL;
    if (c.end - c.p >= SPLIT_MIN) {
        uint8_t *nl = memchr(c.p + (c.end - c.p) / 2, '\n', (size_t)(c.end - c.p) / 2);
        cut = nl && nl + 1 < c.end ? nl + 1 : NULL;
    }
    /* Every row but the last ends with a '\n' or a '\r' (csv_field: a bare '\r' ends a
     * line too), so there are at most 1 + their count; the first half's rows have indexes
     * up to the count before the cut (the last may run past it), the second half's start
     * after that. */
    size_t rows = 2, before = 0;
    for (int k = 0; k < 2; k++)
        for (const uint8_t *q = c.p; (q = memchr(q, "\n\r"[k], (size_t)(c.end - q))) != NULL; q++) {
            rows++;
            before += q < cut;
        }
    RETURN_ERROR_IF(alloc_cols(out, rows, have, want) < 0, err, PQ_ERR_NOMEM, path, -1,
                    "out of memory");
    size_t row = 0;
    half h = {out, path, {text, cut, c.end}, idx, nfields, before + 1, 0, PQ_OK, {0}};
    pthread_t t;
    int threaded = cut && pthread_create(&t, NULL, half_run, &h) == 0;
    if (threaded) {
        /* Mode 2 here too while the other half runs: the last row may run past the cut, and
         * neither side writes the text before the join. A row that fails here is read again
         * in mode 1 below, which gives the error. */
        while (c.p < cut) {
            uint8_t *p0 = c.p;
            pq_error lerr;
            if (parse_row(out, path, &c, idx, nfields, 2, &row, &lerr) != PQ_OK) {
                c.p = p0;
                break;
            }
        }
        pthread_join(t, NULL);
        finish_strings(out, 0, row, out->text.data, out->text.data + out->text.size + 1);
        if (c.p == cut && h.st == PQ_OK && row < h.row0) {
            finish_strings(out, h.row0, h.row, out->text.data, out->text.data + out->text.size + 1);
            move_rows(out, row, h.row0, h.row - h.row0);
            row += h.row - h.row0;
            c.p = c.end;
        }
    }
    FORWARD_IF_ERROR(parse_rows(out, path, &c, c.end, idx, nfields, 1, &row, err));
    out->n = row;
    return PQ_OK;
}

/* ---- csv while it is decoded ---- */

/* The '\n' and '\r' in [P, END): a text has at most one row more than that. */
static size_t line_ends(const uint8_t *p, const uint8_t *end)
{
    size_t k = 0;
    for (int j = 0; j < 2; j++)
        for (const uint8_t *q = p; (q = memchr(q, "\n\r"[j], (size_t)(end - q))) != NULL; q++)
            k++;
    return k;
}

/* Just after the last '\n' in [FROM, TO), NULL when none. */
static const uint8_t *after_last_nl(const uint8_t *from, const uint8_t *to)
{
    while (to > from && to[-1] != '\n')
        to--;
    return to > from ? to : NULL;
}

/* Room for NEED rows in OUT's arrays (*CAP now): bigger arrays in the arena, the first ROWS
 * rows copied over. */
static int grow_cols(pushpop *out, size_t *cap, size_t need, size_t rows, const int *have,
                     unsigned want)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap * 2 > need ? *cap * 2 : need;
    pushpop old = *out;
    if (alloc_cols(out, ncap, have, want) < 0)
        return -1;
    for (int c = 0; c < NCOLS; c++) {
        int64_t **a = int_col(out, c), **o = int_col(&old, c);
        if (a && *a && *o)
            memcpy(*a, *o, rows * sizeof **a);
    }
    memcpy(out->name, old.name, rows * sizeof *out->name);
    if (old.range_stack)
        memcpy(out->range_stack, old.range_stack, rows * sizeof *out->range_stack);
    if (old.parent_valid)
        memcpy(out->parent_valid, old.parent_valid, rows);
    *cap = ncap;
    return 0;
}

/* Text decoded before the header is tried (it is parsed on a copy of the lines so far). */
enum { HEAD_BYTES = 64 << 10 };

/* The header, once HEAD_BYTES are decoded, on a copy of the lines so far (csv_header writes
 * into the text); the row arrays sized from those lines: a guess, +25% (grow_cols grows),
 * at most one row per nfields bytes (its separators and line end). ps->head 1 when read. */
static void stream_header(pushpop_stream *ps)
{
    const uint8_t *buf = ps->x.buf, *limit = after_last_nl(buf, buf + ps->done);
    ps->head_tried = 1;
    if (!limit)
        return;
    size_t n = (size_t)(limit - buf);
    uint8_t *tmp = pq_malloc(n + MAPFILE_PADDING);
    csv h = {tmp, tmp, tmp + n};
    pq_error lerr;
    if (tmp) {
        memcpy(tmp, buf, n);
        memset(tmp + n, 0, MAPFILE_PADDING);
        ps->head =
            csv_header(&h, ps->path, ps->want, ps->idx, &ps->nfields, ps->have, &lerr) == PQ_OK;
        ps->c = (csv){(uint8_t *)buf, (uint8_t *)buf + (h.p - tmp), (uint8_t *)limit};
        size_t lines = line_ends(h.p, h.end) + 1, most = ps->x.cap / (ps->nfields + 1) + 2;
        ps->cap = lines * (ps->x.cap / n + 1) / 4 * 5 + 64;
        ps->cap = ps->cap < most ? ps->cap : most;
    }
    pq_free(tmp);
    if (ps->head && alloc_cols(ps->out, ps->cap, ps->have, ps->want) < 0)
        ps->head = 0;
}

static int stream_start(pushpop_stream *ps, const uint8_t *data, size_t n, const char *path,
                        unsigned want, pushpop *out)
{
    static const uint8_t xz_magic[6] = {0xfd, '7', 'z', 'X', 'Z', 0};
    memset(ps, 0, sizeof *ps);
    memset(out, 0, sizeof *out);
    arena_init(&out->a);
    if (n < 6 || memcmp(data, xz_magic, 6) != 0 ||
        !xz_stream_start(&ps->x, data, n, path, SPLIT_MIN))
        return 0;
    ps->out = out;
    ps->path = path;
    ps->want = want;
    ps->state = XZS_RUNNING;
    return 1;
}

int pushpop_stream_start(pushpop_stream *ps, const uint8_t *data, size_t n, const char *path,
                         pushpop *out)
{
    return stream_start(ps, data, n, path, FED_COLS, out);
}

/* Reads the rows that end before the last '\n' decoded so far, in csv_field mode 2 (the
 * text left alone), and unquotes their strings in place; a row that fails there (cut by
 * the chunk, or wrong) is tried again with more text. A row read whole before the last
 * '\n' reads the same as in the whole text (only a scan that reaches the end of the text
 * differs, and then it fails), so what pushpop_stream_end gives does not depend on where
 * the chunks end or on thread timing. */
int pushpop_stream_step(pushpop_stream *ps, int wait)
{
    if (ps->state != XZS_RUNNING)
        return 0;
    size_t before = ps->done;
    ps->done =
        wait ? xz_stream_wait(&ps->x, ps->done, &ps->state) : xz_stream_poll(&ps->x, &ps->state);
    if (ps->state != XZS_RUNNING)
        return 0;
    if (!ps->head_tried) {
        if (ps->done >= HEAD_BYTES)
            stream_header(ps);
        return 1;
    }
    const uint8_t *nl =
        ps->head > 0 ? after_last_nl(ps->x.buf + before, ps->x.buf + ps->done) : NULL;
    if (nl)
        ps->c.end = (uint8_t *)nl;
    pushpop *out = ps->out;
    while (ps->head > 0 && ps->c.p < ps->c.end) {
        uint8_t *p0 = ps->c.p;
        size_t r0 = ps->row;
        pq_error lerr;
        if (grow_cols(out, &ps->cap, ps->row + 1, ps->row, ps->have, ps->want) < 0) {
            ps->head = -1; /* the text is no longer as decoded: no parse_text after this */
            break;
        }
        if (parse_row(out, ps->path, &ps->c, ps->idx, ps->nfields, 2, &ps->row, &lerr) != PQ_OK) {
            ps->c.p = p0; /* cut, or wrong: tried again with more text */
            ps->row = r0;
            break;
        }
    }
    if (ps->head > 0 && stream_aside(out, ps->finished, ps->row) < 0)
        ps->head = -1;
    else
        ps->finished = ps->row;
    return 1;
}

/* After the decoder's end one last pass reads the rest in mode 1, exactly as parse_text
 * does, and gives every error; when the header did not parse in the first lines, or the
 * stream was not decoded in place (xz_stream_finish: an error, a size the index did not
 * tell), parse_text reads it all. */
pq_status pushpop_stream_end(pushpop_stream *ps, pq_error *err)
{
    while (pushpop_stream_step(ps, 1))
        ;
    pushpop *out = ps->out;
    int over = 0;
    FORWARD_IF_ERROR(xz_stream_finish(&ps->x, &out->text, &over, err));
    RETURN_ERROR_IF(!over && ps->head < 0, err, PQ_ERR_NOMEM, ps->path, -1, "out of memory");
    if (over || !ps->head) {
        arena_release(&out->a);
        arena_init(&out->a);
        return parse_text(out, ps->path, ps->want, err);
    }
    /* The rows read whole while decoding: their raw spans are NUL-terminated only now, as
     * the decoder reads its matches from the text (io/xzdec.c: the output is its
     * dictionary); stream_aside unquoted the others into the arena. */
    finish_strings(out, 0, ps->row, out->text.data, out->text.data + out->text.size + 1);
    csv *c = &ps->c;
    c->end = (uint8_t *)out->text.data + out->text.size;
    RETURN_ERROR_IF(grow_cols(out, &ps->cap, ps->row + line_ends(c->p, c->end) + 2, ps->row,
                              ps->have, ps->want) < 0,
                    err, PQ_ERR_NOMEM, ps->path, -1, "out of memory");
    FORWARD_IF_ERROR(parse_rows(out, ps->path, c, c->end, ps->idx, ps->nfields, 1, &ps->row, err));
    out->n = ps->row;
    return PQ_OK;
}

pq_status pushpop_parse_csv(const uint8_t *text, size_t n, const char *path, pushpop *out,
                            pq_error *err)
{
    memset(out, 0, sizeof *out);
    arena_init(&out->a);
    FORWARD_IF_ERROR(mapfile_copy(text, n, path, &out->text, err));
    return parse_text(out, path, ALL_COLS, err);
}

/* ---- parquet ---- */

static pq_status pq_int_column(pushpop *p, const parquet_file *f, int col, const char *path,
                               pq_error *err)
{
    long ci = parquet_find_column(f, col_names[col]);
    RETURN_ERROR_IF(ci < 0, err, PQ_ERR_INPUT, path, -1,
                    "expected a nvtx_pushpop_trace parquet with a '%s' column", col_names[col]);
    parquet_values v;
    pq_status st = parquet_read_column(f, (size_t)ci, &v, err);
    if (st == PQ_OK && (col == C_NAME || col == C_RANGESTACK) && !v.str)
        st = err_set(err, PQ_ERR_INPUT, path, -1, "column '%s': expected strings (BYTE_ARRAY)",
                     col_names[col]);
    int64_t *dst = col < NCOLS && int_col(p, col) ? *int_col(p, col) : NULL;
    for (size_t i = 0; st == PQ_OK && i < v.n; i++) {
        int ok = !v.valid || v.valid[i];
        if (col == C_NAME || col == C_RANGESTACK) {
            pq_str *s = col == C_NAME ? &p->name[i] : &p->range_stack[i];
            s->p = ok ? arena_strndup(&p->a, v.str[i].p, v.str[i].n) : "";
            s->n = ok ? v.str[i].n : 0;
            if (!s->p)
                st = err_set(err, PQ_ERR_NOMEM, path, -1, "out of memory");
            continue;
        }
        int64_t x = 0;
        if (ok && v.i64)
            x = v.i64[i];
        else if (ok && v.i32)
            x = v.i32[i];
        else if (ok && v.f64) {
            double d = v.f64[i];
            if (!(d >= -9.2e18 && d <= 9.2e18) || floor(d) != d)
                ok = -1;
            else
                x = (int64_t)d;
        } else if (ok)
            ok = -1;
        if (ok < 0 || (!ok && col != C_PARENTID))
            st = err_set(err, PQ_ERR_INPUT, path, -1,
                         "column '%s' row %zu: expected an integer (INT32, INT64 or an "
                         "integral DOUBLE)%s",
                         col_names[col], i + 1, ok ? "" : ", found a null");
        dst[i] = x;
        if (col == C_PARENTID)
            p->parent_valid[i] = ok == 1;
    }
    parquet_values_free(&v);
    return st;
}

static pq_status read_parquet(const uint8_t *data, size_t n, const char *path, unsigned want,
                              pushpop *out, pq_error *err)
{
    memset(out, 0, sizeof *out);
    arena_init(&out->a);
    parquet_file *f;
    FORWARD_IF_ERROR(parquet_open(data, n, path, &f, err));
    int have[NCOLS] = {0};
    for (int c = 0; c < NCOLS; c++)
        have[c] = parquet_find_column(f, col_names[c]) >= 0;
    size_t rows = (size_t)parquet_num_rows(f);
    pq_status st = PQ_OK;
    if (alloc_cols(out, rows, have, want) < 0)
        st = err_set(err, PQ_ERR_NOMEM, path, -1, "out of memory");
    for (int c = 0; c < NCOLS && st == PQ_OK; c++) {
        if (c < NREQUIRED && !(want >> c & 1) && !have[c]) /* not read, still required */
            st = err_set(err, PQ_ERR_INPUT, path, -1,
                         "expected a nvtx_pushpop_trace parquet with a '%s' column", col_names[c]);
        else if ((c < NREQUIRED || have[c]) && (want >> c & 1))
            st = pq_int_column(out, f, c, path, err);
    }
    if (st == PQ_OK)
        out->n = rows;
    parquet_close(f);
    return st;
}

pq_status pushpop_read_parquet(const uint8_t *data, size_t n, const char *path, pushpop *out,
                               pq_error *err)
{
    return read_parquet(data, n, path, ALL_COLS, out, err);
}

static pq_status read_any(const uint8_t *data, size_t n, const char *path, unsigned want,
                          pushpop *out, pq_error *err)
{
    static const uint8_t xz_magic[6] = {0xfd, '7', 'z', 'X', 'Z', 0};
    if (n >= 4 && !memcmp(data, "PAR1", 4))
        return read_parquet(data, n, path, want, out, err);
    memset(out, 0, sizeof *out);
    arena_init(&out->a);
    pushpop_stream ps;
    if (stream_start(&ps, data, n, path, want, out))
        return pushpop_stream_end(&ps, err);
    if (n >= 6 && !memcmp(data, xz_magic, 6)) /* decompressed into out->text, parsed there */
        FORWARD_IF_ERROR(xz_decompress(data, n, path, &out->text, err));
    else
        FORWARD_IF_ERROR(mapfile_copy(data, n, path, &out->text, err));
    return parse_text(out, path, want, err);
}

pq_status pushpop_read(const uint8_t *data, size_t n, const char *path, pushpop *out, pq_error *err)
{
    return read_any(data, n, path, ALL_COLS, out, err);
}

pq_status pushpop_read_fed(const uint8_t *data, size_t n, const char *path, pushpop *out,
                           pq_error *err)
{
    return read_any(data, n, path, FED_COLS, out, err);
}
