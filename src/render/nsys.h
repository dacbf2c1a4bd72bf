/* nsys.h - the renderer of `profq nsys` (render/nsys.c): the composed nsys result
 * (analysis/nsys.h) as text, JSON profq.nsys.v1 or SVG. Formats only. */
#ifndef PQ_RENDER_NSYS_H
#define PQ_RENDER_NSYS_H
#include "analysis/nsys.h"

/* The sections R was computed for (R->sections) in FMT. PQ_OUT_SVG: the flame graphs when
 * the flame section was asked for, else bus bandwidth vs message size; PQ_ERR_INPUT on the
 * XPlane path (it has the module table only). */
pq_status nsys_render(const nsys_result *r, pq_output fmt, pq_sink *sink, pq_error *err);

#endif
