/* info_trace.c - `profq info` of a trace-event JSON source: the devices it states (Kineto's
 * deviceProperties, each capability as given), the tracks the reader filled
 * (one per process and thread, or GPU stream), grouped by process in (pid, tid) order,
 * with their slice counts and spans. Times are picoseconds relative to the first slice;
 * time_base_us gives that start in the trace's own clock. */
#include "info_trace.h"

#include "core/alloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int cmp_track(const void *pa, const void *pb, const model_slices *m)
{
    const slice_track *a = &m->tracks[*(const uint32_t *)pa];
    const slice_track *b = &m->tracks[*(const uint32_t *)pb];
    if (a->pid != b->pid)
        return a->pid < b->pid ? -1 : 1;
    return a->tid < b->tid ? -1 : a->tid > b->tid;
}

/* Track indexes in (pid, tid) order (insertion sort: a trace has tens of threads), or NULL
 * when memory ran out; *n gets the count. */
static uint32_t *tracks_in_order(const model_slices *m, uint32_t *n)
{
    uint32_t *ix = pq_malloc_array((size_t)m->ntracks + 1, sizeof *ix);
    *n = 0;
    if (!ix)
        return NULL;
    for (uint32_t t = 0; t < m->ntracks; t++) {
        uint32_t k = t;
        ix[k] = t;
        while (k > 0 && cmp_track(&ix[k - 1], &ix[k], m) > 0) {
            uint32_t x = ix[k - 1];
            ix[k - 1] = ix[k];
            ix[k] = x;
            k--;
        }
    }
    *n = m->ntracks;
    return ix;
}

/* An nsys-jax source's counts: processes, devices, devices whose GPU model the archive
 * names (the reader appends ": MODEL" to the device track's name), kernel records,
 * projected ranges, host ranges, XLA module ranges, thunk ranges, distinct module names. */
enum {
    NS_PROCESSES,
    NS_DEVICES,
    NS_GPUS,
    NS_KERNELS,
    NS_PROJECTED,
    NS_HOST,
    NS_MODULE_RANGES,
    NS_THUNKS,
    NS_MODULES,
    NS_N
};
static const char *const NS_KEYS[NS_N] = {"processes",     "devices",          "gpus",
                                          "kernels",       "projected_ranges", "host_ranges",
                                          "module_ranges", "thunk_ranges",     "modules"};

/* The GPU model in the name of device track K ("device ...: MODEL"), or NULL. */
static const char *gpu_model(const model_slices *m, uint32_t k)
{
    const char *n =
        m->tracks[k].tid >= 0 ? slices_thread_name(m, m->tracks[k].pid, m->tracks[k].tid) : NULL;
    const char *c = n && !strncmp(n, "device ", 7) ? strstr(n, ": ") : NULL;
    return c ? c + 2 : NULL;
}

static void nsys_counts(const model_slices *m, uint64_t c[NS_N])
{
    memset(c, 0, NS_N * sizeof *c);
    for (uint32_t k = 0; k < m->ntracks; k++) {
        c[NS_DEVICES] += m->tracks[k].tid >= 0;
        c[NS_GPUS] += gpu_model(m, k) != NULL;
        uint32_t j = 0;
        while (j < k && m->tracks[j].pid != m->tracks[k].pid)
            j++;
        c[NS_PROCESSES] += j == k;
    }
    uint8_t *seen = m->module ? pq_calloc((size_t)m->names.n + 1, 1) : NULL;
    for (size_t i = 0; i < m->n; i++) {
        int gpu = (m->flags[i] & SLICE_GPU_ANNOTATION) != 0,
            thunk = (m->flags[i] & SLICE_XLA_OP) != 0;
        c[NS_KERNELS] += (m->flags[i] & SLICE_GPU_KERNEL) != 0;
        c[gpu ? NS_PROJECTED : NS_HOST]++;
        c[NS_THUNKS] += thunk;
        c[NS_MODULE_RANGES] += m->run_id[i] && !thunk;
        if (seen && m->module[i] && !seen[m->module[i]]) {
            seen[m->module[i]] = 1;
            c[NS_MODULES]++;
        }
    }
    pq_free(seen);
}

/* What an Nsight SQLite export states of GPU G (its model device, formats/nsys_sqlite.c):
 * the name, and memory, bandwidth, clock, SMs and compute capability (0: not stated). */
typedef struct gpu_facts {
    const char *name;
    int64_t v[6]; /* totalMemory, memoryBandwidth, clockRate, smCount, computeMajor, Minor */
} gpu_facts;

static gpu_facts facts_of(const model_devices *d, const model_gpu *g)
{
    static const char *const keys[6] = {"totalMemory", "memoryBandwidth", "clockRate",
                                        "smCount",     "computeMajor",    "computeMinor"};
    gpu_facts f = {"", {0}};
    const model_device *dev = devices_find(d, g->id);
    if (!dev)
        return f;
    f.name = dev->name;
    const model_device_cap *c = devices_caps(d, dev);
    for (size_t i = 0; i < dev->ncaps; i++)
        for (int k = 0; k < 6; k++)
            if (c[i].v.kind == PQ_DEV_INT && !strcmp(c[i].key, keys[k]))
                f.v[k] = c[i].v.i;
    return f;
}

/* An Nsight SQLite export's GPUs (only the facts it states) and counts. */
static void nsys_export_json(json_writer *w, const pq_source *src)
{
    const model_nsys_export *x = src->nsys_export;
    json_key(w, "nsys_sqlite");
    json_obj_begin(w);
    json_key(w, "gpus");
    json_arr_begin(w);
    for (uint32_t k = 0; k < x->ngpus; k++) {
        const model_gpu *g = &x->gpus[k];
        gpu_facts f = facts_of(&src->devices, g);
        json_obj_begin(w);
        json_key(w, "id");
        json_int(w, g->id);
        json_key(w, "name");
        json_cstr(w, f.name);
        static const char *const keys[] = {"memory_bytes", "memory_bandwidth_bytes_per_s",
                                           "clock_hz", "sm_count"};
        for (int i = 0; i < 4; i++)
            if (f.v[i] > 0) {
                json_key(w, keys[i]);
                json_int(w, f.v[i]);
            }
        if (f.v[4] > 0) {
            char cc[48];
            snprintf(cc, sizeof cc, "%d.%d", (int)f.v[4], (int)f.v[5]);
            json_key(w, "compute_capability");
            json_cstr(w, cc);
        }
        const uint64_t c[] = {g->kernels, g->memcpys, g->memsets};
        static const char *const ck[] = {"kernels", "memcpys", "memsets"};
        for (int i = 0; i < 3; i++) {
            json_key(w, ck[i]);
            json_uint(w, c[i]);
        }
        json_obj_end(w);
    }
    json_arr_end(w);
    const uint64_t n[] = {x->kernels,     x->memcpys,          x->memsets,       x->runtime_calls,
                          x->nvtx_ranges, x->projected_ranges, x->module_ranges, x->thunk_ranges};
    static const char *const nk[] = {"kernels",       "memcpys",     "memsets",
                                     "runtime_calls", "nvtx_ranges", "projected_ranges",
                                     "module_ranges", "thunk_ranges"};
    for (int i = 0; i < 8; i++) {
        json_key(w, nk[i]);
        json_uint(w, n[i]);
    }
    json_obj_end(w);
}

static void nsys_export_text(buf *b, const pq_source *src)
{
    const model_nsys_export *x = src->nsys_export;
    buf_printf(b,
               "  Nsight SQLite export: %" PRIu64 " kernels, %" PRIu64 " memcpys, %" PRIu64
               " memsets, %" PRIu64 " CUDA runtime calls,\n  %" PRIu64 " NVTX ranges (%" PRIu64
               " projected onto GPUs: %" PRIu64 " XLA module, %" PRIu64 " thunk ranges)\n",
               x->kernels, x->memcpys, x->memsets, x->runtime_calls, x->nvtx_ranges,
               x->projected_ranges, x->module_ranges, x->thunk_ranges);
    for (uint32_t k = 0; k < x->ngpus; k++) {
        const model_gpu *g = &x->gpus[k];
        gpu_facts f = facts_of(&src->devices, g);
        buf_printf(b, "  GPU %" PRId64 " ", g->id);
        json_escape_into(b, f.name, strlen(f.name));
        buf_printf(b, ": %" PRIu64 " kernels, %" PRIu64 " memcpys, %" PRIu64 " memsets\n",
                   g->kernels, g->memcpys, g->memsets);
        /* The facts the export states, on a line of their own ("    " opens it). */
        const char *sep = "    ";
        if (f.v[0] > 0)
            buf_printf(b, "%s%.2f GiB", sep, (double)f.v[0] / (1024.0 * 1024 * 1024)), sep = ", ";
        if (f.v[1] > 0)
            buf_printf(b, "%s%.1f GB/s", sep, (double)f.v[1] / 1e9), sep = ", ";
        if (f.v[3] > 0)
            buf_printf(b, "%s%" PRId64 " SMs", sep, f.v[3]), sep = ", ";
        if (f.v[2] > 0)
            buf_printf(b, "%s%.0f MHz", sep, (double)f.v[2] / 1e6), sep = ", ";
        if (f.v[4] > 0)
            buf_printf(b, "%scompute %d.%d", sep, (int)f.v[4], (int)f.v[5]), sep = ", ";
        if (sep[0] == ',')
            buf_putc(b, '\n');
    }
}

void info_device_value_json(json_writer *w, const pq_device_value *v)
{
    if (v->kind == PQ_DEV_INT)
        json_int(w, v->i);
    else if (v->kind == PQ_DEV_UINT)
        json_uint(w, v->u);
    else if (v->kind == PQ_DEV_NUM)
        json_double(w, v->d);
    else if (v->kind == PQ_DEV_BOOL)
        json_bool(w, (int)v->i);
    else
        json_str(w, v->s.p, v->s.n);
}

/* "devices": the devices the input states, each with its capabilities as stated (only when
 * there are any: a trace without deviceProperties has no such key). */
static void devices_json(json_writer *w, const model_devices *d)
{
    if (!d->dev.n)
        return;
    json_key(w, "devices");
    json_arr_begin(w);
    for (size_t k = 0; k < d->dev.n; k++) {
        const model_device *v = &d->dev.v[k];
        json_obj_begin(w);
        json_key(w, "id");
        json_int(w, v->id);
        json_key(w, "kind");
        json_cstr(w, v->kind);
        json_key(w, "name");
        json_cstr(w, v->name);
        json_key(w, "capabilities");
        json_obj_begin(w);
        const model_device_cap *c = devices_caps(d, v);
        for (size_t i = 0; i < v->ncaps; i++) {
            json_key(w, c[i].key);
            info_device_value_json(w, &c[i].v);
        }
        json_obj_end(w);
        json_obj_end(w);
    }
    json_arr_end(w);
}

/* One line per device, then its capabilities "key value" comma-separated on lines of at
 * most about 100 columns (a terminal's width; tests/cli/widths.sh). */
static void devices_text(buf *b, const model_devices *d)
{
    for (size_t k = 0; k < d->dev.n; k++) {
        const model_device *v = &d->dev.v[k];
        buf_printf(b, "  device %" PRId64 " %s ", v->id, v->kind);
        json_escape_into(b, v->name, strlen(v->name));
        const model_device_cap *c = devices_caps(d, v);
        size_t col = 0;
        for (size_t i = 0; i < v->ncaps; i++) {
            char val[64];
            const pq_device_value *x = &c[i].v;
            size_t w = strlen(c[i].key) + 3;
            if (x->kind == PQ_DEV_INT)
                snprintf(val, sizeof val, "%" PRId64, x->i);
            else if (x->kind == PQ_DEV_UINT)
                snprintf(val, sizeof val, "%" PRIu64, x->u);
            else if (x->kind == PQ_DEV_NUM)
                snprintf(val, sizeof val, "%.17g", x->d);
            else if (x->kind == PQ_DEV_BOOL)
                snprintf(val, sizeof val, "%s", x->i ? "true" : "false");
            else
                val[0] = '\0';
            w += x->kind == PQ_DEV_STR ? x->s.n : strlen(val);
            if (i == 0 || col + w > 100) {
                buf_puts(b, i ? ",\n    " : "\n    ");
                col = 4;
            } else {
                buf_puts(b, ", ");
            }
            buf_printf(b, "%s ", c[i].key);
            if (x->kind == PQ_DEV_STR)
                json_escape_into(b, x->s.p, x->s.n);
            else
                buf_puts(b, val);
            col += w;
        }
        buf_putc(b, '\n');
    }
}

void info_trace_json(json_writer *w, const pq_source *src)
{
    if (src->nsys_export)
        nsys_export_json(w, src);
    if (src->info.format == PQ_FORMAT_NSYS_JAX) {
        uint64_t c[NS_N];
        nsys_counts(src->slices, c);
        json_key(w, "nsys_jax");
        json_obj_begin(w);
        for (int k = 0; k < NS_N; k++) {
            json_key(w, NS_KEYS[k]);
            json_uint(w, c[k]);
        }
        json_obj_end(w);
    }
    const model_slices *m = src->slices;
    json_key(w, "trace");
    json_obj_begin(w);
    json_key(w, "trace_events");
    json_uint(w, src->trace_events);
    json_key(w, "display_time_unit");
    json_cstr(w, src->display_time_unit);
    json_key(w, "slices");
    json_uint(w, m->n);
    json_key(w, "time_base_us");
    json_int(w, m->base_us);
    if (!src->nsys_export) /* its GPUs are listed under nsys_sqlite */
        devices_json(w, &src->devices);
    json_key(w, "processes");
    json_arr_begin(w);
    uint32_t n;
    uint32_t *ix = tracks_in_order(m, &n);
    for (uint32_t k = 0; k < n; k++) {
        const slice_track *t = &m->tracks[ix[k]];
        if (k == 0 || m->tracks[ix[k - 1]].pid != t->pid) {
            if (k)
                json_arr_end(w), json_obj_end(w);
            json_obj_begin(w);
            json_key(w, "pid");
            json_int(w, t->pid);
            json_key(w, "name");
            json_cstr(w, slices_process_name(m, t->pid));
            json_key(w, "threads");
            json_arr_begin(w);
        }
        json_obj_begin(w);
        json_key(w, "tid");
        json_int(w, t->tid);
        json_key(w, "name");
        json_cstr(w, slices_thread_name(m, t->pid, t->tid));
        json_key(w, "gpu_stream");
        json_bool(w, t->has_kernel);
        json_key(w, "slices");
        json_uint(w, t->nslices);
        json_key(w, "first_ps");
        json_int(w, t->first_ps);
        json_key(w, "end_ps");
        json_int(w, t->end_ps);
        json_obj_end(w);
    }
    if (n)
        json_arr_end(w), json_obj_end(w);
    json_arr_end(w);
    json_obj_end(w);
    pq_free(ix);
}

/* Picoseconds for people: "12.345 ms". */
static void put_duration(buf *b, int64_t ps)
{
    double v = (double)ps;
    if (ps < 1000000)
        buf_printf(b, "%.3f ns", v / 1e3);
    else if (ps < 1000000000)
        buf_printf(b, "%.3f us", v / 1e6);
    else if (ps < INT64_C(1000000000000))
        buf_printf(b, "%.3f ms", v / 1e9);
    else
        buf_printf(b, "%.3f s", v / 1e12);
}

void info_trace_text(buf *b, const pq_source *src)
{
    const model_slices *m = src->slices;
    if (src->nsys_export)
        nsys_export_text(b, src);
    if (src->info.format == PQ_FORMAT_NSYS_JAX) {
        uint64_t c[NS_N];
        nsys_counts(m, c);
        const char *model = NULL;
        for (uint32_t k = 0; k < m->ntracks && !model; k++)
            model = gpu_model(m, k);
        buf_printf(b, "  nsys-jax: %" PRIu64 " process(es), %" PRIu64 " devices", c[NS_PROCESSES],
                   c[NS_DEVICES]);
        if (c[NS_GPUS])
            buf_printf(b, " (GPU %s%s)", model, c[NS_GPUS] < c[NS_DEVICES] ? ", some unnamed" : "");
        else
            buf_printf(b, " (GPU model not recorded: no device-metadata.parquet)");
        buf_printf(b,
                   ",\n  %" PRIu64 " kernel records, %" PRIu64
                   " GPU-projected NVTX ranges, %" PRIu64 " host NVTX ranges,\n  %" PRIu64
                   " XLA module ranges (%" PRIu64 " modules), %" PRIu64 " thunk ranges\n",
                   c[NS_KERNELS], c[NS_PROJECTED], c[NS_HOST], c[NS_MODULE_RANGES], c[NS_MODULES],
                   c[NS_THUNKS]);
    }
    buf_printf(b, "  %" PRIu64 " trace events, %zu slices on %u tracks", src->trace_events, m->n,
               m->ntracks);
    if (src->display_time_unit[0])
        buf_printf(b, ", displayTimeUnit %s", src->display_time_unit);
    buf_putc(b, '\n');
    if (!src->nsys_export)
        devices_text(b, &src->devices);
    uint32_t n;
    uint32_t *ix = tracks_in_order(m, &n);
    for (uint32_t k = 0; k < n; k++) {
        const slice_track *t = &m->tracks[ix[k]];
        if (k == 0 || m->tracks[ix[k - 1]].pid != t->pid) {
            const char *pn = slices_process_name(m, t->pid);
            buf_printf(b, "\n  process %" PRId64 " ", t->pid);
            json_escape_into(b, pn, strlen(pn));
            buf_putc(b, '\n');
        }
        const char *tn = slices_thread_name(m, t->pid, t->tid);
        buf_printf(b, "    thread %" PRId64 " ", t->tid);
        json_escape_into(b, tn, strlen(tn));
        buf_printf(b, "%s: %" PRIu64 " slices, span ", t->has_kernel ? " (GPU stream)" : "",
                   t->nslices);
        put_duration(b, t->end_ps - t->first_ps);
        buf_putc(b, '\n');
    }
    pq_free(ix);
}
