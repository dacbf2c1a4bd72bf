/* heapsim.h - heap usage over program order from a module's heap-simulator traces
 * (`profq heap`): each trace replayed with ALLOC adding a buffer's size, SHARE_WITH
 * aliasing a buffer to its canonical one (memory counted once, re-added only when the
 * canonical memory had been freed), FREE releasing the memory when its last user frees
 * it. Pure: a decoded module in, per-trace timelines out (in the caller's arena).
 * pq_heap_compute (profq.h) chooses the modules and decodes them. */
#ifndef PQ_ANALYSIS_HEAPSIM_H
#define PQ_ANALYSIS_HEAPSIM_H
#include "core/arena.h"
#include "formats/hlo.h"
#include "profq.h"

/* One replayed trace: public (include/profq.h, "Heap usage"). */
typedef pq_heap_trace hs_trace;

typedef struct hs_result {
    hs_trace *traces;
    uint32_t ntraces;
    int64_t peak_bytes; /* the largest trace peak */
} hs_result;

pq_status heapsim_compute(const hlo_module *m, arena *a, hs_result *out);

#endif
