/* nsys_sections.h - the sections of `profq nsys` beyond the module table (render/nsys.c
 * calls them): each writes its part of the text or of the profq.nsys.v1 JSON document from
 * its analysis's result. Formats only. */
#ifndef PQ_RENDER_NSYS_SECTIONS_H
#define PQ_RENDER_NSYS_SECTIONS_H
#include "analysis/nsys_compile.h"
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

/* The sections computed beside the module table, each present when its PQ_NSYS_* bit is
 * asked for. The flame section is built only for --format svg or json. */
typedef struct nsys_more {
    unsigned want;
    nsys_compile_result compile;
    nsys_heap_result heap;
    int have_compile, have_heap;
} nsys_more;

pq_status nsys_more_compute(const pq_profile *prof, unsigned want, pq_output fmt,
                            const nsys_modules_result *mods, nsys_more *out, pq_error *err);
void nsys_more_free(nsys_more *m);
void nsys_more_json_rows(json_writer *w, const nsys_more *m, int frame);
void nsys_more_json(json_writer *w, const nsys_more *m);
void nsys_more_text(const nsys_more *m, buf *b);
void nsys_more_svg(const nsys_more *m, buf *b);

#endif
