/* xplane.h - XSpace reader into the model. */
#ifndef PQ_FORMATS_XPLANE_H
#define PQ_FORMATS_XPLANE_H
#include "model/model.h"

/* Decodes src->file as an XSpace into src (planes, lines, metadata, programs).
 * Every structure is bounds-checked; errors name src->path and a byte offset. */
pq_status xplane_read(pq_source *src, pq_error *err);

#endif
