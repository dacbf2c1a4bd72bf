/* partial_nsys.h - the model side of the nsys partial (partial_nsys_model.c): a source's
 * encoded model decoded back into what the nsys analyses read. Not part of the library's
 * API; the format is in docs/internals/partial.md. */
#ifndef PQ_API_PARTIAL_NSYS_H
#define PQ_API_PARTIAL_NSYS_H
#include "analysis/nsys_compile.h"
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
    int has_compile;    /* an nsys-jax archive: its compile summary's share, in COMPILE */
    nsys_compile_part compile;
} nsys_decoded;

/* A partial's HLO dumps, each once by its bytes' sha256 (several processes of one job hold the
 * same dumps): the sources name theirs by sha256. SORTED indexes them by sha256 (bsearch). */
typedef struct nsys_dump {
    unsigned char sha[32];
    pq_str bytes;
} nsys_dump;

typedef struct nsys_dumps {
    const nsys_dump *d;
    size_t n;
    const nsys_dump **sorted;
} nsys_dumps;

/* Indexes T->d into T->sorted (0: out of memory); nsys_dumps_find is then a bsearch. */
int nsys_dumps_index(nsys_dumps *t);
const nsys_dump *nsys_dumps_find(const nsys_dumps *t, const unsigned char sha[32]);

/* Decodes the model blob R reads of the source at PATH (every id, track and length checked:
 * a failure names the offset and what was expected; an XSpace's own errors are its
 * reader's, offsets in that XSpace under PATH) into D, its HLO dumps from DUMPS (a dump the
 * partial does not hold is malformed); on failure D holds nothing to free. */
pq_status nsys_decode_source(pt_reader *r, const char *path, const nsys_dumps *dumps,
                             nsys_decoded *d);
void nsys_decoded_free(nsys_decoded *d);
/* Counts slice I of M into track K's count and span (first start, greatest end): what a
 * partial's track states and its reader checks. */
void nsys_track_add(slice_track *k, const model_slices *m, size_t i);
/* The model source the analyses read: D's parts (borrowed) under PATH. */
void nsys_source_of(const nsys_decoded *d, const char *path, pq_source *out);

/* pq_nsys_compute (api/nsys.c) with the compile parts of the sources given (PARTS: one per
 * source, NULL entries computed from the source's timeline). */
pq_status nsys_compute_api(const pq_profile *profile, const pq_nsys_options *opts,
                           const nsys_compile_part *const *parts, pq_nsys_result **out,
                           pq_error *err);

#endif
