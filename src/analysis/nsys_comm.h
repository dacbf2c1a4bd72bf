/* nsys_comm.h - the communication side of the nsys-jax loader and notebook over the model
 * (issue 12 Deliver 2 and 3; spec/nsys-jax.md sections 4-6), on top of the module table
 * (nsys_modules.h) and the thunk -> HLO link (nsys_hlo.h):
 * - the thunk frame with the Communication flag, overlap (ProjDurHidden subtracted from a
 *   communication thunk's duration), message and collective size, algorithm and bus
 *   bandwidth (nccl-tests factors);
 * - timestamp alignment: per-device corrections from the end times of collectives over
 *   every device, subtracted from module, thunk and communication starts;
 * - the warm-up split (nsys_warmup: the archive-era loader's by default, or the HEAD
 *   loader's with its extra execution when the profile has communication), the
 *   communication row counts per frame;
 * - the notebook's summaries of the steady frame: the three runtime definitions over the
 *   top modules, hidden/exposed communication, per-thunk totals, runtime by HLO opcode,
 *   collectives per kind and per instance (straggler wait), thunk variability, per-device
 *   bias of the top modules, and each module's launch wait share. */
#ifndef PQ_ANALYSIS_NSYS_COMM_H
#define PQ_ANALYSIS_NSYS_COMM_H
#include "analysis/nsys_hlo.h"
#include "analysis/nsys_modules.h"
#include "model/model.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef struct nsys_thunk_total {
    int64_t program_id;
    const char *name;             /* hlo_op (owned by the result) */
    const char *opcode, *op_name; /* from the HLO dump ("" when unknown; owned) */
    int64_t ns;                   /* steady, top modules, after overlap subtraction */
    int communication;
} nsys_thunk_total;

typedef struct nsys_opcode_row {
    const char *opcode; /* owned */
    int64_t ns;
    double share; /* of runtime definition 2 */
} nsys_opcode_row;

/* One collective instance: (program, execution, thunk index) over its devices. */
typedef struct nsys_coll_instance {
    nsys_coll_kind kind;
    int64_t program_id, execution;
    uint32_t thunk_index, devices;
    const char *name;      /* hlo_op (owned) */
    const char *op_name;   /* the collective's metadata op_name ("" when none; owned) */
    int64_t message_bytes; /* min over devices */
    int64_t collective_size;
    double busbw_gbps; /* max over devices */
    double wait_ns;    /* last end - first start - fastest full duration */
} nsys_coll_instance;

typedef struct nsys_coll_kind_row {
    nsys_coll_kind kind;
    uint64_t rows, instances;
    double busbw_mean, busbw_median, busbw_max; /* over instances, GB/s */
    double wait_mean_ms, wait_median_ms, wait_max_ms;
} nsys_coll_kind_row;

/* Rows (device executions) per (kind, message size, collective size). */
typedef struct nsys_coll_size_row {
    nsys_coll_kind kind;
    int64_t message_bytes, collective_size;
    uint64_t rows;
    double busbw_mean, busbw_max;
} nsys_coll_size_row;

typedef struct nsys_var_row {
    int64_t program_id;
    const char *name; /* owned */
    uint64_t n;
    double mean_ns, std_ns, rel;
} nsys_var_row;

typedef struct nsys_bias_device {
    uint32_t device;
    double score_ns;   /* sum over thunk start/end points of max |bias| over executions */
    double max_abs_ns; /* largest |bias| of the device */
} nsys_bias_device;

typedef struct nsys_bias_module {
    int64_t program_id;
    uint64_t executions, points; /* points: 2 x compute thunks per execution */
    double min_ns, max_ns, std_ns;
    nsys_bias_device *devices; /* by score descending */
    uint32_t ndevices;
    int consistent; /* 0: devices ran different thunk sets; no bias computed */
} nsys_bias_module;

enum { NSYS_VAR_TOP = 10, NSYS_BIAS_DEVICES = 8 };

typedef struct nsys_comm_result {
    uint64_t communication_rows[NSYS_NFRAMES];
    int has_communication;
    int warmup_head;         /* the HEAD loader's warm-up rule was applied */
    int warmup_none;         /* no warm-up split (an XPlane): every row steady */
    uint64_t unknown_thunks; /* thunks of a program id without a dump or an unknown hlo_op */
    /* alignment */
    int aligned;            /* 0: no collective over every device; no correction */
    int64_t alignment_size; /* the collective size used */
    uint32_t ndevices;      /* devices: dense indexes 0..n-1 */
    double *corrections_ns; /* per device, median skew (subtracted from starts) */
    uint64_t nskews;
    double skew_std_ns, skew_min_ns, skew_max_ns;
    /* runtime over the top modules (steady) */
    int64_t thunks_ns, modules_ns;
    double wall_ns;
    int64_t comm_hidden_ns, comm_exposed_ns; /* steady communication rows */
    nsys_thunk_total *thunks;                /* by ns descending */
    size_t nthunks;
    nsys_opcode_row *opcodes; /* by ns descending; last: "GPU idle during modules" */
    size_t nopcodes;
    nsys_coll_kind_row *kinds;
    size_t nkinds;
    nsys_coll_size_row *sizes;
    size_t nsizes;
    nsys_coll_instance *instances; /* by kind, program, execution, thunk index */
    size_t ninstances;
    /* variability of steady compute thunks by (program id, name) */
    uint64_t var_groups, var_over;
    double var_mean_threshold_ns;
    nsys_var_row top[NSYS_VAR_TOP];
    size_t ntop;
    nsys_bias_module *bias; /* one per top module */
    size_t nbias;
    arena mem; /* strings and arrays above */
} nsys_comm_result;

/* Computes over the nsys-jax sources of PROF; MODS (from nsys_modules_compute on the same
 * profile) gives the top module ids and gets each module's wait_share (NaN when the module
 * has no communication thunk). Errors: an unreadable HLO dump (PQ_ERR_INPUT), NOMEM. */
pq_status nsys_comm_compute(const pq_profile *prof, nsys_modules_result *mods,
                            nsys_comm_result *out, pq_error *err);
/* nsys_comm_compute with the warm-up rule W (NULL: archive-era; MODS computed with the
 * same rule). HLO: NULL, or the sources' HLO dumps (nsys_dumps_new: one per source,
 * opened here where still NULL, left open for the caller's other analyses), so that each
 * dump is decoded once per profile. */
pq_status nsys_comm_compute_warmup(const pq_profile *prof, const nsys_warmup *w, nsys_hlo **hlo,
                                   nsys_modules_result *mods, nsys_comm_result *out, pq_error *err);
/* A module table computed on another thread: WAIT(CTX, &MODS, ERR) returns once it is done,
 * with *MODS the table, or its error. */
typedef struct nsys_mods_wait {
    pq_status (*wait)(void *ctx, nsys_modules_result **mods, pq_error *err);
    void *ctx;
} nsys_mods_wait;
/* nsys_comm_compute_warmup with the module table from MODS, waited for only after the
 * thunks are gathered, classified and sorted (what needs no module table). */
pq_status nsys_comm_compute_later(const pq_profile *prof, const nsys_warmup *w, nsys_hlo **hlo,
                                  const nsys_mods_wait *mods, nsys_comm_result *out, pq_error *err);
/* The hlo_op of a thunk range's name "TSL:Thunk:#[name=...,]hlo_op=OP#" (n = 0: none): all
 * the nsys analyses read of a thunk's name (an nsys partial keeps only it). */
pq_str nsys_thunk_op(const char *s);
/* *OUT = whether any thunk of the nsys-jax sources of PROF is communication (what the HEAD
 * warm-up rule needs before the frames are split). HLO as nsys_comm_compute_warmup. Errors
 * as nsys_comm_compute. */
pq_status nsys_comm_has_communication(const pq_profile *prof, nsys_hlo **hlo, int *out,
                                      pq_error *err);
/* Classifies the thunks of PROF's nsys-jax sources in HLO (one per source, NULL entries
 * skipped) ahead of nsys_comm_compute_warmup, for a thread beside it (nsys_hlo_comm_ahead):
 * from the last thunk back, so that the two meet in the middle, until *STOP is set.
 * Reports nothing; the tables' own lookups give every error. */
void nsys_comm_ahead(const pq_profile *prof, nsys_hlo **hlo, const atomic_int *stop);
void nsys_comm_free(nsys_comm_result *r);

#endif
