/* ttlog_json.c - reads back the <name>_memory.json and <name>_operations.json that
 * pq_ttlog_render writes (or the seed profiler wrote: its memory.json is the same object
 * without the profq keys, or the bare operations list) into a tt_log, so `profq tt report`
 * renders from a run dir without the log. The JSON is parsed by the project's one document
 * reader (core/jval.h, bounded depth, errors with byte offsets); this file only maps the
 * parsed tree onto tt_log fields, copying every string into the log's arena.
 * Not here: reading logs (ttlog_lines.c) and writing the JSON (render/ttmem.c). */
#include "core/alloc.h"
#include "core/err.h"
#include "core/jval.h"
#include "formats/ttlog.h"

#include <math.h>
#include <string.h>

/* The string of KEY copied into the arena A; p == NULL when absent or not a string. */
static pq_str gstr(arena *a, const jval *o, const char *key)
{
    const jval *v = jv_get(o, key);
    pq_str s = {NULL, 0};
    if (!v || v->t != JV_STR)
        return s;
    s.p = arena_strndup(a, v->s, v->sn);
    s.n = s.p ? v->sn : 0;
    return s;
}

/* A number (or a bool as 0/1) of KEY; 0 when absent or not finite. */
static double gnum(const jval *o, const char *key)
{
    const jval *v = jv_get(o, key);
    if (v && v->t == JV_BOOL)
        return v->b;
    int ok;
    double d = jv_number(v, &ok);
    return ok && isfinite(d) ? d : 0;
}

static uint64_t gu64(const jval *o, const char *key)
{
    double d = gnum(o, key);
    return d > 0 && d < 1.8e19 ? (uint64_t)d : 0;
}

static int is_str(pq_str s, const char *lit)
{
    size_t n = strlen(lit);
    return s.n == n && memcmp(s.p, lit, n) == 0;
}

static void memviews(const jval *m, tt_memview *out)
{
    for (int t = 0; t < TT_NMEM; t++) {
        const jval *v = jv_get(m, TT_MEM_NAMES[t]);
        out[t].num_banks = (int64_t)gnum(v, "numBanks");
        out[t].total_mb = gnum(v, "totalBytesPerBank_MB");
        out[t].alloc_mb = gnum(v, "totalBytesAllocatedPerBank_MB");
        out[t].free_mb = gnum(v, "totalBytesFreePerBank_MB");
        out[t].largest_free_mb = gnum(v, "largestContiguousBytesFreePerBank_MB");
    }
}

/* Joins the "inputs" strings with ", " (the operand list as the log wrote it). */
static pq_str join_inputs(arena *a, const jval *arr)
{
    pq_str out = {NULL, 0};
    if (!arr || arr->t != JV_ARR || !arr->n)
        return out;
    size_t n = 0;
    for (size_t i = 0; i < arr->n; i++)
        if (arr->items[i]->t == JV_STR)
            n += arr->items[i]->sn + 2;
    char *p = arena_alloc(a, n + 1);
    if (!p)
        return out;
    size_t k = 0;
    for (size_t i = 0; i < arr->n; i++) {
        const jval *s = arr->items[i];
        if (s->t != JV_STR)
            continue;
        if (k) {
            memcpy(p + k, ", ", 2);
            k += 2;
        }
        memcpy(p + k, s->s, s->sn);
        k += s->sn;
    }
    out.p = p;
    out.n = k;
    return out;
}

/* Maps and parses PATH into *ROOT (freed by the caller with jv_free). */
static pq_status parse_file(const char *path, jval **root, pq_error *err)
{
    mapped_file m = {0};
    FORWARD_IF_ERROR(mapfile_open(path, &m, err));
    size_t off = 0;
    const char *what = NULL;
    *root = jv_parse((const char *)m.data, m.size, &off, &what);
    mapfile_close(&m);
    if (*root)
        return PQ_OK;
    RETURN_ERROR_IF(strcmp(what, "out of memory") == 0, err, PQ_ERR_NOMEM, path, -1,
                    "out of memory");
    return err_set(err, PQ_ERR_INPUT, path, (int64_t)off, "%s", what);
}

/* One operation: A from memory.json, B from operations.json. */
static void read_op(arena *ar, const jval *a, const jval *b, tt_op *op)
{
    op->op_type = gstr(ar, a, "op_type");
    const jval *m = jv_get(a, "memory");
    if (m && m->t == JV_OBJ) {
        memviews(m, op->mem);
        pq_str src = gstr(ar, a, "memory_source");
        op->mem_source = is_str(src, "before_submit")  ? TT_MEM_BEFORE_SUBMIT
                         : is_str(src, "after_submit") ? TT_MEM_AFTER_SUBMIT
                                                       : TT_MEM_OPERATION;
    }
    op->name = gstr(ar, b, "mlir_op");
    op->result = gstr(ar, b, "result");
    op->operands = join_inputs(ar, jv_get(b, "inputs"));
    op->attributes = gstr(ar, b, "attributes");
    op->input_types = gstr(ar, b, "input_types");
    op->output_type = gstr(ar, b, "output_type");
    op->loc = gstr(ar, b, "loc");
    op->const_eval = gstr(ar, b, "const_eval_graph");
    op->cache_miss = gnum(b, "const_eval_cache_miss") != 0;
    op->is_weight = gnum(b, "is_weight_op") != 0;
    const jval *um = jv_get(a, "unpadded_memory");
    for (int t = 0; t < 2; t++) {
        const jval *u = jv_get(um, TT_MEM_NAMES[t]);
        op->live[t].unpadded_bytes = gu64(u, "unpadded_bytes");
        op->live[t].padded_bytes = gu64(u, "padded_bytes");
        op->live[t].num_tensors = gu64(u, "num_tensors");
    }
    const jval *sub = jv_get(a, "submit");
    int ok;
    double sn = jv_number(sub, &ok);
    op->submit = ok ? (int64_t)sn : -1;
    op->offset = (int64_t)gnum(a, "offset");
    ttlog_layout_of(op->output_type, &op->out);
}

/* The metadata lists: submits, MLIR modules, warnings. */
static pq_status read_lists(arena *a, tt_log *log, const jval *meta, pq_error *err)
{
    const jval *subs = jv_get(meta, "submits");
    if (subs && subs->t == JV_ARR && subs->n) {
        log->submits = pq_calloc(subs->n, sizeof *log->submits);
        RETURN_ERROR_IF(!log->submits, err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
        log->nsubmits = subs->n;
        for (size_t i = 0; i < subs->n; i++) {
            const jval *s = subs->items[i];
            tt_submit *d = &log->submits[i];
            d->number = gu64(s, "submit");
            d->after = is_str(gstr(a, s, "when"), "after");
            d->offset = (int64_t)gnum(s, "offset");
            d->ops_before = gu64(s, "operations_before");
            memviews(jv_get(s, "memory"), d->mem);
        }
    }
    const jval *mods = jv_get(meta, "mlir_modules");
    if (mods && mods->t == JV_ARR && mods->n) {
        log->modules = pq_calloc(mods->n, sizeof *log->modules);
        RETURN_ERROR_IF(!log->modules, err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
        log->nmodules = mods->n;
        for (size_t i = 0; i < mods->n; i++) {
            log->modules[i].stage = gstr(a, mods->items[i], "stage");
            log->modules[i].offset = (int64_t)gnum(mods->items[i], "offset");
            log->modules[i].lines = gu64(mods->items[i], "lines");
        }
    }
    const jval *warns = jv_get(meta, "warnings");
    if (warns && warns->t == JV_ARR && warns->n) {
        size_t n = warns->n < TT_MAX_WARNINGS ? warns->n : TT_MAX_WARNINGS;
        log->warnings = pq_calloc(n, sizeof *log->warnings);
        RETURN_ERROR_IF(!log->warnings, err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
        for (size_t i = 0; i < n; i++) {
            pq_str msg = gstr(a, warns->items[i], "message");
            char *w = arena_strndup(a, msg.p ? msg.p : "", msg.n);
            if (!w)
                break;
            log->warnings[log->nwarnings].offset = (int64_t)gnum(warns->items[i], "offset");
            log->warnings[log->nwarnings++].what = w;
        }
    }
    return PQ_OK;
}

/* Fills LOG from the two parsed documents. */
static pq_status read_log(tt_log *log, const jval *mem, const jval *ops, const char *mem_path,
                          const char *ops_path, pq_error *err)
{
    arena *a = &log->arena;
    const jval *meta = mem->t == JV_OBJ ? jv_get(mem, "metadata") : NULL;
    const jval *mops = mem->t == JV_ARR ? mem : jv_get(mem, "operations");
    RETURN_ERROR_IF(!mops || mops->t != JV_ARR, err, PQ_ERR_INPUT, mem_path, 0,
                    "expected an object with \"operations\" (a <name>_memory.json)");
    RETURN_ERROR_IF(ops->t != JV_ARR || ops->n != mops->n, err, PQ_ERR_INPUT, ops_path, 0,
                    "expected a list of %zu operations (one per memory.json operation)", mops->n);
    log->nops = mops->n;
    log->ops = pq_calloc(log->nops ? log->nops : 1, sizeof *log->ops);
    RETURN_ERROR_IF(!log->ops, err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    for (size_t i = 0; i < log->nops; i++)
        read_op(a, mops->items[i], ops->items[i], &log->ops[i]);
    pq_str shape = gstr(a, meta, "log_shape");
    log->shape = is_str(shape, "op_type")  ? TT_SHAPE_OP_TYPE
                 : is_str(shape, "submit") ? TT_SHAPE_SUBMIT
                                           : TT_SHAPE_OP_TEXT;
    log->executed_ops = gu64(meta, "executed_ops");
    log->op_blocks = gu64(meta, "op_blocks");
    log->excluded_ops = gu64(meta, "excluded_ops");
    log->malformed_blocks = gu64(meta, "malformed_blocks");
    log->ops_without_block = gu64(meta, "ops_without_block");
    log->programs = gu64(meta, "programs");
    log->const_eval_programs = gu64(meta, "const_eval_programs");
    log->cache_misses = gu64(meta, "cache_misses");
    pq_status st = read_lists(a, log, meta, err);
    if (st == PQ_OK && arena_failed(&log->arena))
        st = err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    return st;
}

pq_status ttlog_read_json(const char *memory_json_path, const char *operations_json_path,
                          tt_log **out, pq_error *err)
{
    tt_log *log = pq_calloc(1, sizeof *log);
    RETURN_ERROR_IF(!log, err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    arena_init(&log->arena);
    jval *mem = NULL, *ops = NULL;
    pq_status st = parse_file(memory_json_path, &mem, err);
    if (st == PQ_OK)
        st = parse_file(operations_json_path, &ops, err);
    if (st == PQ_OK) {
        size_t plen = strlen(memory_json_path);
        log->path = pq_malloc(plen + 1);
        if (log->path)
            memcpy(log->path, memory_json_path, plen + 1);
        st = log->path ? read_log(log, mem, ops, memory_json_path, operations_json_path, err)
                       : err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    }
    jv_free(mem);
    jv_free(ops);
    if (st != PQ_OK) {
        ttlog_release(log);
        pq_free(log);
        return st;
    }
    *out = log;
    return PQ_OK;
}
