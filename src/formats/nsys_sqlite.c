/* nsys_sqlite.c - the Nsight Systems SQLite export reader (nsys_sqlite.h): checks the SQLite
 * header against the file's size, opens the database read-only and immutable through the
 * lazily loaded libsqlite3, checks it is an nsys export, and feeds kernels, memcpys, memsets,
 * CUDA runtime calls, NVTX ranges and their GPU projection to the event interface; GPUs go to
 * it as devices (what TARGET_INFO_GPU states), their activity counts to model_nsys_export.
 * SQLite does the joins (names from StringIds, the projection through correlation ids). Not here:
 * any analysis of the timeline, the .nsys-rep refusal (load.c). */
#include "nsys_sqlite.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/pairmap.h"
#include "io/lazylib.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* The tables read; a bit each in db.tables. */
enum { T_KERNEL, T_STRINGS, T_MEMCPY, T_MEMSET, T_RUNTIME, T_NVTX, T_THREADS, T_PROCS, T_GPU, NT };
static const char *const TABLES[NT] = {"CUPTI_ACTIVITY_KIND_KERNEL",
                                       "StringIds",
                                       "CUPTI_ACTIVITY_KIND_MEMCPY",
                                       "CUPTI_ACTIVITY_KIND_MEMSET",
                                       "CUPTI_ACTIVITY_KIND_RUNTIME",
                                       "NVTX_EVENTS",
                                       "ThreadNames",
                                       "PROCESSES",
                                       "TARGET_INFO_GPU"};

/* NVTX eventType values of ranges: push/pop and start/end. */
#define NVTX_RANGE_TYPES "(59, 60)"

/* A GPU while reading: its activity counts and what TARGET_INFO_GPU states of it (a value
 * not stated, absent or not positive, is 0; strings in the source's arena). */
typedef struct gpu_row {
    model_gpu g;
    pq_str name, chip;
    int64_t v[6]; /* totalMemory, memoryBandwidth, clockRate, smCount, computeMajor, Minor */
} gpu_row;

typedef struct db {
    const lazy_sqlite *L;
    sqlite3 *h;
    const char *path;
    pq_error *err;
    const pq_events *ev;
    unsigned tables;
    model_nsys_export x; /* its gpus: unused here (the rows below), filled at the end */
    struct gpu_row *gpus;
    uint32_t capgpus;
    pairmap threads, procs; /* (pid, tid) / (pid, 0) seen on a track -> 1 */
} db;

static int has(const db *d, int t)
{
    return (d->tables >> t) & 1u;
}

static pq_status oom(db *d)
{
    return err_set(d->err, PQ_ERR_NOMEM, d->path, -1, "out of memory");
}

static pq_status sql_error(db *d, int table, const char *doing)
{
    return err_set(d->err, PQ_ERR_INPUT, d->path, -1,
                   "expected a readable Nsight SQLite export, SQLite failed %s%s%s: %s", doing,
                   table >= 0 ? " the table " : "", table >= 0 ? TABLES[table] : "",
                   d->L->sqlite3_errmsg(d->h));
}

static pq_status prepare(db *d, int table, const char *sql, sqlite3_stmt **st)
{
    *st = NULL;
    if (d->L->sqlite3_prepare_v2(d->h, sql, -1, st, NULL) != SQLITE_OK)
        return sql_error(d, table, "to query");
    return PQ_OK;
}

/* The next row: 1, 0 at the end, -1 on an error (set in d->err; *st finalized either way
 * when not 1). */
static int next_row(db *d, int table, sqlite3_stmt **st)
{
    int rc = d->L->sqlite3_step(*st);
    if (rc == SQLITE_ROW)
        return 1;
    if (rc != SQLITE_DONE)
        sql_error(d, table, "reading");
    d->L->sqlite3_finalize(*st);
    *st = NULL;
    return rc == SQLITE_DONE ? 0 : -1;
}

static int64_t col_i64(const db *d, sqlite3_stmt *st, int k)
{
    return d->L->sqlite3_column_int64(st, k);
}

static int col_null(const db *d, sqlite3_stmt *st, int k)
{
    return d->L->sqlite3_column_type(st, k) == SQLITE_NULL;
}

/* A TEXT or BLOB column as bytes (exports carry non-UTF-8 text), "" when NULL. */
static pq_str col_bytes(const db *d, sqlite3_stmt *st, int k)
{
    const void *p = d->L->sqlite3_column_blob(st, k);
    int n = d->L->sqlite3_column_bytes(st, k);
    return p && n > 0 ? pq_str_of(p, (size_t)n) : pq_str_of("", 0);
}

static int64_t pid_of(int64_t global)
{
    return (global >> 24) & 0xFFFFFF;
}

static int64_t tid_of(int64_t global)
{
    return global & 0xFFFFFF;
}

/* Start (ns) and end (ns) as a slice's times; 0 when end < start or the values overflow. */
static int set_times(pq_slice_in *s, int64_t start, int64_t end)
{
    if (end < start || start < -(INT64_MAX / 2) || end > INT64_MAX / 2 ||
        end - start > INT64_MAX / 1000)
        return 0;
    int64_t us = start / 1000, rem = start % 1000;
    if (rem < 0) {
        rem += 1000;
        us--;
    }
    s->ts_us = us;
    s->ts_frac_ps = rem * 1000;
    s->dur_ps = (end - start) * 1000;
    return 1;
}

static pq_status bad_times(db *d, int table, int64_t start, int64_t end)
{
    return err_set(d->err, PQ_ERR_INPUT, d->path, -1,
                   "expected end >= start (ns) in the table %s, found start %lld end %lld",
                   TABLES[table], (long long)start, (long long)end);
}

/* Names the tracks the reader makes up: "GPU D stream S", "GPU D NVTX (projected)". */
static int name_gpu_track(const db *d, int64_t pid, int64_t tid)
{
    char sb[96];
    int k;
    if (tid < 0)
        k = snprintf(sb, sizeof sb, "GPU %lld NVTX (projected)", (long long)(-tid - 1));
    else if (tid >= INT64_C(1000000000))
        k = snprintf(sb, sizeof sb, "GPU %lld stream %lld", (long long)(tid / 1000000000 - 1),
                     (long long)(tid % 1000000000));
    else
        return 0;
    return d->ev->thread_name(d->ev->ctx, pid, tid, pq_str_of(sb, (size_t)k));
}

/* Marks (pid, tid) as holding slices (host threads and processes are named at the end,
 * GPU tracks now). 0, or -1 out of memory. */
static int seen(db *d, int64_t pid, int64_t tid)
{
    int fresh;
    uint32_t *t = pairmap_slot(&d->threads, pid, tid, &fresh);
    if (!t)
        return -1;
    if (!fresh)
        return 0;
    *t = 1;
    uint32_t *p = pairmap_slot(&d->procs, pid, 0, &fresh);
    if (!p)
        return -1;
    *p = 1;
    return name_gpu_track(d, pid, tid);
}

static gpu_row *gpu_of(db *d, int64_t id)
{
    for (uint32_t k = 0; k < d->x.ngpus; k++)
        if (d->gpus[k].g.id == id)
            return &d->gpus[k];
    if (d->x.ngpus == d->capgpus) {
        uint32_t cap = d->capgpus ? d->capgpus * 2 : 8;
        gpu_row *g = pq_realloc_array(d->gpus, cap, sizeof *g);
        if (!g)
            return NULL;
        d->gpus = g;
        d->capgpus = cap;
    }
    gpu_row *g = &d->gpus[d->x.ngpus++];
    memset(g, 0, sizeof *g);
    g->g.id = id;
    return g;
}

static pq_status read_gpus(db *d, arena *mem)
{
    if (!has(d, T_GPU))
        return PQ_OK;
    sqlite3_stmt *st;
    FORWARD_IF_ERROR(prepare(d, T_GPU,
                             "SELECT id, name, chipName, totalMemory, memoryBandwidth, clockRate, "
                             "smCount, computeMajor, computeMinor FROM TARGET_INFO_GPU ORDER BY id",
                             &st));
    int r;
    while ((r = next_row(d, T_GPU, &st)) == 1) {
        gpu_row *g = gpu_of(d, col_i64(d, st, 0));
        pq_str nm = col_bytes(d, st, 1), chip = col_bytes(d, st, 2);
        char *a = g ? arena_strndup(mem, nm.p, nm.n) : NULL,
             *b = a ? arena_strndup(mem, chip.p, chip.n) : NULL;
        if (!b) {
            d->L->sqlite3_finalize(st);
            return oom(d);
        }
        g->name = pq_str_of(a, nm.n);
        g->chip = pq_str_of(b, chip.n);
        for (int k = 0; k < 6; k++)
            g->v[k] = col_i64(d, st, 3 + k) > 0 ? col_i64(d, st, 3 + k) : 0;
        for (int k = 4; k < 6; k++) /* not a compute capability */
            g->v[k] = g->v[k] < 1000 ? g->v[k] : 0;
    }
    return r < 0 ? PQ_ERR_INPUT : PQ_OK;
}

/* Each GPU as a model device through the event interface: its name and what the export
 * states (a column not positive is not stated; computeMinor is stated with computeMajor,
 * where 0 is a real minor). -1 when the consumer ran out of memory. */
static int give_devices(db *d)
{
    static const char *const keys[6] = {"totalMemory", "memoryBandwidth", "clockRate",
                                        "smCount",     "computeMajor",    "computeMinor"};
    for (uint32_t k = 0; d->ev->device && k < d->x.ngpus; k++) {
        const gpu_row *g = &d->gpus[k];
        pq_device_cap_in caps[7];
        size_t n = 0;
        if (g->chip.n)
            caps[n++] =
                (pq_device_cap_in){pq_str_of("chipName", 8), {.kind = PQ_DEV_STR, .s = g->chip}};
        for (int i = 0; i < 6; i++)
            if (g->v[i] > 0 || (i == 5 && g->v[4] > 0))
                caps[n++] = (pq_device_cap_in){pq_str_of(keys[i], strlen(keys[i])),
                                               {.kind = PQ_DEV_INT, .i = g->v[i]}};
        pq_device_in in = {g->g.id, "GPU", g->name, caps, n};
        if (d->ev->device(d->ev->ctx, &in) != 0)
            return -1;
    }
    return 0;
}

/* The memcpy kinds of CUpti_ActivityMemcpyKind as nsys names them. */
static pq_str memcpy_name(int64_t kind)
{
    static const char *const names[] = {
        "[CUDA memcpy Unknown]", "[CUDA memcpy HtoD]", "[CUDA memcpy DtoH]", "[CUDA memcpy HtoA]",
        "[CUDA memcpy AtoH]",    "[CUDA memcpy AtoA]", "[CUDA memcpy AtoD]", "[CUDA memcpy DtoA]",
        "[CUDA memcpy DtoD]",    "[CUDA memcpy HtoH]", "[CUDA memcpy PtoP]"};
    const char *s = kind >= 0 && kind <= 10 ? names[kind] : names[0];
    return pq_str_of(s, strlen(s));
}

/* Kernels, memcpys or memsets (TABLE) on their streams. */
static pq_status feed_gpu_work(db *d, int table)
{
    static const char *const sql[3] = {
        "SELECT k.start, k.end, k.deviceId, k.streamId, k.globalPid, s.value FROM "
        "CUPTI_ACTIVITY_KIND_KERNEL k LEFT JOIN StringIds s ON s.id = k.demangledName",
        "SELECT start, end, deviceId, streamId, globalPid, copyKind FROM "
        "CUPTI_ACTIVITY_KIND_MEMCPY",
        "SELECT start, end, deviceId, streamId, globalPid FROM CUPTI_ACTIVITY_KIND_MEMSET"};
    int w = table == T_KERNEL ? 0 : table == T_MEMCPY ? 1 : 2;
    if (!has(d, table))
        return PQ_OK;
    sqlite3_stmt *st;
    FORWARD_IF_ERROR(prepare(d, table, sql[w], &st));
    int r;
    while ((r = next_row(d, table, &st)) == 1) {
        pq_slice_in s = {0};
        int64_t start = col_i64(d, st, 0), end = col_i64(d, st, 1), dev = col_i64(d, st, 2),
                stream = col_i64(d, st, 3);
        if (!set_times(&s, start, end)) {
            d->L->sqlite3_finalize(st);
            return bad_times(d, table, start, end);
        }
        s.pid = col_null(d, st, 4) ? 0 : pid_of(col_i64(d, st, 4));
        s.tid = NSQL_STREAM_TID(dev & 0xFFFFFF, stream & 0x3FFFFFFF);
        static const char memset_name[] = "[CUDA memset]";
        s.name = w == 0   ? col_bytes(d, st, 5)
                 : w == 1 ? memcpy_name(col_i64(d, st, 5))
                          : pq_str_of(memset_name, sizeof memset_name - 1);
        s.gpu = w == 0 ? SLICE_GPU_KERNEL : w == 1 ? SLICE_GPU_MEMCPY : SLICE_GPU_MEMSET;
        gpu_row *g = gpu_of(d, dev & 0xFFFFFF);
        if (!g || seen(d, s.pid, s.tid) != 0 || d->ev->slice(d->ev->ctx, &s) != 0) {
            d->L->sqlite3_finalize(st);
            return oom(d);
        }
        uint64_t *c = w == 0 ? &g->g.kernels : w == 1 ? &g->g.memcpys : &g->g.memsets;
        (*c)++;
        (*(w == 0 ? &d->x.kernels : w == 1 ? &d->x.memcpys : &d->x.memsets))++;
    }
    return r < 0 ? PQ_ERR_INPUT : PQ_OK;
}

/* CUDA runtime calls or NVTX ranges on their host threads. */
static pq_status feed_host(db *d, int table)
{
    const char *sql =
        table == T_RUNTIME
            ? "SELECT r.start, r.end, r.globalTid, s.value FROM CUPTI_ACTIVITY_KIND_RUNTIME r "
              "LEFT JOIN StringIds s ON s.id = r.nameId"
            : "SELECT n.start, n.end, n.globalTid, COALESCE(n.text, s.value) FROM NVTX_EVENTS n "
              "LEFT JOIN StringIds s ON s.id = n.textId WHERE n.eventType IN " NVTX_RANGE_TYPES
              " AND n.end IS NOT NULL";
    if (!has(d, table))
        return PQ_OK;
    sqlite3_stmt *st;
    FORWARD_IF_ERROR(prepare(d, table, sql, &st));
    int r;
    while ((r = next_row(d, table, &st)) == 1) {
        pq_slice_in s = {0};
        int64_t start = col_i64(d, st, 0), end = col_i64(d, st, 1), g = col_i64(d, st, 2);
        if (!set_times(&s, start, end)) {
            d->L->sqlite3_finalize(st);
            return bad_times(d, table, start, end);
        }
        s.pid = pid_of(g);
        s.tid = tid_of(g);
        s.name = col_bytes(d, st, 3);
        if (seen(d, s.pid, s.tid) != 0 || d->ev->slice(d->ev->ctx, &s) != 0) {
            d->L->sqlite3_finalize(st);
            return oom(d);
        }
        (*(table == T_RUNTIME ? &d->x.runtime_calls : &d->x.nvtx_ranges))++;
    }
    return r < 0 ? PQ_ERR_INPUT : PQ_OK;
}

static int starts_with(pq_str s, const char *pre)
{
    size_t n = strlen(pre);
    return s.n >= n && memcmp(s.p, pre, n) == 0;
}

/* An XlaModule range name: its hlo_module NAME and program id (-1 when none is named). */
static int xla_module(pq_str s, pq_str *name, int64_t *program)
{
    static const char key[] = "hlo_module=", pidkey[] = ",program_id=";
    if (!starts_with(s, "TSL:XlaModule:#"))
        return 0;
    for (size_t i = 0; i + sizeof key - 1 <= s.n; i++) {
        if (memcmp(s.p + i, key, sizeof key - 1) != 0)
            continue;
        size_t b = i + sizeof key - 1, k = b;
        while (k < s.n && s.p[k] != ',' && s.p[k] != '#')
            k++;
        *name = pq_str_of(s.p + b, k - b);
        *program = -1;
        size_t pk = sizeof pidkey - 1;
        if (s.n - k > pk && memcmp(s.p + k, pidkey, pk) == 0) {
            int64_t v = 0;
            for (k += pk; k < s.n && s.p[k] >= '0' && s.p[k] <= '9' && v < INT64_C(1) << 40; k++)
                v = v * 10 + (s.p[k] - '0');
            *program = v;
        }
        return 1;
    }
    return 0;
}

/* The module execution a projected range runs in, on the thread that opened it. */
typedef struct xla_state {
    int64_t thread, start, end; /* the module range's globalTid and host span */
    int64_t rowid;
    pq_str module; /* valid while its row is current: copied into buf */
    char buf[256];
    char run[48];
    int have;
} xla_state;

/* Sets the XLA args of projected slice S (NVTX row ROWID, host span [START, END] on
 * THREAD) from its name. 0, or -1 out of memory. */
static int xla_args(db *d, xla_state *x, pairmap *execs, pq_slice_in *s, int64_t rowid,
                    int64_t thread, int64_t start, int64_t end)
{
    pq_str mod;
    int64_t program;
    if (xla_module(s->name, &mod, &program)) {
        if (rowid != x->rowid) {
            int fresh;
            uint32_t *slot = pairmap_slot(execs, thread, program, &fresh);
            if (!slot)
                return -1;
            *slot = fresh ? 0 : *slot + 1;
            size_t n = mod.n < sizeof x->buf ? mod.n : sizeof x->buf;
            memcpy(x->buf, mod.p, n);
            x->module = pq_str_of(x->buf, n);
            snprintf(x->run, sizeof x->run, "%lld:%u", (long long)program, *slot);
            x->thread = thread, x->start = start, x->end = end, x->rowid = rowid, x->have = 1;
            d->x.module_ranges++;
        }
        s->module = x->module;
        s->run_id = pq_str_of(x->run, strlen(x->run));
    } else if (starts_with(s->name, "TSL:Thunk:#") && x->have && x->thread == thread &&
               start >= x->start && start <= x->end) {
        s->module = x->module;
        s->run_id = pq_str_of(x->run, strlen(x->run));
        s->xla_op = 1;
        d->x.thunk_ranges += rowid != x->rowid;
    }
    return 0;
}

/* NVTX ranges projected onto the GPU through the CUDA runtime calls inside them. */
static pq_status feed_projected(db *d)
{
    if (!has(d, T_NVTX) || !has(d, T_RUNTIME))
        return PQ_OK;
    static const char sql[] =
        "SELECT n.rowid, n.globalTid, n.start, n.end, k.deviceId, MIN(k.start), MAX(k.end), "
        "COALESCE(n.text, s.value) FROM NVTX_EVENTS n "
        "JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.globalTid = n.globalTid "
        "AND r.start >= n.start AND r.start <= n.end "
        "JOIN CUPTI_ACTIVITY_KIND_KERNEL k ON k.correlationId = r.correlationId "
        "AND k.globalPid = (r.globalTid >> 24) << 24 "
        "LEFT JOIN StringIds s ON s.id = n.textId WHERE n.eventType IN " NVTX_RANGE_TYPES
        " AND n.end IS NOT NULL GROUP BY n.rowid, k.deviceId "
        "ORDER BY n.globalTid, n.start, n.end DESC, n.rowid, k.deviceId";
    sqlite3_stmt *st;
    FORWARD_IF_ERROR(prepare(d, T_NVTX, sql, &st));
    pairmap execs = {0};
    xla_state x = {.rowid = -1};
    int r = 0;
    pq_status fail = PQ_OK;
    while (fail == PQ_OK && (r = next_row(d, T_NVTX, &st)) == 1) {
        pq_slice_in s = {0};
        int64_t rowid = col_i64(d, st, 0), g = col_i64(d, st, 1), dev = col_i64(d, st, 4);
        int64_t start = col_i64(d, st, 5), end = col_i64(d, st, 6);
        if (!set_times(&s, start, end)) {
            fail = bad_times(d, T_KERNEL, start, end);
            break;
        }
        s.pid = pid_of(g);
        s.tid = NSQL_PROJECTED_TID(dev & 0xFFFFFF);
        s.name = col_bytes(d, st, 7);
        s.gpu = SLICE_GPU_ANNOTATION;
        if (xla_args(d, &x, &execs, &s, rowid, g, col_i64(d, st, 2), col_i64(d, st, 3)) != 0 ||
            seen(d, s.pid, s.tid) != 0 || d->ev->slice(d->ev->ctx, &s) != 0)
            fail = oom(d);
        x.rowid = rowid;
        d->x.projected_ranges++;
    }
    if (st)
        d->L->sqlite3_finalize(st);
    pairmap_free(&execs);
    if (fail != PQ_OK)
        return fail;
    return r < 0 ? PQ_ERR_INPUT : PQ_OK;
}

/* Names processes (PROCESSES) and threads (ThreadNames, streams, projections) that hold
 * slices. */
static pq_status name_tracks(db *d)
{
    sqlite3_stmt *st;
    int r = 0;
    if (has(d, T_PROCS)) {
        FORWARD_IF_ERROR(prepare(d, T_PROCS, "SELECT globalPid, name FROM PROCESSES", &st));
        while ((r = next_row(d, T_PROCS, &st)) == 1) {
            int64_t pid = pid_of(col_i64(d, st, 0));
            if (pairmap_get(&d->procs, pid, 0) != UINT32_MAX &&
                d->ev->process_name(d->ev->ctx, pid, col_bytes(d, st, 1)) != 0) {
                d->L->sqlite3_finalize(st);
                return oom(d);
            }
        }
        if (r < 0)
            return PQ_ERR_INPUT;
    }
    if (has(d, T_THREADS)) {
        FORWARD_IF_ERROR(prepare(d, T_THREADS,
                                 "SELECT t.globalTid, s.value FROM ThreadNames t JOIN StringIds s "
                                 "ON s.id = t.nameId",
                                 &st));
        while ((r = next_row(d, T_THREADS, &st)) == 1) {
            int64_t g = col_i64(d, st, 0);
            if (pairmap_get(&d->threads, pid_of(g), tid_of(g)) != UINT32_MAX &&
                d->ev->thread_name(d->ev->ctx, pid_of(g), tid_of(g), col_bytes(d, st, 1)) != 0) {
                d->L->sqlite3_finalize(st);
                return oom(d);
            }
        }
        if (r < 0)
            return PQ_ERR_INPUT;
    }
    return PQ_OK;
}

/* Which of the tables exist; an export must have StringIds and the kernel table. */
static pq_status find_tables(db *d)
{
    sqlite3_stmt *st;
    FORWARD_IF_ERROR(
        prepare(d, -1, "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')", &st));
    int r;
    while ((r = next_row(d, -1, &st)) == 1) {
        pq_str nm = col_bytes(d, st, 0);
        for (int t = 0; t < NT; t++)
            if (nm.n == strlen(TABLES[t]) && memcmp(nm.p, TABLES[t], nm.n) == 0)
                d->tables |= 1u << t;
    }
    if (r < 0)
        return PQ_ERR_INPUT;
    RETURN_ERROR_IF(!has(d, T_STRINGS), d->err, PQ_ERR_INPUT, d->path, -1,
                    "expected an Nsight Systems SQLite export (nsys export --type sqlite) with "
                    "the tables StringIds and CUPTI_ACTIVITY_KIND_KERNEL, found an SQLite "
                    "database without StringIds");
    RETURN_ERROR_IF(!has(d, T_KERNEL), d->err, PQ_ERR_INPUT, d->path, -1,
                    "expected the table CUPTI_ACTIVITY_KIND_KERNEL in this Nsight Systems "
                    "SQLite export (a run profiled with CUDA tracing that launched kernels), "
                    "found none");
    return PQ_OK;
}

static pq_status feed_db(db *d, arena *mem)
{
    FORWARD_IF_ERROR(find_tables(d));
    FORWARD_IF_ERROR(read_gpus(d, mem));
    FORWARD_IF_ERROR(feed_gpu_work(d, T_KERNEL));
    FORWARD_IF_ERROR(feed_gpu_work(d, T_MEMCPY));
    FORWARD_IF_ERROR(feed_gpu_work(d, T_MEMSET));
    FORWARD_IF_ERROR(feed_host(d, T_RUNTIME));
    FORWARD_IF_ERROR(feed_host(d, T_NVTX));
    FORWARD_IF_ERROR(feed_projected(d));
    if (give_devices(d) != 0)
        return oom(d);
    return name_tracks(d);
}

static uint32_t be(const uint8_t *p, int n)
{
    uint32_t v = 0;
    for (int i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

/* The 100-byte header: a valid page size, and a file as long as the pages it states. */
static pq_status check_header(const uint8_t *data, size_t n, const char *path, pq_error *err)
{
    RETURN_ERROR_IF(n < 100 || memcmp(data, "SQLite format 3", 16) != 0, err, PQ_ERR_INPUT, path,
                    n < 100 ? (int64_t)n : 0,
                    "expected the 100-byte header of an SQLite database, found %zu bytes", n);
    uint32_t page = be(data + 16, 2);
    page = page == 1 ? 65536 : page;
    RETURN_ERROR_IF(page < 512 || (page & (page - 1)), err, PQ_ERR_INPUT, path, 16,
                    "expected an SQLite page size (a power of two from 512 to 65536), found "
                    "%u",
                    page);
    uint32_t pages = be(data + 28, 4);
    /* The in-header size is valid when the change counter equals version-valid-for. */
    RETURN_ERROR_IF(pages && be(data + 24, 4) == be(data + 92, 4) && (uint64_t)pages * page > n,
                    err, PQ_ERR_INPUT, path, (int64_t)n,
                    "expected %llu bytes (%u pages of %u bytes, as the SQLite header states), "
                    "found %zu: the file is truncated",
                    (unsigned long long)pages * page, pages, page, n);
    return PQ_OK;
}

/* Runs the reader on an open handle and closes it. */
static pq_status feed_handle(db *d, arena *mem, model_nsys_export *out)
{
    pq_status st = feed_db(d, mem);
    d->L->sqlite3_close_v2(d->h);
    pairmap_free(&d->threads);
    pairmap_free(&d->procs);
    if (st == PQ_OK && out) {
        *out = d->x;
        out->gpus = d->x.ngpus ? arena_alloc(mem, d->x.ngpus * sizeof *out->gpus) : NULL;
        for (uint32_t k = 0; out->gpus && k < d->x.ngpus; k++)
            out->gpus[k] = d->gpus[k].g;
        if (!out->gpus && d->x.ngpus)
            st = err_set(d->err, PQ_ERR_NOMEM, d->path, -1, "out of memory");
    }
    pq_free(d->gpus);
    return st;
}

static pq_status open_error(db *d)
{
    pq_status st = sql_error(d, -1, "to open it");
    d->L->sqlite3_close_v2(d->h);
    return st;
}

pq_status nsys_sqlite_feed_memory(const uint8_t *data, size_t n, const char *path,
                                  const pq_events *ev, arena *mem, model_nsys_export *out,
                                  pq_error *err)
{
    FORWARD_IF_ERROR(check_header(data, n, path, err));
    db d = {.path = path, .err = err, .ev = ev};
    FORWARD_IF_ERROR(lazylib_sqlite(&d.L, path, err));
    if (d.L->sqlite3_open_v2(":memory:", &d.h, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
        return open_error(&d);
    /* READONLY: SQLite never writes the buffer (a read-only mapping) nor grows it. */
    if (d.L->sqlite3_deserialize(d.h, "main", (unsigned char *)(uintptr_t)data, (sqlite3_int64)n,
                                 (sqlite3_int64)n, SQLITE_DESERIALIZE_READONLY) != SQLITE_OK)
        return open_error(&d);
    return feed_handle(&d, mem, out);
}

pq_status nsys_sqlite_read(pq_source *src, pq_error *err)
{
    pq_events ev = slices_events(src->slices);
    model_nsys_export *x = arena_alloc(&src->mem, sizeof *x);
    RETURN_ERROR_IF(!x, err, PQ_ERR_NOMEM, src->path, -1, "out of memory");
    struct stat sb;
    if (stat(src->path, &sb) != 0 || !S_ISREG(sb.st_mode) ||
        (uint64_t)sb.st_size != (uint64_t)src->file.size) {
        /* Bytes that are not the file at PATH (stdin, a pipe, a buffer given to the memory
         * entry points): the image the caller holds, deserialized read-only. */
        FORWARD_IF_ERROR(nsys_sqlite_feed_memory(src->file.data, src->file.size, src->path, &ev,
                                                 &src->mem, x, err));
        src->nsys_export = x;
        src->info.events = src->trace_events = src->slices->n;
        return PQ_OK;
    }
    FORWARD_IF_ERROR(check_header(src->file.data, src->file.size, src->path, err));
    db d = {.path = src->path, .err = err, .ev = &ev};
    FORWARD_IF_ERROR(lazylib_sqlite(&d.L, src->path, err));
    /* file:PATH?immutable=1, with the URI's special characters escaped: SQLite then takes
     * no lock, writes no journal and trusts the file not to change. */
    size_t pl = strlen(src->path);
    char *uri = pq_malloc(pl * 3 + 32);
    RETURN_ERROR_IF(!uri, err, PQ_ERR_NOMEM, src->path, -1, "out of memory");
    size_t k = (size_t)sprintf(uri, "file:");
    for (size_t i = 0; i < pl; i++) {
        unsigned char c = (unsigned char)src->path[i];
        if (c == '%' || c == '?' || c == '#' || c < 0x20 || c >= 0x7f)
            k += (size_t)sprintf(uri + k, "%%%02X", c);
        else
            uri[k++] = (char)c;
    }
    strcpy(uri + k, "?immutable=1");
    int rc = d.L->sqlite3_open_v2(uri, &d.h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    pq_free(uri);
    if (rc != SQLITE_OK)
        return open_error(&d);
    FORWARD_IF_ERROR(feed_handle(&d, &src->mem, x));
    src->nsys_export = x;
    src->info.events = src->trace_events = src->slices->n;
    return PQ_OK;
}
