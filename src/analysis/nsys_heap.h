/* nsys_heap.h - the notebook's heap-simulator cell for nsys-jax archives (issue 12
 * Deliver 3 "heap"; ../shared/spec/nsys-jax.md section 5 item 11): for each top module id
 * (analysis/nsys_modules.c), the heap usage over program order of every heap-simulator
 * trace of its after-optimisation HloProto (the archive's dump, through analysis/nsys_hlo.h),
 * replayed by the existing heap analysis (analysis/heapsim.c). */
#ifndef PQ_ANALYSIS_NSYS_HEAP_H
#define PQ_ANALYSIS_NSYS_HEAP_H
#include "analysis/heapsim.h"
#include "analysis/nsys_hlo.h"
#include "analysis/nsys_modules.h"
#include "core/arena.h"

#include <stddef.h>
#include <stdint.h>

typedef struct nsys_heap_module {
    int64_t program_id;
    const char *name;   /* hlo_module (owned by the profile) */
    int has_dump;       /* 0: the archive has no after-optimisation dump of it */
    hs_result heap;     /* traces with their usage (instruction names point into the dump) */
    uint32_t top_trace; /* the first trace with the largest peak */
} nsys_heap_module;

typedef struct nsys_heap_result {
    nsys_heap_module *modules; /* the top module ids, in their order */
    size_t nmodules;
    arena a;
} nsys_heap_result;

/* The HLO dumps of PROF's sources, one handle per source, shared by the analyses of one
 * profile (communication, heap, flame) so that each dump is decoded once: *OUT[0..nsources)
 * all NULL (free with nsys_dumps_close, also after an error). */
pq_status nsys_dumps_new(const pq_profile *prof, nsys_hlo ***out, pq_error *err);
/* Opens the dumps of every nsys-jax source of PROF still NULL in DUMPS (nothing decoded). */
pq_status nsys_dumps_open(const pq_profile *prof, nsys_hlo **dumps, pq_error *err);
void nsys_dumps_close(nsys_hlo **dumps, size_t n);

/* MODS: the module table of the profile (its top module ids are used); DUMPS[0..NDUMPS)
 * its dumps, one per source (NULL: none; the first holding a program is used), which must
 * outlive the result (trace instruction names point into them). Errors: a corrupt dump
 * (PQ_ERR_INPUT with member and offset), PQ_ERR_NOMEM. */
pq_status nsys_heap_compute(const nsys_modules_result *mods, nsys_hlo *const *dumps, size_t ndumps,
                            nsys_heap_result *out, pq_error *err);
void nsys_heap_free(nsys_heap_result *r);

#endif
