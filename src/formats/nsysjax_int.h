/* nsysjax_int.h - what the parts of the nsys-jax archive reader share (not a public API):
 * the archive's metadata parquets (nsysjax_meta.c) and trace.parquet's column sets read into
 * one row layout (nsysjax_cols.c), resolved and fed by nsysjax.c, the push/pop report read
 * and fed by nsysjax_report.c. */
#ifndef PQ_FORMATS_NSYSJAX_INT_H
#define PQ_FORMATS_NSYSJAX_INT_H
#include "core/arena.h"
#include "formats/parquet.h"
#include "formats/pushpop.h"
#include "io/zip.h"
#include "model/model.h"
#include "profq.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* A thread named `XlaLauncher:#global=G,local=L,process=P,(partition|slice)=S#`. */
typedef struct nsysjax_launcher {
    int64_t pid, tid, device, local, process, slice;
} nsysjax_launcher;

/* thread-metadata.parquet, device-metadata.parquet and system-metadata.parquet, when present. */
typedef struct nsysjax_meta {
    int has_threads;             /* thread-metadata.parquet was present */
    size_t nthreads;             /* its rows */
    nsysjax_launcher *launchers; /* its XlaLauncher rows, in file order */
    size_t nlaunchers;
    size_t ngpus;          /* device-metadata.parquet rows (0 when absent) */
    pq_str *gpu_name;      /* per row: the GPU's name (empty when not given) */
    int64_t *gpu_cudevice; /* per row: cuDevice (the row number when not given) */
    /* per row: its other columns as stated, gpu_caps[gpu_cap_first[i] ..][0 .. gpu_ncaps[i])
     * (a null value is left out; a column "('TARGET_INFO_GPU', 'K')" gives the key K) */
    pq_device_cap_in *gpu_caps;
    size_t *gpu_cap_first, *gpu_ncaps;
    pq_str hostname; /* system-metadata.parquet's host name, empty when absent */
    arena a;
} nsysjax_meta;

/* The member BASE of Z, or in nsys-jax-combine output (SLUG not NULL) BASE/SLUG when it
 * exists (the process's own copy) else BASE (identical in every process); its name goes to
 * NAME[0..CAP). The member's index, or -1. */
long nsysjax_member(const pqzip *z, const char *base, const char *slug, char *name, size_t cap);
/* Reads the metadata members of Z (ARCHIVE names it in errors; SLUG: nsysjax_member) that
 * exist; a member that exists but lacks a column read is PQ_ERR_INPUT naming it. */
pq_status nsysjax_meta_read(pqzip *z, const char *archive, const char *slug, nsysjax_meta *m,
                            pq_error *err);
void nsysjax_meta_free(nsysjax_meta *m);
/* The launcher of (PID, TID), or NULL. */
const nsysjax_launcher *nsysjax_meta_launcher(const nsysjax_meta *m, int64_t pid, int64_t tid);
/* The name of the GPU with cuDevice LOCAL, or an empty string. */
pq_str nsysjax_meta_gpu(const nsysjax_meta *m, int64_t local);
/* The GPU with cuDevice LOCAL, as model device ID (kind "GPU", its name and the other columns
 * of its device-metadata.parquet row as capabilities), to EV->device; nothing when the
 * archive has no such row or EV keeps no devices. What EV->device returned (non-zero: out of
 * memory). */
int nsysjax_meta_give_gpu(const nsysjax_meta *m, int64_t id, int64_t local, const pq_events *ev);

/* trace.parquet's columns, in one layout whichever column set the file has. */
enum { C_NAME, C_PSTART, C_PDUR, C_OSTART, C_PID, C_TID, C_GPUOPS, C_RID, C_PARENT, NCOL };

enum {
    NSYS_COLS_ERA = 0,   /* Name, Projected Start/Duration, Orig Start, ... RangeId, ParentId */
    NSYS_COLS_TEXT = 1,  /* Text, Start, End, ..., Range ID, Parent ID (no tsl prefix) */
    NSYS_COLS_DOMAIN = 2 /* the same plus Domain (2026.1.1): Name = Domain ":" Text */
};

typedef struct nsysjax_cols {
    int set;                  /* NSYS_COLS_* */
    size_t n;                 /* rows */
    parquet_values col[NCOL]; /* C_OSTART and C_GPUOPS are empty (n == 0) unless set is ERA */
    arena names;              /* Domain:Text names of the DOMAIN set */
} nsysjax_cols;

/* Reads trace.parquet DATA[0..N) (PATH names it in errors) into *OUT, which is zeroed
 * first and freed with nsysjax_cols_free also after an error. A column set it does not
 * know is PQ_ERR_INPUT naming the column. */
pq_status nsysjax_cols_read(const uint8_t *data, size_t n, const char *path, nsysjax_cols *out,
                            pq_error *err);
void nsysjax_cols_free(nsysjax_cols *c);

/* HEAD's fingerprint program ids (nsysjax_fp.c), over the processes of one archive. */
enum { NSYSJAX_FP_MAX = 72 }; /* a fingerprint's bytes kept, with the NUL */
typedef struct nsysjax_fp {
    char *text; /* fingerprint_before_lhs (owned; stays put while the array grows) */
    int64_t id; /* its canonical program number in the model */
} nsysjax_fp;
typedef struct nsysjax_fp_seen {
    int64_t program;
    char *name; /* hlo_module (owned) */
    int fp;     /* index in fp, -1: no dump */
} nsysjax_fp_seen;
typedef struct nsysjax_fps {
    nsysjax_fp *fp;
    size_t n;
    nsysjax_fp_seen *cache; /* (program, name) looked up in the current process */
    size_t ncache;
} nsysjax_fps;

/* 1 when Z has dump/module_* members. */
int nsysjax_has_dumps(const pqzip *z);
/* Program PROGRAM named NAME of process SLUG (nsysjax_member) of Z: *ID gets the canonical
 * number of its dump's fingerprint and *FP its text; without a dump *ID is PROGRAM
 * (MISSING_UNKNOWN: -1, the loader's "unknown") and *FP NULL. PROGRAM -1 stays. */
pq_status nsysjax_fps_lookup(nsysjax_fps *f, pqzip *z, const char *archive, const char *slug,
                             int64_t program, pq_str name, int missing_unknown, int64_t *id,
                             const char **fp, pq_error *err);
/* Forgets the lookups of the current process (the next has other dumps). */
void nsysjax_fps_process(nsysjax_fps *f);
void nsysjax_fps_free(nsysjax_fps *f);

/* Decompresses the after-optimisation dumps of Z (nsysjax_dump_program) into
 * SRC->nsys_dumps, in member order, until *STOP is set (the push/pop thread finished: from
 * then on the main thread's time is the run's) or every one is; nothing when SRC has some. */
void nsysjax_dumps_ahead(pqzip *z, pq_source *src, const atomic_int *stop);
/* One step of that: the next dump from member *NEXT on (0 at first); 0 when none is left. */
int nsysjax_dumps_ahead_one(pqzip *z, pq_source *src, size_t *next);

/* Shared by nsysjax.c and nsysjax_report.c: V in decimal at D (at most 20 bytes, no NUL),
 * its length (what "%lld" writes, without snprintf's cost on every row); the track of host
 * thread TID named "host thread TID" once per run of rows on it (*LAST: the thread named
 * last; EV->thread_name's result); NS split into the slice's microseconds and picoseconds. */
size_t nsysjax_put_i64(char *d, int64_t v);
int nsysjax_name_host(const pq_events *ev, int64_t pid, int64_t tid, int64_t *last);
void nsysjax_split_ns(int64_t ns, pq_slice_in *s);

/* HEAD's fingerprints where they apply (nsysjax_fps_lookup): the dumps of one process. */
typedef struct nsysjax_fp_ctx {
    nsysjax_fps *fps; /* NULL: program numbers */
    pqzip *z;
    const char *archive, *slug;
} nsysjax_fp_ctx;

/* The push/pop report (compilation ranges), read beside trace.parquet: its xz decoding and
 * csv parsing are the largest single cost of an archive-era archive. A csv.xz of 1 MiB and
 * more is decoded on a thread of its own (pushpop_stream_*) and parsed by the main thread
 * after the trace, between HLO dumps decompressed ahead (nsysjax.c feed_process), so that the
 * decoder has a core to itself; another report is read whole on a thread. The member's
 * bytes are read from the zip before (libzip is not shared between threads); errors, also
 * the member's, are reported after the trace's, where the report was read before. */
typedef struct nsysjax_report {
    int found; /* the archive has a report */
    int threaded;
    int streaming; /* ps runs: pushpop_stream_end gives st */
    pushpop_stream ps;
    atomic_int done; /* set when the report is read (or not read on a thread at all) */
    pthread_t thread;
    char path[1024]; /* ARCHIVE:MEMBER */
    mapped_file mf;
    pushpop p;
    pq_status st;
    pq_error err;
    /* Rows [0, fed) are in the model (nsysjax_report_ready, while a csv.xz streams); a failed feed
     * stops there and keeps its error in fst/ferr, reported only when the read went well
     * (a read error comes first, as when the report was fed after it was read). */
    size_t fed;
    int64_t last; /* feed_pushpop's thread named last */
    pq_status fst;
    pq_error ferr;
    /* Started from the archive's bytes before libzip was loaded (nsysjax_report_early):
     * NSYSJAX_EARLY_*; the member as pqzip_peek read it (mf borrows its bytes). */
    int early;
    pqzip_peeked peeked;
} nsysjax_report;

enum { NSYSJAX_EARLY_STARTED = 1, NSYSJAX_EARLY_TAKEN, NSYSJAX_EARLY_DROPPED };

/* Starts reading the report of Z's process (PATH: the archive, SLUG: nsysjax_member): EARLY
 * (may be NULL) when it started that very member already, else a new job (NULL: no memory),
 * dropping EARLY; nsysjax_report_ready feeds the rows read so far while a csv.xz streams (PID:
 * the process of a report without a PID column); nsysjax_report_finish waits for the
 * report, feeds the rest (FEED: the trace went well) and releases it (the job itself is the
 * caller's: pq_free unless it is EARLY).
 * nsysjax_report_early starts the csv.xz report of a one-process archive from its bytes
 * D[0..N) (pqzip_peek) before libzip is loaded, when it can; nsysjax_report_drop ends it
 * when no nsysjax_report_start took it (no-op otherwise). */
void nsysjax_report_early(const uint8_t *d, size_t n, const char *path, nsysjax_report *j);
void nsysjax_report_drop(nsysjax_report *j);
nsysjax_report *nsysjax_report_start(pqzip *z, const char *path, const char *slug,
                                     nsysjax_report *early);
void nsysjax_report_ready(nsysjax_report *j, int64_t pid, const pq_events *ev,
                          const nsysjax_fp_ctx *fc);
pq_status nsysjax_report_finish(nsysjax_report *j, int feed, int64_t pid, const pq_events *ev,
                                const nsysjax_fp_ctx *fc, pq_error *err);

#endif
