/* summary_doc.h - the pq_summary handle shared by the summary renderers. */
#ifndef PQ_RENDER_SUMMARY_DOC_H
#define PQ_RENDER_SUMMARY_DOC_H
#include "core/jval.h"

struct pq_summary {
    jval *doc; /* a parsed profile_summary.v1 object */
};

#endif
