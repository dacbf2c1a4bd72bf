/* nsys_heap.c - heap usage over program order of the top modules of nsys-jax archives
 * (nsys_heap.h): each top program id's after-optimisation HloProto is found in the first
 * nsys-jax source whose archive holds it (nsys-jax-combine keeps one copy of identical
 * dumps) and replayed by heapsim_compute. Not here: choosing the top modules (nsys_modules.c),
 * the replay itself (heapsim.c), decoding the dump (nsys_hlo.c). */
#include "nsys_heap.h"

#include "core/alloc.h"
#include "core/err.h"

#include <string.h>

pq_status nsys_dumps_new(const pq_profile *prof, nsys_hlo ***out, pq_error *err)
{
    *out = pq_calloc(prof->nsources ? prof->nsources : 1, sizeof **out);
    return *out ? PQ_OK : err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
}

pq_status nsys_dumps_open(const pq_profile *prof, nsys_hlo **dumps, pq_error *err)
{
    for (size_t s = 0; s < prof->nsources; s++)
        if (prof->sources[s].info.format == PQ_FORMAT_NSYS_JAX && !dumps[s])
            FORWARD_IF_ERROR(nsys_hlo_open(&prof->sources[s], &dumps[s], err));
    return PQ_OK;
}

void nsys_dumps_close(nsys_hlo **dumps, size_t n)
{
    for (size_t d = 0; dumps && d < n; d++)
        nsys_hlo_close(dumps[d]);
    pq_free(dumps);
}

static pq_status one_module(nsys_hlo *const *dumps, size_t ndumps, nsys_heap_result *out,
                            nsys_heap_module *hm, pq_error *err)
{
    const hlo_module *m = NULL;
    for (size_t d = 0; d < ndumps && !m; d++)
        if (dumps[d])
            FORWARD_IF_ERROR(nsys_hlo_module(dumps[d], hm->program_id, &m, err));
    if (!m)
        return PQ_OK;
    hm->has_dump = 1;
    if (heapsim_compute(m, &out->a, &hm->heap) != PQ_OK)
        return err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    for (uint32_t i = 0; i < hm->heap.ntraces; i++)
        if (hm->heap.traces[i].peak_bytes > hm->heap.traces[hm->top_trace].peak_bytes)
            hm->top_trace = i;
    return PQ_OK;
}

pq_status nsys_heap_compute(const nsys_modules_result *mods, nsys_hlo *const *dumps, size_t ndumps,
                            nsys_heap_result *out, pq_error *err)
{
    memset(out, 0, sizeof *out);
    arena_init(&out->a);
    pq_status st = PQ_OK;
    out->modules = pq_calloc(mods->ntop ? mods->ntop : 1, sizeof *out->modules);
    if (!out->modules)
        st = err_set(err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    for (size_t k = 0; st == PQ_OK && k < mods->ntop; k++) {
        nsys_heap_module *hm = &out->modules[out->nmodules++];
        hm->program_id = mods->modules[k].program_id;
        hm->name = mods->modules[k].name;
        st = one_module(dumps, ndumps, out, hm, err);
    }
    if (st != PQ_OK)
        nsys_heap_free(out);
    return st;
}

void nsys_heap_free(nsys_heap_result *r)
{
    pq_free(r->modules);
    arena_release(&r->a);
    memset(r, 0, sizeof *r);
}
