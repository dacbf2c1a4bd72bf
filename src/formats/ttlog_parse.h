/* ttlog_parse.h - what the files of the Tenstorrent log reader share (formats/ttlog_*.c):
 * string views over the mapped log, the parser state of the one pass, and the functions one
 * file calls in another. Internal to formats/; the reader's output types are ttlog.h. */
#ifndef PQ_FORMATS_TTLOG_PARSE_H
#define PQ_FORMATS_TTLOG_PARSE_H
#include "core/hmap.h"
#include "core/vec.h"
#include "ttlog.h"

#include <string.h>

/* ------------------------------------------------------------------------------------------
 * Small string helpers over views (memmem: the including file defines _GNU_SOURCE). */

static inline pq_str sv(const char *p, size_t n)
{
    pq_str s = {p, n};
    return s;
}

static inline int starts(pq_str s, const char *lit)
{
    size_t n = strlen(lit);
    return s.n >= n && memcmp(s.p, lit, n) == 0;
}

static inline const char *find(pq_str s, const char *lit)
{
    size_t n = strlen(lit);
    if (s.n < n)
        return NULL;
    return memmem(s.p, s.n, lit, n);
}

static inline pq_str trim(pq_str s)
{
    while (s.n && (s.p[0] == ' ' || s.p[0] == '\t'))
        s.p++, s.n--;
    while (s.n && (s.p[s.n - 1] == ' ' || s.p[s.n - 1] == '\t' || s.p[s.n - 1] == '\r'))
        s.n--;
    return s;
}

static inline int is_word(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static inline int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* The growable arrays of the one pass (core/vec.h), at most TT_MAX_ELEMS elements each. */
#define TT_MAX_ELEMS ((size_t)UINT32_MAX)
PQ_VEC_DEFINE(tt_op_vec, tt_op)
PQ_VEC_DEFINE(tt_submit_vec, tt_submit)
PQ_VEC_DEFINE(tt_module_vec, tt_module)
PQ_VEC_DEFINE(tt_warning_vec, tt_warning)

/* A string-keyed map (live tensors by SSA name, cache-missed functions): entries in order
 * of insertion, found through the one hash index (core/hmap.h). */
typedef struct smap_entry {
    pq_str key;
    uint64_t a, b;
    int c;
    int live;
} smap_entry;

PQ_VEC_DEFINE(smap_entries, smap_entry)

typedef struct smap {
    pq_hmap index;  /* hash of the key -> entry */
    smap_entries e; /* in order of insertion */
} smap;

/* The entry of KEY, created (zeroed, key set) when CREATE; NULL when absent or out of memory.
 * Valid until the next creation. */
smap_entry *ttlog_smap_get(smap *m, pq_str key, int create);
void ttlog_smap_free(smap *m);

enum { BLOCK_NONE = 0, BLOCK_OP = 1, BLOCK_BEFORE_SUBMIT = 2, BLOCK_AFTER_SUBMIT = 3 };
enum { MAX_LINES_IN_BLOCK = 64, MAX_PROGRAM_DEPTH = 64 };

typedef struct parser {
    tt_log *log;
    tt_op_vec blk_ops, exec_ops;
    tt_submit_vec submits;
    tt_module_vec modules;
    tt_warning_vec warnings;
    smap live, missed;
    tt_live totals[2]; /* sums over the live tensors: [0] DRAM, [1] L1 */
    /* the open memory block */
    int block;
    int64_t block_off;
    unsigned block_seen;
    int block_lines;
    tt_memview block_mem[TT_NMEM];
    pq_str block_type;
    /* the executed op waiting for its "before operation" block */
    int has_pending;
    tt_op pending;
    /* latest submit block, for submit-shaped logs */
    int has_submit;
    tt_memview submit_mem[TT_NMEM];
    int submit_after;
    uint64_t submit_number;
    /* const-eval program stack */
    pq_str programs[MAX_PROGRAM_DEPTH];
    int nprograms;
    int in_module;
    int partial;  /* the line being read is the last one and has no '\n' (cut short?) */
    int64_t size; /* bytes in the log */
    int64_t first_malformed;
    int nomem;
} parser;

/* ttlog_block.c: memory blocks and warnings. */
void ttlog_warn(parser *ps, int64_t off, const char *what);
void ttlog_malformed(parser *ps, int64_t off, const char *what);
/* Ends an open block that broke off (counted as malformed). */
void ttlog_block_abort(parser *ps);
/* A runtime message starting "Device ": a block header or one of its MemoryView lines. */
void ttlog_on_device(parser *ps, pq_str msg, int64_t off);

/* At the end of the pass, a block still open: the log ends inside it (truncated). */
void ttlog_block_eof(parser *ps);

/* ttlog_end.c: a log that ends inside an op's line, a memory block or a runtime line. */
/* Records the (first) truncation: WHAT at OFF, where the cut item starts, in warnings. */
void ttlog_truncated(parser *ps, int64_t off, const char *what);
/* The last line of the log, without its '\n' (MSG: its runtime message, or p == NULL).
 * Returns 1 when the line is cut inside an op's text and must not be read as an op. */
int ttlog_partial_line(parser *ps, pq_str line, pq_str msg, int64_t off);
/* After the pass: a per-op log whose last op line has no block (it ends before it). */
void ttlog_end_checks(parser *ps);

/* ttlog_optext.c: the MLIR text of an executed op. */
/* 1 when TEXT ends with its closing loc(...) group (the op line is whole). */
int ttlog_op_text_complete(pq_str text);
void ttlog_parse_op_text(tt_op *op);
int ttlog_name_ends(pq_str name, const char *suffix);
int ttlog_op_text_excluded(const tt_op *op);
int ttlog_op_type_excluded(pq_str type);

/* ttlog_exec.c: an "Executing operation:" message becomes an op (live sums, pending op). */
void ttlog_on_exec(parser *ps, pq_str msg, int64_t off);
/* The const-eval program OP ran in, from the program stack (sets const_eval and flags). */
void ttlog_const_eval_of(parser *ps, tt_op *op);

#endif
