/* summary_doc.h - the pq_summary handle shared by the summary entry points and renderers:
 * the result structs of one summary, computed in process or read from a saved document. */
#ifndef PQ_RENDER_SUMMARY_DOC_H
#define PQ_RENDER_SUMMARY_DOC_H
#include "core/arena.h"
#include "profq.h"

struct pq_summary {
    const pq_summary_result *r;  /* the summary: computed, or read */
    pq_summary_result *computed; /* pq_summary_compute's (freed with it), or NULL */
    pq_summary_result read;      /* a saved document's, its rows and strings in mem */
    arena mem;
};

#endif
