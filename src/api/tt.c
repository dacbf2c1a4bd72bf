/* tt.c - the public entry points of the Tenstorrent log path (include/profq.h, "Tenstorrent
 * runtime memory logs"): open a log from a file or memory, free it, summarise what it held,
 * render one output (analysis/ttmem, then render/ttmem or render/tthtml), and read a run
 * dir's JSON back (formats/ttlog_json.c). Thin wrappers: no parsing or formatting here. */
#include "analysis/ttmem.h"
#include "core/alloc.h"
#include "core/err.h"
#include "formats/ttlog.h"
#include "render/ttmem.h"

#include <string.h>

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
    info->truncated = log->truncated;
    info->truncated_offset = log->truncated ? log->truncated_offset : -1;
}

pq_status pq_ttlog_render(const pq_ttlog *log, pq_tt_output what, const char *name, pq_sink *sink,
                          pq_error *err)
{
    RETURN_ERROR_IF(what < PQ_TT_MEMORY_JSON || what > PQ_TT_REPORT_HTML, err, PQ_ERR_USAGE, NULL,
                    -1, "unknown tt output %d", (int)what);
    ttmem_result r;
    memset(&r, 0, sizeof r);
    pq_status st = PQ_OK;
    if (what == PQ_TT_SUMMARY_MD || what == PQ_TT_REPORT_HTML) /* the JSON needs no analysis */
        st = ttmem_analyze(log, &r);
    RETURN_ERROR_IF(st != PQ_OK, err, st, log->path, -1, "out of memory");
    buf b;
    buf_init(&b, sink);
    ttmem_render(log, &r, what, name, &b);
    ttmem_release(&r);
    st = buf_flush(&b);
    buf_release(&b);
    RETURN_ERROR_IF(st != PQ_OK, err, st, NULL, -1,
                    st == PQ_ERR_OUTPUT ? "cannot write the output" : "out of memory");
    return PQ_OK;
}

pq_status pq_ttlog_open_json(const char *memory_json_path, const char *operations_json_path,
                             pq_ttlog **out, pq_error *err)
{
    *out = NULL;
    err_clear(err);
    return ttlog_read_json(memory_json_path, operations_json_path, out, err);
}

pq_status pq_ttlog_analyze(const pq_ttlog *log, pq_tt_memory *out, pq_error *err)
{
    err_clear(err);
    pq_status st = ttmem_analyze(log, out);
    RETURN_ERROR_IF(st != PQ_OK, err, st, log->path, -1, "out of memory");
    return PQ_OK;
}

void pq_tt_memory_release(pq_tt_memory *m)
{
    if (m)
        ttmem_release(m);
}
