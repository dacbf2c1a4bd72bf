/* memviewer_select.c - the memory viewer's entry point over a profile: which module the
 * options name (README "memory-viewer": "<name>(<id>)", a unique bare name, an XLA program
 * id, XProf's substring rule), its lazy decode and memviewer_compute_lazy; or, when no
 * module is asked for, the list of modules with their memory spaces. Returns
 * pq_memory_viewer_result (include/profq.h). Not here: the viewer itself (memviewer.c) and
 * any formatting (render/memviewer.c). */
#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "memviewer.h"
#include "model/model.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* memcmp that accepts the NULL pointer of an empty view. */
static int mem_eq(const void *a, const void *b, size_t n)
{
    return n == 0 || memcmp(a, b, n) == 0;
}

const char *memviewer_module_key(arena *a, pq_str name, uint64_t program_id)
{
    char id[32];
    int k = snprintf(id, sizeof id, "(%" PRIu64 ")", program_id);
    char *s = arena_alloc(a, name.n + (size_t)k + 1);
    if (!s)
        return NULL;
    if (name.n)
        memcpy(s, name.p, name.n);
    memcpy(s + name.n, id, (size_t)k + 1);
    return s;
}

int memviewer_key_has_prefix(pq_str name, uint64_t program_id, const char *prefix)
{
    if (!prefix || !*prefix)
        return 1;
    size_t n = strlen(prefix);
    if (!mem_eq(prefix, name.p, n < name.n ? n : name.n))
        return 0;
    if (n <= name.n)
        return 1;
    char id[32];
    size_t k = (size_t)snprintf(id, sizeof id, "(%" PRIu64 ")", program_id);
    return n - name.n <= k && memcmp(prefix + name.n, id, n - name.n) == 0;
}

/* A computed viewer with the arena everything is in (the public struct first). */
typedef struct mv_handle {
    pq_memory_viewer_result pub;
    arena a;
} mv_handle;

typedef struct mv_pick {
    const pq_source *src;
    const pq_program *prog;
} mv_pick;

static int key_eq(const pq_program *p, const char *s)
{
    char k[64];
    size_t n = strlen(s);
    snprintf(k, sizeof k, "(%" PRIu64 ")", p->program_id);
    size_t kl = strlen(k);
    return n == p->name.n + kl && mem_eq(s, p->name.p, p->name.n) &&
           memcmp(s + p->name.n, k, kl) == 0;
}

/* Selection (README "memory-viewer"): --module as "<name>(<id>)" exactly, or a bare module
 * name when exactly one program has it; else --program-id as an XLA program id; else, as
 * XProf does, the program id text as a substring of "<name>(<id>)", first in source and
 * program-id order. Returns 1 with *out, 0 when nothing matches, -1 when ambiguous. */
static int pick_program(const pq_profile *p, const char *module, const char *program_id,
                        mv_pick *out)
{
    int found = 0;
    if (module && *module) {
        for (size_t s = 0; s < p->nsources; s++)
            for (uint32_t i = 0; i < p->sources[s].nprograms; i++)
                if (key_eq(&p->sources[s].programs[i], module)) {
                    *out = (mv_pick){&p->sources[s], &p->sources[s].programs[i]};
                    return 1;
                }
        for (size_t s = 0; s < p->nsources; s++)
            for (uint32_t i = 0; i < p->sources[s].nprograms; i++) {
                const pq_program *q = &p->sources[s].programs[i];
                if (q->name.n == strlen(module) && mem_eq(q->name.p, module, q->name.n)) {
                    if (found && out->prog->program_id != q->program_id)
                        return -1;
                    if (!found)
                        *out = (mv_pick){&p->sources[s], q};
                    found = 1;
                }
            }
        if (found)
            return 1;
    }
    if (program_id && *program_id) {
        char *end;
        unsigned long long v = strtoull(program_id, &end, 10);
        if (!*end)
            for (size_t s = 0; s < p->nsources; s++)
                for (uint32_t i = 0; i < p->sources[s].nprograms; i++)
                    if (p->sources[s].programs[i].program_id == v) {
                        *out = (mv_pick){&p->sources[s], &p->sources[s].programs[i]};
                        return 1;
                    }
        for (size_t s = 0; s < p->nsources; s++)
            for (uint32_t i = 0; i < p->sources[s].nprograms; i++) {
                char k[64];
                snprintf(k, sizeof k, "%" PRIu64, p->sources[s].programs[i].program_id);
                if (strstr(k, program_id)) {
                    *out = (mv_pick){&p->sources[s], &p->sources[s].programs[i]};
                    return 1;
                }
            }
    }
    return 0;
}

static void module_of(pq_memory_module *m, arena *a, const pq_source *src, const pq_program *q)
{
    m->key = memviewer_module_key(a, q->name, q->program_id);
    m->name = q->name;
    m->program_id = q->program_id;
    m->source = src->path;
}

/* Every module of the profile with its memory spaces (each HloProto decoded, then
 * dropped: only the colors are kept). */
static pq_status list_modules(const pq_profile *p, mv_handle *h, pq_error *err)
{
    size_t cap = 0;
    for (size_t s = 0; s < p->nsources; s++)
        cap += p->sources[s].nprograms;
    pq_memory_viewer_result *r = &h->pub;
    r->is_list = 1;
    r->modules = arena_alloc(&h->a, (cap ? cap : 1) * sizeof *r->modules);
    if (!r->modules)
        return err_set(err, PQ_ERR_NOMEM, "", -1, "out of memory");
    for (size_t s = 0; s < p->nsources; s++) {
        for (uint32_t i = 0; i < p->sources[s].nprograms; i++) {
            const pq_program *q = &p->sources[s].programs[i];
            arena a;
            arena_init(&a);
            hlo_module *m = NULL;
            int64_t off;
            const char *what;
            pq_status st =
                hlo_decode(q->hlo, q->hlo_len, p->sources[s].file.data, &a, &m, &off, &what);
            if (st != PQ_OK) {
                arena_release(&a);
                if (st == PQ_ERR_INPUT)
                    return err_set(err, st, p->sources[s].path, off, "expected %s in an HloProto",
                                   what);
                return err_set(err, st, p->sources[s].path, -1, "out of memory");
            }
            int64_t colors[64];
            uint32_t nc = memviewer_colors(m, colors, 64);
            arena_release(&a);
            pq_memory_module *mm = &r->modules[r->nmodules++];
            module_of(mm, &h->a, &p->sources[s], q);
            int64_t *c = arena_alloc(&h->a, (nc ? nc : 1) * sizeof *c);
            if (c && nc)
                memcpy(c, colors, nc * sizeof *c);
            mm->memory_spaces = c;
            mm->nmemory_spaces = nc;
        }
    }
    return arena_failed(&h->a) ? err_set(err, PQ_ERR_NOMEM, "", -1, "out of memory") : PQ_OK;
}

/* The viewer of the module the options name, its figures copied into the public part. */
static pq_status view_module(const pq_profile *p, const pq_memviewer_options *opts, mv_handle *h,
                             pq_error *err)
{
    mv_pick pick;
    int k = pick_program(p, opts->module, opts->program_id, &pick);
    if (k <= 0)
        return err_set(err, k < 0 ? PQ_ERR_USAGE : PQ_ERR_NOT_FOUND, "", -1,
                       k < 0 ? "module name '%s' is ambiguous: give '<name>(<program id>)'"
                             : "no module matches '%s' (run without --module to list them)",
                       opts->module && *opts->module ? opts->module : opts->program_id);
    hlo_module *m = NULL;
    int64_t off;
    const char *what;
    /* the decode and the viewer hold about 1.2 bytes a byte of HloProto (the H100 module:
     * 2.12 MB for 1.76 MB): a big module's arena starts on a huge page */
    arena_expect(&h->a, pick.prog->hlo_len + pick.prog->hlo_len / 4);
    pq_status st = hlo_decode_lazy(pick.prog->hlo, pick.prog->hlo_len, pick.src->file.data, &h->a,
                                   &m, &off, &what);
    if (st == PQ_ERR_INPUT)
        return err_set(err, st, pick.src->path, off, "expected %s in an HloProto", what);
    if (st != PQ_OK)
        return err_set(err, st, pick.src->path, -1, "out of memory");
    mv_result *d = NULL;
    st = memviewer_compute_lazy(m, pick.src->file.data, opts->memory_space, &h->a, &d, &what, &off);
    if (st != PQ_OK) {
        if (st == PQ_ERR_INPUT && off >= 0)
            return err_set(err, st, pick.src->path, off, "expected %s in an HloProto", what);
        return err_set(err, st, pick.src->path, -1, "%s", what);
    }
    pq_memory_viewer_result *r = &h->pub;
    module_of(&r->module, &h->a, pick.src, pick.prog);
    r->memory_space = d->memory_color;
    r->peak_heap_bytes = d->peak_bytes;
    r->peak_unpadded_bytes = d->peak_unpadded_bytes;
    r->peak_position = d->peak_position;
    r->indefinite_bytes = d->indefinite_bytes;
    r->entry_params_bytes = d->entry_params_bytes;
    r->non_reusable_bytes = d->non_reusable_bytes;
    r->maybe_live_out_bytes = d->maybe_live_out_bytes;
    r->total_allocation_bytes = d->total_bytes;
    r->indefinite_allocation_bytes = d->indefinite_alloc_bytes;
    r->ntimeline = d->ntimeline;
    r->heap_bytes = d->heap_bytes;
    r->detail = d;
    return arena_failed(&h->a) ? err_set(err, PQ_ERR_NOMEM, "", -1, "out of memory") : PQ_OK;
}

pq_status pq_memory_viewer_compute(const pq_profile *p, const pq_memviewer_options *opts,
                                   pq_memory_viewer_result **out, pq_error *err)
{
    *out = NULL;
    mv_handle *h = pq_calloc(1, sizeof *h);
    if (!h)
        return err_set(err, PQ_ERR_NOMEM, "", -1, "out of memory");
    arena_init(&h->a);
    pq_status st;
    if ((!opts->module || !*opts->module) && (!opts->program_id || !*opts->program_id))
        st = list_modules(p, h, err);
    else
        st = view_module(p, opts, h, err);
    if (st != PQ_OK) {
        pq_memory_viewer_free(&h->pub);
        return st;
    }
    *out = &h->pub;
    return PQ_OK;
}

void pq_memory_viewer_free(pq_memory_viewer_result *result)
{
    if (!result)
        return;
    mv_handle *h = (mv_handle *)(void *)result;
    arena_release(&h->a);
    pq_free(h);
}
