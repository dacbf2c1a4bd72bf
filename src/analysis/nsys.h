/* nsys.h - `profq nsys` as one analysis (issue 11 Deliver 3): the nsys analyses composed
 * for the asked-for sections - module table (nsys_modules.h, or nsys_xplane.h on a JAX
 * XPlane GPU profile), communication (nsys_comm.h), compile (nsys_compile.h), heap
 * (nsys_heap.h) and flame (nsys_flame.h) - in one result that render/nsys.c formats and
 * api/nsys.c exposes as pq_nsys_result. */
#ifndef PQ_ANALYSIS_NSYS_H
#define PQ_ANALYSIS_NSYS_H
#include "analysis/nsys_comm.h"
#include "analysis/nsys_compile.h"
#include "analysis/nsys_flame.h"
#include "analysis/nsys_heap.h"
#include "analysis/nsys_modules.h"

typedef struct nsys_result {
    unsigned sections;    /* as asked: PQ_NSYS_* section bits (0: all) and warm-up bits */
    unsigned want;        /* the section bits computed (all bits when none was asked) */
    int xplane;           /* 1: the XPlane GPU path (module table from nsys_xplane.h) */
    unsigned unavailable; /* sections the input cannot give (nsys_unavailable), not computed */
    const char *path;     /* the first source's path (owned by the profile), for errors */
    nsys_modules_result modules;
    nsys_comm_result comm; /* archive path only */
    nsys_compile_result compile;
    nsys_heap_result heap;
    nsys_flame_result flame;
    int have_modules, have_comm, have_compile, have_heap, have_flame;
    nsys_hlo **dumps; /* one per source (NULL: none), shared by comm, heap and flame */
    size_t ndumps;
} nsys_result;

/* The PQ_NSYS_* sections PROFILE cannot give: on an XPlane profile (XSpace sources, no
 * nsys-jax source) bias, compile, heap and flame; with an Nsight SQLite export compile, heap
 * and flame (no push/pop report read, no HLO dumps); 0 on nsys-jax archives. */
unsigned nsys_unavailable(const pq_profile *profile);
/* "an XPlane", "an Nsight SQLite export" (R->unavailable set) or "". */
const char *nsys_input_name(const nsys_result *r);

/* PQ_ERR_INPUT when SECTIONS asks only for sections PROFILE cannot give
 * (nsys_unavailable), or SVG for the flame graphs there. Checked before computing, so that
 * the request is refused as such. */
pq_status nsys_check_request(const pq_profile *profile, unsigned sections, int svg, pq_error *err);

/* The sections to show: those asked for (all when none was), less R->unavailable, with the
 * warm-up bits; R->sections when nothing is unavailable. */
unsigned nsys_shown_sections(const nsys_result *r);

/* Computes what SECTIONS asks for (a PQ_NSYS_* mask as pq_render_nsys takes it) into OUT.
 * On error OUT holds nothing to free. */
pq_status nsys_compute(const pq_profile *profile, unsigned sections, nsys_result *out,
                       pq_error *err);
/* nsys_compute with the compile section's per-source parts given (PARTS: NULL, or one per
 * source, NULL entries computed from the source): an nsys partial keeps those parts in
 * place of the push/pop ranges (api/partial_nsys.c). */
pq_status nsys_compute_parts(const pq_profile *profile, unsigned sections,
                             const nsys_compile_part *const *parts, nsys_result *out,
                             pq_error *err);
void nsys_result_free(nsys_result *r);

#endif
