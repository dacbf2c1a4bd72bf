/* nsys_comm_int.h - the row tables nsys_comm.c builds (modules, thunks with their
 * communication facts, aligned starts) and nsys_comm_stats.c summarises. Internal to those
 * two files. */
#ifndef PQ_ANALYSIS_NSYS_COMM_INT_H
#define PQ_ANALYSIS_NSYS_COMM_INT_H
#include "analysis/nsys_comm.h"
#include "core/intern.h"
#include "core/pairmap.h"

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
    uint32_t src; /* the source index, for a deferred classification (nc_collect.defer) */
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

/* What a gather fills: the archive/SQLite one in nsys_comm.c, the XSpace one in
 * nsys_xplane.c. */
typedef struct nc_collect {
    nc_tables *t;
    size_t capm, capt;
    uint32_t dev_base; /* devices of the sources before: device = base + track device */
    nsys_warmup w;
    int stop_at_comm; /* nsys_comm_has_communication: stop at the first one */
    int defer;        /* nc_add_thunk leaves info and comm to one pass after the gather */
    pairmap compiled; /* (program, 0) */
    pairmap infos;    /* (program, op | source << 32) -> info */
    nsys_hlo **hlo;   /* per source (NULL: no HLO); closed by nc_run */
} nc_collect;

/* Fills C->t with module and thunk rows (unsorted) and C->hlo; stops early when
 * C->stop_at_comm and a thunk is communication. */
typedef pq_status (*nc_gather)(const pq_profile *prof, nc_collect *c, pq_error *err);

/* Appends module row M (0, or -1 out of memory). */
int nc_add_module(nc_collect *c, const nc_mod *m);
/* Appends thunk row TH (program, exec, dev, start, dur, frame set) running hlo_op OP of
 * source S: op id, sequence number, HLO info and communication flag are set here (info and
 * flag after the gather when C->defer). */
pq_status nc_add_thunk(nc_collect *c, size_t s, const nc_thunk *th, pq_str op, pq_error *err);
/* The computation of nsys_comm_compute_warmup over the rows GATHER fills. */
pq_status nc_run(const pq_profile *prof, const nsys_warmup *w, nc_gather gather,
                 nsys_modules_result *mods, nsys_comm_result *out, pq_error *err);

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
