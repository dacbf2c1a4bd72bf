/* info_trace.h - the trace-event JSON part of `profq info`: processes and threads as
 * tracks with their slice counts and spans. */
#ifndef PQ_RENDER_INFO_TRACE_H
#define PQ_RENDER_INFO_TRACE_H
#include "core/buf.h"
#include "core/json.h"
#include "model/model.h"

/* The "trace" object of a source in profq.info.v1 (W is inside the source object). */
void info_trace_json(json_writer *w, const pq_source *src);
/* The text lines of a trace source, after its header. */
void info_trace_text(buf *b, const pq_source *src);
/* A device capability value (model/devices.h) as JSON: what the input states, typed. */
void info_device_value_json(json_writer *w, const pq_device_value *v);

#endif
