/* scan.h - the scan report from its counts alone (render/info.c), for pq_render_scan and
 * for the merge of scan partials (api/partial.c), which have no profile. */
#ifndef PQ_RENDER_SCAN_H
#define PQ_RENDER_SCAN_H
#include "profq.h"

/* pq_render_scan of NSOURCES sources whose totals are T. */
pq_status render_scan_counts(size_t nsources, const pq_scan_totals *t, pq_output fmt, pq_sink *sink,
                             pq_error *err);

#endif
