/* nsys_modules.h - the nsys-jax loader's module and thunk tables over the model (issue 12
 * Deliver 2 and 3 "modules"): the frames' row counts (all, steady, init) and, per program
 * id, the steady module rows, total projected milliseconds, share of the total, thunks
 * per execution (mean, std) and the top module ids covering 99% (the notebook's cell). */
#ifndef PQ_ANALYSIS_NSYS_MODULES_H
#define PQ_ANALYSIS_NSYS_MODULES_H
#include "model/model.h"

#include <stddef.h>
#include <stdint.h>

enum { NSYS_ALL = 0, NSYS_STEADY = 1, NSYS_INIT = 2, NSYS_NFRAMES = 3 };

typedef struct nsys_frame_rows {
    uint64_t module_rows, thunk_rows;
} nsys_frame_rows;

typedef struct nsys_module_row {
    int64_t program_id; /* -1: the range named none (autotuning) */
    const char *name;   /* hlo_module (owned by the profile) */
    const char *key;    /* HEAD's program id (a fingerprint, "unknown") to print, or NULL */
    uint64_t rows;      /* steady module rows: executions x devices */
    int64_t total_ns;   /* sum of the rows' projected durations */
    double total_ms, share;
    double thunks_sum, thunks_sumsq; /* over the rows: thunks in each module execution */
    double thunks_mean, thunks_std;  /* std with n - 1 (pandas); NaN for one row */
    double wait_share; /* nsys_comm_compute: launch wait / total; NaN without communication */
} nsys_module_row;

typedef struct nsys_modules_result {
    size_t sources, devices;
    nsys_frame_rows frames[NSYS_NFRAMES];
    size_t compiled_programs; /* program ids whose compilation the push/pop report shows */
    nsys_module_row *modules; /* by total_ns descending, then program id */
    size_t nmodules;
    size_t ntop; /* modules[0..ntop): the top module ids, added while the share seen < 99% */
    int64_t total_ns;
    int all_steady; /* HEAD rule: no steady module or thunk rows, that kind taken as steady */
} nsys_modules_result;

/* The warm-up rule: the archive-era loader's (head = 0: for programs whose compilation
 * was profiled, execution 0 is init, 1 neither, 2+ steady; others all steady) or the HEAD
 * loader's (threshold = compiled + has_communication, executions below it init, the rest
 * steady; a frame kind without steady rows is taken as steady whole: all_steady_*). */
typedef struct nsys_warmup {
    int head, has_communication;
    int all_steady_modules, all_steady_thunks; /* set by the HEAD fallback */
} nsys_warmup;

/* The default rule of PROF: 1 (HEAD's) when every nsys-jax source was read in the newer
 * layout (pq_source.nsysjax_newer), else 0 (the archive-era loader's). */
int nsys_warmup_head_default(const pq_profile *prof);

/* NSYS_STEADY, NSYS_INIT or -1 (neither) for an execution of a program (THUNK: a thunk or
 * communication row, else a module row). W NULL: the archive-era rule. */
int nsys_warmup_frame(const nsys_warmup *w, int compiled, int64_t exec, int thunk);

/* PQ_ERR_INPUT when the profile holds no nsys-jax source. The archive-era warm-up rule. */
pq_status nsys_modules_compute(const pq_profile *prof, nsys_modules_result *out, pq_error *err);
/* nsys_modules_compute with the warm-up rule W (NULL: archive-era). */
pq_status nsys_modules_compute_warmup(const pq_profile *prof, const nsys_warmup *w,
                                      nsys_modules_result *out, pq_error *err);
void nsys_modules_free(nsys_modules_result *r);
/* Thunks mean and std per row from thunks_sum/sumsq, rows sorted by total_ns (then program
 * id), ntop set from the shares (also used by analysis/nsys_xplane.c). */
void nsys_modules_finish(nsys_modules_result *out);

/* The program id of a host "TSL:XlaCompileBackend:#module=NAME,program_id=N#" range (its
 * compilation was profiled), or -1. */
int64_t nsys_compiled_program(const char *name);
/* 1 when SRC holds module and thunk slices the way an nsys-jax archive does: an nsys-jax
 * archive, or an Nsight SQLite export (its NVTX ranges projected onto the GPU). */
int nsys_xla_source(const pq_source *src);
/* The device of a module or thunk slice on a track with thread id TID of SRC (archive:
 * the track tid; SQLite export: the device of a projected track), or -1 (a host track). */
int64_t nsys_track_device(const pq_source *src, int64_t tid);

/* "P:E" (a slice's run_id) into program P and execution E; 0 when RUN is not that. An
 * archive of the HEAD loader's era with dumps has "P:E:KEY", KEY the loader's program id
 * (the dump's fingerprint, "unknown"; P one number per KEY), and its compilation ranges
 * "compiled:P[:KEY]". */
int nsys_parse_run(const char *run, int64_t *program, int64_t *exec);
/* KEY of "P:E:KEY", or NULL. */
const char *nsys_run_key(const char *run);

#endif
