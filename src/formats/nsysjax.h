/* nsysjax.h - an nsys-jax archive (a .zip read in place) as a profile source: the
 * GPU-projected NVTX ranges of nvtx_gpu_proj_trace/trace.parquet on one track per
 * (process, device), and the host NVTX push/pop ranges (compilation) of
 * report_nvtx_pushpop_trace.{csv.xz,parquet} on one track per (process, thread), both fed to
 * the model through the event interface (docs/internals/nsys.md).
 *
 * The reader resolves what the nsys-jax loader's module and thunk frames need, as the
 * archive-era loader does (../shared/spec/nsys-jax.md section 4): the deepest thunk under
 * the nearest XlaModule, edge effects dropped, program ids, executions, device ordinals.
 * It records them in the slices' string args:
 * - an XLA module range: module = its hlo_module name, run_id = "P:E" (program id P, -1
 *   when the range names none; E its ProgramExecution);
 * - a thunk range: xla_op set, module and run_id those of the module execution it runs in;
 * - every other range: neither (projected ranges carry SLICE_GPU_ANNOTATION, host ranges
 *   no GPU flag).
 * Both trace.parquet column sets are read (the archive era's and the newer Text/Start/End
 * set, with or without Domain); with thread-metadata.parquet or the newer set the current
 * loader's rules apply (devices from XlaLauncher thread names, run_id "P:E" with E counted
 * per device; with dumps, HEAD's fingerprint program ids: run_id "P:E:FINGERPRINT",
 * compilation ranges "compiled:P:FINGERPRINT", nsysjax_fp.c). A schema it does not know is
 * PQ_ERR_INPUT naming the column.
 */
#ifndef PQ_FORMATS_NSYSJAX_H
#define PQ_FORMATS_NSYSJAX_H
#include "model/events.h"
#include "model/model.h"
#include "profq.h"

#include <stddef.h>
#include <stdint.h>

/* Tracks: device D of process PID is (PID, D); host thread TID (the push/pop ranges, and
 * projected ranges of a thread that launched no thunk) is (PID, -TID), so that the two
 * never share a pair (Linux TIDs are positive). */
#define NSYSJAX_HOST_TID(tid) ((int64_t)(0u - (uint64_t)(tid))) /* no overflow at INT64_MIN */

/* Reads the archive mapped in SRC->file (SRC->path names it), or the extracted archive
 * directory SRC->path when SRC->file is not mapped, into SRC->slices (an empty timeline the
 * caller made). */
pq_status nsysjax_read(pq_source *src, pq_error *err);
/* 1 when PATH is a directory (an extracted archive for nsysjax_read). */
int nsysjax_is_directory(const char *path);

/* Feeds the archive DATA[0..N) to EV (PATH names it in errors); *ndevices gets the number
 * of devices (may be NULL). */
pq_status nsysjax_feed(const uint8_t *data, size_t n, const char *path, const pq_events *ev,
                       int *ndevices, pq_error *err);

/* The program id of an after-optimisation HLO dump member
 * "dump/module_NNNN.<name>..._gpu_after_optimizations.hlo.pb.xz" (NNNN), or -1 for any other
 * member name (nsysjax_dumps.c). */
int64_t nsysjax_dump_program(const char *name);

#endif
