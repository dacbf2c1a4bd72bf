/* ttlog.c - reads Tenstorrent runtime logs (tt-mlir with TTMLIR_RUNTIME_LOGGER_LEVEL=DEBUG and
 * TT_RUNTIME_MEMORY_LOG_LEVEL=operation|program) into a tt_log. It is a line reader: each line
 * is cut at '\n', ANSI colour codes are removed, and a runtime line is recognised by its
 * "<type> | <LEVEL> | <message>" header; every other line (Python output, PJRT traces, MLIR
 * module bodies) is skipped, so interleaved output is harmless. A memory block is a header
 * line followed by four MemoryView lines (DRAM, L1, L1_SMALL, TRACE, any order, other lines
 * in between allowed); a block that breaks off or does not parse is counted as malformed and
 * skipped, never fatal. Three log shapes are read (spec section 3, ../shared/data/tenstorrent):
 * per-op blocks preceded by the op text, per-op blocks with only the OpType, and op text with
 * blocks per submit. deallocate and get_device ops are counted, not emitted (as the seed).
 * Not here: analyses (analysis/ttmem.c) and output (render/ttmem.c). */
#define _GNU_SOURCE /* memmem */
#include "ttlog.h"
#include "core/alloc.h"
#include "core/err.h"

#include <stdlib.h>
#include <string.h>

const char *const TT_MEM_NAMES[TT_NMEM] = {"DRAM", "L1", "L1_SMALL", "TRACE"};

/* ------------------------------------------------------------------------------------------
 * Small string helpers over views. */

static pq_str sv(const char *p, size_t n)
{
    pq_str s = {p, n};
    return s;
}

static int starts(pq_str s, const char *lit)
{
    size_t n = strlen(lit);
    return s.n >= n && memcmp(s.p, lit, n) == 0;
}

static const char *find(pq_str s, const char *lit)
{
    size_t n = strlen(lit);
    if (s.n < n)
        return NULL;
    return memmem(s.p, s.n, lit, n);
}

static pq_str trim(pq_str s)
{
    while (s.n && (s.p[0] == ' ' || s.p[0] == '\t'))
        s.p++, s.n--;
    while (s.n && (s.p[s.n - 1] == ' ' || s.p[s.n - 1] == '\t' || s.p[s.n - 1] == '\r'))
        s.n--;
    return s;
}

static int is_word(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Parses a decimal "123.456" exactly as strtod would for up to 18 significant digits. */
static int parse_num(const char **pp, const char *end, double *out)
{
    const char *p = *pp;
    int neg = 0;
    if (p < end && *p == '-')
        neg = 1, p++;
    uint64_t mant = 0;
    int digits = 0, frac = 0;
    while (p < end && is_digit(*p) && digits < 18)
        mant = mant * 10 + (uint64_t)(*p++ - '0'), digits++;
    if (p < end && *p == '.') {
        p++;
        while (p < end && is_digit(*p) && digits < 18)
            mant = mant * 10 + (uint64_t)(*p++ - '0'), digits++, frac++;
    }
    if (digits == 0 || (p < end && is_digit(*p)))
        return 0;
    static const double P10[] = {1,    1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8, 1e9,
                                 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18};
    /* mant < 2^63 is exact when it has at most 15 digits; both operands exact means the
     * division is the correctly rounded value, which is what strtod returns. */
    double v = (double)mant / P10[frac];
    *out = neg ? -v : v;
    *pp = p;
    return 1;
}

/* ------------------------------------------------------------------------------------------
 * A string-keyed open-addressing map (live tensors by SSA name, cache-missed functions). */

typedef struct smap_entry {
    pq_str key; /* key.p == NULL: empty slot */
    uint64_t a, b;
    int c;
    int live;
} smap_entry;

typedef struct smap {
    smap_entry *e;
    size_t cap, n;
} smap;

static uint64_t hash_str(pq_str s)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < s.n; i++)
        h = (h ^ (unsigned char)s.p[i]) * 1099511628211ull;
    return h;
}

static smap_entry *smap_get(smap *m, pq_str key, int create)
{
    if (create && (m->n + 1) * 2 > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        smap_entry *e = pq_calloc(cap, sizeof *e);
        if (!e)
            return NULL;
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->e[i].key.p)
                continue;
            size_t j = hash_str(m->e[i].key) & (cap - 1);
            while (e[j].key.p)
                j = (j + 1) & (cap - 1);
            e[j] = m->e[i];
        }
        pq_free(m->e);
        m->e = e;
        m->cap = cap;
    }
    if (!m->cap)
        return NULL;
    size_t j = hash_str(key) & (m->cap - 1);
    while (m->e[j].key.p) {
        if (m->e[j].key.n == key.n && memcmp(m->e[j].key.p, key.p, key.n) == 0)
            return &m->e[j];
        j = (j + 1) & (m->cap - 1);
    }
    if (!create)
        return NULL;
    m->e[j].key = key;
    m->n++;
    return &m->e[j];
}

/* ------------------------------------------------------------------------------------------
 * Types, shapes and layouts (the seed's mlir_parser). */

uint64_t ttlog_dtype_bytes(pq_str d)
{
    static const struct {
        const char *name;
        uint64_t size;
    } T[] = {{"bf16", 2}, {"f16", 2}, {"f32", 4}, {"f64", 8}, {"i8", 1},  {"si8", 1},
             {"ui8", 1},  {"i16", 2}, {"i32", 4}, {"i64", 8}, {"bool", 1}};
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++)
        if (d.n == strlen(T[i].name) && memcmp(d.p, T[i].name, d.n) == 0)
            return T[i].size;
    return 4;
}

int ttlog_next_tensor(pq_str t, size_t *pos, pq_str *shape, pq_str *dtype)
{
    while (*pos < t.n) {
        const char *p = memmem(t.p + *pos, t.n - *pos, "tensor<", 7);
        if (!p)
            break;
        const char *end = t.p + t.n, *q = p + 7, *s = q;
        *pos = (size_t)(q - t.p);
        /* [\dx]+ then [a-zA-Z]\w*: the last 'x' before a letter ends the shape. */
        const char *last_x = NULL;
        while (q < end && (is_digit(*q) || *q == 'x')) {
            if (*q == 'x')
                last_x = q;
            q++;
        }
        const char *dt;
        if (q < end && ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z')) && q > s) {
            dt = q;
        } else if (last_x && last_x + 1 < end && !is_digit(last_x[1])) {
            dt = last_x + 1; /* "4x32xbf16": the letters start right after the last x */
        } else if (q > s && last_x == q - 1) {
            dt = q;
        } else {
            continue;
        }
        if (dt < end && (dt[0] < 'a' || dt[0] > 'z') && (dt[0] < 'A' || dt[0] > 'Z'))
            continue;
        const char *de = dt;
        while (de < end && is_word(*de))
            de++;
        size_t sn = (size_t)(dt - s);
        if (sn && s[sn - 1] == 'x')
            sn--;
        *shape = sv(s, sn);
        *dtype = sv(dt, (size_t)(de - dt));
        *pos = (size_t)(de - t.p);
        return 1;
    }
    *pos = t.n;
    return 0;
}

static int parse_dims(pq_str s, int64_t *dims, int max)
{
    int n = 0;
    size_t i = 0;
    while (i < s.n && n < max) {
        int64_t v = 0;
        size_t start = i;
        while (i < s.n && is_digit(s.p[i]) && v < ((int64_t)1 << 40))
            v = v * 10 + (s.p[i++] - '0');
        if (i == start)
            return n;
        dims[n++] = v;
        if (i < s.n && s.p[i] == 'x')
            i++;
        else
            break;
    }
    return n;
}

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
    if (a && b > UINT64_MAX / a)
        return UINT64_MAX;
    return a * b;
}

void ttlog_layout_of(pq_str t, tt_layout *o)
{
    memset(o, 0, sizeof *o);
    size_t pos = 0;
    pq_str shape, dtype;
    if (!ttlog_next_tensor(t, &pos, &shape, &dtype))
        return;
    o->present = 1;
    o->dtype = dtype;
    o->ndims = parse_dims(shape, o->shape, TT_MAX_DIMS);
    uint64_t size = ttlog_dtype_bytes(dtype), unpadded = size;
    for (int i = 0; i < o->ndims; i++)
        unpadded = mul_sat(unpadded, (uint64_t)o->shape[i]);
    o->unpadded_bytes = unpadded;
    o->padded_bytes = unpadded;
    o->padded_ndims = o->ndims;
    memcpy(o->padded_shape, o->shape, sizeof o->shape);
    /* memref<AxBx!ttcore.tile<32x32, bf16>  (older dialect: !tt.tile) */
    const char *m = find(t, "memref<");
    if (m) {
        pq_str rest = sv(m + 7, (size_t)(t.p + t.n - (m + 7)));
        const char *tile = find(rest, "x!ttcore.tile<");
        size_t skip = 14;
        if (!tile)
            tile = find(rest, "x!tt.tile<"), skip = 10;
        int64_t md[TT_MAX_DIMS];
        if (tile) {
            pq_str dims = sv(rest.p, (size_t)(tile - rest.p));
            int nd = parse_dims(dims, md, TT_MAX_DIMS);
            int64_t th[2];
            pq_str ts = sv(tile + skip, (size_t)(t.p + t.n - (tile + skip)));
            int nt = parse_dims(ts, th, 2);
            if (nd >= 1 && nt == 2) {
                o->tiled = 1;
                o->tile_h = th[0];
                o->tile_w = th[1];
                o->memref_ndims = nd;
                memcpy(o->memref_shape, md, sizeof(int64_t) * (size_t)nd);
                if (nd == 1) {
                    o->padded_ndims = 2;
                    o->padded_shape[0] = th[0];
                    o->padded_shape[1] = md[0] * th[1];
                } else {
                    o->padded_ndims = nd;
                    for (int i = 0; i < nd - 2; i++)
                        o->padded_shape[i] = md[i];
                    o->padded_shape[nd - 2] = md[nd - 2] * th[0];
                    o->padded_shape[nd - 1] = md[nd - 1] * th[1];
                }
                uint64_t padded = size;
                for (int i = 0; i < o->padded_ndims; i++)
                    padded = mul_sat(padded, (uint64_t)o->padded_shape[i]);
                o->padded_bytes = padded;
            }
        } else {
            const char *q = rest.p, *e = rest.p + rest.n;
            while (q < e && (is_digit(*q) || *q == 'x'))
                q++;
            o->memref_ndims =
                parse_dims(sv(rest.p, (size_t)(q - rest.p)), o->memref_shape, TT_MAX_DIMS);
        }
    }
    const char *bt = find(t, "#ttnn.buffer_type<");
    if (bt) {
        const char *s = bt + 18, *e = s, *end = t.p + t.n;
        while (e < end && is_word(*e))
            e++;
        o->buffer_type = sv(s, (size_t)(e - s));
    }
}

/* Skips a balanced bracket group starting at P (one of ( [ { <); returns the position after
 * it, or END when it does not close. "->" inside is not a closing '>'. */
static const char *skip_group(const char *p, const char *end)
{
    /* 1 opens, 2 closes, 3 '-' (maybe "->"), 4 '"'; 0 is every other byte: one load and one
     * test per byte on the long layout strings. */
    static const unsigned char K[256] = {['('] = 1, ['['] = 1, ['{'] = 1, ['<'] = 1, [')'] = 2,
                                         [']'] = 2, ['}'] = 2, ['>'] = 2, ['-'] = 3, ['"'] = 4};
    int depth = 0;
    while (p < end) {
        unsigned k = K[(unsigned char)*p];
        if (!k) {
            p++;
            continue;
        }
        if (k == 3) {
            p += (p + 1 < end && p[1] == '>') ? 2 : 1;
            continue;
        }
        if (k == 4) {
            p++;
            while (p < end && *p != '"')
                p += (*p == '\\' && p + 1 < end) ? 2 : 1;
            if (p < end)
                p++;
            continue;
        }
        depth += k == 1 ? 1 : -1;
        p++;
        if (depth <= 0)
            return p;
    }
    return end;
}

/* Splits the MLIR op text into the seed's fields. Fields it cannot find stay empty. */
static void parse_op_text(tt_op *op)
{
    pq_str t = op->text;
    const char *p = t.p, *end = t.p + t.n;
    if (p < end && *p == '%') {
        const char *q = p + 1;
        while (q < end && (is_word(*q) || *q == ':'))
            q++;
        op->result = sv(p, (size_t)(q - p));
        while (q < end && *q == ' ')
            q++;
        if (q < end && *q == '=') {
            q++;
            while (q < end && *q == ' ')
                q++;
            p = q;
        } else {
            op->result = sv(NULL, 0);
        }
    }
    const char *ns = p;
    if (p < end && *p == '"')
        ns = ++p;
    while (p < end && (is_word(*p) || *p == '.'))
        p++;
    op->name = sv(ns, (size_t)(p - ns));
    if (p < end && *p == '"')
        p++;
    if (p < end && *p == '(') {
        const char *close = skip_group(p, end);
        if (close > p + 1 && close[-1] == ')')
            op->operands = trim(sv(p + 1, (size_t)(close - 1 - (p + 1))));
        p = close;
    }
    while (p < end && *p == ' ')
        p++;
    if (end - p >= 2 && p[0] == '<' && p[1] == '{') {
        const char *close = skip_group(p, end); /* the <...> group */
        if (close - p >= 4 && close[-2] == '}')
            op->attributes = sv(p + 2, (size_t)(close - 2 - (p + 2)));
        p = close;
    }
    /* region attributes `{...}` some ops print after the properties */
    while (p < end && *p == ' ')
        p++;
    if (p < end && *p == '{')
        p = skip_group(p, end);
    while (p < end && *p == ' ')
        p++;
    /* loc: the first loc("...") of the text, after the type signature is located. */
    pq_str rest = sv(p, (size_t)(end - p));
    const char *sig_end = end;                        /* the last " loc(" ends the signature */
    for (size_t k = (size_t)(end - p); k >= 5; k--) { /* offsets, never a pointer before p */
        if (memcmp(p + k - 5, " loc(", 5) == 0) {
            sig_end = p + k - 5;
            break;
        }
    }
    if (rest.n >= 2 && p[0] == ':' && p[1] == ' ') {
        if (sig_end < p + 2) /* ": loc(..." has an empty signature (found by fuzz_ttlog) */
            sig_end = p + 2;
        pq_str sig = trim(sv(p + 2, (size_t)(sig_end - (p + 2))));
        /* split at the top-level " -> " */
        const char *s = sig.p, *se = sig.p + sig.n, *arrow = NULL, *first_end = NULL;
        while (s < se) {
            if (*s == ' ' && s + 4 <= se && memcmp(s, " -> ", 4) == 0) {
                arrow = s;
                break;
            }
            if (*s == '(' || *s == '[' || *s == '{' || *s == '<') {
                const char *g = skip_group(s, se);
                if (s == sig.p)
                    first_end = g; /* where a parenthesised input list closes */
                s = g;
            } else {
                s++;
            }
        }
        if (arrow) {
            pq_str in = trim(sv(sig.p, (size_t)(arrow - sig.p)));
            if (in.n >= 2 && in.p[0] == '(' && first_end == in.p + in.n)
                in = sv(in.p + 1, in.n - 2);
            op->input_types = in;
            op->output_type = trim(sv(arrow + 4, (size_t)(se - (arrow + 4))));
        } else {
            op->output_type = sig;
        }
    }
    const char *loc = find(t, "loc(\"");
    if (loc) {
        const char *s = loc + 5, *e = s;
        while (e < end && *e != '"')
            e += (*e == '\\' && e + 1 < end) ? 2 : 1;
        if (e > end)
            e = end;
        op->loc = sv(s, (size_t)(e - s));
    } else if (op->name.n >= 11 && memcmp(op->name.p + op->name.n - 11, "load_cached", 11) == 0 &&
               op->operands.n && op->operands.p[0] == '@') {
        const char *s = op->operands.p + 1, *e = s, *oe = op->operands.p + op->operands.n;
        while (e < oe && (is_word(*e) || *e == '.'))
            e++;
        op->loc = sv(s, (size_t)(e - s));
    }
    ttlog_layout_of(op->output_type, &op->out);
}

static int name_ends(pq_str name, const char *suffix)
{
    size_t n = strlen(suffix);
    return name.n >= n && memcmp(name.p + name.n - n, suffix, n) == 0 &&
           (name.n == n || name.p[name.n - n - 1] == '.');
}

static int op_text_excluded(const tt_op *op)
{
    return name_ends(op->name, "deallocate") || name_ends(op->name, "get_device");
}

static int op_type_excluded(pq_str type)
{
    return (type.n == 12 && memcmp(type.p, "DeallocateOp", 12) == 0) ||
           (type.n == 11 && memcmp(type.p, "GetDeviceOp", 11) == 0);
}

/* ------------------------------------------------------------------------------------------
 * MemoryView{numBanks: 12, totalBytesPerBank: 1024.000 MB, ...} */

static int parse_memview(pq_str s, tt_memview *mv)
{
    const char *p = find(s, "MemoryView{");
    if (!p)
        return 0;
    p += 11;
    const char *end = s.p + s.n;
    unsigned seen = 0;
    memset(mv, 0, sizeof *mv);
    while (p < end && *p != '}') {
        while (p < end && (*p == ' ' || *p == ','))
            p++;
        const char *k = p;
        while (p < end && is_word(*p))
            p++;
        pq_str key = sv(k, (size_t)(p - k));
        if (p >= end || *p != ':' || key.n == 0)
            return 0;
        p++;
        while (p < end && *p == ' ')
            p++;
        double v;
        if (!parse_num(&p, end, &v))
            return 0;
        if (end - p >= 3 && memcmp(p, " MB", 3) == 0)
            p += 3;
        if (key.n == 8 && memcmp(key.p, "numBanks", 8) == 0)
            mv->num_banks = (int64_t)v, seen |= 1;
        else if (key.n == 17 && memcmp(key.p, "totalBytesPerBank", 17) == 0)
            mv->total_mb = v, seen |= 2;
        else if (key.n == 26 && memcmp(key.p, "totalBytesAllocatedPerBank", 26) == 0)
            mv->alloc_mb = v, seen |= 4;
        else if (key.n == 21 && memcmp(key.p, "totalBytesFreePerBank", 21) == 0)
            mv->free_mb = v, seen |= 8;
        else if (key.n == 33 && memcmp(key.p, "largestContiguousBytesFreePerBank", 33) == 0)
            mv->largest_free_mb = v, seen |= 16;
        if (p < end && *p != ',' && *p != '}')
            return 0;
    }
    return p < end && seen == 31;
}

/* ------------------------------------------------------------------------------------------
 * The line loop. */

typedef struct vec {
    void *p;
    size_t n, cap;
} vec;

static void *vec_push(vec *v, size_t elem)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 64;
        void *np = pq_realloc(v->p, cap * elem);
        if (!np)
            return NULL;
        v->p = np;
        v->cap = cap;
    }
    void *e = (char *)v->p + v->n * elem;
    memset(e, 0, elem);
    v->n++;
    return e;
}

enum { BLOCK_NONE = 0, BLOCK_OP = 1, BLOCK_BEFORE_SUBMIT = 2, BLOCK_AFTER_SUBMIT = 3 };
enum { MAX_LINES_IN_BLOCK = 64, MAX_PROGRAM_DEPTH = 64 };

typedef struct parser {
    tt_log *log;
    vec blk_ops, exec_ops, submits, modules, warnings;
    smap live, missed;
    tt_live totals[2]; /* sums over the live tensors: [0] DRAM, [1] L1 */
    /* the open memory block */
    int block;
    int64_t block_off;
    unsigned block_seen;
    int block_lines;
    tt_memview block_mem[TT_NMEM];
    pq_str block_type;
    /* the executed op waiting for its "before operation" block */
    int has_pending;
    tt_op pending;
    /* latest submit block, for submit-shaped logs */
    int has_submit;
    tt_memview submit_mem[TT_NMEM];
    int submit_after;
    uint64_t submit_number;
    /* const-eval program stack */
    pq_str programs[MAX_PROGRAM_DEPTH];
    int nprograms;
    int in_module;
    int64_t first_malformed;
    int nomem;
} parser;

static void warn(parser *ps, int64_t off, const char *what)
{
    if (ps->warnings.n >= TT_MAX_WARNINGS)
        return;
    tt_warning *w = vec_push(&ps->warnings, sizeof *w);
    if (!w) {
        ps->nomem = 1;
        return;
    }
    w->offset = off;
    w->what = what;
}

static void malformed(parser *ps, int64_t off, const char *what)
{
    ps->log->malformed_blocks++;
    if (ps->first_malformed < 0)
        ps->first_malformed = off;
    warn(ps, off, what);
}

static void block_abort(parser *ps)
{
    if (ps->block == BLOCK_NONE)
        return;
    malformed(ps, ps->block_off,
              "expected four MemoryView lines (DRAM, L1, L1_SMALL, TRACE) after the memory "
              "state header");
    ps->block = BLOCK_NONE;
}

static void block_done(parser *ps)
{
    tt_log *log = ps->log;
    if (ps->block == BLOCK_OP) {
        log->op_blocks++;
        int excluded = op_type_excluded(ps->block_type);
        if (!excluded && ps->has_pending && op_text_excluded(&ps->pending))
            excluded = 1;
        if (excluded) {
            log->excluded_ops++;
            if (ps->has_pending && op_text_excluded(&ps->pending))
                ps->has_pending = 0;
        } else {
            tt_op *op = vec_push(&ps->blk_ops, sizeof *op);
            if (!op) {
                ps->nomem = 1;
                return;
            }
            if (ps->has_pending) {
                *op = ps->pending;
                ps->has_pending = 0;
            } else {
                op->offset = ps->block_off;
                op->submit = -1;
                if (ps->nprograms && find(ps->programs[ps->nprograms - 1], "const_eval")) {
                    op->const_eval = ps->programs[ps->nprograms - 1];
                    op->is_weight = 1;
                    op->cache_miss = smap_get(&ps->missed, op->const_eval, 0) != NULL;
                }
            }
            op->op_type = ps->block_type;
            memcpy(op->mem, ps->block_mem, sizeof op->mem);
            op->mem_source = TT_MEM_OPERATION;
        }
    } else {
        int after = ps->block == BLOCK_AFTER_SUBMIT;
        tt_submit *s = vec_push(&ps->submits, sizeof *s);
        if (!s) {
            ps->nomem = 1;
            return;
        }
        if (!after && ps->has_submit)
            ps->submit_number++;
        if (after && ps->has_submit && ps->submit_after)
            ps->submit_number++; /* two "after" in a row: the "before" was not logged */
        s->after = after;
        s->offset = ps->block_off;
        s->number = ps->submit_number;
        s->ops_before = ps->exec_ops.n;
        memcpy(s->mem, ps->block_mem, sizeof s->mem);
        memcpy(ps->submit_mem, ps->block_mem, sizeof ps->submit_mem);
        ps->has_submit = 1;
        ps->submit_after = after;
    }
    ps->block = BLOCK_NONE;
}

/* Records the running live-tensor sums of DRAM and L1 into OP. */
static void live_update(parser *ps, tt_op *op)
{
    if (op_text_excluded(op)) {
        if (name_ends(op->name, "deallocate") && op->operands.n) {
            pq_str first = op->operands;
            const char *c = memchr(first.p, ',', first.n);
            if (c)
                first.n = (size_t)(c - first.p);
            first = trim(first);
            smap_entry *e = smap_get(&ps->live, first, 0);
            if (e && e->live) {
                e->live = 0;
                ps->totals[e->c].unpadded_bytes -= e->a;
                ps->totals[e->c].padded_bytes -= e->b;
                ps->totals[e->c].num_tensors--;
            }
        }
        return;
    }
    if (op->result.n && op->out.present && op->out.buffer_type.n) {
        int bt = -1;
        if (op->out.buffer_type.n == 4 && memcmp(op->out.buffer_type.p, "dram", 4) == 0)
            bt = 0;
        else if (op->out.buffer_type.n == 2 && memcmp(op->out.buffer_type.p, "l1", 2) == 0)
            bt = 1;
        if (bt >= 0) {
            smap_entry *e = smap_get(&ps->live, op->result, 1);
            if (!e) {
                ps->nomem = 1;
                return;
            }
            if (e->live) {
                ps->totals[e->c].unpadded_bytes -= e->a;
                ps->totals[e->c].padded_bytes -= e->b;
                ps->totals[e->c].num_tensors--;
            }
            e->a = op->out.unpadded_bytes;
            e->b = op->out.padded_bytes;
            e->c = bt;
            e->live = 1;
            ps->totals[bt].unpadded_bytes += e->a;
            ps->totals[bt].padded_bytes += e->b;
            ps->totals[bt].num_tensors++;
        }
    }
}

/* The running sums over the live map (the seed's unpadded_memory of an emitted op). */
static void live_sums(parser *ps, tt_op *op)
{
    memcpy(op->live, ps->totals, sizeof op->live);
}

static void on_exec(parser *ps, pq_str msg, int64_t off)
{
    tt_log *log = ps->log;
    log->executed_ops++;
    tt_op op;
    memset(&op, 0, sizeof op);
    op.text = trim(msg);
    op.offset = off;
    op.submit = ps->has_submit ? (int64_t)ps->submit_number : -1;
    parse_op_text(&op);
    if (ps->nprograms && find(ps->programs[ps->nprograms - 1], "const_eval")) {
        op.const_eval = ps->programs[ps->nprograms - 1];
        op.is_weight = 1;
        op.cache_miss = smap_get(&ps->missed, op.const_eval, 0) != NULL;
    }
    live_update(ps, &op);
    if (op_text_excluded(&op))
        return;
    if (ps->has_pending)
        log->ops_without_block++;
    live_sums(ps, &op);
    op.op_type = op.name;
    ps->pending = op;
    ps->has_pending = 1;
    tt_op *e = vec_push(&ps->exec_ops, sizeof *e);
    if (!e) {
        ps->nomem = 1;
        return;
    }
    *e = op;
    if (ps->has_submit) {
        memcpy(e->mem, ps->submit_mem, sizeof e->mem);
        e->mem_source = ps->submit_after ? TT_MEM_AFTER_SUBMIT : TT_MEM_BEFORE_SUBMIT;
    }
}

/* Returns the message of a runtime line "<type> | <LEVEL> | <message>", or p == NULL. */
static pq_str runtime_message(pq_str line)
{
    pq_str none = {NULL, 0};
    const char *b1 = memchr(line.p, '|', line.n);
    if (!b1)
        return none;
    const char *end = line.p + line.n;
    const char *b2 = memchr(b1 + 1, '|', (size_t)(end - (b1 + 1)));
    if (!b2)
        return none;
    pq_str level = trim(sv(b1 + 1, (size_t)(b2 - (b1 + 1))));
    static const char *const LEVELS[] = {"TRACE", "DEBUG", "INFO", "WARNING",
                                         "ERROR", "FATAL", "WARN", "CRITICAL"};
    int ok = 0;
    for (size_t i = 0; i < sizeof LEVELS / sizeof LEVELS[0]; i++)
        if (level.n == strlen(LEVELS[i]) && memcmp(level.p, LEVELS[i], level.n) == 0)
            ok = 1;
    if (!ok)
        return none;
    const char *m = b2 + 1;
    if (m < end && *m == ' ')
        m++;
    return sv(m, (size_t)(end - m));
}

static int mem_slot(pq_str msg)
{
    /* "Device DRAM memory state: MemoryView{...}" */
    pq_str r = sv(msg.p + 7, msg.n - 7);
    if (starts(r, "DRAM memory state:"))
        return TT_DRAM;
    if (starts(r, "L1 memory state:"))
        return TT_L1;
    if (starts(r, "L1_SMALL memory state:") || starts(r, "L1 SMALL memory state:"))
        return TT_L1_SMALL;
    if (starts(r, "TRACE memory state:"))
        return TT_TRACE;
    return -1;
}

/* The first word (up to a space) of MSG after its first SKIP bytes, trimmed. */
static pq_str first_word(pq_str msg, size_t skip)
{
    pq_str name = trim(sv(msg.p + skip, msg.n - skip));
    size_t k = 0;
    while (k < name.n && name.p[k] != ' ')
        k++;
    name.n = k;
    return name;
}

static void on_runtime(parser *ps, pq_str msg, int64_t off)
{
    tt_log *log = ps->log;
    if (starts(msg, "Device ")) {
        if (starts(msg, "Device memory state before operation")) {
            block_abort(ps);
            pq_str type = trim(sv(msg.p + 36, msg.n - 36));
            size_t k = 0;
            while (k < type.n && is_word(type.p[k]))
                k++;
            ps->block = BLOCK_OP;
            ps->block_type = sv(type.p, k);
        } else if (starts(msg, "Device memory state before submit")) {
            block_abort(ps);
            ps->block = BLOCK_BEFORE_SUBMIT;
        } else if (starts(msg, "Device memory state after submit")) {
            block_abort(ps);
            ps->block = BLOCK_AFTER_SUBMIT;
        } else {
            int slot = mem_slot(msg);
            if (slot < 0)
                return;
            if (ps->block == BLOCK_NONE) {
                malformed(ps, off,
                          "expected a \"Device memory state\" header before this "
                          "MemoryView line");
                return;
            }
            tt_memview mv;
            if ((ps->block_seen & (1u << slot)) || !parse_memview(msg, &mv)) {
                ps->block = BLOCK_NONE;
                malformed(ps, off,
                          (ps->block_seen & (1u << slot))
                              ? "expected one MemoryView line per memory type in a block"
                              : "expected MemoryView{numBanks: N, totalBytesPerBank: X MB, "
                                "totalBytesAllocatedPerBank: X MB, totalBytesFreePerBank: X MB, "
                                "largestContiguousBytesFreePerBank: X MB}");
                return;
            }
            ps->block_mem[slot] = mv;
            ps->block_seen |= 1u << slot;
            if (ps->block_seen == 15)
                block_done(ps);
            return;
        }
        ps->block_off = off;
        ps->block_seen = 0;
        ps->block_lines = 0;
        memset(ps->block_mem, 0, sizeof ps->block_mem);
        return;
    }
    if (starts(msg, "Executing operation:")) {
        block_abort(ps);
        on_exec(ps, sv(msg.p + 20, msg.n - 20), off);
        return;
    }
    if (starts(msg, "Starting execution of program:")) {
        block_abort(ps);
        pq_str name = first_word(msg, 30);
        log->programs++;
        if (find(name, "const_eval")) {
            log->const_eval_programs++;
            if (ps->nprograms < MAX_PROGRAM_DEPTH)
                ps->programs[ps->nprograms++] = name;
        }
        return;
    }
    if (starts(msg, "Finished execution of program:")) {
        block_abort(ps);
        pq_str name = first_word(msg, 30);
        if (ps->nprograms && ps->programs[ps->nprograms - 1].n == name.n &&
            memcmp(ps->programs[ps->nprograms - 1].p, name.p, name.n) == 0)
            ps->nprograms--;
        return;
    }
    if (starts(msg, "Cache miss or invalid cache for function:")) {
        pq_str name = first_word(msg, 41);
        log->cache_misses++;
        if (name.n && !smap_get(&ps->missed, name, 1))
            ps->nomem = 1;
        return;
    }
}

/* Copies LINE without ANSI escape sequences (ESC [ params final, ESC other) into the arena. */
static pq_str strip_ansi(parser *ps, pq_str line)
{
    char *out = arena_alloc(&ps->log->arena, line.n + 1);
    if (!out) {
        ps->nomem = 1;
        return sv(line.p, 0);
    }
    size_t n = 0;
    for (size_t i = 0; i < line.n;) {
        unsigned char c = (unsigned char)line.p[i];
        if (c != 0x1b) {
            out[n++] = (char)c;
            i++;
            continue;
        }
        i++;
        if (i < line.n && line.p[i] == '[') {
            i++;
            while (i < line.n &&
                   ((unsigned char)line.p[i] < 0x40 || (unsigned char)line.p[i] > 0x7e))
                i++;
            if (i < line.n)
                i++;
        } else if (i < line.n) {
            i++;
        }
    }
    return sv(out, n);
}

static void on_line(parser *ps, pq_str raw, int64_t off)
{
    pq_str line = raw;
    if (memchr(raw.p, 0x1b, raw.n))
        line = strip_ansi(ps, raw);
    if (line.n && line.p[line.n - 1] == '\r')
        line.n--;
    pq_str msg = runtime_message(line);
    if (msg.p) {
        on_runtime(ps, msg, off);
        return;
    }
    /* Not a runtime line. MLIR module dumps: "... MLIR Module <stage>:" ... END OF MLIR MODULE */
    if (ps->in_module) {
        tt_module *m = &((tt_module *)ps->modules.p)[ps->modules.n - 1];
        if (find(line, "END OF MLIR MODULE")) {
            ps->in_module = 0;
            return;
        }
        m->lines++;
        return;
    }
    const char *mm = find(line, "MLIR Module ");
    if (mm) {
        const char *s = mm + 12, *e = s, *end = line.p + line.n;
        while (e < end && is_word(*e))
            e++;
        if (e < end && *e == ':') {
            tt_module *m = vec_push(&ps->modules, sizeof *m);
            if (!m) {
                ps->nomem = 1;
                return;
            }
            m->stage = sv(s, (size_t)(e - s));
            m->offset = off;
            ps->in_module = 1;
            return;
        }
    }
    if (ps->block != BLOCK_NONE && ++ps->block_lines > MAX_LINES_IN_BLOCK)
        block_abort(ps);
}

pq_status ttlog_parse(tt_log *log, pq_error *err)
{
    parser ps;
    memset(&ps, 0, sizeof ps);
    ps.log = log;
    ps.first_malformed = -1;
    const char *base = (const char *)log->file.data;
    size_t size = log->file.size;
    pq_status st = PQ_OK;
    const char *p = base, *end = base + size;
    int64_t nul_at = -1;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        pq_str line = sv(p, (size_t)(le - p));
        log->lines++;
        on_line(&ps, line, p - base);
        if (ps.nomem)
            break;
        p = nl ? nl + 1 : end;
    }
    block_abort(&ps);
    if (ps.nomem || arena_failed(&log->arena)) {
        st = err_set(err, PQ_ERR_NOMEM, log->path, -1, "out of memory reading the log");
        goto out;
    }
    if (ps.blk_ops.n || log->op_blocks) {
        log->shape = TT_SHAPE_OP_TYPE;
        for (size_t i = 0; i < ps.blk_ops.n; i++)
            if (((tt_op *)ps.blk_ops.p)[i].text.n)
                log->shape = TT_SHAPE_OP_TEXT;
        log->ops = ps.blk_ops.p;
        log->nops = ps.blk_ops.n;
        ps.blk_ops.p = NULL;
        if (ps.has_pending)
            log->ops_without_block++;
    } else {
        log->shape = TT_SHAPE_SUBMIT;
        log->ops = ps.exec_ops.p;
        log->nops = ps.exec_ops.n;
        ps.exec_ops.p = NULL;
        log->ops_without_block = 0;
    }
    log->submits = ps.submits.p;
    log->nsubmits = ps.submits.n;
    ps.submits.p = NULL;
    log->modules = ps.modules.p;
    log->nmodules = ps.modules.n;
    ps.modules.p = NULL;
    log->warnings = ps.warnings.p;
    log->nwarnings = ps.warnings.n;
    ps.warnings.p = NULL;
    if (log->nops == 0) {
        const char *nul = size ? memchr(base, 0, size) : NULL; /* only to explain the error */
        if (nul)
            nul_at = nul - base;
        if (ps.first_malformed >= 0)
            st = err_set(err, PQ_ERR_INPUT, log->path, ps.first_malformed,
                         "expected a \"Device memory state\" block of four MemoryView lines "
                         "(DRAM, L1, L1_SMALL, TRACE); every block in the log is malformed");
        else if (nul_at >= 0)
            st = err_set(err, PQ_ERR_INPUT, log->path, nul_at,
                         "expected text (a tt-mlir runtime log), found a NUL byte");
        else
            st =
                err_set(err, PQ_ERR_INPUT, log->path, (int64_t)size,
                        "expected \"Device memory state before operation\" blocks or "
                        "\"Executing operation:\" lines (a tt-mlir runtime log written with "
                        "TTMLIR_RUNTIME_LOGGER_LEVEL=DEBUG TT_RUNTIME_MEMORY_LOG_LEVEL=operation)");
    }
out:
    pq_free(ps.blk_ops.p);
    pq_free(ps.exec_ops.p);
    pq_free(ps.submits.p);
    pq_free(ps.modules.p);
    pq_free(ps.warnings.p);
    pq_free(ps.live.e);
    pq_free(ps.missed.e);
    return st;
}

void ttlog_release(tt_log *log)
{
    pq_free(log->ops);
    pq_free(log->submits);
    pq_free(log->modules);
    pq_free(log->warnings);
    arena_release(&log->arena);
    mapfile_close(&log->file);
    pq_free(log->path);
    memset(log, 0, sizeof *log);
}

/* ------------------------------------------------------------------------------------------
 * Public entry points. */

static pq_status ttlog_finish_open(tt_log *log, pq_ttlog **out, pq_error *err)
{
    pq_status st = ttlog_parse(log, err);
    if (st != PQ_OK) {
        ttlog_release(log);
        pq_free(log);
        return st;
    }
    *out = log;
    return PQ_OK;
}

static tt_log *ttlog_new(const char *path, pq_error *err)
{
    tt_log *log = pq_calloc(1, sizeof *log);
    if (!log) {
        err_set(err, PQ_ERR_NOMEM, path, -1, "out of memory");
        return NULL;
    }
    arena_init(&log->arena);
    size_t n = strlen(path);
    log->path = pq_malloc(n + 1);
    if (!log->path) {
        pq_free(log);
        err_set(err, PQ_ERR_NOMEM, path, -1, "out of memory");
        return NULL;
    }
    memcpy(log->path, path, n + 1);
    return log;
}

pq_status pq_ttlog_open(const char *path, pq_ttlog **out, pq_error *err)
{
    *out = NULL;
    err_clear(err);
    tt_log *log = ttlog_new(path, err);
    if (!log)
        return PQ_ERR_NOMEM;
    pq_status st = mapfile_open(path, &log->file, err);
    if (st != PQ_OK) {
        ttlog_release(log);
        pq_free(log);
        return st;
    }
    mapfile_advise_sequential(&log->file);
    return ttlog_finish_open(log, out, err);
}

pq_status pq_ttlog_open_memory(const void *data, size_t n, const char *name, pq_ttlog **out,
                               pq_error *err)
{
    *out = NULL;
    err_clear(err);
    tt_log *log = ttlog_new(name, err);
    if (!log)
        return PQ_ERR_NOMEM;
    pq_status st = mapfile_copy(data, n, name, &log->file, err);
    if (st != PQ_OK) {
        ttlog_release(log);
        pq_free(log);
        return st;
    }
    return ttlog_finish_open(log, out, err);
}

void pq_ttlog_free(pq_ttlog *log)
{
    if (!log)
        return;
    ttlog_release(log);
    pq_free(log);
}

void pq_ttlog_get_info(const pq_ttlog *log, pq_ttlog_info *info)
{
    static const char *const SHAPES[] = {"op_text", "op_type", "submit"};
    memset(info, 0, sizeof *info);
    info->shape = SHAPES[log->shape];
    info->operations = log->nops;
    info->executed_ops = log->executed_ops;
    info->op_blocks = log->op_blocks;
    info->submit_blocks = log->nsubmits;
    info->excluded_ops = log->excluded_ops;
    info->malformed_blocks = log->malformed_blocks;
    info->ops_without_block = log->ops_without_block;
    info->programs = log->programs;
    info->const_eval_programs = log->const_eval_programs;
    info->cache_misses = log->cache_misses;
    info->mlir_modules = log->nmodules;
    info->lines = log->lines;
    info->bytes = log->file.size;
    info->first_warning_offset = log->nwarnings ? log->warnings[0].offset : -1;
    info->first_warning = log->nwarnings ? log->warnings[0].what : NULL;
}
