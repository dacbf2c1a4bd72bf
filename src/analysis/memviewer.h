/* memviewer.h - XProf's memory viewer computed from one decoded HloProto
 * (spec/xprof-tools.md section 3; docs/internals/memviewer.md). Pure: a decoded module
 * and a memory color in, a result struct out (allocated in the caller's arena). */
#ifndef PQ_ANALYSIS_MEMVIEWER_H
#define PQ_ANALYSIS_MEMVIEWER_H
#include "core/arena.h"
#include "formats/hlo.h"

/* XProf's LogicalBufferStruct: a logical buffer placed in an allocation. */
typedef struct mv_lb {
    const hlo_logical_buffer *proto;
    const hlo_allocation *alloc;
    const hlo_instruction *instr;
    /* the instruction's shape resolved by the last shape index; NULL when a lazily decoded
     * module's shape was printed from its bytes (then only shape_string and unpadded) */
    const hlo_shape *shape;
    int64_t offset; /* within the allocation */
    int64_t unpadded;
    int64_t ref_count;
    struct mv_lb *canonical;
    int has_span, seen;
    int64_t span_start, span_end;
    const char *shape_string; /* cached HumanStringWithLayout, NUL-terminated */
} mv_lb;

typedef struct mv_object {
    int32_t color;
    const mv_lb *lb; /* NULL for the "small (<16384 bytes)" aggregate */
    int64_t size_bytes;
} mv_object;

typedef struct mv_block {
    const mv_lb *lb; /* NULL for an allocation's container block */
    const hlo_allocation *alloc;
    int64_t offset, size, start_step, end_step;
    const char *color;
} mv_block;

/* The memory viewer of one module and color: XProf's PreprocessResult before formatting.
 * Opaque in the public API (pq_memviewer_detail, include/profq.h says why). */
typedef struct pq_memviewer_detail {
    const hlo_module *module;
    int64_t memory_color;
    uint32_t ntimeline; /* N+1 when a trace was replayed, else 0 */
    int64_t *heap_bytes, *unpadded_bytes;
    pq_str *instruction_names;
    int64_t peak_bytes, peak_unpadded_bytes, peak_position, indefinite_bytes;
    mv_object *objects; /* maxHeap order */
    uint32_t nobjects;
    uint32_t *by_size;    /* objects indexes, size descending, ties in maxHeap order */
    uint32_t *to_by_size; /* the inverse: position in by_size of each object */
    mv_lb **spans;        /* seen buffers with a span, ascending id */
    uint32_t nspans;
    int64_t entry_params_bytes, non_reusable_bytes, maybe_live_out_bytes, total_bytes,
        indefinite_alloc_bytes;
    const hlo_allocation **indefinite; /* indefinite allocations of this color */
    uint32_t nindefinite;
    mv_block *blocks;
    uint32_t nblocks;
    int64_t max_scoped_bytes;
    pq_str max_scoped_instruction;
    /* lookup */
    mv_lb **lbs_by_id; /* sorted by proto->id, unique */
    uint32_t nlbs;
    mv_lb **lb_dense; /* by id - lb_dense_min when the ids are dense (else NULL) */
    int64_t lb_dense_min;
    uint64_t nlb_dense;
} mv_result;

/* Allocations of the module in the stable order profq uses where XProf iterates a hash
 * map: ascending BufferAllocationProto.index (the last of a duplicated index kept). */
typedef struct mv_alloc_list {
    const hlo_allocation **items;
    uint32_t n;
} mv_alloc_list;

/* Computes the memory viewer of module M for MEMORY_COLOR. Returns PQ_OK, PQ_ERR_NOMEM, or
 * PQ_ERR_INPUT with *what set to XProf's reason (a static string) when XProf refuses the
 * module too (a trace over several allocations, a buffer freed twice). */
pq_status memviewer_compute(const hlo_module *m, int64_t memory_color, arena *a, mv_result **out,
                            const char **what);

/* memviewer_compute for a module from hlo_decode_lazy too (BASE: the start of the file the
 * HloProto is in): the shapes of the buffers are decoded here; a malformed one returns
 * PQ_ERR_INPUT with *what = what was expected and *err_offset its byte offset (else -1). */
pq_status memviewer_compute_lazy(const hlo_module *m, const uint8_t *base, int64_t memory_color,
                                 arena *a, mv_result **out, const char **what, int64_t *err_offset);

/* The logical buffer struct with that id, or NULL. */
const mv_lb *memviewer_lb(const mv_result *r, int64_t id);
/* "Parameter", "Output", "Thread-local", "Constant" or "Temporary" (spec 3.2). */
const char *memviewer_category(const hlo_allocation *a);
/* Colors (BufferAllocation.color) present in the module, ascending; returns the count. */
uint32_t memviewer_colors(const hlo_module *m, int64_t *out, uint32_t cap);

/* Internal to memviewer*.c. Indefinite lifetime (docs/internals/memviewer.md): entry
 * parameter, constant or maybe-live-out (thread-local is not, as in XProf 2.24.2). */
int memviewer_indefinite(const hlo_allocation *a);
/* The largest "used_scoped_memory_configs" size of COLOR in the backend_config JSON [P, E)
 * raises *BEST (and sets *BEST_NAME = NAME); malformed text yields nothing. */
void memviewer_scoped_vmem(const char *p, const char *e, int64_t color, int64_t *best, pq_str name,
                           pq_str *best_name);
/* Fills R's blocks for the allocations of AL (ALLOC_TRACE: each one's trace, -1 = none;
 * COLOR_OF_LB: each sorted logical buffer's peak colour, -1 = none). 0 when out of memory. */
int memviewer_layout_blocks(mv_result *r, arena *a, const mv_alloc_list *al,
                            const int64_t *alloc_trace, const int32_t *color_of_lb);

/* "<name>(<program id>)" NUL-terminated in A (NULL when A is out of memory): how every
 * memory command names a module (memviewer_select.c). */
const char *memviewer_module_key(arena *a, pq_str name, uint64_t program_id);
/* Whether "<name>(<program id>)" starts with PREFIX (NULL or "" = every module): how memory
 * and heap take --module. */
int memviewer_key_has_prefix(pq_str name, uint64_t program_id, const char *prefix);

#endif
