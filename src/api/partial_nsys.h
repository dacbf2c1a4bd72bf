/* partial_nsys.h - the model side of the nsys partial (partial_nsys_model.c): a source's
 * encoded model decoded back into what the nsys analyses read. Not part of the library's
 * API; the format is in docs/internals/partial.md. */
#ifndef PQ_API_PARTIAL_NSYS_H
#define PQ_API_PARTIAL_NSYS_H
#include "api/partial_int.h"
#include "model/model.h"

/* A source decoded for the render: its format, layout era, export counts, timeline, and
 * its HLO dumps as a stored zip in memory (ZIP) that model_members opens. */
typedef struct nsys_decoded {
    pq_format format;
    int newer, has_export;
    model_nsys_export exp;
    model_slices *sl; /* NULL: the source has no timeline */
    buf zip;
    pq_profile *xspace; /* an XSpace source: its GPU and metadata planes, opened */
} nsys_decoded;

/* Decodes the model blob R reads of the source at PATH (every id, track and length checked:
 * a failure names the offset and what was expected; an XSpace's own errors are its
 * reader's, offsets in that XSpace under PATH) into D; on failure D holds nothing to free. */
pq_status nsys_decode_source(pt_reader *r, const char *path, nsys_decoded *d);
void nsys_decoded_free(nsys_decoded *d);
/* The model source the analyses read: D's parts (borrowed) under PATH. */
void nsys_source_of(const nsys_decoded *d, const char *path, pq_source *out);

#endif
