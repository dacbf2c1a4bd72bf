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
    unsigned sections; /* as asked: PQ_NSYS_* section bits (0: all) and warm-up bits */
    unsigned want;     /* the section bits computed (all bits when none was asked) */
    int xplane;        /* 1: the XPlane GPU path (modules only; comm etc. not computed) */
    const char *path;  /* the first source's path (owned by the profile), for errors */
    nsys_modules_result modules;
    nsys_comm_result comm; /* archive path only */
    nsys_compile_result compile;
    nsys_heap_result heap;
    nsys_flame_result flame;
    int have_modules, have_comm, have_compile, have_heap, have_flame;
    nsys_hlo **dumps; /* the sources' HLO dumps, shared by heap and flame (they borrow) */
    size_t ndumps;
} nsys_result;

/* PQ_ERR_INPUT when PROFILE is an XPlane profile (XSpace sources, no nsys-jax source) and
 * SECTIONS asks for more than the module table or SVG is set: only the module table exists
 * there. Checked before computing, so that the request is refused as such. */
pq_status nsys_check_request(const pq_profile *profile, unsigned sections, int svg, pq_error *err);

/* The error nsys_check_request sets (PATH: the profile's first source). */
pq_status nsys_refuse_xplane(const char *path, pq_error *err);

/* Computes what SECTIONS asks for (a PQ_NSYS_* mask as pq_render_nsys takes it) into OUT.
 * On error OUT holds nothing to free. */
pq_status nsys_compute(const pq_profile *profile, unsigned sections, nsys_result *out,
                       pq_error *err);
void nsys_result_free(nsys_result *r);

#endif
