/* nsys_sections.h - the sections of `profq nsys` beyond the module table (render/nsys.c
 * calls them): each writes its part of the text or of the profq.nsys.v1 JSON document from
 * its analysis's result. Formats only. */
#ifndef PQ_RENDER_NSYS_SECTIONS_H
#define PQ_RENDER_NSYS_SECTIONS_H
#include "analysis/nsys_compile.h"
#include "core/buf.h"
#include "core/json.h"

/* frames.FRAME.compile_rows (FRAME: NSYS_ALL, NSYS_STEADY, NSYS_INIT). */
void nsys_compile_json_rows(json_writer *w, const nsys_compile_result *r, int frame);
/* The "compile" key: total_s, passes[] (name, non_child_s, child_s, share). */
void nsys_compile_json(json_writer *w, const nsys_compile_result *r);
void nsys_compile_text(const nsys_compile_result *r, buf *b);

#endif
