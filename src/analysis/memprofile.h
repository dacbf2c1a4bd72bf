/* memprofile.h - XProf's memory_profile (spec/xprof-tools.md section 4) from one XSpace:
 * allocator snapshots from MemoryAllocation/MemoryDeallocation events on /host:CPU, peak
 * stats, active allocations at the peak, the sampled timeline (at most 1000 points) and
 * the XLA modules of the TPU planes. Pure: a source in, a result in the caller's arena;
 * pq_memory_profile_compute (profq.h) runs it over every source of a profile. */
#ifndef PQ_ANALYSIS_MEMPROFILE_H
#define PQ_ANALYSIS_MEMPROFILE_H
#include "core/arena.h"
#include "model/model.h"

/* The result types are public (include/profq.h, "XProf's memory_profile"). */
typedef pq_memprofile_stats mp_stats;
typedef pq_memprofile_snapshot mp_snapshot;
typedef pq_memprofile_active mp_active;
typedef pq_memprofile_allocator mp_allocator;
typedef pq_memprofile_module mp_module;
typedef pq_memprofile_source mp_result;

/* One source's memory profile into OUT (path and host included), in A. */
pq_status memprofile_compute(const pq_source *src, arena *a, mp_result *out);
const char *memprofile_dtype_name(int64_t dtype, char tmp[32]);

#endif
