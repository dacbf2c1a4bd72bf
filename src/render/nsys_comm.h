/* nsys_comm.h - the communication sections of `profq nsys` (render/nsys_comm.c): alignment,
 * runtime, opcodes, collectives, variability and bias as text and as the keys of the
 * profq.nsys.v1 document, and the bus bandwidth vs message size SVG. */
#ifndef PQ_RENDER_NSYS_COMM_H
#define PQ_RENDER_NSYS_COMM_H
#include "analysis/nsys_comm.h"
#include "core/buf.h"
#include "core/json.h"

/* SECTIONS: a PQ_NSYS_* mask, 0 for all. */
void nsys_comm_json(json_writer *w, const nsys_comm_result *r, unsigned sections);
void nsys_comm_text(buf *b, const nsys_comm_result *r, unsigned sections);
/* A standalone SVG document: steady collective instances, bus bandwidth (max over devices)
 * against message size (log scale), one colour per collective kind. */
void nsys_comm_svg(buf *b, const nsys_comm_result *r);

#endif
