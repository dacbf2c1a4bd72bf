/* trace_events.h - turning trace-event JSON into the summary's complete events: M metadata
 * (process/thread names), X events with the seed's acceptance rule, B/E pairs matched per
 * pid/tid, and the args the summary uses (tf_op, source, long_name, run_id, step_num). */
#ifndef PQ_FORMATS_TRACE_EVENTS_H
#define PQ_FORMATS_TRACE_EVENTS_H
#include "analysis/summary.h"
#include "trace_json.h"

/* Feeds DATA (N bytes, gzip or plain) named NAME into B; *info gets the reader's facts. */
pq_status trace_events_feed(const uint8_t *data, size_t n, const char *name, sm_builder *b,
                            tj_info *info, pq_error *err);
/* The same from the file PATH, read through a bounded window (gzip or plain). */
pq_status trace_events_feed_file(const char *path, sm_builder *b, tj_info *info, pq_error *err);

#endif
