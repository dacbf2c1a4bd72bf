/* nsys_xplane.c - the nsys-jax module table from a JAX XPlane GPU profile (nsys_xplane.h),
 * so `profq nsys` serves a JAX user without Nsight. A GPU plane is one device; its kernels
 * (stream lines, not XProf's derived lines) carry hlo_module, hlo_op and program_id stats.
 * The shared profiles have no "XLA Modules" line on their GPU planes, so module executions
 * are rebuilt as XProf's derived timeline does: kernels in start order, consecutive kernels
 * of one module are one execution. Thunks are the distinct hlo_op of an execution (the
 * nsys-jax thunk is one HLO op, which may launch several kernels). The same executions
 * feed nsys_comm.c's row tables through a gather (nsys_comm_int.h): a module row per device
 * execution, a thunk row per hlo_op, classified through the XSpace's HloProtos; the
 * analyses themselves are the archive's. Not here: compile passes, heap, flame, bias,
 * warm-up (unknown: every row steady). */
#include "analysis/nsys_xplane.h"

#include "analysis/nsys_comm_int.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/pairmap.h"
#include "formats/xplane_walk.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct kern {
    int64_t s, e, program;
    pq_str module, op;
    uint32_t order;
} kern;

static int derived_line(const xp_line *line)
{
    return (line->id >= 0xdeadbeefLL && line->id < 0xdeadbeefLL + 64) ||
           pq_str_eq(line->name, "XLA Modules") || pq_str_eq(line->name, "XLA Ops");
}

static void take(const xp_plane *pl, const stat_value *st, kern *k, int *has_program)
{
    pq_str nm = xp_stat_name(pl, st);
    int is_str = st->kind == STAT_STR || st->kind == STAT_REF;
    if (pq_str_eq(nm, "hlo_module") && is_str)
        k->module = xp_stat_str(pl, st);
    else if (pq_str_eq(nm, "hlo_op") && is_str)
        k->op = xp_stat_str(pl, st);
    else if (pq_str_eq(nm, "program_id") && (st->kind == STAT_INT64 || st->kind == STAT_UINT64)) {
        k->program = (int64_t)st->v.u;
        *has_program = 1;
    }
}

/* The XLA kernels of plane PL (hlo_module and hlo_op set) into *OUT; returns the count or
 * (size_t)-1 when out of memory. */
static size_t plane_kernels(const xp_plane *pl, kern **out)
{
    size_t n = 0, cap = 0;
    kern *ks = NULL;
    for (uint32_t li = 0; li < pl->nlines; li++) {
        const xp_line *line = &pl->lines[li];
        if (derived_line(line))
            continue;
        int64_t base = line->timestamp_ns * 1000;
        xp_event_iter ei;
        xp_event ev;
        xp_events_begin(line, &ei);
        while (xp_events_next(&ei, &ev)) {
            kern k = {.s = base + ev.offset_ps, .program = -1, .order = (uint32_t)n};
            k.e = k.s + ev.duration_ps;
            int has_program = 0;
            xp_stat_iter it;
            stat_value st;
            const xp_event_meta *em = xp_event_meta_find(pl, ev.metadata_id);
            if (em) {
                xp_stats_begin(&it, em->body, em->body_len, 5);
                while (xp_stats_next(&it, &st))
                    take(pl, &st, &k, &has_program);
            }
            xp_stats_begin(&it, ev.stats, ev.body_len, 4);
            while (xp_stats_next(&it, &st))
                take(pl, &st, &k, &has_program);
            if (!k.module.n || !k.op.n)
                continue; /* not an XLA kernel (copies, eager kernels) */
            if (n == cap) {
                size_t nc = cap ? cap * 2 : 256;
                kern *m = pq_realloc(ks, nc * sizeof *m);
                if (!m) {
                    pq_free(ks);
                    return (size_t)-1;
                }
                ks = m;
                cap = nc;
            }
            ks[n++] = k;
        }
    }
    *out = ks;
    return n;
}

static int cmp_kern(const void *pa, const void *pb)
{
    const kern *a = pa, *b = pb;
    if (a->s != b->s)
        return a->s < b->s ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static int cmp_str(const void *pa, const void *pb)
{
    const pq_str *a = pa, *b = pb;
    size_t n = a->n < b->n ? a->n : b->n;
    int c = n ? memcmp(a->p, b->p, n) : 0;
    return c ? c : (a->n > b->n) - (a->n < b->n);
}

/* Distinct hlo_op among KS[0..n); OPS is scratch of n entries. */
static size_t distinct_ops(const kern *ks, size_t n, pq_str *ops)
{
    for (size_t i = 0; i < n; i++)
        ops[i] = ks[i].op;
    qsort(ops, n, sizeof *ops, cmp_str);
    size_t d = n > 0;
    for (size_t i = 1; i < n; i++)
        d += cmp_str(&ops[i - 1], &ops[i]) != 0;
    return d;
}

typedef struct acc {
    nsys_modules_result *r;
    size_t cap;
    int64_t *total_ps; /* per module row */
} acc;

static nsys_module_row *row_for(acc *a, int64_t program, pq_str module)
{
    for (size_t k = 0; k < a->r->nmodules; k++) {
        nsys_module_row *m = &a->r->modules[k];
        if (m->program_id == program && strlen(m->name) == module.n &&
            !memcmp(m->name, module.p, module.n))
            return m;
    }
    if (a->r->nmodules == a->cap) {
        size_t nc = a->cap ? a->cap * 2 : 16;
        nsys_module_row *m = pq_realloc(a->r->modules, nc * sizeof *m);
        int64_t *t = m ? pq_realloc(a->total_ps, nc * sizeof *t) : NULL;
        if (m)
            a->r->modules = m;
        if (!t)
            return NULL;
        a->total_ps = t;
        a->cap = nc;
    }
    char *name = pq_malloc(module.n + 1);
    if (!name)
        return NULL;
    memcpy(name, module.p, module.n);
    name[module.n] = '\0';
    a->total_ps[a->r->nmodules] = 0;
    nsys_module_row *m = &a->r->modules[a->r->nmodules++];
    *m = (nsys_module_row){.program_id = program, .name = name, .wait_share = NAN};
    return m;
}

/* One module execution: KS[0..n) of one module on one device. */
static int add_execution(acc *a, const kern *ks, size_t n, pq_str *scratch)
{
    nsys_module_row *m = row_for(a, ks[0].program, ks[0].module);
    if (!m)
        return -1;
    int64_t end = ks[0].e;
    for (size_t i = 1; i < n; i++)
        if (ks[i].e > end)
            end = ks[i].e;
    double t = (double)distinct_ops(ks, n, scratch);
    a->total_ps[m - a->r->modules] += end - ks[0].s;
    m->rows++;
    m->thunks_sum += t;
    m->thunks_sumsq += t * t;
    for (int f = NSYS_ALL; f <= NSYS_STEADY; f++) {
        a->r->frames[f].module_rows++;
        a->r->frames[f].thunk_rows += (uint64_t)t;
    }
    return 0;
}

static int plane_executions(acc *a, const xp_plane *pl)
{
    kern *ks = NULL;
    size_t n = plane_kernels(pl, &ks);
    if (n == (size_t)-1)
        return -1;
    pq_str *scratch = n ? pq_malloc(n * sizeof *scratch) : NULL;
    int rc = n && !scratch ? -1 : 0;
    if (n && scratch) {
        a->r->devices++;
        qsort(ks, n, sizeof *ks, cmp_kern);
        size_t first = 0;
        for (size_t i = 1; i <= n && rc == 0; i++) {
            if (i < n && ks[i].program == ks[first].program &&
                cmp_str(&ks[i].module, &ks[first].module) == 0)
                continue;
            rc = add_execution(a, ks + first, i - first, scratch);
            first = i;
        }
    }
    pq_free(scratch);
    pq_free(ks);
    return rc;
}

size_t nsys_xplane_devices(const pq_profile *prof)
{
    size_t d = 0;
    for (size_t s = 0; s < prof->nsources; s++) {
        const pq_source *src = &prof->sources[s];
        if (src->info.format != PQ_FORMAT_XSPACE)
            continue;
        for (uint32_t p = 0; p < src->nplanes; p++) {
            if (!xp_plane_is(src, &src->planes[p], "GPU"))
                continue;
            kern *ks = NULL;
            size_t n = plane_kernels(&src->planes[p], &ks);
            pq_free(ks);
            d += n != (size_t)-1 && n > 0;
        }
    }
    return d;
}

pq_status nsys_xplane_modules(const pq_profile *prof, nsys_modules_result *out, pq_error *err)
{
    memset(out, 0, sizeof *out);
    acc a = {.r = out};
    int oom = 0;
    for (size_t s = 0; s < prof->nsources && !oom; s++) {
        const pq_source *src = &prof->sources[s];
        if (src->info.format != PQ_FORMAT_XSPACE)
            continue;
        size_t before = out->devices;
        for (uint32_t p = 0; p < src->nplanes && !oom; p++)
            if (xp_plane_is(src, &src->planes[p], "GPU"))
                oom = plane_executions(&a, &src->planes[p]) != 0;
        out->sources += out->devices > before;
    }
    int64_t all_ps = 0;
    for (size_t k = 0; k < out->nmodules; k++)
        all_ps += a.total_ps[k];
    for (size_t k = 0; k < out->nmodules && !oom; k++) {
        nsys_module_row *m = &out->modules[k];
        m->total_ns = a.total_ps[k] / 1000;
        m->total_ms = (double)a.total_ps[k] / 1e9;
        m->share = all_ps ? (double)a.total_ps[k] / (double)all_ps : 0;
    }
    out->total_ns = all_ps / 1000;
    pq_free(a.total_ps);
    if (oom) {
        nsys_xplane_free(out);
        return err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    }
    if (!out->nmodules) {
        const char *path = prof->nsources ? prof->sources[0].path : "";
        nsys_xplane_free(out);
        return err_set(err, PQ_ERR_INPUT, path, -1,
                       "expected an nsys-jax archive or an XSpace whose GPU planes hold XLA "
                       "kernels (hlo_module and hlo_op stats)");
    }
    nsys_modules_finish(out);
    return PQ_OK;
}

/* ---- the thunk and module rows of nsys_comm.c's tables ---- */

static int cmp_kern_op(const void *pa, const void *pb)
{
    const kern *a = pa, *b = pb;
    int c = cmp_str(&a->op, &b->op);
    return c ? c : cmp_kern(pa, pb);
}

/* One execution KS[0..n) (sorted by start; reordered here) of device DEV: its module row
 * and one thunk per hlo_op (first kernel start, sum of its kernels' durations). */
static pq_status add_rows(nc_collect *c, size_t s, uint32_t dev, int64_t exec, kern *ks, size_t n,
                          pq_error *err)
{
    int64_t end = ks[0].e;
    for (size_t i = 1; i < n; i++)
        end = ks[i].e > end ? ks[i].e : end;
    nc_mod m = {ks[0].program,          exec,     dev, (double)(ks[0].s / 1000),
                (end - ks[0].s) / 1000, FR_STEADY};
    if (nc_add_module(c, &m) != 0)
        return err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    qsort(ks, n, sizeof *ks, cmp_kern_op);
    for (size_t g = 0, e; g < n; g = e) {
        int64_t ps = 0;
        for (e = g; e < n && cmp_str(&ks[e].op, &ks[g].op) == 0; e++)
            ps += ks[e].e - ks[e].s;
        nc_thunk th = {.program = ks[g].program,
                       .exec = exec,
                       .dev = dev,
                       .start = (double)(ks[g].s / 1000),
                       .dur = ps / 1000,
                       .frame = FR_STEADY};
        FORWARD_IF_ERROR(nc_add_thunk(c, s, &th, ks[g].op, err));
    }
    return PQ_OK;
}

static pq_status gather_plane(nc_collect *c, size_t s, const xp_plane *pl, pq_error *err)
{
    kern *ks = NULL;
    size_t n = plane_kernels(pl, &ks);
    if (n == (size_t)-1)
        return err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    uint32_t dev = c->t->ndevices;
    pairmap execs = {0}; /* (program, 0) -> executions seen on this device */
    pq_status st = PQ_OK;
    if (n)
        qsort(ks, n, sizeof *ks, cmp_kern);
    for (size_t first = 0, i = 1; first < n && st == PQ_OK; i++) {
        if (i < n && ks[i].program == ks[first].program &&
            cmp_str(&ks[i].module, &ks[first].module) == 0)
            continue;
        int fresh;
        uint32_t *slot = pairmap_slot(&execs, ks[first].program, 0, &fresh);
        if (!slot) {
            st = err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
            break;
        }
        *slot = fresh ? 0 : *slot + 1;
        st = add_rows(c, s, dev, *slot, ks + first, i - first, err);
        first = i;
    }
    if (n && c->t->ndevices <= dev)
        c->t->ndevices = dev + 1;
    pairmap_free(&execs);
    pq_free(ks);
    return st;
}

/* The gather of XSpaces (nc_gather): every GPU plane with XLA kernels is the next device. */
static pq_status gather_xspace(const pq_profile *prof, nc_collect *c, pq_error *err)
{
    for (size_t s = 0; s < prof->nsources; s++) {
        const pq_source *src = &prof->sources[s];
        if (src->info.format != PQ_FORMAT_XSPACE)
            continue;
        FORWARD_IF_ERROR(nsys_hlo_open_xspace(src, &c->hlo[s], err));
        for (uint32_t p = 0; p < src->nplanes; p++)
            if (xp_plane_is(src, &src->planes[p], "GPU"))
                FORWARD_IF_ERROR(gather_plane(c, s, &src->planes[p], err));
    }
    return PQ_OK;
}

pq_status nsys_xplane_comm(const pq_profile *prof, nsys_modules_result *mods, nsys_comm_result *out,
                           pq_error *err)
{
    pq_status st = nc_run(prof, NULL, gather_xspace, mods, out, err);
    if (st == PQ_OK)
        out->warmup_none = 1;
    return st;
}

void nsys_xplane_free(nsys_modules_result *r)
{
    for (size_t k = 0; k < r->nmodules; k++)
        pq_free((void *)(uintptr_t)r->modules[k].name);
    nsys_modules_free(r);
}
