/* nsys_flame.h - the notebook's two flame graphs for nsys-jax archives (issue 12 Deliver 3
 * "flame"; ../shared/spec/nsys-jax.md section 5 item 7) as folded stacks with weights in ms:
 * - by source: each steady top-module thunk total (analysis/nsys_comm.h, after overlap
 *   subtraction) split equally over the distinct locations of its HLO instruction and the
 *   instructions of its called computations: "[GPU active]" + stack frames
 *   ("file:line[:column][function]") + op_name for those with stack frames; else
 *   "[GPU active]" "[Unknown]" + op_name for those with an op_name; else "[GPU active]"
 *   "[Unknown]";
 * - by op_name: "[GPU active]" + op_name split on '/', else "[GPU active]" "[Unknown]";
 * both with "[GPU idle during module execution]" (runtime definition 2 - 1) and
 * "[GPU idle between module executions]" (3 - 2). */
#ifndef PQ_ANALYSIS_NSYS_FLAME_H
#define PQ_ANALYSIS_NSYS_FLAME_H
#include "analysis/nsys_comm.h"
#include "analysis/nsys_hlo.h"
#include "core/intern.h"

#include <stddef.h>
#include <stdint.h>

typedef struct nsys_flame_stack {
    uint32_t *frames; /* ids in the result's names, outermost first (owned) */
    uint32_t nframes;
    double ms;
} nsys_flame_stack;

typedef struct nsys_flame_graph {
    nsys_flame_stack *stacks; /* in order of first sight */
    size_t n, cap;
    intern_pool keys; /* the frame id sequences, id = index in stacks */
} nsys_flame_graph;

enum { NSYS_FLAME_SOURCE = 0, NSYS_FLAME_OP_NAME = 1, NSYS_FLAME_NGRAPHS = 2 };

typedef struct nsys_flame_result {
    intern_pool names;
    nsys_flame_graph g[NSYS_FLAME_NGRAPHS];
    uint64_t unknown_thunks; /* thunks whose instruction no dump holds */
} nsys_flame_result;

/* COMM: the communication result of the same profile (its thunk totals and runtime
 * definitions); DUMPS[0..NDUMPS): the HLO dumps of its sources (NULL: none; the first
 * holding a program is used). Errors: a corrupt dump (PQ_ERR_INPUT), PQ_ERR_NOMEM. */
pq_status nsys_flame_compute(const nsys_comm_result *comm, nsys_hlo *const *dumps, size_t ndumps,
                             nsys_flame_result *out, pq_error *err);
void nsys_flame_free(nsys_flame_result *r);

#endif
