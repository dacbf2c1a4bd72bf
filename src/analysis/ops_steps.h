/* ops_steps.h - step grouping of GPU XSpaces (ops_steps.c): which step group each device
 * kernel belongs to, and XProf's well-formed steps, for the op metrics (ops_gpu.c) and
 * roofline_model's step rows; TPU steps from device step lines (ops_steps_tpu.c). Not part
 * of the library's API. */
#ifndef PQ_ANALYSIS_OPS_STEPS_H
#define PQ_ANALYSIS_OPS_STEPS_H
#include "core/arena.h"
#include "core/pairmap.h"
#include "formats/xplane_walk.h"
#include "profq.h"

typedef struct ops_host_step { /* one well-formed step of one XSpace */
    uint32_t source;
    int64_t group;      /* tsl's group id */
    int64_t begin, end; /* the step's time (ps): its longest host marker */
} ops_host_step;

typedef struct ops_steps {
    const pq_source *sources; /* the profile's, to index sources */
    pairmap launch_group;     /* (source index, correlation id) -> group of the launch */
    pairmap inherited;        /* (source index, event body address) -> the group an ungrouped GPU
                                 event takes from the one before it (ProcessUngroupedEvents) */
    int64_t *steps; /* the step numbers: one XSpace, the group ids of its well-formed steps
                       (ascending); several, 0..n-1 over the hosts' step intersection */
    size_t nsteps;
    ops_host_step *host_steps; /* each XSpace's steps, by source then group */
    size_t nhost, caphost;
    int combined;        /* several XSpaces: XProf combines their op stats */
    int empty_intersect; /* combined, hosts have steps, but their intersection is empty */
    int active;          /* kernels have groups: ops_steps_kernel_group answers */
    int has_groups;      /* some device kernel has a group (XProf's op merge applies) */
    int unsupported;     /* a grouping rule profq does not implement would apply */
} ops_steps;

/* Groups the profile's events when GPU is set (else, and when a rule profq lacks would
 * apply, leaves ST without groups or steps), and with several XSpaces intersects their
 * steps as XProf's StepIntersection does. 0 when out of memory. */
int ops_steps_build(const pq_profile *prof, int gpu, ops_steps *st);
/* The group of device kernel EV of plane PL of SRC (CORR_ID: the plane's correlation_id
 * stat id, INT64_MIN when absent), or -1. */
int64_t ops_steps_kernel_group(const ops_steps *st, const pq_source *src, const xp_plane *pl,
                               int64_t corr_id, const xp_event *ev);
void ops_steps_free(ops_steps *st);
/* TPU steps counted (ops_steps_tpu.c), before they are made into records: the XSpaces with
 * TPU planes (XProf's hosts: the others are coordinators), each with NSTEPS steps
 * (consecutive in STEPS, the hosts in path order, each host's steps by group), per step its
 * group id, step time (its longest marker: the span the hosts' steps are aligned by), total
 * time and NCOUNTS counts (consecutive in COUNTS, the steps in order), each the occurrences
 * and times of one op row, named by its key (program, symbol, name). */
typedef struct ops_tpu_count {
    uint64_t program_id, symbol_id;
    pq_str name;
    int64_t occurrences, time_ps, self_time_ps;
} ops_tpu_count;
typedef struct ops_tpu_step {
    int64_t group, begin_ps, end_ps, total_ps;
    size_t ncounts;
} ops_tpu_step;
typedef struct ops_tpu_host {
    pq_str path;
    size_t nsteps;
} ops_tpu_host;
typedef struct ops_tpu_steps {
    ops_tpu_host *hosts;
    size_t nhosts;
    ops_tpu_step *steps;
    size_t nsteps;
    ops_tpu_count *counts; /* names borrowed: R's rows' (ops_steps_tpu_counts) */
    size_t ncounts;
    int unsupported; /* an XSpace has host step markers: no TPU steps at all */
} ops_tpu_steps;
/* The TPU steps of the XSpaces of PROF whose TensorCore planes have device "Steps" lines,
 * counted against the op rows of R, into *ST (empty when there are none). 0 when out of
 * memory. */
int ops_steps_tpu_counts(const pq_profile *prof, const pq_ops_result *r, ops_tpu_steps *st);
/* ST's records into R->steps and R->step_rows (each step's Program records and the
 * Average's, as XProf) over R's rows, found by key: of one XSpace (XSPACES 1) its steps, of
 * several the hosts' step intersection numbered 0..n-1 (R->steps_empty_intersect set when
 * hosts have steps but share none); nothing when there are no steps. 0 when out of memory. */
int ops_steps_tpu_records(pq_ops_result *r, const ops_tpu_steps *st, size_t xspaces);
void ops_tpu_steps_free(ops_tpu_steps *st);
/* Adds the hosts of FROM to INTO in path order (after INTO's of equal path), names and
 * paths copied into A; none when either is unsupported (INTO then keeps only the flag). 0
 * when out of memory (INTO then unchanged). */
int ops_tpu_steps_merge(ops_tpu_steps *into, const ops_tpu_steps *from, arena *a);
/* TPU (ops_steps_tpu.c): the steps of the XSpaces whose TensorCore planes have a device
 * "Steps" line, into R->steps and R->step_rows (ops_steps_tpu_records); R without them
 * when there are none. 0 when out of memory. */
int ops_steps_tpu(const pq_profile *prof, pq_ops_result *r);
/* XProf's tables of XSPACES XSpaces (ops_peaks.c): the peaks its CombinePerfEnv keeps of
 * several (no has_cmem, has_merged_vmem, has_megacore); PK unchanged for one. */
void ops_peaks_xprof_combine(pq_ops_peaks *pk, size_t xspaces);
/* The sources of PROF with planes: the XSpaces XProf combines. */
size_t ops_xspace_count(const pq_profile *prof);
/* XProf's StepIntersection of the steps HS (sorted by source, then as drop_incomplete
 * leaves them) of the XSpaces GPUS (ascending source indexes, those with device planes): the
 * steps all share, numbered 0..n-1, into *STEPS (allocated) and *NSTEPS; *EMPTY set when
 * hosts have steps but no common ones; FIRST (NGPU entries, or NULL): the index among each
 * host's steps of its step 0. 0 when out of memory. */
int ops_steps_intersect(const ops_host_step *hs, size_t nhs, const uint32_t *gpus, size_t ngpu,
                        int64_t **steps, size_t *nsteps, int *empty, size_t *first);

#endif
