/* ttmem.h (render) - the outputs of the Tenstorrent memory analysis: the two JSON files and
 * the markdown summary (ttmem.c), the HTML report (tthtml.c). Formatting only. */
#ifndef PQ_RENDER_TTMEM_H
#define PQ_RENDER_TTMEM_H
#include "analysis/ttmem.h"
#include "core/buf.h"

/* Writes output WHAT of LOG (R: its analysis; unused by the JSON outputs) into B. */
void ttmem_render(const tt_log *log, const ttmem_result *r, pq_tt_output what, const char *name,
                  buf *b);
void tthtml_render(const tt_log *log, const ttmem_result *r, const char *name, buf *b);

#endif
