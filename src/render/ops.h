/* ops.h (render) - the writers of op metrics reports: profq's own text and JSON
 * (ops_text.c), XProf's hlo_stats and roofline_model DataTables (ops_xprof.c); op_profile
 * is op_profile.h's. Each formats a finished pq_ops_result into B; errors stay in b->status.
 * The public entry points (pq_ops_render) are src/api/ops.c's. */
#ifndef PQ_RENDER_OPS_H
#define PQ_RENDER_OPS_H
#include "analysis/ops.h"
#include "core/buf.h"

void ops_render_ops_text(buf *b, const pq_ops_result *r, const pq_ops_options *o);
void ops_render_ops_json(buf *b, const pq_ops_result *r, const pq_ops_options *o);
void ops_render_roofline_text(buf *b, const pq_ops_result *r, const pq_ops_options *o);
void ops_render_roofline_json(buf *b, const pq_ops_result *r, const pq_ops_options *o);
void ops_render_hlo_stats(buf *b, const pq_ops_result *r);
void ops_render_roofline_model(buf *b, const pq_ops_result *r);

#endif
