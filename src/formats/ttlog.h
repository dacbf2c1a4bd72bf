/* ttlog.h - the Tenstorrent runtime log reader (tt-mlir / tt-xla DEBUG logs with per-op or
 * per-submit device memory state). Facts: ../shared/spec/seed-tools.md section 3.
 * The reader fills the model's per-op memory state (a tt_log, model/opmem.h): the operations in
 * program order with their memory state, plus submits, programs, cache misses and MLIR module
 * dumps. It never analyses (analysis/ttmem). */
#ifndef PQ_FORMATS_TTLOG_H
#define PQ_FORMATS_TTLOG_H
#include "model/events.h"
#include "model/opmem.h"
#include "profq.h"

#include <stdint.h>

/* Reads a log already mapped into LOG->file (LOG->path set, arena initialised). */
pq_status ttlog_parse(tt_log *log, pq_error *err);
void ttlog_release(tt_log *log);
/* Reads a run dir's <name>_memory.json and <name>_operations.json back into a new *OUT
 * (ttlog_json.c; pq_ttlog_open_json). */
pq_status ttlog_read_json(const char *memory_json_path, const char *operations_json_path,
                          tt_log **out, pq_error *err);

/* The device whose memory LOG states, to EV->device (when set): kind "Tenstorrent", id 0, no
 * name (the log names none), and per buffer type (DRAM, L1, L1_SMALL, TRACE) the bank count
 * and size per bank in MB of its first memory block, as stated ("DRAM.numBanks",
 * "DRAM.totalBytesPerBank_MB", ...). Nothing when the log holds no memory block. Returns
 * what EV->device returned (non-zero: out of memory). */
int ttlog_give_device(const tt_log *log, const pq_events *ev);

/* Output layout of a type string ("tensor<...>"); see the seed's output_layout_info. */
void ttlog_layout_of(pq_str type, tt_layout *out);
/* Iterates the `tensor<AxBxDTYPE` occurrences of TYPES: returns 1 with the shape text
 * ("AxB", may be empty for scalars) and dtype, advancing *pos; 0 at the end. */
int ttlog_next_tensor(pq_str types, size_t *pos, pq_str *shape, pq_str *dtype);
/* Bytes per element of a dtype name (the seed's table; unknown -> 4). */
uint64_t ttlog_dtype_bytes(pq_str dtype);

#endif
