/* nsys_modules.c - the module and thunk tables of the archive-era nsys-jax loader over the
 * model (nsys_modules.h). The reader (formats/nsysjax.c) has resolved modules and thunks and
 * recorded "PROGRAM:EXECUTION" in run_id; this reads them back per device track, finds the
 * program ids whose compilation the host push/pop ranges show (XlaCompileBackend names
 * carry program_id), and applies the loader's warm-up split: for those programs execution
 * 0 is initialisation, execution 1 is neither, 2 and later are steady; programs compiled
 * before profiling are all steady. Not here: communication, alignment (they do not change
 * rows or durations), the other notebook tables. */
#include "nsys_modules.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/hash.h"
#include "core/pairmap.h"
#include "formats/nsys_sqlite.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int nsys_xla_source(const pq_source *src)
{
    return src->slices &&
           (src->info.format == PQ_FORMAT_NSYS_JAX || src->info.format == PQ_FORMAT_NSYS_SQLITE);
}

int64_t nsys_track_device(const pq_source *src, int64_t tid)
{
    if (src->info.format == PQ_FORMAT_NSYS_SQLITE)
        return tid < 0 ? NSQL_PROJECTED_TID(tid) : -1; /* -(tid + 1): the inverse */
    return tid >= 0 ? tid : -1;
}

/* Plain decimal digits at S (at most 18, so no overflow) ending at a byte that is not a
 * digit: their value into *V and the end, else NULL (then strtoll decides). What the
 * readers write ("P:E" of put_i64), without strtoll's cost on every module and thunk. */
static const char *plain_digits(const char *s, long long *v)
{
    long long x = 0;
    const char *p = s;
    while (*p >= '0' && *p <= '9' && p - s < 18)
        x = x * 10 + (*p++ - '0');
    if (p == s || (*p >= '0' && *p <= '9'))
        return NULL;
    *v = x;
    return p;
}

/* "P:E" or "P:E:KEY" into program P and execution E; 0 when RUN is not that. */
int nsys_parse_run(const char *run, int64_t *program, int64_t *exec)
{
    long long p, x;
    const char *ep = plain_digits(run, &p),
               *ex = ep && *ep == ':' ? plain_digits(ep + 1, &x) : NULL;
    if (ex) { /* the common form; anything else as strtoll reads it */
        if (*ex && (*ex != ':' || !ex[1]))
            return 0;
        *program = p;
        *exec = x;
        return 1;
    }
    char *end;
    p = strtoll(run, &end, 10);
    if (end == run || *end != ':')
        return 0;
    const char *e = end + 1;
    x = strtoll(e, &end, 10);
    if (end == e || (*end && (*end != ':' || !end[1])))
        return 0;
    *program = p;
    *exec = x;
    return 1;
}

const char *nsys_run_key(const char *run)
{
    const char *c = strchr(run, ':');
    return c ? strchr(c + 1, ':') ? strchr(c + 1, ':') + 1 : NULL : NULL;
}

/* The program id of a "TSL:XlaCompileBackend:#module=NAME,program_id=N#" range, or -1. */
int64_t nsys_compiled_program(const char *name)
{
    static const char pre[] = "TSL:XlaCompileBackend:#module=", key[] = ",program_id=";
    if (strncmp(name, pre, sizeof pre - 1) != 0)
        return -1;
    const char *k = strstr(name + sizeof pre - 1, key);
    const char *last = NULL;
    for (; k; k = strstr(k + 1, key))
        last = k;
    if (!last)
        return -1;
    char *end;
    long long v = strtoll(last + sizeof key - 1, &end, 10);
    return end > last + sizeof key - 1 && end[0] == '#' && !end[1] ? v : -1;
}

typedef struct acc {
    pairmap compiled; /* (program, 0) over every source */
    pairmap distinct; /* the compiled programs: (program, 0), or (hash of the key, 1) */
    pairmap thunks;   /* (track, run_id) -> thunks in that module execution (one source) */
    pairmap index;    /* (program, 0), or (hash of the key, 1) -> module row */
    nsys_modules_result *r;
    size_t cap;
    nsys_warmup w;
} acc;

static nsys_module_row *row_for(acc *a, int64_t program, const char *name, const char *key)
{
    int fresh;
    /* HEAD's program ids (fingerprints) are one program across sources, whose numbers
     * for them differ. */
    uint32_t *slot = key ? pairmap_slot(&a->index, (int64_t)hash_bytes(key, strlen(key)), 1, &fresh)
                         : pairmap_slot(&a->index, program, 0, &fresh);
    if (!slot)
        return NULL;
    if (fresh) {
        if (a->r->nmodules == a->cap) {
            size_t nc = a->cap ? a->cap * 2 : 16;
            nsys_module_row *m = pq_realloc(a->r->modules, nc * sizeof *m);
            if (!m)
                return NULL;
            a->r->modules = m;
            a->cap = nc;
        }
        *slot = (uint32_t)a->r->nmodules;
        a->r->modules[a->r->nmodules++] =
            (nsys_module_row){.program_id = program, .name = name, .wait_share = NAN, .key = key};
    }
    return &a->r->modules[*slot];
}

static int collect_compiled(acc *a, const model_slices *m)
{
    for (size_t i = 0; i < m->n; i++) {
        if (m->flags[i] & SLICE_GPU_ANNOTATION)
            continue;
        /* The reader's "compiled:P" (HEAD's program ids; -1 is "unknown"), else the name. */
        const char *run = m->run_id[i] ? intern_str(&m->names, m->run_id[i]) : "";
        int head = strncmp(run, "compiled:", 9) == 0;
        int64_t p = head ? strtoll(run + 9, NULL, 10)
                         : nsys_compiled_program(intern_str(&m->names, m->name[i]));
        int fresh, want = p >= 0 || head;
        uint32_t *slot = want ? pairmap_slot(&a->compiled, p, 0, &fresh) : NULL;
        if (want && !slot)
            return -1;
        /* "compiled:P:KEY": programs of several sources are one by their key. */
        const char *key = head ? strchr(run + 9, ':') : NULL;
        uint32_t *d =
            !want ? NULL
            : key ? pairmap_slot(&a->distinct, (int64_t)hash_bytes(key, strlen(key)), 1, &fresh)
                  : pairmap_slot(&a->distinct, p, 0, &fresh);
        if (want && !d)
            return -1;
        if (slot)
            *slot = 1;
    }
    return 0;
}

/* Thunks per module execution: (track, run_id) of the thunk slices. */
static int count_thunks(acc *a, const model_slices *m)
{
    pairmap_free(&a->thunks);
    memset(&a->thunks, 0, sizeof a->thunks);
    for (size_t i = 0; i < m->n; i++) {
        if (!m->run_id[i] || !(m->flags[i] & SLICE_XLA_OP))
            continue;
        int fresh;
        uint32_t *slot = pairmap_slot(&a->thunks, m->track[i], m->run_id[i], &fresh);
        if (!slot)
            return -1;
        *slot = fresh ? 1 : *slot + 1;
    }
    return 0;
}

static int add_rows(acc *a, const model_slices *m)
{
    if (count_thunks(a, m) != 0)
        return -1;
    for (size_t i = 0; i < m->n; i++) {
        int64_t program, exec;
        const char *run = m->run_id[i] ? intern_str(&m->names, m->run_id[i]) : NULL;
        if (!run || !nsys_parse_run(run, &program, &exec))
            continue;
        int thunk = (m->flags[i] & SLICE_XLA_OP) != 0;
        int compiled = pairmap_get(&a->compiled, program, 0) != UINT32_MAX;
        int fr = nsys_warmup_frame(&a->w, compiled, exec, thunk);
        int steady = fr == NSYS_STEADY, init = fr == NSYS_INIT;
        for (int f = 0; f < NSYS_NFRAMES; f++) {
            if ((f == NSYS_STEADY && !steady) || (f == NSYS_INIT && !init))
                continue;
            if (thunk)
                a->r->frames[f].thunk_rows++;
            else
                a->r->frames[f].module_rows++;
        }
        if (thunk || !steady)
            continue;
        nsys_module_row *row = row_for(
            a, program, m->module ? intern_str(&m->names, m->module[i]) : "", nsys_run_key(run));
        if (!row)
            return -1;
        uint32_t nt = pairmap_get(&a->thunks, m->track[i], m->run_id[i]);
        double t = nt == UINT32_MAX ? 0 : (double)nt;
        row->rows++;
        row->thunks_sum += t;
        row->thunks_sumsq += t * t;
        row->total_ns += m->dur_ps[i] / 1000;
        a->r->total_ns += m->dur_ps[i] / 1000;
    }
    return 0;
}

static int cmp_module(const void *pa, const void *pb)
{
    const nsys_module_row *a = pa, *b = pb;
    if (a->total_ns != b->total_ns)
        return a->total_ns > b->total_ns ? -1 : 1;
    return a->program_id < b->program_id ? -1 : a->program_id > b->program_id;
}

int nsys_warmup_frame(const nsys_warmup *w, int compiled, int64_t exec, int thunk)
{
    if (w && w->head) {
        if (thunk ? w->all_steady_thunks : w->all_steady_modules)
            return NSYS_STEADY;
        return exec < compiled + w->has_communication ? NSYS_INIT : NSYS_STEADY;
    }
    if (!compiled || exec > 1)
        return NSYS_STEADY;
    return exec == 0 ? NSYS_INIT : -1;
}

int nsys_warmup_head_default(const pq_profile *prof)
{
    size_t n = 0;
    for (size_t s = 0; s < prof->nsources; s++) {
        const pq_source *src = &prof->sources[s];
        if (src->info.format != PQ_FORMAT_NSYS_JAX || !src->slices)
            continue;
        if (!src->nsysjax_newer)
            return 0;
        n++;
    }
    return n > 0;
}

pq_status nsys_modules_compute(const pq_profile *prof, nsys_modules_result *out, pq_error *err)
{
    return nsys_modules_compute_warmup(prof, NULL, out, err);
}

static pq_status compute(const pq_profile *prof, const nsys_warmup *w, nsys_modules_result *out,
                         pq_error *err);

pq_status nsys_modules_compute_warmup(const pq_profile *prof, const nsys_warmup *w,
                                      nsys_modules_result *out, pq_error *err)
{
    nsys_warmup v = w ? *w : (nsys_warmup){0};
    pq_status st = compute(prof, &v, out, err);
    if (st != PQ_OK || !v.head)
        return st;
    /* HEAD: a frame kind left without steady rows is taken as steady whole. */
    v.all_steady_modules = out->frames[NSYS_STEADY].module_rows == 0;
    v.all_steady_thunks = out->frames[NSYS_STEADY].thunk_rows == 0;
    if (!v.all_steady_modules && !v.all_steady_thunks)
        return st;
    nsys_modules_free(out);
    st = compute(prof, &v, out, err);
    if (st == PQ_OK)
        out->all_steady = 1;
    return st;
}

static pq_status compute(const pq_profile *prof, const nsys_warmup *w, nsys_modules_result *out,
                         pq_error *err)
{
    memset(out, 0, sizeof *out);
    acc a = {.r = out, .w = *w};
    int oom = 0;
    const char *no_xla = NULL; /* an SQLite export without XLA module ranges */
    for (size_t s = 0; s < prof->nsources && !oom; s++) {
        const pq_source *src = &prof->sources[s];
        if (!nsys_xla_source(src))
            continue;
        if (src->info.format == PQ_FORMAT_NSYS_SQLITE &&
            (!src->nsys_export || !src->nsys_export->module_ranges)) {
            no_xla = src->path;
            continue;
        }
        out->sources++;
        for (uint32_t k = 0; k < src->slices->ntracks; k++)
            out->devices += nsys_track_device(src, src->slices->tracks[k].tid) >= 0;
        oom = collect_compiled(&a, src->slices) != 0;
    }
    out->compiled_programs = a.distinct.n;
    for (size_t s = 0; s < prof->nsources && !oom; s++) {
        const pq_source *src = &prof->sources[s];
        if (nsys_xla_source(src) && (src->info.format == PQ_FORMAT_NSYS_JAX ||
                                     (src->nsys_export && src->nsys_export->module_ranges)))
            oom = add_rows(&a, src->slices) != 0;
    }
    oom = oom || a.compiled.failed || a.distinct.failed || a.index.failed || a.thunks.failed;
    pairmap_free(&a.compiled);
    pairmap_free(&a.distinct);
    pairmap_free(&a.index);
    pairmap_free(&a.thunks);
    if (oom) {
        nsys_modules_free(out);
        return err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    }
    if (no_xla) {
        nsys_modules_free(out);
        return err_set(err, PQ_ERR_INPUT, no_xla, -1,
                       "expected XLA module ranges (NVTX \"TSL:XlaModule:#hlo_module=...#\" "
                       "projected onto the GPU) in the Nsight SQLite export; it has none (a JAX "
                       "program profiled under nsys has them)");
    }
    if (!out->sources) {
        const char *p = prof->nsources ? prof->sources[0].path : "";
        return err_set(
            err, PQ_ERR_INPUT, p, -1,
            "expected an nsys-jax archive (.zip with nvtx_gpu_proj_trace/trace.parquet)");
    }
    for (size_t k = 0; k < out->nmodules; k++) {
        nsys_module_row *m = &out->modules[k];
        m->total_ms = (double)m->total_ns / 1e6;
        m->share = out->total_ns ? (double)m->total_ns / (double)out->total_ns : 0;
    }
    nsys_modules_finish(out);
    return PQ_OK;
}

void nsys_modules_finish(nsys_modules_result *out)
{
    for (size_t k = 0; k < out->nmodules; k++) {
        nsys_module_row *m = &out->modules[k];
        double n = (double)m->rows;
        m->thunks_mean = m->thunks_sum / n;
        double var = (m->thunks_sumsq - m->thunks_sum * m->thunks_mean) / (n - 1);
        m->thunks_std = m->rows > 1 ? sqrt(var > 0 ? var : 0) : NAN;
    }
    if (out->nmodules)
        qsort(out->modules, out->nmodules, sizeof *out->modules, cmp_module);
    double seen = 0;
    for (size_t k = 0; k < out->nmodules && seen < 0.99; k++) {
        out->ntop++;
        seen += out->modules[k].share;
    }
}

void nsys_modules_free(nsys_modules_result *r)
{
    pq_free(r->modules);
    r->modules = NULL;
    r->nmodules = 0;
}
