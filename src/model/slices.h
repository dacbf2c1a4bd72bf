/* slices.h - the model's timeline: tracks (one per process/thread or device stream) and
 * their slices as columnar arrays, filled through the event interface (model/events.h) by
 * every reader that has timed events (trace JSON; XPlane when an analysis asks for the
 * timeline). Names and the string args are interned to ids in one pool; times are int64
 * picoseconds relative to the first slice (base_us), clamped to +-2^60 ps so that start +
 * duration, doubled for midpoints, never overflows. Slices stay in arrival order; analyses
 * sort what they need. Out of memory is sticky (failed). */
#ifndef PQ_MODEL_SLICES_H
#define PQ_MODEL_SLICES_H
#include "core/arena.h"
#include "core/intern.h"
#include "core/pairmap.h"
#include "model/devices.h"
#include "model/events.h"
#include "model/ops.h"

#include <stddef.h>
#include <stdint.h>

typedef struct slice_track {
    int64_t pid, tid;
    int has_kernel;           /* a GPU kernel / memcpy / memset slice is on it (a stream) */
    uint64_t nslices;         /* slices on the track */
    int64_t first_ps, end_ps; /* earliest start, latest end (relative to base_us) */
} slice_track;

typedef struct model_slices {
    intern_pool names; /* slice names, arg strings, process and thread names */
    pairmap track_map; /* (pid, tid) -> track index */
    slice_track *tracks;
    uint32_t ntracks, captracks, last_track;
    uint32_t last_run, last_module;   /* the ids stated last (on_slice's intern_again) */
    pairmap proc_names, thread_names; /* (pid, 0) -> name id; (pid, tid) -> name id */
    /* Columns, one entry per slice. */
    uint32_t *track, *name, *tf_op, *source, *long_name, *run_id;
    int64_t *start_ps, *dur_ps;
    /* step_num args: NULL until a slice states one (SLICE_HAS_STEP; Kineto traces never do,
     * so they pay nothing for it); then one per slice, read only where the flag is set. */
    int64_t *step;
    uint8_t *flags; /* SLICE_* (model/events.h) */
    /* hlo_module name ids: NULL until a slice names a module (Kineto traces never do, so
     * they pay nothing for it); then one per slice, 0 where none was named. */
    uint32_t *module;
    /* The op of each slice: its index + 1 in the source's ops (model/ops.h) as
     * slices_state_ops stated them, 0 where the slice is no op; NULL until they are stated
     * and when no slice is one. */
    uint32_t *op;
    size_t n, cap;
    int have_base;
    int64_t base_us;       /* start of the first slice, whole µs */
    model_devices devices; /* the devices the input states (Kineto: deviceProperties) */
    int failed;
} model_slices;

/* 0, or -1 when memory ran out. */
int slices_init(model_slices *m);
void slices_free(model_slices *m);
/* The event interface that stores into M. */
pq_events slices_events(model_slices *m);
/* Room for MORE slices beyond those fed (a reader that knows how many are coming saves
 * the columns' regrowth: copies and fresh pages); 0, or -1 when memory ran out. */
int slices_reserve(model_slices *m, size_t more);

/* States into OPS the ops M's slices name and fills M's op column: an XLA op (a slice with
 * an hlo_op arg: SLICE_XLA_OP) is keyed by (its hlo_module's name id, 0 when none, slice
 * name), GPU stream work (Kineto's kernel, gpu_memcpy, gpu_memset) by (its track index + 1,
 * slice name), the stream standing where a program stands, category "kernel", "memcpy" or
 * "memset"; the trace states no FLOPs or bytes, so every op sums its figures per event
 * (custom_call). The op names are copied to STRINGS (the pool may grow later). Run once,
 * after the reader is done. 0, or -1 when memory ran out. */
int slices_state_ops(model_slices *m, model_ops *ops, arena *strings);

/* Name of process PID / thread (PID, TID), "" when none was given. */
const char *slices_process_name(const model_slices *m, int64_t pid);
const char *slices_thread_name(const model_slices *m, int64_t pid, int64_t tid);

#endif
