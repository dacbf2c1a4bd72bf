/* ttlog_lines.c - the Tenstorrent log reader's one pass (tt-mlir with
 * TTMLIR_RUNTIME_LOGGER_LEVEL=DEBUG and TT_RUNTIME_MEMORY_LOG_LEVEL=operation|program): the
 * file is cut at '\n', ANSI colour codes are removed, a runtime line is recognised by its
 * "<type> | <LEVEL> | <message>" header and its message is dispatched (memory blocks to
 * ttlog_block.c, op lines to ttlog_exec.c; programs, cache misses and MLIR module dumps here);
 * every other line (Python output, PJRT traces, MLIR module bodies) is skipped, so interleaved
 * output is harmless. After the pass the log shape is chosen and the results handed to the
 * tt_log. Three shapes are read (spec section 3, ../shared/data/tenstorrent): per-op blocks
 * preceded by the op text, per-op blocks with only the OpType, and op text with blocks per
 * submit. Not here: analyses (analysis/ttmem.c), output (render/ttmem.c), the public entry
 * points (api/tt.c). */
#define _GNU_SOURCE /* memmem */
#include "ttlog_parse.h"
#include "core/alloc.h"
#include "core/err.h"

#include <stdint.h>
#include <stdlib.h>

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
        ttlog_on_device(ps, msg, off);
        return;
    }
    if (starts(msg, "Executing operation:")) {
        ttlog_block_abort(ps);
        ttlog_on_exec(ps, sv(msg.p + 20, msg.n - 20), off);
        return;
    }
    if (starts(msg, "Starting execution of program:")) {
        ttlog_block_abort(ps);
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
        ttlog_block_abort(ps);
        pq_str name = first_word(msg, 30);
        if (ps->nprograms && ps->programs[ps->nprograms - 1].n == name.n &&
            memcmp(ps->programs[ps->nprograms - 1].p, name.p, name.n) == 0)
            ps->nprograms--;
        return;
    }
    if (starts(msg, "Cache miss or invalid cache for function:")) {
        pq_str name = first_word(msg, 41);
        log->cache_misses++;
        if (name.n && !ttlog_smap_get(&ps->missed, name, 1))
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
    if (ps->partial && ttlog_partial_line(ps, line, msg, off))
        return;
    if (msg.p) {
        on_runtime(ps, msg, off);
        return;
    }
    /* Not a runtime line. MLIR module dumps: "... MLIR Module <stage>:" ... END OF MLIR MODULE */
    if (ps->in_module) {
        tt_module *m = &ps->modules.v[ps->modules.n - 1];
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
            tt_module *m = tt_module_vec_add(&ps->modules, TT_MAX_ELEMS);
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
        ttlog_block_abort(ps);
}

pq_status ttlog_parse(tt_log *log, pq_error *err)
{
    parser ps;
    memset(&ps, 0, sizeof ps);
    ps.log = log;
    ps.first_malformed = -1;
    ps.size = (int64_t)log->file.size;
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
        ps.partial = nl == NULL;
        on_line(&ps, line, p - base);
        if (ps.nomem)
            break;
        p = nl ? nl + 1 : end;
    }
    ttlog_block_eof(&ps);
    if (ps.nomem || arena_failed(&log->arena)) {
        st = err_set(err, PQ_ERR_NOMEM, log->path, -1, "out of memory reading the log");
        goto out;
    }
    if (ps.blk_ops.n || log->op_blocks) {
        log->shape = TT_SHAPE_OP_TYPE;
        for (size_t i = 0; i < ps.blk_ops.n; i++)
            if (ps.blk_ops.v[i].text.n)
                log->shape = TT_SHAPE_OP_TEXT;
        log->ops = ps.blk_ops.v;
        log->nops = ps.blk_ops.n;
        ps.blk_ops.v = NULL;
        if (ps.has_pending)
            log->ops_without_block++;
    } else {
        log->shape = TT_SHAPE_SUBMIT;
        log->ops = ps.exec_ops.v;
        log->nops = ps.exec_ops.n;
        ps.exec_ops.v = NULL;
        log->ops_without_block = 0;
    }
    ttlog_end_checks(&ps);
    log->submits = ps.submits.v;
    log->nsubmits = ps.submits.n;
    ps.submits.v = NULL;
    log->modules = ps.modules.v;
    log->nmodules = ps.modules.n;
    ps.modules.v = NULL;
    log->warnings = ps.warnings.v;
    log->nwarnings = ps.warnings.n;
    ps.warnings.v = NULL;
    if (log->nops == 0) {
        const char *nul = size ? memchr(base, 0, size) : NULL; /* only to explain the error */
        if (nul)
            nul_at = nul - base;
        if (log->truncated)
            st = err_set(err, PQ_ERR_INPUT, log->path, log->truncated_offset,
                         "expected an operation before the log is cut short (%s)", log->truncated);
        else if (ps.first_malformed >= 0)
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
    tt_op_vec_free(&ps.blk_ops);
    tt_op_vec_free(&ps.exec_ops);
    tt_submit_vec_free(&ps.submits);
    tt_module_vec_free(&ps.modules);
    tt_warning_vec_free(&ps.warnings);
    ttlog_smap_free(&ps.live);
    ttlog_smap_free(&ps.missed);
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
