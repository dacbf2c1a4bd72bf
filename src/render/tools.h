/* tools.h - the renderer of `profq tools` (render/tools.c). */
#ifndef PQ_RENDER_TOOLS_H
#define PQ_RENDER_TOOLS_H
#include "analysis/tools.h"

/* R as text or as JSON profq.tools.v1 into SINK. */
pq_status tools_render(const tools_result *r, pq_output fmt, pq_sink *sink, pq_error *err);

#endif
