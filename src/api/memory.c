/* memory.c - the one-call entry points of the memory analyses (pq_render_memory_viewer,
 * pq_render_memory, pq_render_heap, pq_render_memory_profile): compute the result
 * (src/analysis/), render it (src/render/), free it. Nothing is computed or formatted here;
 * include/profq.h documents the three steps for callers who want the result itself. */
#include "profq.h"

pq_status pq_render_memory_viewer(const pq_profile *p, const pq_memviewer_options *opts,
                                  pq_output fmt, pq_sink *sink, pq_error *err)
{
    pq_memory_viewer_result *r = NULL;
    pq_status st = pq_memory_viewer_compute(p, opts, &r, err);
    if (st == PQ_OK)
        st = pq_memory_viewer_render_ex(r, opts, fmt, sink, err);
    pq_memory_viewer_free(r);
    return st;
}

pq_status pq_render_memory(const pq_profile *p, const pq_memory_options *opts, pq_output fmt,
                           pq_sink *sink, pq_error *err)
{
    pq_memory_result *r = NULL;
    pq_status st = pq_memory_compute(p, opts, &r, err);
    if (st == PQ_OK)
        st = pq_memory_render_ex(r, opts, fmt, sink, err);
    pq_memory_free(r);
    return st;
}

pq_status pq_render_heap(const pq_profile *p, const char *module, pq_output fmt, pq_sink *sink,
                         pq_error *err)
{
    pq_heap_result *r = NULL;
    pq_status st = pq_heap_compute(p, module, &r, err);
    if (st == PQ_OK)
        st = pq_heap_render(r, fmt, sink, err);
    pq_heap_free(r);
    return st;
}

pq_status pq_render_memory_profile(const pq_profile *p, pq_output fmt, pq_sink *sink, pq_error *err)
{
    pq_memory_profile_result *r = NULL;
    pq_status st = pq_memory_profile_compute(p, &r, err);
    if (st == PQ_OK)
        st = pq_memory_profile_render(r, fmt, sink, err);
    pq_memory_profile_free(r);
    return st;
}
