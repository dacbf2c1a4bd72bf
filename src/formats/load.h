/* load.h - the format dispatch: which reader fills the model from a source's bytes. */
#ifndef PQ_FORMATS_LOAD_H
#define PQ_FORMATS_LOAD_H
#include "model/model.h"

/* Maps src->path (unless src->file is already set), detects its format and reads it into
 * SRC with the reader of that format; fills src->info. Errors name the file and offset. */
pq_status load_source(pq_source *src, const pq_open_options *opts, pq_error *err);

/* Adds the scan totals of a trace-event JSON source (processes as planes, tracks as
 * lines, traceEvents elements as events, slice start + duration into the checksum). */
void load_trace_scan(const pq_source *src, pq_scan_totals *t);

/* The timeline of an XSpace profile, made when an analysis asks for it (XSpace events are
 * not materialised at load): every plane of every source, in order, fed through the event
 * interface (formats/xplane_events.c: plane i -> pid i+1, numbered across the sources)
 * into the first source's slices, where it is kept (a second call finds it there). Several
 * hosts make one timeline, on the first source: the summary reads the run as one.
 * *NEVENTS gets the XEvents of the profile (those walked: every source's info.events).
 * PQ_ERR_INPUT when the first source has a timeline of another format. */
pq_status load_xplane_timeline(pq_profile *prof, uint64_t *nevents, pq_error *err);

#endif
