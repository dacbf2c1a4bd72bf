/* nsys_sqlite.h - an Nsight Systems SQLite export (`nsys export --type sqlite`) as a profile
 * source, read through libsqlite3 (loaded on first use, io/lazylib.h), never written.
 *
 * Tracks (../shared/spec/nsys-jax.md section 3 has the schema):
 * - a GPU stream: (pid, NSQL_STREAM_TID(device, stream)), named "GPU D stream S": kernels
 *   (SLICE_GPU_KERNEL, demangled names), memcpys (SLICE_GPU_MEMCPY, "[CUDA memcpy HtoD]"...),
 *   memsets (SLICE_GPU_MEMSET);
 * - a host thread: (pid, tid), named from ThreadNames: CUDA runtime calls and NVTX
 *   push/pop and start/end ranges (text or StringIds text, as bytes);
 * - the GPU projection of NVTX ranges: (pid, NSQL_PROJECTED_TID(device)), named "GPU D NVTX
 *   (projected)", flagged SLICE_GPU_ANNOTATION as nsys-jax's projected ranges are: a range
 *   runs on the GPU from the start of the first to the end of the last kernel launched inside
 *   it on its thread (CUDA runtime call in the range -> correlationId -> kernel). XLA module
 *   ranges ("TSL:XlaModule:#...hlo_module=NAME[,program_id=N]#") get module = NAME and
 *   run_id "P:E" (E the execution per thread and program); a thunk range ("TSL:Thunk:#")
 *   inside one on the same thread gets xla_op and that module's module and run_id.
 * pid and tid come from the serialized globalTid (pid bits 24..47, tid bits 0..23). Times are
 * nanoseconds in the export, picoseconds in the model.
 */
#ifndef PQ_FORMATS_NSYS_SQLITE_H
#define PQ_FORMATS_NSYS_SQLITE_H
#include "model/events.h"
#include "model/model.h"
#include "profq.h"

#include <stddef.h>
#include <stdint.h>

#define NSQL_STREAM_TID(dev, stream) (((int64_t)(dev) + 1) * INT64_C(1000000000) + (stream))
#define NSQL_PROJECTED_TID(dev)      (-((int64_t)(dev) + 1))

/* Reads the export at SRC->path (mapped in SRC->file) into SRC->slices (an empty timeline
 * the caller made) and SRC->nsys_export. The file is opened read-only and immutable; bytes
 * that are not a regular file of that size (stdin, a memory buffer) are deserialized. */
pq_status nsys_sqlite_read(pq_source *src, pq_error *err);

/* Feeds the database image DATA[0..N) (deserialized read-only, for the fuzz target) to EV;
 * PATH names it in errors. OUT (may be NULL) gets the GPUs and counts, in MEM. */
pq_status nsys_sqlite_feed_memory(const uint8_t *data, size_t n, const char *path,
                                  const pq_events *ev, arena *mem, model_nsys_export *out,
                                  pq_error *err);

#endif
