/* memprofile.c - renders a `profq memory-profile` result (pq_memory_profile_result,
 * computed by analysis/memprofile.c; formats only): XProf's
 * MemoryProfile JSON (--format xprof: every field printed, int64 as strings, enums by
 * name, fields in field-number order), profq's JSON (profq.memory_profile.v1 wrapping it
 * per source) and a text summary per allocator. */
#include "analysis/memprofile.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"
#include "render/text.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void i64s(json_writer *w, const char *k, int64_t v)
{
    char t[32];
    snprintf(t, sizeof t, "%" PRId64, v);
    json_key(w, k);
    json_cstr(w, t);
}

static void str(json_writer *w, const char *k, pq_str s)
{
    json_key(w, k);
    json_str(w, s.p ? s.p : "", s.n);
}

static void stats(json_writer *w, const char *k, const pq_memprofile_stats *s)
{
    json_key(w, k);
    json_obj_begin(w);
    i64s(w, "stackReservedBytes", s->stack_reserved);
    i64s(w, "heapAllocatedBytes", s->heap_allocated);
    i64s(w, "freeMemoryBytes", s->free_memory);
    json_key(w, "fragmentation");
    json_double(w, s->fragmentation);
    i64s(w, "peakBytesInUse", s->peak_bytes_in_use);
    json_obj_end(w);
}

static void activity(json_writer *w, const pq_memprofile_snapshot *s)
{
    static const char *const ACT[] = {"UNKNOWN_ACTIVITY", "ALLOCATION", "DEALLOCATION"};
    char tmp[32];
    json_obj_begin(w);
    json_key(w, "memoryActivity");
    json_cstr(w, ACT[s->activity >= 0 && s->activity <= 2 ? s->activity : 0]);
    i64s(w, "requestedBytes", s->requested);
    i64s(w, "allocationBytes", s->allocation);
    char a[32];
    snprintf(a, sizeof a, "%" PRIu64, s->address);
    json_key(w, "address");
    json_cstr(w, a);
    str(w, "tfOpName", s->tf_op);
    i64s(w, "stepId", s->step_id);
    str(w, "regionType", s->region_type);
    json_key(w, "dataType");
    json_cstr(w, s->data_type_name ? s->data_type_name : memprofile_dtype_name(s->data_type, tmp));
    str(w, "tensorShape", s->tensor_shape);
    json_obj_end(w);
}

static void snapshot(json_writer *w, const pq_memprofile_snapshot *s)
{
    json_obj_begin(w);
    i64s(w, "timeOffsetPs", s->time_ps);
    stats(w, "aggregationStats", &s->s);
    json_key(w, "activityMetadata");
    activity(w, s);
    json_obj_end(w);
}

static void render_xprof(json_writer *w, const pq_memprofile_source *r)
{
    json_obj_begin(w);
    json_key(w, "memoryProfilePerAllocator");
    json_obj_begin(w);
    for (uint32_t i = 0; i < r->nallocators; i++) {
        const pq_memprofile_allocator *al = &r->allocators[i];
        json_key(w, al->id);
        json_obj_begin(w);
        json_key(w, "memoryProfileSnapshots");
        json_arr_begin(w);
        for (uint32_t k = 0; k < al->nsnaps; k++)
            snapshot(w, &al->snaps[k]);
        json_arr_end(w);
        json_key(w, "profileSummary");
        json_obj_begin(w);
        i64s(w, "peakBytesUsageLifetime", al->peak_lifetime);
        stats(w, "peakStats", &al->peak);
        i64s(w, "peakStatsTimePs", al->peak_time_ps);
        i64s(w, "memoryCapacity", al->capacity);
        json_obj_end(w);
        json_key(w, "activeAllocations");
        json_arr_begin(w);
        for (uint32_t k = 0; k < al->nactive; k++) {
            json_obj_begin(w);
            i64s(w, "snapshotIndex", al->active[k].snapshot_index);
            i64s(w, "specialIndex", al->active[k].special_index);
            i64s(w, "numOccurrences", al->active[k].occurrences);
            json_obj_end(w);
        }
        json_arr_end(w);
        json_key(w, "specialAllocations");
        json_arr_begin(w);
        for (uint32_t k = 0; k < al->nspecial; k++)
            activity(w, &al->special[k]);
        json_arr_end(w);
        json_key(w, "sampledTimelineSnapshots");
        json_arr_begin(w);
        for (uint32_t k = 0; k < al->nsampled; k++)
            snapshot(w, &al->sampled[k]);
        json_arr_end(w);
        json_obj_end(w);
    }
    json_obj_end(w);
    json_key(w, "numHosts");
    json_int(w, 1);
    json_key(w, "memoryIds");
    json_arr_begin(w);
    for (uint32_t i = 0; i < r->nallocators; i++)
        json_cstr(w, r->allocators[i].id);
    json_arr_end(w);
    json_key(w, "version");
    json_int(w, 1);
    json_key(w, "hloModules");
    json_arr_begin(w);
    for (uint32_t i = 0; i < r->nmodules; i++) {
        const pq_memprofile_module *m = &r->modules[i];
        json_obj_begin(w);
        str(w, "name", m->name);
        i64s(w, "startTimePs", m->start_ps);
        i64s(w, "endTimePs", m->end_ps);
        i64s(w, "id", m->id);
        str(w, "planeName", m->plane);
        json_obj_end(w);
    }
    json_arr_end(w);
    json_obj_end(w);
}

pq_status pq_memory_profile_render(const pq_memory_profile_result *res, pq_output fmt,
                                   pq_sink *sink, pq_error *err)
{
    if (fmt == PQ_OUT_XPROF && res->nsources != 1)
        return err_set(err, PQ_ERR_USAGE, "", -1,
                       "--format xprof takes exactly one XSpace (XProf's memory_profile does)");
    buf b;
    buf_init(&b, sink);
    json_writer w;
    if (fmt == PQ_OUT_JSON) {
        json_init(&w, &b, 1);
        json_obj_begin(&w);
        json_key(&w, "schema");
        json_cstr(&w, "profq.memory_profile.v1");
        json_key(&w, "sources");
        json_arr_begin(&w);
    }
    for (size_t s = 0; s < res->nsources; s++) {
        const pq_memprofile_source *r = &res->sources[s];
        if (fmt == PQ_OUT_XPROF) {
            /* XProf prints nothing at all when there is no /host:CPU plane. */
            if (r->has_cpu_plane) {
                json_writer x;
                json_init(&x, &b, 0);
                render_xprof(&x, r);
                buf_putc(&b, '\n');
            }
        } else if (fmt == PQ_OUT_JSON) {
            json_obj_begin(&w);
            json_key(&w, "path");
            json_cstr(&w, r->path);
            json_key(&w, "host");
            json_str(&w, r->host.p, r->host.n);
            json_key(&w, "xprof");
            if (r->has_cpu_plane)
                render_xprof(&w, r);
            else
                json_null(&w);
            json_obj_end(&w);
        } else {
            buf_printf(&b, "%s\n", r->path);
            if (!r->has_cpu_plane)
                buf_puts(&b, "  no /host:CPU plane: no allocator events\n");
            for (uint32_t i = 0; i < r->nallocators; i++) {
                const pq_memprofile_allocator *al = &r->allocators[i];
                char pk[32], hp[32], st[32], at[32], cp[32];
                buf_printf(&b,
                           "  allocator %s: peak %s in use (heap %s, stack %s) at %s\n"
                           "    capacity %s, %u active allocation groups, %u timeline points\n",
                           al->id, text_bytes(pk, (double)al->peak.peak_bytes_in_use),
                           text_bytes(hp, (double)al->peak.heap_allocated),
                           text_bytes(st, (double)al->peak.stack_reserved),
                           text_time(at, (double)al->peak_time_ps),
                           text_bytes(cp, (double)al->capacity), al->nactive, al->nsampled);
            }
            buf_printf(&b, "  %u XLA module executions on TPU planes\n", r->nmodules);
        }
    }
    if (fmt == PQ_OUT_JSON) {
        json_arr_end(&w);
        json_obj_end(&w);
        buf_putc(&b, '\n');
    }
    pq_status st = buf_flush(&b);
    if (st != PQ_OK)
        st = err_set(err, PQ_ERR_OUTPUT, "", -1, "could not write the output");
    buf_release(&b);
    return st;
}
