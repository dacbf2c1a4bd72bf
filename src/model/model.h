/* model.h - the in-memory profile (DESIGN.md section 2; docs/ARCHITECTURE.md).
 *
 * One pq_profile owns its sources; each source owns one arena and its mapped
 * file, its devices with the capabilities the input states (model/devices.h, whatever the
 * format), and what its reader filled in:
 * - an XSpace: planes (each device plane linked to its device) with lines (tracks) and
 *   metadata, the ops the TensorCores' event metadata and the GPU kernels' and XLA:CPU
 *   thunks' stats state (model/ops.h, pq_source.ops),
 *   and the programs (XLA modules) whose HloProtos it carries. Names are views into the
 * mapped file. Events are NOT materialised at load: every line keeps the span of its serialized
 * events, which the loader has fully validated, and analyses walk it with xp_events_next() or ask
 * for the timeline (formats/xplane_events.h fills model_slices through the event interface); this
 * keeps a 1 GB XSpace within 1.2x its size in memory.
 * - an HloProto file: one program.
 * - Chrome trace-event JSON: the timeline itself (model/slices.h: tracks per process and
 *   thread, columnar slices), streamed in at load.
 * - a Tenstorrent runtime log: the per-op memory state (model/opmem.h: the device memory,
 *   DRAM, L1, L1_SMALL, TRACE, before each operation or submit, with the op text), filled by
 *   formats/ttlog*.
 */
#ifndef PQ_MODEL_MODEL_H
#define PQ_MODEL_MODEL_H
#include "core/arena.h"
#include "io/mapfile.h"
#include "model/ops.h"
#include "model/slices.h"
#include "profq.h"

#include <stdint.h>
#include <string.h>

/* XStat value kinds, numbered as XStat's oneof fields are, minus one. */
typedef enum stat_kind {
    STAT_NONE = 0,
    STAT_DOUBLE = 1,
    STAT_UINT64 = 2,
    STAT_INT64 = 3,
    STAT_STR = 4,
    STAT_BYTES = 5,
    STAT_REF = 6
} stat_kind;

typedef struct stat_value {
    int64_t metadata_id;
    stat_kind kind;
    union {
        double d;
        uint64_t u;
        int64_t i;
        pq_str s; /* STR and BYTES */
    } v;
} stat_value;

typedef struct xp_stat_meta {
    int64_t id;
    pq_str name;
    pq_str description;
} xp_stat_meta;

typedef struct xp_event_meta {
    int64_t id;
    pq_str name;
    pq_str display_name;
    pq_str metadata;     /* raw bytes of XEventMetadata.metadata */
    const uint8_t *body; /* the serialized XEventMetadata, for stat walks */
    size_t body_len;
    uint32_t nstats;
    uint32_t nchildren;
} xp_event_meta;

typedef struct xp_line {
    int64_t id, display_id;
    pq_str name, display_name;
    int64_t timestamp_ns, duration_ps;
    const uint8_t *body; /* the serialized XLine (validated) */
    size_t body_len;
    uint64_t events, event_stats;
    int64_t first_ps, end_ps; /* min event start, max event end (absolute ps); 0 when empty */
    /* By event, in line order: the index + 1 of its XLA stats in the plane's xla, 0 when the
     * event is no XLA op; NULL when no event of the line is one (formats/xplane_xla.c). */
    uint32_t *xla;
} xp_line;

/* What the events of a GPU kernel or XLA:CPU thunk plane state of one XLA op (its metadata's
 * stats, then its own): the hlo_op and hlo_module stats, tf_op, the program id (program_id,
 * else the "(N)" of hlo_module, else the HloProto of that module name), flops and
 * bytes_accessed; each distinct set once per plane, and the op it is (formats/xplane_xla.c). */
typedef struct xp_xla_class {
    pq_str hlo_op, module, tf_op;
    uint64_t pid;
    double flops, bytes;
    uint32_t op;    /* index + 1 in the source's ops (pq_source.ops) */
    int pid_stated; /* 0: no program_id; pid from the module's name once programs are known */
} xp_xla_class;

typedef enum device_kind {
    DEV_OTHER = 0,
    DEV_TPU,            /* /device:TPU:N TensorCore */
    DEV_TPU_SPARSECORE, /* /device:TPU:N SparseCore ... */
    DEV_TPU_NONCORE,    /* #Chip ... */
    DEV_GPU,            /* /device:GPU:N */
    DEV_CUSTOM,         /* /device:CUSTOM:... */
    DEV_HOST_THREADS,   /* /host:CPU */
    DEV_HOST_METADATA,  /* /host:metadata */
    DEV_HOST_OTHER      /* other /host:... planes (CUPTI, python tracer, ...) */
} device_kind;

const char *device_kind_name(device_kind k);
device_kind device_kind_of_plane(pq_str name);

typedef struct xp_plane {
    int64_t id;
    pq_str name;
    device_kind kind;
    xp_line *lines;
    uint32_t nlines;
    xp_event_meta *emeta; /* sorted by id, unique (last map entry wins) */
    uint32_t nemeta;
    xp_stat_meta *smeta; /* sorted by id, unique */
    uint32_t nsmeta;
    uint32_t *smeta_dense; /* index by id when ids are small and dense, else NULL */
    int64_t smeta_dense_n;
    uint32_t *smeta_name_len; /* with smeta_dense: name length by id (0 = unknown id) */
    uint32_t *emeta_dense;
    int64_t emeta_dense_n;
    /* By emeta index: the index + 1 in the source's ops (pq_source.ops) of the op that entry
     * states, 0 when it states none; NULL when the plane states no op (formats/xplane_ops.c). */
    uint32_t *emeta_op;
    /* GPU kernel and XLA:CPU thunk planes: the XLA stats their events state (xp_line.xla
     * indexes them; formats/xplane_xla.c); NULL otherwise. */
    xp_xla_class *xla;
    uint32_t nxla;
    stat_value *stats; /* plane stats in file order */
    uint32_t nstats;
    int32_t device; /* index in the source's devices, -1 when the plane is not a device */
    uint64_t events, event_stats, metadata_stats;
} xp_plane;

typedef struct pq_program {
    pq_str name; /* module name: the metadata name without its "(id)" suffix */
    pq_str key;  /* "<name>(<program_id>)" as stored */
    uint64_t program_id;
    const uint8_t *hlo; /* serialized xla.HloProto, decoded on demand */
    size_t hlo_len;
    int legacy_stat_name; /* found under "HLO Proto" (libtpu 0.0.37) */
} pq_program;

/* The activity on a GPU of an Nsight SQLite export (TARGET_INFO_GPU rows, then devices only
 * activity names). What the export states of the GPU itself (name, memory, clock, SMs,
 * compute capability) is its model device: pq_source.devices, the same id. */
typedef struct model_gpu {
    int64_t id;                         /* the deviceId of kernels, memcpys, memsets */
    uint64_t kernels, memcpys, memsets; /* activity on it in the export */
} model_gpu;

/* What an Nsight SQLite export holds beyond its timeline (formats/nsys_sqlite.c). */
typedef struct model_nsys_export {
    model_gpu *gpus; /* TARGET_INFO_GPU rows, then devices only activity names */
    uint32_t ngpus;
    uint64_t kernels, memcpys, memsets, runtime_calls, nvtx_ranges;
    uint64_t projected_ranges;            /* (NVTX range, device) pairs projected onto the GPU */
    uint64_t module_ranges, thunk_ranges; /* projected XLA module / thunk ranges */
} model_nsys_export;

/* An after-optimisation HLO dump of an nsys-jax archive, decompressed by the reader while
 * the push/pop report decodes on its other thread (formats/nsysjax_dumps.c): a cache for
 * analysis/nsys_hlo.c, which reads a dump absent here from the archive as before. */
typedef struct model_nsys_dump {
    char *member;   /* its member name (owned) */
    mapped_file pb; /* the HloProto bytes (owned) */
} model_nsys_dump;

typedef struct pq_source {
    pq_source_info info;
    char *path; /* NUL-terminated copy */
    mapped_file file;
    arena mem;
    model_devices devices; /* every format's devices (model/devices.h; owned) */
    xp_plane *planes;
    uint32_t nplanes;
    pq_str *hostnames;
    uint32_t nhostnames;
    uint32_t nerrors, nwarnings; /* XSpace.errors / warnings recorded by the profiler */
    pq_str *errors, *warnings;
    pq_program *programs; /* sorted by program id; first one wins on collision */
    uint32_t nprograms;
    uint32_t duplicate_programs;
    pq_scan_totals scan; /* filled when pq_open_options.scan asks for a single-pass scan */
    int programs_only;   /* pq_open_options.programs_only: only /host:metadata is read */
    /* pq_open_options.tpu_skip_host_lines: no lines of /host:CPU read beside a TPU plane */
    int tpu_skip_host_lines;
    int skip_thunk_ops; /* pq_open_options.skip_thunk_ops: no XLA:CPU thunk op is read */
    /* Trace-event JSON: the timeline (owned; NULL for other formats), the number of
     * elements of traceEvents (every phase) and displayTimeUnit ("" when absent). */
    model_slices *slices;
    uint64_t trace_events;
    char display_time_unit[16];
    /* Nsight SQLite export: its GPUs and counts (in the arena; NULL for other formats). */
    model_nsys_export *nsys_export;
    /* Tenstorrent runtime log: its per-op device memory state (owned; NULL otherwise). */
    pq_ttlog *ttlog;
    /* nsys-jax archive: 1 when a process was read in the current loader's layout
     * (thread-metadata.parquet or a newer trace.parquet column set), 0 archive era. */
    int nsysjax_newer;
    model_nsys_dump *nsys_dumps; /* owned; NULL when none was decompressed ahead */
    uint32_t nnsys_dumps;
    /* The ops its input states (model/ops.h; owned), filled at load by the reader: an
     * XSpace's TensorCore ops from their event metadata, its GPU kernels' and XLA:CPU thunks'
     * from their stats; a reader-made timeline's from its slices. */
    model_ops ops;
} pq_source;

struct pq_profile {
    pq_source *sources;
    size_t nsources;
};

/* The device plane PL of SRC is (its capabilities as the plane states them), or NULL. */
static inline const model_device *xp_plane_device(const pq_source *src, const xp_plane *pl)
{
    return pl->device >= 0 && (size_t)pl->device < src->devices.dev.n
               ? &src->devices.dev.v[pl->device]
               : NULL;
}

/* Whether plane PL of SRC is a device of KIND ("TPU", "GPU", "CPU", ...: model/devices.h):
 * how analyses choose their planes, by the model's devices rather than plane names. */
static inline int xp_plane_is(const pq_source *src, const xp_plane *pl, const char *kind)
{
    const model_device *v = xp_plane_device(src, pl);
    return v && strcmp(v->kind, kind) == 0;
}

/* Index of ID in a sorted, unique array of STRIDE-byte items that start with their int64
 * id, through the dense table when there is one; UINT32_MAX when absent. */
static inline uint32_t xp_id_index(const uint32_t *dense, int64_t dense_n, const void *items,
                                   uint32_t n, size_t stride, int64_t id)
{
    if (dense)
        return (uint64_t)id < (uint64_t)dense_n ? dense[id] : UINT32_MAX;
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int64_t at;
        memcpy(&at, (const unsigned char *)items + (size_t)mid * stride, sizeof at);
        if (at < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    int64_t found = 0;
    if (lo < n)
        memcpy(&found, (const unsigned char *)items + (size_t)lo * stride, sizeof found);
    return lo < n && found == id ? lo : UINT32_MAX;
}

/* Metadata lookups (NULL when the id is unknown, which XProf treats as empty). Inline:
 * every stat of a scan resolves its name through them. */
static inline const xp_stat_meta *xp_stat_meta_find(const xp_plane *pl, int64_t id)
{
    uint32_t k = xp_id_index(pl->smeta_dense, pl->smeta_dense_n, pl->smeta, pl->nsmeta,
                             sizeof *pl->smeta, id);
    return k == UINT32_MAX ? NULL : &pl->smeta[k];
}

static inline const xp_event_meta *xp_event_meta_find(const xp_plane *pl, int64_t id)
{
    uint32_t k = xp_id_index(pl->emeta_dense, pl->emeta_dense_n, pl->emeta, pl->nemeta,
                             sizeof *pl->emeta, id);
    return k == UINT32_MAX ? NULL : &pl->emeta[k];
}

/* Index of the stat metadata with that name, or NULL. Linear; call once per analysis. */
const xp_stat_meta *xp_stat_meta_by_name(const xp_plane *pl, const char *name);
/* Name of a stat: its metadata's name, or "" for unknown ids. */
pq_str xp_stat_name(const xp_plane *pl, const stat_value *s);
/* String value of a STR or REF stat (REF resolves to the referenced metadata name). */
pq_str xp_stat_str(const xp_plane *pl, const stat_value *s);

/* One event as walked from a validated line (formats/xplane_walk.h has the walkers:
 * xp_events_begin/next, xp_stats_begin/next, xp_decode_stat). */
typedef struct xp_event {
    int64_t metadata_id;
    int64_t offset_ps;
    int64_t num_occurrences;
    int64_t duration_ps;
    const uint8_t *stats; /* first byte of the event body: walk with xp_event_stats_next */
    size_t body_len;
} xp_event;

typedef struct xp_event_iter {
    const uint8_t *p, *end;
} xp_event_iter;

/* Walks the XStat fields (field number FIELD) of a validated message body. */
typedef struct xp_stat_iter {
    const uint8_t *p, *end;
    uint32_t field;
} xp_stat_iter;

static inline pq_str pq_str_of(const char *p, size_t n)
{
    pq_str s = {p, n};
    return s;
}
int pq_str_eq(pq_str a, const char *lit);
int pq_str_starts(pq_str a, const char *lit);

#endif
