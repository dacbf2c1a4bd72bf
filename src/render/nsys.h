/* nsys.h - the renderer of `profq nsys` (render/nsys.c): the composed nsys result
 * (analysis/nsys.h) as text, JSON profq.nsys.v1 or SVG. Formats only. */
#ifndef PQ_RENDER_NSYS_H
#define PQ_RENDER_NSYS_H
#include "analysis/nsys.h"

/* The sections R was computed for (R->sections) in FMT. PQ_OUT_SVG: the flame graphs when
 * the flame section was asked for, else bus bandwidth vs message size (on every path). The
 * sections an input cannot give (R->unavailable) are named, not shown. */
pq_status nsys_render(const nsys_result *r, pq_output fmt, pq_sink *sink, pq_error *err);

#endif
