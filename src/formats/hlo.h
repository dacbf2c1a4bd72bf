/* hlo.h - xla.HloProto decoding (spec/xprof-tools.md section 2).
 *
 * Two levels: hlo_read_header() reads the module name and id and whether a buffer
 * assignment is present without decoding computations (what `profq info` needs);
 * hlo_decode() decodes a whole HloProto into an arena (modules, computations,
 * instructions with shapes, layouts and metadata, the stack frame index, the buffer
 * assignment with logical buffers, allocations and heap simulator traces). Decoding is
 * lazy: nothing calls hlo_decode() at load; analyses call it for the programs they use.
 * Strings are views into the serialized bytes, which must outlive the result. Every
 * length is checked, nesting (tuple shapes, physical shapes) is bounded by
 * HLO_MAX_SHAPE_DEPTH, and errors carry the byte offset from the start of the file. */
#ifndef PQ_FORMATS_HLO_H
#define PQ_FORMATS_HLO_H
#include "core/arena.h"
#include "profq.h"

#include <stddef.h>
#include <stdint.h>

typedef struct hlo_header {
    pq_str module_name;
    int64_t module_id;
    int has_module;
    int has_buffer_assignment;
    uint32_t heap_simulator_traces; /* counted inside buffer_assignment */
    uint32_t computations;
} hlo_header;

/* Reads the header of a serialized HloProto at DATA (N bytes; BASE is the start of the file
 * for error offsets). Returns 1, or 0 with *err_offset and *err_what set. */
int hlo_read_header(const uint8_t *data, size_t n, const uint8_t *base, hlo_header *out,
                    int64_t *err_offset, const char **err_what);

enum { HLO_MAX_SHAPE_DEPTH = 64 };

/* xla.PrimitiveType values that matter to printing and sizes. */
enum { HLO_PRED = 1, HLO_TUPLE = 13, HLO_OPAQUE = 14, HLO_TOKEN = 17 };

typedef struct hlo_tile {
    int64_t *dims;
    uint32_t ndims;
} hlo_tile;

typedef struct hlo_shape hlo_shape;

typedef struct hlo_layout {
    int64_t *minor_to_major;
    uint32_t nminor_to_major;
    int32_t *dim_level_types;
    uint8_t *dim_unique, *dim_ordered;
    uint32_t ndim_level_types, ndim_unique, ndim_ordered;
    hlo_tile *tiles;
    uint32_t ntiles;
    int64_t element_size_in_bits;
    int64_t memory_space;
    int64_t tail_padding_alignment_in_elements; /* as stored; 0 is treated as 1 */
    int32_t index_primitive_type, pointer_primitive_type;
    int64_t dynamic_shape_metadata_prefix_bytes;
    hlo_shape *physical_shape; /* NULL when absent */
    uint32_t nsplit_configs;
    struct hlo_split_config {
        int64_t dimension;
        int64_t *split_indices;
        uint32_t nsplit_indices;
    } * split_configs;
} hlo_layout;

struct hlo_shape {
    int32_t element_type;
    int64_t *dims;
    uint32_t ndims;
    uint8_t *dynamic; /* is_dynamic_dimension, ndynamic entries */
    uint32_t ndynamic;
    hlo_shape *tuple;
    uint32_t ntuple;
    int has_layout;
    hlo_layout layout;
};

typedef struct hlo_instruction {
    pq_str name, opcode;
    pq_str shape_bytes; /* the serialized ShapeProto (hlo_decode_lazy has no shape: below) */
    int64_t id;
    int64_t parameter_number;
    pq_str op_type, op_name, source_file; /* OpMetadata */
    pq_str deduplicated_name;             /* OpMetadata field 12 */
    pq_str raw;                           /* the serialized HloInstructionProto */
    int32_t source_line, stack_frame_id;
    pq_str fusion_kind, custom_call_target;
    pq_str backend_config;
    int64_t *operand_ids, *called_computation_ids;
    uint32_t noperands, ncalled;
    /* For cost analysis (analysis/hlo_cost.c): `dimensions`, `tuple_index`,
     * `feature_group_count` and `batch_group_count` (0 when absent), and the undecoded
     * Window, ConvolutionDimensionNumbers and DotDimensionNumbers messages. */
    int64_t *dimensions;
    uint32_t ndimensions;
    int64_t tuple_index, feature_group_count, batch_group_count;
    pq_str window, conv_dnums, dot_dnums;
    uint32_t computation; /* index into hlo_module.computations */
    /* Last, and absent from an instruction hlo_instruction_decode decoded: its allocation
     * ends at HLO_LAZY_INSTRUCTION_SIZE, before the shape (192 of 512 bytes; the H100
     * memory viewer decodes 914 instructions). Read shape_bytes there. */
    hlo_shape shape;
} hlo_instruction;

/* The bytes of an instruction from hlo_instruction_decode: every member but the shape. */
#define HLO_LAZY_INSTRUCTION_SIZE offsetof(hlo_instruction, shape)

/* An instruction as hlo_decode_lazy indexes it: its serialized bytes, decoded on first use
 * (hlo_instruction_decode). */
typedef struct hlo_instruction_ref {
    int64_t id;
    const uint8_t *p;
    uint32_t len;
    uint32_t computation;     /* index into hlo_module.computations */
    uint32_t slot;            /* position among all instructions of the module, in file order */
    hlo_instruction *decoded; /* NULL until decoded */
} hlo_instruction_ref;

typedef struct hlo_computation {
    pq_str name;
    int64_t id, root_id;
    int is_fusion;
    hlo_instruction *instructions; /* NULL from hlo_decode_lazy */
    hlo_instruction_ref *refs;     /* from hlo_decode_lazy only */
    uint32_t ninstructions;
} hlo_computation;

typedef struct hlo_file_location {
    int32_t file_name_id, function_name_id, line, column;
} hlo_file_location;

typedef struct hlo_stack_frame {
    int32_t file_location_id, parent_frame_id;
} hlo_stack_frame;

typedef struct hlo_logical_buffer {
    int64_t id, size, color;
    int64_t instruction_id;
    pq_str instruction_name; /* deprecated Location.instruction_name */
    int64_t *shape_index;
    uint32_t nshape_index;
} hlo_logical_buffer;

typedef struct hlo_assigned {
    int64_t logical_buffer_id, offset, size;
} hlo_assigned;

typedef struct hlo_allocation {
    int64_t index, size, color, parameter_number;
    int is_thread_local, is_tuple, is_entry_computation_parameter, is_constant, maybe_live_out;
    int64_t *parameter_shape_index;
    uint32_t nparameter_shape_index;
    hlo_assigned *assigned;
    uint32_t nassigned;
} hlo_allocation;

enum { HLO_EV_ALLOC = 0, HLO_EV_FREE = 1, HLO_EV_SHARE_WITH = 2 };

typedef struct hlo_heap_event {
    int32_t kind;
    int64_t buffer_id;
    pq_str computation_name, instruction_name;
    int64_t share_with_canonical_id;
} hlo_heap_event;

typedef struct hlo_heap_trace {
    hlo_heap_event *events;
    uint32_t nevents;
    int whole_module_simulation;
    int64_t buffer_allocation_index;
} hlo_heap_trace;

typedef struct hlo_module {
    pq_str name, entry_computation_name;
    int64_t id, entry_computation_id;
    hlo_computation *computations;
    uint32_t ncomputations;
    /* stack_frame_index (ids are 1-based) */
    pq_str *file_names, *function_names;
    uint32_t nfile_names, nfunction_names;
    hlo_file_location *file_locations;
    uint32_t nfile_locations;
    hlo_stack_frame *stack_frames;
    uint32_t nstack_frames;
    /* buffer_assignment */
    int has_buffer_assignment;
    hlo_logical_buffer *logical_buffers;
    uint32_t nlogical_buffers;
    hlo_allocation *allocations;
    uint32_t nallocations;
    hlo_heap_trace *traces;
    uint32_t ntraces;
    /* indexes */
    hlo_instruction **by_id; /* every instruction, sorted by (id, file order); NULL lazily */
    uint32_t nby_id;
    int64_t *instruction_ids; /* the ids of by_id, ascending */
    /* hlo_decode_lazy: every instruction in file order, and an open-addressing table of
     * their positions + 1 (0: empty) by id, the last of a duplicated id kept (as by_id) */
    hlo_instruction_ref **refs;
    uint32_t nrefs;
    uint32_t *ref_table;
    size_t ref_mask;
    uint64_t ref_seed;
    uint32_t *lb_order;  /* logical buffer indexes sorted by id */
    int64_t *lb_ids;     /* their ids, ascending */
    int lazy_shapes;     /* decoded by hlo_decode_lazy */
    const uint8_t *base; /* hlo_decode_lazy: the start of the file, for error offsets */
} hlo_module;

/* Decodes a serialized HloProto (DATA, N bytes; BASE = start of the file for offsets) into
 * arena A. Returns PQ_OK with *out set, PQ_ERR_INPUT with *err_offset / *err_what (static
 * text: what was expected), or PQ_ERR_NOMEM. */
pq_status hlo_decode(const uint8_t *data, size_t n, const uint8_t *base, arena *a, hlo_module **out,
                     int64_t *err_offset, const char **err_what);

/* hlo_decode with the instructions left serialized: each computation has REFS (its
 * instructions' bytes and ids; INSTRUCTIONS stays NULL), found by id with
 * hlo_instruction_lazy and decoded on first use by hlo_instruction_decode. A decoded
 * instruction's shape stays empty and its shape_bytes hold the serialized ShapeProto, decoded
 * on demand by hlo_decode_shape; noperands and ncalled stay 0. Only the framing of the
 * instructions' fields (their length) is checked here, not the content of the nested
 * messages: memory-viewer reads the few instructions and shapes its buffers name
 * (docs/internals/hlo.md). */
/* DATA must be followed by PB_PADDING (16) readable bytes, as every input profq loads is
 * (io/mapfile.h): the instructions are walked on the fast path of pbwire.h. */
pq_status hlo_decode_lazy(const uint8_t *data, size_t n, const uint8_t *base, arena *a,
                          hlo_module **out, int64_t *err_offset, const char **err_what);
/* Decodes the serialized ShapeProto BYTES (BASE = start of the file for offsets) nested
 * DEPTH deep (0 for an instruction's shape) into A. Errors as hlo_decode. */
pq_status hlo_decode_shape(pq_str bytes, const uint8_t *base, int depth, arena *a, hlo_shape **out,
                           int64_t *err_offset, const char **err_what);
/* The serialized tuple elements of the ShapeProto BYTES, in order (*N of them, in A); the
 * elements themselves are not read. Errors as hlo_decode. */
pq_status hlo_shape_elements(pq_str bytes, const uint8_t *base, arena *a, pq_str **out, uint32_t *n,
                             int64_t *err_offset, const char **err_what);

/* Decodes the instruction REF of module M (from hlo_decode_lazy) into A once, setting
 * REF->decoded: HLO_LAZY_INSTRUCTION_SIZE bytes, without the shape member (never read it;
 * decode shape_bytes with hlo_decode_shape). Errors as hlo_decode. */
pq_status hlo_instruction_decode(const hlo_module *m, hlo_instruction_ref *ref, arena *a,
                                 int64_t *err_offset, const char **err_what);
/* hlo_instruction_by_id for a module from hlo_decode_lazy: the instruction's ref (decoded
 * into A), *OUT NULL when there is none. Errors as hlo_decode. */
pq_status hlo_instruction_lazy(const hlo_module *m, int64_t id, arena *a, hlo_instruction_ref **out,
                               int64_t *err_offset, const char **err_what);
/* Instruction with that unique id (the last one on duplicates, as XProf's map), or NULL
 * (always NULL for a module from hlo_decode_lazy). */
const hlo_instruction *hlo_instruction_by_id(const hlo_module *m, int64_t id);
/* Logical buffer with that id (the last one on duplicates), or NULL. */
const hlo_logical_buffer *hlo_logical_buffer_by_id(const hlo_module *m, int64_t id);

/* An id with its position in file order and what it names. */
typedef struct hlo_id_seq {
    int64_t id;
    uint32_t seq;
    void *p;
} hlo_id_seq;
/* Sorts V (N items, in file order: seq ascending) by id, file order kept among equal ids,
 * so by (id, seq); T is scratch space of N items. */
void hlo_sort_ids(hlo_id_seq *v, hlo_id_seq *t, size_t n);

/* Lowercase XLA name of a primitive type ("f32", "bf16", "token"); "" when unknown. */
const char *hlo_type_name(int32_t type);
/* Byte size of one element (spec section 2 table); OPAQUE is 8, TOKEN 0, unknown 0. */
int64_t hlo_type_bytes(int32_t type);

/* Appends XLA's HumanStringWithLayout of SHAPE (spec 2.1) to the buffer B (a core buf). */
struct buf;
void hlo_shape_print(struct buf *b, const hlo_shape *shape);
/* Prints the serialized ShapeProto BYTES (at nesting DEPTH) as hlo_shape_print would print
 * its decoded shape, straight from the bytes, and sets *UNPADDED to
 * hlo_shape_unpadded_bytes of it. Only the common forms: an array shape (type, dimensions,
 * a layout of minor_to_major and a tail alignment of 1, no dynamic dimension) or a tuple
 * of them, in XLA's field order. Returns 0, having appended nothing, for anything else (malformed
 * bytes included): the caller then decodes with hlo_decode_shape, which reports errors. */
int hlo_shape_print_bytes(struct buf *b, pq_str bytes, int depth, int64_t *unpadded);
/* ByteSizeOf(shape, pointer_size=8) with the default layout (spec 3.2). */
int64_t hlo_shape_unpadded_bytes(const hlo_shape *shape);

#endif
