/* tools.c - the availability analysis behind `profq tools`: looks for what each analysis
 * needs (HloProtos with buffer assignment, allocator events, device op lines, ...) without
 * decoding more than it must, over all inputs and, with the same rules, for each input
 * alone (which analyses it feeds). Mirrors XProf's tool_names rules (spec 6.2) where they apply. */
#include "tools.h"
#include "analysis/nsys_xplane.h"
#include "core/alloc.h"
#include "core/err.h"
#include "formats/hlo.h"
#include "formats/xplane_walk.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct facts {
    uint64_t xspace_sources, hlo_sources;
    uint64_t programs, programs_with_ba, programs_with_heap_trace;
    uint64_t device_planes, tpu_op_lines, gpu_planes_with_events, host_events;
    uint64_t host_hlo_op_planes; /* host thread planes carrying XLA:CPU hlo_op stats */
    uint64_t alloc_events;
    uint64_t events;
    uint64_t trace_sources, trace_slices, trace_gpu_streams, trace_xla_slices; /* trace JSON */
    uint64_t tt_sources, tt_operations;  /* Tenstorrent runtime logs */
    uint64_t nsys_sources, nsys_modules; /* nsys-jax archives (their thunks: trace_xla_slices) */
    uint64_t nsys_devices;               /* their device tracks */
    uint64_t sqlite_sources, sqlite_modules; /* Nsight SQLite exports (also trace_sources) */
    uint64_t xplane_nsys_devices;            /* GPU planes with XLA kernels (nsys_xplane.h) */
} facts;

/* Counts events on host planes whose metadata is MemoryAllocation/MemoryDeallocation. */
static uint64_t count_alloc_events(const xp_plane *pl)
{
    int64_t ids[8];
    int nids = 0;
    for (uint32_t i = 0; i < pl->nemeta && nids < 8; i++)
        if (pq_str_eq(pl->emeta[i].name, "MemoryAllocation") ||
            pq_str_eq(pl->emeta[i].name, "MemoryDeallocation"))
            ids[nids++] = pl->emeta[i].id;
    if (!nids)
        return 0;
    uint64_t n = 0;
    for (uint32_t li = 0; li < pl->nlines; li++) {
        xp_event_iter it;
        xp_event ev;
        xp_events_begin(&pl->lines[li], &it);
        while (xp_events_next(&it, &ev))
            for (int k = 0; k < nids; k++)
                n += ev.metadata_id == ids[k];
    }
    return n;
}

static void gather(const pq_profile *prof, facts *f)
{
    memset(f, 0, sizeof *f);
    for (size_t si = 0; si < prof->nsources; si++) {
        const pq_source *src = &prof->sources[si];
        f->xspace_sources += src->info.format == PQ_FORMAT_XSPACE;
        f->hlo_sources += src->info.format == PQ_FORMAT_HLO_PROTO;
        if (src->ttlog) {
            pq_ttlog_info ti;
            pq_ttlog_get_info(src->ttlog, &ti);
            f->tt_sources++;
            f->tt_operations += ti.operations;
            continue;
        }
        f->events += src->info.events;
        if (src->slices && src->info.format == PQ_FORMAT_NSYS_JAX) {
            f->nsys_sources++;
            for (uint32_t k = 0; k < src->slices->ntracks; k++)
                f->nsys_devices += src->slices->tracks[k].tid >= 0;
            for (size_t i = 0; i < src->slices->n; i++) {
                f->trace_xla_slices += (src->slices->flags[i] & SLICE_XLA_OP) != 0;
                f->nsys_modules +=
                    src->slices->run_id[i] && !(src->slices->flags[i] & SLICE_XLA_OP);
            }
        } else if (src->slices) {
            if (src->nsys_export) {
                f->sqlite_sources++;
                f->sqlite_modules += src->nsys_export->module_ranges;
            }
            f->trace_sources++;
            f->trace_slices += src->slices->n;
            for (uint32_t k = 0; k < src->slices->ntracks; k++)
                f->trace_gpu_streams += src->slices->tracks[k].has_kernel != 0;
            for (size_t i = 0; i < src->slices->n; i++)
                f->trace_xla_slices += (src->slices->flags[i] & SLICE_XLA_OP) != 0;
        }
        for (uint32_t k = 0; k < src->nprograms; k++) {
            hlo_header h;
            int64_t off;
            const char *what;
            f->programs++;
            if (hlo_read_header(src->programs[k].hlo, src->programs[k].hlo_len, src->file.data, &h,
                                &off, &what)) {
                f->programs_with_ba += h.has_buffer_assignment;
                f->programs_with_heap_trace += h.heap_simulator_traces > 0;
            }
        }
        for (uint32_t pi = 0; pi < src->nplanes; pi++) {
            const xp_plane *pl = &src->planes[pi];
            /* The TPU and GPU devices (model/devices.h) with their planes; the host CPU. */
            const model_device *dev = xp_plane_device(src, pl);
            const char *kind = dev ? dev->kind : "";
            if (!strcmp(kind, "TPU")) {
                f->device_planes++;
                for (uint32_t li = 0; li < pl->nlines; li++)
                    if (pq_str_eq(pl->lines[li].name, "XLA Ops") && pl->lines[li].events)
                        f->tpu_op_lines++;
            } else if (!strcmp(kind, "GPU")) {
                f->device_planes++;
                f->gpu_planes_with_events += pl->events > 0;
            } else if (!strcmp(kind, "CPU")) {
                f->host_events += pl->events;
                f->alloc_events += count_alloc_events(pl);
                f->host_hlo_op_planes += pl->events && xp_stat_meta_by_name(pl, "hlo_op");
            }
        }
    }
    if (f->gpu_planes_with_events)
        f->xplane_nsys_devices = nsys_xplane_devices(prof);
}

static void add(tools_result *r, const char *name, const char *xprof, int available,
                int implemented, const char *fmt, ...) PQ_PRINTF(6, 7);

static void add(tools_result *r, const char *name, const char *xprof, int available,
                int implemented, const char *fmt, ...)
{
    if (r->n >= TOOLS_MAX)
        return;
    tool_verdict *v = &r->items[r->n++];
    v->name = name;
    v->xprof = xprof;
    v->available = available;
    v->implemented = implemented;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->reason, sizeof v->reason, fmt, ap);
    va_end(ap);
}

/* The verdicts of every analysis from the facts F of some inputs. Long because: one rule
 * per analysis, each with its reason, read best top to bottom. */
static void verdicts(const facts *fp, tools_result *out)
{
    facts f = *fp;
    typedef unsigned long long ull;

    add(out, "info", NULL, 1, 1, "always: sources, planes, lines, device capabilities, programs");
    if (f.nsys_sources)
        add(out, "scan", NULL, 1, 1, "%llu NVTX ranges in %llu nsys-jax archive(s) to read",
            (ull)f.events, (ull)f.nsys_sources);
    else if (f.sqlite_sources && f.sqlite_sources == f.trace_sources && !f.xspace_sources)
        add(out, "scan", NULL, 1, 1,
            "%llu kernels, memcpys, memsets, CUDA calls and NVTX ranges in %llu Nsight SQLite "
            "export(s) to read",
            (ull)f.events, (ull)f.sqlite_sources);
    else if (f.xspace_sources && !f.trace_sources)
        add(out, "scan", NULL, 1, 1, "%llu events in %llu XSpace file(s) to decode and check",
            (ull)f.events, (ull)f.xspace_sources);
    else if (f.trace_sources)
        add(out, "scan", NULL, 1, 1,
            "%llu events in %llu XSpace and %llu trace JSON file(s) to decode and check",
            (ull)f.events, (ull)f.xspace_sources, (ull)f.trace_sources);
    else
        add(out, "scan", NULL, 0, 1, "no XSpace among the inputs (%llu HloProto file(s))",
            (ull)f.hlo_sources);

    if (f.programs_with_ba)
        add(out, "memory-viewer", "memory_viewer", 1, 1,
            "%llu of %llu HloProto(s) carry a buffer assignment", (ull)f.programs_with_ba,
            (ull)f.programs);
    else if (f.programs)
        add(out, "memory-viewer", "memory_viewer", 0, 1,
            "%llu HloProto(s) found, none with a buffer assignment", (ull)f.programs);
    else
        add(out, "memory-viewer", "memory_viewer", 0, 1,
            "no HloProto: /host:metadata has no 'Hlo Proto' stat and no *.hlo_proto.pb given");

    if (f.programs_with_ba && f.device_planes)
        add(out, "memory", NULL, 1, 1,
            "buffer assignments for %llu program(s) and %llu device plane(s) to attribute",
            (ull)f.programs_with_ba, (ull)f.device_planes);
    else if (f.programs_with_ba)
        add(out, "memory", NULL, 1, 1,
            "buffer assignments for %llu program(s); no TPU/GPU plane, so one row per source",
            (ull)f.programs_with_ba);
    else
        add(out, "memory", NULL, 0, 1,
            "needs HloProtos with buffer assignment (found %llu of %llu)", (ull)f.programs_with_ba,
            (ull)f.programs);

    if (f.programs_with_heap_trace)
        add(out, "heap", NULL, 1, 1, "%llu HloProto(s) carry heap-simulator traces",
            (ull)f.programs_with_heap_trace);
    else
        add(out, "heap", NULL, 0, 1, "no heap-simulator trace in %llu HloProto(s)",
            (ull)f.programs);

    if (f.alloc_events)
        add(out, "memory-profile", "memory_profile", 1, 1,
            "%llu MemoryAllocation/MemoryDeallocation events on /host:CPU", (ull)f.alloc_events);
    else
        add(out, "memory-profile", "memory_profile", 0, 1,
            "no MemoryAllocation/MemoryDeallocation events on /host:CPU (%llu host events)",
            (ull)f.host_events);

    int has_ops = f.tpu_op_lines || f.gpu_planes_with_events;
    if (f.nsys_sources) {
        add(out, "ops", "hlo_stats, op_profile", 0, 0,
            "nsys-jax archive: thunk ranges without kernels or HLO costs (see nsys)");
        add(out, "roofline", "roofline_model", 0, 0,
            "nsys-jax archive: thunk ranges without kernels or HLO costs (see nsys)");
    } else if (!has_ops && !f.device_planes && !f.host_hlo_op_planes && f.trace_sources) {
        /* Trace JSON: XLA ops (hlo_op args) or Kineto's GPU stream work. */
        int avail = f.trace_xla_slices || f.trace_gpu_streams;
        char why[sizeof out->items[0].reason];
        snprintf(why, sizeof why,
                 "%s: %llu XLA op slices (hlo_op), %llu GPU stream(s) with kernels",
                 f.sqlite_sources == f.trace_sources ? "Nsight SQLite" : "trace JSON",
                 (ull)f.trace_xla_slices, (ull)f.trace_gpu_streams);
        add(out, "ops", "hlo_stats, op_profile", avail, 1, "%s", why);
        add(out, "roofline", "roofline_model", avail, 1, "%s (peaks unknown unless supplied)", why);
    } else if (!has_ops && !f.device_planes && f.host_hlo_op_planes) {
        /* A CPU-only run: XLA:CPU thunks on host threads (an extension; XProf has none). */
        add(out, "ops", "hlo_stats, op_profile", 1, 1,
            "no device planes; XLA:CPU ops on host threads (hlo_op stats) in %llu plane(s)",
            (ull)f.host_hlo_op_planes);
        add(out, "roofline", "roofline_model", 1, 1,
            "no device planes; XLA:CPU ops on host threads (peaks unknown unless supplied)");
    } else {
        /* ops and roofline read the same events: the same verdict and reason */
        char why[sizeof out->items[0].reason];
        if (has_ops)
            snprintf(why, sizeof why, "%llu TPU 'XLA Ops' line(s), %llu GPU plane(s) with kernels",
                     (ull)f.tpu_op_lines, (ull)f.gpu_planes_with_events);
        else
            snprintf(why, sizeof why, "no device op events (%llu device planes, %llu host events)",
                     (ull)f.device_planes, (ull)f.host_events);
        add(out, "ops", "hlo_stats, op_profile", has_ops, 1, "%s", why);
        add(out, "roofline", "roofline_model", has_ops, 1, "%s", why);
    }

    if (f.nsys_sources)
        add(out, "summarize", NULL, 0, 0, "nsys-jax archive: profile_summary.v1 not derived yet");
    else if (f.events)
        add(out, "summarize", NULL, 1, 1, "%llu events to summarize (profile_summary.v1)",
            (ull)f.events);
    else
        add(out, "summarize", NULL, 0, 1, "no trace events in the inputs");

    if (f.events)
        add(out, "export", "trace_viewer", 1, 1, "%llu events to write as Chrome trace JSON",
            (ull)f.events);
    else
        add(out, "export", "trace_viewer", 0, 1, "no trace events in the inputs");

    if (f.tt_sources)
        add(out, "tt", NULL, 1, 1,
            "%llu Tenstorrent runtime log(s) with %llu operations: per-op DRAM/L1 memory",
            (ull)f.tt_sources, (ull)f.tt_operations);
    else
        add(out, "tt", NULL, 0, 1, "needs a Tenstorrent runtime log, not an XSpace or HloProto");
    if (f.nsys_sources)
        add(out, "nsys", NULL, 1, 1,
            "%llu XLA module and %llu thunk ranges on %llu devices in %llu nsys-jax archive(s)",
            (ull)f.nsys_modules, (ull)f.trace_xla_slices, (ull)f.nsys_devices, (ull)f.nsys_sources);
    else if (f.sqlite_sources && f.sqlite_modules)
        add(out, "nsys", NULL, 1, 1,
            "%llu projected XLA module ranges in %llu SQLite export(s): modules, runtime, "
            "variability (no HLO)",
            (ull)f.sqlite_modules, (ull)f.sqlite_sources);
    else if (f.sqlite_sources)
        add(out, "nsys", NULL, 0, 1,
            "needs XLA module ranges (NVTX TSL:XlaModule) projected onto the GPU; the export "
            "has none");
    else if (f.xplane_nsys_devices > 0)
        add(out, "nsys", NULL, 1, 1,
            "%llu XPlane GPU plane(s) with XLA kernels: modules, runtime, opcodes, collectives, "
            "variability",
            (ull)f.xplane_nsys_devices);
    else
        add(out, "nsys", NULL, 0, 0,
            "needs an Nsight Systems SQLite export or an nsys-jax archive");
}

pq_status tools_compute(const pq_profile *prof, tools_result *out, pq_error *err)
{
    facts f;
    gather(prof, &f);
    memset(out, 0, sizeof *out);
    verdicts(&f, out);
    /* Per input: the same rules on that input alone. */
    tools_result *r = pq_malloc(sizeof *r);
    RETURN_ERROR_IF(!r, err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    out->ninputs = prof->nsources;
    for (size_t si = 0; si < prof->nsources && si < TOOLS_MAX_INPUTS; si++) {
        pq_profile one = {&prof->sources[si], 1};
        gather(&one, &f);
        r->n = 0;
        verdicts(&f, r);
        tool_input *in = &out->inputs[si];
        in->path = prof->sources[si].path;
        for (int k = 0; k < r->n; k++)
            if (r->items[k].available && r->items[k].implemented)
                in->feeds[in->nfeeds++] = r->items[k].name;
    }
    pq_free(r);
    return PQ_OK;
}
