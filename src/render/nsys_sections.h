/* nsys_sections.h - the sections of `profq nsys` beyond the module table (render/nsys.c
 * calls them): each writes its part of the text or of the profq.nsys.v1 JSON document from
 * its analysis's result. Formats only. */
#ifndef PQ_RENDER_NSYS_SECTIONS_H
#define PQ_RENDER_NSYS_SECTIONS_H
#include "analysis/nsys.h"
#include "analysis/nsys_comm.h"
#include "analysis/nsys_compile.h"
#include "analysis/nsys_flame.h"
#include "analysis/nsys_heap.h"
#include "core/buf.h"
#include "core/json.h"

/* frames.FRAME.compile_rows (FRAME: NSYS_ALL, NSYS_STEADY, NSYS_INIT). */
void nsys_compile_json_rows(json_writer *w, const nsys_compile_result *r, int frame);
/* The "compile" key: total_s, passes[] (name, non_child_s, child_s, share). */
void nsys_compile_json(json_writer *w, const nsys_compile_result *r);
void nsys_compile_text(const nsys_compile_result *r, buf *b);
/* The "heap" key: modules[] (program_id, name, has_dump, peak_bytes, traces[]). */
void nsys_heap_json(json_writer *w, const nsys_heap_result *r);
void nsys_heap_text(const nsys_heap_result *r, buf *b);
/* The "flame" key: source[] and op_name[] folded stacks ({stack: [frames], ms}). */
void nsys_flame_json(json_writer *w, const nsys_flame_result *r);
void nsys_flame_text(const nsys_flame_result *r, buf *b);
/* Both flame graphs, one self-contained SVG document. */
void nsys_flame_svg(const nsys_flame_result *r, buf *b);

/* The compile, heap and flame sections of M that were computed (have_*). */
void nsys_more_json_rows(json_writer *w, const nsys_result *m, int frame);
void nsys_more_json(json_writer *w, const nsys_result *m);
void nsys_more_text(const nsys_result *m, buf *b);
void nsys_more_svg(const nsys_result *m, buf *b);

#endif
