/* heapsim.h - heap usage over program order from a module's heap-simulator traces
 * (`profq heap`): each trace replayed with ALLOC adding a buffer's size, SHARE_WITH
 * aliasing a buffer to its canonical one (memory counted once, re-added only when the
 * canonical memory had been freed), FREE releasing the memory when its last user frees
 * it. Pure: a decoded module in, per-trace timelines out (in the caller's arena). */
#ifndef PQ_ANALYSIS_HEAPSIM_H
#define PQ_ANALYSIS_HEAPSIM_H
#include "core/arena.h"
#include "formats/hlo.h"

typedef struct hs_trace {
    uint32_t index;      /* position in buffer_assignment.heap_simulator_traces */
    uint32_t nevents;    /* usage has nevents + 1 points: before each event, and the end */
    int64_t *usage;      /* bytes */
    pq_str *instruction; /* instruction of event i ("" for the end point) */
    int64_t peak_bytes;
    uint32_t peak_position; /* first event after which usage equals the peak */
    int64_t color;          /* of the first event's buffer (-1 when unknown) */
    uint32_t unknown_buffers;
} hs_trace;

typedef struct hs_result {
    hs_trace *traces;
    uint32_t ntraces;
    int64_t peak_bytes; /* the largest trace peak */
} hs_result;

pq_status heapsim_compute(const hlo_module *m, arena *a, hs_result *out);

#endif
