/* xplane.h - XSpace reader into the model. */
#ifndef PQ_FORMATS_XPLANE_H
#define PQ_FORMATS_XPLANE_H
#include "model/model.h"

/* Decodes src->file as an XSpace into src (planes, lines, metadata, programs).
 * Every structure is bounds-checked; errors name src->path and a byte offset.
 * With SCAN not NULL, every stat value is also decoded and counted into *SCAN in the
 * same pass (the single-pass full decode behind `profq scan`). */
pq_status xplane_read(pq_source *src, pq_scan_totals *scan, pq_error *err);

#endif
