/* nsysjax.c - the nsys-jax archive reader (nsysjax.h): opens the zip in place or the
 * extracted archive directory (io/zip.h), reads trace.parquet in any known column set
 * (nsysjax_cols.c), the metadata parquets (nsysjax_meta.c) and the push/pop report
 * (nsysjax_report.c, formats/pushpop.h), resolves modules and thunks as the nsys-jax loader of the
 * archive's era does (archive-era rules without thread-metadata, the current loader's with it or
 * with the newer column sets), and feeds every range to the event interface. Not here: the
 * module/thunk tables, the warm-up split (analysis/nsys_modules.c), HloProto dumps (only
 * decompressed ahead, nsysjax_dumps.c). */
#include "nsysjax.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/pairmap.h"
#include "core/sort.h"
#include "formats/nsysjax_int.h"
#include "formats/pushpop.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>

#define TRACE_MEMBER "nvtx_gpu_proj_trace/trace.parquet"

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
    const char *fp; /* HEAD's program id (its dump's fingerprint), NULL when none */
} trow;

typedef struct trace {
    const char *path;
    size_t n;
    nsysjax_cols c;
    parquet_values *col; /* c.col */
    trow *rows;
    int ndevices;
    /* The current loader's rules (thread-metadata or a newer column set): devices from
     * XlaLauncher thread names, executions per (device, program), NCCL ranges skipped when
     * linking, the edge-effect test on projected starts. 0: the archive-era loader's. */
    int newer;
    const char *tsl;  /* the NVTX domain prefix of XLA ranges: "TSL:", or "" (Text set) */
    size_t tsl_n;     /* its length */
    const char *nccl; /* NCCL ranges: "NCCL:", or "nccl" (Text set) */
    const nsysjax_meta *meta;
    nsysjax_launcher *dev; /* newer: per device index (trow.device) its launcher */
    size_t ndev;
    /* HEAD's fingerprint program ids (newer with dumps, nsysjax_fp.c); fps NULL: numbers. */
    nsysjax_fps *fps;
    pqzip *z;
    const char *archive, *slug;
} trace;

static int starts_with(pq_str s, const char *pre, size_t n)
{
    return s.n >= n && memcmp(s.p, pre, n) == 0;
}

/* NAME starts with the domain prefix, then WHAT. */
static int is_kind_n(const trace *t, pq_str s, const char *what, size_t b)
{
    size_t a = t->tsl_n;
    return s.n >= a + b && memcmp(s.p, t->tsl, a) == 0 && memcmp(s.p + a, what, b) == 0;
}

/* NAME starts with the domain prefix, then the string literal WHAT (its length known here:
 * strlen on every test was 10.7 M instructions of the shared archive's resolution). */
#define is_kind(t, s, what) is_kind_n(t, s, what, sizeof what - 1)

static int is_module_name(const trace *t, pq_str s)
{
    return is_kind(t, s, "XlaModule:");
}

static int is_thunk_name(const trace *t, pq_str s)
{
    return is_kind(t, s, "Thunk:#");
}

static int is_nccl(const trace *t, size_t i)
{
    return t->newer && starts_with(t->col[C_NAME].str[i], t->nccl, strlen(t->nccl));
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
 * (?:,program_id=(\d+)|)#$` (TSL: the domain prefix): the module name and program id; 0
 * when it does not match. */
static int parse_module_name(const trace *t, pq_str s, pq_str *name, int64_t *program)
{
    static const char pre[] = "prefix=";
    size_t h = t->tsl_n + sizeof "XlaModule:#" - 1, p = sizeof pre - 1;
    if (!is_kind(t, s, "XlaModule:#"))
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

/* The parent row of row I; with the current loader's rules an NCCL parent is skipped over
 * (its children re-parented to its parent), at most N times (a cycle stops there). */
static uint32_t parent_of(const trace *t, const pairmap *ids, size_t i)
{
    uint32_t p = row_of(ids, &t->col[C_PARENT], i);
    for (size_t k = 0; p != UINT32_MAX && is_nccl(t, p) && k < t->n; k++)
        p = row_of(ids, &t->col[C_PARENT], p);
    return p != UINT32_MAX && is_nccl(t, p) ? UINT32_MAX : p;
}

/* The start the edge-effect test compares: host (Orig Start) in the archive era, projected
 * in the current loader. */
static int edge_start(const trace *t, size_t i, double *out)
{
    if (t->newer) {
        *out = (double)t->col[C_PSTART].i64[i];
        return valid(&t->col[C_PSTART], i);
    }
    *out = t->col[C_OSTART].f64[i];
    return valid(&t->col[C_OSTART], i);
}

/* Thunks: the deepest thunk ranges, linked to their nearest XlaModule ancestor; thunks that
 * start before the first module are edge effects and dropped (edge_start). A thunk reached
 * walking up from a kept thunk has a thunk child and is no thunk row. Each range is walked
 * once (its ancestor module is remembered), so deep nesting or ParentId cycles stay linear.
 * 0, or -1 when memory ran out. */
static int link_thunks(trace *t, const pairmap *ids)
{
    const parquet_values *nm = &t->col[C_NAME];
    double first_module = INFINITY, at;
    for (size_t i = 0; i < t->n; i++)
        if (t->rows[i].has_rid && is_module_name(t, nm->str[i]) && edge_start(t, i, &at) &&
            at < first_module)
            first_module = at;
    uint8_t *has_child = pq_calloc(t->n + 1, 1);
    uint32_t *anc = pq_malloc((t->n + 1) * sizeof *anc),
             *path = pq_malloc((t->n + 1) * sizeof *path);
    if (!has_child || !anc || !path) {
        pq_free(has_child), pq_free(anc), pq_free(path);
        return -1;
    }
    for (size_t i = 0; i < t->n; i++) {
        trow *r = &t->rows[i];
        if (!r->has_rid || !is_thunk_name(t, nm->str[i]) ||
            (edge_start(t, i, &at) && at < first_module))
            continue;
        size_t np = 0;
        uint32_t cur = parent_of(t, ids, i);
        while (cur != UINT32_MAX && is_thunk_name(t, nm->str[cur]) && !has_child[cur]) {
            has_child[cur] = 1;
            anc[cur] = UINT32_MAX; /* a cycle back to it finds no module */
            path[np++] = cur;
            cur = parent_of(t, ids, cur);
        }
        uint32_t module = UINT32_MAX;
        if (cur != UINT32_MAX && is_thunk_name(t, nm->str[cur]))
            module = anc[cur];
        else if (cur != UINT32_MAX && is_module_name(t, nm->str[cur]))
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
    int64_t program, pid, tid;
} prog_tid;

static int cmp_prog_tid(const void *pa, const void *pb, void *ctx)
{
    (void)ctx;
    const prog_tid *a = pa, *b = pb;
    if (a->program != b->program)
        return a->program < b->program ? -1 : 1;
    if (a->pid != b->pid)
        return a->pid < b->pid ? -1 : 1;
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

/* Program ids and hlo_module names of the kept modules; thunks take their module's. */
static pq_status parse_programs(trace *t, pq_error *err)
{
    for (size_t i = 0; i < t->n; i++) {
        trow *r = &t->rows[i];
        pq_str nm = t->col[C_NAME].str[i];
        RETURN_ERROR_IF(r->kind == K_MODULE &&
                            !parse_module_name(t, nm, &r->hlo_module, &r->program),
                        err, PQ_ERR_INPUT, t->path, -1,
                        "expected an XlaModule range name "
                        "\"%sXlaModule:#[prefix=...,]hlo_module=NAME[,program_id=N]#\" in row "
                        "%zu, found \"%.*s\"",
                        t->tsl, i, (int)(nm.n > 200 ? 200 : nm.n), nm.p);
        if (r->kind == K_MODULE && t->fps)
            FORWARD_IF_ERROR(nsysjax_fps_lookup(t->fps, t->z, t->archive, t->slug, r->program,
                                                r->hlo_module, 0, &r->program, &r->fp, err));
        if (r->kind == K_MODULE && t->fps && r->program == -1)
            r->fp = "unknown";
    }
    for (size_t i = 0; i < t->n; i++) {
        trow *r = &t->rows[i];
        if (r->kind == K_THUNK) {
            r->program = t->rows[r->module].program;
            r->hlo_module = t->rows[r->module].hlo_module;
            r->fp = t->rows[r->module].fp;
        }
    }
    return PQ_OK;
}

/* The (program, thread) pairs of the thunk rows, sorted; *N gets their count. */
static prog_tid *thunk_threads(const trace *t, size_t *n)
{
    /* Room for the pairs, then as much scratch for the sort (inline: 20,446 thunks of the
     * shared archive cost 16.9 M instructions in qsort, calling the comparator). */
    prog_tid *pt = pq_malloc_array(t->n + 1, 2 * sizeof *pt);
    *n = 0;
    for (size_t i = 0; pt && i < t->n; i++)
        if (t->rows[i].kind == K_THUNK)
            pt[(*n)++] = (prog_tid){t->rows[i].program, t->col[C_PID].i64[i], t->col[C_TID].i64[i]};
    if (pt)
        pq_sort_inline(pt, pt + t->n + 1, *n, sizeof *pt, cmp_prog_tid, NULL);
    return pt;
}

/* Archive era (no thread-metadata): per program, the sorted distinct TIDs that launched its
 * thunks get the device ordinals 0..n-1. */
static pq_status era_devices(trace *t, pq_error *err)
{
    pairmap ordinal = {0};
    size_t np;
    prog_tid *pt = thunk_threads(t, &np);
    pq_status st = pt ? PQ_OK : err_set(err, PQ_ERR_NOMEM, t->path, -1, "out of memory");
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
        uint32_t o = pairmap_get(&ordinal, t->col[C_TID].i64[i], 0);
        t->rows[i].device = o == UINT32_MAX ? -1 : (int64_t)o;
    }
    pq_free(pt);
    pairmap_free(&ordinal);
    return st;
}

/* The current loader: a thread named XlaLauncher:#global=G,...# runs device G. A thread
 * not so named that launched the thunks of a program no other unnamed thread launched
 * (a single-device module on the main thread), or of a module without program id
 * (autotuning), runs the device of the first XlaLauncher row (device 0 when there is none).
 * A module or thunk on any other thread is PQ_ERR_INPUT. */
static pq_status launcher_devices(trace *t, pq_error *err)
{
    const nsysjax_meta *m = t->meta;
    t->ndev = m->nlaunchers ? m->nlaunchers : 1;
    t->dev = pq_calloc(t->ndev, sizeof *t->dev);
    pairmap thr = {0}, assoc = {0};
    size_t np = 0;
    prog_tid *pt = t->dev ? thunk_threads(t, &np) : NULL;
    pq_status st = pt ? PQ_OK : err_set(err, PQ_ERR_NOMEM, t->path, -1, "out of memory");
    if (st == PQ_OK && m->nlaunchers)
        memcpy(t->dev, m->launchers, t->ndev * sizeof *t->dev);
    for (size_t k = 0; st == PQ_OK && k < t->ndev; k++) {
        int fresh, dup = 0;
        for (size_t j = 0; j < k; j++)
            dup |= t->dev[j].device == t->dev[k].device;
        t->ndevices += !dup;
        uint32_t *slot =
            m->nlaunchers ? pairmap_slot(&thr, t->dev[k].pid, t->dev[k].tid, &fresh) : NULL;
        if (m->nlaunchers && !slot)
            st = err_set(err, PQ_ERR_NOMEM, t->path, -1, "out of memory");
        else if (slot && fresh)
            *slot = (uint32_t)k;
    }
    for (size_t a = 0, b; st == PQ_OK && a < np; a = b) {
        size_t unnamed = 0;
        for (b = a; b < np && pt[b].program == pt[a].program; b++)
            unnamed += (b == a || pt[b].pid != pt[b - 1].pid || pt[b].tid != pt[b - 1].tid) &&
                       pairmap_get(&thr, pt[b].pid, pt[b].tid) == UINT32_MAX;
        if (pt[a].program != -1 && unnamed != 1)
            continue;
        for (size_t k = a; k < b && st == PQ_OK; k++) {
            int fresh;
            uint32_t *slot = pairmap_get(&thr, pt[k].pid, pt[k].tid) == UINT32_MAX
                                 ? pairmap_slot(&assoc, pt[k].pid, pt[k].tid, &fresh)
                                 : &(uint32_t){0};
            if (!slot)
                st = err_set(err, PQ_ERR_NOMEM, t->path, -1, "out of memory");
            else
                *slot = 0;
        }
    }
    for (size_t i = 0; st == PQ_OK && i < t->n; i++) {
        int64_t pid = t->col[C_PID].i64[i], tid = t->col[C_TID].i64[i];
        uint32_t k = pairmap_get(&thr, pid, tid);
        if (k == UINT32_MAX && pairmap_get(&assoc, pid, tid) != UINT32_MAX)
            k = 0;
        t->rows[i].device = k == UINT32_MAX ? -1 : t->dev[k].device;
        if (k == UINT32_MAX && (t->rows[i].kind == K_MODULE || t->rows[i].kind == K_THUNK))
            st = err_set(err, PQ_ERR_INPUT, t->path, -1,
                         "expected the thread %lld of process %lld, which launched the XLA "
                         "module or thunk in row %zu, to be named "
                         "\"XlaLauncher:#global=G,local=L,process=P,slice=S#\" in "
                         "thread-metadata.parquet (or to be the one unnamed thread of its "
                         "program)",
                         (long long)tid, (long long)pid, i);
    }
    pq_free(pt);
    pairmap_free(&thr);
    pairmap_free(&assoc);
    return st;
}

/* ProgramExecution: a module's rank among the modules of the same program on the same
 * thread (archive era) or device (current loader), in RangeId order; thunks take their
 * module's. */
static pq_status number_executions(trace *t, pq_error *err)
{
    pairmap count = {0};
    pq_status st = PQ_OK;
    size_t nm = 0;
    rid_row *order = pq_malloc((t->n + 1) * sizeof *order);
    RETURN_ERROR_IF(!order, err, PQ_ERR_NOMEM, t->path, -1, "out of memory");
    for (size_t i = 0; i < t->n; i++)
        if (t->rows[i].kind == K_MODULE)
            order[nm++] = (rid_row){t->col[C_RID].f64[i], (uint32_t)i};
    qsort(order, nm, sizeof *order, cmp_rid_row);
    for (size_t k = 0; k < nm; k++) {
        trow *r = &t->rows[order[k].row];
        int64_t key = t->newer ? r->device : t->col[C_TID].i64[order[k].row];
        int fresh;
        uint32_t *slot = pairmap_slot(&count, key, r->program, &fresh);
        if (!slot) {
            st = err_set(err, PQ_ERR_NOMEM, t->path, -1, "out of memory");
            break;
        }
        *slot = fresh ? 0 : *slot + 1;
        r->exec = *slot;
    }
    for (size_t i = 0; i < t->n; i++)
        if (t->rows[i].kind == K_THUNK)
            t->rows[i].exec = t->rows[t->rows[i].module].exec;
    pq_free(order);
    pairmap_free(&count);
    return st;
}

static pq_status resolve(trace *t, pq_error *err)
{
    t->rows = pq_calloc(t->n + 1, sizeof *t->rows);
    pairmap ids = {0};
    RETURN_ERROR_IF(!t->rows, err, PQ_ERR_NOMEM, t->path, -1, "out of memory");
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
    /* The cut-short guess needs NumGPUOps (archive-era column set only). */
    RETURN_ERROR_IF(oom || (t->c.set == NSYS_COLS_ERA && drop_cut_modules(t) != 0), err,
                    PQ_ERR_NOMEM, t->path, -1, "out of memory");
    FORWARD_IF_ERROR(parse_programs(t, err));
    FORWARD_IF_ERROR(t->newer ? launcher_devices(t, err) : era_devices(t, err));
    return number_executions(t, err);
}

size_t nsysjax_put_i64(char *d, int64_t v)
{
    char t[20];
    size_t n = 0, k = 0;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do
        t[n++] = (char)('0' + u % 10);
    while ((u /= 10) != 0);
    if (v < 0)
        d[k++] = '-';
    while (n)
        d[k++] = t[--n];
    return k;
}

int nsysjax_name_host(const pq_events *ev, int64_t pid, int64_t tid, int64_t *last)
{
    if (tid == *last)
        return 0;
    *last = tid;
    char sb[40] = "host thread "; /* "host thread %lld" */
    size_t k = 12 + nsysjax_put_i64(sb + 12, tid);
    return ev->thread_name(ev->ctx, pid, NSYSJAX_HOST_TID(tid), pq_str_of(sb, k));
}

void nsysjax_split_ns(int64_t ns, pq_slice_in *s)
{
    int64_t us = ns / 1000, rem = ns % 1000;
    if (rem < 0) {
        rem += 1000;
        us--;
    }
    s->ts_us = us;
    s->ts_frac_ps = rem * 1000;
}

/* A device track of the current loader's rules: "device G (process P, local L): GPU". */
static int name_launcher(const trace *t, const nsysjax_launcher *l, int64_t pid,
                         const pq_events *ev)
{
    char sb[256];
    int k;
    if (!t->meta->nlaunchers)
        k = snprintf(sb, sizeof sb, "device %lld", (long long)l->device);
    else
        k = snprintf(sb, sizeof sb, "device %lld (process %lld, local %lld)", (long long)l->device,
                     (long long)l->process, (long long)l->local);
    pq_str gpu = nsysjax_meta_gpu(t->meta, l->local);
    if (gpu.n && k > 0 && (size_t)k < sizeof sb)
        k += snprintf(sb + k, sizeof sb - (size_t)k, ": %.*s", (int)(gpu.n > 160 ? 160 : gpu.n),
                      gpu.p);
    if (k < 0)
        return -1;
    if ((size_t)k >= sizeof sb)
        k = (int)sizeof sb - 1;
    return ev->thread_name(ev->ctx, pid, l->device, pq_str_of(sb, (size_t)k));
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
        for (int d = 0; !t->newer && d < t->ndevices; d++) {
            k = snprintf(sb, sizeof sb, "device %d", d);
            if (ev->thread_name(ev->ctx, pid, d, pq_str_of(sb, (size_t)k)) != 0)
                return -1;
        }
        for (size_t d = 0; t->newer && d < t->ndev; d++)
            if (name_launcher(t, &t->dev[d], pid, ev) != 0)
                return -1;
    }
    /* The model devices: each global device once, as its device-metadata row states it. */
    for (size_t d = 0; t->newer && d < t->ndev; d++) {
        size_t j = 0;
        while (j < d && t->dev[j].device != t->dev[d].device)
            j++;
        if (j == d && nsysjax_meta_give_gpu(t->meta, t->dev[d].device, t->dev[d].local, ev) != 0)
            return -1;
    }
    return 0;
}

/* Every range with a RangeId, in file order, on its device's track. */
static pq_status feed_trace(const trace *t, const pq_events *ev, pq_error *err)
{
    RETURN_ERROR_IF(name_tracks(t, ev) != 0, err, PQ_ERR_NOMEM, t->path, -1, "out of memory");
    char run[48 + NSYSJAX_FP_MAX];
    int64_t last = INT64_MIN;
    for (size_t i = 0; i < t->n; i++) {
        const trow *r = &t->rows[i];
        if (!r->has_rid)
            continue;
        RETURN_ERROR_IF(r->device < 0 && nsysjax_name_host(ev, t->col[C_PID].i64[i],
                                                           t->col[C_TID].i64[i], &last),
                        err, PQ_ERR_NOMEM, t->path, -1, "out of memory");
        RETURN_ERROR_IF(!valid(&t->col[C_PSTART], i) || !valid(&t->col[C_PDUR], i) ||
                            t->col[C_PDUR].i64[i] < 0 || t->col[C_PDUR].i64[i] > INT64_MAX / 1000,
                        err, PQ_ERR_INPUT, t->path, -1,
                        "expected a projected start and a non-negative projected duration in "
                        "row %zu (RangeId %.17g)",
                        i, t->col[C_RID].f64[i]);
        pq_slice_in s = {0};
        s.pid = t->col[C_PID].i64[i];
        s.tid = r->device >= 0 ? r->device : NSYSJAX_HOST_TID(t->col[C_TID].i64[i]);
        s.name = t->col[C_NAME].str[i];
        nsysjax_split_ns(t->col[C_PSTART].i64[i], &s);
        s.dur_ps = t->col[C_PDUR].i64[i] * 1000;
        s.gpu = SLICE_GPU_ANNOTATION;
        if (r->kind != K_OTHER) {
            size_t k = nsysjax_put_i64(run, r->program);
            run[k++] = ':';
            k += nsysjax_put_i64(run + k, r->exec);
            if (r->fp) /* "P:E:FINGERPRINT" (analysis/nsys_modules.h) */
                k += (size_t)snprintf(run + k, sizeof run - k, ":%s", r->fp);
            s.run_id = pq_str_of(run, k);
            s.module = r->hlo_module;
            s.xla_op = r->kind == K_THUNK;
        }
        RETURN_ERROR_IF(ev->slice(ev->ctx, &s) != 0, err, PQ_ERR_NOMEM, t->path, -1,
                        "out of memory");
    }
    return PQ_OK;
}

/* The first process id of the trace (the push/pop parquet has none), 0 when none. */
static int64_t first_pid(const trace *t)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->rows[i].has_rid)
            return t->col[C_PID].i64[i];
    return 0;
}

/* One process's trace.parquet (SLUG: nsys-jax-combine output's file of that process, see
 * nsysjax_member) and its metadata into *META; *PID gets its first process id. */
static pq_status feed_process_trace(pqzip *z, const char *path, const char *slug,
                                    const pq_events *ev, int *ndevices, int *newer,
                                    nsysjax_meta *meta, int64_t *pid, nsysjax_fp_ctx *fc,
                                    model_slices *ms, pq_error *err)
{
    FORWARD_IF_ERROR(nsysjax_meta_read(z, path, slug, meta, err));
    char name[512];
    long k = nsysjax_member(z, TRACE_MEMBER, slug, name, sizeof name);
    RETURN_ERROR_IF(k < 0, err, PQ_ERR_INPUT, path, -1,
                    "expected an nsys-jax archive with the member %s", name);
    mapped_file mf = {0};
    FORWARD_IF_ERROR(pqzip_read(z, (size_t)k, &mf, err));
    size_t pl = strlen(path) + strlen(name) + 2;
    char *tp = pq_malloc(pl);
    trace t = {0};
    pq_status st = PQ_OK;
    if (!tp)
        st = err_set(err, PQ_ERR_NOMEM, path, -1, "out of memory");
    else
        snprintf(tp, pl, "%s:%s", path, name);
    t.path = tp;
    t.meta = meta;
    if (st == PQ_OK)
        st = nsysjax_cols_read(mf.data, mf.size, t.path, &t.c, err);
    t.n = t.c.n;
    t.col = t.c.col;
    t.newer = meta->has_threads || t.c.set != NSYS_COLS_ERA;
    t.tsl = t.c.set == NSYS_COLS_TEXT ? "" : "TSL:";
    t.tsl_n = strlen(t.tsl);
    t.nccl = t.c.set == NSYS_COLS_TEXT ? "nccl" : "NCCL:";
    /* HEAD's program ids need its era and the archive's dumps (without them it fails). */
    if (!t.newer || !nsysjax_has_dumps(z))
        fc->fps = NULL;
    t.fps = fc->fps;
    t.z = z;
    t.archive = path;
    t.slug = slug;
    if (st == PQ_OK)
        st = resolve(&t, err);
    if (st == PQ_OK && ms) /* the model's columns sized once for the trace's ranges */
        (void)slices_reserve(ms, t.n);
    if (st == PQ_OK)
        st = feed_trace(&t, ev, err);
    if (ndevices)
        *ndevices += t.ndevices;
    if (newer)
        *newer |= t.newer;
    *pid = st == PQ_OK ? first_pid(&t) : 0;
    nsysjax_cols_free(&t.c);
    pq_free(t.rows);
    pq_free(t.dev);
    pq_free(tp);
    mapfile_close(&mf);
    return st;
}

/* One process: its trace and metadata (feed_process_trace), then its push/pop report, read
 * meanwhile on another thread; while that thread still runs, the main thread decompresses
 * the archive's HLO dumps into KEEP (when not NULL) for the analyses. *META is filled even
 * on error (nsysjax_meta_free). */
static pq_status feed_process(pqzip *z, const char *path, const char *slug, const pq_events *ev,
                              int *ndevices, int *newer, nsysjax_meta *meta, nsysjax_fps *fps,
                              pq_source *keep, nsysjax_report *early, pq_error *err)
{
    nsysjax_report *job = nsysjax_report_start(z, path, slug, early);
    if (!job) {
        memset(meta, 0, sizeof *meta);
        return err_set(err, PQ_ERR_NOMEM, path, -1, "out of memory");
    }
    int64_t pid = 0;
    nsysjax_fp_ctx fc = {fps, z, path, slug};
    nsysjax_fps_process(fps);
    model_slices *ms = keep ? keep->slices : NULL;
    pq_status st = feed_process_trace(z, path, slug, ev, ndevices, newer, meta, &pid, &fc, ms, err);
    if (st == PQ_OK && job->streaming) { /* the report's rows as they decode, dumps between */
        size_t next = 0;
        int reserved = 0;
        while (pushpop_stream_step(&job->ps, 0)) {
            if (ms && !reserved && job->ps.cap) { /* its row estimate, once the header is read */
                reserved = 1;
                (void)slices_reserve(ms, job->ps.cap);
            }
            nsysjax_report_ready(job, pid, ev, &fc);
            if (!keep || !nsysjax_dumps_ahead_one(z, keep, &next)) {
                (void)pushpop_stream_step(&job->ps, 1);
                nsysjax_report_ready(job, pid, ev, &fc);
            }
        }
    } else if (st == PQ_OK && keep)
        nsysjax_dumps_ahead(z, keep, &job->done);
    pq_status cst = nsysjax_report_finish(job, st == PQ_OK, pid, ev, &fc, err);
    if (job != early)
        pq_free(job);
    return st != PQ_OK ? st : cst;
}

/* An archive (one process), or nsys-jax-combine output: trace.parquet/ a directory of one
 * file per process (its slug), each process read as an archive of its own whose members
 * are MEMBER/SLUG where that exists, else MEMBER. *META gets the first process's metadata;
 * *NEWER (optional) is set when a process has the current loader's layout. */
static pq_status feed_archive(pqzip *z, const char *path, const pq_events *ev, int *ndevices,
                              int *newer, nsysjax_meta *meta, pq_source *keep,
                              nsysjax_report *early, pq_error *err)
{
    if (ndevices)
        *ndevices = 0;
    nsysjax_fps fps = {0};
    pq_status st = PQ_OK;
    if (pqzip_find(z, TRACE_MEMBER) >= 0) {
        st = feed_process(z, path, NULL, ev, ndevices, newer, meta, &fps, keep, early, err);
        nsysjax_fps_free(&fps);
        return st;
    }
    memset(meta, 0, sizeof *meta);
    size_t l = sizeof TRACE_MEMBER, nproc = 0;
    for (size_t i = 0; i < pqzip_count(z) && st == PQ_OK; i++) {
        const char *m = pqzip_member_at(z, i)->name;
        if (strncmp(m, TRACE_MEMBER "/", l) != 0 || !m[l] || strchr(m + l, '/'))
            continue;
        nsysjax_meta other;
        nsysjax_meta *into = nproc++ ? &other : meta;
        st = feed_process(z, path, m + l, ev, ndevices, newer, into, &fps, keep, early, err);
        if (into == &other)
            nsysjax_meta_free(&other);
    }
    nsysjax_fps_free(&fps);
    RETURN_ERROR_IF(st == PQ_OK && !nproc, err, PQ_ERR_INPUT, path, -1,
                    "expected an nsys-jax archive with the member %s", TRACE_MEMBER);
    return st;
}

pq_status nsysjax_feed(const uint8_t *data, size_t n, const char *path, const pq_events *ev,
                       int *ndevices, pq_error *err)
{
    pqzip *z = NULL;
    FORWARD_IF_ERROR(pqzip_open_memory(data, n, path, &z, err));
    nsysjax_meta meta;
    pq_status st = feed_archive(z, path, ev, ndevices, NULL, &meta, NULL, NULL, err);
    nsysjax_meta_free(&meta);
    pqzip_close(z);
    return st;
}

int nsysjax_is_directory(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

pq_status nsysjax_read(pq_source *src, pq_error *err)
{
    pq_events ev = slices_events(src->slices);
    pqzip *z = NULL;
    if (src->file.data)
        FORWARD_IF_ERROR(pqzip_map(NULL, src->file.data, src->file.size, src->path, &z, err));
    else
        FORWARD_IF_ERROR(pqzip_map(src->path, NULL, 0, NULL, &z, err));
    /* The report's decoder starts before libzip is loaded and opens the archive (~16 M
     * instructions at the head of the critical path); libzip still checks it all. */
    size_t nb;
    const uint8_t *bytes = pqzip_bytes(z, &nb);
    nsysjax_report *early = bytes ? pq_malloc(sizeof *early) : NULL;
    if (early)
        nsysjax_report_early(bytes, nb, src->path, early);
    nsysjax_meta meta;
    memset(&meta, 0, sizeof meta);
    pq_status st = pqzip_load(z, err);
    if (st == PQ_OK)
        st = feed_archive(z, src->path, &ev, NULL, &src->nsysjax_newer, &meta, src, early, err);
    nsysjax_report_drop(early);
    pq_free(early);
    if (st == PQ_OK && meta.hostname.n) {
        /* The host the profile ran on (system-metadata.parquet), for info. */
        pq_str *h = arena_alloc(&src->mem, sizeof *h);
        char *s = arena_strndup(&src->mem, meta.hostname.p, meta.hostname.n);
        if (!h || !s)
            st = err_set(err, PQ_ERR_NOMEM, src->path, -1, "out of memory");
        else {
            *h = pq_str_of(s, meta.hostname.n);
            src->hostnames = h;
            src->nhostnames = 1;
        }
    }
    nsysjax_meta_free(&meta);
    pqzip_close(z);
    FORWARD_IF_ERROR(st);
    src->info.events = src->trace_events = src->slices->n;
    return PQ_OK;
}
