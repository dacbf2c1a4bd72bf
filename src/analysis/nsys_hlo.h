/* nsys_hlo.h - the link from an nsys-jax thunk (program id + hlo_op name) to its HLO
 * instruction in the archive's after-optimisation dump
 * (dump/module_NNNN.NAME.*_gpu_after_optimizations.hlo.pb.xz), read through the existing
 * readers (the source's members through model/members.h, io/xz.h, formats/hlo.h) and decoded
 * lazily: a program's dump is decompressed and indexed on its first lookup, never before.
 *
 * What an instruction gives (nsys_hlo_inst): opcode, result shape (element type, elements,
 * memory space), operand and called-computation ids, channel id, replica groups (their
 * count and uniform size) or the iota group list, and metadata (op_type, op_name, the
 * stack frame id; the module's stack frame index is in nsys_hlo_module()).
 *
 * On top, the loader's communication facts (spec/nsys-jax.md section 4, the HEAD loader's
 * classification): nsys_hlo_comm() says whether a thunk is communication (a collective
 * opcode, an async-start or fusion wrapping one, or a host offload dynamic-slice /
 * dynamic-update-slice) and its collective kind, message size, collective size and the
 * nccl-tests bandwidth factors. */
#ifndef PQ_ANALYSIS_NSYS_HLO_H
#define PQ_ANALYSIS_NSYS_HLO_H
#include "formats/hlo.h"
#include "model/model.h"

#include <stddef.h>
#include <stdint.h>

typedef struct nsys_hlo nsys_hlo;

typedef struct nsys_hlo_inst {
    pq_str name, opcode, op_type, op_name;
    int64_t id;
    int32_t stack_frame_id;
    uint32_t computation; /* index into the module's computations */
    int32_t element_type; /* of the result; HLO_TUPLE for tuples */
    int64_t elements;     /* product of the result's dimensions (1 for a scalar) */
    int64_t memory_space; /* the result layout's memory space (5: host) */
    int64_t channel_id;
    int64_t *operand_ids, *called_ids;
    uint32_t noperands, ncalled;
    uint32_t nreplica_groups;
    int64_t replica_group_size; /* uniform size of the groups; -1 when sizes differ */
    int64_t iota_groups, iota_devices_per_group; /* collective_device_list iota; 0 absent */
} nsys_hlo_inst;

/* Opens the HLO dumps of the nsys-jax source SRC (its archive mapped in SRC->file). No dump
 * is read here. PQ_ERR_INPUT when SRC is not a readable archive. */
pq_status nsys_hlo_open(const pq_source *src, nsys_hlo **out, pq_error *err);
/* The same over the HloProtos an XSpace source SRC carries (pq_source.programs, by
 * program id; decoded on first lookup, errors at offsets in SRC's file). */
pq_status nsys_hlo_open_xspace(const pq_source *src, nsys_hlo **out, pq_error *err);
void nsys_hlo_close(nsys_hlo *h);
/* Loads every program of H (decompressed and indexed as on a first lookup), for a thread
 * beside the one that looks up: lookups wait only for a program being loaded, and a
 * program that fails reports its error at its first lookup, as without preloading. Safe
 * with concurrent lookups; nothing else of H may run meanwhile (close, another preload). */
void nsys_hlo_preload(nsys_hlo *h);

/* The decoded module of PROGRAM (*OUT NULL when the archive has no after-optimisation dump
 * for it). Errors: a corrupt xz stream or HloProto (PQ_ERR_INPUT with the member and the
 * offset), PQ_ERR_NOMEM. */
pq_status nsys_hlo_module(nsys_hlo *h, int64_t program, const hlo_module **out, pq_error *err);
/* The instruction named NAME[0..LEN) in PROGRAM's dump; *OUT NULL when there is no dump or
 * no such instruction. Errors as nsys_hlo_module. */
pq_status nsys_hlo_find(nsys_hlo *h, int64_t program, const char *name, size_t len,
                        const nsys_hlo_inst **out, pq_error *err);
/* The instruction with that id (the last of duplicates) in PROGRAM's dump, or NULL. */
pq_status nsys_hlo_by_id(nsys_hlo *h, int64_t program, int64_t id, const nsys_hlo_inst **out,
                         pq_error *err);
/* The instructions of computation COMP (an index) of PROGRAM's dump, in file order:
 * (*OUT)[0..*N). */
pq_status nsys_hlo_computation(nsys_hlo *h, int64_t program, uint32_t comp,
                               const nsys_hlo_inst **out, uint32_t *n, pq_error *err);
/* The same with only what an instruction says of itself decoded (name, opcode, op_type,
 * op_name, id, stack_frame_id, computation): the fields of its shape and of its raw ids
 * (element_type to iota_devices_per_group) are there only for instructions also reached by
 * the other lookups, else unset (elements 1, the rest 0). For flame, which reads a
 * thunk's called computations whole: decoding shapes is most of a dump's cost. */
pq_status nsys_hlo_computation_meta(nsys_hlo *h, int64_t program, uint32_t comp,
                                    const nsys_hlo_inst **out, uint32_t *n, pq_error *err);
/* The index of the computation with that id, or UINT32_MAX. */
uint32_t nsys_hlo_computation_index(const hlo_module *m, int64_t id);

/* Bits of one element as the loader counts them (PRED 8, F8 kinds 8), 0 when unknown. */
int nsys_hlo_type_bits(int32_t type);

typedef enum {
    NSYS_COLL_NONE = 0,
    NSYS_COLL_ALL_GATHER,
    NSYS_COLL_ALL_REDUCE,
    NSYS_COLL_ALL_TO_ALL,
    NSYS_COLL_BROADCAST,
    NSYS_COLL_PERMUTE,
    NSYS_COLL_REDUCE_SCATTER,
    NSYS_COLL_D2H,
    NSYS_COLL_H2D,
    NSYS_COLL_NKINDS
} nsys_coll_kind;

/* "all-gather", ..., "device-to-host", "host-to-device" ("" for NONE). */
const char *nsys_coll_name(nsys_coll_kind k);

typedef struct nsys_hlo_comm {
    nsys_coll_kind kind; /* NONE: computation */
    int known;           /* 0: no dump or no such instruction (counted as computation) */
    const nsys_hlo_inst *inst, *comm; /* the thunk's instruction; the collective it is */
    int64_t message_bytes;            /* -1 when the loader could not size it */
    int64_t collective_size;          /* -1 when unknown */
    double bw_corr, bus_corr;         /* nccl-tests factors */
} nsys_hlo_comm;

/* Classifies the thunk NAME[0..LEN) of PROGRAM (spec section 4), once per instruction (the
 * result is kept). Errors as nsys_hlo_module. */
pq_status nsys_hlo_comm_of(nsys_hlo *h, int64_t program, const char *name, size_t len,
                           nsys_hlo_comm *out, pq_error *err);
/* nsys_hlo_comm_of ahead, for a thread beside the one that classifies (each result is
 * kept per program, under the program's lock, for the lookup to take): no error is
 * reported or consumed here (a failed load or instruction is left for the lookup). */
void nsys_hlo_comm_ahead(nsys_hlo *h, int64_t program, const char *name, size_t len);

#endif
