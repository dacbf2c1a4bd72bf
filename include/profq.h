/*
 * profq.h - the one public header of libprofq.
 *
 * libprofq reads the profiles that ML accelerator runs leave behind (XLA/JAX
 * XPlane files first; more formats follow) into one in-memory profile and
 * renders analyses of it as deterministic JSON or text.
 *
 * Ownership, stated once: every pointer a pq_ function returns is owned by the
 * pq_profile it came from and lives until pq_profile_free(); the caller frees
 * nothing but the profile itself. Strings are views (pointer + length) and are
 * NOT NUL-terminated unless a comment says so.
 *
 * Errors: every fallible function returns a pq_status and, when the caller
 * passes a pq_error, fills it with the file, the byte offset and what was
 * expected. The library never prints, never exits and never reads the
 * environment.
 */
#ifndef PROFQ_H
#define PROFQ_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every declaration between this push and the pop at the end is the public API and is
 * exported; the library is compiled with -fvisibility=hidden, so nothing else is. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#define PQ_VERSION_STRING "0.1.0"

/* Status codes. Stable values: never renumbered, only appended. */
typedef enum pq_status {
    PQ_OK = 0,
    PQ_ERR_INPUT = 1,       /* malformed or unrecognised input (file, offset, expectation) */
    PQ_ERR_IO = 2,          /* a file could not be opened, mapped or read */
    PQ_ERR_NOMEM = 3,       /* an allocation failed (sticky inside one profile) */
    PQ_ERR_NOT_FOUND = 4,   /* no profile where one was expected, or no such item */
    PQ_ERR_UNSUPPORTED = 5, /* a recognised format profq does not read (yet) */
    PQ_ERR_OUTPUT = 6,      /* the sink refused bytes (closed pipe, full disk) */
    PQ_ERR_USAGE = 7,       /* the caller passed an invalid argument */
    PQ_ERR_INTERNAL = 8     /* a bug in profq */
} pq_status;

/* Returns a static, NUL-terminated name for a status ("input", "io", ...). */
const char *pq_status_name(pq_status status);

/* Where and why an operation failed. offset is -1 when no byte offset applies. */
typedef struct pq_error {
    pq_status status;
    char path[1024];   /* NUL-terminated; empty when no file is involved */
    int64_t offset;    /* byte offset in that file, or -1 */
    char message[512]; /* NUL-terminated: what was expected / what went wrong */
} pq_error;

/* A string view into the input or the profile's arena. Not NUL-terminated. */
typedef struct pq_str {
    const char *p;
    size_t n;
} pq_str;

/* Where rendered output goes. write() returns 0 on success, non-zero when the
 * bytes could not be written; the renderer then stops with PQ_ERR_OUTPUT. */
typedef struct pq_sink {
    int (*write)(void *ctx, const void *data, size_t n);
    void *ctx;
} pq_sink;

/* Input formats profq recognises by content. */
typedef enum pq_format {
    PQ_FORMAT_UNKNOWN = 0,
    PQ_FORMAT_XSPACE = 1,     /* XSpace protobuf, *.xplane.pb */
    PQ_FORMAT_HLO_PROTO = 2,  /* xla.HloProto, *.hlo_proto.pb, *.hlo.pb */
    PQ_FORMAT_TRACE_JSON = 3, /* Chrome trace-event JSON (JAX, PyTorch/Kineto) */
    PQ_FORMAT_TT_LOG = 4,     /* Tenstorrent runtime memory log (tt-mlir / tt-xla) */
    PQ_FORMAT_NSYS_JAX = 5,   /* nsys-jax archive (.zip): projected NVTX ranges, push/pop */
    PQ_FORMAT_NSYS_SQLITE = 6 /* Nsight Systems SQLite export (nsys export --type sqlite) */
} pq_format;

/* Returns a static name: "xspace", "hlo_proto", "trace_json", "tt_log", "nsys_jax",
 * "nsys_sqlite", "unknown". */
const char *pq_format_name(pq_format format);

/* An opaque loaded profile: one or more sources (files), one arena. */
typedef struct pq_profile pq_profile;

/* Totals of a full walk over every event and every stat of every source. */
typedef struct pq_scan_totals {
    uint64_t planes, lines, events, event_stats, metadata_stats, plane_stats;
    uint64_t stats_by_kind[7]; /* 0 none, 1 double, 2 uint64, 3 int64, 4 str, 5 bytes, 6 ref */
    uint64_t bytes;            /* input bytes */
    int64_t checksum;          /* sum of event start_ps + duration_ps + decoded stat values */
} pq_scan_totals;

/* Options for pq_profile_open. Zero-initialise, then set what you need. */
typedef struct pq_open_options {
    int threads;     /* decoder threads for multi-file runs; 0 = one per core */
    int skip_sha256; /* non-zero: do not hash the sources (pq_source_info.sha256 empty) */
    /* Not NULL: decode every stat value during the load, in the same single pass, and
     * store the totals here (what `profq scan` does; they equal pq_profile_scan's). */
    pq_scan_totals *scan;
    /* Non-zero: of an XSpace, read only the /host:metadata plane (the HloProtos of the
     * programs: all that the memory viewer needs). Other planes are skipped unread: their
     * framing is checked, their content is neither decoded nor validated. */
    int programs_only;
    /* Non-zero: of an XSpace with a TPU TensorCore plane (/device:TPU:N), the host threads'
     * plane (/host:CPU) keeps its metadata and stats but its lines are skipped unread (their
     * framing is checked, their events neither decoded nor validated): XProf's hlo_stats and
     * op_profile of a TPU read only device planes. What `profq ops --format xprof` uses. */
    int tpu_skip_host_lines;
    /* Non-zero: a trace-event JSON source (.json, .json.gz) is read from its file in chunks
     * instead of mapped, and its sha256 (unless skipped) by a second thread that reads the
     * file beside the parse: memory is the timeline's columns, not the file. Such a source
     * keeps no bytes (pq_profile_scan counts 0 bytes for it). What `profq summarize` uses. */
    int stream_traces;
} pq_open_options;

/*
 * Loads PATHS (files or run directories; a directory is searched for
 * *.xplane.pb, recursively through plugins/profile/<ts>/) into one profile.
 * Each file becomes one source; files are decoded in parallel threads.
 * Every protobuf structure is decoded and bounds-checked at load, except
 * HloProto bytes, which are only located (decoded on demand by analyses).
 * On success *out owns everything and must be freed with pq_profile_free.
 * On failure *out is NULL and err (if not NULL) says what and where.
 */
pq_status pq_profile_open(const char *const *paths, size_t npaths, const pq_open_options *opts,
                          pq_profile **out, pq_error *err);

/*
 * Loads one in-memory buffer (DATA, N bytes) as a profile with one source named NAME
 * (used for format detection by suffix and in error messages). The bytes are copied
 * (into a padded buffer, see io/mapfile.h). OPTS may be NULL; threads are not used.
 * For fuzzers and embedders.
 */
pq_status pq_profile_open_memory(const void *data, size_t n, const char *name,
                                 const pq_open_options *opts, pq_profile **out, pq_error *err);

/* Frees the profile and everything it owns. NULL is allowed. */
void pq_profile_free(pq_profile *profile);

/* Facts about one source file, valid while the profile lives. */
typedef struct pq_source_info {
    pq_str path; /* as given or found in a run directory */
    pq_format format;
    pq_str host; /* XSpace hostnames[0], else the file name minus .xplane.pb */
    uint64_t size_bytes;
    char sha256[65]; /* lowercase hex, NUL-terminated; "" when skipped */
    uint32_t planes;
    uint64_t events; /* XEvents in all lines of all planes */
    uint64_t stats;  /* XStats on events, event metadata and planes */
} pq_source_info;

/* Number of sources; source I in [0, count). Returns NULL when out of range. */
size_t pq_profile_source_count(const pq_profile *profile);
const pq_source_info *pq_profile_source(const pq_profile *profile, size_t i);

/*
 * Walks every event and every stat of a loaded profile again and decodes each value
 * (ref values resolved to the referenced stat name): what an analysis pass over all
 * events costs. pq_profile_open already validated the structure. The totals equal
 * those of the single-pass pq_open_options.scan.
 */
pq_status pq_profile_scan(const pq_profile *profile, pq_scan_totals *out, pq_error *err);

/* Output formats of the renderers. */
typedef enum pq_output {
    PQ_OUT_TEXT = 0,
    PQ_OUT_JSON = 1,
    PQ_OUT_XPROF = 2, /* a peer's own JSON, field for field (memory viewer: XProf's) */
    PQ_OUT_TSV = 3,
    PQ_OUT_MD = 4,
    PQ_OUT_SVG = 5
} pq_output;

/*
 * Renders what the profile contains (schema "profq.info.v1" in JSON): per
 * source, its planes with device kind, lines with event counts and time spans,
 * device capabilities the input states, and programs (HloProtos located).
 * Deterministic: the same input gives byte-identical output.
 */
pq_status pq_render_info(const pq_profile *profile, pq_output fmt, pq_sink *sink, pq_error *err);

/*
 * Renders which analyses will produce data for this profile and why the
 * others will not (schema "profq.tools.v1" in JSON).
 */
pq_status pq_render_tools(const pq_profile *profile, pq_output fmt, pq_sink *sink, pq_error *err);

/* ---- nsys-jax (issue 12) ----
 * The nsys-jax loader's tables of the nsys-jax sources of PROFILE: SECTIONS is a mask of
 * PQ_NSYS_* (0: all). Text, or JSON with schema "profq.nsys.v1": frames.{all,steady,init}.
 * {module_rows,thunk_rows}, modules[] {program_id (string), name, rows, total_ms, share,
 * thunks_mean, thunks_std, wait_share} of the steady frame and top_module_ids[]; the
 * communication sections (render/nsys_comm.h): frames.*.communication_rows, alignment,
 * runtime, thunks[], opcodes[], collectives[], variability, bias[]; compile_rows in frames.*
 * and compile.{total_s, passes[] {name, non_child_s, child_s, share}} (the notebook's
 * compile summary, the passes covering 97% of non-child time); heap.modules[] (heap-simulator
 * usage of the top modules); flame (folded stacks by source and op_name). PQ_OUT_SVG: bus
 * bandwidth vs message size of the collectives, or the flame graphs. PQ_ERR_INPUT when no
 * source is an nsys-jax archive. */
enum {
    PQ_NSYS_MODULES = 1,
    PQ_NSYS_COMPILE = 2,
    PQ_NSYS_RUNTIME = 4, /* also alignment.corrections_ns, runtime.*, thunks[] */
    PQ_NSYS_OPCODES = 8,
    PQ_NSYS_COLLECTIVES = 16, /* collectives[], collective_sizes[], collective_instances[] */
    PQ_NSYS_VARIABILITY = 32,
    PQ_NSYS_BIAS = 64,
    PQ_NSYS_HEAP = 128,
    PQ_NSYS_FLAME = 256,
    /* Not sections: the warm-up rule. Neither: each archive's era's loader (HEAD's when
     * every nsys-jax source has the newer layout, else the archive-era loader's). */
    PQ_NSYS_WARMUP_HEAD = 1 << 16,   /* the HEAD loader's warm-up rule */
    PQ_NSYS_WARMUP_ARCHIVE = 1 << 17 /* the archive-era loader's warm-up rule */
};

/*
 * compute -> render -> free, as the memory analyses (ownership as stated there: the result
 * is the caller's, released with pq_nsys_free before pq_profile_free, since names borrow
 * from the profile; read-only; rendered any number of times with the same bytes).
 * pq_nsys_compute runs the analyses the sections need: on an nsys-jax archive the module
 * table, the communication analyses (always: they give the modules' wait_share), and
 * compile, heap and flame when asked for; on an Nsight SQLite export with XLA ranges the
 * same but compile, heap and flame; on a JAX XPlane GPU profile (XSpace sources, no nsys-jax
 * source) the module table and communication analyses (every execution steady; thunks
 * classified from the XSpace's HloProtos), not bias, compile, heap or flame.
 * pq_nsys_result states the figures a program reads; the rest (thunk totals, opcodes,
 * collective sizes and instances, variability, bias, heap traces, flame stacks) stays in
 * the opaque detail, formatted by pq_nsys_render.
 */
typedef struct pq_nsys_options {
    unsigned sections;   /* PQ_NSYS_* mask (0: all sections), at most one PQ_NSYS_WARMUP_* bit */
    pq_output render_as; /* the format the result is for, when known: PQ_OUT_SVG of the flame
                          * graphs of an XPlane or SQLite export is refused here, before
                          * computing (they have none) */
} pq_nsys_options;

enum { PQ_NSYS_ALL = 0, PQ_NSYS_STEADY = 1, PQ_NSYS_INIT = 2, PQ_NSYS_NFRAMES = 3 };

/* Row counts of one frame (all, steady state, initialisation) of the loader's tables. */
typedef struct pq_nsys_frame {
    uint64_t module_rows, thunk_rows;
    uint64_t communication_rows; /* 0 without HLO (an SQLite export) */
    uint64_t compile_rows;       /* when the compile section was computed (else 0) */
} pq_nsys_frame;

/* One row of the steady module table (JSON modules[]). */
typedef struct pq_nsys_module {
    int64_t program_id; /* -1: the range named none (autotuning) */
    const char *name;   /* hlo_module, NUL-terminated */
    uint64_t rows;      /* steady module rows: executions x devices */
    int64_t total_ns;   /* sum of the rows' projected durations */
    double total_ms, share;
    double thunks_mean, thunks_std; /* thunks per execution; std with n - 1, NaN for one row */
    double wait_share;              /* launch wait / total; NaN without communication */
} pq_nsys_module;

/* One collective kind of the steady frame (JSON collectives[]). */
typedef struct pq_nsys_collective {
    const char *collective; /* "all-gather", ..., "device-to-host", NUL-terminated, static */
    uint64_t rows, instances;
    double busbw_mean_gbps, busbw_median_gbps, busbw_max_gbps;
    double wait_mean_ms, wait_median_ms, wait_max_ms;
} pq_nsys_collective;

/* One compilation pass of the notebook's summary (JSON compile.passes[]). */
typedef struct pq_nsys_compile_pass {
    const char *name; /* NUL-terminated */
    double non_child_s, child_s, share;
} pq_nsys_compile_pass;

typedef struct pq_nsys_detail pq_nsys_detail;

typedef struct pq_nsys_result {
    int xplane;        /* 1: computed from a JAX XPlane GPU profile (no bias/compile/heap/flame) */
    unsigned sections; /* pq_nsys_options.sections as asked */
    int warmup_head;   /* archive: the HEAD loader's warm-up rule was applied */
    int all_steady;    /* HEAD rule: a kind without steady rows was taken as steady whole */
    size_t sources, devices;
    size_t compiled_programs; /* programs whose compilation the push/pop report shows */
    pq_nsys_frame frames[PQ_NSYS_NFRAMES];
    const pq_nsys_module *modules; /* by total_ns descending, then program id */
    size_t nmodules;
    size_t ntop;              /* modules[0..ntop): the top module ids (99% of the time) */
    int64_t modules_total_ns; /* steady modules */
    /* Archive only: the runtime of the top modules (steady), JSON runtime.*. */
    int has_runtime;
    double thunks_ms, modules_ms, wall_ms, idle_in_modules_ms, idle_between_modules_ms;
    double comm_hidden_ms, comm_exposed_ms;
    int aligned;                  /* 1: devices' clocks aligned on a collective */
    const double *corrections_ns; /* per device (ndevices), subtracted from starts */
    uint32_t ndevices;
    const pq_nsys_collective *collectives; /* per kind */
    size_t ncollectives;
    /* When the compile section was computed: */
    int has_compile;
    double compile_total_s;
    const pq_nsys_compile_pass *passes; /* by non-child time descending */
    size_t npasses, ntop_passes;        /* passes[0..ntop_passes): 97% of the time */
    const pq_nsys_detail *detail;
} pq_nsys_result;

/* Errors: PQ_ERR_INPUT when no source is an nsys-jax archive, an Nsight SQLite export with
 * XLA module ranges or an XPlane GPU profile, or only sections the input cannot give are
 * asked for (XPlane: bias, compile, heap, flame; SQLite: compile, heap, flame); a corrupt HLO dump
 * (PQ_ERR_INPUT with member and offset); PQ_ERR_NOMEM. OPTS may be NULL (every section). */
pq_status pq_nsys_compute(const pq_profile *profile, const pq_nsys_options *opts,
                          pq_nsys_result **out, pq_error *err);
/* The sections the result was computed for, in FMT (PQ_OUT_TEXT, PQ_OUT_JSON, PQ_OUT_SVG). */
pq_status pq_nsys_render(const pq_nsys_result *result, pq_output fmt, pq_sink *sink, pq_error *err);
void pq_nsys_free(pq_nsys_result *result);
/* compute + render + free in one call. */
pq_status pq_render_nsys(const pq_profile *profile, unsigned sections, pq_output fmt, pq_sink *sink,
                         pq_error *err);

/* Renders scan totals (schema "profq.scan.v1" in JSON). */
pq_status pq_render_scan(const pq_profile *profile, const pq_scan_totals *totals, pq_output fmt,
                         pq_sink *sink, pq_error *err);

/*
 * ---- Memory analyses: compute -> render -> free ----
 *
 * Each memory analysis is a pq_<analysis>_compute that returns a result struct, a
 * pq_<analysis>_render that only formats it, and a pq_<analysis>_free. The pq_render_*
 * functions below them are compute + render + free in one call (what the CLI uses).
 *
 * Ownership, stated once for this section: a result is allocated by its compute function
 * and owned by the caller, who releases it with the matching free function (NULL is
 * accepted). A result borrows from the profile it was computed from (source paths, module
 * names, the mapped HloProto bytes): free every result BEFORE pq_profile_free. Results are
 * read-only; rendering one result several times gives the same bytes. Strings marked
 * "NUL-terminated" are; pq_str views are not.
 */

/* A module (HloProto) of a profile, as the memory commands name it. */
typedef struct pq_memory_module {
    const char *key; /* "<name>(<program id>)", NUL-terminated */
    pq_str name;     /* the HloModule name */
    uint64_t program_id;
    const char *source;           /* path of the source holding it, NUL-terminated */
    const int64_t *memory_spaces; /* buffer colors present, ascending (memory-viewer's list) */
    uint32_t nmemory_spaces;
} pq_memory_module;

/*
 * Memory viewer (XProf's memory_viewer, computed exactly; README "memory-viewer").
 * module: "<name>(<program id>)" or a bare module name that is unique; program_id: an XLA
 * program id, else (as XProf) a substring of "<name>(<id>)" - first match in source and
 * program-id order. Both NULL/empty: lists the modules with their program ids and memory
 * spaces instead. memory_space: the buffer color (0 = device HBM).
 * PQ_OUT_XPROF writes XProf's PreprocessResult JSON (proto3 JSON: fields at default
 * omitted, int64 as strings); PQ_OUT_JSON wraps it in schema profq.memory_viewer.v1;
 * PQ_OUT_TEXT prints a summary. The HloProto is decoded by compute, not at load.
 * Errors: PQ_ERR_NOT_FOUND (no such module), PQ_ERR_USAGE (ambiguous name), PQ_ERR_INPUT
 * (a malformed HloProto, with its byte offset, or a module XProf refuses too).
 */
typedef struct pq_memviewer_options {
    const char *module;
    const char *program_id;
    int64_t memory_space;
    int wide; /* text: whole names, lines wider than 120 columns allowed */
} pq_memviewer_options;

/* The full PreprocessResult data (every buffer, span, block and heap object) stays opaque:
 * it points into the decoded HloProto (instructions, shapes, allocations), whose types are
 * the decoder's own and would freeze the decoder's layout if made public. The figures a
 * program reads are copied into pq_memory_viewer_result; the XProf JSON is rendered from
 * the detail by pq_memory_viewer_render. */
typedef struct pq_memviewer_detail pq_memviewer_detail;

typedef struct pq_memory_viewer_result {
    int is_list;               /* 1: no module was asked for; only modules[] is filled */
    pq_memory_module *modules; /* is_list: every module, in source and program-id order */
    uint32_t nmodules;
    /* The chosen module (is_list == 0). */
    pq_memory_module module; /* memory_spaces not filled */
    int64_t memory_space;
    int64_t peak_heap_bytes;     /* the strict peak of the replayed trace */
    int64_t peak_unpadded_bytes; /* unpadded sizes at that peak */
    int64_t peak_position;       /* heap-simulator event index of the peak */
    int64_t indefinite_bytes;    /* largest buffer of each indefinite allocation: XProf adds
                                  * it to every heap size (peakHeapMib = (peak_heap_bytes +
                                  * indefinite_bytes) / 2^20) */
    int64_t entry_params_bytes, non_reusable_bytes, maybe_live_out_bytes;
    int64_t total_allocation_bytes, indefinite_allocation_bytes;
    uint32_t ntimeline;        /* heap_bytes points: events + 1, or 0 when no trace */
    const int64_t *heap_bytes; /* before each event, without indefinite_bytes */
    const pq_memviewer_detail *detail;
} pq_memory_viewer_result;

pq_status pq_memory_viewer_compute(const pq_profile *profile, const pq_memviewer_options *opts,
                                   pq_memory_viewer_result **out, pq_error *err);
/* As pq_memory_viewer_render, with the options' text settings (wide; OPTS may be NULL). */
pq_status pq_memory_viewer_render_ex(const pq_memory_viewer_result *result,
                                     const pq_memviewer_options *opts, pq_output fmt, pq_sink *sink,
                                     pq_error *err);
pq_status pq_memory_viewer_render(const pq_memory_viewer_result *result, pq_output fmt,
                                  pq_sink *sink, pq_error *err);
void pq_memory_viewer_free(pq_memory_viewer_result *result);
pq_status pq_render_memory_viewer(const pq_profile *profile, const pq_memviewer_options *opts,
                                  pq_output fmt, pq_sink *sink, pq_error *err);

/*
 * Memory attribution (`profq memory`, README "memory"): for every source and every TPU/GPU
 * device plane, the memory viewer of the module the device ran (the largest peak among
 * those whose "<name>(<id>)" starts with module_prefix, NULL = any), its maxHeapBySize rows
 * classified into buckets by rules (rules_text in the README's rules-file format, tried
 * before the seed's default rules; NULL = defaults only; rules_path names it in errors),
 * gradient hits, three sanity checks, and min/avg/max across rows. Text (GiB table),
 * PQ_OUT_TSV, PQ_OUT_MD or PQ_OUT_JSON (schema profq.memory.v1).
 * Errors: PQ_ERR_NOT_FOUND when module_prefix is given and no device's module matches it
 * (as memory-viewer and heap), PQ_ERR_INPUT (a bad rules text, a malformed HloProto).
 */
typedef struct pq_memory_options {
    const char *module_prefix;
    int64_t memory_space;
    const char *rules_text;
    const char *rules_path;
    int wide; /* text: whole host names, lines wider than 120 columns allowed */
} pq_memory_options;

enum {
    PQ_MEMORY_MAX_BUCKETS = 32,
    PQ_MEMORY_MAX_GROUPS = 8,
    PQ_MEMORY_MAX_FIGURES = PQ_MEMORY_MAX_BUCKETS + 3 /* peak, entry params, buckets, grads */
};

/* One row: one device of one source (or "(all)" for a source without device planes). */
typedef struct pq_memory_row {
    const char *host, *device; /* NUL-terminated */
    int ran_nothing;           /* 1: the device's plane holds no event (it ran nothing): module
                                * is "", every figure 0, and the row is in no aggregate */
    const char *module;        /* "<name>(<program id>)", NUL-terminated */
    uint64_t program_id;
    int64_t peak_bytes, entry_params_bytes;
    int ngroups; /* peak bytes per memory-viewer group ("Parameter", "Temporary", ...) */
    const char *group_names[PQ_MEMORY_MAX_GROUPS];
    int64_t group_bytes[PQ_MEMORY_MAX_GROUPS];
    int64_t bucket_bytes[PQ_MEMORY_MAX_BUCKETS]; /* indexed like pq_memory_result.bucket_names */
    int64_t gradient_hits;
    int64_t parameter_rows_bytes;
    int64_t check_delta[3]; /* the three checks, named by pq_memory_check_name(i) */
    int check_ok[3];
} pq_memory_row;

/* min, average and max of one figure over the rows (all 0 without rows). */
typedef struct pq_memory_stat {
    int64_t min;
    double avg;
    int64_t max;
} pq_memory_stat;

typedef struct pq_memory_result {
    pq_memory_row *rows; /* devices in plane order, those that ran nothing included */
    int nrows;
    int nidle;                                       /* rows with ran_nothing */
    const char *bucket_names[PQ_MEMORY_MAX_BUCKETS]; /* NUL-terminated: rules' buckets first */
    int nbuckets;
    /* Figures: peak_bytes, entry_params_bytes, one per bucket, gradient_hits. */
    int nfigures;
    const char *figure_names[PQ_MEMORY_MAX_FIGURES]; /* JSON names: "peak_bytes", ... */
    pq_memory_stat aggregate[PQ_MEMORY_MAX_FIGURES]; /* over rows that ran something */
} pq_memory_result;

/* "groups_sum_to_peak", "parameter_rows_match_entry_params", "buckets_sum_to_parameter_rows"
 * for I = 0, 1, 2 (NULL otherwise). */
const char *pq_memory_check_name(int i);
/* Figure F of ROW (F < result->nfigures), in bytes (gradient_hits: a count). */
int64_t pq_memory_figure(const pq_memory_result *result, const pq_memory_row *row, int f);

pq_status pq_memory_compute(const pq_profile *profile, const pq_memory_options *opts,
                            pq_memory_result **out, pq_error *err);
/* As pq_memory_render, with the options' text settings (wide; OPTS may be NULL). */
pq_status pq_memory_render_ex(const pq_memory_result *result, const pq_memory_options *opts,
                              pq_output fmt, pq_sink *sink, pq_error *err);
pq_status pq_memory_render(const pq_memory_result *result, pq_output fmt, pq_sink *sink,
                           pq_error *err);
void pq_memory_free(pq_memory_result *result);
pq_status pq_render_memory(const pq_profile *profile, const pq_memory_options *opts, pq_output fmt,
                           pq_sink *sink, pq_error *err);

/*
 * Heap usage over program order (`profq heap`, README "heap"): every heap-simulator trace
 * with events of every module whose "<name>(<id>)" starts with module (NULL = all) replayed
 * with ALLOC, FREE and SHARE_WITH (shared memory counted once); per trace the usage before
 * each event, the peak and where it happens. Text, PQ_OUT_TSV (one line per point), PQ_OUT_JSON
 * (schema profq.heap.v1) or PQ_OUT_SVG (a line chart, one line per module).
 * Errors: PQ_ERR_NOT_FOUND when module is given and no module with traces matches it.
 */
typedef struct pq_heap_trace {
    uint32_t index;      /* position in buffer_assignment.heap_simulator_traces */
    uint32_t nevents;    /* usage has nevents + 1 points: before each event, and the end */
    int64_t *usage;      /* bytes */
    pq_str *instruction; /* instruction of event i ("" for the end point) */
    int64_t peak_bytes;
    uint32_t peak_position; /* first event after which usage equals the peak */
    int64_t color;          /* memory space of the first event's buffer (-1 when unknown) */
    uint32_t unknown_buffers;
} pq_heap_trace;

typedef struct pq_heap_module {
    pq_memory_module module; /* memory_spaces not filled */
    pq_heap_trace *traces;
    uint32_t ntraces;
    int64_t peak_bytes; /* the largest trace peak */
    uint32_t top_trace; /* index in traces of the first trace with that peak (the chart's) */
} pq_heap_module;

typedef struct pq_heap_result {
    pq_heap_module *modules; /* modules with at least one trace, source and program order */
    uint32_t nmodules;
} pq_heap_result;

pq_status pq_heap_compute(const pq_profile *profile, const char *module, pq_heap_result **out,
                          pq_error *err);
pq_status pq_heap_render(const pq_heap_result *result, pq_output fmt, pq_sink *sink, pq_error *err);
void pq_heap_free(pq_heap_result *result);
pq_status pq_render_heap(const pq_profile *profile, const char *module, pq_output fmt,
                         pq_sink *sink, pq_error *err);

/*
 * XProf's memory_profile (`profq memory-profile`, README): per allocator the snapshots of
 * the MemoryAllocation/MemoryDeallocation events on /host:CPU, peak stats, active
 * allocations at the peak, the sampled timeline (at most 1000 points), and the XLA
 * modules of the TPU planes. PQ_OUT_XPROF prints XProf's JSON (every field, int64 as
 * strings; nothing when there is no /host:CPU plane; exactly one source, else
 * PQ_ERR_USAGE); PQ_OUT_JSON wraps one per source (schema profq.memory_profile.v1); text
 * summarises. The structs follow XProf's MemoryProfile proto field for field.
 */
typedef struct pq_memprofile_stats {
    int64_t stack_reserved, heap_allocated, free_memory, peak_bytes_in_use;
    double fragmentation;
} pq_memprofile_stats;

typedef struct pq_memprofile_snapshot {
    int64_t time_ps;
    pq_memprofile_stats s;
    int activity; /* 1 ALLOCATION, 2 DEALLOCATION */
    int64_t requested, allocation, step_id;
    uint64_t address;
    pq_str tf_op, region_type, tensor_shape;
    int64_t data_type;
    const char *data_type_name; /* overrides data_type when set ("INVALID" for specials) */
} pq_memprofile_snapshot;

typedef struct pq_memprofile_active {
    int64_t snapshot_index, special_index, occurrences;
} pq_memprofile_active;

typedef struct pq_memprofile_allocator {
    const char *id;                /* memory id, NUL-terminated */
    pq_memprofile_snapshot *snaps; /* compacted: those referenced by active allocations */
    uint32_t nsnaps;
    pq_memprofile_snapshot *sampled;
    uint32_t nsampled;
    pq_memprofile_snapshot *special;
    uint32_t nspecial;
    pq_memprofile_active *active;
    uint32_t nactive;
    int64_t peak_lifetime, peak_time_ps, capacity;
    pq_memprofile_stats peak;
} pq_memprofile_allocator;

typedef struct pq_memprofile_module {
    pq_str name, plane;
    int64_t start_ps, end_ps, id;
} pq_memprofile_module;

/* One source's memory profile. */
typedef struct pq_memprofile_source {
    const char *path; /* NUL-terminated */
    pq_str host;
    int has_cpu_plane;
    pq_memprofile_allocator *allocators; /* sorted by id (string order) */
    uint32_t nallocators;
    pq_memprofile_module *modules;
    uint32_t nmodules;
} pq_memprofile_source;

typedef struct pq_memory_profile_result {
    pq_memprofile_source *sources; /* one per source of the profile, in order */
    size_t nsources;
} pq_memory_profile_result;

pq_status pq_memory_profile_compute(const pq_profile *profile, pq_memory_profile_result **out,
                                    pq_error *err);
pq_status pq_memory_profile_render(const pq_memory_profile_result *result, pq_output fmt,
                                   pq_sink *sink, pq_error *err);
void pq_memory_profile_free(pq_memory_profile_result *result);
pq_status pq_render_memory_profile(const pq_profile *profile, pq_output fmt, pq_sink *sink,
                                   pq_error *err);

/*
 * profile_summary.v1 (the seed "Agent-Driven Profiling" summary; spec/seed-tools.md 1).
 *
 * PATH is a Chrome trace-event JSON file (.json or .json.gz: JAX perfetto_trace.json.gz,
 * *.trace.json.gz, PyTorch/Kineto), an XSpace (*.xplane.pb), or a jax_profile artifact
 * directory: exactly one *.xplane.pb under it is read as an XPlane; otherwise the files of
 * the first of perfetto_trace.json.gz, *.trace.json.gz, *.trace.json (and, with no XPlane,
 * *.json.gz, *.json) found at any depth (sorted) are read: one file gives its summary,
 * several (the ranks or hosts of a job) give profq.summary_set.v1 (one summary per file,
 * each the file's own, and a cross-source table of step times with the slowest source);
 * a directory with several XPlanes and no trace JSON is read as one multi-host XPlane run.
 * The trace is streamed (no DOM, no event cap).
 * The document is written to SINK as Python's json.dumps(indent=2, sort_keys=True) would
 * write it, plus a newline; the same input and options give the same bytes.
 * Errors: PQ_ERR_INPUT (malformed, with offset: in the uncompressed JSON for .gz),
 * PQ_ERR_UNSUPPORTED (JSON that is not trace events: what it is), PQ_ERR_NOT_FOUND.
 */
typedef struct pq_summary_options {
    int warmup_steps;     /* steps numbered below this are warm-up (seed default 5) */
    int hot_op_limit;     /* hot_ops rows (seed default 25) */
    int global_breakdown; /* 0: exclusive_per_track (default), 1: exclusive_global */
    /* generated_at_utc, NUL-terminated (e.g. "2024-01-01T00:00:00Z"); the library never
     * reads the clock or the environment, the caller decides (SOURCE_DATE_EPOCH). */
    const char *generated_at_utc;
    /* run_metadata the caller knows (a W&B download); NULL: null. */
    const char *run_path, *run_id, *artifact_ref, *artifact_name;
} pq_summary_options;

pq_status pq_summarize(const char *path, const pq_summary_options *opts, pq_sink *sink,
                       pq_error *err);

/*
 * profile_summary.v1 results: the sections as the analysis computes them, before any
 * rendering (issue 11, Deliver 3; spec/seed-tools.md 1). Times are in the trace's units
 * (µs, as the document reports them). A double that is NaN and a string that is NULL
 * stand for the document's null. Rows are in the document's order; every string and row
 * belongs to the result and lives as long as it. The renderer writes them as the
 * document's bytes.
 */
enum {
    PQ_SM_COMPUTE,
    PQ_SM_COMMUNICATION,
    PQ_SM_HOST,
    PQ_SM_STALL,
    PQ_SM_OTHER,
    PQ_SM_NCATEGORIES
};

/* run_metadata: what the caller knew (a W&B download); the document's other keys
 * (hardware_type, mesh_or_topology, git_sha, config_hash, num_devices, num_hosts) are null. */
typedef struct pq_sm_run_metadata {
    const char *run_path, *run_id, *artifact_ref, *artifact_name; /* NULL: null */
} pq_sm_run_metadata;

/* trace_overview (1.17, 1.19). */
typedef struct pq_sm_overview {
    const char *display_time_unit; /* NULL: null */
    uint64_t num_events_total, num_complete_events, num_processes, num_threads;
    double profile_start_ts, profile_end_ts; /* absolute, trace units; NaN: no events */
    const char *duration_basis;
    int suspected_truncation; /* exactly 1,000,000 complete events */
    const char *const *quality_warnings;
    size_t nquality_warnings;
} pq_sm_overview;

/* trace_provenance: the file's hash, top-20 run ids and source hints, most common first. */
typedef struct pq_sm_provenance {
    const char *trace_sha256; /* NULL: null */
    const char *const *run_ids;
    size_t nrun_ids;
    const char *const *source_file_hints;
    size_t nsource_file_hints;
} pq_sm_provenance;

/* Statistics of step durations; NaN for all but count when count is 0. */
typedef struct pq_sm_duration_stats {
    uint64_t count;
    double mean, median, p90, min, max;
} pq_sm_duration_stats;

/* A class of steady-state steps (1.8): "typical", or "light" and "heavy". */
typedef struct pq_sm_step_class {
    const char *name;
    uint64_t count;
    double fraction_of_steady;
    pq_sm_duration_stats duration_stats;
    int64_t representative_step; /* the step closest to the class median */
    double representative_duration;
    int64_t periodicity; /* heavy: most common step distance (> 1); 0: null */
} pq_sm_step_class;

/* step_time (1.8). */
typedef struct pq_sm_step_time {
    int64_t warmup_steps_ignored;
    pq_sm_duration_stats all_steps, steady_state_steps;
    const pq_sm_step_class *classes;
    size_t nclasses;
    /* every step, warm-up included, by number ascending, and its duration (the HTML report's
     * step chart; not in the document) */
    const int64_t *step_numbers;
    const double *step_durations;
    size_t nsteps;
} pq_sm_step_time;

/* time_breakdown (1.7): the categories' time and share of total_duration. */
typedef struct pq_sm_breakdown {
    const char *duration_basis; /* "exclusive_duration_per_track" | "..._global_timeline" */
    double total_duration;
    double category_total[PQ_SM_NCATEGORIES];
    double category_share[PQ_SM_NCATEGORIES];
} pq_sm_breakdown;

/* hot_ops (1.9, 1.10): one device op name, by exclusive time. */
typedef struct pq_sm_hot_op {
    const char *name, *canonical_name;
    const char *category; /* "compute" | "communication" | "stall" */
    uint64_t count;
    double total_duration, exclusive_duration, avg_duration;
    const char *shape_signature, *source_file, *tf_op_path; /* most common; NULL: none */
    double flop_proxy_per_invocation;                       /* NaN: none */
} pq_sm_hot_op;

/* semantic_families (1.11) of the listed hot ops. */
typedef struct pq_sm_family {
    const char *family;
    uint64_t count;
    double total_duration, exclusive_duration, share_of_total;
    double avg_duration, avg_exclusive_duration;
    const char *example_op;
    const char *dominant_shape_signature;         /* NULL: none */
    double flop_proxy_total, time_per_flop_proxy; /* NaN: none */
} pq_sm_family;

/* communication_ops (1.12): device-op collectives of one kind. */
typedef struct pq_sm_collective {
    const char *collective; /* "all-reduce", "all-gather", ... "other-collective" */
    uint64_t count;
    double total_duration, avg_duration;
} pq_sm_collective;

/* gap_before_ops (1.13): idle time on device-op tracks before a payload op. */
typedef struct pq_sm_gap {
    const char *name; /* the payload op (payload_op is the same) */
    uint64_t count;
    double total_gap_duration, max_gap_duration, avg_gap_duration;
    const char *marker_op; /* the op that opened the gap, most often */
} pq_sm_gap;

/* gap_region_contexts (1.15): gaps per payload op and its region. */
typedef struct pq_sm_gap_context {
    const char *op_name, *region_path;
    uint64_t count;
    double total_gap_duration, avg_gap_duration;
} pq_sm_gap_context;

/* hierarchical_regions (1.14): self time of device ops under a path and its prefixes. */
typedef struct pq_sm_region {
    const char *path;
    int64_t depth;
    uint64_t count;
    double inclusive_duration, exclusive_duration;
} pq_sm_region;

/* device_op_region_aggregates (1.16): device ops by the innermost region around them. */
typedef struct pq_sm_op_region {
    const char *region_path, *op_name, *canonical_name;
    const char *category; /* "compute" | "communication" | "stall" */
    uint64_t count;
    double total_duration, exclusive_duration, avg_duration;
    const char *shape_signature; /* most common; NULL: none */
} pq_sm_op_region;

/* optimization_candidates (1.18). */
typedef struct pq_sm_candidate {
    const char *candidate_id, *title, *rationale;
    const char *evidence[4];
    size_t nevidence;
    const char *const *suggestions; /* NULL-terminated */
} pq_sm_candidate;

typedef struct pq_summary_result {
    const char *schema_version; /* "profile_summary.v1" */
    const char *generated_at_utc, *source_format, *source_path;
    pq_sm_run_metadata run_metadata;
    pq_sm_overview trace_overview;
    pq_sm_provenance trace_provenance;
    pq_sm_step_time step_time;
    pq_sm_breakdown time_breakdown;
    const pq_sm_hot_op *hot_ops;
    size_t nhot_ops;
    const pq_sm_family *semantic_families;
    size_t nsemantic_families;
    const pq_sm_collective *communication_ops;
    size_t ncommunication_ops;
    const pq_sm_gap *gap_before_ops;
    size_t ngap_before_ops;
    const pq_sm_gap_context *gap_region_contexts;
    size_t ngap_region_contexts;
    const pq_sm_region *hierarchical_regions;
    size_t nhierarchical_regions;
    const pq_sm_op_region *device_op_region_aggregates;
    size_t ndevice_op_region_aggregates;
    const pq_sm_candidate *optimization_candidates;
    size_t noptimization_candidates;
} pq_summary_result;

/* The summary pq_summarize writes for PATH (same inputs, same OPTS), as the result structs
 * above: computed, not rendered (what the Python binding reads). A directory whose trace files
 * make a summary set is PQ_ERR_UNSUPPORTED. Free *OUT with pq_summary_result_free. */
pq_status pq_summary_compute(const char *path, const pq_summary_options *opts,
                             pq_summary_result **out, pq_error *err);
void pq_summary_result_free(pq_summary_result *result);

/*
 * Working with summaries (spec/seed-tools.md 1.20-1.23). A pq_summary is one parsed
 * profile_summary.v1 document. pq_summary_load reads PATH: a profile_summary.v1 JSON
 * file is taken as is; any other input (trace JSON, XPlane, jax_profile dir) is
 * summarised first with OPTS (NULL: the seed's defaults). Free with pq_summary_free.
 */
typedef struct pq_summary pq_summary;
pq_status pq_summary_load(const char *path, const pq_summary_options *opts, pq_summary **out,
                          pq_error *err);
void pq_summary_free(pq_summary *summary);
/* Writes the summary document (json.dumps(indent=2, sort_keys=True) + newline). */
pq_status pq_summary_write(const pq_summary *summary, pq_sink *sink, pq_error *err);

/* Deterministic markdown root-cause report (the seed's report.py), TOP_K rows per table. */
pq_status pq_summary_report(const pq_summary *summary, int top_k, pq_sink *sink, pq_error *err);

/* Answers QUESTION with the seed's routing (nine query types), as indented JSON. */
pq_status pq_summary_query(const pq_summary *summary, const char *question, int top_k,
                           pq_sink *sink, pq_error *err);

/* Compares two summaries (the seed's compare_profile_summaries) as indented JSON. With
 * STRICT, a failed provenance check returns PQ_ERR_INPUT with its messages instead. */
pq_status pq_summary_compare(const pq_summary *before, const pq_summary *after, int top_k,
                             int strict, pq_sink *sink, pq_error *err);

/* The result structs of a summary (computed in process, or read from a saved document);
 * they live as long as SUMMARY. */
const pq_summary_result *pq_summary_result_of(const pq_summary *summary);

/*
 * compare's result (the seed's compare_profile_summaries, spec/seed-tools.md 1.21), before
 * rendering. A double that is NaN and a string that is NULL stand for the document's null.
 * Strings and step classes point into the two summaries compared: the comparison lives
 * no longer than they do.
 */
typedef struct pq_sm_class_delta {
    const char *name; /* "typical", "light", "heavy" */
    uint64_t before_count, after_count;
    double before_fraction, after_fraction; /* 0 when the side has no such class */
    double median_before, median_after, median_delta, median_regression_pct;
} pq_sm_class_delta;

typedef struct pq_sm_family_delta {
    const char *family;
    double before_exclusive_duration, after_exclusive_duration, exclusive_duration_delta;
    double exclusive_regression_pct;
    double before_flop_proxy_total, after_flop_proxy_total, flop_proxy_ratio;
    double before_time_per_flop_proxy, after_time_per_flop_proxy, time_per_flop_regression_pct;
    double time_ratio, work_ratio, efficiency_ratio;
    const char *example_before, *example_after, *shape_signature_before, *shape_signature_after;
} pq_sm_family_delta;

typedef struct pq_sm_op_delta {
    const char *name;
    double before, after, delta; /* exclusive time of the hot op (0 when not listed) */
} pq_sm_op_delta;

typedef struct pq_summary_comparison {
    const char *before_source, *after_source;
    const char *provenance_status; /* "pass" | "warn" | "fail" */
    const char *provenance_messages[5];
    size_t nprovenance_messages;
    const char *before_trace_sha256, *after_trace_sha256, *before_run_id, *after_run_id;
    /* steady-state step time: [0] median, [1] p90 */
    double steady_before[2], steady_after[2], steady_delta[2];
    const pq_sm_step_class *classes_before, *classes_after;
    size_t nclasses_before, nclasses_after;
    pq_sm_class_delta class_delta[3];
    size_t nclass_delta;
    double share_delta[PQ_SM_NCATEGORIES]; /* after - before share_of_total */
    pq_sm_family_delta *families;          /* by family name */
    size_t nfamilies;
    pq_sm_op_delta *regressed_ops, *improved_ops; /* TOP_K each, largest change first */
    size_t nregressed_ops, nimproved_ops;
} pq_summary_comparison;

/* Compares AFTER with BEFORE (TOP_K regressed and improved ops). Free with
 * pq_summary_comparison_free. PQ_ERR_NOMEM. */
pq_status pq_summary_compare_compute(const pq_summary *before, const pq_summary *after, int top_k,
                                     pq_summary_comparison **out, pq_error *err);
void pq_summary_comparison_free(pq_summary_comparison *comparison);

/*
 * query's result (the seed's query routing, spec/seed-tools.md 1.20): which of the nine
 * answers QUESTION routes to and its rows, pointing into the summary asked (the result
 * lives no longer than it). Which members an answer fills is said per type.
 */
typedef enum pq_query_type {
    PQ_QUERY_TOP_OPS,                  /* hot_ops */
    PQ_QUERY_COMPUTE_VS_COMMUNICATION, /* dominant, shares, collectives */
    PQ_QUERY_COLLECTIVE_BREAKDOWN,     /* collectives */
    PQ_QUERY_PRE_OP_GAP,               /* target (NULL: none asked), match, contexts, gaps */
    PQ_QUERY_GAP_REGION_CONTEXT,       /* target (NULL: none found), contexts */
    PQ_QUERY_HIERARCHICAL_REGIONS,     /* regions with their shares of their root */
    PQ_QUERY_BOUND_ANALYSIS,           /* result, details */
    PQ_QUERY_COMPARISON_HINT,          /* details */
    PQ_QUERY_OPTIMIZATION_CANDIDATES   /* candidates */
} pq_query_type;

typedef struct pq_summary_query_result {
    pq_query_type type;
    const char *query_type; /* the document's name of the type ("top_ops", ...) */
    const char *target;     /* the op asked about */
    const char *dominant;   /* "communication" | "compute" */
    double compute_share, communication_share;
    const char *result, *details;
    const pq_sm_hot_op *hot_ops;
    size_t nhot_ops;
    const pq_sm_collective *collectives;
    size_t ncollectives;
    const pq_sm_gap *gaps; /* the top gaps */
    size_t ngaps;
    const pq_sm_gap *match;                   /* the gap row of the target, or NULL */
    const pq_sm_gap_context *const *contexts; /* the target's contexts (or the first ones) */
    size_t ncontexts;
    const pq_sm_region *regions;
    const double *inclusive_share, *exclusive_share; /* of each region's root region */
    size_t nregions;
    const pq_sm_candidate *candidates;
    size_t ncandidates;
} pq_summary_query_result;

/* Routes QUESTION over SUMMARY (TOP_K rows per list). Free with
 * pq_summary_query_result_free. PQ_ERR_NOMEM. */
pq_status pq_summary_query_compute(const pq_summary *summary, const char *question, int top_k,
                                   pq_summary_query_result **out, pq_error *err);
void pq_summary_query_result_free(pq_summary_query_result *result);

/* How the summary family prints for people (issue 16 items 10, 11, 13): FMT PQ_OUT_JSON
 * writes the documents above; PQ_OUT_TEXT writes text that fits 120 columns (names
 * shortened in the middle with "…", whole when WIDE), figures with their units. The
 * report is markdown either way; WIDE keeps its names whole too. */
typedef struct pq_summary_view {
    pq_output fmt;
    int wide;
} pq_summary_view;
pq_status pq_summary_report_view(const pq_summary *summary, int top_k, const pq_summary_view *view,
                                 pq_sink *sink, pq_error *err);
pq_status pq_summary_query_view(const pq_summary *summary, const char *question, int top_k,
                                const pq_summary_view *view, pq_sink *sink, pq_error *err);
pq_status pq_summary_compare_view(const pq_summary *before, const pq_summary *after, int top_k,
                                  int strict, const pq_summary_view *view, pq_sink *sink,
                                  pq_error *err);

/* Thresholds and labels of pq_summary_track; pq_track_defaults fills the seed's defaults. */
typedef struct pq_track_options {
    double max_step_median_regression_pct;         /* 5.0 */
    double max_step_p90_regression_pct;            /* 10.0 */
    double max_communication_share_regression_abs; /* 0.05 */
    double max_stall_share_regression_abs;         /* 0.05 */
    int top_k;                                     /* 10 */
    int strict_provenance;
    const char *label;           /* NULL: null */
    const char *recorded_at_utc; /* NUL-terminated, chosen by the caller */
    const char *history_path;    /* not NULL: append the record as one JSONL line */
    pq_summary_view view;        /* {PQ_OUT_JSON, 0} */
    pq_sink *gate;               /* not NULL: on fail, one line per failed threshold */
} pq_track_options;
void pq_track_defaults(pq_track_options *opts);

/* Status of an assessment. */
typedef enum pq_track_status {
    PQ_TRACK_PASS = 0,
    PQ_TRACK_WARN = 1,
    PQ_TRACK_FAIL = 2
} pq_track_status;

/* track's assessment (spec 1.22): the thresholds crossed, as the seed words them. */
typedef struct pq_track_assessment {
    pq_track_status status;
    char failures[2][256]; /* step median, step p90 */
    size_t nfailures;
    char warnings[2][256]; /* communication share, stall share */
    size_t nwarnings;
    double median_regression_pct, p90_regression_pct; /* NaN: null */
    double communication_share_delta, stall_share_delta;
    const pq_summary_comparison *comparison;
} pq_track_assessment;

/*
 * Assesses AFTER against BEFORE (pass/warn/fail with the thresholds), writes the record
 * {recorded_at_utc, label, before, after, assessment} as indented JSON to SINK, and,
 * when opts->history_path is set, appends it to that JSONL file as one line: the whole
 * line in one write(2) under an exclusive flock, then fsync, so concurrent writers and
 * a writer killed mid-run never leave a partial or interleaved record.
 */
pq_status pq_summary_track(const pq_summary *before, const pq_summary *after,
                           const pq_track_options *opts, pq_sink *sink, pq_track_status *status,
                           pq_error *err);

/* Digest of a history JSONL file (the seed's history command) as indented JSON; blank
 * and non-object lines are skipped; TAIL recent records (0: none). */
pq_status pq_history_render(const char *path, int tail, pq_sink *sink, pq_error *err);

/*
 * The plan of publishing SUMMARY as a W&B artifact of type profile_summary (the seed's
 * publish.py): {status, entity, project, artifact_name, artifact_type, aliases,
 * summary_path, report_path, metadata}, as indented JSON. STATUS is "dry_run" or
 * "published"; NAME NULL derives profile-summary-<run_id>, else
 * profile-summary-<STAMP> (STAMP given by the caller, %Y%m%d-%H%M%S). The library does
 * not talk to W&B: the CLI hands the files to the official `wandb` client. *NAME_OUT (cap
 * bytes) gets the artifact name.
 */
pq_status pq_summary_publish_plan(const pq_summary *summary, const char *status, const char *entity,
                                  const char *project, const char *name, const char *stamp,
                                  const char *const *aliases, size_t naliases,
                                  const char *summary_path, const char *report_path, char *name_out,
                                  size_t cap, pq_sink *sink, pq_error *err);

/*
 * Test hook (SQLite-style torture): make the Nth allocation from now fail
 * (1 = the next one); 0 disables. Affects the calling process globally.
 */
void pq_debug_fail_alloc_after(long n);

/*
 * Test hook: which build of the XSpace decoder pq_profile_open uses. 0 = automatic (the
 * x86-64 BMI2 build on Intel CPUs that have BMI2, else the portable one), 1 = portable,
 * 2 = BMI2 where the CPU has it. Affects the calling process globally.
 */
void pq_debug_force_decoder(int which);

/* ---- Op metrics and roofline (issue 6; spec/xprof-tools.md section 5) ----
 * Op metrics come from the device planes (TPU `XLA Ops` lines keyed by program_id and
 * symbol_id; GPU kernels on stream lines keyed by hlo_module/program_id and hlo_op), merged
 * over devices and hosts exactly as XProf's OpStats pipeline does. Device peaks come only
 * from plane stats; a peak the input does not state is reported as unknown unless the
 * caller supplies it here. */
typedef enum pq_ops_group {
    PQ_OPS_BY_OP = 0,        /* one row per (program, op) */
    PQ_OPS_BY_CATEGORY = 1,  /* one row per HLO category */
    PQ_OPS_BY_PROGRAM = 2,   /* one row per program (XLA module) */
    PQ_OPS_BY_PROVENANCE = 3 /* op_profile only: the tree by framework op path */
} pq_ops_group;

typedef enum pq_ops_xprof {
    PQ_OPS_NATIVE = 0,         /* profq's own text or JSON (profq.ops.v1 / profq.roofline.v1) */
    PQ_OPS_HLO_STATS = 1,      /* XProf's hlo_stats DataTable JSON (profq ops) */
    PQ_OPS_ROOFLINE_MODEL = 2, /* XProf's roofline_model JSON (profq roofline): the "Total"
                                 records; on GPU a record per step when the input has step
                                 markers; on TPU the "Average" and a record per step when
                                 the device planes have step lines */
    PQ_OPS_OP_PROFILE = 3      /* XProf's op_profile JSON (profq ops --view op_profile), grouped
                                  by program (default), category or provenance (opts->by) */
} pq_ops_xprof;

typedef struct pq_ops_options {
    pq_ops_group by;
    int top;              /* rows to print; 0 = all */
    double peak_tflops;   /* > 0: peak TFLOP/s per device, overriding the input */
    double peak_hbm_gbps; /* > 0: peak HBM GB/s per device, overriding the input */
    pq_ops_xprof xprof;   /* PQ_OPS_HLO_STATS: XProf's table instead of profq's format */
    int wide;             /* text: whole names, lines wider than 120 columns allowed */
} pq_ops_options;

/* Numbered as XProf's HardwareType. CPU: XLA:CPU ops on host threads (profq only; XProf's
 * device tools are empty for CPU-only runs). */
typedef enum pq_ops_hw {
    PQ_OPS_HW_NONE = 0,
    PQ_OPS_HW_CPU = 1,
    PQ_OPS_HW_GPU = 2,
    PQ_OPS_HW_TPU = 3
} pq_ops_hw;

/* The roofline figures of one row (spec 5.6), against the result's peaks. */
typedef struct pq_op_rates {
    double flop_rate_gflops; /* measured: flops / time_ns */
    double model_flop_rate;
    double mem_bw_gibps; /* bytes_accessed / ns, GiB/s */
    double hbm_bw_gibps; /* breakdown HBM bytes, or bytes_accessed without breakdown */
    double cmem_rd_gibps, cmem_wr_gibps, vmem_rd_gibps, vmem_wr_gibps;
    double oi; /* flops / bytes_accessed */
    double hbm_oi;
    double hbm_bytes;
    const char *bound_by; /* static: "Compute", "HBM", "CMEM Read", ... or "Unknown" */
    double bottleneck_oi;
    /* Static reason why the time-based rates and bound-by mean nothing for this row, else
     * NULL: the halves of an async pair (copy-start and copy-done, any -start/-done), whose bytes
     * move between the start and the done op, not in either op's own time. The numbers
     * above are still XProf's (its hlo_stats prints them); profq's own reports print n/a. */
    const char *not_meaningful;
    /* XProf's roofline_model figures (spec 5.8): FLOP rate / peak, the highest bandwidth
     * utilisation among the memories the device states peaks for, their maximum (roofline
     * efficiency) and the FLOP rate at that efficiency's roof. */
    double flop_utilization, max_mem_utilization, roofline_efficiency, optimal_flop_rate;
} pq_op_rates;

/* An instruction fused into a TPU fusion op, as XProf lists it under the op's op_profile
 * leaf: its HLO text, category, provenance ("<op_name>:<op_type>"). The fused ops of one op
 * are in preorder: each entry is followed by its own NKIDS direct children's subtrees
 * (nested fusions), SIZE entries in all counting itself. */
typedef struct pq_fused_op {
    pq_str name, expression, category, provenance;
    uint32_t nkids, size;
} pq_fused_op;

/* One row: an op (program, op) merged over devices, a group of ops (--by category or
 * program), or a total. Times in picoseconds summed over devices; FLOPs and bytes summed
 * over occurrences. */
typedef struct pq_op_row {
    uint64_t program_id;
    uint64_t symbol_id; /* TPU; 0 for GPU and CPU ops (keyed by name) */
    pq_str name, long_name, category, provenance, dedup_name;
    pq_str source, source_stack; /* metadata stats "source" (file:line) and "source_stack" */
    int64_t occurrences;
    int64_t time_ps, self_time_ps, min_time_ps, dma_stall_ps;
    double normalized_time_ps;
    double flops, model_flops, bytes_accessed;
    /* memory_access_breakdown, summed (bytes): HBM any direction, CMEM and VMEM read/write,
     * on-chip (memory space != HBM) read/write. */
    double bd_hbm, bd_cmem_rd, bd_cmem_wr, bd_vmem_rd, bd_vmem_wr, bd_onchip_rd, bd_onchip_wr;
    int has_breakdown;
    int is_idle; /* XProf's IDLE row: total time minus op time */
    /* GPU/CPU: provenance is the HLO instruction's metadata.op_name; XProf's framework op
     * name is then "<op_name>:<op_type>" (empty when op_name is). */
    int provenance_from_hlo;
    pq_str op_type;
    /* TPU fusions: the fused instructions from the program's HloProto (op_profile) */
    const pq_fused_op *fused;
    uint32_t nfused;   /* direct children; the array holds their subtrees in preorder */
    pq_op_rates rates; /* filled by pq_ops_compute for every row of the result */
} pq_op_row;

/* One XLA module (program) over all devices. */
typedef struct pq_ops_program {
    uint64_t program_id;
    pq_str name;        /* module name ("" when the input names none) */
    int64_t executions; /* XLA Modules events (TPU); 0 where the input has none */
    int64_t module_ps;  /* summed module execution time over devices; 0 without modules */
    int64_t op_self_ps; /* summed op self time */
    int64_t first_ps;   /* first module (or op) start, absolute */
    double flops, model_flops, bytes_accessed, hbm_bytes;
    /* steady state: the program's executions after the first on each device */
    int64_t steady_executions, steady_module_ps;
    double steady_share; /* fraction of the program's op time inside steady executions */
    int name_shared;     /* another program has the same name: print the id with it */
    /* GFLOP/s and HBM GiB/s per device over the program's active time (its module time, else
     * its op time) and over the captured window */
    double active_gflops, whole_gflops, active_hbm_gibps, whole_hbm_gibps;
    const void *seen_on; /* private: the device plane of the last execution counted */
} pq_ops_program;

typedef struct pq_ops_peaks {
    double tflops; /* peak TFLOP/s per device; 0 = unknown */
    double bws[7]; /* GB/s: HBM, SRAM rd, SRAM wr, CMEM rd, CMEM wr, VMEM rd, VMEM wr; 0 =
                      unknown */
    int has_cmem, has_merged_vmem, has_megacore;
    int user_flops, user_bw; /* set from --peak-flops / --peak-bw */
    /* GPU: the FLOP and SRAM peaks derived from the plane's core count x clock x the
     * architecture's per-core rate (XProf's tables; 0 when the plane states them or when
     * the architecture is not in the tables), and the rates used. */
    int derived_flops, derived_sram;
    double cores, clock_ghz, flops_per_cycle, sram_bytes_per_cycle;
} pq_ops_peaks;

/* The program totals of the roofline (spec 5.8): ops outside call/conditional/while/
 * megacore fusion summed, HBM bytes summed over the ops that state a breakdown (bytes
 * accessed when none does). */
typedef struct pq_ops_roofline {
    pq_op_row total; /* time = the captured window, self = op time (profq's roofline) */
    double active_gflops, active_hbm_gibps; /* the total over op time */
    /* XProf's "Program" records: [0] infeed/outfeed left out, [1] included; time = the
     * window less the left-out infeed/outfeed time, self and DMA stall 0. */
    pq_op_row program[2];
    /* XProf's "Average" record without TPU steps: empty (as XProf writes it without step
     * markers); also the empty GPU step record. With TPU steps: step_rows. */
    pq_op_row average;
} pq_ops_roofline;

/* What pq_ops_compute returns. */
typedef struct pq_ops_result {
    pq_ops_hw hw;
    char device_type[64];
    char gpu_model[64];     /* XProf's GPU device_type ("AMD GPU - gfx942"); "" when unknown */
    uint32_t ndevices;      /* device planes contributing */
    uint32_t device_planes; /* all planes of the chosen kind (XProf device_core_count) */
    pq_op_row *ops;         /* sorted by (self_time desc, name asc); the IDLE row is last */
    size_t nops;
    pq_ops_program *programs; /* sorted by op self time desc, then id */
    size_t nprograms;
    int64_t total_time_ps; /* XProf's db total_time_ps: summed over devices, includes idle */
    int64_t total_op_time_ps;
    double normalized_total_op_time_ps;
    /* Windows, summed over devices (device-picoseconds). */
    int64_t window_ps;        /* per device: last end - first start of its op/module/step lines */
    int has_modules;          /* the input has module execution events (TPU `XLA Modules`); else
                                 module_ps and the programs' executions and module_ps are unknown (0) */
    int64_t module_ps;        /* union of module executions */
    int64_t busy_ps;          /* union of top-level op events */
    int64_t idle_ps;          /* total_time - total op time (XProf's IDLE op) */
    void *strings;            /* private: text built for the ops (GPU source info) */
    int64_t steady_window_ps; /* windows after the first execution of the dominant program */
    int64_t steady_busy_ps;
    uint64_t dominant_program;
    int has_dominant;
    double steady_gflops, steady_hbm_gibps; /* the dominant program's, over steady module time */
    pq_ops_peaks peaks;
    /* opts->by when it is PQ_OPS_BY_CATEGORY or PQ_OPS_BY_PROGRAM: the ops so grouped (IDLE
     * left out), sorted by self time; else NULL. */
    pq_ops_group by;
    pq_op_row *groups;
    size_t ngroups;
    pq_ops_roofline roofline;
    /* GPU: the step numbers (tsl group ids) of XProf's well-formed steps, ascending, when
     * the input has step markers (roofline_model's per-step records); else NULL, 0. With
     * several XSpaces, 0..n-1 over the hosts' step intersection. */
    int64_t *steps;
    size_t nsteps;
    int steps_combined;        /* GPU: several XSpaces, whose op stats XProf combines */
    int steps_empty_intersect; /* ... and whose steps have an empty intersection */
    /* TPU steps (a device "Steps" line): [2i + incl] step i's "Program" records (infeed and
     * outfeed left out, included), [2 nsteps + incl] the "Average" ones; else NULL. */
    pq_op_row *step_rows;
} pq_ops_result;

/* Computes the op metrics of PROFILE into *RESULT (opts->by chooses the groups, the peaks
 * override the input's, opts->xprof != PQ_OPS_NATIVE reads device planes only, as XProf).
 * OPTS may be NULL. Ownership: the result borrows strings from the profile; free it with
 * pq_ops_result_free before the profile. On error *RESULT holds nothing to free. */
pq_status pq_ops_compute(const pq_profile *profile, const pq_ops_options *opts,
                         pq_ops_result *result, pq_error *err);

/* Which report pq_ops_render writes. */
typedef enum pq_ops_view {
    PQ_OPS_VIEW_OPS = 0,     /* `profq ops`: windows, the op table, programs */
    PQ_OPS_VIEW_ROOFLINE = 1 /* `profq roofline`: peaks, totals, programs, op rates */
} pq_ops_view;

/* Writes RESULT as VIEW: text, JSON ("profq.ops.v1" / "profq.roofline.v1"), or XProf's
 * hlo_stats, op_profile or roofline_model JSON as opts->xprof says; opts->top limits the
 * rows, opts->by the grouping (PQ_ERR_USAGE when the result was computed for another
 * grouping). Formats only: every figure is the result's. */
pq_status pq_ops_render(const pq_ops_result *result, const pq_ops_options *opts, pq_ops_view view,
                        pq_output fmt, pq_sink *sink, pq_error *err);

/* Frees what pq_ops_compute allocated in RESULT (not RESULT itself); NULL is fine. */
void pq_ops_result_free(pq_ops_result *result);

/* Renders the op table with windows first (`profq ops`): text, or JSON with schema
 * "profq.ops.v1", or XProf's hlo_stats DataTable when opts->xprof says so. OPTS may be NULL
 * (all ops by op, peaks from the input). pq_ops_compute, pq_ops_render, pq_ops_result_free. */
pq_status pq_render_ops(const pq_profile *profile, const pq_ops_options *opts, pq_output fmt,
                        pq_sink *sink, pq_error *err);

/* Renders the roofline (`profq roofline`): device peaks, per program totals with
 * active-window and whole-window FLOP rates and bandwidths, per op rates, operational
 * intensity and bound-by. JSON schema "profq.roofline.v1", or XProf's roofline_model
 * DataTables when opts->xprof is PQ_OPS_ROOFLINE_MODEL. The three calls above, in turn. */
pq_status pq_render_roofline(const pq_profile *profile, const pq_ops_options *opts, pq_output fmt,
                             pq_sink *sink, pq_error *err);

/* Writes every event of every plane as Chrome trace-event JSON (Perfetto UI and
 * chrome://tracing load it): planes as processes, lines as threads, one trace event per
 * XEvent with its metadata and event stats as args. Streams through SINK with no event cap
 * and memory bounded by the output buffer. */
pq_status pq_render_trace_json(const pq_profile *profile, pq_sink *sink, pq_error *err);

/* ---- The HTML report (issue 14, `profq html`) ----
 * One self-contained page (inline CSS, inline SVG, a little inline JavaScript; no network;
 * the same profile and options give the same bytes) with a section per analysis the
 * profile feeds (as pq_render_tools says): the overview (sources, devices and their
 * capabilities, windows), where time goes (op table, roofline chart), memory (the memory
 * viewer of the modules, the memory profile timelines). Built from the analyses' result
 * structs; an analysis that fails shows its error in its section instead of failing the
 * page. Tables keep the first max_rows rows and charts max_points points; the page says
 * what it left out. Every string from the profile is escaped. */
typedef struct pq_html_options {
    int max_rows;    /* rows per table; 0: 1000 */
    int max_points;  /* points per chart (roofline ops, timeline samples); 0: 2000 */
    int max_modules; /* memory viewer modules drawn, largest peak first; 0: 4 */
} pq_html_options;

/* OPTS may be NULL (the defaults). Errors: PQ_ERR_OUTPUT, PQ_ERR_NOMEM. */
pq_status pq_render_html(const pq_profile *profile, const pq_html_options *opts, pq_sink *sink,
                         pq_error *err);

/* The comparison page (`profq html --compare BEFORE AFTER`): the profile_summary.v1 of each
 * path (pq_summary_compute with the defaults: warm-up 5 steps) side by side: step time over
 * steps and the steady-state median and p90 with their change, the time breakdown shares,
 * and the hot ops (the first 200 of each, by exclusive time) matched by name whose time
 * regressed and improved most. Errors: those of pq_summary_compute, PQ_ERR_OUTPUT,
 * PQ_ERR_NOMEM. */
pq_status pq_render_html_compare(const char *before, const char *after, const pq_html_options *opts,
                                 pq_sink *sink, pq_error *err);

/* ------------------------------------------------------------------------------------------
 * Tenstorrent runtime memory logs (tt-mlir / tt-xla; `profq tt`).
 *
 * A log written with TTMLIR_RUNTIME_LOGGER_LEVEL=DEBUG and TT_RUNTIME_MEMORY_LOG_LEVEL=
 * operation (or program) holds, per operation or per submit, the device memory state of DRAM,
 * L1, L1_SMALL and TRACE (MB per bank), and with DEBUG op lines the MLIR text of every op.
 * A pq_ttlog is one such log, read in one pass; it owns everything it returns.
 */
typedef struct pq_ttlog pq_ttlog;

/* What a log contained. Counts are exact; shape is a static string. */
typedef struct pq_ttlog_info {
    const char *shape;          /* "op_text": per-op blocks after each op's text (the seed's);
                                   "op_type": per-op blocks with only the OpType;
                                   "submit": op text, blocks only per submit */
    uint64_t operations;        /* emitted ops (deallocate and get_device excluded) */
    uint64_t executed_ops;      /* "Executing operation:" lines, excluded ones included */
    uint64_t op_blocks;         /* complete "before operation" blocks, excluded ones included */
    uint64_t submit_blocks;     /* complete "before/after submit" blocks */
    uint64_t excluded_ops;      /* per-op blocks of deallocate / get_device */
    uint64_t malformed_blocks;  /* blocks that broke off or did not parse (skipped) */
    uint64_t ops_without_block; /* op lines with no memory block in a per-op log (skipped) */
    uint64_t programs, const_eval_programs, cache_misses, mlir_modules, lines, bytes;
    int64_t first_warning_offset; /* byte offset of the first warning, or -1 */
    const char *first_warning;    /* its text (owned by the log), or NULL */
    /* The log ends inside an op's line, a memory block or a runtime line (cut short): the
     * offset where that item starts and what, with the byte where the log ends; -1/NULL
     * when it ends between whole lines. Also one of the warnings. */
    int64_t truncated_offset;
    const char *truncated;
} pq_ttlog_info;

/*
 * Reads the log at PATH (mapped, not copied). ANSI colour codes and interleaved lines are
 * tolerated; malformed memory blocks are counted and skipped. A file with no operation at all
 * is PQ_ERR_INPUT with the byte offset and what was expected. Free with pq_ttlog_free.
 */
pq_status pq_ttlog_open(const char *path, pq_ttlog **out, pq_error *err);
/* The same over N bytes at DATA (copied); NAME is used in error messages. */
pq_status pq_ttlog_open_memory(const void *data, size_t n, const char *name, pq_ttlog **out,
                               pq_error *err);
void pq_ttlog_free(pq_ttlog *log);
void pq_ttlog_get_info(const pq_ttlog *log, pq_ttlog_info *info);

/*
 * The per-op memory analysis of a log (the seed profiler's definitions, spec section 3.6):
 * memory per op, peaks per memory type, top DRAM growth, fragmentation, weights vs
 * activations, tile padding, op distribution. Numbers only: the op names, locations and
 * types it refers to (by op index) are the log's. What the log held (shape, counts,
 * warnings, truncation) is pq_ttlog_info. MB are MB per bank (bytes / 1048576) as the log
 * writes them; bytes are exact.
 */
enum { PQ_TT_NMEM = 4 /* DRAM, L1, L1_SMALL, TRACE */, PQ_TT_TOP = 10, PQ_TT_DIST = 15 };

/* Padding is reported in bytes; its ratio only from this many unpadded bytes on (a 4x32
 * tensor padded to one 32x32 tile is +700%, which means nothing). */
#define PQ_TT_PAD_RATIO_MIN_BYTES ((uint64_t)1 << 20)

/* One memory type over the ops that have a memory state. */
typedef struct pq_tt_mem_stats {
    int present;
    double peak_mb, min_mb, avg_mb, capacity_mb; /* allocated MB/bank; capacity of the first */
    size_t peak_op;                              /* first op at the peak */
    int64_t num_banks;
    double frag_mb; /* the largest (free - largest contiguous free) MB/bank ... */
    size_t frag_op; /* ... and the first op where it is */
} pq_tt_mem_stats;

/* One row per operation, in log order (index = op index). */
typedef struct pq_tt_op_row {
    double alloc_mb[PQ_TT_NMEM]; /* allocated MB/bank per memory type */
    double free_mb[PQ_TT_NMEM];  /* free MB/bank */
    double largest_free_mb[PQ_TT_NMEM];
    double dram_delta_mb;              /* DRAM allocated vs the previous op (op 0: 0) */
    double weights_mb, activations_mb; /* DRAM split at the weights baseline (has_weights) */
    double dram_total_mb;              /* DRAM allocated over all banks (MB) */
    uint64_t live_unpadded_bytes, live_padded_bytes; /* live DRAM tensors */
} pq_tt_op_row;

typedef struct pq_tt_count {
    pq_str name; /* the op's short name (after the last '.'); points into the log */
    uint64_t count;
} pq_tt_count;

typedef struct pq_tt_memory {
    pq_tt_mem_stats type[PQ_TT_NMEM];
    int has_mem; /* some op has a memory state */
    /* Submit-shaped logs: the DRAM peak over every before/after submit block. */
    int has_submit_peak;
    double submit_peak_mb;
    size_t submit_peak; /* index of the submit block */
    /* DRAM growth vs the previous op, largest first (then lower index), positive only. */
    size_t growth_op[PQ_TT_TOP];
    double growth_mb[PQ_TT_TOP];
    size_t ngrowth;
    /* Weights (const-eval ops) vs activations, DRAM. */
    int has_weights;
    uint64_t weight_ops;
    double weights_baseline_mb; /* DRAM allocated at the first non-weight op ... */
    size_t baseline_op;         /* ... which is this one */
    /* Tile padding of the live DRAM tensors: the op where padded - unpadded is largest. */
    int has_padding;
    uint64_t peak_pad_bytes, peak_pad_unpadded;
    size_t peak_pad_op;
    size_t pad_op[PQ_TT_TOP]; /* ops by output padded - unpadded bytes, largest first */
    size_t npad;
    pq_tt_count dist[PQ_TT_DIST]; /* most frequent short names (count desc, name asc) */
    size_t ndist;
    uint64_t ndistinct;
    pq_tt_op_row *rows; /* one per op; owned, freed by pq_tt_memory_release */
    size_t nrows;
} pq_tt_memory;

/* Analyses LOG into *OUT (valid while LOG lives). Returns PQ_ERR_NOMEM only. */
pq_status pq_ttlog_analyze(const pq_ttlog *log, pq_tt_memory *out, pq_error *err);
void pq_tt_memory_release(pq_tt_memory *m);

/* The outputs of `profq tt`. */
typedef enum pq_tt_output {
    PQ_TT_MEMORY_JSON = 0,     /* <name>_memory.json: {"metadata", "operations"} (the seed's) */
    PQ_TT_OPERATIONS_JSON = 1, /* <name>_operations.json: list aligned 1:1 with the above */
    PQ_TT_SUMMARY_MD = 2,      /* markdown summary: peaks, top DRAM growth, padding, weights */
    PQ_TT_REPORT_HTML = 3      /* one self-contained HTML report (inline SVG, CSS, JS) */
} pq_tt_output;

/*
 * Renders one output of the per-op memory analysis (analysis/ttmem) of LOG to SINK. NAME
 * (NUL-terminated) is the run name shown in titles. Deterministic: byte-identical output for
 * the same log. Every string from the log is escaped for the output's language.
 */
pq_status pq_ttlog_render(const pq_ttlog *log, pq_tt_output what, const char *name, pq_sink *sink,
                          pq_error *err);

/*
 * Reads back a <name>_memory.json and <name>_operations.json that pq_ttlog_render wrote (or
 * the seed wrote) into a pq_ttlog, so the report can be rendered from them without the log.
 */
pq_status pq_ttlog_open_json(const char *memory_json_path, const char *operations_json_path,
                             pq_ttlog **out, pq_error *err);

/* ---- partial results: map and merge across hosts (issue 15, DESIGN.md 8) ----
 * A partial is the compact, per-source aggregate of one command (`profq <cmd> --partial`):
 * not the profile, only the sums, counts and keyed rows the command's output is made of.
 * Partials merge associatively and commutatively; rendering the merge of the partials of
 * any split of the inputs, in any order, gives the bytes one process over all the inputs
 * gives. On disk a partial is versioned (docs/internals/partial.md); reading a partial of
 * another version, a truncated or a malformed one is PQ_ERR_INPUT with the offset. */
typedef enum pq_partial_kind {
    PQ_PARTIAL_SCAN = 1,     /* `profq scan`: decode totals */
    PQ_PARTIAL_OPS = 2,      /* `profq ops` (profq's text and JSON): the op table and windows */
    PQ_PARTIAL_ROOFLINE = 3, /* `profq roofline` (text and JSON): the same body as ops */
    PQ_PARTIAL_INFO = 4,     /* `profq info`: each source's sections and its totals */
    PQ_PARTIAL_MEMORY_PROFILE = 5, /* `profq memory-profile`: each source's sections */
    PQ_PARTIAL_MEMORY = 6,         /* `profq memory`: each source's attribution rows */
    PQ_PARTIAL_SUMMARIZE = 7,      /* `profq summarize` of trace files: each file's summary */
    PQ_PARTIAL_NSYS = 8            /* `profq nsys`: each archive's or export's nsys model */
} pq_partial_kind;

#define PQ_PARTIAL_VERSION 4

typedef struct pq_partial pq_partial;

/* Returns the command's name of KIND ("scan", "ops"), or NULL when KIND is none. */
const char *pq_partial_kind_name(pq_partial_kind kind);
pq_partial_kind pq_partial_kind_of(const pq_partial *partial);

/* The partial of `profq scan` over PROFILE, whose TOTALS pq_profile_open (options.scan)
 * or pq_profile_scan computed. *OUT is freed with pq_partial_free. */
pq_status pq_partial_scan(const pq_profile *profile, const pq_scan_totals *totals, pq_partial **out,
                          pq_error *err);

/* The partial of `profq ops` over PROFILE: the op rows, programs and device windows summed
 * over its devices, and the peaks of its first device. The grouping (by), --top, --wide and
 * the peak overrides are the render's (pq_partial_render). It owns its strings: PROFILE
 * may be freed first. XProf's tables (opts->xprof) take pq_partial_ops_xprof's partial. */
pq_status pq_partial_ops(const pq_profile *profile, pq_partial **out, pq_error *err);
/* The same for `profq roofline`: the op partial, rendered as the roofline. */
pq_status pq_partial_roofline(const pq_profile *profile, pq_partial **out, pq_error *err);
/* The op partial for XProf's tables (pq_ops_options.xprof: device planes only, GPU kernels
 * grouped by step, TPU fusions' instructions, each GPU XSpace's steps), of `profq ops` or,
 * with ROOFLINE, `profq roofline`; rendered only as XProf's tables, merged only with its
 * like. */
pq_status pq_partial_ops_xprof(const pq_profile *profile, int roofline, pq_partial **out,
                               pq_error *err);

/* The partials of `profq info` and `profq memory-profile` over PROFILE: per source, what
 * the command prints for it in each of its formats (text, JSON, and XProf's JSON for
 * memory-profile), and info's totals; a merge prints the sources in path order. */
pq_status pq_partial_info(const pq_profile *profile, pq_partial **out, pq_error *err);
pq_status pq_partial_memory_profile(const pq_profile *profile, pq_partial **out, pq_error *err);
/* The partial of `profq memory` over PROFILE with OPTS (module, memory space, rules; wide is
 * the render's: pq_ops_options.wide): each source's rows; merges recompute min/avg/max. */
pq_status pq_partial_memory(const pq_profile *profile, const pq_memory_options *opts,
                            pq_partial **out, pq_error *err);

/* The partial of `profq summarize` over N trace files (each a PATH pq_summarize summarizes
 * as one document; a directory of several is PQ_ERR_USAGE): each file's profile_summary.v1.
 * One source renders as its document, several as the summary set (profq.summary_set.v1)
 * one process prints for a directory of those files. */
pq_status pq_partial_summarize(const char *const *paths, size_t n, const pq_summary_options *opts,
                               pq_partial **out, pq_error *err);

/* The partial of `profq nsys` over PROFILE (nsys-jax archives and Nsight SQLite exports;
 * an XPlane source is PQ_ERR_INPUT): per source the timeline, export counts and HLO dumps
 * the nsys analyses read, so that the render runs them over all the merged sources at once.
 * Sections and the warm-up rule are the render's (pq_partial_render_nsys). */
pq_status pq_partial_nsys(const pq_profile *profile, pq_partial **out, pq_error *err);
/* Renders an nsys partial as `profq nsys` with SECTIONS (pq_nsys_options.sections) prints
 * its sources in path order; pq_partial_render renders it with every section. */
pq_status pq_partial_render_nsys(const pq_partial *partial, unsigned sections, pq_output fmt,
                                 pq_sink *sink, pq_error *err);

/* Writes PARTIAL's bytes (header, then body; deterministic) to SINK. */
pq_status pq_partial_write(const pq_partial *partial, pq_sink *sink, pq_error *err);

/* Reads a partial from DATA (N bytes; NAME names it in errors). A wrong magic or version,
 * a truncated or malformed body is PQ_ERR_INPUT with the byte offset and what was
 * expected. The partial copies what it keeps: DATA may go once this returns. */
pq_status pq_partial_read(const void *data, size_t n, const char *name, pq_partial **out,
                          pq_error *err);

/* Merges FROM into INTO (both of one kind, else PQ_ERR_INPUT). FROM is left as it was. */
pq_status pq_partial_merge(pq_partial *into, const pq_partial *from, pq_error *err);

/* Renders PARTIAL as its command renders the profile: FMT, and for ops OPTS (by, top,
 * wide; NULL for defaults). */
pq_status pq_partial_render(const pq_partial *partial, const pq_ops_options *opts, pq_output fmt,
                            pq_sink *sink, pq_error *err);

/* Frees PARTIAL; NULL is fine. */
void pq_partial_free(pq_partial *partial);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* PROFQ_H */
