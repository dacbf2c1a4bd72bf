/* opmem.h - the model's per-op device memory state (DESIGN.md section 2, "memory: per-op
 * memory state"): the operations of a run in program order, each with the memory every
 * buffer type (DRAM, L1, L1_SMALL, TRACE) held before it (per bank, as the runtime states it),
 * the live tensors, its output layout and its op text; plus the submits, programs, cache
 * misses and MLIR module dumps of the run. Today one reader fills it: the Tenstorrent runtime
 * log (formats/ttlog*, and the read-back of a run dir's JSON), which gives the source its
 * pq_ttlog (pq_source.ttlog); analysis/ttmem and the tt renderers read it. Nothing here
 * parses or analyses. */
#ifndef PQ_MODEL_OPMEM_H
#define PQ_MODEL_OPMEM_H
#include "core/arena.h"
#include "io/mapfile.h"
#include "profq.h"

#include <stddef.h>
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

/* The buffer types' names, indexed by TT_DRAM.. ("DRAM", "L1", "L1_SMALL", "TRACE"). */
extern const char *const TT_MEM_NAMES[TT_NMEM];

#endif
