/* trace_events.h - the trace-event JSON reader's feed of the model (model/events.h): M metadata
 * (process/thread names), X events with the seed's acceptance rule, B/E pairs matched per
 * pid/tid, and the args the summary uses (tf_op, source, long_name, run_id, step_num). */
#ifndef PQ_FORMATS_TRACE_EVENTS_H
#define PQ_FORMATS_TRACE_EVENTS_H
#include "model/events.h"
#include "trace_json.h"

/* Feeds DATA (N bytes, gzip or plain) named NAME to OUT; *info gets the reader's facts. */
pq_status trace_events_feed(const uint8_t *data, size_t n, const char *name, const pq_events *out,
                            tj_info *info, pq_error *err);
/* The same from the file PATH, read through a bounded window (gzip or plain). */
pq_status trace_events_feed_file(const char *path, const pq_events *out, tj_info *info,
                                 pq_error *err);

#endif
