/* nsys.c - `profq nsys` as one analysis (nsys.h): picks the path (an nsys-jax archive or
 * an Nsight SQLite export, or a JAX XPlane GPU profile), applies the warm-up rule asked for or the
 * archive era's, and runs the nsys analyses the sections need, in the order they depend on
 * each other (modules -> communication, dumps -> heap, flame; compile, which needs none of
 * them, on a thread beside modules and communication), with one set of HLO dump handles
 * for all of them (each dump decoded once). Computes nothing itself and
 * formats nothing (render/nsys.c does). */
#include "analysis/nsys.h"

#include "analysis/nsys_xplane.h"
#include "core/err.h"

#include <pthread.h>
#include <string.h>

enum { SECTION_BITS = PQ_NSYS_WARMUP_HEAD - 1 };

/* Whether PROFILE has an XSpace source and no nsys-jax source (nsys_xplane_modules then
 * says when no GPU plane holds XLA kernels). */
static int xplane_only(const pq_profile *profile)
{
    int xspace = 0;
    for (size_t s = 0; s < profile->nsources; s++) {
        if (profile->sources[s].info.format == PQ_FORMAT_NSYS_JAX)
            return 0;
        xspace |= profile->sources[s].info.format == PQ_FORMAT_XSPACE;
    }
    return xspace;
}

unsigned nsys_unavailable(const pq_profile *profile)
{
    if (xplane_only(profile))
        return PQ_NSYS_BIAS | PQ_NSYS_COMPILE | PQ_NSYS_HEAP | PQ_NSYS_FLAME;
    for (size_t s = 0; s < profile->nsources; s++)
        if (profile->sources[s].info.format == PQ_FORMAT_NSYS_SQLITE)
            return PQ_NSYS_COMPILE | PQ_NSYS_HEAP | PQ_NSYS_FLAME;
    return 0;
}

const char *nsys_input_name(const nsys_result *r)
{
    return !r->unavailable ? "" : r->xplane ? "an XPlane" : "an Nsight SQLite export";
}

pq_status nsys_check_request(const pq_profile *profile, unsigned sections, int svg, pq_error *err)
{
    unsigned un = nsys_unavailable(profile), asked = sections & SECTION_BITS;
    if (!un || !((asked && !(asked & ~un)) || (svg && (asked & PQ_NSYS_FLAME))))
        return PQ_OK;
    return err_set(err, PQ_ERR_INPUT, profile->nsources ? profile->sources[0].path : "", -1,
                   "expected an nsys-jax archive for the %s sections (its push/pop report, its HLO "
                   "dumps); on %s: modules, runtime, opcodes, collectives, variability%s",
                   un & PQ_NSYS_BIAS ? "bias, compile, heap and flame" : "compile, heap and flame",
                   xplane_only(profile) ? "an XPlane" : "an Nsight SQLite export",
                   un & PQ_NSYS_BIAS ? "" : ", bias");
}

unsigned nsys_shown_sections(const nsys_result *r)
{
    if (!r->unavailable)
        return r->sections;
    unsigned asked = r->sections & SECTION_BITS;
    return ((asked ? asked : SECTION_BITS) & ~r->unavailable) | (r->sections & ~SECTION_BITS);
}

/* The compile section reads only the push/pop ranges of the profile (const, as every
 * analysis here): it runs on a thread of its own beside modules and communication, which
 * leave the second core idle once the reader is done. Its result and error are taken after
 * theirs, so a run reports the error it reported when computed in order. */
typedef struct compile_job {
    const pq_profile *prof;
    const nsys_compile_part *const *parts;
    int started, threaded;
    pthread_t thread;
    nsys_compile_result r;
    pq_status st;
    pq_error err;
} compile_job;

static void *compile_run(void *arg)
{
    compile_job *j = arg;
    j->st = nsys_compile_compute_parts(j->prof, j->parts, &j->r, &j->err);
    return NULL;
}

static void compile_start(const pq_profile *prof, const nsys_compile_part *const *parts,
                          const nsys_result *out, compile_job *j)
{
    memset(j, 0, sizeof *j);
    j->prof = prof;
    j->parts = parts;
    if (!(out->want & PQ_NSYS_COMPILE))
        return;
    j->started = 1;
    j->threaded = pthread_create(&j->thread, NULL, compile_run, j) == 0;
}

/* Waits for the compile job; with ST (modules and communication) PQ_OK, its result goes
 * to OUT (computed here when no thread could start), else it is dropped. */
static pq_status compile_finish(compile_job *j, pq_status st, nsys_result *out, pq_error *err)
{
    if (j->threaded)
        pthread_join(j->thread, NULL);
    else if (j->started && st == PQ_OK)
        compile_run(j);
    if (!j->started)
        return st;
    if (st != PQ_OK) {
        if (j->threaded && j->st == PQ_OK)
            nsys_compile_free(&j->r);
        return st;
    }
    if (j->st != PQ_OK) {
        *err = j->err;
        return j->st;
    }
    out->compile = j->r;
    out->have_compile = 1;
    return PQ_OK;
}

/* The HLO dumps loaded on a thread of its own while modules and communication start: the
 * communication tables look instructions up from their first thunk on, and a dump's
 * decoding and indexing (the shared archive's program 16: 17,269 instructions) is then
 * mostly done; then the thunks are classified from the last one back while the tables
 * classify from the first (nsys_comm_ahead). Errors stay the lookups' (nsys_hlo_preload). */
typedef struct preload_job {
    const pq_profile *prof;
    nsys_hlo **dumps;
    size_t n;
    atomic_int stop; /* the communication tables are done (nsys_comm_ahead) */
    int threaded;
    pthread_t thread;
} preload_job;

static void *preload_run(void *arg)
{
    preload_job *j = arg;
    for (size_t d = 0; d < j->n; d++)
        nsys_hlo_preload(j->dumps[d]);
    nsys_comm_ahead(j->prof, j->dumps, &j->stop);
    return NULL;
}

/* Opens OUT's dump handles (a failure is left to the analyses that open them again) and
 * starts preloading them. */
static void preload_start(const pq_profile *prof, nsys_result *out, preload_job *j)
{
    memset(j, 0, sizeof *j);
    atomic_init(&j->stop, 0);
    if (!out->dumps) /* the communication tables always read them */
        return;
    pq_error ignored;
    if (nsys_dumps_open(prof, out->dumps, &ignored) != PQ_OK)
        return;
    j->prof = prof;
    j->dumps = out->dumps;
    j->n = out->ndumps;
    j->threaded = pthread_create(&j->thread, NULL, preload_run, j) == 0;
}

static void preload_finish(preload_job *j)
{
    atomic_store(&j->stop, 1);
    if (j->threaded)
        pthread_join(j->thread, NULL);
    j->threaded = 0;
}

/* The module table on a thread of its own while the communication tables gather and
 * classify their thunks (they need it only after that: nsys_comm_compute_later). Its error
 * comes first, as when computed before them. */
typedef struct modules_job {
    const pq_profile *prof;
    const nsys_warmup *w;
    nsys_modules_result *out;
    int threaded, joined;
    pthread_t thread;
    pq_status st;
    pq_error err;
} modules_job;

static void *modules_run(void *arg)
{
    modules_job *j = arg;
    j->st = nsys_modules_compute_warmup(j->prof, j->w, j->out, &j->err);
    return NULL;
}

static pq_status modules_wait(void *ctx, nsys_modules_result **mods, pq_error *err)
{
    modules_job *j = ctx;
    if (!j->joined) {
        if (j->threaded)
            pthread_join(j->thread, NULL);
        else
            modules_run(j);
        j->joined = 1;
    }
    *mods = j->out;
    if (j->st != PQ_OK)
        *err = j->err;
    return j->st;
}

/* Modules and communication into OUT (modules beside the gathering, when a thread starts). */
static pq_status modules_and_comm(const pq_profile *prof, const nsys_warmup *w, nsys_result *out,
                                  pq_error *err)
{
    modules_job j = {.prof = prof, .w = w, .out = &out->modules};
    j.threaded = pthread_create(&j.thread, NULL, modules_run, &j) == 0;
    nsys_mods_wait later = {modules_wait, &j};
    pq_status st = nsys_comm_compute_later(prof, w, out->dumps, &later, &out->comm, err);
    nsys_modules_result *ignored;
    pq_error merr;
    if (modules_wait(&j, &ignored, &merr) != PQ_OK) {
        if (st == PQ_OK)
            nsys_comm_free(&out->comm);
        *err = merr;
        return j.st;
    }
    out->have_modules = 1;
    out->have_comm = st == PQ_OK;
    return st;
}

/* heap and flame for the sections in OUT->want, after modules, comm and compile. */
static pq_status compute_more(const pq_profile *prof, nsys_result *out, pq_error *err)
{
    pq_status st = PQ_OK;
    if (!(out->want & (PQ_NSYS_HEAP | PQ_NSYS_FLAME))) { /* only comm needed them */
        nsys_dumps_close(out->dumps, out->ndumps);
        out->dumps = NULL;
        out->ndumps = 0;
    }
    if (st == PQ_OK && out->dumps)
        st = nsys_dumps_open(prof, out->dumps, err);
    if (st == PQ_OK && (out->want & PQ_NSYS_HEAP)) {
        st = nsys_heap_compute(&out->modules, out->dumps, out->ndumps, &out->heap, err);
        out->have_heap = st == PQ_OK;
    }
    if (st == PQ_OK && (out->want & PQ_NSYS_FLAME)) {
        st = nsys_flame_compute(&out->comm, out->dumps, out->ndumps, &out->flame, err);
        out->have_flame = st == PQ_OK;
    }
    return st;
}

/* The HLO dumps (out->dumps, one handle per source) are shared by the communication
 * tables, heap and flame: each program's dump is decoded once per result. */
static pq_status compute_archive(const pq_profile *prof, const nsys_compile_part *const *parts,
                                 nsys_result *out, pq_error *err)
{
    nsys_warmup w = {.head = (out->sections & PQ_NSYS_WARMUP_HEAD) != 0};
    if (!(out->sections & (PQ_NSYS_WARMUP_HEAD | PQ_NSYS_WARMUP_ARCHIVE)))
        w.head = nsys_warmup_head_default(prof);
    compile_job job;
    compile_start(prof, parts, out, &job);
    pq_status st = nsys_dumps_new(prof, &out->dumps, err);
    out->ndumps = out->dumps ? prof->nsources : 0;
    preload_job pre;
    preload_start(prof, out, &pre);
    if (st == PQ_OK && w.head)
        st = nsys_comm_has_communication(prof, out->dumps, &w.has_communication, err);
    if (st == PQ_OK)
        st = modules_and_comm(prof, &w, out, err);
    preload_finish(&pre);
    st = compile_finish(&job, st, out, err);
    if (st == PQ_OK)
        st = compute_more(prof, out, err);
    return st;
}

pq_status nsys_compute(const pq_profile *profile, unsigned sections, nsys_result *out,
                       pq_error *err)
{
    return nsys_compute_parts(profile, sections, NULL, out, err);
}

pq_status nsys_compute_parts(const pq_profile *profile, unsigned sections,
                             const nsys_compile_part *const *parts, nsys_result *out, pq_error *err)
{
    memset(out, 0, sizeof *out);
    out->sections = sections;
    out->unavailable = nsys_unavailable(profile);
    out->want = (sections & SECTION_BITS ? sections & SECTION_BITS : ~0u) & ~out->unavailable;
    out->path = profile->nsources ? profile->sources[0].path : "";
    pq_status st = nsys_check_request(profile, sections, 0, err);
    if (st != PQ_OK)
        return st;
    if (xplane_only(profile)) {
        out->xplane = 1;
        st = nsys_xplane_modules(profile, &out->modules, err);
        out->have_modules = st == PQ_OK;
        if (st == PQ_OK) {
            st = nsys_xplane_comm(profile, &out->modules, &out->comm, err);
            out->have_comm = st == PQ_OK;
        }
    } else {
        st = compute_archive(profile, parts, out, err);
    }
    if (st != PQ_OK)
        nsys_result_free(out);
    return st;
}

void nsys_result_free(nsys_result *r)
{
    if (r->have_compile)
        nsys_compile_free(&r->compile);
    if (r->have_heap)
        nsys_heap_free(&r->heap);
    if (r->have_flame)
        nsys_flame_free(&r->flame);
    if (r->dumps)
        nsys_dumps_close(r->dumps, r->ndumps);
    if (r->have_comm)
        nsys_comm_free(&r->comm);
    if (r->have_modules) {
        if (r->xplane)
            nsys_xplane_free(&r->modules);
        else
            nsys_modules_free(&r->modules);
    }
    memset(r, 0, sizeof *r);
}
