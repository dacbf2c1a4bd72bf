/* nsys_sections.c - the sections of `profq nsys` beyond the module and communication
 * tables, gathered for render/nsys.c: compile (analysis/nsys_compile.c), heap
 * (analysis/nsys_heap.c) and flame (analysis/nsys_flame.c) results computed for the
 * asked-for sections, written in the order of the text and JSON documents, and released.
 * Calls the analyses and the section formatters; formats nothing itself. */
#include "render/nsys_sections.h"

#include <string.h>

pq_status nsys_more_compute(const pq_profile *prof, unsigned want, const nsys_modules_result *mods,
                            const nsys_comm_result *comm, nsys_more *out, pq_error *err)
{
    memset(out, 0, sizeof *out);
    out->want = want;
    pq_status st = PQ_OK;
    if (want & PQ_NSYS_COMPILE) {
        st = nsys_compile_compute(prof, &out->compile, err);
        out->have_compile = st == PQ_OK;
    }
    if (st == PQ_OK && (want & (PQ_NSYS_HEAP | PQ_NSYS_FLAME)))
        st = nsys_dumps_open(prof, &out->dumps, &out->ndumps, err);
    if (st == PQ_OK && (want & PQ_NSYS_HEAP)) {
        st = nsys_heap_compute(mods, out->dumps, out->ndumps, &out->heap, err);
        out->have_heap = st == PQ_OK;
    }
    if (st == PQ_OK && (want & PQ_NSYS_FLAME)) {
        st = nsys_flame_compute(comm, out->dumps, out->ndumps, &out->flame, err);
        out->have_flame = st == PQ_OK;
    }
    if (st != PQ_OK)
        nsys_more_free(out);
    return st;
}

void nsys_more_free(nsys_more *m)
{
    if (m->have_compile)
        nsys_compile_free(&m->compile);
    if (m->have_heap)
        nsys_heap_free(&m->heap);
    if (m->have_flame)
        nsys_flame_free(&m->flame);
    if (m->dumps)
        nsys_dumps_close(m->dumps, m->ndumps);
    memset(m, 0, sizeof *m);
}

void nsys_more_json_rows(json_writer *w, const nsys_more *m, int frame)
{
    if (m->have_compile)
        nsys_compile_json_rows(w, &m->compile, frame);
}

void nsys_more_json(json_writer *w, const nsys_more *m)
{
    if (m->have_compile)
        nsys_compile_json(w, &m->compile);
    if (m->have_heap)
        nsys_heap_json(w, &m->heap);
    if (m->have_flame)
        nsys_flame_json(w, &m->flame);
}

void nsys_more_text(const nsys_more *m, buf *b)
{
    if (m->have_compile)
        nsys_compile_text(&m->compile, b);
    if (m->have_heap)
        nsys_heap_text(&m->heap, b);
    if (m->have_flame)
        nsys_flame_text(&m->flame, b);
}

void nsys_more_svg(const nsys_more *m, buf *b)
{
    if (m->have_flame)
        nsys_flame_svg(&m->flame, b);
}
