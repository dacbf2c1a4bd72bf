/* tools.c (api) - pq_render_tools: the availability analysis (analysis/tools.c), then its
 * renderer (render/tools.c). No figures are computed or formatted here. */
#include "render/tools.h"

pq_status pq_render_tools(const pq_profile *profile, pq_output fmt, pq_sink *sink, pq_error *err)
{
    tools_result r;
    pq_status st = tools_compute(profile, &r, err);
    return st == PQ_OK ? tools_render(&r, fmt, sink, err) : st;
}
