/* events.h - the one event interface through which readers feed the model, in the manner of
 * perf's `struct perf_tool`: a reader walks its input and calls these callbacks; the
 * model's slice store (model/slices.h) implements them to keep what it is given, and any
 * other consumer may implement them to stream instead. Times are whole microseconds plus
 * the picoseconds below (so epoch-µs timestamps stay exact); strings are views valid only
 * during the call. A callback returns 0 to go on, non-zero to stop (out of memory). */
#ifndef PQ_MODEL_EVENTS_H
#define PQ_MODEL_EVENTS_H
#include "profq.h"

#include <stdint.h>

/* One complete slice (a duration on one thread or stream). */
typedef struct pq_slice_in {
    int64_t pid, tid;
    pq_str name;
    int64_t ts_us, ts_frac_ps; /* start: whole µs + ps below */
    int64_t dur_ps;
    pq_str tf_op, source, long_name, run_id; /* args the analyses read; empty when absent */
    int has_step_num;
    int64_t step_num;
    int gpu_kernel; /* Kineto: cat kernel / gpu_memcpy / gpu_memset (a device stream) */
    /* Has an hlo_op arg (stat in an XPlane): an XLA op. On a run with no device-op track
     * (JAX on CPU), XLA:CPU thunk events on host threads count as the device ops. */
    int xla_op;
} pq_slice_in;

typedef struct pq_events {
    /* Names of processes and threads (later names overwrite earlier ones). */
    int (*process_name)(void *ctx, int64_t pid, pq_str name);
    int (*thread_name)(void *ctx, int64_t pid, int64_t tid, pq_str name);
    int (*slice)(void *ctx, const pq_slice_in *s);
    void *ctx;
} pq_events;

#endif
