/* ttjson.c - reads back the <name>_memory.json and <name>_operations.json that
 * pq_ttlog_render writes (or the seed profiler wrote: its memory.json is the same object
 * without the profq keys, or the bare operations list) into a tt_log, so `profq tt report`
 * renders from a run dir without the log. A small bounds-checked JSON parser into the log's
 * arena (depth-limited, no recursion beyond JSON_DEPTH); errors name the file and offset.
 * Not a general JSON library: numbers are doubles, objects are key/value arrays. */
#include "core/alloc.h"
#include "core/err.h"
#include "core/jtext.h"
#include "formats/ttlog.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ };
enum { JSON_DEPTH = 64 };

typedef struct jv jv;
struct jv {
    int type;
    double num;
    pq_str str;
    jv *items; /* arrays: values; objects: alternating key (JV_STR), value */
    size_t n;
};

typedef struct jp {
    const char *p, *start, *end;
    arena *a;
    const char *path;
    pq_error *err;
    pq_status st;
} jp;

static int fail(jp *j, const char *what)
{
    if (j->st == PQ_OK)
        j->st =
            err_set(j->err, PQ_ERR_INPUT, j->path, (int64_t)(j->p - j->start), "expected %s", what);
    return 0;
}

static void ws(jp *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\r' || *j->p == '\t'))
        j->p++;
}

static int parse_string(jp *j, pq_str *out)
{
    if (j->p >= j->end || *j->p != '"')
        return fail(j, "a string");
    const char *s = ++j->p;
    while (j->p < j->end && *j->p != '"') {
        if (*j->p == '\\')
            j->p++;
        j->p++;
    }
    if (j->p >= j->end)
        return fail(j, "the end of a string");
    size_t n = (size_t)(j->p - s);
    char *o = arena_alloc(j->a, n + 1);
    if (!o) {
        j->st = err_set(j->err, PQ_ERR_NOMEM, j->path, -1, "out of memory");
        return 0;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '\\') {
            o[k++] = s[i];
            continue;
        }
        i++;
        char c = s[i];
        unsigned cp;
        switch (c) {
        case 'n':
            o[k++] = '\n';
            break;
        case 't':
            o[k++] = '\t';
            break;
        case 'r':
            o[k++] = '\r';
            break;
        case 'b':
            o[k++] = '\b';
            break;
        case 'f':
            o[k++] = '\f';
            break;
        case 'u':
            if (i + 4 >= n)
                return fail(j, "four hex digits after \\u");
            if (json_hex4(s + i + 1, &cp) != 0)
                return fail(j, "four hex digits after \\u");
            i += 4;
            /* UTF-8 of a BMP code point (surrogates become U+FFFD) */
            if (cp >= 0xD800 && cp <= 0xDFFF)
                cp = 0xFFFD;
            k += json_put_utf8(o + k, cp);
            break;
        default:
            o[k++] = c;
        }
    }
    j->p++;
    out->p = o;
    out->n = k;
    return 1;
}

static int parse_value(jp *j, jv *v, int depth);

/* Collects items in a temporary heap array, then moves them into the arena. */
static int parse_container(jp *j, jv *v, int depth, int obj)
{
    j->p++;
    jv *tmp = NULL;
    size_t n = 0, cap = 0;
    ws(j);
    int ok = 1;
    if (j->p < j->end && *j->p == (obj ? '}' : ']')) {
        j->p++;
    } else {
        for (;;) {
            if (n + 2 > cap) {
                cap = cap ? cap * 2 : 16;
                jv *t = pq_realloc(tmp, cap * sizeof *t);
                if (!t) {
                    j->st = err_set(j->err, PQ_ERR_NOMEM, j->path, -1, "out of memory");
                    ok = 0;
                    break;
                }
                tmp = t;
            }
            ws(j);
            if (obj) {
                memset(&tmp[n], 0, sizeof tmp[n]);
                tmp[n].type = JV_STR;
                if (!parse_string(j, &tmp[n].str)) {
                    ok = 0;
                    break;
                }
                n++;
                ws(j);
                if (j->p >= j->end || *j->p != ':') {
                    ok = fail(j, "':' after an object key");
                    break;
                }
                j->p++;
            }
            if (!parse_value(j, &tmp[n], depth + 1)) {
                ok = 0;
                break;
            }
            n++;
            ws(j);
            if (j->p < j->end && *j->p == ',') {
                j->p++;
                continue;
            }
            if (j->p < j->end && *j->p == (obj ? '}' : ']')) {
                j->p++;
                break;
            }
            ok = fail(j, obj ? "',' or '}'" : "',' or ']'");
            break;
        }
    }
    if (ok) {
        v->type = obj ? JV_OBJ : JV_ARR;
        v->n = obj ? n / 2 : n;
        v->items = n ? arena_alloc(j->a, n * sizeof *tmp) : NULL;
        if (n && !v->items) {
            j->st = err_set(j->err, PQ_ERR_NOMEM, j->path, -1, "out of memory");
            ok = 0;
        } else if (n) {
            memcpy(v->items, tmp, n * sizeof *tmp);
        }
    }
    pq_free(tmp);
    return ok;
}

static int parse_value(jp *j, jv *v, int depth)
{
    memset(v, 0, sizeof *v);
    if (depth > JSON_DEPTH)
        return fail(j, "at most 64 levels of nesting");
    ws(j);
    if (j->p >= j->end)
        return fail(j, "a value");
    char c = *j->p;
    if (c == '{' || c == '[')
        return parse_container(j, v, depth, c == '{');
    if (c == '"') {
        v->type = JV_STR;
        return parse_string(j, &v->str);
    }
    if ((size_t)(j->end - j->p) >= 4 && memcmp(j->p, "null", 4) == 0) {
        j->p += 4;
        v->type = JV_NULL;
        return 1;
    }
    if ((size_t)(j->end - j->p) >= 4 && memcmp(j->p, "true", 4) == 0) {
        j->p += 4;
        v->type = JV_BOOL;
        v->num = 1;
        return 1;
    }
    if ((size_t)(j->end - j->p) >= 5 && memcmp(j->p, "false", 5) == 0) {
        j->p += 5;
        v->type = JV_BOOL;
        return 1;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        char tmp[64];
        size_t k = 0;
        while (j->p + k < j->end && k < sizeof tmp - 1 &&
               strchr("+-0123456789.eE", j->p[k]) != NULL)
            k++;
        memcpy(tmp, j->p, k);
        tmp[k] = '\0';
        char *e;
        v->num = strtod(tmp, &e);
        if (e == tmp)
            return fail(j, "a number");
        j->p += e - tmp;
        v->type = JV_NUM;
        return 1;
    }
    return fail(j, "a JSON value");
}

static const jv *get(const jv *o, const char *key)
{
    if (!o || o->type != JV_OBJ)
        return NULL;
    size_t kn = strlen(key);
    for (size_t i = 0; i < o->n; i++) {
        const jv *k = &o->items[2 * i];
        if (k->str.n == kn && memcmp(k->str.p, key, kn) == 0)
            return &o->items[2 * i + 1];
    }
    return NULL;
}

static pq_str gstr(const jv *o, const char *key)
{
    const jv *v = get(o, key);
    pq_str none = {NULL, 0};
    return v && v->type == JV_STR ? v->str : none;
}

static double gnum(const jv *o, const char *key)
{
    const jv *v = get(o, key);
    return v && (v->type == JV_NUM || v->type == JV_BOOL) && isfinite(v->num) ? v->num : 0;
}

static uint64_t gu64(const jv *o, const char *key)
{
    double d = gnum(o, key);
    return d > 0 && d < 1.8e19 ? (uint64_t)d : 0;
}

static void memviews(const jv *m, tt_memview *out)
{
    for (int t = 0; t < TT_NMEM; t++) {
        const jv *v = get(m, TT_MEM_NAMES[t]);
        out[t].num_banks = (int64_t)gnum(v, "numBanks");
        out[t].total_mb = gnum(v, "totalBytesPerBank_MB");
        out[t].alloc_mb = gnum(v, "totalBytesAllocatedPerBank_MB");
        out[t].free_mb = gnum(v, "totalBytesFreePerBank_MB");
        out[t].largest_free_mb = gnum(v, "largestContiguousBytesFreePerBank_MB");
    }
}

/* Joins the "inputs" strings with ", " (the operand list as the log wrote it). */
static pq_str join_inputs(arena *a, const jv *arr)
{
    pq_str out = {NULL, 0};
    if (!arr || arr->type != JV_ARR || !arr->n)
        return out;
    size_t n = 0;
    for (size_t i = 0; i < arr->n; i++)
        if (arr->items[i].type == JV_STR)
            n += arr->items[i].str.n + 2;
    char *p = arena_alloc(a, n + 1);
    if (!p)
        return out;
    size_t k = 0;
    for (size_t i = 0; i < arr->n; i++) {
        if (arr->items[i].type != JV_STR)
            continue;
        if (k) {
            memcpy(p + k, ", ", 2);
            k += 2;
        }
        memcpy(p + k, arr->items[i].str.p, arr->items[i].str.n);
        k += arr->items[i].str.n;
    }
    out.p = p;
    out.n = k;
    return out;
}

static pq_status parse_file(tt_log *log, const char *path, mapped_file *m, jv *root, pq_error *err)
{
    pq_status st = mapfile_open(path, m, err);
    if (st != PQ_OK)
        return st;
    jp j = {(const char *)m->data,
            (const char *)m->data,
            (const char *)m->data + m->size,
            &log->arena,
            path,
            err,
            PQ_OK};
    if (!parse_value(&j, root, 0))
        return j.st;
    ws(&j);
    if (j.p != j.end) {
        fail(&j, "the end of the JSON document");
        return j.st;
    }
    return PQ_OK;
}

pq_status pq_ttlog_open_json(const char *memory_json_path, const char *operations_json_path,
                             pq_ttlog **out, pq_error *err)
{
    *out = NULL;
    err_clear(err);
    tt_log *log = pq_calloc(1, sizeof *log);
    if (!log)
        return err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    arena_init(&log->arena);
    mapped_file mm = {0}, om = {0};
    jv mem, ops;
    pq_status st = parse_file(log, memory_json_path, &mm, &mem, err);
    if (st == PQ_OK)
        st = parse_file(log, operations_json_path, &om, &ops, err);
    if (st != PQ_OK)
        goto out;
    size_t plen = strlen(memory_json_path);
    log->path = pq_malloc(plen + 1);
    if (!log->path) {
        st = err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
        goto out;
    }
    memcpy(log->path, memory_json_path, plen + 1);
    const jv *meta = mem.type == JV_OBJ ? get(&mem, "metadata") : NULL;
    const jv *mops = mem.type == JV_ARR ? &mem : get(&mem, "operations");
    if (!mops || mops->type != JV_ARR) {
        st = err_set(err, PQ_ERR_INPUT, memory_json_path, 0,
                     "expected an object with \"operations\" (a <name>_memory.json)");
        goto out;
    }
    if (ops.type != JV_ARR || ops.n != mops->n) {
        st = err_set(err, PQ_ERR_INPUT, operations_json_path, 0,
                     "expected a list of %zu operations (one per memory.json operation)", mops->n);
        goto out;
    }
    log->nops = mops->n;
    log->ops = pq_calloc(log->nops ? log->nops : 1, sizeof *log->ops);
    if (!log->ops) {
        st = err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < log->nops; i++) {
        const jv *a = &mops->items[i], *b = &ops.items[i];
        tt_op *op = &log->ops[i];
        op->op_type = gstr(a, "op_type");
        const jv *m = get(a, "memory");
        if (m && m->type == JV_OBJ) {
            memviews(m, op->mem);
            pq_str src = gstr(a, "memory_source");
            op->mem_source =
                src.n == 13 && memcmp(src.p, "before_submit", 13) == 0  ? TT_MEM_BEFORE_SUBMIT
                : src.n == 12 && memcmp(src.p, "after_submit", 12) == 0 ? TT_MEM_AFTER_SUBMIT
                                                                        : TT_MEM_OPERATION;
        }
        op->name = gstr(b, "mlir_op");
        op->result = gstr(b, "result");
        op->operands = join_inputs(&log->arena, get(b, "inputs"));
        op->attributes = gstr(b, "attributes");
        op->input_types = gstr(b, "input_types");
        op->output_type = gstr(b, "output_type");
        op->loc = gstr(b, "loc");
        op->const_eval = gstr(b, "const_eval_graph");
        op->cache_miss = gnum(b, "const_eval_cache_miss") != 0;
        op->is_weight = gnum(b, "is_weight_op") != 0;
        const jv *um = get(a, "unpadded_memory");
        for (int t = 0; t < 2; t++) {
            const jv *u = get(um, TT_MEM_NAMES[t]);
            op->live[t].unpadded_bytes = gu64(u, "unpadded_bytes");
            op->live[t].padded_bytes = gu64(u, "padded_bytes");
            op->live[t].num_tensors = gu64(u, "num_tensors");
        }
        const jv *sub = get(a, "submit");
        op->submit = sub && sub->type == JV_NUM ? (int64_t)sub->num : -1;
        op->offset = (int64_t)gnum(a, "offset");
        ttlog_layout_of(op->output_type, &op->out);
    }
    pq_str shape = gstr(meta, "log_shape");
    log->shape = shape.n == 7 && memcmp(shape.p, "op_type", 7) == 0  ? TT_SHAPE_OP_TYPE
                 : shape.n == 6 && memcmp(shape.p, "submit", 6) == 0 ? TT_SHAPE_SUBMIT
                                                                     : TT_SHAPE_OP_TEXT;
    log->executed_ops = gu64(meta, "executed_ops");
    log->op_blocks = gu64(meta, "op_blocks");
    log->excluded_ops = gu64(meta, "excluded_ops");
    log->malformed_blocks = gu64(meta, "malformed_blocks");
    log->ops_without_block = gu64(meta, "ops_without_block");
    log->programs = gu64(meta, "programs");
    log->const_eval_programs = gu64(meta, "const_eval_programs");
    log->cache_misses = gu64(meta, "cache_misses");
    const jv *subs = get(meta, "submits");
    if (subs && subs->type == JV_ARR && subs->n) {
        log->submits = pq_calloc(subs->n, sizeof *log->submits);
        if (!log->submits) {
            st = err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
            goto out;
        }
        log->nsubmits = subs->n;
        for (size_t i = 0; i < subs->n; i++) {
            const jv *s = &subs->items[i];
            tt_submit *d = &log->submits[i];
            d->number = gu64(s, "submit");
            pq_str when = gstr(s, "when");
            d->after = when.n == 5 && memcmp(when.p, "after", 5) == 0;
            d->offset = (int64_t)gnum(s, "offset");
            d->ops_before = gu64(s, "operations_before");
            memviews(get(s, "memory"), d->mem);
        }
    }
    const jv *mods = get(meta, "mlir_modules");
    if (mods && mods->type == JV_ARR && mods->n) {
        log->modules = pq_calloc(mods->n, sizeof *log->modules);
        if (!log->modules) {
            st = err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
            goto out;
        }
        log->nmodules = mods->n;
        for (size_t i = 0; i < mods->n; i++) {
            log->modules[i].stage = gstr(&mods->items[i], "stage");
            log->modules[i].offset = (int64_t)gnum(&mods->items[i], "offset");
            log->modules[i].lines = gu64(&mods->items[i], "lines");
        }
    }
    const jv *warns = get(meta, "warnings");
    if (warns && warns->type == JV_ARR && warns->n) {
        size_t n = warns->n < TT_MAX_WARNINGS ? warns->n : TT_MAX_WARNINGS;
        log->warnings = pq_calloc(n, sizeof *log->warnings);
        if (!log->warnings) {
            st = err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
            goto out;
        }
        for (size_t i = 0; i < n; i++) {
            pq_str msg = gstr(&warns->items[i], "message");
            char *w = arena_strndup(&log->arena, msg.p ? msg.p : "", msg.n);
            if (!w)
                break;
            log->warnings[log->nwarnings].offset = (int64_t)gnum(&warns->items[i], "offset");
            log->warnings[log->nwarnings++].what = w;
        }
    }
    if (arena_failed(&log->arena))
        st = err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
out:
    /* Strings point into the arena (copied), never into the mapped JSON. */
    mapfile_close(&mm);
    mapfile_close(&om);
    if (st != PQ_OK) {
        ttlog_release(log);
        pq_free(log);
        return st;
    }
    *out = log;
    return PQ_OK;
}
