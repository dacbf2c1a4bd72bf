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

/* Flags of a slice (model_slices.flags). */
enum {
    SLICE_HAS_STEP = 1,
    SLICE_XLA_OP = 2,
    SLICE_GPU_KERNEL = 4,
    SLICE_GPU_MEMCPY = 8,
    SLICE_GPU_MEMSET = 16,
    SLICE_GPU_ANNOTATION = 32
};
/* The flags that make a track a GPU stream. */
#define SLICE_GPU_WORK (SLICE_GPU_KERNEL | SLICE_GPU_MEMCPY | SLICE_GPU_MEMSET)

/* One complete slice (a duration on one thread or stream). */
typedef struct pq_slice_in {
    int64_t pid, tid;
    pq_str name;
    int64_t ts_us, ts_frac_ps; /* start: whole µs + ps below */
    int64_t dur_ps;
    pq_str tf_op, source, long_name, run_id; /* args the analyses read; empty when absent */
    int has_step_num;
    int64_t step_num;
    /* Kineto's GPU categories: SLICE_GPU_KERNEL (cat kernel), _MEMCPY (gpu_memcpy),
     * _MEMSET (gpu_memset), _ANNOTATION (gpu_user_annotation); 0 for anything else. */
    unsigned gpu;
    /* Has an hlo_op arg (stat in an XPlane): an XLA op. On a run with no device-op track
     * (JAX on CPU), XLA:CPU thunk events on host threads count as the device ops. */
    int xla_op;
    pq_str module; /* hlo_module arg (JAX traces); empty when absent */
} pq_slice_in;

/* A value of a device capability as the input states it. */
typedef enum pq_device_value_kind {
    PQ_DEV_INT,
    PQ_DEV_NUM,
    PQ_DEV_STR,
    PQ_DEV_BOOL,
    PQ_DEV_UINT /* an unsigned 64-bit integer (XPlane's uint64 stats) */
} pq_device_value_kind;

typedef struct pq_device_value {
    pq_device_value_kind kind;
    int64_t i;  /* INT, BOOL */
    double d;   /* NUM */
    pq_str s;   /* STR (in a stored device: NUL-terminated) */
    uint64_t u; /* UINT */
} pq_device_value;

typedef struct pq_device_cap_in {
    pq_str key;
    pq_device_value v;
} pq_device_cap_in;

/* One device and the capabilities its input states, in input order (never defaults). */
typedef struct pq_device_in {
    int64_t id;
    const char *kind; /* a static string: "GPU", "TPU", "CPU", "accelerator", "Tenstorrent" */
    pq_str name;
    const pq_device_cap_in *caps;
    size_t ncaps;
} pq_device_in;

typedef struct pq_events {
    /* Names of processes and threads (later names overwrite earlier ones). */
    int (*process_name)(void *ctx, int64_t pid, pq_str name);
    int (*thread_name)(void *ctx, int64_t pid, int64_t tid, pq_str name);
    int (*slice)(void *ctx, const pq_slice_in *s);
    void *ctx;
    /* A device (NULL: the consumer keeps none; readers check). Last, so that consumers that
     * predate it initialise the others positionally. */
    int (*device)(void *ctx, const pq_device_in *d);
} pq_events;

#endif
