/* ttlog.h - the Tenstorrent runtime log reader (tt-mlir / tt-xla DEBUG logs with per-op or
 * per-submit device memory state). Facts: ../shared/spec/seed-tools.md section 3.
 * The reader fills a tt_log: the operations in program order with their memory state, plus
 * submits, programs, cache misses and MLIR module dumps. It never analyses (analysis/ttmem). */
#ifndef PQ_FORMATS_TTLOG_H
#define PQ_FORMATS_TTLOG_H
#include "core/arena.h"
#include "io/mapfile.h"
#include "model/events.h"
#include "profq.h"

#include <stdint.h>

enum { TT_DRAM = 0, TT_L1 = 1, TT_L1_SMALL = 2, TT_TRACE = 3, TT_NMEM = 4 };
enum { TT_MAX_DIMS = 8 };

/* One `MemoryView{...}` line; every value is per bank, in MB (bytes / 1048576). */
typedef struct tt_memview {
    int64_t num_banks;
    double total_mb, alloc_mb, free_mb, largest_free_mb;
} tt_memview;

/* Sums over the live tensors of one buffer type (the seed's unpadded_memory). */
typedef struct tt_live {
    uint64_t unpadded_bytes, padded_bytes;
    uint64_t num_tensors;
} tt_live;

/* The seed's output_layout_info of an op's output tensor type. */
typedef struct tt_layout {
    int present;
    int ndims, padded_ndims, memref_ndims;
    int64_t shape[TT_MAX_DIMS], padded_shape[TT_MAX_DIMS], memref_shape[TT_MAX_DIMS];
    pq_str dtype;
    uint64_t unpadded_bytes, padded_bytes;
    int tiled;
    int64_t tile_h, tile_w;
    pq_str buffer_type; /* lower-case as in the log ("dram", "l1", "system_memory"), or empty */
} tt_layout;

/* Where an op's memory state came from. */
typedef enum tt_mem_source {
    TT_MEM_NONE = 0,          /* no state known (submit-shaped log before its first block) */
    TT_MEM_OPERATION = 1,     /* a "before operation" block */
    TT_MEM_BEFORE_SUBMIT = 2, /* the latest "before submit" block */
    TT_MEM_AFTER_SUBMIT = 3   /* the latest "after submit" block */
} tt_mem_source;

typedef struct tt_op {
    pq_str op_type; /* OpType of the block header; the MLIR op name in submit-shaped logs */
    pq_str text;    /* the MLIR op text (empty when the log has no op lines) */
    pq_str result, name, operands, attributes, input_types, output_type, loc;
    tt_layout out;
    tt_memview mem[TT_NMEM];
    tt_mem_source mem_source;
    pq_str const_eval; /* const-eval program the op ran in; p == NULL when none */
    int cache_miss, is_weight;
    tt_live live[2]; /* [0] DRAM, [1] L1 */
    int64_t offset;  /* byte offset of the op's line (the block header in op-text-less logs) */
    int64_t submit;  /* submit number the op belongs to, or -1 */
} tt_op;

typedef struct tt_submit {
    int after; /* 0 before submit, 1 after submit */
    tt_memview mem[TT_NMEM];
    int64_t offset;
    uint64_t number;     /* 0-based submit number (before and after of one submit share it) */
    uint64_t ops_before; /* operations emitted before this block */
} tt_submit;

typedef struct tt_module {
    pq_str stage; /* vhlo, shlo, ttir, ttnn, ... */
    int64_t offset;
    uint64_t lines;
} tt_module;

typedef struct tt_warning {
    int64_t offset;
    const char *what; /* static text, or arena text (truncation, JSON read-back) */
} tt_warning;

typedef enum tt_shape {
    TT_SHAPE_OP_TEXT = 0, /* per-op blocks with the op text before each (the seed's) */
    TT_SHAPE_OP_TYPE = 1, /* per-op blocks with only the OpType in the header */
    TT_SHAPE_SUBMIT = 2   /* op text with memory blocks only per submit */
} tt_shape;

typedef struct pq_ttlog {
    arena arena;
    mapped_file file;
    char *path;
    tt_shape shape;
    tt_op *ops;
    size_t nops;
    tt_submit *submits;
    size_t nsubmits;
    tt_module *modules;
    size_t nmodules;
    tt_warning *warnings; /* the first TT_MAX_WARNINGS (plus a truncation); counts are exact */
    size_t nwarnings;
    /* The log ends inside an op's line, a memory block or a runtime line: where that starts
     * and what (arena text, also in warnings); NULL when the log ends cleanly. */
    const char *truncated;
    int64_t truncated_offset;
    uint64_t executed_ops, op_blocks, excluded_ops, malformed_blocks, ops_without_block;
    uint64_t programs, const_eval_programs, cache_misses, lines;
} tt_log;

enum { TT_MAX_WARNINGS = 100 };

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

extern const char *const TT_MEM_NAMES[TT_NMEM];

#endif
