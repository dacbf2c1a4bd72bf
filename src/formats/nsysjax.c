/* nsysjax.c - the nsys-jax archive reader (nsysjax.h): opens the zip in place (io/zip.h),
 * reads the archive-era trace.parquet (formats/parquet.h) and the push/pop report
 * (formats/pushpop.h), resolves modules and thunks as the archive-era loader does, and feeds
 * every range to the event interface. Not here: the module/thunk tables, the warm-up split
 * (analysis/nsys_modules.c), HloProto dumps, the newer column sets, metadata parquets. */
#include "nsysjax.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/pairmap.h"
#include "formats/parquet.h"
#include "formats/pushpop.h"
#include "io/zip.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRACE_MEMBER "nvtx_gpu_proj_trace/trace.parquet"

static const char MODULE_PREFIX[] = "TSL:XlaModule:";
static const char THUNK_PREFIX[] = "TSL:Thunk:#";

/* The archive-era columns read, with their physical types. */
enum { C_NAME, C_PSTART, C_PDUR, C_OSTART, C_PID, C_TID, C_GPUOPS, C_RID, C_PARENT, NCOL };
static const char *const COL_NAMES[NCOL] = {
    "Name",    "Projected Start", "Projected Duration", "Orig Start", "PID", "TID", "NumGPUOps",
    "RangeId", "ParentId"};
static const int COL_TYPES[NCOL] = {PARQUET_BYTE_ARRAY, PARQUET_INT64,  PARQUET_INT64,
                                    PARQUET_DOUBLE,     PARQUET_INT64,  PARQUET_INT64,
                                    PARQUET_INT64,      PARQUET_DOUBLE, PARQUET_DOUBLE};

enum { K_OTHER = 0, K_MODULE = 1, K_THUNK = 2, K_CUT = 3 /* a module dropped as cut short */ };

/* One resolved row of trace.parquet. */
typedef struct trow {
    int kind;        /* K_* after resolution (kept modules and thunks only) */
    int has_rid;     /* RangeId not null */
    uint32_t module; /* a thunk's module row; UINT32_MAX when none */
    int64_t program; /* program id (-1: none named) */
    int64_t exec;    /* ProgramExecution */
    int64_t device;  /* device ordinal; -1 when the thread launched no thunk */
    pq_str hlo_module;
} trow;

typedef struct trace {
    const char *path;
    size_t n;
    parquet_values col[NCOL];
    trow *rows;
    int ndevices;
} trace;

static int starts_with(pq_str s, const char *pre, size_t n)
{
    return s.n >= n && memcmp(s.p, pre, n) == 0;
}

static int is_module_name(pq_str s)
{
    return starts_with(s, MODULE_PREFIX, sizeof MODULE_PREFIX - 1);
}

static int is_thunk_name(pq_str s)
{
    return starts_with(s, THUNK_PREFIX, sizeof THUNK_PREFIX - 1);
}

static int hlo_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

/* The tail "hlo_module=NAME[,program_id=N]#" of an XlaModule name at S[0..N). */
static int module_tail(const char *s, size_t n, pq_str *name, int64_t *program)
{
    static const char key[] = "hlo_module=", pidkey[] = ",program_id=";
    size_t k = sizeof key - 1;
    if (n < k || memcmp(s, key, k) != 0)
        return 0;
    size_t b = k;
    while (k < n && hlo_name_char(s[k]))
        k++;
    if (k == b)
        return 0;
    *name = pq_str_of(s + b, k - b);
    *program = -1;
    size_t pk = sizeof pidkey - 1;
    if (n - k > pk && memcmp(s + k, pidkey, pk) == 0 && s[k + pk] >= '0' && s[k + pk] <= '9') {
        int64_t v = 0;
        k += pk;
        while (k < n && s[k] >= '0' && s[k] <= '9' && v < INT64_C(1) << 40)
            v = v * 10 + (s[k++] - '0');
        *program = v;
    }
    return k + 1 == n && s[k] == '#';
}

/* The loader's `^TSL:XlaModule:#(?:prefix=(.*?),|)hlo_module=([a-z0-9._-]+)
 * (?:,program_id=(\d+)|)#$`: the module name and program id; 0 when it does not match. */
static int parse_module_name(pq_str s, pq_str *name, int64_t *program)
{
    static const char head[] = "TSL:XlaModule:#", pre[] = "prefix=";
    size_t h = sizeof head - 1, p = sizeof pre - 1;
    if (s.n < h || memcmp(s.p, head, h) != 0)
        return 0;
    const char *r = s.p + h;
    size_t rn = s.n - h;
    if (rn >= p && memcmp(r, pre, p) == 0) {
        /* The lazy prefix group: the first comma after which the tail matches. */
        for (size_t c = p; c < rn; c++)
            if (r[c] == ',' && module_tail(r + c + 1, rn - c - 1, name, program))
                return 1;
    }
    return module_tail(r, rn, name, program);
}

static pq_status read_columns(trace *t, const uint8_t *data, size_t n, pq_error *err)
{
    parquet_file *f = NULL;
    FORWARD_IF_ERROR(parquet_open(data, n, t->path, &f, err));
    pq_status st = PQ_OK;
    long idx[NCOL];
    for (int c = 0; c < NCOL && st == PQ_OK; c++) {
        idx[c] = parquet_find_column(f, COL_NAMES[c]);
        const parquet_column_info *ci = idx[c] >= 0 ? parquet_column(f, (size_t)idx[c]) : NULL;
        if (!ci) {
            int newer = parquet_find_column(f, "Text") >= 0 && parquet_find_column(f, "Name") < 0;
            st =
                err_set(err, PQ_ERR_INPUT, t->path, -1,
                        "expected the column \"%s\" of the archive-era nvtx_gpu_proj_trace "
                        "(Name, Projected Start, Projected Duration, Orig Start, PID, TID, "
                        "NumGPUOps, RangeId, ParentId)%s",
                        COL_NAMES[c],
                        newer ? "; this is the newer Text/Start/End column set, not read yet" : "");
        } else if (ci->physical != COL_TYPES[c] || !ci->flat) {
            st =
                err_set(err, PQ_ERR_INPUT, t->path, -1,
                        "expected the column \"%s\" to be a flat %s column, found %s", COL_NAMES[c],
                        parquet_type_name(COL_TYPES[c]), parquet_type_name(ci->physical));
        }
    }
    t->n = st == PQ_OK ? (size_t)parquet_num_rows(f) : 0;
    for (int c = 0; c < NCOL && st == PQ_OK; c++) {
        st = parquet_read_column(f, (size_t)idx[c], &t->col[c], err);
        if (st == PQ_OK && t->col[c].n != t->n)
            st = err_set(err, PQ_ERR_INPUT, t->path, -1,
                         "expected %zu values in the column \"%s\", found %zu", t->n, COL_NAMES[c],
                         t->col[c].n);
    }
    parquet_close(f);
    return st;
}

static int valid(const parquet_values *v, size_t i)
{
    return !v->valid || v->valid[i];
}

/* The row of the range with id RID (from a double column), or UINT32_MAX. */
static uint32_t row_of(const pairmap *ids, const parquet_values *v, size_t i)
{
    if (!valid(v, i) || !(fabs(v->f64[i]) < 9e15))
        return UINT32_MAX;
    return pairmap_get(ids, (int64_t)v->f64[i], 0);
}

/* Thunks: the deepest thunk ranges, linked to their nearest XlaModule ancestor; thunks that
 * start (host time) before the first module are edge effects and dropped. A thunk reached
 * walking up from a kept thunk has a thunk child and is no thunk row. Each range is walked
 * once (its ancestor module is remembered), so deep nesting or ParentId cycles stay linear.
 * 0, or -1 when memory ran out. */
static int link_thunks(trace *t, const pairmap *ids)
{
    const parquet_values *nm = &t->col[C_NAME], *os = &t->col[C_OSTART];
    double first_module = INFINITY;
    for (size_t i = 0; i < t->n; i++)
        if (t->rows[i].has_rid && is_module_name(nm->str[i]) && valid(os, i) &&
            os->f64[i] < first_module)
            first_module = os->f64[i];
    uint8_t *has_child = pq_calloc(t->n + 1, 1);
    uint32_t *anc = pq_malloc((t->n + 1) * sizeof *anc),
             *path = pq_malloc((t->n + 1) * sizeof *path);
    if (!has_child || !anc || !path) {
        pq_free(has_child), pq_free(anc), pq_free(path);
        return -1;
    }
    for (size_t i = 0; i < t->n; i++) {
        trow *r = &t->rows[i];
        if (!r->has_rid || !is_thunk_name(nm->str[i]) ||
            (valid(os, i) && os->f64[i] < first_module))
            continue;
        size_t np = 0;
        uint32_t cur = row_of(ids, &t->col[C_PARENT], i);
        while (cur != UINT32_MAX && is_thunk_name(nm->str[cur]) && !has_child[cur]) {
            has_child[cur] = 1;
            anc[cur] = UINT32_MAX; /* a cycle back to it finds no module */
            path[np++] = cur;
            cur = row_of(ids, &t->col[C_PARENT], cur);
        }
        uint32_t module = UINT32_MAX;
        if (cur != UINT32_MAX && is_thunk_name(nm->str[cur]))
            module = anc[cur];
        else if (cur != UINT32_MAX && is_module_name(nm->str[cur]))
            module = cur;
        while (np)
            anc[path[--np]] = module;
        if (module != UINT32_MAX) {
            r->kind = K_THUNK;
            r->module = module;
        }
    }
    for (size_t i = 0; i < t->n; i++) {
        if (t->rows[i].kind == K_THUNK && has_child[i])
            t->rows[i].kind = K_OTHER;
        if (t->rows[i].kind == K_THUNK)
            t->rows[t->rows[i].module].kind = K_MODULE;
    }
    pq_free(has_child), pq_free(anc), pq_free(path);
    return 0;
}

typedef struct mod_ref {
    pq_str name;
    double rid;
    uint32_t row;
} mod_ref;

static int cmp_mod_ref(const void *pa, const void *pb)
{
    const mod_ref *a = pa, *b = pb;
    size_t m = a->name.n < b->name.n ? a->name.n : b->name.n;
    int c = memcmp(a->name.p, b->name.p, m);
    if (c || a->name.n != b->name.n)
        return c ? c : (a->name.n < b->name.n ? -1 : 1);
    return a->rid < b->rid ? -1 : a->rid > b->rid;
}

/* The loader's guess that collection stopped inside a module: per module name, the last
 * occurrence (by RangeId) is dropped with its thunks when its NumGPUOps is below the mean
 * minus the (population) standard deviation of the earlier ones. */
static int drop_cut_modules(trace *t)
{
    size_t nm = 0;
    for (size_t i = 0; i < t->n; i++)
        nm += t->rows[i].kind == K_MODULE;
    mod_ref *m = pq_malloc((nm + 1) * sizeof *m);
    if (!m)
        return -1;
    nm = 0;
    for (size_t i = 0; i < t->n; i++)
        if (t->rows[i].kind == K_MODULE)
            m[nm++] = (mod_ref){t->col[C_NAME].str[i], t->col[C_RID].f64[i], (uint32_t)i};
    qsort(m, nm, sizeof *m, cmp_mod_ref);
    for (size_t a = 0, b; a < nm; a = b) {
        for (b = a + 1;
             b < nm && cmp_mod_ref(&(mod_ref){m[a].name, 0, 0}, &(mod_ref){m[b].name, 0, 0}) == 0;)
            b++;
        size_t k = b - a - 1; /* occurrences before the last */
        if (k == 0)
            continue;
        double sum = 0, ss = 0;
        for (size_t j = a; j < b - 1; j++)
            sum += (double)t->col[C_GPUOPS].i64[m[j].row];
        double mean = sum / (double)k;
        for (size_t j = a; j < b - 1; j++) {
            double d = (double)t->col[C_GPUOPS].i64[m[j].row] - mean;
            ss += d * d;
        }
        uint32_t last = m[b - 1].row;
        if ((double)t->col[C_GPUOPS].i64[last] < mean - sqrt(ss / (double)k))
            t->rows[last].kind = K_CUT;
    }
    for (size_t i = 0; i < t->n; i++)
        if (t->rows[i].kind == K_THUNK && t->rows[t->rows[i].module].kind == K_CUT)
            t->rows[i].kind = K_OTHER;
    for (size_t i = 0; i < t->n; i++)
        if (t->rows[i].kind == K_CUT)
            t->rows[i].kind = K_OTHER;
    pq_free(m);
    return 0;
}

typedef struct prog_tid {
    int64_t program, tid;
} prog_tid;

static int cmp_prog_tid(const void *pa, const void *pb)
{
    const prog_tid *a = pa, *b = pb;
    if (a->program != b->program)
        return a->program < b->program ? -1 : 1;
    return a->tid < b->tid ? -1 : a->tid > b->tid;
}

typedef struct rid_row {
    double rid;
    uint32_t row;
} rid_row;

static int cmp_rid_row(const void *pa, const void *pb)
{
    const rid_row *a = pa, *b = pb;
    return a->rid < b->rid ? -1 : a->rid > b->rid;
}

/* Program ids and executions (cumcount per (TID, program) in RangeId order), then device
 * ordinals: per program, the sorted distinct TIDs that launched its thunks. */
static pq_status number_modules(trace *t, pq_error *err)
{
    const int64_t *tid = t->col[C_TID].i64;
    pairmap count = {0}, ordinal = {0};
    pq_status st = PQ_OK;
    /* Modules in RangeId order (nsys writes rows so; any order is taken). */
    size_t nm = 0;
    rid_row *order = pq_malloc((t->n + 1) * sizeof *order);
    if (!order)
        return err_set(err, PQ_ERR_NOMEM, t->path, -1, "out of memory");
    for (size_t i = 0; i < t->n; i++)
        if (t->rows[i].kind == K_MODULE)
            order[nm++] = (rid_row){t->col[C_RID].f64[i], (uint32_t)i};
    qsort(order, nm, sizeof *order, cmp_rid_row);
    for (size_t k = 0; k < nm && st == PQ_OK; k++) {
        size_t i = order[k].row;
        trow *r = &t->rows[i];
        if (!parse_module_name(t->col[C_NAME].str[i], &r->hlo_module, &r->program)) {
            st = err_set(err, PQ_ERR_INPUT, t->path, -1,
                         "expected an XlaModule range name "
                         "\"TSL:XlaModule:#[prefix=...,]hlo_module=NAME[,program_id=N]#\" in row "
                         "%zu, found \"%.*s\"",
                         i, (int)(t->col[C_NAME].str[i].n > 200 ? 200 : t->col[C_NAME].str[i].n),
                         t->col[C_NAME].str[i].p);
            break;
        }
        int fresh;
        uint32_t *slot = pairmap_slot(&count, tid[i], r->program, &fresh);
        if (!slot) {
            st = err_set(err, PQ_ERR_NOMEM, t->path, -1, "out of memory");
            break;
        }
        *slot = fresh ? 0 : *slot + 1;
        r->exec = *slot;
    }
    pq_free(order);
    size_t np = 0;
    prog_tid *pt = st == PQ_OK ? pq_malloc((t->n + 1) * sizeof *pt) : NULL;
    if (st == PQ_OK && !pt)
        st = err_set(err, PQ_ERR_NOMEM, t->path, -1, "out of memory");
    for (size_t i = 0; pt && i < t->n; i++) {
        trow *r = &t->rows[i];
        if (r->kind != K_THUNK)
            continue;
        r->program = t->rows[r->module].program;
        r->exec = t->rows[r->module].exec;
        r->hlo_module = t->rows[r->module].hlo_module;
        pt[np++] = (prog_tid){r->program, tid[i]};
    }
    if (pt)
        qsort(pt, np, sizeof *pt, cmp_prog_tid);
    for (size_t a = 0, b, ord; st == PQ_OK && a < np; a = b) {
        for (b = a, ord = 0; b < np && pt[b].program == pt[a].program; b++) {
            if (b > a && pt[b].tid == pt[b - 1].tid)
                continue;
            int fresh;
            uint32_t *slot = pairmap_slot(&ordinal, pt[b].tid, 0, &fresh);
            if (!slot) {
                st = err_set(err, PQ_ERR_NOMEM, t->path, -1, "out of memory");
                break;
            }
            if (!fresh && *slot != ord)
                st = err_set(err, PQ_ERR_INPUT, t->path, -1,
                             "expected each thread to launch the thunks of one device, found "
                             "thread %lld as local device %u and %zu",
                             (long long)pt[b].tid, *slot, ord);
            *slot = (uint32_t)ord;
            if ((int)ord + 1 > t->ndevices)
                t->ndevices = (int)ord + 1;
            ord++;
        }
    }
    for (size_t i = 0; st == PQ_OK && i < t->n; i++) {
        uint32_t o = pairmap_get(&ordinal, tid[i], 0);
        t->rows[i].device = o == UINT32_MAX ? -1 : (int64_t)o;
    }
    pq_free(pt);
    pairmap_free(&count);
    pairmap_free(&ordinal);
    return st;
}

static pq_status resolve(trace *t, pq_error *err)
{
    t->rows = pq_calloc(t->n + 1, sizeof *t->rows);
    pairmap ids = {0};
    if (!t->rows)
        return err_set(err, PQ_ERR_NOMEM, t->path, -1, "out of memory");
    const parquet_values *rid = &t->col[C_RID];
    for (size_t i = 0; i < t->n; i++) {
        t->rows[i].module = UINT32_MAX;
        t->rows[i].program = -1;
        if (!valid(rid, i))
            continue;
        if (!(fabs(rid->f64[i]) < 9e15) || rid->f64[i] != floor(rid->f64[i])) {
            pairmap_free(&ids);
            return err_set(err, PQ_ERR_INPUT, t->path, -1,
                           "expected a whole RangeId in row %zu, found %.17g", i, rid->f64[i]);
        }
        int fresh;
        uint32_t *slot = pairmap_slot(&ids, (int64_t)rid->f64[i], 0, &fresh);
        if (!slot) {
            pairmap_free(&ids);
            return err_set(err, PQ_ERR_NOMEM, t->path, -1, "out of memory");
        }
        if (!fresh) {
            uint32_t first = *slot;
            pairmap_free(&ids);
            return err_set(err, PQ_ERR_INPUT, t->path, -1,
                           "expected unique RangeIds, found %.17g in rows %u and %zu", rid->f64[i],
                           first, i);
        }
        *slot = (uint32_t)i;
        t->rows[i].has_rid = 1;
    }
    int oom = link_thunks(t, &ids) != 0;
    pairmap_free(&ids);
    if (oom || drop_cut_modules(t) != 0)
        return err_set(err, PQ_ERR_NOMEM, t->path, -1, "out of memory");
    return number_modules(t, err);
}

/* Names host thread TID's track (once per run of rows on it). */
static int name_host(const pq_events *ev, int64_t pid, int64_t tid, int64_t *last)
{
    if (tid == *last)
        return 0;
    *last = tid;
    char sb[64];
    int k = snprintf(sb, sizeof sb, "host thread %lld", (long long)tid);
    return ev->thread_name(ev->ctx, pid, NSYSJAX_HOST_TID(tid), pq_str_of(sb, (size_t)k));
}

static void split_ns(int64_t ns, pq_slice_in *s)
{
    int64_t us = ns / 1000, rem = ns % 1000;
    if (rem < 0) {
        rem += 1000;
        us--;
    }
    s->ts_us = us;
    s->ts_frac_ps = rem * 1000;
}

static int name_tracks(const trace *t, const pq_events *ev)
{
    char sb[64];
    int64_t last_pid = INT64_MIN;
    for (size_t i = 0; i < t->n; i++) {
        int64_t pid = t->col[C_PID].i64[i];
        if (!t->rows[i].has_rid || pid == last_pid)
            continue;
        last_pid = pid;
        int k = snprintf(sb, sizeof sb, "process %lld", (long long)pid);
        if (ev->process_name(ev->ctx, pid, pq_str_of(sb, (size_t)k)) != 0)
            return -1;
        for (int d = 0; d < t->ndevices; d++) {
            k = snprintf(sb, sizeof sb, "device %d", d);
            if (ev->thread_name(ev->ctx, pid, d, pq_str_of(sb, (size_t)k)) != 0)
                return -1;
        }
    }
    return 0;
}

/* Every range with a RangeId, in file order, on its device's track. */
static pq_status feed_trace(const trace *t, const pq_events *ev, pq_error *err)
{
    if (name_tracks(t, ev) != 0)
        return err_set(err, PQ_ERR_NOMEM, t->path, -1, "out of memory");
    char run[48];
    int64_t last = INT64_MIN;
    for (size_t i = 0; i < t->n; i++) {
        const trow *r = &t->rows[i];
        if (!r->has_rid)
            continue;
        if (r->device < 0 && name_host(ev, t->col[C_PID].i64[i], t->col[C_TID].i64[i], &last))
            return err_set(err, PQ_ERR_NOMEM, t->path, -1, "out of memory");
        if (!valid(&t->col[C_PSTART], i) || !valid(&t->col[C_PDUR], i) ||
            t->col[C_PDUR].i64[i] < 0 || t->col[C_PDUR].i64[i] > INT64_MAX / 1000)
            return err_set(err, PQ_ERR_INPUT, t->path, -1,
                           "expected a projected start and a non-negative projected duration in "
                           "row %zu (RangeId %.17g)",
                           i, t->col[C_RID].f64[i]);
        pq_slice_in s = {0};
        s.pid = t->col[C_PID].i64[i];
        s.tid = r->device >= 0 ? r->device : NSYSJAX_HOST_TID(t->col[C_TID].i64[i]);
        s.name = t->col[C_NAME].str[i];
        split_ns(t->col[C_PSTART].i64[i], &s);
        s.dur_ps = t->col[C_PDUR].i64[i] * 1000;
        s.gpu = SLICE_GPU_ANNOTATION;
        if (r->kind != K_OTHER) {
            int k =
                snprintf(run, sizeof run, "%lld:%lld", (long long)r->program, (long long)r->exec);
            s.run_id = pq_str_of(run, (size_t)k);
            s.module = r->hlo_module;
            s.xla_op = r->kind == K_THUNK;
        }
        if (ev->slice(ev->ctx, &s) != 0)
            return err_set(err, PQ_ERR_NOMEM, t->path, -1, "out of memory");
    }
    return PQ_OK;
}

/* The host push/pop ranges (compilation), one track per thread. */
static pq_status feed_pushpop(const pushpop *p, const char *path, const pq_events *ev,
                              pq_error *err)
{
    int64_t last = INT64_MIN;
    for (size_t i = 0; i < p->n; i++) {
        pq_slice_in s = {0};
        s.pid = p->pid ? p->pid[i] : 0;
        if (name_host(ev, s.pid, p->tid[i], &last) != 0)
            return err_set(err, PQ_ERR_NOMEM, path, -1, "out of memory");
        s.tid = NSYSJAX_HOST_TID(p->tid[i]);
        s.name = p->name[i];
        split_ns(p->start_ns[i], &s);
        if (p->dur_ns[i] < 0 || p->dur_ns[i] > INT64_MAX / 1000)
            return err_set(err, PQ_ERR_INPUT, path, -1,
                           "expected a non-negative duration in row %zu, found %lld", i,
                           (long long)p->dur_ns[i]);
        s.dur_ps = p->dur_ns[i] * 1000;
        if (ev->slice(ev->ctx, &s) != 0)
            return err_set(err, PQ_ERR_NOMEM, path, -1, "out of memory");
    }
    return PQ_OK;
}

static pq_status read_member(pqzip *z, const char *archive, const char *member, mapped_file *mf,
                             int required, pq_error *err)
{
    long k = pqzip_find(z, member);
    if (k < 0)
        return required ? err_set(err, PQ_ERR_INPUT, archive, -1,
                                  "expected an nsys-jax archive with the member %s", member)
                        : PQ_OK;
    return pqzip_read(z, (size_t)k, mf, err);
}

static pq_status feed_archive(pqzip *z, const char *path, const pq_events *ev, int *ndevices,
                              pq_error *err)
{
    mapped_file mf = {0};
    FORWARD_IF_ERROR(read_member(z, path, TRACE_MEMBER, &mf, 1, err));
    size_t pl = strlen(path) + sizeof TRACE_MEMBER + 2;
    char *tp = pq_malloc(pl);
    trace t = {0};
    pq_status st = PQ_OK;
    if (!tp)
        st = err_set(err, PQ_ERR_NOMEM, path, -1, "out of memory");
    else
        snprintf(tp, pl, "%s:%s", path, TRACE_MEMBER);
    t.path = tp;
    if (st == PQ_OK)
        st = read_columns(&t, mf.data, mf.size, err);
    if (st == PQ_OK)
        st = resolve(&t, err);
    if (st == PQ_OK)
        st = feed_trace(&t, ev, err);
    if (ndevices)
        *ndevices = t.ndevices;
    for (int c = 0; c < NCOL; c++)
        parquet_values_free(&t.col[c]);
    pq_free(t.rows);
    pq_free(tp);
    mapfile_close(&mf);
    if (st != PQ_OK)
        return st;
    /* The compilation ranges: the csv.xz of the archive era or the later parquet. */
    static const char *const pushpop_members[] = {"report_nvtx_pushpop_trace.csv.xz",
                                                  "report_nvtx_pushpop_trace.parquet"};
    for (size_t k = 0; k < 2; k++) {
        long m = pqzip_find(z, pushpop_members[k]);
        if (m < 0)
            continue;
        FORWARD_IF_ERROR(pqzip_read(z, (size_t)m, &mf, err));
        char mp[512];
        snprintf(mp, sizeof mp, "%s:%s", path, pushpop_members[k]);
        pushpop p = {0};
        st = pushpop_read(mf.data, mf.size, mp, &p, err);
        if (st == PQ_OK)
            st = feed_pushpop(&p, mp, ev, err);
        pushpop_free(&p);
        mapfile_close(&mf);
        break;
    }
    return st;
}

pq_status nsysjax_feed(const uint8_t *data, size_t n, const char *path, const pq_events *ev,
                       int *ndevices, pq_error *err)
{
    pqzip *z = NULL;
    FORWARD_IF_ERROR(pqzip_open_memory(data, n, path, &z, err));
    pq_status st = feed_archive(z, path, ev, ndevices, err);
    pqzip_close(z);
    return st;
}

pq_status nsysjax_read(pq_source *src, pq_error *err)
{
    pq_events ev = slices_events(src->slices);
    FORWARD_IF_ERROR(nsysjax_feed(src->file.data, src->file.size, src->path, &ev, NULL, err));
    src->info.events = src->trace_events = src->slices->n;
    return PQ_OK;
}
