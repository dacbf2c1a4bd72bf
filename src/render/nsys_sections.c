/* nsys_sections.c - the sections of `profq nsys` beyond the module and communication
 * tables, gathered for render/nsys.c: the compile, heap and flame results of the composed
 * nsys result (analysis/nsys.c) that were computed, written in the order of the text and
 * JSON documents. Calls the section formatters; computes and formats nothing itself. */
#include "render/nsys_sections.h"

void nsys_more_json_rows(json_writer *w, const nsys_result *m, int frame)
{
    if (m->have_compile)
        nsys_compile_json_rows(w, &m->compile, frame);
}

void nsys_more_json(json_writer *w, const nsys_result *m)
{
    if (m->have_compile)
        nsys_compile_json(w, &m->compile);
    if (m->have_heap)
        nsys_heap_json(w, &m->heap);
    if (m->have_flame)
        nsys_flame_json(w, &m->flame);
}

void nsys_more_text(const nsys_result *m, buf *b)
{
    if (m->have_compile)
        nsys_compile_text(&m->compile, b);
    if (m->have_heap)
        nsys_heap_text(&m->heap, b);
    if (m->have_flame)
        nsys_flame_text(&m->flame, b);
}

void nsys_more_svg(const nsys_result *m, buf *b)
{
    if (m->have_flame)
        nsys_flame_svg(&m->flame, b);
}
