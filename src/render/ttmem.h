/* ttmem.h (render) - the HTML report of the Tenstorrent memory analysis (tthtml.c). */
#ifndef PQ_RENDER_TTMEM_H
#define PQ_RENDER_TTMEM_H
#include "analysis/ttmem.h"
#include "core/buf.h"

void tthtml_render(const tt_log *log, const ttmem_result *r, const char *name, buf *b);

#endif
