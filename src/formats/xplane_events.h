/* xplane_events.h - a loaded XSpace profile fed to the model's event interface, mapped as
 * the seed's XPlane path does (spec/seed-tools.md 1.27): plane i -> pid i+1 named after
 * the plane, line -> tid (line id, or index+1) named display_name or name, event name =
 * metadata display_name or name, ts = line timestamp + offset, only events with a
 * duration; args from metadata stats overlaid by event stats. */
#ifndef PQ_FORMATS_XPLANE_EVENTS_H
#define PQ_FORMATS_XPLANE_EVENTS_H
#include "model/events.h"
#include "model/model.h"

/* Feeds every event of PROF to OUT; *nevents gets the number of events walked. */
int xplane_events_feed(const pq_profile *prof, const pq_events *out, uint64_t *nevents);

#endif
