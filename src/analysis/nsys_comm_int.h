/* nsys_comm_int.h - the row tables nsys_comm.c builds (modules, thunks with their
 * communication facts, aligned starts) and nsys_comm_stats.c summarises. Internal to those
 * two files. */
#ifndef PQ_ANALYSIS_NSYS_COMM_INT_H
#define PQ_ANALYSIS_NSYS_COMM_INT_H
#include "analysis/nsys_comm.h"
#include "core/intern.h"

enum { FR_NONE = 0, FR_STEADY = 1, FR_INIT = 2 }; /* a row's warm-up frame */

typedef struct nc_mod {
    int64_t program, exec;
    uint32_t dev;
    double start; /* aligned */
    int64_t dur;
    uint8_t frame;
} nc_mod;

typedef struct nc_info {
    nsys_hlo_comm c; /* c.inst, c.comm point into the source's nsys_hlo */
} nc_info;

typedef struct nc_thunk {
    int64_t program, exec;
    uint32_t dev, op; /* op: id in nc_tables.ops */
    uint32_t info;    /* index into nc_tables.infos */
    uint32_t tidx, texec;
    double start; /* aligned */
    int64_t dur;  /* after overlap subtraction (communication) */
    int64_t hidden;
    uint64_t seq; /* slice order, for ties */
    uint8_t frame, comm;
    double algbw, busbw; /* communication rows */
} nc_thunk;

typedef struct nc_tables {
    nc_mod *mods;
    size_t nmods;
    nc_thunk *th; /* sorted by (program, exec, dev, start, seq) */
    size_t nth;
    nc_info *infos;
    size_t ninfos;
    intern_pool ops;
    uint32_t ndevices;
    int64_t *top; /* top module program ids */
    size_t ntop;
} nc_tables;

int nc_is_top(const nc_tables *t, int64_t program);
/* Median of V[0..N) (sorted in place), pandas' (mean of the two middle values). */
double nc_median(double *v, size_t n);

/* nsys_comm_stats.c: the steady-frame summaries into R (thunks, opcodes, collectives,
 * variability, bias). 0, or -1 when memory ran out. */
int nc_thunk_totals(const nc_tables *t, nsys_comm_result *r);
int nc_collectives(const nc_tables *t, nsys_comm_result *r);
int nc_variability(const nc_tables *t, nsys_comm_result *r);
int nc_bias(const nc_tables *t, nsys_comm_result *r);

#endif
