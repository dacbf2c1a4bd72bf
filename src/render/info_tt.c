/* info_tt.c - `profq info` of a Tenstorrent runtime log: its shape (per-op blocks after the
 * op text, per-op blocks with the op type only, or blocks per submit), the operations and
 * memory blocks the reader found, the programs, and the first warning (a malformed block, a
 * log cut short) with its byte offset. The per-op memory itself is `profq tt`'s. */
#include "info_tt.h"

#include <inttypes.h>
#include <string.h>

void info_tt_json(json_writer *w, const pq_source *src)
{
    pq_ttlog_info t;
    pq_ttlog_get_info(src->ttlog, &t);
    json_key(w, "tenstorrent");
    json_obj_begin(w);
    json_key(w, "shape");
    json_cstr(w, t.shape);
    static const char *const keys[] = {"operations",        "executed_ops", "op_blocks",
                                       "submit_blocks",     "excluded_ops", "malformed_blocks",
                                       "ops_without_block", "programs",     "const_eval_programs",
                                       "mlir_modules",      "lines"};
    const uint64_t vals[] = {t.operations,        t.executed_ops, t.op_blocks,
                             t.submit_blocks,     t.excluded_ops, t.malformed_blocks,
                             t.ops_without_block, t.programs,     t.const_eval_programs,
                             t.mlir_modules,      t.lines};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        json_key(w, keys[k]);
        json_uint(w, vals[k]);
    }
    json_key(w, "first_warning");
    if (t.first_warning) {
        json_obj_begin(w);
        json_key(w, "offset");
        json_int(w, t.first_warning_offset);
        json_key(w, "message");
        json_cstr(w, t.first_warning);
        json_obj_end(w);
    } else {
        json_null(w);
    }
    json_obj_end(w);
}

void info_tt_text(buf *b, const pq_source *src)
{
    pq_ttlog_info t;
    pq_ttlog_get_info(src->ttlog, &t);
    buf_printf(b,
               "  Tenstorrent runtime log (%s): %" PRIu64 " operations, %" PRIu64
               " executed op lines, %" PRIu64 " per-op and %" PRIu64 " per-submit memory blocks\n",
               t.shape, t.operations, t.executed_ops, t.op_blocks, t.submit_blocks);
    buf_printf(b,
               "  %" PRIu64 " programs (%" PRIu64 " const-eval), %" PRIu64 " MLIR modules, %" PRIu64
               " malformed blocks, %" PRIu64 " lines\n",
               t.programs, t.const_eval_programs, t.mlir_modules, t.malformed_blocks, t.lines);
    if (t.first_warning) {
        buf_printf(b, "  warning at byte %" PRId64 ": ", t.first_warning_offset);
        json_escape_into(b, t.first_warning, strlen(t.first_warning));
        buf_putc(b, '\n');
    }
    buf_puts(b, "  per-op memory: profq tt summary|analyze\n");
}
