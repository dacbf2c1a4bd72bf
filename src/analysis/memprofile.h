/* memprofile.h - XProf's memory_profile (spec/xprof-tools.md section 4) from one XSpace:
 * allocator snapshots from MemoryAllocation/MemoryDeallocation events on /host:CPU, peak
 * stats, active allocations at the peak, the sampled timeline (at most 1000 points) and
 * the XLA modules of the TPU planes. Pure: a source in, a result in the caller's arena. */
#ifndef PQ_ANALYSIS_MEMPROFILE_H
#define PQ_ANALYSIS_MEMPROFILE_H
#include "core/arena.h"
#include "model/model.h"

typedef struct mp_stats {
    int64_t stack_reserved, heap_allocated, free_memory, peak_bytes_in_use;
    double fragmentation;
} mp_stats;

typedef struct mp_snapshot {
    int64_t time_ps;
    mp_stats s;
    int activity; /* 1 ALLOCATION, 2 DEALLOCATION */
    int64_t requested, allocation, step_id;
    uint64_t address;
    pq_str tf_op, region_type, tensor_shape;
    int64_t data_type;
    const char *data_type_name; /* overrides data_type when set ("INVALID" for specials) */
} mp_snapshot;

typedef struct mp_active {
    int64_t snapshot_index, special_index, occurrences;
} mp_active;

typedef struct mp_allocator {
    const char *id;     /* memory id, NUL-terminated */
    mp_snapshot *snaps; /* compacted: those referenced by active allocations */
    uint32_t nsnaps;
    mp_snapshot *sampled;
    uint32_t nsampled;
    mp_snapshot *special;
    uint32_t nspecial;
    mp_active *active;
    uint32_t nactive;
    int64_t peak_lifetime, peak_time_ps, capacity;
    mp_stats peak;
} mp_allocator;

typedef struct mp_module {
    pq_str name, plane;
    int64_t start_ps, end_ps, id;
} mp_module;

typedef struct mp_result {
    int has_cpu_plane;
    mp_allocator *allocators; /* sorted by id (string order) */
    uint32_t nallocators;
    mp_module *modules;
    uint32_t nmodules;
} mp_result;

pq_status memprofile_compute(const pq_source *src, arena *a, mp_result *out);
const char *memprofile_dtype_name(int64_t dtype, char tmp[32]);

#endif
